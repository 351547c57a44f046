/**
 * Context collection on LMDB: a state of N keys (two per contract, as bench/context.ts), then
 * 200 commits of 100 changed balances (the garbage), then a collection keeping the last commit
 * only, in steps of the default size. Prints nodes marked and rows swept per second, the longest
 * step (and its synchronous part), the heap a mark set of 1M nodes takes, and the
 * file size before the collection, after it, and after `compact()`.
 * `npx tsx bench/context-gc.ts [keys...]` (default 10000 100000).
 */
import { rng } from "./support.ts";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { startContextCollection } from "../lib/store/context/gc.ts";
import { checkout, commit, emptyContext } from "../lib/store/context/mod.ts";
import { hashId } from "../lib/store/context/node.ts";
import { openLmdbStore } from "../platform/store/lmdb.ts";

const ROUNDS = 200;
const CHANGED = 100;

const name = (i: number) => (i * 2654435761 >>> 0).toString(16).padStart(8, "0") + i.toString(16).padStart(8, "0");
const z = (n: number) => new TextEncoder().encode(String(n));
const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;

async function benchGc(keys: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "tezos-bench-gc-"));
  const store = await openLmdbStore(dir);
  try {
    let ctx = emptyContext(store);
    let head: Uint8Array | undefined;
    for (let c = 0; c < keys / 2; c++) {
      ctx = ctx.set(["contracts", "index", name(c), "balance"], z(c)).set(["contracts", "index", name(c), "counter"], z(c));
      if ((c + 1) % 50_000 === 0 || c === keys / 2 - 1) {
        const r = commit(ctx, { parents: head ? [head] : [], time: 0, message: "" });
        await store.write(r.ops);
        head = r.hash;
        ctx = checkout(store, head)!;
      }
    }
    const random = rng(keys);
    for (let round = 1; round <= ROUNDS; round++) {
      let next = checkout(store, head!)!;
      for (let k = 0; k < CHANGED; k++) next = next.set(["contracts", "index", name(Math.floor(random() * keys / 2)), "balance"], z(Math.floor(random() * 1e9)));
      const r = commit(next, { parents: [head!], time: round, message: "" });
      await store.write(r.ops);
      head = r.hash;
    }
    const file = join(dir, "store.mdb");
    const sizeBefore = (await stat(file)).size;
    const gc = startContextCollection(store, [head!]);
    let longest = 0;
    let longestSync = 0;
    let markMs = 0;
    let sweepMs = 0;
    for (;;) {
      const phase = gc.stats.phase;
      const t0 = performance.now();
      const pending = gc.step();
      longestSync = Math.max(longestSync, performance.now() - t0);
      const done = await pending;
      const ms = performance.now() - t0;
      longest = Math.max(longest, ms);
      if (phase === "mark") markMs += ms;
      else sweepMs += ms;
      if (done) break;
    }
    const s = gc.stats;
    const sizeAfter = (await stat(file)).size;
    const { after: compacted } = await store.compact();
    const swept = s.marked + s.deletedNodes;
    console.log(
      `context gc ${String(keys).padStart(7)} keys: ${s.marked} nodes kept, ${s.deletedNodes} nodes and ${s.deletedCommits} commits deleted in ${s.steps} steps | ` +
        `mark ${Math.round(s.marked / (markMs / 1000))} nodes/s, sweep ${Math.round(swept / (sweepMs / 1000))} rows/s, longest step ${longest.toFixed(1)} ms (synchronous part ${longestSync.toFixed(1)} ms) | file ${mb(sizeBefore)} -> ${mb(sizeAfter)} after gc -> ${mb(compacted)} compacted`,
    );
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Heap taken by a mark set (a Set of 32-char ids) of `n` nodes. */
function markSetBytes(n: number): number {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().heapUsed;
  const set = new Set<string>();
  const random = rng(n);
  for (let i = 0; i < n; i++) {
    const hash = new Uint8Array(32);
    for (let j = 0; j < 32; j++) hash[j] = Math.floor(random() * 256);
    set.add(hashId(hash));
  }
  const bytes = process.memoryUsage().heapUsed - before;
  if (set.size !== n) throw new Error("collision");
  return bytes;
}

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
for (const keys of sizes.length > 0 ? sizes : [10_000, 100_000]) await benchGc(keys);
console.log(`mark set of 1 000 000 nodes: ${mb(markSetBytes(1_000_000))} of heap`);
