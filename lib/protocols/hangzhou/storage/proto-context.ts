/**
 * `ProtoContext`: the protocol's view of one block being applied (Octez `Raw_context.t`). It
 * holds the current immutable {@link Context} and the little per-block state Octez keeps next to
 * it; storage functions read and replace `context` as they go.
 *
 * Per-block state (everything else lives in the context):
 * - `constants`, `eras`: read from `v1/constants` and `v1/cycle_eras` by {@link ProtoContext.prepare};
 * - `level` (the block's level info), `predecessorTimestamp`, `timestamp` (seconds), `fitness`
 *   (the protocol fitness counter, a bigint);
 * - `fees`, `rewards`: mutez collected by the block so far (frozen for the baker at its end);
 * - `originationNonce`: set while a manager operation (or the migration) may originate contracts;
 * - gas: `remainingBlockGas` and the current operation's `remainingOperationGas`, both in
 *   milligas, `unlimitedOperationGas` outside operations (Octez's default after `prepare`).
 *
 * - scripts: `internalNonce` and `internalNoncesUsed` (Octez never resets them within a block:
 *   they start at 0 at `prepare`), `temporaryBigMapId` (the next temporary big map id, −1 after
 *   `prepare` and after each manager operation's cleanup);
 * - `cache`: the protocol cache (`./cache.ts`; the script cache is its subcache 0), the one this
 *   node built for the context or else read from the context's domain; it follows backtracking.
 *
 * What Octez also keeps there and the block application adds when it needs it (not here):
 * included/allowed endorsements, storage space to pay and allocated contracts counters.
 *
 * Raw accessors mirror Octez's storage semantics: `get` fails on a missing key, `init` on an
 * existing one, `update` and `removeExisting` on a missing one, each with
 * `context.storage_error`; `find`, `add` and `remove` never fail. {@link ProtoContext.atomically}
 * runs a function and puts the context back as it was if the function throws, so a failing
 * protocol operation never leaves half its writes behind.
 *
 * @example
 * ```ts
 * const pc = ProtoContext.prepare(context, { level: 2, predecessorTimestamp: t1, timestamp: t2, fitness: 1n });
 * credit(pc, "tz1…", 1_000_000n);         // from ./contract.ts
 * pc.context;                             // the new immutable context
 * ```
 * @module
 */
import type { WorkBudget } from "../../../errors/budget.ts";
import { decodeBinary, encodeBinary } from "../../../encoding/codec.ts";
import type { Context } from "../../../store/context/mod.ts";
import { failure, type ErrorDefinition } from "../../../errors/mod.ts";
import { FIXED_CONSTANTS, parametricConstants, type ParametricConstants } from "../constants.ts";
import { cycleEras, levelFromRaw, type CycleEras, type Level } from "../level.ts";
import { protoError } from "../proto-error.ts";
import { storageError, undefinedOperationNonce } from "./errors.ts";
import { CONSTANTS_PATH, CYCLE_ERAS_PATH, VERSION_PATH, VERSION_VALUE, type Path } from "./layout.ts";
import { tezAdd } from "./tez.ts";
import { cacheFromLayout, cacheOfContext, type CacheState } from "./cache.ts";

/** Hangzhou's cache layout: one subcache, for scripts, of 100 000 000 bytes (`Constants_repr.cache_layout`). */
export const CACHE_LAYOUT: readonly number[] = FIXED_CONSTANTS.cache_layout.map(Number);

/** The origination nonce: the hash of the operation that originates, and the next index. */
export interface OriginationNonce {
  /** 32-byte operation hash. */
  readonly operationHash: Uint8Array;
  /** Index of the next origination of that operation. */
  readonly index: number;
}

/** What a block's protocol context is made of (see the module documentation). */
export interface ProtoContextInit {
  context: Context;
  constants: ParametricConstants;
  eras: CycleEras;
  level: Level;
  predecessorTimestamp: number;
  timestamp: number;
  fitness: bigint;
  /** The protocol cache; empty caches of {@link CACHE_LAYOUT} when absent. */
  cache?: CacheState<unknown>;
}

