/**
 * Requests per second for `GET /chains/main/blocks/genesis/header` and
 * `GET /chains/main/blocks/head/header` (the head of a node that baked a few blocks, so the path
 * goes through the `head` alias and the head's protocol, Hangzhou):
 *  (a) in process: `node.fetch(new Request(...))` in a loop, beside a bare handler that returns
 *      the same bytes;
 *  (b) over HTTP on loopback, through this runtime's adapter, beside the same bare handler on
 *      the same server type, loaded by autocannon (keep-alive connections, in a worker thread so
 *      that the load generator does not share the server's event loop).
 * Each figure is the best of two measurements taken alternately, after a warm-up.
 * The ratios say what the node costs over the bare minimum of its runtime.
 *
 * Requests per second move with whatever else the machine runs (the load generator shares its
 * cores). Over HTTP the bench also gives the server thread's busy time per request (event-loop
 * active time, `performance.eventLoopUtilization()`, lowest of the rounds), which moves far less;
 * Bun and Deno do not measure it (shown as `-`).
 *
 * Run alone: `npx tsx bench/http.ts [path…]` (default: both paths), or with everything:
 * `npm run bench`.
 * @module
 */
import { performance as perfHooks } from "node:perf_hooks";
import process from "node:process";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { createNode } from "../lib/node.ts";
import { currentServe, runtimeName } from "../platform/current.ts";
import type { FetchHandler } from "../platform/serve.ts";

/** Event-loop utilization of this thread (Node; zeros under Bun and Deno). */
const eventLoopUtilization: typeof perfHooks.eventLoopUtilization = (...args) => perfHooks.eventLoopUtilization(...args);

/** Settings of the HTTP bench. */
export interface HttpBenchOptions {
  /** Seconds of each in-process loop (default 3). */
  readonly inProcessSeconds?: number;
  /** Seconds of each autocannon run (default 5). */
  readonly httpSeconds?: number;
  /** Concurrent keep-alive connections (default 50). */
  readonly connections?: number;
  /** Measurements of each handler, alternating node and bare; the best counts (default 2). */
  readonly rounds?: number;
  /** Paths to measure (default {@link HTTP_BENCH_PATHS}). */
  readonly paths?: readonly string[];
}

/** One row of the result table. */
export interface HttpBenchRow {
  /** The request's path. */
  readonly path: string;
  /** How it was measured. */
  readonly name: string;
  /** Requests per second of the node's handler. */
  readonly node: number;
  /** Requests per second of the bare handler. */
  readonly bare: number;
  /** Server thread's busy microseconds per request, node and bare (over HTTP, where measured). */
  readonly busy?: { readonly node: number; readonly bare: number };
}

/** One measurement: requests per second and, when measured, busy microseconds per request. */
interface Measure {
  readonly rate: number;
  readonly busy?: number;
}

/** The paths measured by default, each in process and over HTTP. */
export const HTTP_BENCH_PATHS: readonly string[] = ["/chains/main/blocks/genesis/header", "/chains/main/blocks/head/header"];

/** Runs the bench, prints its table, and returns its rows (requests per second). */
export async function benchHttp(options: HttpBenchOptions = {}): Promise<HttpBenchRow[]> {
  const { inProcessSeconds = 2, httpSeconds = 4, connections = 50, rounds = 2, paths = HTTP_BENCH_PATHS } = options;
  const node = await createNode({ bake: { mode: "manual" } }); // activated, baked to level 3
  try {
    const serve = await currentServe();
    const nodeHandler: FetchHandler = (request) => node.fetch(request);
    const rows: HttpBenchRow[] = [];
    for (const path of paths) {
      const first = await node.fetch(new Request(`http://localhost${path}`));
      if (first.status !== 200) throw new Error(`GET ${path} answered ${first.status}`);
      const bytes = new Uint8Array(await first.arrayBuffer());
      const contentType = first.headers.get("content-type") ?? "application/json";
      const bare: FetchHandler = () => new Response(bytes, { headers: { "content-type": contentType } });
      console.log(`GET ${path}: ${bytes.length} bytes, ${contentType}`);
      rows.push({
        path,
        name: "in process (fetch in a loop)",
        ...(await bestOf(rounds, (handler) => loop(handler, path, inProcessSeconds), nodeHandler, bare)),
      });
      rows.push({
        path,
        name: `over HTTP (${runtimeName()} adapter, ${connections} connections)`,
        ...(await bestOf(rounds, (handler) => overHttp(serve, handler, path, httpSeconds, connections), nodeHandler, bare)),
      });
    }
    printTable(rows);
    return rows;
  } finally {
    await node.close();
  }
}

