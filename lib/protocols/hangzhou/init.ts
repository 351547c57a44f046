/**
 * Hangzhou's initialisation from the genesis activation (Octez `Raw_context.prepare_first_block`
 * and `Init_storage.prepare_first_block`, the `Genesis` case), run on the activation block's
 * context right after the genesis protocol's command.
 *
 * In order: the context `version` must be `genesis` (it becomes `hangzhou_011`); the parameters
 * under `protocol_parameters` are decoded (binary JSON, then {@link parseProtocolParameters}) and
 * removed; one cycle era starting at the activation block's level and the constants are stored;
 * then commitments, rolls (`rolls/next` = 0), seeds of cycles 0 … p + 1, contract tables (global
 * counter 0, big map and sapling ids 0), bootstrap accounts (credited; revealed and self-delegated
 * when given by key, in list order) and bootstrap contracts (origination nonce
 * H("Un festival de GADT."), storage prepaid, delegate linked), ramp-up options, the first
 * cycles' roll snapshots, voting period 0 and the participation EMA, `block_priority` 0, the
 * voting listings, and liquidity baking (EMA 0, CPMM, LQT and test token).
 *
 * Differences from Octez, on purpose:
 * - Bootstrap contracts are stored as given (code and storage as in the parameters file); Octez
 *   typechecks them and stores the storage in optimized form with its big maps allocated. That
 *   waits for the Michelson typechecker (`michelson/`). The liquidity baking storages *are*
 *   normalised (see `storage/liquidity-baking.ts`).
 * - The consensus cache layout (`Context.Cache`) is not part of our context.
 * - The liquidity baking origination results are returned to the caller and also kept under
 *   `pending_migration_operation_results` (as Octez does) in our own binary form, for
 *   {@link takePendingMigrationResults} at the first Hangzhou block.
 *
 * @example
 * ```ts
 * const ctx1 = … // the activation block's context after the genesis command (version "genesis")
 * const { context, implicitOperationsResults } = initHangzhou(ctx1, { level: 1, timestamp: t1 });
 * ```
 * @module
 */
import { bsonJson } from "../../encoding/bson.ts";
import { decodeBinary, encodeBinary, type Json } from "../../encoding/codec.ts";
import { list } from "../../encoding/list.ts";
import { obj, req } from "../../encoding/object.ts";
import { tup } from "../../encoding/tuple.ts";
import { mutez, successfulManagerOperationResult, type SuccessfulManagerOperationResult } from "../../encoding/hangzhou/mod.ts";
import { blake2b256 } from "../../crypto/blake2b.ts";
import { parsePublicKey } from "../../crypto/keys.ts";
import { failure, TezosError } from "../../errors/mod.ts";
import type { Context } from "../../store/context/mod.ts";
import { parametricConstants, parseProtocolParameters, type BootstrapAccount, type BootstrapContract, type ProtocolParameters } from "./constants.ts";
import { cycleEras, initialCycleEras, levelFromRaw } from "./level.ts";
import { initCommitments } from "./storage/commitment.ts";
import { setCacheLayout } from "./storage/cache.ts";
import { credit, freshContractFromCurrentNonce, initContracts, rawOriginate, revealManagerKey } from "./storage/contract.ts";
import { setDelegate } from "./storage/delegation.ts";
import { failedToParseParameter, storageError } from "./storage/errors.ts";
import {
  BLOCK_PRIORITY_PATH,
  CONSTANTS_PATH,
  CYCLE_ERAS_PATH,
  encodeUint16,
  PROTOCOL_PARAMETERS_PATH,
  rampUpDepositsPath,
  rampUpRewardsPath,
  VERSION_PATH,
  VERSION_VALUE,
} from "./storage/layout.ts";
import { initLiquidityBaking } from "./storage/liquidity-baking.ts";
import { CACHE_LAYOUT, ProtoContext } from "./storage/proto-context.ts";
import { initFirstCycles, initRolls } from "./storage/roll.ts";
import { initSeeds } from "./storage/seed.ts";
import { initVotes, updateListings } from "./storage/vote.ts";

/** The origination nonce of bootstrap contracts: H("Un festival de GADT."). */
export const BOOTSTRAP_CONTRACTS_NONCE: Uint8Array = blake2b256(new TextEncoder().encode("Un festival de GADT."));

