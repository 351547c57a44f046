/**
 * The protocol cache of the context (Octez `Environment_cache`, `Environment_context.Cache`):
 * subcaches with a size limit each (the `cache_layout`), whose entries are identified by a string
 * and carry their size, their birth (a counter that only grows along a chain, so the smallest
 * birth is the least recently used entry, the "dean") and a nonce naming the block that last set
 * them.
 *
 * Every node must agree on the cache, since hits and misses cost different gas: its identity is
 * in the context. At a block's finalisation ({@link syncCache}) the subcaches drop their oldest
 * entries until they fit their limits, the entries set by the block take the block's nonce, and
 * the domain (each subcache's keys with their size, birth and nonce, and its counter) is written
 * at `domain`. The layout is at `number_of_caches` and `cache/<index>/limit`
 * ({@link setCacheLayout}, at protocol activation).
 *
 * The values are not in the context: a node keeps them in memory. A state read back from a
 * domain ({@link loadCache}) has its values missing; the user of the cache rebuilds a missing value
 * from the context when it needs it (Octez's `Lazy` loading) and may keep it in the entry's
 * {@link CacheCell}.
 *
 * A {@link CacheState} is immutable: every change returns a new state, so that a failing
 * operation puts the cache back as it was together with the rest of the context.
 * @module
 */
import { DecodeError, Reader, Writer } from "../../../encoding/codec.ts";
import type { Context } from "../../../store/context/mod.ts";
import { toHex } from "../../../encoding/hex.ts";
import type { Path } from "./layout.ts";

/** Where the number of subcaches is (`Environment_context.Cache.cache_number_path`). */
export const CACHE_NUMBER_PATH: Path = ["number_of_caches"];
/** Where the domain of the caches is written at each block's finalisation. */
export const CACHE_DOMAIN_PATH: Path = ["domain"];
/** Where the size limit of subcache `index` is. */
export function cacheLimitPath(index: number): Path {
  return ["cache", String(index), "limit"];
}

/** How many blocks of entry removals are remembered (`entries_removals_window_width`). */
const ENTRIES_REMOVALS_WINDOW = 5;

/** The value of an entry, when this node has it in memory (filled lazily after a reload). */
export interface CacheCell<V> {
  value: V | undefined;
}

/** One entry of a subcache. */
export interface CacheEntry<V> {
  /** Size of the value, as its owner accounts it (at least 1). */
  readonly size: number;
  /** Insertion rank: larger is younger. */
  readonly birth: bigint;
  /** The nonce of the block that set it; `undefined` while that block is being applied. */
  readonly nonce: Uint8Array | undefined;
  /** The value, shared by every state holding this same entry. */
  readonly cell: CacheCell<V>;
}

/** One subcache. */
export interface Subcache<V> {
  readonly limit: number;
  /** Entries by identifier. */
  readonly entries: ReadonlyMap<string, CacheEntry<V>>;
  /** Sum of the entries' sizes. */
  readonly size: number;
  /** The largest birth given so far. */
  readonly counter: bigint;
  /** Identifiers removed since the last finalisation. */
  readonly removed: ReadonlySet<string>;
  /** Number of removals of each of the last blocks (oldest first). */
  readonly removals: readonly number[];
}

/** The caches of a context: one subcache per layout slot. */
export type CacheState<V> = readonly Subcache<V>[];

function emptySubcache<V>(limit: number): Subcache<V> {
  return { limit, entries: new Map(), size: 0, counter: 0n, removed: new Set(), removals: [] };
}

/** Empty caches for a layout (a list of size limits) (`from_layout`). */
export function cacheFromLayout<V>(layout: readonly number[]): CacheState<V> {
  for (const l of layout) if (!Number.isSafeInteger(l) || l < 0) throw new RangeError(`cache limit must be a non-negative integer, got ${l}`);
  return layout.map((l) => emptySubcache<V>(l));
}

/** The caches emptied, limits kept (`clear`). */
export function clearCache<V>(state: CacheState<V>): CacheState<V> {
  return state.map((s) => emptySubcache<V>(s.limit));
}

