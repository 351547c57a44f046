/**
 * Hangzhou's script cache (Octez `script_cache.ml` over the protocol cache of `storage/cache.ts`):
 * the typechecked scripts of recently called contracts, with their storage, in subcache 0 under
 * the identifiers `contract@KT1…`.
 *
 * Gas, as Octez charges it (milligas):
 * - {@link findScript} on a hit: nothing (Octez's `Cache.find` computes its cost, checks it can be
 *   paid and drops the context that paid it); the cached typed script and storage are used;
 * - on a miss (`load_and_elaborate`): the script's reads (`Contract.get_script`, which also
 *   charges the decoding of code and storage, 20 per byte, without decoding them), deserialising
 *   the code again (`parse_code`'s `force_decode_in_context`), expanding its global constants, typechecking it (with the typed IR
 *   size model), deserialising and typechecking the storage, the storage's size model
 *   (`script_size`: 45 per node), then `cache_update` as the contract enters the cache;
 * - {@link updateScript}, after a successful call: `cache_update`.
 * `cache_update` is 600 + 57 × (1 + numbits(cache size in bytes / 688)) (`Cache_costs`).
 *
 * Values live in memory: the entry of a contract holds its {@link CachedContract}. After a restart
 * (or on a context whose cache this node did not build) the entries come back from the domain in
 * the context and a value is rebuilt from the context, without gas, the first time it is needed
 * (Octez's `Lazy` loading).
 * @module
 */
import type { Micheline } from "../../../encoding/micheline.ts";
import { TypeLog } from "../../../michelson/gas/ir-size.ts";
import type { ScriptContext } from "../../../michelson/context.ts";
import type { Value } from "../../../michelson/value.ts";
import { parseData } from "../../../michelson/data/parse-data.ts";
import { parseScript, type ParsedScript, storageSizeCost } from "../../../michelson/script/script.ts";
import { failure } from "../../../errors/mod.ts";
import { readAccessCost } from "../apply/gas.ts";
import { expandGlobalConstants } from "../apply/content.ts";
import { getScript } from "../storage/contract.ts";
import { carbonatedPaths, decodeInt32 } from "../storage/layout.ts";
import { operationQuotaExceeded, type ProtoContext } from "../storage/proto-context.ts";
import { cacheKeyRank, cacheKeys, cacheLookup, cacheSize, cacheSizeLimit, cacheUpdate, type CacheState } from "../storage/cache.ts";
import { makeScriptContext, scriptLevel, scriptNow } from "./script-context.ts";
import { estimatedCodeSize, storageSizeOfCost } from "./script-size.ts";

/** The subcache of contracts (`Script_cache.Client.cache_index`). */
export const CONTRACT_CACHE_INDEX = 0;
/** The namespace of contract identifiers in the cache (`Script_cache.Client.namespace`). */
const NAMESPACE = "contract@";

/** A contract as the cache holds it: its script as stored and typechecked, and its storage value. */
export interface CachedContract {
  /** The code as stored (Micheline, global constants not expanded). */
  readonly code: Micheline;
  /** The storage as stored. */
  readonly storage: Micheline;
  /** The typechecked script (global constants expanded). */
  readonly script: ParsedScript;
  /** The storage value (big maps by id, without pending changes). */
  readonly storageValue: Value;
  /** Size of the typed code in the cache's accounting, bytes. */
  readonly codeSize: number;
}

/** The cache identifier of a contract. */
export function contractIdentifier(contract: string): string {
  return NAMESPACE + contract;
}

function stateOf(pc: ProtoContext): CacheState<CachedContract> {
  return pc.cache as CacheState<CachedContract>;
}

function numbits(x: number): number {
  return x <= 0 ? 0 : Math.floor(Math.log2(x)) + 1;
}

/** `Cache_costs.cache_update` for a cache of `sizeInBytes`, milligas. */
export function cacheUpdateCost(sizeInBytes: number): bigint {
  const approxCardinal = Math.floor(sizeInBytes / 688);
  return BigInt(600 + 57 * (1 + numbits(approxCardinal)));
}

/** The size of the contracts cache, bytes (`Script_cache.size`). */
export function scriptCacheSize(pc: ProtoContext): number {
  return cacheSize(stateOf(pc), CONTRACT_CACHE_INDEX);
}

/** The size limit of the contracts cache, bytes (`Script_cache.size_limit`). */
export function scriptCacheSizeLimit(pc: ProtoContext): number {
  return cacheSizeLimit(stateOf(pc), CONTRACT_CACHE_INDEX);
}

/** The cached contracts with their sizes, oldest first (`Script_cache.entries`). */
export function scriptCacheEntries(pc: ProtoContext): [string, number][] {
  const out: [string, number][] = [];
  for (const [id, size] of cacheKeys(stateOf(pc), CONTRACT_CACHE_INDEX)) {
    if (id.startsWith(NAMESPACE)) out.push([id.slice(NAMESPACE.length), size]);
  }
  return out;
}

