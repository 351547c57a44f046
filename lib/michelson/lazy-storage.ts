/**
 * Lazy storage of Michelson values (Octez `Script_ir_translator`: `collect_lazy_storage`,
 * `extract_lazy_storage_diff`): finds the big maps a value holds, and turns the big maps of a
 * value built by a run (fresh maps, maps with pending changes, maps shared with the parameter)
 * into maps known by id only, with the lazy storage diff that makes the context agree.
 *
 * Octez's order is kept, since receipts show it:
 * - a value is walked left of a pair before its right, a list from its first element, a map
 *   from its **greatest** key down, an `or` or `option` into its content;
 * - each big map met prepends its diff item, so the last met comes first;
 * - a map's updates are listed by **decreasing** key hash (script expression hash of the packed
 *   key); the legacy `big_map_diff` reverses them;
 * - ids that the storage had before and that are gone afterwards get `remove` items (greatest id
 *   first) in front of the rest, unless the extraction is temporary.
 *
 * The first occurrence of an id that is not to be duplicated keeps its id (`update`); an id to
 * duplicate (from the parameter, or met a second time) gets a fresh id and a `copy` from the
 * old one; a map without id gets a fresh one and an `alloc` with its types. Sapling states are
 * not supported by the value table and are left untouched.
 * @module
 */
import { michelineNodes } from "./gas/size.ts";
import type { Micheline } from "../encoding/micheline.ts";
import { blake2b256 } from "../crypto/blake2b.ts";
import { B58, b58encode } from "../encoding/base58.ts";
import type { BigMapUpdate, LazyStorageDiffItem } from "../encoding/hangzhou/receipts/lazy-storage-diff.ts";
import type { GasMeter } from "./context.ts";
import type { Ty } from "./ty.ts";
import { type BigMap, MList, type MMap, type OrValue, type Some, type Value } from "./value.ts";
import { unparseTy, type UnparsingMode } from "./data/parse-type.ts";
import { unparseData } from "./data/unparse-data.ts";
import { packData } from "./data/pack.ts";

/** Milligas of one step of the walk (`Typecheck_costs.parse_instr_cycle`). */
export const PARSE_INSTR_CYCLE = 220;
/** Milligas per node of `Script.strip_locations_cost`. */
export const STRIP_LOCATIONS_PER_NODE = 51;

/** What an extraction needs from the chain: gas and fresh big map ids. */
export interface LazyStorageEnv {
  readonly gas: GasMeter;
  /** A fresh big map id: temporary (negative) or taken from the context's counter (`Big_map.fresh`). */
  freshBigMapId(temporary: boolean): bigint;
}

/** Whether values of type `t` may hold a big map (`has_lazy_storage`). */
export function hasLazyStorage(t: Ty): boolean {
  switch (t.prim) {
    case "big_map":
      return true;
    case "pair":
    case "or":
      return hasLazyStorage(t.args[0]!) || hasLazyStorage(t.args[1]!);
    case "option":
    case "list":
      return hasLazyStorage(t.args[0]!);
    case "map":
      return hasLazyStorage(t.args[1]!);
    default:
      return false;
  }
}

function isSome(v: Value): v is Some {
  return v !== null && typeof v === "object" && "some" in v;
}

/** Octez's map iteration for the walk: bindings from the greatest key down. */
function bindingsDescending(m: MMap): (readonly [Value, Value])[] {
  return [...m.entries()].reverse();
}

/**
 * The ids of the big maps held by `v` of type `t` (`collect_lazy_storage`), charging one walk
 * step per node visited when `gas` is given.
 */
export function collectLazyStorage(t: Ty, v: Value, gas?: GasMeter): Set<bigint> {
  const ids = new Set<bigint>();
  const walk = (t: Ty, v: Value): void => {
    gas?.consume(PARSE_INSTR_CYCLE);
    if (t.prim === "big_map") {
      const id = (v as BigMap).id;
      if (id !== undefined) {
        gas?.consume(PARSE_INSTR_CYCLE);
        ids.add(id);
      }
      return;
    }
    if (!hasLazyStorage(t)) return;
    switch (t.prim) {
      case "pair": {
        const [l, r] = v as readonly [Value, Value];
        walk(t.args[0]!, l);
        walk(t.args[1]!, r);
        return;
      }
      case "or": {
        const o = v as OrValue;
        walk(t.args[o.or === "Left" ? 0 : 1]!, o.value);
        return;
      }
      case "option":
        if (isSome(v)) walk(t.args[0]!, v.some);
        return;
      case "list":
        for (const x of (v as MList).toArray()) walk(t.args[0]!, x);
        return;
      case "map":
        // Script_map.fold: increasing keys
        for (const [, x] of (v as MMap).entries()) walk(t.args[1]!, x);
        return;
    }
  };
  walk(t, v);
  return ids;
}