function subcache<V>(state: CacheState<V>, index: number): Subcache<V> {
  const s = state[index];
  if (s === undefined) throw new RangeError(`no subcache ${index} (the layout has ${state.length})`);
  return s;
}

function withSubcache<V>(state: CacheState<V>, index: number, s: Subcache<V>): CacheState<V> {
  const out = state.slice();
  out[index] = s;
  return out;
}

/** The entry with the smallest birth (the least recently used), if any. */
function dean<V>(s: Subcache<V>): string | undefined {
  let best: string | undefined;
  let birth = 0n;
  for (const [id, e] of s.entries) {
    if (best === undefined || e.birth < birth) {
      best = id;
      birth = e.birth;
    }
  }
  return best;
}

function removeEntry<V>(id: string, entries: Map<string, CacheEntry<V>>, removed: Set<string>): number {
  const e = entries.get(id);
  if (e === undefined) return 0;
  entries.delete(id);
  removed.add(id);
  return e.size;
}

/** Drops the oldest entries while the subcache is over its limit (`enforce_size_limit`). */
function enforceSizeLimit<V>(s: Subcache<V>): Subcache<V> {
  if (s.size <= s.limit) return s;
  const entries = new Map(s.entries);
  const removed = new Set(s.removed);
  let size = s.size;
  while (size > s.limit && entries.size > 0) {
    const id = dean({ ...s, entries });
    size -= removeEntry(id!, entries, removed);
  }
  return { ...s, entries, removed, size };
}

/** The value of entry `id` of subcache `index`, with its entry (`find`); `undefined` when absent. */
export function cacheLookup<V>(state: CacheState<V>, index: number, id: string): CacheEntry<V> | undefined {
  return subcache(state, index).entries.get(id);
}

/**
 * Sets (`value` given) or removes (`undefined`) entry `id` of subcache `index` (`update`): a set
 * entry is born now (counter + 1), its nonce fresh; then the oldest entries go while the subcache
 * is over its limit.
 */
export function cacheUpdate<V>(state: CacheState<V>, index: number, id: string, value: { value: V; size: number } | undefined): CacheState<V> {
  const s = subcache(state, index);
  const entries = new Map(s.entries);
  const removed = new Set(s.removed);
  let size = s.size;
  const old = entries.get(id);
  if (old !== undefined) {
    entries.delete(id);
    removed.add(id);
    size -= old.size;
  }
  let counter = s.counter;
  if (value !== undefined) {
    const entrySize = Math.max(1, value.size);
    const birth = counter + 1n;
    entries.set(id, { size: entrySize, birth, nonce: undefined, cell: { value: value.value } });
    removed.delete(id);
    size += entrySize;
    counter = birth;
  }
  return withSubcache(state, index, enforceSizeLimit({ ...s, entries, removed, size, counter }));
}

/** Sum of the sizes of subcache `index`'s entries. */
export function cacheSize<V>(state: CacheState<V>, index: number): number {
  return subcache(state, index).size;
}

/** Size limit of subcache `index`. */
export function cacheSizeLimit<V>(state: CacheState<V>, index: number): number {
  return subcache(state, index).limit;
}

/** Identifiers and sizes of subcache `index`, oldest first (`list_keys`). */
export function cacheKeys<V>(state: CacheState<V>, index: number): [string, number][] {
  return [...subcache(state, index).entries]
    .sort((a, b) => (a[1].birth < b[1].birth ? -1 : a[1].birth > b[1].birth ? 1 : 0))
    .map(([id, e]) => [id, e.size]);
}

/** How many entries of subcache `index` are older than `id`, or `undefined` if `id` is absent (`key_rank`). */
export function cacheKeyRank<V>(state: CacheState<V>, index: number, id: string): number | undefined {
  const s = subcache(state, index);
  const e = s.entries.get(id);
  if (e === undefined) return undefined;
  let n = 0;
  for (const other of s.entries.values()) if (other.birth < e.birth) n++;
  return n;
}

/** What one subcache leaves in the context: its entries' metadata and its counter. */
export interface SubcacheDomain {
  readonly keys: ReadonlyMap<string, { readonly size: number; readonly birth: bigint; readonly nonce: Uint8Array }>;
  readonly counter: bigint;
}