/** `gas_exhausted.operation`. */
export const operationQuotaExceeded: ErrorDefinition = protoError({
  id: "gas_exhausted.operation",
  kind: "temporary",
  title: "Gas quota exceeded for the operation",
  description: "A script or one of its callee took more time than the operation said it would",
});

/** `gas_exhausted.block`. */
export const blockQuotaExceeded: ErrorDefinition = protoError({
  id: "gas_exhausted.block",
  kind: "temporary",
  title: "Gas quota exceeded for the block",
  description: "The sum of gas consumed by all the operations in the block exceeds the hard gas limit per block",
});

/** `gas_limit_too_high`. */
export const gasLimitTooHigh: ErrorDefinition = protoError({
  id: "gas_limit_too_high",
  kind: "permanent",
  title: "Gas limit out of protocol hard bounds",
  description: "A transaction tried to exceed the hard limit on gas",
});

const decoder = new TextDecoder();

/** A mutable protocol context over an immutable {@link Context} (Octez `Raw_context.t`). */
export class ProtoContext {
  /** The current state; replaced by every write. */
  context: Context;
  /** The parametric constants (patched by ramp-ups, see {@link ProtoContext.patchConstants}). */
  constants: ParametricConstants;
  /** The cycle eras. */
  readonly eras: CycleEras;
  /** The level of the block being applied (or of the block an RPC reads). */
  level: Level;
  /** The predecessor's timestamp, seconds. */
  predecessorTimestamp: number;
  /** The block's timestamp, seconds. */
  timestamp: number;
  /** The protocol fitness counter. */
  fitness: bigint;
  /** Fees collected by the block so far, mutez. */
  fees = 0n;
  /** Rewards earned by the block's baker so far, mutez. */
  rewards = 0n;
  /** Set while originations are allowed. */
  originationNonce: OriginationNonce | undefined = undefined;
  /** Gas left to the block, milligas. */
  remainingBlockGas: bigint;
  /** Gas left to the current operation, milligas. */
  remainingOperationGas = 0n;
  /** Whether the current code runs without a gas limit (true outside operations). */
  unlimitedOperationGas = true;
  /** The next internal operation nonce (`fresh_internal_nonce`). */
  internalNonce = 0;
  /** Internal nonces already applied (`record_internal_nonce`); shared, copied on write. */
  internalNoncesUsed: ReadonlySet<number> = new Set();
  /** The next temporary big map id (`Lazy_storage_kind.Temp_ids`): −1, −2, … */
  temporaryBigMapId = -1n;
  /** The protocol cache (immutable: every change replaces it). */
  cache: CacheState<unknown>;
  /** An RPC's work budget, checked as gas is consumed (none in blocks: their gas bounds them). */
  budget: WorkBudget | undefined = undefined;

  constructor(init: ProtoContextInit) {
    this.context = init.context;
    this.constants = init.constants;
    this.eras = init.eras;
    this.level = init.level;
    this.predecessorTimestamp = init.predecessorTimestamp;
    this.timestamp = init.timestamp;
    this.fitness = init.fitness;
    this.remainingBlockGas = init.constants.hard_gas_limit_per_block * 1000n;
    this.cache = init.cache ?? cacheFromLayout(CACHE_LAYOUT);
  }

  /**
   * The protocol context of a block at `level` over a Hangzhou context (Octez
   * `Raw_context.prepare`): checks the version, reads the constants and the cycle eras.
   */
  static prepare(
    context: Context,
    block: { level: number; predecessorTimestamp: number; timestamp: number; fitness: bigint },
  ): ProtoContext {
    const version = context.get(VERSION_PATH);
    if (version === undefined) throw failure.error({ msg: "Internal error: un-initialized context." });
    const v = decoder.decode(version);
    if (v !== VERSION_VALUE) throw storageError.error({ incompatible_protocol_version: v });
    const constants = readConstants(context);
    const eras = readCycleEras(context);
    return new ProtoContext({
      context,
      constants,
      eras,
      level: levelFromRaw(eras, block.level),
      predecessorTimestamp: block.predecessorTimestamp,
      timestamp: block.timestamp,
      fitness: block.fitness,
      cache: cacheOfContext(context, CACHE_LAYOUT),
    });
  }