/** The script expression hash (`expr…`) and raw hash of a big map key. */
export function bigMapKeyHash(keyTy: Ty, key: Value): { hash: Uint8Array; b58: string } {
  const hash = blake2b256(packData(keyTy, key));
  return { hash, b58: b58encode(B58.scriptExprHash, hash) };
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Options of {@link extractLazyStorageDiff}. */
export interface ExtractOptions {
  /** Unparsing mode of keys and values in the diff (`Optimized` in operations). */
  readonly mode: UnparsingMode;
  /** Temporary maps (negative ids) for values that only travel (parameters of internal operations). */
  readonly temporary: boolean;
  /** Ids the value may share with someone else (those of the parameter): copied on first sight. */
  readonly toDuplicate: ReadonlySet<bigint>;
  /** Ids the storage had before the run: reused in place, removed if gone. */
  readonly toUpdate: ReadonlySet<bigint>;
}

/** The value with its big maps as ids only, and the diff to apply (`undefined` when empty). */
export interface Extracted {
  readonly value: Value;
  readonly diff: LazyStorageDiffItem[] | undefined;
}

/** The updates of a big map's pending changes, by decreasing key hash, with their gas. */
function bigMapUpdates(env: LazyStorageEnv, mode: UnparsingMode, m: BigMap): BigMapUpdate[] {
  const items = [...m.diff.entries()].map(([k, v]) => ({ k, v, ...bigMapKeyHash(m.keyTy, k) }));
  items.sort((a, b) => compareBytes(a.hash, b.hash));
  const updates: BigMapUpdate[] = [];
  for (const it of items) {
    env.gas.consume(PARSE_INSTR_CYCLE);
    const key = unparseData(m.keyTy, it.k, mode, { gas: env.gas });
    env.gas.consume(STRIP_LOCATIONS_PER_NODE * michelineNodes(key));
    const u: BigMapUpdate = { key_hash: it.b58, key };
    if (it.v !== null) {
      const value = unparseData(m.valueTy, (it.v as Some).some, mode, { gas: env.gas });
      env.gas.consume(STRIP_LOCATIONS_PER_NODE * michelineNodes(value));
      u.value = value;
    }
    updates.unshift(u);
  }
  return updates;
}

/**
 * `extract_lazy_storage_diff`: the value of type `t` with every big map replaced by an id-only
 * map (no pending changes), and the lazy storage diff items in Octez's order (see the module
 * documentation). Fresh ids come from `env`.
 */
export function extractLazyStorageDiff(env: LazyStorageEnv, t: Ty, v: Value, opts: ExtractOptions): Extracted {
  const { mode, temporary } = opts;
  const idsToCopy = new Set<bigint>([...opts.toDuplicate].filter((id) => !opts.toUpdate.has(id)));
  let acc: LazyStorageDiffItem[] = [];

  const walk = (t: Ty, v: Value): Value => {
    env.gas.consume(PARSE_INSTR_CYCLE);
    if (!hasLazyStorage(t)) return v;
    switch (t.prim) {
      case "big_map": {
        const m = v as BigMap;
        let id: bigint;
        let item: LazyStorageDiffItem;
        if (m.id !== undefined && idsToCopy.has(m.id)) {
          id = env.freshBigMapId(temporary);
          item = { kind: "big_map", id, diff: { action: "copy", source: m.id, updates: [] } };
        } else if (m.id !== undefined) {
          id = m.id;
          item = { kind: "big_map", id, diff: { action: "update", updates: [] } };
        } else {
          id = env.freshBigMapId(temporary);
          const keyType = unparseTy(t.args[0]!, "Readable", env.gas);
          env.gas.consume(STRIP_LOCATIONS_PER_NODE * michelineNodes(keyType));
          const valueType = unparseTy(t.args[1]!, "Readable", env.gas);
          env.gas.consume(STRIP_LOCATIONS_PER_NODE * michelineNodes(valueType));
          item = { kind: "big_map", id, diff: { action: "alloc", updates: [], key_type: keyType, value_type: valueType } };
        }
        const updates = bigMapUpdates(env, mode, m);
        (item.diff as { updates: BigMapUpdate[] }).updates = updates;
        acc = [item, ...acc];
        idsToCopy.add(id);
        return { bigMap: true, id, diff: emptyDiff(m.diff), keyTy: m.keyTy, valueTy: m.valueTy } satisfies BigMap;
      }
      case "pair": {
        const [l, r] = v as readonly [Value, Value];
        const l2 = walk(t.args[0]!, l);
        const r2 = walk(t.args[1]!, r);
        return [l2, r2] as const;
      }
      case "or": {
        const o = v as OrValue;
        return { or: o.or, value: walk(t.args[o.or === "Left" ? 0 : 1]!, o.value) } satisfies OrValue;
      }
      case "option":
        return isSome(v) ? ({ some: walk(t.args[0]!, v.some) } satisfies Some) : v;
      case "list":
        return MList.of((v as MList).toArray().map((x) => walk(t.args[0]!, x)));
      case "map": {
        let m = v as MMap;
        for (const [k, x] of bindingsDescending(m)) m = m.set(k, walk(t.args[1]!, x));
        return m;
      }
      default:
        return v;
    }
  };

  const value = walk(t, v);
  if (!temporary) {
    const alive = new Set(acc.map((i) => i.id));
    // idsToCopy holds every id met (alive); dead = toUpdate \ alive
    for (const id of idsToCopy) alive.add(id);
    const dead = [...opts.toUpdate].filter((id) => !alive.has(id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const id of dead) acc = [{ kind: "big_map", id, diff: { action: "remove" } }, ...acc];
  }
  return { value, diff: acc.length === 0 ? undefined : acc };
}

/** An empty map of the same key type (the pending changes of a map once written). */
function emptyDiff(m: MMap): MMap {
  let out = m;
  for (const [k] of m.entries()) out = out.delete(k);
  return out;
}
