/**
 * The durable `KeyValueStore`, on LMDB through npm `lmdb` (memory-mapped B+tree: synchronous
 * reads, ACID write transactions). Works under Node, Bun and Deno (Deno needs `-A` for FFI and a
 * `node_modules` folder).
 *
 * Layout of the data directory: `store.mdb` (+ `store.mdb-lock`, LMDB's reader table) and
 * `lock`, the node's own lock (see `lock.ts`): LMDB lets several processes share an environment,
 * a node must not.
 *
 * Each `write` is one LMDB transaction: it lands whole or not at all, and its promise resolves
 * after the commit has been flushed to disk. A crash (even kill -9) leaves the last committed
 * state.
 * @module
 */
import { open, type RootDatabase } from "lmdb";
import { join } from "node:path";
import type { KeyValueStore, RangeOptions, WriteOp } from "../../lib/store/kv.ts";
import { checkKey, checkRangeOptions, checkWriteOps, closedError, isEmptyRange } from "../../lib/store/validate.ts";
import { acquireDataDirLock, type DataDirLock } from "./lock.ts";

/** Name of the LMDB file inside the data directory. */
export const LMDB_FILE_NAME = "store.mdb";

/** The LMDB-backed store, as returned by `openLmdbStore`. */
export interface LmdbStore extends KeyValueStore {
  /** The data directory. */
  readonly dir: string;
}

/**
 * Opens (creating if needed) the store of data directory `dir`, after taking its lock.
 * `close()` releases the lock.
 * @throws Error when another live process holds the directory's lock.
 * @example
 * const store = await openLmdbStore("/var/tezos-node");
 * await store.write([{ key, value }]); // durable once resolved
 * store.get(key);
 * await store.close();
 */
export async function openLmdbStore(dir: string): Promise<LmdbStore> {
  const lock = await acquireDataDirLock(dir);
  let db: RootDatabase<Uint8Array, Uint8Array>;
  try {
    db = open<Uint8Array, Uint8Array>({ path: join(dir, LMDB_FILE_NAME), encoding: "binary", keyEncoding: "binary" });
  } catch (e) {
    await lock.release();
    throw e;
  }
  return new LmdbKeyValueStore(dir, db, lock);
}

class LmdbKeyValueStore implements LmdbStore {
  readonly dir: string;
  #db: RootDatabase<Uint8Array, Uint8Array>;
  #lock: DataDirLock;
  #closed = false;

  constructor(dir: string, db: RootDatabase<Uint8Array, Uint8Array>, lock: DataDirLock) {
    this.dir = dir;
    this.#db = db;
    this.#lock = lock;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    this.#check();
    checkKey(key);
    const v = this.#db.get(key);
    return v === undefined ? undefined : plain(v);
  }

  range(options: RangeOptions): IterableIterator<[Uint8Array, Uint8Array]> {
    this.#check();
    checkRangeOptions(options);
    return this.#scan(options);
  }

  *#scan(options: RangeOptions): Generator<[Uint8Array, Uint8Array]> {
    if (isEmptyRange(options)) return;
    const { gte, lt, reverse = false, limit } = options;
    const query: Record<string, unknown> = reverse
      ? { start: lt, end: gte, reverse: true, exclusiveStart: lt !== undefined, inclusiveEnd: gte !== undefined }
      : { start: gte, end: lt };
    if (limit !== undefined && limit !== Infinity) query["limit"] = limit;
    for (const { key, value } of this.#db.getRange(query)) {
      this.#check();
      yield [plain(key as Uint8Array), plain(value)];
    }
  }

  async write(ops: readonly WriteOp[]): Promise<void> {
    this.#check();
    checkWriteOps(ops);
    if (ops.length === 0) return;
    const db = this.#db;
    const batch = ops.slice();
    await db.transaction(() => {
      for (const { key, value } of batch) {
        if (value === undefined) db.removeSync(key);
        else db.putSync(key, value);
      }
    });
    // The commit above is visible; LMDB syncs it to disk after the fact (overlapping sync).
    await db.flushed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#db.close();
    } finally {
      await this.#lock.release();
    }
  }

  #check(): void {
    if (this.#closed) throw closedError(`LMDB store ${this.dir}`);
  }
}

/** A plain Uint8Array view of the bytes (LMDB hands out Buffers, which compare unequal in tests). */
function plain(b: Uint8Array): Uint8Array {
  return b.constructor === Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}
