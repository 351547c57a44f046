/**
 * Hangzhou's constants (Octez `Constants_repr`, `Parameters_repr`): the parametric constants
 * chosen at activation, the fixed ones, their codecs (the `GET …/context/constants` JSON, key
 * order included, and the binary form), the sandbox values, the coherence check, and the
 * protocol parameters file given to the activation command.
 *
 * @example
 * ```ts
 * const c = SANDBOX_CONSTANTS;                       // preserved_cycles 2, blocks_per_cycle 8, …
 * constants.toJson(allConstants(c));                 // what GET /context/constants prints
 * const params = parseProtocolParameters(JSON.parse(text)); // bootstrap accounts, commitments, constants
 * ```
 * @module
 */
import { DecodeError, type Json } from "../../encoding/codec.ts";
import type { Codec } from "../../encoding/core.ts";
import { conv } from "../../encoding/conv.ts";
import { string } from "../../encoding/bytes.ts";
import { blindedPublicKeyHash } from "../../encoding/hashes.ts";
import { int31, int32, int64, uint16, uint8 } from "../../encoding/integers.ts";
import { publicKey, publicKeyHash } from "../../encoding/keys.ts";
import { list } from "../../encoding/list.ts";
import { dft, mergeObjs, obj, opt, req } from "../../encoding/object.ts";
import { tup } from "../../encoding/tuple.ts";
import { tagged, union } from "../../encoding/union.ts";
import { z } from "../../encoding/zarith.ts";
import { mutez } from "../../encoding/hangzhou/basic.ts";
import { script, type Script } from "../../encoding/hangzhou/script.ts";
import { formatPublicKeyHash, parsePublicKey, publicKeyHash as hashOfPublicKey } from "../../crypto/keys.ts";
import type { ErrorDefinition } from "../../errors/mod.ts";
import { protoError } from "./proto-error.ts";

// ---------------------------------------------------------------------------------------------
// Fixed constants

/** The constants every Hangzhou chain shares (`Constants_repr.fixed`), as `/context/constants` prints them. */
export interface FixedConstants {
  proof_of_work_nonce_size: number;
  nonce_length: number;
  max_anon_ops_per_block: number;
  max_operation_data_length: number;
  max_proposals_per_delegate: number;
  max_micheline_node_count: number;
  max_micheline_bytes_limit: number;
  max_allowed_global_constants_depth: number;
  cache_layout: bigint[];
  michelson_maximum_type_size: number;
}

/** Hangzhou's fixed constants. */
export const FIXED_CONSTANTS: Readonly<FixedConstants> = Object.freeze({
  proof_of_work_nonce_size: 8,
  nonce_length: 32,
  max_anon_ops_per_block: 132,
  max_operation_data_length: 32 * 1024,
  max_proposals_per_delegate: 20,
  max_micheline_node_count: 50_000,
  max_micheline_bytes_limit: 50_000,
  max_allowed_global_constants_depth: 10_000,
  cache_layout: Object.freeze([100_000_000n]) as unknown as bigint[],
  michelson_maximum_type_size: 2001,
});

const MAX_INT62 = (1n << 62n) - 1n;

/** OCaml `int` carried as an int64 (Octez's `uint62` in the fixed constants): 0 ≤ v ≤ 2^62 − 1. */
const uint62: Codec<bigint> = conv<bigint, bigint>(
  (v) => {
    if (typeof v === "bigint" && (v < 0n || v > MAX_INT62)) throw new RangeError(`${v} does not fit in 62 bits`);
    return v;
  },
  (v) => {
    if (v < 0n) throw new DecodeError("Negative integer");
    if (v > MAX_INT62) throw new DecodeError("Integer does not fit in 62 bits");
    return v;
  },
  int64,
);

/** Codec of the fixed constants (`Constants_repr.fixed_encoding`). */
export const fixedConstants: Codec<FixedConstants> = obj(
  req("proof_of_work_nonce_size", uint8),
  req("nonce_length", uint8),
  req("max_anon_ops_per_block", uint8),
  req("max_operation_data_length", int31),
  req("max_proposals_per_delegate", uint8),
  req("max_micheline_node_count", int31),
  req("max_micheline_bytes_limit", int31),
  req("max_allowed_global_constants_depth", int31),
  req("cache_layout", list(uint62)),
  req("michelson_maximum_type_size", uint16),
);

// ---------------------------------------------------------------------------------------------
// Parametric constants

/**
 * The parametric constants (`Constants_repr.parametric`), named as in JSON. Periods (seconds),
 * amounts (mutez), gas and int64 values are bigints; the others are numbers.
 */