  /** A copy of this state (same immutable context): apply something on it without touching this one. */
  clone(): ProtoContext {
    const c = new ProtoContext({
      context: this.context,
      constants: this.constants,
      eras: this.eras,
      level: this.level,
      predecessorTimestamp: this.predecessorTimestamp,
      timestamp: this.timestamp,
      fitness: this.fitness,
      cache: this.cache,
    });
    c.fees = this.fees;
    c.rewards = this.rewards;
    c.originationNonce = this.originationNonce;
    c.remainingBlockGas = this.remainingBlockGas;
    c.remainingOperationGas = this.remainingOperationGas;
    c.unlimitedOperationGas = this.unlimitedOperationGas;
    c.internalNonce = this.internalNonce;
    c.internalNoncesUsed = this.internalNoncesUsed;
    c.temporaryBigMapId = this.temporaryBigMapId;
    c.budget = this.budget;
    return c;
  }

  /**
   * Runs `fn`; if it throws, every field (context, fees, nonce, gas…) is put back as it was and
   * the error rethrown. Storage operations use it so that none leaves a partial write.
   */
  atomically<T>(fn: () => T): T {
    const saved = this.clone();
    try {
      return fn();
    } catch (e) {
      this.#restore(saved);
      throw e;
    }
  }

  #restore(s: ProtoContext): void {
    this.context = s.context;
    this.constants = s.constants;
    this.level = s.level;
    this.predecessorTimestamp = s.predecessorTimestamp;
    this.timestamp = s.timestamp;
    this.fitness = s.fitness;
    this.fees = s.fees;
    this.rewards = s.rewards;
    this.originationNonce = s.originationNonce;
    this.remainingBlockGas = s.remainingBlockGas;
    this.remainingOperationGas = s.remainingOperationGas;
    this.unlimitedOperationGas = s.unlimitedOperationGas;
    this.internalNonce = s.internalNonce;
    this.internalNoncesUsed = s.internalNoncesUsed;
    this.temporaryBigMapId = s.temporaryBigMapId;
    this.cache = s.cache;
  }

  // -------------------------------------------------------------------------------------------
  // Raw storage accessors

  /** The bytes at `path`, or `undefined`. */
  find(path: Path): Uint8Array | undefined {
    return this.context.get(path);
  }

  /** The bytes at `path`; `context.storage_error` (missing key, get) if absent. */
  get(path: Path): Uint8Array {
    const v = this.context.get(path);
    if (v === undefined) throw storageError.error({ missing_key: [...path], function: "get" });
    return v;
  }

  /** Whether a leaf is at `path`. */
  mem(path: Path): boolean {
    return this.context.kind(path) === "leaf";
  }

  /** Whether anything (leaf or directory) is at `path`. */
  memTree(path: Path): boolean {
    return this.context.has(path);
  }

  /** Sets a new leaf; `context.storage_error` (existing key) if one is there. */
  init(path: Path, value: Uint8Array): void {
    if (this.context.kind(path) === "leaf") throw storageError.error({ existing_key: [...path] });
    this.context = this.context.set(path, value);
  }

  /** Replaces an existing leaf; `context.storage_error` (missing key, set) if absent. */
  update(path: Path, value: Uint8Array): void {
    if (this.context.kind(path) !== "leaf") throw storageError.error({ missing_key: [...path], function: "set" });
    this.context = this.context.set(path, value);
  }

  /** Sets a leaf, whether or not one is there. */
  add(path: Path, value: Uint8Array): void {
    this.context = this.context.set(path, value);
  }

  /** Sets a leaf (`add`) or removes it (`undefined`), as Octez's `add_or_remove`. */
  addOrRemove(path: Path, value: Uint8Array | undefined): void {
    this.context = value === undefined ? this.context.remove(path) : this.context.set(path, value);
  }

  /** Removes what is at `path` (a leaf or a directory), if anything. */
  remove(path: Path): void {
    this.context = this.context.remove(path);
  }

  /** Removes an existing leaf; `context.storage_error` (missing key, del) if absent. */
  removeExisting(path: Path): void {
    if (this.context.kind(path) !== "leaf") throw storageError.error({ missing_key: [...path], function: "del" });
    this.context = this.context.remove(path);
  }

  /** The sorted names under the directory at `path`. */
  listKeys(path: Path): string[] {
    return this.context.listKeys(path);
  }

  // -------------------------------------------------------------------------------------------
  // Per-block state

  /** The constants after `f`, written back to `v1/constants` (Octez `patch_constants`). */
  patchConstants(f: (c: ParametricConstants) => ParametricConstants): void {
    const next = f(this.constants);
    this.context = this.context.set(CONSTANTS_PATH, encodeBinary(parametricConstants, next));
    this.constants = next;
  }

  /** Adds to the block's fees (`add_fees`). */
  addFees(amount: bigint): void {
    this.fees = tezAdd(this.fees, amount);
  }

  /** Adds to the block's rewards (`add_rewards`). */
  addRewards(amount: bigint): void {
    this.rewards = tezAdd(this.rewards, amount);
  }

  /** Starts originations from `operationHash`, index 0 (`init_origination_nonce`). */
  initOriginationNonce(operationHash: Uint8Array): void {
    if (!(operationHash instanceof Uint8Array) || operationHash.length !== 32) {
      throw new RangeError("initOriginationNonce: the operation hash must be 32 bytes");
    }
    this.originationNonce = { operationHash: operationHash.slice(), index: 0 };
  }

  /** The current nonce, then the next index (`increment_origination_nonce`); `undefined_operation_nonce` when unset. */
  incrementOriginationNonce(): OriginationNonce {
    const n = this.originationNonce;
    if (n === undefined) throw undefinedOperationNonce.error();
    this.originationNonce = { operationHash: n.operationHash, index: n.index + 1 };
    return n;
  }

  /** Ends originations (`unset_origination_nonce`). */
  unsetOriginationNonce(): void {
    this.originationNonce = undefined;
  }

  /** Takes `limit` gas units from the block (`consume_gas_limit_in_block`). */
  consumeGasLimitInBlock(limit: bigint): void {
    this.checkGasLimit(limit);
    const milli = limit * 1000n;
    if (milli > this.remainingBlockGas) throw blockQuotaExceeded.error();
    this.remainingBlockGas -= milli;
  }

  /** `gas_limit_too_high` unless 0 ≤ limit ≤ hard_gas_limit_per_operation (gas units). */
  checkGasLimit(limit: bigint): void {
    if (typeof limit !== "bigint") throw new TypeError("gas limit must be a bigint (gas units)");
    if (limit < 0n || limit > this.constants.hard_gas_limit_per_operation) throw gasLimitTooHigh.error();
  }

  /** Starts an operation with `limit` gas units (`set_gas_limit`). */
  setGasLimit(limit: bigint): void {
    this.remainingOperationGas = limit * 1000n;
    this.unlimitedOperationGas = false;
  }

  /** Lifts the operation gas limit (`set_gas_unlimited`). */
  setGasUnlimited(): void {
    this.unlimitedOperationGas = true;
  }

  /** Consumes `milligas` from the operation (`consume_gas`); `gas_exhausted.operation` when short. */
  consumeGas(milligas: bigint): void {
    if (milligas < 0n) throw new RangeError("gas cost must not be negative");
    this.budget?.check();
    if (milligas <= this.remainingOperationGas) this.remainingOperationGas -= milligas;
    else if (!this.unlimitedOperationGas) throw operationQuotaExceeded.error();
  }
}

/** The parametric constants of a Hangzhou context (`v1/constants`). */
export function readConstants(context: Context): ParametricConstants {
  const b = context.get(CONSTANTS_PATH);
  if (b === undefined) throw failure.error({ msg: "Internal error: cannot read constants in context." });
  try {
    return decodeBinary(parametricConstants, b);
  } catch {
    throw storageError.error({ corrupted_data: [...CONSTANTS_PATH] });
  }
}

/** The cycle eras of a Hangzhou context (`v1/cycle_eras`). */
export function readCycleEras(context: Context): CycleEras {
  const b = context.get(CYCLE_ERAS_PATH);
  if (b === undefined) throw storageError.error({ missing_key: [...CYCLE_ERAS_PATH], function: "get" });
  try {
    return decodeBinary(cycleEras, b);
  } catch {
    throw storageError.error({ corrupted_data: [...CYCLE_ERAS_PATH] });
  }
}
