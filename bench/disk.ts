/**
 * Bytes on disk per endorsement-only block: a manual-mode sandbox node bakes `warmup` blocks, then
 * `blocks` more through `POST /sandbox/bake`, and the bench counts what the store is asked to
 * write for the latter (key + value bytes and rows, per table; context nodes by kind: packed or
 * flat directory, shard, blob) on a MemoryStore, then the growth of LMDB's `store.mdb` for the
 * same run on a data directory (pages: B-tree fill and per-entry overhead on top of the bytes).
 *
 * Run: `npm run bench -- disk [blocks]` (default 300) or `npx tsx bench/disk.ts [blocks]`.
 * @module
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { isMainModule } from "./cli.ts";
import { createNode } from "../lib/node.ts";
import type { KeyValueStore, WriteOp } from "../lib/store/kv.ts";
import { MemoryStore } from "../lib/store/memory.ts";
import { Table } from "../lib/store/tables.ts";
import { LMDB_FILE_NAME, openLmdbStore } from "../platform/store/lmdb.ts";

/** Rows and bytes (key + value) written to one table, or one kind of row, per block. */
export interface DiskRow {
  readonly table: string;
  readonly rows: number;
  readonly bytes: number;
}

/** Result of the disk bench. */
export interface DiskBenchResult {
  readonly blocks: number;
  /** Per table (context nodes per kind), per block, on a MemoryStore. */
  readonly tables: DiskRow[];
  /** Key + value bytes written per block, all tables. */
  readonly logical: number;
  /** Growth of `store.mdb` per block on LMDB. */
  readonly lmdb: number;
}

const TABLE_NAMES = new Map<number, string>(Object.entries(Table).map(([name, byte]) => [byte, name]));
const NODE_KINDS: Record<number, string> = { 0x01: "contextNode flat", 0x02: "contextNode shard", 0x03: "contextNode blob", 0x04: "contextNode packed" };

/** The table (and for context nodes, the kind) a written row belongs to. */
export function rowKind(op: WriteOp): string {
  const table = op.key[0]!;
  if (table === Table.contextNode && op.value !== undefined) return NODE_KINDS[op.value[0]!] ?? "contextNode ?";
  return TABLE_NAMES.get(table) ?? `0x${table.toString(16)}`;
}

/** A store that passes everything to `inner` and, while `counting`, adds up what is written. */
export class CountingStore implements KeyValueStore {
  readonly inner: KeyValueStore;
  counting = false;
  readonly totals = new Map<string, { rows: number; bytes: number }>();
  constructor(inner: KeyValueStore) {
    this.inner = inner;
  }
  get(key: Uint8Array): Uint8Array | undefined {
    return this.inner.get(key);
  }
  range(options: Parameters<KeyValueStore["range"]>[0]): Iterable<[Uint8Array, Uint8Array]> {
    return this.inner.range(options);
  }
  write(ops: readonly WriteOp[]): Promise<void> {
    if (this.counting) {
      for (const op of ops) {
        const kind = rowKind(op);
        const t = this.totals.get(kind) ?? { rows: 0, bytes: 0 };
        t.rows++;
        t.bytes += op.key.length + (op.value?.length ?? 0);
        this.totals.set(kind, t);
      }
    }
    return this.inner.write(ops);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  /** Bytes written while counting. */
  get bytes(): number {
    let n = 0;
    for (const t of this.totals.values()) n += t.bytes;
    return n;
  }
}

/** Bakes `blocks` blocks through `POST /sandbox/bake` on a fresh manual-mode node over `store`. */
export async function bakeBlocks(node: { fetch(r: Request): Promise<Response> }, blocks: number): Promise<void> {
  const res = await node.fetch(new Request(`http://localhost/sandbox/bake?count=${blocks}`, { method: "POST" }));
  if (res.status !== 200) throw new Error(`POST /sandbox/bake answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

/** Runs the bench, prints its table and returns its figures. */
export async function benchDisk(options: { blocks?: number; warmup?: number } = {}): Promise<DiskBenchResult> {
  const { blocks = 300, warmup = 20 } = options;
  if (!Number.isInteger(blocks) || blocks < 1) throw new RangeError(`blocks must be a positive integer, got ${blocks}`);
  const counting = new CountingStore(new MemoryStore());
  const node = await createNode({ store: counting, bake: { mode: "manual" } });
  try {
    await bakeBlocks(node, warmup);
    counting.counting = true;
    await bakeBlocks(node, blocks);
  } finally {
    await node.close();
  }
  const tables = [...counting.totals].map(([table, t]) => ({ table, rows: t.rows / blocks, bytes: t.bytes / blocks })).sort((a, b) => b.bytes - a.bytes);
  const dir = await mkdtemp(join(tmpdir(), "tezos-bench-disk-"));
  let lmdb: number;
  try {
    const store = await openLmdbStore(dir);
    const lmdbNode = await createNode({ store, bake: { mode: "manual" } });
    try {
      await bakeBlocks(lmdbNode, warmup);
      const before = (await stat(join(dir, LMDB_FILE_NAME))).size;
      await bakeBlocks(lmdbNode, blocks);
      lmdb = ((await stat(join(dir, LMDB_FILE_NAME))).size - before) / blocks;
    } finally {
      await lmdbNode.close();
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const result = { blocks, tables, logical: counting.bytes / blocks, lmdb };
  console.log(`${blocks} endorsement-only blocks after ${warmup}, per block:`);
  console.log(`${"table".padEnd(22)} ${"rows".padStart(6)} ${"bytes".padStart(7)}`);
  for (const r of tables) console.log(`${r.table.padEnd(22)} ${r.rows.toFixed(1).padStart(6)} ${r.bytes.toFixed(0).padStart(7)}`);
  console.log(`${"all (MemoryStore)".padEnd(22)} ${"".padStart(6)} ${result.logical.toFixed(0).padStart(7)}`);
  console.log(`${"LMDB file growth".padEnd(22)} ${"".padStart(6)} ${lmdb.toFixed(0).padStart(7)}`);
  return result;
}

if (isMainModule(import.meta)) {
  const arg = process.argv[2];
  await benchDisk(arg === undefined ? {} : { blocks: Number(arg) });
}