export interface ParametricConstants {
  preserved_cycles: number;
  blocks_per_cycle: number;
  blocks_per_commitment: number;
  blocks_per_roll_snapshot: number;
  blocks_per_voting_period: number;
  time_between_blocks: bigint[];
  endorsers_per_block: number;
  hard_gas_limit_per_operation: bigint;
  hard_gas_limit_per_block: bigint;
  proof_of_work_threshold: bigint;
  tokens_per_roll: bigint;
  seed_nonce_revelation_tip: bigint;
  origination_size: number;
  block_security_deposit: bigint;
  endorsement_security_deposit: bigint;
  baking_reward_per_endorsement: bigint[];
  endorsement_reward: bigint[];
  cost_per_byte: bigint;
  hard_storage_limit_per_operation: bigint;
  quorum_min: number;
  quorum_max: number;
  min_proposal_quorum: number;
  initial_endorsers: number;
  delay_per_missing_endorsement: bigint;
  minimal_block_delay: bigint;
  liquidity_baking_subsidy: bigint;
  liquidity_baking_sunset_level: number;
  liquidity_baking_escape_ema_threshold: number;
}

/** Every constant: what `GET …/context/constants` answers. */
export type Constants = FixedConstants & ParametricConstants;

const GAS_MAX = (MAX_INT62 - 1n) / 1000n;

/** Gas in gas units (`Gas_limit_repr.Arith.z_integral_encoding`): Zarith Z, non-negative, not saturating. */
const gasIntegral: Codec<bigint> = conv<bigint, bigint>(
  (v) => {
    if (typeof v === "bigint" && (v < 0n || v > GAS_MAX)) throw new RangeError(`Gas ${v} is negative or saturates`);
    return v;
  },
  (v) => {
    if (v < 0n || v > GAS_MAX) throw new DecodeError(`Gas ${v} is negative or saturates`);
    return v;
  },
  z,
);

/** A period in seconds (`Period_repr.encoding`: a plain int64). */
const period: Codec<bigint> = int64;

const parametricFirst = obj(
  req("preserved_cycles", uint8),
  req("blocks_per_cycle", int32),
  req("blocks_per_commitment", int32),
  req("blocks_per_roll_snapshot", int32),
  req("blocks_per_voting_period", int32),
  req("time_between_blocks", list(period)),
  req("endorsers_per_block", uint16),
  req("hard_gas_limit_per_operation", gasIntegral),
  req("hard_gas_limit_per_block", gasIntegral),
  req("proof_of_work_threshold", int64),
);

const parametricSecond = obj(
  req("tokens_per_roll", mutez),
  req("seed_nonce_revelation_tip", mutez),
  req("origination_size", int31),
  req("block_security_deposit", mutez),
  req("endorsement_security_deposit", mutez),
  req("baking_reward_per_endorsement", list(mutez)),
  req("endorsement_reward", list(mutez)),
  req("cost_per_byte", mutez),
  req("hard_storage_limit_per_operation", z),
);

const parametricThird = obj(
  req("quorum_min", int32),
  req("quorum_max", int32),
  req("min_proposal_quorum", int32),
  req("initial_endorsers", uint16),
  req("delay_per_missing_endorsement", period),
  req("minimal_block_delay", period),
  req("liquidity_baking_subsidy", mutez),
  req("liquidity_baking_sunset_level", int32),
  req("liquidity_baking_escape_ema_threshold", int32),
);

/** Codec of the parametric constants (`Constants_repr.parametric_encoding`), in Octez's field order. */
export const parametricConstants: Codec<ParametricConstants> = mergeObjs(parametricFirst, mergeObjs(parametricSecond, parametricThird));

/** Codec of all constants (`Constants_repr.encoding`): fixed then parametric, one JSON object. */
export const constants: Codec<Constants> = mergeObjs(fixedConstants, parametricConstants);

/** The full constants of a chain: Hangzhou's fixed constants with its parametric ones. */
export function allConstants(parametric: ParametricConstants): Constants {
  return { ...FIXED_CONSTANTS, cache_layout: [...FIXED_CONSTANTS.cache_layout], ...parametric };
}

