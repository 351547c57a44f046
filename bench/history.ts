/**
 * History modes (`npm run bench -- history [blocks]`): a node on LMDB in a temporary directory
 * bakes `blocks` endorsement-only blocks (2 000 by default) in archive, full and rolling mode;
 * for each, the data directory's bytes per block (LMDB's file, which reuses freed pages but
 * never shrinks) over the whole run and over its second half (the steady state: full and
 * rolling start pruning only once the savepoint moves, a few cycles in) and the rows kept per table, and the pruning's pauses: how long each background
 * step held the event loop (its synchronous part), the longest and the 99th percentile; and the
 * heap in use at half the run and at its end (after a collection when `gc` is exposed, e.g.
 * `node --expose-gc --import tsx bench/all.ts history`), which should not grow with the chain in
 * full and rolling mode.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNode } from "../lib/node.ts";
import { Table, tableRange } from "../lib/store/tables.ts";
import { openLmdbStore } from "../platform/store/lmdb.ts";
import process from "node:process";

/** The heap in use, in MiB, after a full collection when one can be asked for. */
function heapMiB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

const TABLES = { contextNode: Table.contextNode, contextCommit: Table.contextCommit, blockHeader: Table.blockHeader, blockMetadata: Table.blockMetadata, blockSummary: Table.blockSummary };

/** Runs the bench and prints one line per mode. */
export async function benchHistory(blocks = 2000): Promise<void> {
  for (const mode of ["archive", "full", "rolling"] as const) {
    const dir = await mkdtemp(join(tmpdir(), `tezos-bench-history-${mode}-`));
    try {
      const pauses: number[] = [];
      const longestByKind = new Map<string, number>();
      const kv = await openLmdbStore(dir);
      const node = await createNode({ store: kv, bake: { mode: "manual" }, historyMode: mode, onPruneStep: (s) => {
        pauses.push(s.busyMs);
        longestByKind.set(s.kind, Math.max(longestByKind.get(s.kind) ?? 0, s.busyMs));
      } });
      const started = performance.now();
      let half: number | undefined;
      let halfBytes = 0;
      let halfLevel = 0;
      for (let baked = 3; baked < blocks; baked += 100) {
        await (await node.fetch(new Request(`http://localhost/sandbox/bake?count=${Math.min(100, blocks - baked)}`, { method: "POST" }))).arrayBuffer();
        if (half === undefined && baked + 100 >= blocks / 2) {
          await node.pruned();
          half = heapMiB();
          halfBytes = (await stat(join(dir, "store.mdb"))).size;
          halfLevel = baked + 100;
        }
      }
      await node.pruned();
      const heap = `heap ${half?.toFixed(0)} MiB at half, ${heapMiB().toFixed(0)} MiB at the end`;
      const seconds = (performance.now() - started) / 1000;
      const rows = Object.entries(TABLES).map(([name, t]) => {
        let n = 0;
        for (const _ of kv.range(tableRange(t))) n++;
        return `${name} ${n}`;
      });
      const level = async (n: string) => ((await (await node.fetch(new Request(`http://localhost/chains/main/levels/${n}`))).json()) as { level: number }).level;
      const levels = `savepoint ${await level("savepoint")}, caboose ${await level("caboose")}`;
      await node.close();
      const bytes = (await stat(join(dir, "store.mdb"))).size;
      const steady = (bytes - halfBytes) / (blocks - halfLevel) / 1024;
      pauses.sort((a, b) => a - b);
      const p99 = pauses.length === 0 ? 0 : pauses[Math.min(pauses.length - 1, Math.floor(pauses.length * 0.99))]!;
      const longest = pauses.length === 0 ? 0 : pauses[pauses.length - 1]!;
      console.log(
        `${mode.padEnd(8)} ${blocks} blocks in ${seconds.toFixed(0)} s: ${(bytes / 1024 / 1024).toFixed(1)} MiB, ${(bytes / blocks / 1024).toFixed(1)} KiB/block (${steady.toFixed(1)} KiB/block over the second half); ${levels}; ` +
          `rows: ${rows.join(", ")}; pruning steps ${pauses.length}, pause p99 ${p99.toFixed(2)} ms, longest ${longest.toFixed(2)} ms (by step: ${[...longestByKind].map(([k, ms]) => `${k} ${ms.toFixed(1)}`).join(", ")}); ${heap}`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
