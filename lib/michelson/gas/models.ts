/**
 * Hangzhou's benchmarked cost models (Octez `Michelson_v1_gas.Cost_of.Generated_costs`), in
 * milligas, as functions of sizes (bytes, lengths, counts). Names: `N_IAdd_intint` → `nIAddIntint`.
 * The instruction-level functions in `interpreter.ts`, `typechecking.ts` and `unparsing.ts` compute
 * the sizes from values and call these.
 * @module
 */
import { log2, lsr, safeInt, sAdd, sMul } from "./arith.ts";

/** Model shared by ADD/SUB/OR/XOR on integers and timestamps: 35 + max/16 + max/128. */
export function linearOpInt(size1: number, size2: number): number {
  const v0 = safeInt(Math.max(size1, size2));
  return sAdd(35, lsr(v0, 4), lsr(v0, 7));
}

/** `N_IAbs_int`, `N_INeg_int`, `N_INeg_nat`: 25 + size/16. */
export function nIAbsInt(size: number): number {
  return sAdd(25, lsr(safeInt(size), 4));
}

/** `N_IAnd_int_nat`: 35 + min/8 + min/64. */
export function nIAndIntNat(size1: number, size2: number): number {
  const v0 = safeInt(Math.min(size1, size2));
  return sAdd(35, lsr(v0, 3), lsr(v0, 6));
}

/** `N_IAnd_nat`: 35 + min/16 + min/128. */
export function nIAndNat(size1: number, size2: number): number {
  const v0 = safeInt(Math.min(size1, size2));
  return sAdd(35, lsr(v0, 4), lsr(v0, 7));
}

/** `N_IBlake2b`: 605 + size + size/8. */
export function nIBlake2b(size: number): number {
  const v0 = safeInt(size);
  return sAdd(605, v0, lsr(v0, 3));
}

/** `N_ICheck_signature_*` by key kind: base + size + size/8. */
export function nICheckSignature(kind: "ed25519" | "secp256k1" | "p256", size: number): number {
  const base = kind === "ed25519" ? 242_950 : kind === "secp256k1" ? 49_700 : 532_150;
  const v0 = safeInt(size);
  return sAdd(base, v0, lsr(v0, 3));
}

/** `N_IComb`: 3n + n/2 + n/32. */
export function nIComb(n: number): number {
  const v0 = safeInt(n);
  return sAdd(sMul(3, v0), lsr(v0, 1), lsr(v0, 5));
}

/** `N_IComb_get`: 30 + n/2 + n/16. */
export function nICombGet(n: number): number {
  const v0 = safeInt(n);
  return sAdd(30, lsr(v0, 1), lsr(v0, 4));
}

/** `N_IComb_set`: 10 + n + n/4 + n/8. */
export function nICombSet(n: number): number {
  const v0 = safeInt(n);
  return sAdd(10, v0, lsr(v0, 2), lsr(v0, 3));
}

/** `N_ICompare`: 35 + min/64 + min/128. */
export function nICompare(size1: number, size2: number): number {
  const v0 = safeInt(Math.min(size1, size2));
  return sAdd(35, lsr(v0, 6), lsr(v0, 7));
}

/** `N_IConcat_string_pair`, `N_IConcat_bytes_pair`: 65 + (size1 + size2)/16. */
export function nIConcatPair(size1: number, size2: number): number {
  return sAdd(65, lsr(sAdd(safeInt(size1), safeInt(size2)), 4));
}

/** `N_IDig`, `N_IDug`: 20 + 6n + n/2 + n/4. */
export function nIDig(n: number): number {
  const v0 = safeInt(n);
  return sAdd(20, sMul(6, v0), lsr(v0, 1), lsr(v0, 2));
}

/** `N_IDipN`: 20 + n + n/2 + n/8. */
export function nIDipN(n: number): number {
  const v0 = safeInt(n);
  return sAdd(20, v0, lsr(v0, 1), lsr(v0, 3));
}

/** `N_IDropN`: 20 + 2n + n/2 + n/8. */
export function nIDropN(n: number): number {
  const v0 = safeInt(n);
  return sAdd(20, sMul(2, v0), lsr(v0, 1), lsr(v0, 3));
}

/** `N_IDupN`: 20 + n + n/8. */
export function nIDupN(n: number): number {
  const v0 = safeInt(n);
  return sAdd(20, v0, lsr(v0, 3));
}

/** `N_IEdiv_*` on integers: 110, plus (size1 - size2) * size2 / 1024 + /2048 + /8192 when size1 >= size2. */
export function divInt(size1: number, size2: number): number {
  const q = size1 - size2;
  if (q < 0) return 110;
  const v0 = sMul(safeInt(q), safeInt(size2));
  return sAdd(110, lsr(v0, 10), lsr(v0, 11), lsr(v0, 13));
}

/** `N_IKeccak`, `N_ISha3`: 5100 + 32 size + size/2 + size/4. */
export function nIKeccak(size: number): number {
  const v0 = safeInt(size);
  return sAdd(5100, sMul(32, v0), lsr(v0, 1), lsr(v0, 2));
}

/** `N_ILsl_nat`, `N_ILsr_nat`: 35 + size/16 + size/32 + size/64. */
export function nILslNat(size: number): number {
  const v0 = safeInt(size);
  return sAdd(35, lsr(v0, 4), lsr(v0, 5), lsr(v0, 6));
}

/** `N_IMap_get`, `N_IMap_mem`: 80 + v/32 + v/64 with v = keySize * log2 mapSize. */
export function nIMapGet(size1: number, size2: number): number {
  const v0 = sMul(size1, log2(size2));
  return sAdd(80, lsr(v0, 5), lsr(v0, 6));
}

