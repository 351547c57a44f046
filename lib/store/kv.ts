/**
 * The key-value interface that `platform/` implements (LMDB, IndexedDB) and `lib/` uses.
 *
 * Reads are synchronous: LMDB reads synchronously from its memory map, the memory store trivially,
 * and the IndexedDB store keeps a full in-memory copy that it writes through. That keeps block
 * application and Michelson free of `await` on every context read. Writes are asynchronous and
 * atomic: one `write` call lands whole or not at all, and resolves only once it is durable.
 *
 * Keys start with a one-byte table prefix (see `tables.ts`); numbers inside keys are big-endian
 * so that ranges scan in order. Keys and values are compared and returned as raw bytes.
 * @module
 */

/** One change of an atomic write: a put when `value` is given, a delete otherwise. */
export interface WriteOp {
  readonly key: Uint8Array;
  readonly value?: Uint8Array;
}

/** Bounds of a range scan, compared bytewise; `gte` inclusive, `lt` exclusive. */
export interface RangeOptions {
  readonly gte?: Uint8Array;
  readonly lt?: Uint8Array;
  readonly reverse?: boolean;
  readonly limit?: number;
}

/** A durable (or in-memory) ordered key-value store. */
export interface KeyValueStore {
  /** The value at `key`, or `undefined`. */
  get(key: Uint8Array): Uint8Array | undefined;
  /** Entries whose keys are in range, in key order (reversed on request). */
  range(options: RangeOptions): Iterable<[Uint8Array, Uint8Array]>;
  /** Applies every op atomically; resolves once the write is durable. */
  write(ops: readonly WriteOp[]): Promise<void>;
  /** Flushes and releases the store; later calls throw. */
  close(): Promise<void>;
}

/**
 * A write the store could not make (a full disk, a read-only or failing device): nothing of it
 * was written, and the store still holds what it held. The node cannot go on without writing:
 * `createNode` stops baking and reports it (`NodeOptions.onFatal`).
 */
export class StoreWriteError extends Error {
  override name = "StoreWriteError";
  /** Why, as far as the store can tell. */
  readonly reason: "no_space" | "read_only" | "io";

  constructor(message: string, reason: StoreWriteError["reason"], options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}