/** `pending_migration_operation_results`: origination results the first block's receipt shows. */
export const PENDING_MIGRATION_RESULTS_PATH: readonly string[] = ["pending_migration_operation_results"];

const pendingResults = list(successfulManagerOperationResult);
const rampUpRewards = obj(req("baking_reward_per_endorsement", list(mutez)), req("endorsement_reward", list(mutez)));
const rampUpDeposits = tup(mutez, mutez);
const decoder = new TextDecoder();

/** The activation block, as the initialisation sees it. */
export interface ActivationBlock {
  /** Its level (1 on a chain started from genesis): the first level of the only cycle era. */
  level: number;
  /** Its timestamp, seconds (also the "predecessor timestamp" of this first preparation). */
  timestamp: number;
  /** Its protocol fitness counter (0 for the genesis-style fitness of the activation). */
  fitness?: bigint;
}

/** What {@link initHangzhou} gives back. */
export interface HangzhouInit {
  /** The initialised context (to be committed as the activation block's context). */
  context: Context;
  /** The protocol parameters read from the context. */
  parameters: ProtocolParameters;
  /** The protocol context left by the initialisation (level = the activation block's). */
  protoContext: ProtoContext;
  /** Origination results of the liquidity baking contracts, for the first Hangzhou block's `implicit_operations_results`. */
  implicitOperationsResults: SuccessfulManagerOperationResult[];
}

function readParameters(context: Context): { parameters: ProtocolParameters; context: Context } {
  const bytes = context.get(PROTOCOL_PARAMETERS_PATH);
  if (bytes === undefined) throw failure.error({ msg: "Missing protocol parameters." });
  let json: Json;
  try {
    json = decodeBinary(bsonJson(), bytes);
  } catch (e) {
    throw new TezosError(failedToParseParameter.create({ contents: bytes }), { cause: e });
  }
  const rest = context.remove(PROTOCOL_PARAMETERS_PATH);
  let parameters: ProtocolParameters;
  try {
    parameters = parseProtocolParameters(json);
  } catch (e) {
    if (e instanceof TezosError) throw e;
    throw new TezosError(failure.create({ msg: `Invalid protocol_parameters: ${e instanceof Error ? e.message : String(e)} ${JSON.stringify(json)}` }), { cause: e });
  }
  return { parameters, context: rest };
}

/**
 * `Raw_context.prepare_first_block` for a genesis predecessor: checks and bumps the version,
 * takes the parameters out of the context, stores the cycle era and the constants, and prepares
 * the protocol context at the activation block.
 */
export function prepareFirstBlock(context: Context, block: ActivationBlock): { pc: ProtoContext; parameters: ProtocolParameters } {
  const v = context.get(VERSION_PATH);
  if (v === undefined) throw failure.error({ msg: "Internal error: un-initialized context in check_first_block." });
  const version = decoder.decode(v);
  if (version === VERSION_VALUE) throw failure.error({ msg: "Internal error: previously initialized context." });
  if (version !== "genesis") throw storageError.error({ incompatible_protocol_version: version });
  const { parameters, context: withoutParams } = readParameters(context);
  let ctx = withoutParams.set(VERSION_PATH, new TextEncoder().encode(VERSION_VALUE));
  const eras = initialCycleEras(block.level, parameters.constants);
  ctx = ctx.set(CYCLE_ERAS_PATH, encodeBinary(cycleEras, [...eras]));
  ctx = ctx.set(CONSTANTS_PATH, encodeBinary(parametricConstants, parameters.constants));
  // main.ml's init_context: the cache layout, empty caches
  ctx = setCacheLayout(ctx, CACHE_LAYOUT);
  const pc = new ProtoContext({
    context: ctx,
    constants: parameters.constants,
    eras,
    level: levelFromRaw(eras, block.level),
    predecessorTimestamp: block.timestamp,
    timestamp: block.timestamp,
    fitness: block.fitness ?? 0n,
  });
  return { pc, parameters };
}

/** A bootstrap account (`Bootstrap_storage.init_account`): credited; with a key, revealed and self-delegated. */
export function initBootstrapAccount(pc: ProtoContext, account: BootstrapAccount): void {
  pc.atomically(() => {
    const pkh = account.public_key_hash;
    credit(pc, pkh, account.amount); // a 0 amount is `contract.empty_transaction`, as in Octez
    if (account.public_key !== undefined) {
      revealManagerKey(pc, pkh, parsePublicKey(account.public_key));
      setDelegate(pc, pkh, pkh);
    }
  });
}