/**
 * Ends the block's use of the cache (`sync`): each subcache fits its limit, its removals are
 * recorded, entries set by the block take `nonce`; returns the new state and the context with the
 * domain written at {@link CACHE_DOMAIN_PATH}.
 */
export function syncCache<V>(state: CacheState<V>, context: Context, nonce: Uint8Array): { state: CacheState<V>; context: Context } {
  if (!(nonce instanceof Uint8Array)) throw new TypeError("cache nonce must be a Uint8Array");
  const next = state.map((s0) => {
    const s = enforceSizeLimit(s0);
    const removals = [...(s.removals.length >= ENTRIES_REMOVALS_WINDOW ? s.removals.slice(1) : s.removals), s.removed.size];
    const entries = new Map<string, CacheEntry<V>>();
    for (const [id, e] of s.entries) entries.set(id, e.nonce === undefined ? { ...e, nonce } : e);
    return { ...s, entries, removed: new Set<string>(), removals };
  });
  return { state: next, context: context.set(CACHE_DOMAIN_PATH, encodeDomain(next)) };
}

// ---------------------------------------------------------------------------------------------
// Domain in the context
//
// Octez's `domain_encoding`: a list of subcaches, each `keys` (key = identifier string and
// cache index int16; metadata = size int31, birth int64, nonce bytes), sorted by identifier, then
// `counter` int64. Lists and variable fields carry a 4-byte length here.

/** The binary domain of a state (entries sorted by identifier, as Octez's key map). */
export function encodeDomain<V>(state: CacheState<V>): Uint8Array {
  const w = new Writer();
  const enc = new TextEncoder();
  const sizeAt = w.reserve(4);
  const start = w.bytes().length;
  state.forEach((s, index) => {
    const listAt = w.reserve(4);
    const listStart = w.bytes().length;
    for (const id of [...s.entries.keys()].sort(compareIdentifiers)) {
      const e = s.entries.get(id)!;
      const nonce = e.nonce ?? new Uint8Array(0);
      const idBytes = enc.encode(id);
      w.u32(4 + idBytes.length + 2 + 4 + 8 + 4 + nonce.length);
      w.u32(idBytes.length);
      w.raw(idBytes);
      w.u16(index);
      w.u32(e.size);
      writeInt64(w, e.birth);
      w.u32(nonce.length);
      w.raw(nonce);
    }
    w.patchU32(listAt, w.bytes().length - listStart);
    writeInt64(w, s.counter);
  });
  w.patchU32(sizeAt, w.bytes().length - start);
  return w.bytes();
}

/** The domain read back; DecodeError on malformed bytes. */
export function decodeDomain(bytes: Uint8Array): SubcacheDomain[] {
  const r = new Reader(bytes);
  const dec = new TextDecoder("utf-8", { fatal: true });
  const out: SubcacheDomain[] = [];
  r.within(r.u32(), () => {
    while (r.remaining > 0) {
      const keys = new Map<string, { size: number; birth: bigint; nonce: Uint8Array }>();
      r.within(r.u32(), () => {
        while (r.remaining > 0) {
          r.within(r.u32(), () => {
            const id = dec.decode(r.take(r.u32()));
            r.u16();
            const size = r.u32();
            const birth = readInt64(r);
            const nonce = r.take(r.u32()).slice();
            keys.set(id, { size, birth, nonce });
          });
        }
      });
      out.push({ keys, counter: readInt64(r) });
    }
  });
  if (r.remaining !== 0) throw new DecodeError(`${r.remaining} unexpected trailing bytes in the cache domain`);
  return out;
}

