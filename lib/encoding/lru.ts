/**
 * A bounded memo for pure functions whose answers are worth keeping (base58 forms, parsed
 * operations, verified signatures). It keeps two generations: entries go into the young one;
 * when it is full it becomes the old one and the previous old one is forgotten; an entry found
 * in the old generation moves back to the young one. So a hit costs one or two `Map.get`, and
 * what is used again within `capacity` entries stays (the least recently used entries go, in
 * bulk).
 *
 * @example
 * ```ts
 * const memo = new Lru<string, number>(2);
 * memo.set("a", 1); memo.set("b", 2); memo.set("c", 3); // "a" and "b" are now the old generation
 * memo.get("a"); // 1, moved back to the young generation
 * ```
 * @module
 */

/** A memo of about `capacity` to `2 × capacity` entries, recently used ones kept. */
export class Lru<K, V> {
  readonly capacity: number;
  #young = new Map<K, V>();
  #old = new Map<K, V>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`Lru: capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
  }

  /** The number of entries kept. */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /** The value of `key`, if kept. */
  get(key: K): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) {
      this.#old.delete(key);
      this.set(key, old);
    }
    return old;
  }

  /** Keeps `value` for `key`. */
  set(key: K, value: V): void {
    if (this.#young.size >= this.capacity) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}

/**
 * `bytes` as a string of one character per byte: a key for {@link Lru} (and any `Map`) that is
 * built in one call and hashed fast, unlike a hex string built piece by piece.
 */
export function byteString(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 4096) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 4096) as unknown as number[]);
  return s;
}
