/**
 * Requests per second of cached RPC reads, the node's handler beside a bare handler that returns
 * the same bytes and content type, under Node, Bun and Deno side by side. Paths
 * ({@link HTTP_BENCH_PATHS}): the genesis header, and on the head of a node that baked a few
 * blocks (a Hangzhou block, reached through the `head` alias): its header, the full block,
 * bootstrap1's balance and the constants.
 *
 * The bare handler is `() => new Response(body, { headers: { "content-type": … } })`, its body
 * the node's answer in the form the runtime writes fastest (text under Deno, bytes elsewhere).
 *
 * For each runtime and path:
 *  (a) in process: `handler(new Request(...))` in a loop, body read whole, node and bare;
 *  (b) over HTTP on loopback, through this runtime's adapter (`platform/<runtime>/serve.ts`),
 *      node and bare each on its own server of that same type, loaded by autocannon running
 *      under Node in a separate process (`node node_modules/autocannon/autocannon.js`, one
 *      thread, keep-alive connections), so that the load generator never shares the server's
 *      process. Both servers are warmed up first; then node and bare are measured alternately,
 *      `rounds` times each, with the same connections and duration, and the best of each counts.
 * The ratio node/bare says what the node costs over the bare minimum of its runtime.
 *
 * Requests per second move with whatever else the machine runs (the load generator shares the
 * cores). Over HTTP the bench also gives the server process's CPU time per request
 * (`process.cpuUsage()`, user + system, every thread of the server's process, lowest of the
 * rounds), which moves far less; it is measured under the three runtimes. Under Node it also
 * gives the server thread's event-loop busy time per request (`performance.eventLoopUtilization()`;
 * Bun and Deno answer zeros, shown as `-`).
 *
 * Run: `npx tsx bench/http.ts [path…]` (default: every path) measures this runtime in process,
 * then runs the same bench under Bun and Deno (`.tools/node_modules/.bin/{bun,deno}`, skipped
 * with a notice when absent) as child processes with `--json` (their rows as one JSON line on
 * stdout), and prints one table with a column per runtime. `--only` measures this runtime alone
 * (`bun bench/http.ts --only`, `deno run -A bench/http.ts --only`). With everything: `npm run bench`.
 * @module
 */
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { performance as perfHooks } from "node:perf_hooks";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { isMainModule, runtimeBenchArgs } from "./cli.ts";
import { createNode } from "../lib/node.ts";
import { currentServe, runtimeName, type RuntimeName } from "../platform/current.ts";
import type { FetchHandler, HttpServer, Serve } from "../platform/serve.ts";

/** Event-loop utilization of this thread (Node; zeros under Bun and Deno). */
const eventLoopUtilization: typeof perfHooks.eventLoopUtilization = (...args) => perfHooks.eventLoopUtilization(...args);

/** Settings of the HTTP bench. */
export interface HttpBenchOptions {
  /** Seconds of each in-process loop (default 1). */
  readonly inProcessSeconds?: number;
  /** Seconds of each autocannon run (default 3). */
  readonly httpSeconds?: number;
  /** Concurrent keep-alive connections (default 50). */
  readonly connections?: number;
  /** Measurements of each handler, alternating node and bare; the best counts (default 2). */
  readonly rounds?: number;
  /** Paths to measure (default {@link HTTP_BENCH_PATHS}). */
  readonly paths?: readonly string[];
  /** Runtimes to measure: this one in process, the others as child processes (default all three). */
  readonly runtimes?: readonly RuntimeName[];
}

/** One row of the result: one path measured one way under one runtime. */
export interface HttpBenchRow {
  /** The runtime that ran the handlers (and the server). */
  readonly runtime: RuntimeName;
  /** The request's path. */
  readonly path: string;
  /** How it was measured. */
  readonly how: "in process" | "over HTTP";
  /** Requests per second of the node's handler. */
  readonly node: number;
  /** Requests per second of the bare handler. */
  readonly bare: number;
  /** Server process's CPU microseconds per request, node and bare (over HTTP). */
  readonly cpu?: { readonly node: number; readonly bare: number };
  /** Server thread's event-loop busy microseconds per request, node and bare (over HTTP, Node only). */
  readonly busy?: { readonly node: number; readonly bare: number };
  /** The answer's size in bytes and its content type. */
  readonly bytes: number;
  readonly contentType: string;
}

/** One measurement: requests per second and, when measured, CPU microseconds per request. */
interface Measure {
  readonly rate: number;
  readonly cpu?: number;
  readonly busy?: number;
}

/** bootstrap1, whose balance is measured. */
const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";