/**
 * A bootstrap contract (`Bootstrap_storage.init_contract`): the next address of the bootstrap
 * nonce, balance, prepaid storage, delegate. The script is stored as given (see the module doc).
 */
export function initBootstrapContract(pc: ProtoContext, contract: BootstrapContract): string {
  return pc.atomically(() => {
    const address = freshContractFromCurrentNonce(pc);
    rawOriginate(pc, address, {
      balance: contract.amount,
      script: { code: contract.script.code, storage: contract.script.storage },
      delegate: contract.delegate,
      prepaidBootstrapStorage: true,
    });
    return address;
  });
}

/** Ramp-up options (`Bootstrap_storage.init`): rewards at 0 until `no_reward_cycles`, deposits growing over `security_deposit_ramp_up_cycles`. */
export function initRampUps(pc: ProtoContext, parameters: ProtocolParameters): void {
  const noReward = parameters.no_reward_cycles;
  if (noReward !== undefined) {
    const c = pc.constants;
    pc.patchConstants((k) => ({ ...k, baking_reward_per_endorsement: [0n], endorsement_reward: [0n] }));
    pc.init(
      rampUpRewardsPath(noReward),
      encodeBinary(rampUpRewards, { baking_reward_per_endorsement: c.baking_reward_per_endorsement, endorsement_reward: c.endorsement_reward }),
    );
  }
  const rampUp = parameters.security_deposit_ramp_up_cycles;
  if (rampUp !== undefined) {
    const c = pc.constants;
    if (rampUp <= 0) throw new RangeError("security_deposit_ramp_up_cycles must be positive");
    const blockStep = c.block_security_deposit / BigInt(rampUp);
    const endorsementStep = c.endorsement_security_deposit / BigInt(rampUp);
    pc.patchConstants((k) => ({ ...k, block_security_deposit: 0n, endorsement_security_deposit: 0n }));
    for (let cycle = 1; cycle <= rampUp - 1; cycle++) {
      pc.init(rampUpDepositsPath(cycle), encodeBinary(rampUpDeposits, [blockStep * BigInt(cycle), endorsementStep * BigInt(cycle)]));
    }
    pc.init(rampUpDepositsPath(rampUp), encodeBinary(rampUpDeposits, [c.block_security_deposit, c.endorsement_security_deposit]));
  }
}

/**
 * Hangzhou's `init` on the activation block's context (see the module doc). Throws a TezosError
 * (`failure`, `context.failed_to_parse_parameter`, `constants.invalid_protocol_constants`,
 * storage and contract errors) and then leaves nothing half done: the input context is immutable.
 */
export function initHangzhou(context: Context, block: ActivationBlock): HangzhouInit {
  const { pc, parameters } = prepareFirstBlock(context, block);
  initCommitments(pc, parameters.commitments);
  initRolls(pc);
  initSeeds(pc);
  initContracts(pc);
  pc.initOriginationNonce(BOOTSTRAP_CONTRACTS_NONCE);
  for (const a of parameters.bootstrap_accounts) initBootstrapAccount(pc, a);
  for (const c of parameters.bootstrap_contracts) initBootstrapContract(pc, c);
  initRampUps(pc, parameters);
  initFirstCycles(pc);
  initVotes(pc, pc.level.level_position);
  pc.init(BLOCK_PRIORITY_PATH, encodeUint16(0));
  updateListings(pc);
  const results = initLiquidityBaking(pc);
  pc.init(PENDING_MIGRATION_RESULTS_PATH, encodeBinary(pendingResults, results));
  return { context: pc.context, parameters, protoContext: pc, implicitOperationsResults: results };
}

/**
 * The pending migration results, removed from the context (Octez `Pending_migration.remove`, run
 * by `prepare` at every block): what the first Hangzhou block shows in
 * `implicit_operations_results`; `[]` afterwards.
 */
export function takePendingMigrationResults(pc: ProtoContext): SuccessfulManagerOperationResult[] {
  const b = pc.find(PENDING_MIGRATION_RESULTS_PATH);
  if (b === undefined) return [];
  pc.remove(PENDING_MIGRATION_RESULTS_PATH);
  return decodeBinary(pendingResults, b);
}
