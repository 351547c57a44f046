/**
 * `MemoryStore`: the in-memory `KeyValueStore`, for tests, the browser without IndexedDB and
 * throw-away sandboxes. Keys are kept in bytewise order; values are copied on the way in and on
 * the way out, so no caller can change what the store holds except through `write`.
 *
 * `clone()` copies a store in constant time (copy-on-write: the two share their entries until
 * either writes, and each write copies only the part of the map it changes), which is how
 * `createNode` starts a memory-store sandbox from a chain made earlier in the process.
 *
 * The package's `tezos-node-ts/stores/memory`.
 * @example
 * ```ts
 * import { createNode } from "tezos-node-ts";
 * import { MemoryStore } from "tezos-node-ts/stores/memory";
 * const store = new MemoryStore();
 * await store.write([{ key: new Uint8Array([1]), value: new Uint8Array([42]) }]);
 * console.log(store.get(new Uint8Array([1]))); // Uint8Array(1) [ 42 ]
 * await store.close();
 * const node = await createNode({ store: new MemoryStore() }); // what it uses when given none
 * await node.close();
 * ```
 * @module
 */
import type { KeyValueStore, RangeOptions, WriteOp } from "./kv.ts";
import { SortedBytesMap } from "./sorted.ts";
import { checkKey, checkRangeOptions, checkWriteOps, closedError } from "./validate.ts";

/**
 * A `KeyValueStore` held in memory: sorted, with lazy range scans, and atomic writes (a write is
 * checked whole before any of it applies).
 * @example
 * const store = new MemoryStore();
 * await store.write([{ key: new Uint8Array([1, 0]), value: new Uint8Array([42]) }]);
 * store.get(new Uint8Array([1, 0])); // Uint8Array [42]
 */
export class MemoryStore implements KeyValueStore {
  #map = new SortedBytesMap();
  #closed = false;

  /** Number of entries (handy in tests and benches). */
  get size(): number {
    return this.#map.size;
  }

  /** The value at `key` (a copy), or `undefined`. */
  get(key: Uint8Array): Uint8Array | undefined {
    this.#check();
    checkKey(key);
    return this.#map.get(key)?.slice();
  }

  /** Entries in `[gte, lt)`, in key order or reversed, at most `limit`; keys and values are copies. */
  range(options: RangeOptions): IterableIterator<[Uint8Array, Uint8Array]> {
    this.#check();
    checkRangeOptions(options);
    return this.#scan(options);
  }

  *#scan(options: RangeOptions): Generator<[Uint8Array, Uint8Array]> {
    for (const [k, v] of this.#map.range(options)) {
      this.#check();
      yield [k.slice(), v.slice()];
    }
  }

  /** Applies `ops` in order, all or nothing (they are checked before any applies). */
  write(ops: readonly WriteOp[]): Promise<void> {
    try {
      this.#check();
      checkWriteOps(ops);
    } catch (e) {
      return Promise.reject(e);
    }
    for (const { key, value } of ops) {
      if (value === undefined) this.#map.delete(key);
      else this.#map.set(key.slice(), value.slice());
    }
    return Promise.resolve();
  }

  /**
   * A new store holding the same entries, independent of this one: a write to either is not seen
   * by the other. Copy-on-write, so it costs the same whatever the store's size.
   * @example
   * const a = new MemoryStore();
   * await a.write([{ key: new Uint8Array([1]), value: new Uint8Array([1]) }]);
   * const b = a.clone();
   * await b.write([{ key: new Uint8Array([1]), value: new Uint8Array([2]) }]);
   * a.get(new Uint8Array([1])); // Uint8Array [1]
   */
  clone(): MemoryStore {
    const copy = new MemoryStore();
    copy.copyFrom(this);
    return copy;
  }

  /**
   * Makes this store, which must be empty, hold what `source` holds (copy-on-write, as
   * {@link clone}): for a store created by the caller and filled afterwards. RangeError when this
   * store has entries.
   */
  copyFrom(source: MemoryStore): void {
    this.#check();
    source.#check();
    if (this.#map.size !== 0) throw new RangeError("MemoryStore.copyFrom: the store must be empty");
    this.#map = source.#map.clone();
  }

  /** Drops the contents; later calls throw. Closing twice is harmless. */
  close(): Promise<void> {
    this.#closed = true;
    this.#map.clear();
    return Promise.resolve();
  }

  #check(): void {
    if (this.#closed) throw closedError("MemoryStore");
  }
}
