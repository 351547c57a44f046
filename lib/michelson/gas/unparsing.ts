/**
 * Hangzhou's costs of unparsing (Octez `Michelson_v1_gas.Cost_of.Unparsing`), in milligas:
 * what `Script_ir_translator` charges while turning typed values, types and code back into
 * Micheline (`unparse_data`, `unparse_ty`, `unparse_code`; also PACK, the trace's stacks, the
 * final storage). Names are the camelCase of Octez's. Constants are numbers; Octez functions
 * are functions.
 *
 * Where Octez charges them: `unparseDataCycle` once per data node unparsed, `unparseTypeCycle`
 * once per type node, `unparseInstrCycle` once per instruction node; leaves: the `*Optimized`
 * costs in Optimized mode (bytes), `*Readable` in Readable mode (Base58/strings),
 * `timestampReadable` for a timestamp printed as a date, `contract` for a `contract` value,
 * `operation(bytes)` for an operation (from its binary size).
 *
 * All values are exact to Octez v12.4.
 * @module
 */
import { sMul } from "./arith.ts";
import * as M from "./models.ts";
import { serializationCostEstimatedFromBytes } from "./script.ts";

/** `Cost_of.Unparsing.public_key_optimized`: a key as bytes (the costliest curve). */
export const publicKeyOptimized = Math.max(80, 440, 570);
/** `Cost_of.Unparsing.public_key_readable`: a key as Base58. */
export const publicKeyReadable = Math.max(4_200, 4_500, 4_700);
/** `Cost_of.Unparsing.key_hash_optimized`: a key hash as bytes. */
export const keyHashOptimized = Math.max(60, 70, 80);
/** `Cost_of.Unparsing.key_hash_readable`: a key hash as Base58. */
export const keyHashReadable = 2_900;
/** `Cost_of.Unparsing.signature_optimized`: a signature as bytes. */
export const signatureOptimized = 40;
/** `Cost_of.Unparsing.signature_readable`: a signature as Base58. */
export const signatureReadable = 7_800;
/** `Cost_of.Unparsing.chain_id_optimized`: a chain id as bytes. */
export const chainIdOptimized = 50;
/** `Cost_of.Unparsing.chain_id_readable`: a chain id as Base58. */
export const chainIdReadable = 1_600;
/** `Cost_of.Unparsing.timestamp_readable`: a timestamp as an RFC 3339 date. */
export const timestampReadable = 800;
/** `Cost_of.Unparsing.address_optimized` (= `keyHashOptimized`). */
export const addressOptimized = keyHashOptimized;
/** `Cost_of.Unparsing.contract_optimized` (= `keyHashOptimized`). */
export const contractOptimized = keyHashOptimized;
/** `Cost_of.Unparsing.contract_readable` (= `keyHashReadable`). */
export const contractReadable = keyHashReadable;
/** `Cost_of.Unparsing.bls12_381_g1`. */
export const bls12381G1 = 30;
/** `Cost_of.Unparsing.bls12_381_g2`. */
export const bls12381G2 = 30;
/** `Cost_of.Unparsing.bls12_381_fr`. */
export const bls12381Fr = 30;
/** `Cost_of.Unparsing.unparse_type_cycle`: one type node unparsed. */
export const unparseTypeCycle = 20;
/** `Cost_of.Unparsing.unparse_instr_cycle`: one instruction node unparsed. */
export const unparseInstrCycle = 115;
/** `Cost_of.Unparsing.unparse_data_cycle`: one data node unparsed. */
export const unparseDataCycle = 45;
/** `Cost_of.Unparsing.unit` (free). */
export const unit = 0;
/** `Cost_of.Unparsing.contract`: a `contract` value (2 × the readable public key cost). */
export const contract = sMul(2, publicKeyReadable);
/** `Cost_of.Unparsing.operation bytes`: an operation, from its binary form (33 per byte). */
export function operation(bytes: Uint8Array | number): number {
  return serializationCostEstimatedFromBytes(typeof bytes === "number" ? bytes : bytes.length);
}
/** `Cost_of.Unparsing.sapling_transaction t`: from the counts of inputs and outputs. */
export function saplingTransaction(inputs: number, outputs: number): number {
  return M.saplingTransactionEncoding(inputs, outputs);
}
/** `Cost_of.Unparsing.sapling_diff d`: from the counts of nullifiers and commitments. */
export function saplingDiff(nullifiers: number, commitments: number): number {
  return M.saplingDiffEncoding(nullifiers, commitments);
}
/** `Cost_of.Unparsing.chest_key`. */
export const chestKey = 13_500;
/** `Cost_of.Unparsing.chest ~plaintext_size`. */
export function chest(plaintextSize: number): number {
  return M.encodingChest(plaintextSize);
}