/** How many cached contracts are older than `contract`, or `undefined` when it is not cached (`Script_cache.contract_rank`). */
export function scriptCacheRank(pc: ProtoContext, contract: string): number | undefined {
  return cacheKeyRank(stateOf(pc), CONTRACT_CACHE_INDEX, contractIdentifier(contract));
}

/**
 * `load_and_elaborate`: reads the script (charged as `Contract.get_script`), typechecks code and
 * storage (`parse_script ~legacy:true ~allow_forged_in_storage:true`) and charges the storage's
 * size model; `undefined` for an account without script.
 */
function loadAndElaborate(pc: ProtoContext, ctx: ScriptContext, contract: string): { cached: CachedContract; size: number } | undefined {
  const bytes = { code: 0, storage: 0 };
  for (const name of ["code", "storage"] as const) {
    const { data, len } = carbonatedPaths(contract, name);
    pc.consumeGas(readAccessCost(2, 0));
    if (pc.find(data) === undefined) continue;
    const l = decodeInt32(pc.get(len));
    pc.consumeGas(readAccessCost(2, l));
    bytes[name] = l - 4;
    // Make_carbonated_map_expr.find: the lazy expression's decoding cost (it stays undecoded)
    pc.consumeGas(20n * BigInt(l - 4));
  }
  const stored = getScript(pc, contract);
  if (stored === undefined) return undefined;
  // parse_code: the code deserialised, its global constants expanded, then checked
  pc.consumeGas(20n * BigInt(bytes.code));
  const log = new TypeLog();
  const script = parseScript(ctx, expandGlobalConstants(pc, stored.code), { legacy: true, typeLogger: log.logger });
  // parse_storage
  pc.consumeGas(20n * BigInt(bytes.storage));
  const storageValue = parseData(ctx, script.storageTy, stored.storage, { legacy: true, allowForgedTickets: true, allowForgedLazyStorageId: true });
  // script_size, charged after the fact
  const sizeCost = storageSizeCost(ctx, script.storageTy, storageValue);
  ctx.gas.consume(sizeCost);
  const codeSize = estimatedCodeSize(ctx, script, log);
  const cached: CachedContract = { code: stored.code, storage: stored.storage, script, storageValue, codeSize };
  return { cached, size: codeSize + storageSizeOfCost(sizeCost) };
}

/** A cached value rebuilt from the context, without gas (`value_of_key`: a node's maintenance, not the operation's). */
function rebuild(pc: ProtoContext, contract: string): CachedContract {
  const scratch = pc.clone();
  scratch.setGasUnlimited();
  const ctx = makeScriptContext(scratch, {
    self: contract,
    sender: contract,
    source: contract,
    amount: 0n,
    now: scriptNow(scratch),
    level: scriptLevel(scratch),
    chainId: "NetXdQprcVkpaWU",
    legacy: true,
  });
  const r = loadAndElaborate(scratch, ctx, contract);
  if (r === undefined) throw failure.error({ msg: "Script_cache: Inconsistent script cache." });
  return r.cached;
}

/** Fails with `gas_exhausted.operation` unless `cost` could be paid (Octez pays it on a context it drops). */
function checkEnoughGas(pc: ProtoContext, cost: bigint): void {
  if (!pc.unlimitedOperationGas && cost > pc.remainingOperationGas) throw operationQuotaExceeded.error();
}

/**
 * `Script_cache.find`: the cached contract, or on a miss its script loaded and typechecked with
 * gas and put in the cache; `undefined` when `contract` has no script (an implicit account).
 * `ctx` is the script context of the coming run (its gas is the operation's).
 */
export function findScript(pc: ProtoContext, ctx: ScriptContext, contract: string): CachedContract | undefined {
  const id = contractIdentifier(contract);
  checkEnoughGas(pc, cacheUpdateCost(scriptCacheSize(pc)));
  const entry = cacheLookup(stateOf(pc), CONTRACT_CACHE_INDEX, id);
  if (entry !== undefined) {
    if (entry.cell.value === undefined) entry.cell.value = rebuild(pc, contract);
    return entry.cell.value;
  }
  const loaded = loadAndElaborate(pc, ctx, contract);
  if (loaded === undefined) return undefined;
  pc.consumeGas(cacheUpdateCost(scriptCacheSize(pc)));
  pc.cache = cacheUpdate(stateOf(pc), CONTRACT_CACHE_INDEX, id, { value: loaded.cached, size: loaded.size });
  return loaded.cached;
}

/** `Script_cache.update` after a successful call: the contract's new storage (and size) in the cache, with gas. */
export function updateScript(pc: ProtoContext, contract: string, cached: CachedContract, size: number): void {
  pc.consumeGas(cacheUpdateCost(scriptCacheSize(pc)));
  pc.cache = cacheUpdate(stateOf(pc), CONTRACT_CACHE_INDEX, contractIdentifier(contract), { value: cached, size });
}
