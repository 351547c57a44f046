/**
 * Bench of the context on LMDB: for states of 10k, 100k and 1M keys (two keys per contract,
 * `contracts/index/<hex20>/balance` and `.../counter`), the time and the bytes written by a
 * commit of 100 changed keys, averaged over several commits. Building the state is timed apart.
 *
 * Run alone: `npx tsx bench/context.ts` (or `bun bench/context.ts`, `deno run -A bench/context.ts`).
 */
import { rng } from "./support.ts";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import type { KeyValueStore } from "../lib/store/kv.ts";
import { checkout, commit, type Context, emptyContext } from "../lib/store/context/mod.ts";
import { openLmdbStore } from "../platform/store/lmdb.ts";

const SIZES = [10_000, 100_000, 1_000_000];
const CHANGED = 100;
const COMMITS = 10;
const BUILD_CHUNK = 100_000;


function contractName(i: number): string {
  const r = rng(i * 2654435761 + 12345);
  let s = "";
  for (let j = 0; j < 5; j++) s += Math.floor(r() * 0x1_0000_0000).toString(16).padStart(8, "0");
  return s;
}

/** Zarith-like bytes of a number. */
function z(n: number): Uint8Array {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return Uint8Array.from(out);
}

async function commitAndWrite(store: KeyValueStore, ctx: Context, parents: Uint8Array[], time: number) {
  const t0 = performance.now();
  const { hash, ops } = commit(ctx, { parents, time, message: "" });
  const t1 = performance.now();
  await store.write(ops);
  const t2 = performance.now();
  let bytes = 0;
  for (const op of ops) bytes += op.key.length + op.value!.length;
  return { hash, ops: ops.length, bytes, commitMs: t1 - t0, writeMs: t2 - t1 };
}

async function benchSize(keys: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "tezos-bench-context-"));
  const store = await openLmdbStore(dir);
  try {
    const contracts = keys / 2;
    const buildStart = performance.now();
    let ctx = emptyContext(store);
    let head: Uint8Array | undefined;
    let built = 0;
    for (let c = 0; c < contracts; c++) {
      const name = contractName(c);
      ctx = ctx.set(["contracts", "index", name, "balance"], z(1_000_000 + c)).set(["contracts", "index", name, "counter"], z(c));
      built += 2;
      if (built % BUILD_CHUNK === 0 || c === contracts - 1) {
        const r = await commitAndWrite(store, ctx, head ? [head] : [], 0);
        head = r.hash;
        ctx = checkout(store, head)!; // drop the built nodes, keep the stored ones
      }
    }
    const buildMs = performance.now() - buildStart;

    const random = rng(keys);
    const totals = { setMs: 0, commitMs: 0, writeMs: 0, ops: 0, bytes: 0 };
    for (let round = 1; round <= COMMITS; round++) {
      let next = checkout(store, head!)!;
      const t0 = performance.now();
      for (let k = 0; k < CHANGED; k++) {
        const name = contractName(Math.floor(random() * contracts));
        next = next.set(["contracts", "index", name, "balance"], z(Math.floor(random() * 1e9)));
      }
      totals.setMs += performance.now() - t0;
      const r = await commitAndWrite(store, next, [head!], round);
      head = r.hash;
      totals.commitMs += r.commitMs;
      totals.writeMs += r.writeMs;
      totals.ops += r.ops;
      totals.bytes += r.bytes;
    }
    const avg = (x: number) => x / COMMITS;
    console.log(
      `context ${String(keys).padStart(9)} keys: build ${(buildMs / 1000).toFixed(1)} s | per commit of ${CHANGED} changed keys: ` +
        `set ${avg(totals.setMs).toFixed(1)} ms, commit ${avg(totals.commitMs).toFixed(1)} ms, write ${avg(totals.writeMs).toFixed(1)} ms, ` +
        `total ${avg(totals.setMs + totals.commitMs + totals.writeMs).toFixed(1)} ms, ${Math.round(avg(totals.ops))} nodes, ${(avg(totals.bytes) / 1024).toFixed(1)} KiB written`,
    );
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Prints, for 10k, 100k and 1M keys, the cost of committing 100 changed keys on LMDB. */
export async function benchContext(): Promise<void> {
  for (const keys of SIZES) await benchSize(keys);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchContext();
}
