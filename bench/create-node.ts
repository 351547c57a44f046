/**
 * A chain per test: how long `createNode` takes to be ready to serve (created, and one head read
 * answered), on a memory store, in one process:
 * - the first node (it activates the protocol and bakes to level 3; it leaves the chain template
 *   of its parameters, `lib/sandbox/template.ts`);
 * - a reference measured in the same run: a node that cannot use the template (given its own
 *   clock, `now: Date.now`), which activates and bakes as every node did before templates, the
 *   median of a few;
 * - the next nodes with the first one's parameters, each closed before the next: p50 and p99 of
 *   `count` (50 by default), and their ratio to the reference;
 * - the same through `startSandbox()` (the node behind the runtime's HTTP server on a free port);
 * - the memory per live node: `count` nodes from the template held open at once, the heap and the
 *   byte arrays' buffers before and after, divided by `count` (after a collection under Bun, or
 *   when `gc` is exposed: `node --expose-gc --import tsx bench/create-node.ts`,
 *   `deno run -A --v8-flags=--expose-gc bench/create-node.ts`).
 *
 * ```sh
 * npm run bench -- create-node [count]
 * ```
 * @module
 */
import process from "node:process";
import { createNode, type TezosNode } from "../mod.ts";
import { MemoryStore } from "../lib/store/memory.ts";
import { startSandbox } from "../platform/testing.ts";
import { isMainModule } from "./cli.ts";

/** The bench's figures, in milliseconds and MiB. */
export interface CreateNodeFigures {
  readonly firstMs: number;
  readonly referenceMs: number;
  readonly nextP50Ms: number;
  readonly nextP99Ms: number;
  readonly sandboxP50Ms: number;
  readonly sandboxP99Ms: number;
  readonly heapPerNodeMiB: number;
  readonly buffersPerNodeMiB: number;
}

/** The time to a node ready to serve: created, and its head read. */
async function ready(make: () => Promise<TezosNode>): Promise<{ node: TezosNode; ms: number }> {
  const started = performance.now();
  const node = await make();
  const res = await node.fetch(new Request("http://localhost/chains/main/blocks/head/header"));
  if (res.status !== 200 || (await res.json()).level !== 3) throw new Error("the node is not at level 3");
  return { node, ms: performance.now() - started };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The heap in use and the byte arrays' buffers (where stores keep their bytes), MiB. */
function memory(): { heap: number; buffers: number } {
  const g = globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } };
  if (g.gc !== undefined) g.gc();
  else g.Bun?.gc(true);
  const m = process.memoryUsage();
  return { heap: m.heapUsed / 1024 / 1024, buffers: m.arrayBuffers / 1024 / 1024 };
}

/** Runs the bench and prints its lines; answers the figures. */
export async function benchCreateNode(count = 50): Promise<CreateNodeFigures> {
  const first = await ready(() => createNode({ store: new MemoryStore() }));
  await first.node.close();

  const reference: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await ready(() => createNode({ store: new MemoryStore(), now: Date.now }));
    reference.push(r.ms);
    await r.node.close();
  }
  reference.sort((a, b) => a - b);
  const referenceMs = percentile(reference, 50);

  const next: number[] = [];
  for (let i = 0; i < count; i++) {
    const r = await ready(() => createNode({ store: new MemoryStore() }));
    next.push(r.ms);
    await r.node.close();
  }
  next.sort((a, b) => a - b);

  const sandbox: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const s = await startSandbox();
    const res = await fetch(`${s.url}/chains/main/blocks/head/hash`);
    await res.json();
    sandbox.push(performance.now() - started);
    await s.close();
  }
  sandbox.sort((a, b) => a - b);

  const before = memory();
  const live: TezosNode[] = [];
  for (let i = 0; i < count; i++) live.push((await ready(() => createNode())).node);
  const after = memory();
  for (const node of live) await node.close();

  const figures: CreateNodeFigures = {
    firstMs: first.ms,
    referenceMs,
    nextP50Ms: percentile(next, 50),
    nextP99Ms: percentile(next, 99),
    sandboxP50Ms: percentile(sandbox, 50),
    sandboxP99Ms: percentile(sandbox, 99),
    heapPerNodeMiB: (after.heap - before.heap) / count,
    buffersPerNodeMiB: (after.buffers - before.buffers) / count,
  };
  const ms = (x: number) => `${x.toFixed(1).padStart(7)} ms`;
  const ratio = (x: number) => `${(x / referenceMs).toFixed(3)}× the reference`;
  console.log(`createNode on a memory store, to its head read (${count} nodes each)`);
  console.log(`  first node (activation, blocks 2 and 3)         ${ms(figures.firstMs)}  ${ratio(figures.firstMs)}`);
  console.log(`  reference: no template (now given), median of 5 ${ms(referenceMs)}  1×`);
  console.log(`  next nodes, p50                                 ${ms(figures.nextP50Ms)}  ${ratio(figures.nextP50Ms)}`);
  console.log(`  next nodes, p99                                 ${ms(figures.nextP99Ms)}  ${ratio(figures.nextP99Ms)}`);
  console.log(`  startSandbox() + a head over HTTP, p50          ${ms(figures.sandboxP50Ms)}  ${ratio(figures.sandboxP50Ms)}`);
  console.log(`  startSandbox() + a head over HTTP, p99          ${ms(figures.sandboxP99Ms)}  ${ratio(figures.sandboxP99Ms)}`);
  const exposed = (globalThis as { gc?: unknown; Bun?: unknown }).gc !== undefined || (globalThis as { Bun?: unknown }).Bun !== undefined;
  const gc = exposed ? "" : " (no gc exposed: heap figures include garbage)";
  console.log(`  memory per live node: heap ${figures.heapPerNodeMiB.toFixed(2)} MiB, byte buffers ${figures.buffersPerNodeMiB.toFixed(2)} MiB${gc}`);
  return figures;
}

if (isMainModule(import.meta)) {
  await benchCreateNode(process.argv[2] === undefined ? undefined : Number(process.argv[2]));
}