/** The sandbox parametric constants (Octez `constants_sandbox`, tezt's default parameters file). */
export const SANDBOX_CONSTANTS: Readonly<ParametricConstants> = Object.freeze({
  preserved_cycles: 2,
  blocks_per_cycle: 8,
  blocks_per_commitment: 4,
  blocks_per_roll_snapshot: 4,
  blocks_per_voting_period: 64,
  time_between_blocks: [1n, 0n],
  endorsers_per_block: 256,
  hard_gas_limit_per_operation: 1_040_000n,
  hard_gas_limit_per_block: 5_200_000n,
  proof_of_work_threshold: -1n,
  tokens_per_roll: 8_000_000_000n,
  seed_nonce_revelation_tip: 125_000n,
  origination_size: 257,
  block_security_deposit: 640_000_000n,
  endorsement_security_deposit: 2_500_000n,
  baking_reward_per_endorsement: [78_125n, 11_719n],
  endorsement_reward: [78_125n, 52_083n],
  cost_per_byte: 250n,
  hard_storage_limit_per_operation: 60_000n,
  quorum_min: 2000,
  quorum_max: 7000,
  min_proposal_quorum: 500,
  initial_endorsers: 1,
  delay_per_missing_endorsement: 1n,
  minimal_block_delay: 1n,
  liquidity_baking_subsidy: 2_500_000n,
  liquidity_baking_sunset_level: 4096,
  liquidity_baking_escape_ema_threshold: 1_000_000,
});

/** Fields of `constants.invalid_protocol_constants`. */
export interface InvalidProtocolConstants {
  reason: string;
}

/** `proto.011-PtHangz2.constants.invalid_protocol_constants` {reason}. */
export const invalidProtocolConstants: ErrorDefinition<InvalidProtocolConstants> = protoError({
  id: "constants.invalid_protocol_constants",
  kind: "permanent",
  title: "Invalid protocol constants",
  description: "The provided protocol constants are not coherent.",
  fields: obj(req("reason", string)),
});

/**
 * Octez's coherence check of the constants (`check_constants`): time_between_blocks[0] (60 s when
 * the list is empty) ≥ minimal_block_delay, and endorsers_per_block ≥ initial_endorsers. Throws
 * `constants.invalid_protocol_constants`.
 */
export function checkConstants(c: ParametricConstants): void {
  const first = c.time_between_blocks[0] ?? 60n;
  if (!(first >= c.minimal_block_delay)) {
    throw invalidProtocolConstants.error({
      reason: `minimal_block_delay value (${c.minimal_block_delay}) should be smaller than time_between_blocks[0] value (${first})`,
    });
  }
  if (!(c.endorsers_per_block >= c.initial_endorsers)) {
    throw invalidProtocolConstants.error({ reason: "initial_endorsers should be smaller than endorsers_per_block" });
  }
}

// ---------------------------------------------------------------------------------------------
// Protocol parameters (the activation command's parameters file)

/** A bootstrap account: a public key (revealed, self-delegated) or only a key hash, and its balance. */
export interface BootstrapAccount {
  /** `tz1…`/`tz2…`/`tz3…`. */
  public_key_hash: string;
  /** `edpk…`/`sppk…`/`p2pk…`, when the account was given by its key. */
  public_key?: string;
  /** Balance in mutez. */
  amount: bigint;
}

/** A bootstrap contract: originated at activation, delegated to a bootstrap delegate. */
export interface BootstrapContract {
  delegate: string;
  amount: bigint;
  script: Script;
}

/** A commitment (fundraiser account to activate): blinded key hash `btz1…` and amount. */
export interface Commitment {
  blinded_public_key_hash: string;
  amount: bigint;
}

/** The protocol parameters (`Parameters_repr.t`): bootstrap state, ramp-up options, constants. */
export interface ProtocolParameters {
  bootstrap_accounts: BootstrapAccount[];
  bootstrap_contracts: BootstrapContract[];
  commitments: Commitment[];
  security_deposit_ramp_up_cycles?: number;
  no_reward_cycles?: number;
  constants: ParametricConstants;
}

function pkhOfKey(pk: string): string {
  return formatPublicKeyHash(hashOfPublicKey(parsePublicKey(pk)));
}

/** `[public key or key hash, "mutez"]` (`bootstrap_account_encoding`: case 0 key known, case 1 key unknown). */
export const bootstrapAccount: Codec<BootstrapAccount> = union<BootstrapAccount>([
  tagged<BootstrapAccount, [string, bigint]>(
    0,
    "Public_key_known",
    tup(publicKey, mutez),
    (a) => {
      if (a.public_key === undefined) return undefined;
      if (pkhOfKey(a.public_key) !== a.public_key_hash) throw new TypeError(`Bootstrap account ${a.public_key_hash} is not the hash of ${a.public_key}`);
      return [a.public_key, a.amount];
    },
    ([pk, amount]) => ({ public_key_hash: pkhOfKey(pk), public_key: pk, amount }),
  ),
  tagged<BootstrapAccount, [string, bigint]>(
    1,
    "Public_key_unknown",
    tup(publicKeyHash, mutez),
    (a) => (a.public_key === undefined ? [a.public_key_hash, a.amount] : undefined),
    ([pkh, amount]) => ({ public_key_hash: pkh, amount }),
  ),
]);

