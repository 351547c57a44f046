/**
 * The sandbox's state changes written into a Hangzhou context (docs/sandbox.md, State), with the
 * protocol's own storage functions, so that the context stays what Hangzhou's operations would
 * have left:
 *
 * - a balance moves by `credit` / `spend` (`Contract_storage`): the delegate's staking balance
 *   and rolls follow, a new implicit account is allocated, one emptied is removed (and an account
 *   that delegates elsewhere cannot be emptied: `implicit.empty_implicit_delegated_contract`).
 *   Hangzhou keeps no total supply in its context, so nothing else moves;
 * - a storage or code is typechecked (`parse_script`, then the storage against the storage
 *   type, big map ids allowed and checked), its big maps extracted as after a call
 *   (`extract_lazy_storage_diff`: the contract's maps kept in place, others' copied, literal maps
 *   allocated, dropped ones removed), written as `update_script_storage` does (used space by the
 *   size difference and the lazy storage's), and the paid space raised to the used one (the
 *   sandbox pays: nothing is burnt). The contract leaves the script cache (its domain in the
 *   context), so the next call loads the new script;
 * - a delegate goes through `Delegate_storage.set`, with a delegation's rules;
 * - a counter is written as it is, never lowered;
 * - a big map entry goes through `Lazy_storage_diff.apply` (the map's `total_bytes`; the owning
 *   contract is not known to the context, so its used space does not move).
 *
 * Each change is applied whole or not at all: one that fails (the state moved since it was
 * queued) is skipped with its error, so a block is never refused for a change.
 * @module
 */
import type { Micheline } from "../../encoding/micheline.ts";
import { encodeBinary } from "../../encoding/codec.ts";
import { lazyExpression } from "../../encoding/hangzhou/script.ts";
import { failure } from "../../errors/mod.ts";
import { TezosError } from "../../errors/registry.ts";
import { illTypedData } from "../../michelson/data/errors.ts";
import { parseComparableData, parseData } from "../../michelson/data/parse-data.ts";
import { parseBigMapValueTy, parseComparableTy, unparseTy } from "../../michelson/data/parse-type.ts";
import { unparseData } from "../../michelson/data/unparse-data.ts";
import { bigMapKeyHash, collectLazyStorage, extractLazyStorageDiff } from "../../michelson/lazy-storage.ts";
import { parseScript } from "../../michelson/script/script.ts";
import type { Value } from "../../michelson/value.ts";
import type { Context } from "../../store/context/mod.ts";
import type { SandboxChange } from "../../sandbox/change.ts";
import { counterBelowCurrent, notAnImplicitAccount, notASmartContract, unknownBigMap } from "../../sandbox/state-errors.ts";
import { expandGlobalConstants } from "./apply/content.ts";
import { CONTRACT_CACHE_INDEX, contractIdentifier } from "./michelson/script-cache.ts";
import { makeScriptContext, scriptLevel, scriptNow, type HangzhouScriptContext } from "./michelson/script-context.ts";
import { storedBigMapIds } from "./michelson/stored-lazy-ids.ts";
import { freshBigMapId } from "./storage/big-map.ts";
import { CACHE_DOMAIN_PATH, cacheLookup, cacheUpdate, encodeDomain, loadCache } from "./storage/cache.ts";
import {
  credit,
  findBalance,
  getCounter,
  getScript,
  mustBeAllocated,
  mustExist,
  setPaidStorageSpace,
  spend,
  updateScriptStorage,
  usedStorageSpace,
} from "./storage/contract.ts";
import { setDelegate } from "./storage/delegation.ts";
import { applyLazyStorageDiff, bigMapStoredTypes } from "./storage/lazy-storage-diff.ts";
import { carbonatedPaths, contractPath, decodeInt32, decodeZ, encodeInt32, encodeZ, isImplicit } from "./storage/layout.ts";
import { CACHE_LAYOUT, ProtoContext } from "./storage/proto-context.ts";