/**
 * Measures the node and the bare handler `rounds` times each, alternating so that neither always
 * runs on a warmer or cooler machine, and keeps the best figure of each.
 */
async function bestOf(
  rounds: number,
  measure: (handler: FetchHandler) => Promise<Measure>,
  node: FetchHandler,
  bare: FetchHandler,
): Promise<Pick<HttpBenchRow, "node" | "bare" | "busy">> {
  let nodeRate = 0;
  let bareRate = 0;
  let nodeBusy = Infinity;
  let bareBusy = Infinity;
  for (let i = 0; i < rounds; i++) {
    const n = await measure(node);
    const b = await measure(bare);
    nodeRate = Math.max(nodeRate, n.rate);
    bareRate = Math.max(bareRate, b.rate);
    nodeBusy = Math.min(nodeBusy, n.busy ?? Infinity);
    bareBusy = Math.min(bareBusy, b.busy ?? Infinity);
  }
  const busy = Number.isFinite(nodeBusy) && Number.isFinite(bareBusy) ? { busy: { node: nodeBusy, bare: bareBusy } } : {};
  return { node: nodeRate, bare: bareRate, ...busy };
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
 * Serves `handler` on a loopback port and loads it with autocannon; returns requests per second
 * and this thread's busy time per request.
 */
async function overHttp(
  serve: Awaited<ReturnType<typeof currentServe>>,
  handler: FetchHandler,
  path: string,
  seconds: number,
  connections: number,
): Promise<Measure> {
  const server = await serve(handler, { hostname: "127.0.0.1", port: 0 });
  try {
    const url = `${server.url}${path}`;
    await autocannon({ url, connections, duration: 1, workers: 1 }); // warm-up
    const before = eventLoopUtilization();
    const result = await autocannon({ url, connections, duration: seconds, workers: 1 });
    const { active } = eventLoopUtilization(before); // milliseconds; 0 where not measured
    if (result.errors > 0 || result.non2xx > 0) {
      throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
    }
    const rate = result.requests.total / result.duration;
    return active > 0 ? { rate, busy: (active * 1000) / result.requests.total } : { rate };
  } finally {
    await server.close();
  }
}

function printTable(rows: readonly HttpBenchRow[]): void {
  const width = Math.max(...rows.map((r) => r.name.length), ...rows.map((r) => r.path.length + 4));
  const rate = (n: number) => Math.round(n).toLocaleString("en-US").padStart(12);
  const micros = (n: number | undefined) => (n === undefined ? "-" : n.toFixed(1)).padStart(9);
  let path: string | undefined;
  for (const row of rows) {
    if (row.path !== path) {
      path = row.path;
      console.log(
        `${`GET ${path}`.padEnd(width)}  ${"node req/s".padStart(12)}  ${"bare req/s".padStart(12)}  ${"node/bare".padStart(9)}` +
          `  ${"node µs".padStart(9)}  ${"bare µs".padStart(9)}`,
      );
    }
    console.log(
      `${row.name.padEnd(width)}  ${rate(row.node)}  ${rate(row.bare)}  ${(row.node / row.bare).toFixed(2).padStart(9)}` +
        `  ${micros(row.busy?.node)}  ${micros(row.busy?.bare)}`,
    );
  }
  console.log("(µs: server thread busy time per request over HTTP, lowest of the rounds)");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const paths = process.argv.slice(2);
  await benchHttp(paths.length === 0 ? {} : { paths });
}
