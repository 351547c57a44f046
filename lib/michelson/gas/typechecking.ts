/**
 * Hangzhou's costs of type checking (Octez `Michelson_v1_gas.Cost_of.Typechecking`), in
 * milligas: what `Script_ir_translator` charges while parsing types, data and instructions.
 * Names are the camelCase of Octez's (`parse_data_cycle` → `parseDataCycle`,
 * `bls12_381_g1` → `bls12381G1`). Constants are numbers; Octez functions are functions.
 *
 * Where Octez charges them (facts for DATA and INTERP):
 * - `parseTypeCycle` once per type node parsed (`parse_ty`), `parseDataCycle` once per data node
 *   (`parse_data`), `parseInstrCycle` once per instruction (`parse_instr`), `mergeCycle` per
 *   node compared by `merge_types`/`ty_eq`, `comparableTyOfTyCycle` per node of
 *   `comparable_ty_of_ty`, `checkDupableCycle` per node of the dupable check.
 * - Leaves: `unit`, `bool` (free), `checkPrintable(s)` for each string constant, the
 *   `*Optimized` costs for values given as bytes, `*Readable` ones for values given as strings,
 *   `timestampReadable` for a timestamp string, `contract` for a `contract` constant and
 *   `contractExists` for its storage lookup, `proofArgument(n)` for the stack-depth argument of
 *   DIG/DUG/DIP n/DROP n/PAIR n/UNPAIR n/GET n/UPDATE n/DUP n.
 *
 * All values are exact to Octez v12.4.
 * @module
 */
import { sMul } from "./arith.ts";
import * as M from "./models.ts";
import { stringLength } from "./size.ts";
import { readAccess } from "./storage.ts";

/** `Cost_of.Typechecking.public_key_optimized`: a key given as bytes (the costliest curve). */
export const publicKeyOptimized = Math.max(60, 4_800, 23_000);
/** `Cost_of.Typechecking.public_key_readable`: a key given as a Base58 string. */
export const publicKeyReadable = Math.max(4_000, 8_500, 27_000);
/** `Cost_of.Typechecking.key_hash_optimized`: a key hash given as bytes. */
export const keyHashOptimized = 50;
/** `Cost_of.Typechecking.key_hash_readable`: a key hash given as a Base58 string. */
export const keyHashReadable = 3_100;
/** `Cost_of.Typechecking.signature_optimized`: a signature given as bytes. */
export const signatureOptimized = 30;
/** `Cost_of.Typechecking.signature_readable`: a signature given as a Base58 string. */
export const signatureReadable = 6_100;
/** `Cost_of.Typechecking.chain_id_optimized`: a chain id given as bytes. */
export const chainIdOptimized = 50;
/** `Cost_of.Typechecking.chain_id_readable`: a chain id given as a Base58 string. */
export const chainIdReadable = 1_400;
/** `Cost_of.Typechecking.address_optimized` (= `keyHashOptimized`). */
export const addressOptimized = keyHashOptimized;
/** `Cost_of.Typechecking.contract_optimized` (= `keyHashOptimized`). */
export const contractOptimized = keyHashOptimized;
/** `Cost_of.Typechecking.contract_readable` (= `keyHashReadable`). */
export const contractReadable = keyHashReadable;
/** `Cost_of.Typechecking.bls12_381_g1`: decoding a G1 point. */
export const bls12381G1 = 195_000;
/** `Cost_of.Typechecking.bls12_381_g2`: decoding a G2 point. */
export const bls12381G2 = 660_000;
/** `Cost_of.Typechecking.bls12_381_fr`: decoding a scalar. */
export const bls12381Fr = 50;
/** `Cost_of.Typechecking.check_printable s`: checking a string constant is printable ASCII. */
export function checkPrintable(s: string): number {
  return M.checkPrintable(stringLength(s));
}
/** `Cost_of.Typechecking.merge_cycle`: one step of comparing two types. */
export const mergeCycle = 220;
/** `Cost_of.Typechecking.parse_type_cycle`: one type node parsed. */
export const parseTypeCycle = 60;
/** `Cost_of.Typechecking.parse_instr_cycle`: one instruction typechecked. */
export const parseInstrCycle = 220;
/** `Cost_of.Typechecking.parse_data_cycle`: one data node typechecked. */
export const parseDataCycle = 100;
/** `Cost_of.Typechecking.comparable_ty_of_ty_cycle`: one step of turning a type into a comparable one. */
export const comparableTyOfTyCycle = 120;
/** `Cost_of.Typechecking.check_dupable_cycle`: one step of the dupable check. */
export const checkDupableCycle = 100;
/** `Cost_of.Typechecking.bool` (free). */
export const bool = 0;
/** `Cost_of.Typechecking.unit` (free). */
export const unit = 0;
/** `Cost_of.Typechecking.timestamp_readable`: a timestamp given as an RFC 3339 string. */
export const timestampReadable = 120;
/** `Cost_of.Typechecking.contract`: a `contract` constant (2 × `publicKeyReadable`). */
export const contract = sMul(2, publicKeyReadable);
/** `Cost_of.Typechecking.contract_exists`: the storage read checking a contract exists (path of 4, 8 bytes). */
export const contractExists = readAccess(4, 8);
/** `Cost_of.Typechecking.proof_argument n`: building the stack proof of an `n`-deep instruction (50 per level). */
export function proofArgument(n: number): number {
  return sMul(n, 50);
}
/** `Cost_of.Typechecking.chest_key`: decoding a chest key. */
export const chestKey = 7_200;
/** `Cost_of.Typechecking.chest ~bytes`: decoding a chest of `bytes` bytes. */
export function chest(bytes: number): number {
  return M.decodingChest(bytes);
}