/** `{delegate, amount, script}` (`bootstrap_contract_encoding`). */
export const bootstrapContract: Codec<BootstrapContract> = obj(
  req("delegate", publicKeyHash),
  req("amount", mutez),
  req("script", script),
);

/** `["btz1…", "mutez"]` (`Commitment_repr.encoding`). */
export const commitment: Codec<Commitment> = conv<Commitment, [string, bigint]>(
  (c) => [c.blinded_public_key_hash, c.amount],
  ([blinded_public_key_hash, amount]) => ({ blinded_public_key_hash, amount }),
  tup(blindedPublicKeyHash, mutez),
);

const parametersHead = obj(
  req("bootstrap_accounts", list(bootstrapAccount)),
  dft("bootstrap_contracts", list(bootstrapContract), [] as BootstrapContract[]),
  dft("commitments", list(commitment), [] as Commitment[]),
  opt("security_deposit_ramp_up_cycles", int31),
  opt("no_reward_cycles", int31),
);

type FlatParameters = ParametricConstants & {
  bootstrap_accounts: BootstrapAccount[];
  bootstrap_contracts: BootstrapContract[];
  commitments: Commitment[];
  security_deposit_ramp_up_cycles?: number;
  no_reward_cycles?: number;
};

const CONSTANT_KEYS = [
  "preserved_cycles", "blocks_per_cycle", "blocks_per_commitment", "blocks_per_roll_snapshot", "blocks_per_voting_period",
  "time_between_blocks", "endorsers_per_block", "hard_gas_limit_per_operation", "hard_gas_limit_per_block",
  "proof_of_work_threshold", "tokens_per_roll", "seed_nonce_revelation_tip", "origination_size", "block_security_deposit",
  "endorsement_security_deposit", "baking_reward_per_endorsement", "endorsement_reward", "cost_per_byte",
  "hard_storage_limit_per_operation", "quorum_min", "quorum_max", "min_proposal_quorum", "initial_endorsers",
  "delay_per_missing_endorsement", "minimal_block_delay", "liquidity_baking_subsidy", "liquidity_baking_sunset_level",
  "liquidity_baking_escape_ema_threshold",
] as const satisfies readonly (keyof ParametricConstants)[];

/** Codec of the protocol parameters (`Parameters_repr.encoding`): one JSON object, constants flattened in. */
export const protocolParameters: Codec<ProtocolParameters> = conv<ProtocolParameters, FlatParameters>(
  (p) => {
    const flat: { [k: string]: unknown } = {
      bootstrap_accounts: p.bootstrap_accounts,
      bootstrap_contracts: p.bootstrap_contracts,
      commitments: p.commitments,
    };
    if (p.security_deposit_ramp_up_cycles !== undefined) flat["security_deposit_ramp_up_cycles"] = p.security_deposit_ramp_up_cycles;
    if (p.no_reward_cycles !== undefined) flat["no_reward_cycles"] = p.no_reward_cycles;
    return Object.assign(flat, p.constants) as unknown as FlatParameters;
  },
  (f) => {
    const c = {} as { [k: string]: unknown };
    for (const k of CONSTANT_KEYS) c[k] = f[k];
    const out: ProtocolParameters = {
      bootstrap_accounts: f.bootstrap_accounts,
      bootstrap_contracts: f.bootstrap_contracts,
      commitments: f.commitments,
      constants: c as unknown as ParametricConstants,
    };
    if (f.security_deposit_ramp_up_cycles !== undefined) out.security_deposit_ramp_up_cycles = f.security_deposit_ramp_up_cycles;
    if (f.no_reward_cycles !== undefined) out.no_reward_cycles = f.no_reward_cycles;
    return out;
  },
  mergeObjs(parametersHead, parametricConstants) as Codec<FlatParameters>,
);

/**
 * Parses a protocol parameters JSON value (the activation command's file): unknown keys are
 * refused, as data-encoding's objects do; then the constants are checked for coherence.
 * Throws DecodeError (shape) or `constants.invalid_protocol_constants`.
 */
export function parseProtocolParameters(json: Json): ProtocolParameters {
  if (json === null || typeof json !== "object" || Array.isArray(json)) throw new DecodeError("Protocol parameters must be a JSON object");
  const known = new Set<string>(["bootstrap_accounts", "bootstrap_contracts", "commitments", "security_deposit_ramp_up_cycles", "no_reward_cycles", ...CONSTANT_KEYS]);
  for (const k of Object.keys(json)) if (!known.has(k)) throw new DecodeError(`Unexpected field "${k}"`, [k]);
  const params = protocolParameters.fromJson(json);
  checkConstants(params.constants);
  return params;
}