/** The paths measured by default, each in process and over HTTP. */
export const HTTP_BENCH_PATHS: readonly string[] = [
  "/chains/main/blocks/genesis/header",
  "/chains/main/blocks/head/header",
  "/chains/main/blocks/head",
  `/chains/main/blocks/head/context/contracts/${BOOTSTRAP1}/balance`,
  "/chains/main/blocks/head/context/constants",
];

const RUNTIMES: readonly RuntimeName[] = ["node", "bun", "deno"];
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const AUTOCANNON = fileURLToPath(new URL("../node_modules/autocannon/autocannon.js", import.meta.url));

/**
 * Runs the bench under this runtime and, as child processes, under the other `runtimes`; prints
 * one table with a column per runtime and returns every row.
 */
export async function benchHttp(options: HttpBenchOptions = {}): Promise<HttpBenchRow[]> {
  const here = runtimeName();
  const runtimes = options.runtimes ?? RUNTIMES;
  const rows: HttpBenchRow[] = [];
  const measured: RuntimeName[] = [];
  for (const runtime of runtimes) {
    if (runtime === here) {
      console.log(`== ${runtime} (${runtimeVersion()}), in this process`);
      rows.push(...(await benchHere(options)));
      measured.push(runtime);
      continue;
    }
    const command = commandOf(runtime);
    if (command === undefined) {
      console.log(`== ${runtime}: skipped (not installed in .tools/; see README.md "Runtimes")`);
      continue;
    }
    console.log(`== ${runtime}, child process: ${[command[0], ...command.slice(1).map((a) => a.replace(ROOT, ""))].join(" ")}`);
    rows.push(...(await benchChild(command, options)));
    measured.push(runtime);
  }
  printTable(rows, measured);
  return rows;
}

/** Runs the bench under this runtime only. */
async function benchHere(options: HttpBenchOptions): Promise<HttpBenchRow[]> {
  const { inProcessSeconds = 1, httpSeconds = 3, connections = 50, rounds = 2, paths = HTTP_BENCH_PATHS } = options;
  const runtime = runtimeName();
  const node = await createNode({ bake: { mode: "manual" } }); // activated, baked to level 3
  try {
    const serve = await currentServe();
    // Under Node, @hono/node-server puts its light Request and Response in place of the global
    // ones when it makes its first listener: make it now, so that every measure uses them.
    await (await serve(() => new Response(null), { hostname: "127.0.0.1", port: 0 })).close();
    const nodeHandler: FetchHandler = (request) => node.fetch(request);
    const rows: HttpBenchRow[] = [];
    for (const path of paths) {
      const first = await node.fetch(new Request(`http://localhost${path}`));
      if (first.status !== 200) throw new Error(`GET ${path} answered ${first.status}`);
      const bytes = new Uint8Array(await first.arrayBuffer());
      const contentType = first.headers.get("content-type") ?? "application/json";
      // The same bytes in the body form the runtime writes fastest: Deno writes text faster
      // than bytes (its `Response` copies a byte body: 8 KB, 11 µs per request as text, 14 as
      // bytes); Bun and Node write bytes as they are.
      const body: BodyInit = runtime === "deno" && contentType === "application/json" ? new TextDecoder().decode(bytes) : (bytes as Uint8Array<ArrayBuffer>);
      const bare: FetchHandler = () => new Response(body, { headers: { "content-type": contentType } });
      console.log(`GET ${path}: ${bytes.length} bytes, ${contentType}`);
      const about = { runtime, path, bytes: bytes.length, contentType };
      const inProcess = await bestOf(rounds, (handler) => loop(handler, path, inProcessSeconds), nodeHandler, bare);
      rows.push({ ...about, how: "in process", node: inProcess.node.rate, bare: inProcess.bare.rate });
      const http = await overHttp(serve, nodeHandler, bare, path, httpSeconds, connections, rounds);
      rows.push({ ...about, how: "over HTTP", ...http });
    }
    return rows;
  } finally {
    await node.close();
  }
}

/** Runs `command` (this file under another runtime, `--json`) and reads its rows. */
function benchChild(command: readonly string[], options: HttpBenchOptions): Promise<HttpBenchRow[]> {
  const args = [...command.slice(1), "--json", "--options", JSON.stringify({ ...options, runtimes: undefined })];
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, args, {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, BENCH_NODE: nodeExecutable() },
    });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (out += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const line = out.trim().split("\n").pop() ?? "";
      if (code !== 0) return reject(new Error(`${command[0]} exited with ${code ?? signal}`));
      try {
        resolve(JSON.parse(line) as HttpBenchRow[]);
      } catch {
        reject(new Error(`${command[0]}: no JSON rows on stdout`));
      }
    });
  });
}

