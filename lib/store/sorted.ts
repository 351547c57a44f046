/**
 * An ordered map from byte-string keys to byte-string values, in bytewise key order: the engine
 * of the memory store and of the IndexedDB store's in-memory copy.
 *
 * Entries live in sorted chunks of at most 1024 (a two-level structure in the manner of a B+tree
 * with one inner level), so a put or delete moves at most a chunk's worth of references and a
 * range scan seeks with two binary searches. Range iterators are lazy and survive writes made
 * between two steps: they re-seek after the last key they returned.
 *
 * {@link SortedBytesMap.clone} is copy-on-write: the copy and the original share their chunks
 * until one of them writes to a chunk, which it then copies first (a chunk's arrays of
 * references, not the bytes, which nobody changes in place). A clone costs a copy of the list of
 * chunks, whatever the number of entries.
 * @module
 */
import type { RangeOptions } from "./kv.ts";
import { compareBytes, isEmptyRange } from "./validate.ts";

const MAX_CHUNK = 1024;

interface Chunk {
  keys: Uint8Array[];
  values: Uint8Array[];
  /** The map that may change this chunk in place; any other holder copies it first. */
  owner: object;
}

/** A sorted map of byte strings; keys and values are stored as given (callers copy). */
export class SortedBytesMap {
  #chunks: Chunk[] = [];
  #size = 0;
  #version = 0;
  /** This map's mark on the chunks it alone holds (renewed when it is cloned: then it holds none alone). */
  #owner: object = {};

  /** Number of entries. */
  get size(): number {
    return this.#size;
  }

  /** The value stored at `key`, or `undefined`. */
  get(key: Uint8Array): Uint8Array | undefined {
    const ci = this.#chunkFor(key);
    if (ci < 0) return undefined;
    const chunk = this.#chunks[ci]!;
    const i = lowerBound(chunk.keys, key);
    return i < chunk.keys.length && compareBytes(chunk.keys[i]!, key) === 0 ? chunk.values[i] : undefined;
  }

