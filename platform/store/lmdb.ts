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
 *
 * The package's `tezos-node-ts/stores/lmdb`.
 * @example
 * ```ts
 * import { createNode } from "tezos-node-ts";
 * import { openLmdbStore } from "tezos-node-ts/stores/lmdb";
 * const node = await createNode({ store: await openLmdbStore("./tezos-node-data") });
 * const res = await node.fetch(new Request("http://node/chains/main/blocks/head/header"));
 * console.log((await res.json()).level); // 3 at the first start, the chain kept after
 * await node.close(); // closes the store too
 * ```
 * @module
 */
import { open, type RootDatabase } from "lmdb";
import { join } from "node:path";
import { constants } from "node:fs";
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from "node:fs";
import { access, stat, statfs } from "node:fs/promises";
import { type KeyValueStore, type RangeOptions, StoreWriteError, type WriteOp } from "../../lib/store/kv.ts";
import { checkKey, checkRangeOptions, checkWriteOps, closedError, isEmptyRange } from "../../lib/store/validate.ts";
import { acquireDataDirLock, type DataDirLock } from "./lock.ts";

/** Free bytes the data directory keeps beyond each write's own needs (see `#checkSpace`). */
export const SPACE_RESERVE = 4 * 1024 * 1024;

/** Name of the LMDB file inside the data directory. */
export const LMDB_FILE_NAME = "store.mdb";

/** Name of the compacted copy while `compact` writes it (removed at open if a crash left it). */
export const COMPACT_FILE_NAME = "store.mdb.compact";

/** The LMDB-backed store, as returned by `openLmdbStore`. */
export interface LmdbStore extends KeyValueStore {
  /** The data directory. */
  readonly dir: string;
  /**
   * Gives the disk space of deleted data back: writes a compacted copy of `store.mdb` (LMDB's
   * copy without free pages), syncs it, and renames it over the file. LMDB reuses freed pages for
   * later writes but never shrinks its file; this does. Writes issued meanwhile wait for it; reads
   * made while the file is swapped (after the copy, a few milliseconds) throw, so call it when
   * nothing else reads the store (`tezos-node storage compact` does it on a stopped node).
   * Killed at any point, the directory holds the old file or the new one, whole. Resolves to the
   * file's size in bytes before and after.
   */
  compact(): Promise<{ before: number; after: number }>;
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
  let lock: DataDirLock;
  try {
    lock = await acquireDataDirLock(dir);
  } catch (e) {
    throw dataDirError(dir, e);
  }
  let db: RootDatabase<Uint8Array, Uint8Array>;
  try {
    rmSync(join(dir, COMPACT_FILE_NAME), { force: true }); // a compaction killed before its rename
    db = openFile(dir);
  } catch (e) {
    await lock.release();
    throw dataDirError(dir, e);
  }
  return new LmdbKeyValueStore(dir, db, lock);
}

function openFile(dir: string): RootDatabase<Uint8Array, Uint8Array> {
  return open<Uint8Array, Uint8Array>({ path: join(dir, LMDB_FILE_NAME), encoding: "binary", keyEncoding: "binary" });
}