/** The command that runs this file under `runtime`, or undefined when that runtime is absent. */
function commandOf(runtime: RuntimeName): string[] | undefined {
  if (runtime === "node") return [nodeExecutable(), "--import", "tsx", SELF];
  const bin = `${ROOT}.tools/node_modules/.bin/${runtime}`;
  if (!existsSync(bin)) return undefined;
  return runtime === "bun" ? [bin, SELF] : [bin, "run", "-A", SELF];
}

/** Node's executable, to run autocannon (and the Node bench from Bun or Deno). */
function nodeExecutable(): string {
  return process.env.BENCH_NODE ?? (runtimeName() === "node" ? process.execPath : "node");
}

function runtimeVersion(): string {
  const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } };
  if (g.Bun !== undefined) return `Bun ${g.Bun.version}`;
  if (g.Deno !== undefined) return `Deno ${g.Deno.version.deno}`;
  return `Node ${process.versions.node}`;
}

/**
 * Measures the node and the bare handler `rounds` times each, alternating so that neither always
 * runs on a warmer or cooler machine; keeps the highest rate and the lowest CPU time of each.
 */
async function bestOf(
  rounds: number,
  measure: (handler: FetchHandler) => Promise<Measure>,
  node: FetchHandler,
  bare: FetchHandler,
): Promise<{ node: Measure; bare: Measure }> {
  const best = (a: Measure | undefined, b: Measure): Measure => {
    if (a === undefined) return b;
    const cpu = Math.min(a.cpu ?? Infinity, b.cpu ?? Infinity);
    const busy = Math.min(a.busy ?? Infinity, b.busy ?? Infinity);
    return {
      rate: Math.max(a.rate, b.rate),
      ...(Number.isFinite(cpu) ? { cpu } : {}),
      ...(Number.isFinite(busy) ? { busy } : {}),
    };
  };
  let n: Measure | undefined;
  let b: Measure | undefined;
  for (let i = 0; i < rounds; i++) {
    n = best(n, await measure(node));
    b = best(b, await measure(bare));
  }
  return { node: n!, bare: b! };
}

/** Calls `handler` one request after the other for `seconds`, reading each body whole. */
async function loop(handler: FetchHandler, path: string, seconds: number): Promise<Measure> {
  const url = `http://localhost${path}`;
  const once = async () => {
    const res = await handler(new Request(url));
    await res.arrayBuffer();
  };
  for (let i = 0; i < 1000; i++) await once(); // warm-up
  let count = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 100; i++) await once();
    count += 100;
  }
  return { rate: count / ((performance.now() - start) / 1000) };
}

/**
 * Serves the node and the bare handler each on a loopback port (same server type), warms both
 * up, then loads them alternately with autocannon in a Node child process; returns the best
 * requests per second and the lowest server CPU time per request of each.
 */
async function overHttp(
  serve: Serve,
  node: FetchHandler,
  bare: FetchHandler,
  path: string,
  seconds: number,
  connections: number,
  rounds: number,
): Promise<Pick<HttpBenchRow, "node" | "bare" | "cpu" | "busy">> {
  const servers = new Map<FetchHandler, HttpServer>();
  try {
    for (const handler of [node, bare]) {
      const server = await serve(handler, { hostname: "127.0.0.1", port: 0 });
      servers.set(handler, server);
      await autocannon(`${server.url}${path}`, connections, 1); // warm-up
    }
    const measure = async (handler: FetchHandler): Promise<Measure> => {
      const url = `${servers.get(handler)!.url}${path}`;
      const before = process.cpuUsage();
      const loop = eventLoopUtilization();
      const result = await autocannon(url, connections, seconds);
      const { active } = eventLoopUtilization(loop); // milliseconds; 0 where not measured
      const used = process.cpuUsage(before);
      const rate = result.requests.total / result.duration;
      const cpu = (used.user + used.system) / result.requests.total;
      return active > 0 ? { rate, cpu, busy: (active * 1000) / result.requests.total } : { rate, cpu };
    };
    const best = await bestOf(rounds, measure, node, bare);
    const busy = best.node.busy !== undefined && best.bare.busy !== undefined ? { busy: { node: best.node.busy, bare: best.bare.busy } } : {};
    return { node: best.node.rate, bare: best.bare.rate, cpu: { node: best.node.cpu!, bare: best.bare.cpu! }, ...busy };
  } finally {
    for (const server of servers.values()) await server.close();
  }
}

