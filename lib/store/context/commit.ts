/**
 * Commits: a context's root, its parent commits, a time and a message, hashed together. The
 * commit hash is the block header's `context` field (`Co...`, `B58.contextHash`).
 *
 * Encoding: `0x10 ‖ root hash (32) ‖ varint n ‖ n × parent hash (32) ‖ time (i64 BE, seconds)
 * ‖ varint |message| ‖ message (UTF-8)`; the commit hash is BLAKE2b-256 of it.
 *
 * `commit` writes nothing: it returns the writes of the nodes the store lacks and of the commit
 * itself, so that the chain store can put a block, its context and the new head in one atomic
 * `store.write`. While a context collection runs (`gc.ts`), it also tells the collection what it
 * writes and reuses, and reuses only nodes the collection keeps (see `guard.ts`).
 * @module
 */
import { blake2b256 } from "../../crypto/blake2b.ts";
import type { KeyValueStore, WriteOp } from "../kv.ts";
import { Context } from "./context.ts";
import { type CommitProtection, guardOf, type RunningCollection } from "./guard.ts";
import { commitKey, hex, nodeKey } from "./loader.ts";
import { ByteReader, ByteWriter, ContextCorruptionError, encodeStored, hashId, Ref, refHash } from "./node.ts";

const TAG_COMMIT = 0x10;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** What a commit records besides the tree. */
export interface CommitInfo {
  /** Hashes of the parent commits (the predecessor block's context hash; none for genesis). */
  readonly parents: readonly Uint8Array[];
  /** Seconds since the epoch (the block's timestamp). */
  readonly time: number | bigint;
  /** A free-form message. */
  readonly message: string;
}

/** A stored commit, as `readCommit` returns it. */
export interface StoredCommit {
  /** Hash of the root directory node. */
  readonly root: Uint8Array;
  readonly parents: readonly Uint8Array[];
  readonly time: bigint;
  readonly message: string;
}

/** The result of `commit`: the commit hash and the writes that store it. */
export interface CommitResult {
  /** The commit hash (the block's context hash), 32 bytes. */
  readonly hash: Uint8Array;
  /** Puts of the new nodes and of the commit; write them (atomically, with the block). */
  readonly ops: WriteOp[];
}

const utf8 = new TextEncoder();

/**
 * Hashes `ctx` into a commit and returns the store writes for the nodes the store does not hold
 * yet (the cost follows the number of changed entries, not the size of the state) and for the
 * commit. After those ops are written, `checkout(store, hash)` returns the same contents.
 * @throws TypeError / RangeError for malformed parents, time or message.
 * @example
 * const { hash, ops } = commit(ctx, { parents: [predContext], time: 1640995200, message: "" });
 * await store.write([...ops, ...blockOps, headOp]);
 */
export function commit(ctx: Context, info: CommitInfo): CommitResult {
  if (!(ctx instanceof Context)) throw new TypeError("commit: ctx must be a Context");
  const encoded = encodeCommit(refHash(ctx.root), info);
  const hash = blake2b256(encoded);
  const guard = guardOf(ctx.store);
  const run: Emit = {
    store: ctx.store,
    ops: [],
    seen: new Set(),
    collection: guard.collection,
    careful: guard.collection !== undefined || guard.interrupted,
    protection: { commit: hash, written: [], found: [] },
  };
  emit(run, ctx.root);
  run.ops.push({ key: commitKey(hash), value: encoded });
  guard.record(run.protection);
  return { hash, ops: run.ops };
}

/** The state of one `commit` walk. */
interface Emit {
  readonly store: KeyValueStore;
  readonly ops: WriteOp[];
  readonly seen: Set<string>;
  /** The collection running on the store, if any. */
  readonly collection: RunningCollection | undefined;
  /** A stored node is reused only if the collection keeps it (see `guard.ts`). */
  readonly careful: boolean;
  readonly protection: CommitProtection;
}

