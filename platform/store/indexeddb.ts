/**
 * The browser's `KeyValueStore`, on IndexedDB through `idb-keyval` (one object store, binary
 * keys). IndexedDB reads are asynchronous and the interface's are not, so the store loads every
 * entry into a sorted in-memory copy when it opens and serves reads from it; each `write` is one
 * IndexedDB transaction, applied to the copy only once that transaction has completed.
 *
 * Fit for a browser node on a small chain (a sandbox, tests): the whole state must fit in memory.
 * Tests run it on `fake-indexeddb` (imported by the test only).
 *
 * The package's `tezos-node-ts/stores/indexeddb`.
 * @example
 * ```ts
 * import "fake-indexeddb/auto"; // Node, Bun and Deno have no IndexedDB: `npm install fake-indexeddb`
 * import { createNode } from "tezos-node-ts";
 * import { openIndexedDbStore } from "tezos-node-ts/stores/indexeddb";
 * const node = await createNode({ store: await openIndexedDbStore("tezos-sandbox") });
 * const res = await node.fetch(new Request("http://node/chains/main/blocks/head/header"));
 * console.log((await res.json()).level); // 3
 * await node.close();
 * ```
 * @module
 */
import { createStore, entries, promisifyRequest, type UseStore } from "idb-keyval";
import type { KeyValueStore, RangeOptions, WriteOp } from "../../lib/store/kv.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { checkWriteOps, closedError } from "../../lib/store/validate.ts";

/** Name of the object store inside the IndexedDB database. */
export const OBJECT_STORE_NAME = "kv";

/**
 * Opens (creating if needed) the IndexedDB database `name` and loads it into memory.
 * @example
 * const store = await openIndexedDbStore("tezos-sandbox");
 * await store.write([{ key, value }]);
 * store.get(key);
 */
export async function openIndexedDbStore(name: string): Promise<KeyValueStore> {
  if (typeof name !== "string" || name === "") throw new TypeError("openIndexedDbStore: name must be a non-empty string");
  if (typeof indexedDB === "undefined") throw new Error("openIndexedDbStore: this runtime has no indexedDB");
  const useStore = createStore(name, OBJECT_STORE_NAME);
  const copy = new MemoryStore();
  const stored = await entries<IDBValidKey, unknown>(useStore);
  await copy.write(stored.map(([k, v]) => ({ key: toBytes(k, "key"), value: toBytes(v, "value") })));
  return new IndexedDbKeyValueStore(name, useStore, copy);
}

/** Reads from the in-memory copy; writes to IndexedDB first, then to the copy. */
class IndexedDbKeyValueStore implements KeyValueStore {
  #name: string;
  #useStore: UseStore;
  #copy: MemoryStore;
  #closed = false;

  constructor(name: string, useStore: UseStore, copy: MemoryStore) {
    this.#name = name;
    this.#useStore = useStore;
    this.#copy = copy;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    this.#check();
    return this.#copy.get(key);
  }

  range(options: RangeOptions): IterableIterator<[Uint8Array, Uint8Array]> {
    this.#check();
    return this.#copy.range(options);
  }

  async write(ops: readonly WriteOp[]): Promise<void> {
    this.#check();
    checkWriteOps(ops);
    if (ops.length === 0) return;
    // Copies taken now: what the caller does with its arrays afterwards changes nothing.
    const batch = ops.map(({ key, value }) => ({ key: key.slice(), value: value?.slice() }));
    await this.#useStore("readwrite", (store) => {
      try {
        for (const { key, value } of batch) {
          if (value === undefined) store.delete(key.buffer);
          else store.put(value, key.buffer);
        }
      } catch (e) {
        store.transaction.abort();
        throw e;
      }
      return promisifyRequest(store.transaction);
    });
    await this.#copy.write(batch);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const db = await this.#useStore("readonly", (store) => store.transaction.db);
    db.close();
    await this.#copy.close();
  }

  #check(): void {
    if (this.#closed) throw closedError(`IndexedDB store ${this.#name}`);
  }
}

function toBytes(x: unknown, what: string): Uint8Array {
  if (x instanceof Uint8Array) return x.constructor === Uint8Array ? x : new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  throw new TypeError(`IndexedDB store holds a ${what} that is not binary (${typeof x})`);
}
