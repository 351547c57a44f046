/**
 * The edge worker (`platform/edge/worker.ts`, bundled by `scripts/bundle-edge.mjs`) in Cloudflare's
 * workerd through miniflare, beside the same node's handler called in this process: the bundle's
 * size; the first request, which makes the node (genesis, activation, two blocks); the median of
 * `GET /chains/main/blocks/head/header` and of `GET /version` (in workerd mostly the way there:
 * miniflare's HTTP hop, the worker, the Durable Object's stub); the median of `POST /sandbox/bake`.
 * Rough figures for docs/bench.md.
 *
 * `npm run bench -- edge [requests]` (300 requests of each GET by default; 30 bakes).
 * @module
 */
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { createNode } from "../mod.ts";
import { MemoryStore } from "../lib/store/memory.ts";
import { bundleEdge } from "../scripts/bundle-edge.mjs";
import { EdgeWorker } from "../test/edge/support.ts";

/** The figures of one host, in milliseconds. */
export interface EdgeFigures {
  readonly first: number;
  readonly header: number;
  readonly version: number;
  readonly bake: number;
}

const BAKES = 30;

function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

async function figures(call: (path: string, method?: string) => Promise<unknown>, requests: number): Promise<EdgeFigures> {
  const first = await timed(() => call("/chains/main/blocks/head/header"));
  const runs = async (n: number, path: string, method?: string) => {
    const ms: number[] = [];
    for (let i = 0; i < n; i++) ms.push(await timed(() => call(path, method)));
    return median(ms);
  };
  const header = await runs(requests, "/chains/main/blocks/head/header");
  const version = await runs(requests, "/version");
  const bake = await runs(BAKES, "/sandbox/bake", "POST");
  return { first, header, version, bake };
}

/** Runs the bench and prints its table. */
export async function benchEdge(requests = 300): Promise<{ workerd: EdgeFigures; node: EdgeFigures }> {
  const { files } = await bundleEdge({ log: () => {} });
  const code = files.find((f) => f.path.endsWith("worker.js"))!;
  const gz = gzipSync(readFileSync(code.path)).length;
  const data = files.filter((f) => f.path.endsWith(".bin.gz")).reduce((n, f) => n + f.bytes, 0);
  console.log(`bundle: worker.js ${(code.bytes / 1024).toFixed(0)} KiB (${(gz / 1024).toFixed(0)} KiB gzipped), data modules ${(data / 1024).toFixed(0)} KiB`);

  const worker = await EdgeWorker.start();
  let workerd: EdgeFigures;
  try {
    workerd = await figures(async (path, method) => {
      const res = await worker.fetch(path, { method: method ?? "GET" });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    }, requests);
  } finally {
    await worker.close();
  }

  let made = 0;
  const t = performance.now();
  const node = await createNode({ store: new MemoryStore(), bake: { mode: "manual" } });
  made = performance.now() - t;
  let here: EdgeFigures;
  try {
    const measured = await figures(async (path, method) => {
      const res = await node.fetch(new Request(`http://node${path}`, { method: method ?? "GET" }));
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    }, requests);
    here = { ...measured, first: made + measured.first };
  } finally {
    await node.close();
  }
  const ms = (x: number) => `${x < 1 ? x.toFixed(3) : x.toFixed(1)} ms`;
  console.log(`| | workerd (miniflare, Durable Object) | ${process.release.name === "node" ? `Node ${process.versions.node}` : "this runtime"}, in process |`);
  console.log("|---|---|---|");
  console.log(`| first request (the node made) | ${ms(workerd.first)} | ${ms(here.first)} |`);
  console.log(`| GET /chains/main/blocks/head/header, median | ${ms(workerd.header)} | ${ms(here.header)} |`);
  console.log(`| GET /version, median | ${ms(workerd.version)} | ${ms(here.version)} |`);
  console.log(`| POST /sandbox/bake, median of ${BAKES} | ${ms(workerd.bake)} | ${ms(here.bake)} |`);
  return { workerd, node: here };
}
