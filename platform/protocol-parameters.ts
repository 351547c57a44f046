/**
 * The protocol parameters a node activates Hangzhou with, as a file (`--protocol-parameters
 * FILE`, `--print-protocol-parameters`): Octez's `sandbox-parameters.json` format (what
 * `octez-client activate protocol … and parameters FILE` reads: `bootstrap_accounts`,
 * `commitments`, `bootstrap_contracts` and the parametric constants, flat). A file may give only
 * some fields: they replace the sandbox defaults' (a list as a whole), the others stay.
 *
 * Each field is checked for its kind first (a schema naming the field: `bootstrap_accounts[2][1]:
 * expected a mutez string (digits)`), then the protocol reads the whole (keys, coherence of the
 * constants), as the activation would.
 *
 * @example
 * ```ts
 * const parameters = protocolParameters({ cost_per_byte: "300" }, "my.json"); // the defaults with cost_per_byte 300
 * process.stdout.write(printParameters(parameters));
 * ```
 * @module
 */
import { z } from "zod";
import type { Json } from "../lib/encoding/codec.ts";
import { parseProtocolParameters } from "../lib/protocols/hangzhou/constants.ts";
import { sandboxParameters } from "../lib/protocols/hangzhou/sandbox-parameters.ts";

/** A parameters file that cannot be used; its message names the file and the field. */
export class ParametersFileError extends Error {
  override name = "ParametersFileError";
}

const whole = (min: number, max: number) =>
  z.number({ error: `expected a whole number from ${min} to ${max}` }).int({ error: `expected a whole number from ${min} to ${max}` }).min(min, { error: `expected a whole number from ${min} to ${max}` }).max(max, { error: `expected a whole number from ${min} to ${max}` });
const MUTEZ = "expected a mutez string (digits)";
const mutez = z.string({ error: MUTEZ }).regex(/^\d{1,19}$/, { error: MUTEZ });
const INT64 = "expected an int64 string (digits, optionally after a minus sign)";
const int64 = z.string({ error: INT64 }).regex(/^-?\d{1,19}$/, { error: INT64 });
const NATURAL = "expected a natural number as a string (digits)";
const natural = z.string({ error: NATURAL }).regex(/^\d+$/, { error: NATURAL });
const KEY = "expected a public key (edpk…, sppk…, p2pk…) or an address (tz1…, tz2…, tz3…)";
const keyOrAddress = z.string({ error: KEY }).regex(/^(edpk|sppk|p2pk|tz1|tz2|tz3)[1-9A-HJ-NP-Za-km-z]+$/, { error: KEY });
const BLINDED = "expected a blinded public key hash (btz1…)";
const blinded = z.string({ error: BLINDED }).regex(/^btz1[1-9A-HJ-NP-Za-km-z]+$/, { error: BLINDED });
const pair = <A extends z.ZodType, B extends z.ZodType>(a: A, b: B, what: string) => z.tuple([a, b], { error: `expected a pair [${what}]` });
const list = <T extends z.ZodType>(item: T, what: string) => z.array(item, { error: `expected a list of ${what}` });
const int31 = whole(0, 2 ** 30 - 1);
const int32 = whole(-(2 ** 31), 2 ** 31 - 1);

/** Every field of the file and its kind (Hangzhou's `Parameters_repr` and `Constants_repr`). */
const fileSchema = z
  .strictObject(
    {
      bootstrap_accounts: list(pair(keyOrAddress, mutez, "public key or address, mutez"), "[public key or address, mutez] pairs"),
      bootstrap_contracts: list(z.record(z.string(), z.unknown(), { error: "expected an object {delegate, amount, script}" }), "contracts"),
      commitments: list(pair(blinded, mutez, "blinded public key hash, mutez"), "[blinded public key hash, mutez] pairs"),
      security_deposit_ramp_up_cycles: int31,
      no_reward_cycles: int31,
      preserved_cycles: whole(0, 255),
      blocks_per_cycle: int32,
      blocks_per_commitment: int32,
      blocks_per_roll_snapshot: int32,
      blocks_per_voting_period: int32,
      time_between_blocks: list(int64, "int64 strings"),
      endorsers_per_block: whole(0, 65535),
      hard_gas_limit_per_operation: natural,
      hard_gas_limit_per_block: natural,
      proof_of_work_threshold: int64,
      tokens_per_roll: mutez,
      seed_nonce_revelation_tip: mutez,
      origination_size: int31,
      block_security_deposit: mutez,
      endorsement_security_deposit: mutez,
      baking_reward_per_endorsement: list(mutez, "mutez strings"),
      endorsement_reward: list(mutez, "mutez strings"),
      cost_per_byte: mutez,
      hard_storage_limit_per_operation: natural,
      quorum_min: int32,
      quorum_max: int32,
      min_proposal_quorum: int32,
      initial_endorsers: whole(0, 65535),
      delay_per_missing_endorsement: int64,
      minimal_block_delay: int64,
      liquidity_baking_subsidy: mutez,
      liquidity_baking_sunset_level: int32,
      liquidity_baking_escape_ema_threshold: int32,
    },
    { error: "expected a JSON object" },
  )
  .partial();

/** `bootstrap_accounts[2][1]` for the path `["bootstrap_accounts", 2, 1]`. */
function fieldName(path: readonly PropertyKey[]): string {
  return path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join("");
}

/**
 * The parameters to activate with: `file` (the parsed JSON of the file `name`) over the sandbox
 * defaults, each given field checked, then the whole read as the protocol reads it.
 * @throws {ParametersFileError} naming `name` and the first wrong field.
 */
export function protocolParameters(file: unknown, name: string): Record<string, Json> {
  const where = `Invalid --protocol-parameters "${name}"`;
  const checked = fileSchema.safeParse(file);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    if (issue.code === "unrecognized_keys") {
      throw new ParametersFileError(`${where}: unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(", ")} (not a Hangzhou protocol parameter).`);
    }
    const field = fieldName(issue.path);
    throw new ParametersFileError(`${where}: ${field === "" ? "" : `${field}: `}${issue.message}.`);
  }
  const merged = { ...sandboxParameters(), ...(file as Record<string, Json>) };
  try {
    parseProtocolParameters(merged);
  } catch (e) {
    throw new ParametersFileError(`${where}: ${e instanceof Error ? e.message : String(e)}.`);
  }
  return merged;
}

/** The parameters as a JSON file to edit: two-space indents, each pair or list of numbers on one line. */
export function printParameters(parameters: Record<string, Json>): string {
  const flat = (v: Json): boolean => v === null || typeof v !== "object";
  const format = (v: Json, indent: string): string => {
    if (Array.isArray(v)) {
      if (v.every(flat)) return JSON.stringify(v).replaceAll(",", ", ");
      return `[\n${v.map((x) => `${indent}  ${format(x, `${indent}  `)}`).join(",\n")}\n${indent}]`;
    }
    if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      if (entries.length === 0) return "{}";
      return `{\n${entries.map(([k, x]) => `${indent}  ${JSON.stringify(k)}: ${format(x, `${indent}  `)}`).join(",\n")}\n${indent}}`;
    }
    return JSON.stringify(v);
  };
  return `${format(parameters, "")}\n`;
}
