/** Shared by the context collection tests: a history of commits, their leaves, their nodes. */
import { checkout, commit, type Context, emptyContext, readCommit } from "../../lib/store/context/mod.ts";
import { nodeKey } from "../../lib/store/context/loader.ts";
import { hashId, linkedHashes } from "../../lib/store/context/node.ts";
import type { KeyValueStore } from "../../lib/store/kv.ts";
import { Table, tableRange } from "../../lib/store/tables.ts";

export const utf8 = (s: string) => new TextEncoder().encode(s);

/** The state of level `level`: a sharded directory whose values cycle, blobs, a removal. */
export function stateAt(ctx: Context, level: number): Context {
  for (let i = 0; i < 60; i++) ctx = ctx.set(["big", `k${i}`], utf8(`v${level % 3}-${i}`));
  ctx = ctx.set(["level"], utf8(String(level)));
  ctx = ctx.set(["blob", `b${level}`], new Uint8Array(100).fill(level));
  ctx = ctx.set(["old", `o${level}`, "deep", "x"], new Uint8Array(40).fill(200 + level));
  if (level === 4) ctx = ctx.remove(["big"]);
  if (level % 3 === 2) ctx = ctx.remove(["old"]);
  return ctx;
}

/** Writes `levels` commits, each on the previous one; their hashes. */
export async function buildHistory(store: KeyValueStore, levels: number): Promise<Uint8Array[]> {
  let ctx = emptyContext(store);
  const hashes: Uint8Array[] = [];
  for (let level = 0; level < levels; level++) {
    ctx = stateAt(ctx, level);
    const { hash, ops } = commit(ctx, { parents: hashes.slice(-1), time: 1000 + level, message: `block ${level}` });
    await store.write(ops);
    hashes.push(hash);
    ctx = checkout(store, hash)!;
  }
  return hashes;
}

/** Every leaf of commit `hash`, as [path, bytes]. */
export function leavesOf(store: KeyValueStore, hash: Uint8Array): [string[], Uint8Array][] {
  return [...checkout(store, hash)!.leaves()];
}

/** Ids of the node rows reachable from the commits `hashes` (walked through the store). */
export function reachable(store: KeyValueStore, hashes: readonly Uint8Array[]): Set<string> {
  const seen = new Set<string>();
  const stack = hashes.map((h) => readCommit(store, h)!.root);
  while (stack.length > 0) {
    const h = stack.pop()!;
    const id = hashId(h);
    if (seen.has(id)) continue;
    seen.add(id);
    const bytes = store.get(nodeKey(h));
    if (bytes === undefined) throw new Error(`node ${id} missing`);
    linkedHashes(bytes, stack);
  }
  return seen;
}

/** Ids of the rows of a context table. */
export function rowsOf(store: KeyValueStore, table: number): Set<string> {
  return new Set([...store.range(tableRange(table))].map(([k]) => hashId(k.subarray(1))));
}

export const nodeRows = (store: KeyValueStore) => rowsOf(store, Table.contextNode);
export const commitRows = (store: KeyValueStore) => rowsOf(store, Table.contextCommit);