/** What the bench reads of autocannon's JSON result. */
interface AutocannonResult {
  readonly requests: { readonly total: number };
  readonly duration: number;
  readonly errors: number;
  readonly non2xx: number;
}

/** Loads `url` for `seconds` with autocannon in a Node child process (one thread). */
function autocannon(url: string, connections: number, seconds: number): Promise<AutocannonResult> {
  const args = [AUTOCANNON, "--json", "--no-progress", "-c", String(connections), "-d", String(seconds), url];
  return new Promise((resolve, reject) => {
    execFile(nodeExecutable(), args, { cwd: ROOT, maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      if (error !== null) return reject(new Error(`autocannon ${url}: ${error.message}\n${stderr}`));
      let result: AutocannonResult;
      try {
        result = JSON.parse(stdout) as AutocannonResult;
      } catch {
        return reject(new Error(`autocannon ${url}: no JSON result\n${stderr}`));
      }
      if (result.errors > 0 || result.non2xx > 0) {
        return reject(new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`));
      }
      resolve(result);
    });
  });
}

/** One table: for each path, in process and over HTTP, a column per runtime; then the ratios over HTTP. */
function printTable(rows: readonly HttpBenchRow[], runtimes: readonly RuntimeName[]): void {
  const col = 24;
  const label = 34;
  const k = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : Math.round(n).toString());
  const find = (runtime: RuntimeName, path: string, how: HttpBenchRow["how"]) =>
    rows.find((r) => r.runtime === runtime && r.path === path && r.how === how);
  const line = (name: string, cell: (r: HttpBenchRow) => string, path: string, how: HttpBenchRow["how"]) => {
    const cells = runtimes.map((rt) => {
      const r = find(rt, path, how);
      return (r === undefined ? "-" : cell(r)).padStart(col);
    });
    console.log(`${name.padEnd(label)}${cells.join("")}`);
  };
  const paths = [...new Set(rows.map((r) => r.path))];
  console.log();
  console.log(`${"".padEnd(label)}${runtimes.map((rt) => rt.padStart(col)).join("")}`);
  for (const path of paths) {
    const any = rows.find((r) => r.path === path)!;
    console.log(`GET ${path} (${any.bytes} bytes)`);
    const rates = (r: HttpBenchRow) => `${k(r.node)} / ${k(r.bare)}  ${(r.node / r.bare).toFixed(2)}`;
    line("  in process: req/s node / bare", rates, path, "in process");
    line("  over HTTP:  req/s node / bare", rates, path, "over HTTP");
    const pair = (p: { node: number; bare: number } | undefined) => (p === undefined ? "-" : `${p.node.toFixed(1)} / ${p.bare.toFixed(1)}`);
    line("  over HTTP:  CPU µs/req node / bare", (r) => pair(r.cpu), path, "over HTTP");
    line("  over HTTP:  busy µs/req node / bare", (r) => pair(r.busy), path, "over HTTP");
  }
  console.log("(req/s: best of the rounds, then node/bare; CPU µs: server process, user + system, lowest of the rounds;");
  console.log(" busy µs: server thread's event-loop active time, lowest of the rounds, measured by Node only)");
  console.log();
  console.log(`${"over HTTP: node/bare req/s (CPU)".padEnd(label)}${runtimes.map((rt) => rt.padStart(col)).join("")}`);
  for (const path of paths) {
    const cells = runtimes.map((rt) => {
      const r = find(rt, path, "over HTTP");
      if (r === undefined) return "-".padStart(col);
      const cpu = r.cpu === undefined ? "" : ` (${(r.cpu.bare / r.cpu.node).toFixed(2)})`;
      return `${(r.node / r.bare).toFixed(2)}${cpu}`.padStart(col);
    });
    console.log(`${short(path).padEnd(label)}${cells.join("")}`);
  }
  console.log("(CPU: bare µs / node µs per request, the ratio of what one core of the server could answer)");
}

/** A path without `/chains/main/blocks/` and with the contract shortened, for the summary. */
function short(path: string): string {
  return path.replace("/chains/main/blocks/", "").replace(/(tz1|KT1)\w{33}/, "$1…");
}

if (isMainModule(import.meta)) {
  const { json, only, options: given, rest } = runtimeBenchArgs<HttpBenchOptions>(process.argv.slice(2));
  const options: HttpBenchOptions = rest.length > 0 ? { ...given, paths: rest } : given;
  if (json) {
    // Rows as the one line of stdout; the progress goes to stderr.
    const rows = await benchHere(options);
    process.stdout.write(`${JSON.stringify(rows)}\n`);
  } else {
    await benchHttp(only ? { ...options, runtimes: [runtimeName()] } : options);
  }
}