/** The block whose context the changes are written into: its level and timestamp (seconds), and the chain (`Net…`). */
export interface ChangedBlock {
  readonly level: number;
  readonly timestamp: number;
  readonly chainId: string;
}

/** The context with the changes written, and per change `undefined` (written) or the error that skipped it. */
export interface WrittenChanges {
  readonly context: Context;
  readonly errors: readonly (TezosError | undefined)[];
}

/** An address no script runs as: the `SELF` of the typechecks of big map entries. */
const NOBODY = "tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU";

/**
 * Writes `changes`, in order, into `context`, the context of `block` (see the module
 * documentation); a change that fails is skipped with its error. Deterministic: the same
 * context and changes give the same result.
 */
export function writeSandboxChanges(context: Context, block: ChangedBlock, changes: readonly SandboxChange[]): WrittenChanges {
  const pc = ProtoContext.prepare(context, { level: block.level, predecessorTimestamp: block.timestamp, timestamp: block.timestamp, fitness: 0n });
  pc.setGasUnlimited();
  const scripts = new Set<string>();
  const errors = changes.map((change) => {
    try {
      pc.atomically(() => writeChange(pc, block.chainId, change, scripts));
      return undefined;
    } catch (e) {
      if (e instanceof TezosError) return e;
      return failure.error({ msg: e instanceof Error ? e.message : String(e) });
    }
  });
  forgetCachedScripts(pc, scripts);
  return { context: pc.context, errors };
}

function writeChange(pc: ProtoContext, chainId: string, change: SandboxChange, scripts: Set<string>): void {
  switch (change.kind) {
    case "balance": {
      mustExist(pc, change.address);
      const before = findBalance(pc, change.address) ?? 0n;
      if (change.balance > before) credit(pc, change.address, change.balance - before);
      else if (change.balance < before) spend(pc, change.address, before - change.balance);
      return;
    }
    case "storage":
      replaceScript(pc, chainId, change.contract, { storage: change.storage });
      scripts.add(change.contract);
      return;
    case "code":
      replaceScript(pc, chainId, change.contract, { code: change.code });
      scripts.add(change.contract);
      return;
    case "delegate":
      mustBeAllocated(pc, change.address);
      setDelegate(pc, change.address, change.delegate ?? undefined);
      return;
    case "counter": {
      if (!isImplicit(change.address)) throw notAnImplicitAccount.error({ contract: change.address });
      mustBeAllocated(pc, change.address);
      const current = getCounter(pc, change.address);
      if (change.counter < current) {
        throw counterBelowCurrent.error({ contract: change.address, current: current.toString(), requested: change.counter.toString() });
      }
      pc.update(contractPath(change.address, "counter"), encodeZ(change.counter));
      return;
    }
    case "big_map_entry":
      writeBigMapEntry(pc, chainId, change.bigMap, change.key, change.value);
      return;
  }
}

function scriptContext(pc: ProtoContext, chainId: string, self: string): HangzhouScriptContext {
  return makeScriptContext(pc, { self, sender: self, source: self, amount: 0n, now: scriptNow(pc), level: scriptLevel(pc), chainId, legacy: true });
}

/**
 * Replaces a contract's code or storage (the other part kept), as a call that ends with the new
 * storage would, plus the code write (see the module documentation).
 */