/** `N_IMap_get_and_update`: 165 + v/8 + v/64 with v = keySize * log2 mapSize. */
export function nIMapGetAndUpdate(size1: number, size2: number): number {
  const v0 = sMul(size1, log2(size2));
  return sAdd(165, lsr(v0, 3), lsr(v0, 6));
}

/** `N_IMap_update`: 100 + v/16 + v/32 with v = keySize * log2 mapSize. */
export function nIMapUpdate(size1: number, size2: number): number {
  const v0 = sMul(size1, log2(size2));
  return sAdd(100, lsr(v0, 4), lsr(v0, 5));
}

/** `N_IMap_iter`: 60 + 5n + n/4. */
export function nIMapIter(n: number): number {
  const v0 = safeInt(n);
  return sAdd(60, sMul(5, v0), lsr(v0, 2));
}

/** `N_IMap_map`: 180 + 7n + n/2. */
export function nIMapMap(n: number): number {
  const v0 = safeInt(n);
  return sAdd(180, sMul(7, v0), lsr(v0, 1));
}

/** `N_IMul_bls12_381_fr_z`, `N_IMul_bls12_381_z_fr`: 270 + size + size/16. */
export function nIMulBls12381FrZ(size: number): number {
  const v0 = safeInt(size);
  return sAdd(270, v0, lsr(v0, 4));
}

/** `N_IMul_*` on integers: 75 + v/2 + v/4 + v/16 with a = size1 + size2, v = a * log2 a. */
export function mulInt(size1: number, size2: number): number {
  const a = sAdd(safeInt(size1), safeInt(size2));
  const v0 = sMul(a, log2(a));
  return sAdd(75, lsr(v0, 1), lsr(v0, 2), lsr(v0, 4));
}

/** `N_INot_int`, `N_INot_nat`: 25 + size/16 + size/128. */
export function nINotInt(size: number): number {
  const v0 = safeInt(size);
  return sAdd(25, lsr(v0, 4), lsr(v0, 7));
}

/** `N_IOpen_chest`: 612000 + 19 plaintextSize + 19050 logTime. */
export function nIOpenChest(chest: number, time: number): number {
  return sAdd(612_000, sMul(19, safeInt(chest)), sMul(19_050, safeInt(time)));
}

/** `N_IPairing_check_bls12_381`: 1396550 + 456475 per pair. */
export function nIPairingCheckBls12381(n: number): number {
  return sAdd(1_396_550, sMul(456_475, safeInt(n)));
}

/** `N_ISapling_verify_update`: 84050 + inputs + inputs/4 + 39 outputs. */
export function nISaplingVerifyUpdate(inputs: number, outputs: number): number {
  const v1 = safeInt(inputs);
  const v0 = safeInt(outputs);
  return sAdd(84_050, v1, lsr(v1, 2), sMul(39, v0));
}

/** `N_ISet_iter`: 60 + 4n + n/4. */
export function nISetIter(n: number): number {
  const v0 = safeInt(n);
  return sAdd(60, sMul(4, v0), lsr(v0, 2));
}

/** `N_ISha256`: 460 + 4 size + size/2 + size/4. */
export function nISha256(size: number): number {
  const v0 = safeInt(size);
  return sAdd(460, sMul(4, v0), lsr(v0, 1), lsr(v0, 2));
}

/** `N_ISha512`: 535 + 3 size. */
export function nISha512(size: number): number {
  return sAdd(535, sMul(3, safeInt(size)));
}

/** `N_ISlice_string`, `N_ISlice_bytes`: 30 + size/16. */
export function nISlice(size: number): number {
  return sAdd(30, lsr(safeInt(size), 4));
}

/** `N_ISplit_ticket`: 70 + max/8. */
export function nISplitTicket(size1: number, size2: number): number {
  return sAdd(70, lsr(safeInt(Math.max(size1, size2)), 3));
}

/** `N_IUncomb`: 25 + 4n. */
export function nIUncomb(n: number): number {
  return sAdd(25, sMul(4, safeInt(n)));
}

/** `N_KList_enter_body`: 70 while elements remain; 40 + n + n/2 + n/8 (n = result length) at the end. */
export function nKListEnterBody(remaining: number, sizeYs: number): number {
  if (remaining > 0) return 70;
  const v0 = safeInt(sizeYs);
  return sAdd(40, v0, lsr(v0, 1), lsr(v0, 3));
}

/** `DECODING_Chest`: 7400 + bytes/32 + bytes/128. */
export function decodingChest(bytes: number): number {
  const v0 = safeInt(bytes);
  return sAdd(7400, lsr(v0, 5), lsr(v0, 7));
}

/** `ENCODING_Chest`: 16630 + plaintextSize/8. */
export function encodingChest(plaintextSize: number): number {
  return sAdd(16_630, lsr(safeInt(plaintextSize), 3));
}

/** `CHECK_PRINTABLE`: 14 + 10 per character. */
export function checkPrintable(size: number): number {
  return sAdd(14, sMul(10, safeInt(size)));
}

/** `SAPLING_TRANSACTION_ENCODING`: 1500 + 160 inputs + 320 outputs. */
export function saplingTransactionEncoding(inputs: number, outputs: number): number {
  return safeInt(1500 + inputs * 160 + outputs * 320);
}

/** `SAPLING_DIFF_ENCODING`: 22 per nullifier + 215 per commitment. */
export function saplingDiffEncoding(nfs: number, cms: number): number {
  return safeInt(nfs * 22 + cms * 215);
}