  /** Stores `value` at `key`, replacing any previous value. */
  set(key: Uint8Array, value: Uint8Array): void {
    this.#version++;
    if (this.#chunks.length === 0) {
      this.#chunks.push({ keys: [key], values: [value], owner: this.#owner });
      this.#size = 1;
      return;
    }
    const ci = Math.max(0, this.#chunkFor(key));
    const chunk = this.#own(ci);
    const i = lowerBound(chunk.keys, key);
    if (i < chunk.keys.length && compareBytes(chunk.keys[i]!, key) === 0) {
      chunk.values[i] = value;
      return;
    }
    chunk.keys.splice(i, 0, key);
    chunk.values.splice(i, 0, value);
    this.#size++;
    if (chunk.keys.length > MAX_CHUNK) {
      const half = chunk.keys.length >> 1;
      const next: Chunk = { keys: chunk.keys.splice(half), values: chunk.values.splice(half), owner: this.#owner };
      this.#chunks.splice(ci + 1, 0, next);
    }
  }

  /** Removes `key`; returns whether it was present. */
  delete(key: Uint8Array): boolean {
    const ci = this.#chunkFor(key);
    if (ci < 0) return false;
    const chunk = this.#chunks[ci]!;
    const i = lowerBound(chunk.keys, key);
    if (i >= chunk.keys.length || compareBytes(chunk.keys[i]!, key) !== 0) return false;
    this.#version++;
    const own = this.#own(ci);
    own.keys.splice(i, 1);
    own.values.splice(i, 1);
    this.#size--;
    if (own.keys.length === 0) this.#chunks.splice(ci, 1);
    return true;
  }

  /**
   * A map with the same entries, sharing this one's chunks copy-on-write: a write to either
   * afterwards copies the chunk it changes and leaves the other map as it was.
   */
  clone(): SortedBytesMap {
    // Neither map may change a shared chunk in place any more: both take new marks.
    this.#owner = {};
    const copy = new SortedBytesMap();
    copy.#chunks = this.#chunks.slice();
    copy.#size = this.#size;
    return copy;
  }

  /** Chunk `ci`, copied first into this map alone if another map may hold it too. */
  #own(ci: number): Chunk {
    const chunk = this.#chunks[ci]!;
    if (chunk.owner === this.#owner) return chunk;
    const copy: Chunk = { keys: chunk.keys.slice(), values: chunk.values.slice(), owner: this.#owner };
    this.#chunks[ci] = copy;
    return copy;
  }

  /** Removes every entry. */
  clear(): void {
    this.#version++;
    this.#chunks = [];
    this.#size = 0;
  }

  /** Entries with `gte <= key < lt`, ascending (descending with `reverse`), at most `limit`. */
  *range(options: RangeOptions): Generator<[Uint8Array, Uint8Array]> {
    if (isEmptyRange(options)) return;
    const { gte, lt, reverse = false, limit = Infinity } = options;
    let count = 0;
    let version = this.#version;
    let pos: Pos | undefined = reverse
      ? this.#prev(lt === undefined ? this.#end() : this.#lowerBound(lt))
      : gte === undefined ? this.#first() : this.#lowerBound(gte);
    while (pos !== undefined && pos.c < this.#chunks.length && count < limit) {
      const chunk = this.#chunks[pos.c]!;
      const key = chunk.keys[pos.i]!;
      if (reverse ? gte !== undefined && compareBytes(key, gte) < 0 : lt !== undefined && compareBytes(key, lt) >= 0) return;
      yield [key, chunk.values[pos.i]!];
      count++;
      if (version !== this.#version) {
        // Written to between two steps: seek again just past the last key returned.
        version = this.#version;
        pos = reverse ? this.#prev(this.#lowerBound(key)) : this.#upperBound(key);
      } else {
        pos = reverse ? this.#prev(pos) : this.#next(pos);
      }
    }
  }

  /** Index of the last chunk whose first key is <= key; -1 when key precedes every chunk. */
  #chunkFor(key: Uint8Array): number {
    const chunks = this.#chunks;
    let lo = 0;
    let hi = chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareBytes(chunks[mid]!.keys[0]!, key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  #first(): Pos | undefined {
    return this.#chunks.length === 0 ? undefined : { c: 0, i: 0 };
  }

  /** One past the last entry (a position that `#prev` steps back from). */
  #end(): Pos {
    return { c: this.#chunks.length, i: 0 };
  }

  /** First position whose key is >= key, or the end position. */
  #lowerBound(key: Uint8Array): Pos {
    const c = Math.max(0, this.#chunkFor(key));
    if (c >= this.#chunks.length) return this.#end();
    const i = lowerBound(this.#chunks[c]!.keys, key);
    return this.#normalize({ c, i });
  }

  /** First position whose key is > key, or undefined. */
  #upperBound(key: Uint8Array): Pos | undefined {
    const c = Math.max(0, this.#chunkFor(key));
    if (c >= this.#chunks.length) return undefined;
    const keys = this.#chunks[c]!.keys;
    let i = lowerBound(keys, key);
    if (i < keys.length && compareBytes(keys[i]!, key) === 0) i++;
    const pos = this.#normalize({ c, i });
    return pos.c < this.#chunks.length ? pos : undefined;
  }

  #normalize(pos: Pos): Pos {
    return pos.c < this.#chunks.length && pos.i >= this.#chunks[pos.c]!.keys.length ? { c: pos.c + 1, i: 0 } : pos;
  }

  #next(pos: Pos): Pos | undefined {
    const p = this.#normalize({ c: pos.c, i: pos.i + 1 });
    return p.c < this.#chunks.length ? p : undefined;
  }

  #prev(pos: Pos): Pos | undefined {
    if (pos.i > 0) return { c: pos.c, i: pos.i - 1 };
    const c = pos.c - 1;
    return c < 0 ? undefined : { c, i: this.#chunks[c]!.keys.length - 1 };
  }
}

interface Pos {
  c: number;
  i: number;
}

function lowerBound(keys: readonly Uint8Array[], key: Uint8Array): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareBytes(keys[mid]!, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