/** Puts for `ref` and what lies under it, skipping whatever the store (or `seen`) already has. */
function emit(run: Emit, ref: Ref): void {
  if (ref.stored) {
    // Loaded from a checked-out tree: kept by the collection unless that tree is being pruned.
    const c = run.collection;
    if (c !== undefined && c.sweeping && !c.keeps(ref.id)) {
      throw new ContextCorruptionError(`context node ${hex(ref.hash!)} is being deleted: the context derives from a commit the context collection does not keep`);
    }
    return;
  }
  const hash = refHash(ref);
  const id = hashId(hash);
  if (run.seen.has(id)) return;
  run.seen.add(id);
  const key = nodeKey(hash);
  if (run.store.get(key) !== undefined && (!run.careful || run.collection?.keeps(id) === true)) {
    ref.stored = true; // written by an earlier commit; so is everything below it
    run.protection.found.push(id);
    return;
  }
  const separate: Ref[] = [];
  run.ops.push({ key, value: encodeStored(ref.node!, separate) });
  run.protection.written.push(id);
  for (const s of separate) emit(run, s);
}

/**
 * The context of commit `hash`, or `undefined` when the store has no such commit.
 * @throws TypeError / RangeError unless `hash` is 32 bytes.
 */
export function checkout(store: KeyValueStore, hash: Uint8Array): Context | undefined {
  const c = readCommit(store, hash);
  return c === undefined ? undefined : new Context(store, Ref.stored(c.root));
}

/** The commit `hash` as stored (root, parents, time, message), or `undefined`. */
export function readCommit(store: KeyValueStore, hash: Uint8Array): StoredCommit | undefined {
  if (!(hash instanceof Uint8Array)) throw new TypeError("checkout: hash must be a Uint8Array");
  if (hash.length !== 32) throw new RangeError(`checkout: hash must be 32 bytes, got ${hash.length}`);
  const bytes = store.get(commitKey(hash));
  return bytes === undefined ? undefined : decodeCommit(bytes);
}

function encodeCommit(root: Uint8Array, info: CommitInfo): Uint8Array {
  if (typeof info !== "object" || info === null) throw new TypeError("commit: info must be an object { parents, time, message }");
  const { parents, time, message } = info;
  if (!Array.isArray(parents)) throw new TypeError("commit: parents must be an array of 32-byte hashes");
  parents.forEach((p: unknown, i) => {
    if (!(p instanceof Uint8Array)) throw new TypeError(`commit: parents[${i}] must be a Uint8Array`);
    if (p.length !== 32) throw new RangeError(`commit: parents[${i}] must be 32 bytes, got ${p.length}`);
  });
  let t: bigint;
  if (typeof time === "number") {
    if (!Number.isSafeInteger(time)) throw new RangeError(`commit: time must be an integer number of seconds, got ${time}`);
    t = BigInt(time);
  } else if (typeof time === "bigint") {
    t = time;
  } else {
    throw new TypeError("commit: time must be a number or a bigint (seconds)");
  }
  if (t < INT64_MIN || t > INT64_MAX) throw new RangeError("commit: time does not fit in 64 bits");
  if (typeof message !== "string") throw new TypeError("commit: message must be a string");
  const w = new ByteWriter(64 + 32 * parents.length + message.length * 3);
  w.byte(TAG_COMMIT);
  w.bytes(root);
  w.varint(parents.length);
  for (const p of parents) w.bytes(p);
  const time8 = new Uint8Array(8);
  new DataView(time8.buffer).setBigInt64(0, t);
  w.bytes(time8);
  const m = utf8.encode(message);
  w.varint(m.length);
  w.bytes(m);
  return w.finish();
}

function decodeCommit(bytes: Uint8Array): StoredCommit {
  const r = new ByteReader(bytes);
  if (r.byte() !== TAG_COMMIT) throw new ContextCorruptionError("context commit: bad tag");
  const root = r.take(32).slice();
  const n = r.varint();
  const parents: Uint8Array[] = [];
  for (let i = 0; i < n; i++) parents.push(r.take(32).slice());
  const t = r.take(8);
  const time = new DataView(t.buffer, t.byteOffset, 8).getBigInt64(0);
  const message = new TextDecoder().decode(r.take(r.varint()));
  r.end();
  return { root, parents, time, message };
}
