/**
 * Readers bench: does the `interval:1` baker keep its cadence while many clients read the head?
 *
 * ```sh
 * npm run bench -- readers [--connections 1000] [--seconds 20] [--runtime node|bun|deno] [--path P]
 * ```
 *
 * A node is started as a user starts it (`bench/load-node.ts`: `--memory --bake interval:1`), then
 * twice for `--seconds` each: first with no client (the reference of the same run), then with
 * `--connections` keep-alive connections from this process, each reading
 * `GET /chains/main/blocks/head/header` (or `--path`) again as soon as its answer is in. Measured from the
 * head's level before and after each period (`/chains/main/blocks/head/header`, on a connection of
 * its own): blocks per second, and their ratio (loaded / idle), the figure the issue asks to keep
 * at 0.9 or more; the reads answered per second, their p50/p99 answer time, the errors by kind
 * (status or socket error), and both processes' CPU (% of one core) during the loaded period.
 * @module
 */
import http from "node:http";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { type NodeRuntime, NodeProcess } from "./load-node.ts";

/** What the bench is asked to do. */
export interface ReadersOptions {
  readonly connections?: number;
  readonly seconds?: number;
  readonly runtime?: NodeRuntime;
  /** The path the readers read (default the head's header). */
  readonly path?: string;
}

/** One period's figures. */
export interface PeriodFigures {
  readonly seconds: number;
  readonly blocks: number;
  readonly blocksPerSecond: number;
  readonly reads: number;
  readonly readsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: Record<string, number>;
  readonly nodeCpuPercent: number | undefined;
  readonly clientCpuPercent: number;
}

const PATH = "/chains/main/blocks/head/header";

/** GET on a keep-alive agent: status, body length, and the time it took. */
function get(agent: http.Agent, base: URL, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: base.port, path, agent, method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

async function headLevel(agent: http.Agent, base: URL): Promise<number> {
  const { status, body } = await get(agent, base, PATH);
  if (status !== 200) throw new Error(`${PATH}: ${status}`);
  return (JSON.parse(body) as { level: number }).level;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function period(node: NodeProcess, base: URL, connections: number, seconds: number, path: string): Promise<PeriodFigures> {
  const probe = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const readers = new http.Agent({ keepAlive: true, maxSockets: connections });
  const times: number[] = [];
  const errors: Record<string, number> = {};
  let stop = false;
  const reader = async () => {
    while (!stop) {
      const t0 = performance.now();
      try {
        const { status } = await get(readers, base, path);
        if (status === 200) times.push(performance.now() - t0);
        else errors[String(status)] = (errors[String(status)] ?? 0) + 1;
      } catch (e) {
        const code = (e as { code?: string }).code ?? "error";
        errors[code] = (errors[code] ?? 0) + 1;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const level0 = await headLevel(probe, base);
  const cpu0 = node.cpuSeconds();
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const running = Array.from({ length: connections }, reader);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const level1 = await headLevel(probe, base);
  const elapsed = (performance.now() - t0) / 1000;
  const cpu1 = node.cpuSeconds();
  const client = process.cpuUsage(client0);
  stop = true;
  await Promise.all(running);
  probe.destroy();
  readers.destroy();
  times.sort((a, b) => a - b);
  return {
    seconds: elapsed,
    blocks: level1 - level0,
    blocksPerSecond: (level1 - level0) / elapsed,
    reads: times.length,
    readsPerSecond: times.length / elapsed,
    p50Ms: quantile(times, 0.5),
    p99Ms: quantile(times, 0.99),
    errors,
    nodeCpuPercent: cpu0 === undefined || cpu1 === undefined ? undefined : (100 * (cpu1 - cpu0)) / elapsed,
    clientCpuPercent: (100 * (client.user + client.system)) / 1e6 / elapsed,
  };
}

/** Runs the bench and prints its figures; answers them. */
export async function benchReaders(options: ReadersOptions = {}): Promise<{ idle: PeriodFigures; loaded: PeriodFigures; ratio: number }> {
  const connections = options.connections ?? 1000;
  const seconds = options.seconds ?? 20;
  const dir = fileURLToPath(new URL("..", import.meta.url));
  const node = await NodeProcess.start({ bake: "interval:1", store: "memory", dir, runtime: options.runtime ?? "node" });
  try {
    const base = new URL(node.url);
    // let the baker reach its cadence
    await new Promise((r) => setTimeout(r, 3000));
    const path = options.path ?? PATH;
    const idle = await period(node, base, 0, seconds, path);
    const loaded = await period(node, base, connections, seconds, path);
    const ratio = loaded.blocksPerSecond / idle.blocksPerSecond;
    const fmt = (f: PeriodFigures) =>
      `${f.blocksPerSecond.toFixed(2)} blocks/s (${f.blocks} in ${f.seconds.toFixed(1)} s), ${f.readsPerSecond.toFixed(0)} reads/s, ` +
      `p50 ${f.p50Ms.toFixed(1)} ms, p99 ${f.p99Ms.toFixed(1)} ms, node CPU ${f.nodeCpuPercent?.toFixed(0) ?? "?"}%, client CPU ${f.clientCpuPercent.toFixed(0)}%` +
      (Object.keys(f.errors).length === 0 ? "" : `, errors ${JSON.stringify(f.errors)}`);
    console.log(`runtime ${options.runtime ?? "node"}, interval:1, readers of ${path}`);
    console.log(`  idle:                  ${fmt(idle)}`);
    console.log(`  ${String(connections).padStart(5)} readers:         ${fmt(loaded)}`);
    console.log(`  cadence under load / idle: ${ratio.toFixed(2)} (goal ≥ 0.9 blocks/s under 1 000 readers)`);
    return { idle, loaded, ratio };
  } finally {
    await node.stop();
  }
}

/** Runs the bench with command-line arguments (`--connections`, `--seconds`, `--runtime`, `--path`). */
export function runReadersCli(args: readonly string[]): Promise<unknown> {
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i < 0 ? undefined : args[i + 1];
  };
  const connections = opt("connections");
  const seconds = opt("seconds");
  const runtime = opt("runtime") as NodeRuntime | undefined;
  const path = opt("path");
  return benchReaders({
    ...(connections === undefined ? {} : { connections: Number(connections) }),
    ...(seconds === undefined ? {} : { seconds: Number(seconds) }),
    ...(runtime === undefined ? {} : { runtime }),
    ...(path === undefined ? {} : { path }),
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await runReadersCli(process.argv.slice(2));