function compareIdentifiers(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function writeInt64(w: Writer, v: bigint): void {
  const x = BigInt.asUintN(64, v);
  w.u32(Number(x >> 32n));
  w.u32(Number(x & 0xffffffffn));
}

function readInt64(r: Reader): bigint {
  const hi = BigInt(r.u32());
  const lo = BigInt(r.u32());
  return BigInt.asIntN(64, (hi << 32n) | lo);
}

// ---------------------------------------------------------------------------------------------
// Layout and loading

/** Writes the layout (`set_cache_layout`, at protocol activation). */
export function setCacheLayout(context: Context, layout: readonly number[]): Context {
  let c = context;
  if (layout.length > 0) c = c.set(CACHE_NUMBER_PATH, u32Bytes(layout.length));
  layout.forEach((limit, i) => {
    c = c.set(cacheLimitPath(i), u32Bytes(limit));
  });
  return c;
}

/** The layout written in the context (`get_cache_layout`); empty when there is none. */
export function getCacheLayout(context: Context): number[] {
  const n = context.get(CACHE_NUMBER_PATH);
  if (n === undefined) return [];
  const count = new Reader(n).u32();
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const b = context.get(cacheLimitPath(i));
    if (b === undefined) throw new DecodeError(`missing cache limit ${i} in the context`);
    out.push(new Reader(b).u32());
  }
  return out;
}

function u32Bytes(n: number): Uint8Array {
  const w = new Writer();
  w.u32(n);
  return w.bytes();
}

/**
 * The caches of a context (`load_cache`): the layout's subcaches filled with the domain's entries
 * (sizes, births, nonces and counters as the block that wrote them left them). An entry also in
 * `inherited` with the same nonce keeps its value; the others have none yet. No domain (the
 * first block of the protocol): empty caches. `defaultLayout` stands for a layout the context
 * lacks (a context written before the node knew the cache).
 */
export function loadCache<V>(context: Context, inherited?: CacheState<V>, defaultLayout: readonly number[] = []): CacheState<V> {
  const written = getCacheLayout(context);
  const layout = written.length > 0 ? written : defaultLayout;
  const b = context.get(CACHE_DOMAIN_PATH);
  if (b === undefined) return cacheFromLayout<V>(layout);
  const domain = decodeDomain(b);
  return layout.map((limit, i) => {
    const d = domain[i];
    if (d === undefined) return emptySubcache<V>(limit);
    const entries = new Map<string, CacheEntry<V>>();
    let size = 0;
    const old = inherited?.[i]?.entries;
    for (const [id, m] of d.keys) {
      const prev = old?.get(id);
      const cell: CacheCell<V> = prev !== undefined && prev.nonce !== undefined && toHex(prev.nonce) === toHex(m.nonce) ? prev.cell : { value: undefined };
      entries.set(id, { size: m.size, birth: m.birth, nonce: m.nonce, cell });
      size += m.size;
    }
    let counter = d.counter;
    for (const e of entries.values()) if (e.birth > counter) counter = e.birth;
    return { limit, entries, size, counter, removed: new Set<string>(), removals: [] };
  });
}

// ---------------------------------------------------------------------------------------------
// The caches this node built

/** Synced caches by the tree hash of the context they were written to, per store (most recent last). */
const built = new WeakMap<object, Map<string, CacheState<unknown>>>();
const BUILT_PER_STORE = 32;

/**
 * Remembers `state` as the caches of `context` (after {@link syncCache}), so that blocks and
 * services on that context (or on the same tree read back from the store) reuse its values
 * (Octez's inherited cache).
 */
export function rememberCache<V>(context: Context, state: CacheState<V>): void {
  let m = built.get(context.store);
  if (m === undefined) built.set(context.store, (m = new Map()));
  const key = toHex(context.treeHash());
  m.delete(key);
  m.set(key, state as CacheState<unknown>);
  if (m.size > BUILT_PER_STORE) m.delete(m.keys().next().value!);
}

/**
 * The caches of `context`: the ones this node built for it if it still has them, otherwise read
 * from the domain ({@link loadCache}), reusing the values of the caches built last when their
 * nonces match (the others are rebuilt when needed).
 */
export function cacheOfContext<V>(context: Context, defaultLayout: readonly number[] = []): CacheState<V> {
  const m = built.get(context.store);
  const key = toHex(context.treeHash());
  const known = m?.get(key);
  if (known !== undefined) return known as CacheState<V>;
  let last: CacheState<unknown> | undefined;
  if (m !== undefined) for (const s of m.values()) last = s;
  const state = loadCache<V>(context, last as CacheState<V> | undefined, defaultLayout);
  rememberCache(context, state);
  return state;
}
