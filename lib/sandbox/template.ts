/**
 * Chain templates: a chain per test in milliseconds. The first memory-store sandbox a process
 * starts with some parameters activates the protocol and bakes up to level 3 as usual (about a
 * second); `createNode` then keeps a copy of its store as the template of those parameters, and
 * the next node with the same parameters starts from a copy-on-write clone of it
 * (`MemoryStore.clone`): the same genesis, activation and first blocks, with their hashes and
 * the first node's timestamps. The next block a node bakes is timed by its own clock.
 *
 * What makes the first blocks is the template's key ({@link chainTemplateKey}): the genesis, the
 * protocol parameters, the baker's keys and mode, the history mode (written in the store). A
 * node whose chain could differ otherwise gets no template and starts as before: one with its own
 * clock (`now`, a fake clock must stay exact), a P2P pool, `activate: false`, a store that is not
 * an empty `MemoryStore` (LMDB, IndexedDB, a memory store already written), or an option this
 * module does not know (a new option may change the chain: it is not cached until listed here).
 *
 * A clone shares no mutable state with the template or with another clone: the store is
 * copy-on-write, and Hangzhou's script cache of the head (the typechecked liquidity baking
 * contract, which the mempool's first block would typecheck again) is given to each node as
 * its own state over the same immutable typechecked scripts, as blocks of one node share them.
 *
 * @example
 * ```ts
 * const first = await createNode();  // activates and bakes: the template of the defaults
 * const next = await createNode();   // a clone of it, ready in a few milliseconds
 * ```
 * @module
 */
import { B58, b58decode } from "../encoding/base58.ts";
import type { Chain } from "../shell/chain.ts";
import { checkout } from "../store/context/mod.ts";
import { MemoryStore } from "../store/memory.ts";
import type { KeyValueStore } from "../store/kv.ts";
import { cacheOfContext, type CacheState, rememberCache } from "../protocols/hangzhou/storage/cache.ts";
import { CACHE_LAYOUT } from "../protocols/hangzhou/storage/proto-context.ts";
import { AUTO_START_LEVEL } from "../baker/baker.ts";

/** The most templates a process keeps (one per parameter set; the oldest goes first). */
export const MAX_CHAIN_TEMPLATES = 8;

/** A sandbox chain as its first node left it at start, to begin the next ones from. */
export interface ChainTemplate {
  /** The store's content after activation and top-up; never written nor closed. */
  readonly store: MemoryStore;
  /** The head's level and hash (`AUTO_START_LEVEL`). */
  readonly head: { readonly level: number; readonly hash: string; readonly context: string };
  /** Hangzhou's caches of the head's context, values filled. */
  readonly cache: CacheState<unknown>;
}

/** The options of `createNode` that make the first blocks: each is part of the key. */
const CHAIN_OPTIONS = ["genesis", "protocolParameters", "bakerKeys", "bake", "historyMode", "activate"] as const;

/** The options that change nothing in the first blocks (how the node serves, logs, prunes, syncs). */
const RUNTIME_OPTIONS = new Set([
  "store",
  "cors",
  "readResource",
  "commit",
  "stats",
  "maxRequestBody",
  "rpcWorkBudget",
  "config",
  "log",
  "onFatal",
  "collectContexts",
  "onPruneStep",
  "synchronisationThreshold",
  "syncLatency",
  "forceHistoryModeSwitch",
]);

/**
 * The template key of `createNode`'s options, or `undefined` when the node must not start from
 * a template (see the module documentation). `bakers` are the baker's key hashes, as selected.
 */
export function chainTemplateKey(options: Readonly<Record<string, unknown>>, bakers: readonly string[]): string | undefined {
  const store = options["store"];
  if (store !== undefined && !(store instanceof MemoryStore && store.size === 0)) return undefined;
  if (options["activate"] === false) return undefined;
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined || RUNTIME_OPTIONS.has(name) || name === "bakerKeys") continue;
    if (!(CHAIN_OPTIONS as readonly string[]).includes(name)) return undefined; // now, p2p, anything new
  }
  try {
    const parts: Record<string, unknown> = { bakers };
    for (const name of CHAIN_OPTIONS) if (name !== "bakerKeys" && name !== "activate") parts[name] = options[name] ?? null;
    return JSON.stringify(parts);
  } catch {
    return undefined; // not JSON (a bigint in the parameters): no template
  }
}

const templates = new Map<string, ChainTemplate>();

/** The template kept for `key`, if any. */
export function findChainTemplate(key: string): ChainTemplate | undefined {
  return templates.get(key);
}

/**
 * Keeps `store`'s content as the template of `key`, when the chain is as a fresh sandbox leaves
 * it at start (head at level 3) and none is kept yet; `chain` is the node's chain over it.
 * Answers whether it was kept.
 */
export function keepChainTemplate(key: string, store: MemoryStore, chain: Chain): boolean {
  const head = chain.head;
  if (templates.has(key) || head.header.level !== AUTO_START_LEVEL) return false;
  const context = checkout(chain.store.kv, b58decode(B58.contextHash, head.header.context));
  if (context === undefined) return false;
  const cache = cacheOfContext<unknown>(context, CACHE_LAYOUT);
  if (templates.size >= MAX_CHAIN_TEMPLATES) templates.delete(templates.keys().next().value!);
  templates.set(key, { store: store.clone(), head: { level: head.header.level, hash: head.hash, context: head.header.context }, cache });
  return true;
}

/** Fills the empty `store` with the template's content (copy-on-write). */
export function startFromTemplate(template: ChainTemplate, store: MemoryStore): void {
  store.copyFrom(template.store);
}

/**
 * Gives the node over `kv` (its chain opened on a store started from `template`) Hangzhou's
 * caches of the head, as its own state: the mempool and the next block do not typecheck again
 * what the template's node did.
 */
export function warmFromTemplate(template: ChainTemplate, kv: KeyValueStore): void {
  const context = checkout(kv, b58decode(B58.contextHash, template.head.context));
  if (context !== undefined) rememberCache(context, ownCopy(template.cache));
}

/** The caches with their own maps, sets and cells (the values, immutable, are shared). */
function ownCopy(state: CacheState<unknown>): CacheState<unknown> {
  return state.map((s) => ({
    ...s,
    entries: new Map([...s.entries].map(([id, e]) => [id, { ...e, cell: { value: e.cell.value } }])),
    removed: new Set(s.removed),
    removals: [...s.removals],
  }));
}

/** Forgets every template (tests; a process that wants its memory back). */
export function clearChainTemplates(): void {
  templates.clear();
}