function replaceScript(pc: ProtoContext, chainId: string, contract: string, next: { code?: Micheline; storage?: Micheline }): void {
  if (isImplicit(contract)) throw notASmartContract.error({ contract });
  mustExist(pc, contract);
  const stored = getScript(pc, contract);
  if (stored === undefined) throw notASmartContract.error({ contract });
  const ctx = scriptContext(pc, chainId, contract);
  const current = parseScript(ctx, expandGlobalConstants(pc, stored.code), { legacy: true });
  const script = next.code === undefined ? current : parseScript(ctx, expandGlobalConstants(pc, next.code), { legacy: false, typecheckViews: true });
  const storage = next.storage ?? stored.storage;
  let value: Value;
  try {
    value = parseData(ctx, script.storageTy, storage, { legacy: true, allowForgedTickets: true, allowForgedLazyStorageId: true });
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(illTypedData.create({ expected_type: unparseTy(script.storageTy), ill_typed_expression: storage }));
    throw e;
  }
  const extracted = extractLazyStorageDiff({ gas: ctx.gas, freshBigMapId: () => freshBigMapId(pc) }, script.storageTy, value, {
    mode: "Optimized",
    temporary: false,
    toDuplicate: collectLazyStorage(script.storageTy, value),
    toUpdate: storedBigMapIds(current.storageTy, stored.storage),
  });
  const optimized = unparseData(script.storageTy, extracted.value, "Optimized");
  const lazySize = applyLazyStorageDiff(pc, extracted.diff);
  if (next.code !== undefined) updateScriptCode(pc, contract, next.code);
  updateScriptStorage(pc, contract, optimized, lazySize);
  setPaidStorageSpace(pc, contract, usedStorageSpace(pc, contract));
}

/** Writes a contract's code (as `Storage.Contract.Code.update`) and moves its used space by the size difference. */
function updateScriptCode(pc: ProtoContext, contract: string, code: Micheline): void {
  const { data, len } = carbonatedPaths(contract, "code");
  const before = decodeInt32(pc.get(len));
  const bytes = encodeBinary(lazyExpression, code);
  pc.update(len, encodeInt32(bytes.length));
  pc.update(data, bytes);
  const used = contractPath(contract, "used_bytes");
  pc.update(used, encodeZ(decodeZ(pc.get(used)) + BigInt(bytes.length - before)));
}

/** Binds (or, `value` null, removes) `key` in big map `id`, both typed against the map's types. */
function writeBigMapEntry(pc: ProtoContext, chainId: string, id: bigint, key: Micheline, value: Micheline | null): void {
  const types = id < 0n ? undefined : bigMapStoredTypes(pc, id);
  if (types === undefined) throw unknownBigMap.error({ big_map: id.toString() });
  const ctx = scriptContext(pc, chainId, NOBODY);
  const keyTy = parseComparableTy(types.keyType, { legacy: true });
  const valueTy = parseBigMapValueTy(types.valueType, { legacy: true });
  let k: Value;
  try {
    k = parseComparableData(ctx, keyTy, key);
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(illTypedData.create({ expected_type: types.keyType, ill_typed_expression: key }));
    throw e;
  }
  const update: { key_hash: string; key: Micheline; value?: Micheline } = { key_hash: bigMapKeyHash(keyTy, k).b58, key: unparseData(keyTy, k, "Optimized") };
  if (value !== null) {
    let v: Value;
    try {
      v = parseData(ctx, valueTy, value, { legacy: true, allowForgedTickets: true });
    } catch (e) {
      if (e instanceof TezosError) throw e.withContext(illTypedData.create({ expected_type: types.valueType, ill_typed_expression: value }));
      throw e;
    }
    update.value = unparseData(valueTy, v, "Optimized");
  }
  applyLazyStorageDiff(pc, [{ kind: "big_map", id, diff: { action: "update", updates: [update] } }]);
}

/**
 * Drops `contracts` from the script cache's domain in the context: the next call loads and
 * typechecks the new script (a miss), and no node keeps the old one under the same entry.
 */
function forgetCachedScripts(pc: ProtoContext, contracts: ReadonlySet<string>): void {
  if (contracts.size === 0) return;
  const before = loadCache<unknown>(pc.context, undefined, CACHE_LAYOUT);
  let state = before;
  for (const c of contracts) {
    const id = contractIdentifier(c);
    if (cacheLookup(state, CONTRACT_CACHE_INDEX, id) !== undefined) state = cacheUpdate(state, CONTRACT_CACHE_INDEX, id, undefined);
  }
  if (state !== before) pc.context = pc.context.set(CACHE_DOMAIN_PATH, encodeDomain(state));
}