class LmdbKeyValueStore implements LmdbStore {
  readonly dir: string;
  #db: RootDatabase<Uint8Array, Uint8Array>;
  #lock: DataDirLock;
  #closed = false;
  /** Set while `compact` swaps the file. */
  #swapping = false;
  /**
   * Settles when the last write issued has started its transaction (or the last compaction has
   * ended): each write starts after the previous one, so writes land in the order they are
   * issued even though the space check before each is asynchronous.
   */
  #queue: Promise<unknown> = Promise.resolve();

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
    const batch = ops.slice();
    const started = this.#queue.then(async () => {
      this.#check();
      await this.#checkSpace(batch);
      const db = this.#db;
      const done = db.transaction(() => {
        for (const { key, value } of batch) {
          if (value === undefined) db.removeSync(key);
          else db.putSync(key, value);
        }
      });
      return { db, done };
    });
    this.#queue = started.then(ignore, ignore);
    const { db, done } = await started;
    try {
      await done;
      // The commit above is visible; LMDB syncs it to disk after the fact (overlapping sync).
      await db.flushed;
    } catch (e) {
      throw await writeFailure(this.dir, e);
    }
  }

  compact(): Promise<{ before: number; after: number }> {
    this.#check();
    const run = this.#queue.then(() => this.#compact());
    this.#queue = run.then(ignore, ignore);
    return run;
  }

  async #compact(): Promise<{ before: number; after: number }> {
    this.#check();
    const file = join(this.dir, LMDB_FILE_NAME);
    const copy = join(this.dir, COMPACT_FILE_NAME);
    await this.#db.flushed;
    rmSync(copy, { force: true });
    const before = (await stat(file)).size;
    try {
      await this.#db.backup(copy, true);
      syncPath(copy, "r+");
    } catch (e) {
      rmSync(copy, { force: true });
      throw await writeFailure(this.dir, e);
    }
    this.#swapping = true;
    try {
      await this.#db.close();
      renameSync(copy, file); // atomic: the old file or the new one
      syncPath(this.dir, "r");
      this.#db = openFile(this.dir);
    } finally {
      this.#swapping = false;
    }
    return { before, after: (await stat(file)).size };
  }

  /**
   * Refuses a write the disk has no room for, or a directory that became read-only, before LMDB
   * starts it: LMDB reports those late, as an I/O error, after printing it and with a second
   * promise rejected where nobody can catch it. Room means twice the bytes written (LMDB copies
   * the pages it changes) plus {@link SPACE_RESERVE}.
   */
  async #checkSpace(batch: readonly WriteOp[]): Promise<void> {
    let bytes = 0;
    for (const op of batch) bytes += op.key.length + (op.value?.length ?? 0);
    const free = await statfs(this.dir).then((s) => s.bavail * s.bsize, () => undefined);
    if (free !== undefined && free < 2 * bytes + SPACE_RESERVE) {
      throw new StoreWriteError(`No space left on device on the data directory ${this.dir}`, "no_space");
    }
    const denied = await access(this.dir, constants.W_OK).then(() => undefined, (e: { code?: string }) => e.code);
    if (denied === "EROFS" || denied === "EACCES" || denied === "EPERM") {
      throw new StoreWriteError(`Read-only file system or no permission on the data directory ${this.dir}`, "read_only");
    }
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
    if (this.#swapping) throw new Error(`LMDB store ${this.dir} is being compacted`);
  }
}

function ignore(): void {}

/** Flushes a file (or a directory's entries) to disk. */
function syncPath(path: string, flags: string): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A data directory that cannot be used, said in one line (or `e` itself when it says it already). */
function dataDirError(dir: string, e: unknown): unknown {
  switch ((e as { code?: unknown } | null)?.code) {
    case "EROFS":
    case "EACCES":
    case "EPERM":
      return new Error(`Read-only file system or no permission on the data directory ${dir}`, { cause: e });
    case "EEXIST":
    case "ENOTDIR":
      return new Error(`The data directory ${dir} is not a directory`, { cause: e });
    case "ENOSPC":
      return new Error(`No space left on device on the data directory ${dir}`, { cause: e });
    case "ENOENT":
    case "EINVAL":
    case "ENODEV":
    case "EISDIR":
      // A place where files cannot be made (/proc, a special file system): say where it failed.
      return new Error(`The data directory ${dir} cannot hold the node's files (${(e as Error).message})`, { cause: e });
    default:
      return e;
  }
}

/**
 * What a failed commit means, in one line: LMDB reports a full disk as an I/O error, so the free
 * space of the data directory tells. (The commit's own `commitError` promise is handled here, so
 * that it never surfaces as an unhandled rejection.)
 */
async function writeFailure(dir: string, e: unknown): Promise<StoreWriteError> {
  const inner = (e as { commitError?: Promise<unknown> } | null)?.commitError;
  const cause = inner === undefined ? e : await inner.then(() => e, (c: unknown) => c);
  const code = (cause as { code?: unknown } | null)?.code;
  if (code === "EROFS" || code === "EACCES" || code === "EPERM" || code === 30 || code === 13) {
    return new StoreWriteError(`Read-only file system or no permission on the data directory ${dir}`, "read_only", { cause });
  }
  const free = await statfs(dir).then((s) => s.bavail * s.bsize, () => undefined);
  if (code === "ENOSPC" || code === 28 || (free !== undefined && free < 1024 * 1024)) {
    return new StoreWriteError(`No space left on device on the data directory ${dir}`, "no_space", { cause });
  }
  return new StoreWriteError(`Cannot write to the data directory ${dir}: ${cause instanceof Error ? cause.message : String(cause)}`, "io", { cause });
}

/** A plain Uint8Array view of the bytes (LMDB hands out Buffers, which compare unequal in tests). */
function plain(b: Uint8Array): Uint8Array {
  return b.constructor === Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}
