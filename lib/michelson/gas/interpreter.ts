/**
 * Hangzhou's cost of each interpreter step, in milligas (Octez
 * `Michelson_v1_gas.Cost_of.Interpreter`). Names are the camelCase of Octez's (`add_intint` →
 * `addIntint`, `add_bls12_381_g1` → `addBls12381G1`; `if_` and `const_` keep their underscore,
 * `const` being a reserved word). Octez constants are exported as numbers, Octez functions as
 * functions taking the same values (or sizes) in the same order. For the map/set costs, which
 * Octez computes from the key type carried by its map, the key/element type comes first:
 * `mapMem(keyTy, key, map)`.
 *
 * How Hangzhou's `Script_interpreter.step` charges them (`Script_interpreter_defs.cost_of_instr`):
 * before running each instruction, from the values on the stack *before* it runs (the top is
 * the "accu", the rest the "stack"). `FAILWITH`, `PACK`, `BALANCE`, `NEVER` and the trace
 * instrumentation cost nothing here (`PACK` and the context-touching instructions charge in the
 * context instead: unparsing, hashing, storage reads). `cost_of_control` charges the
 * continuations (`control.*`) each time the interpreter pops one; with a tracer (run_code with
 * trace) Octez's logging wrapper skips the `KCons` charge (see `control.cons`).
 *
 * Every value here is exact to Octez v12.4 (same formulas, integer arithmetic).
 * @module
 */
import type { Ty } from "../ty.ts";
import type { Value, Some, OrValue, Ticket } from "../value.ts";
import { log2, sAdd, sMul } from "./arith.ts";
import * as M from "./models.ts";
import { bytesLength, ENTRYPOINT_SIZE, intBytes, PUBLIC_KEY_HASH_SIZE, SCRIPT_EXPR_HASH_SIZE, stringLength, zBytes, zNumbits } from "./size.ts";

/** Anything with a number of elements (an `MList`, `MMap`, `MSet`, or a big map's `diff`). */
export interface Sized {
  readonly size: number;
}

function sizeOf(x: Sized | number): number {
  return typeof x === "number" ? x : x.size;
}

// ---------------------------------------------------------------- stack, pairs, options, unions, lists

/** `Cost_of.Interpreter.drop` (DROP). */
export const drop = 10;
/** `Cost_of.Interpreter.dup` (DUP). */
export const dup = 10;
/** `Cost_of.Interpreter.swap` (SWAP). */
export const swap = 10;
/** `Cost_of.Interpreter.cons_some` (SOME). */
export const consSome = 15;
/** `Cost_of.Interpreter.cons_none` (NONE). */
export const consNone = 15;
/** `Cost_of.Interpreter.if_none` (IF_NONE). */
export const ifNone = 10;
/** `Cost_of.Interpreter.cons_pair` (PAIR). */
export const consPair = 15;
/** `Cost_of.Interpreter.unpair` (UNPAIR). */
export const unpair = 10;
/** `Cost_of.Interpreter.car` (CAR). */
export const car = 10;
/** `Cost_of.Interpreter.cdr` (CDR). */
export const cdr = 10;
/** `Cost_of.Interpreter.cons_left` (LEFT). */
export const consLeft = 15;
/** `Cost_of.Interpreter.cons_right` (RIGHT). */
export const consRight = 15;
/** `Cost_of.Interpreter.if_left` (IF_LEFT). */
export const ifLeft = 10;
/** `Cost_of.Interpreter.cons_list` (CONS). */
export const consList = 15;
/** `Cost_of.Interpreter.nil` (NIL). */
export const nil = 15;
/** `Cost_of.Interpreter.if_cons` (IF_CONS). */
export const ifCons = 10;
/** `Cost_of.Interpreter.list_map list` (MAP on a list; does not depend on the length). */
export function listMap(_list: Sized): number {
  return 45;
}
/** `Cost_of.Interpreter.list_size` (SIZE of a list). */
export const listSize = 15;
/** `Cost_of.Interpreter.list_iter list` (ITER on a list; does not depend on the length). */
export function listIter(_list: Sized): number {
  return 50;
}

// ---------------------------------------------------------------- sets, maps, big maps

/** `Cost_of.Interpreter.empty_set` (EMPTY_SET). */
export const emptySet = 155;
/** `Cost_of.Interpreter.set_iter set` (ITER on a set). */
export function setIter(set: Sized): number {
  return M.nISetIter(sizeOf(set));
}
/** `Cost_of.Interpreter.set_size` (SIZE of a set). */
export const setSize = 15;
/** `Cost_of.Interpreter.empty_map` (EMPTY_MAP). */
export const emptyMap = 155;
/** `Cost_of.Interpreter.empty_big_map` (model N_IEmpty_big_map). */
export const emptyBigMap = 15;
/** `Cost_of.Interpreter.map_map map` (MAP on a map). */
export function mapMap(map: Sized): number {
  return M.nIMapMap(sizeOf(map));
}
/** `Cost_of.Interpreter.map_iter map` (ITER on a map). */
export function mapIter(map: Sized): number {
  return M.nIMapIter(sizeOf(map));
}
/** `Cost_of.Interpreter.map_size` (SIZE of a map). */
export const mapSize = 15;
/** `Cost_of.Interpreter.big_map_elt_size`: big map keys are costed as their 32-byte hash. */
export const bigMapEltSize = SCRIPT_EXPR_HASH_SIZE;
/** `Cost_of.Interpreter.big_map_mem overlay` (MEM on a big map; `overlay` = the big map's pending `diff`). */
export function bigMapMem(overlay: Sized): number {
  return M.nIMapGet(bigMapEltSize, sizeOf(overlay));
}
/** `Cost_of.Interpreter.big_map_get overlay` (GET on a big map; `overlay` = its pending `diff`). */
export function bigMapGet(overlay: Sized): number {
  return M.nIMapGet(bigMapEltSize, sizeOf(overlay));
}
/** `Cost_of.Interpreter.big_map_update overlay` (UPDATE on a big map; `overlay` = its pending `diff`). */
export function bigMapUpdate(overlay: Sized): number {
  return M.nIMapUpdate(bigMapEltSize, sizeOf(overlay));
}
/** `Cost_of.Interpreter.big_map_get_and_update overlay` (GET_AND_UPDATE on a big map). */
export function bigMapGetAndUpdate(overlay: Sized): number {
  return M.nIMapGetAndUpdate(bigMapEltSize, sizeOf(overlay));
}

/** Shared shape of `set_mem`/`map_mem`/`map_get`: 80 + log2(size) × compare(elt, elt). */
function lookup(factor: number, eltTy: Ty, elt: Value, coll: Sized | number): number {
  const perElt = compare(eltTy, elt, elt);
  return sAdd(80, sMul(sMul(factor, log2(sizeOf(coll))), perElt));
}

/** `Cost_of.Interpreter.set_mem elt set` (MEM on a set of `eltTy`). */
export function setMem(eltTy: Ty, elt: Value, set: Sized): number {
  return lookup(1, eltTy, elt, set);
}
/** `Cost_of.Interpreter.set_update elt set` (UPDATE on a set of `eltTy`). */
export function setUpdate(eltTy: Ty, elt: Value, set: Sized): number {
  return lookup(2, eltTy, elt, set);
}
/** `Cost_of.Interpreter.map_mem key map` (MEM on a map with keys of `keyTy`). */
export function mapMem(keyTy: Ty, key: Value, map: Sized): number {
  return lookup(1, keyTy, key, map);
}
/** `Cost_of.Interpreter.map_get key map` (GET on a map; same as `mapMem`). */
export function mapGet(keyTy: Ty, key: Value, map: Sized): number {
  return lookup(1, keyTy, key, map);
}
/** `Cost_of.Interpreter.map_update key map` (UPDATE on a map). */
export function mapUpdate(keyTy: Ty, key: Value, map: Sized): number {
  return lookup(2, keyTy, key, map);
}
/** `Cost_of.Interpreter.map_get_and_update key map` (GET_AND_UPDATE on a map). */
export function mapGetAndUpdate(keyTy: Ty, key: Value, map: Sized): number {
  return lookup(3, keyTy, key, map);
}
/**
 * `Cost_of.Interpreter.view_mem name views`: looking up a view by name among `viewCount` views
 * (charged in the context by VIEW, as `view_get`).
 */
export function viewMem(name: string, views: Sized | number): number {
  return lookup(1, STRING_TY, name, views);
}
/** `Cost_of.Interpreter.view_get` (same as `viewMem`). */
export const viewGet: (name: string, views: Sized | number) => number = viewMem;
/** `Cost_of.Interpreter.view_update name views`. */
export function viewUpdate(name: string, views: Sized | number): number {
  return lookup(2, STRING_TY, name, views);
}
const STRING_TY: Ty = { prim: "string", args: [] };

// ---------------------------------------------------------------- timestamps, strings, bytes

/** `Cost_of.Interpreter.add_seconds_timestamp seconds timestamp` (ADD int timestamp). */
export function addSecondsTimestamp(seconds: bigint, timestamp: bigint): number {
  return M.linearOpInt(intBytes(seconds), zBytes(timestamp));
}
/** `Cost_of.Interpreter.add_timestamp_seconds timestamp seconds` (ADD timestamp int). */
export function addTimestampSeconds(timestamp: bigint, seconds: bigint): number {
  return M.linearOpInt(zBytes(timestamp), intBytes(seconds));
}
/** `Cost_of.Interpreter.sub_timestamp_seconds timestamp seconds` (SUB timestamp int). */
export function subTimestampSeconds(timestamp: bigint, seconds: bigint): number {
  return M.linearOpInt(zBytes(timestamp), intBytes(seconds));
}
/** `Cost_of.Interpreter.diff_timestamps t1 t2` (SUB timestamp timestamp). */
export function diffTimestamps(t1: bigint, t2: bigint): number {
  return M.linearOpInt(zBytes(t1), zBytes(t2));
}
/** `Cost_of.Interpreter.concat_string_pair s1 s2` (CONCAT of two strings). */
export function concatStringPair(s1: string, s2: string): number {
  return M.nIConcatPair(stringLength(s1), stringLength(s2));
}
/** `Cost_of.Interpreter.slice_string s` (SLICE on a string; `s` = the sliced string). */
export function sliceString(s: string): number {
  return M.nISlice(stringLength(s));
}
/** `Cost_of.Interpreter.string_size` (SIZE of a string). */
export const stringSize = 15;
/** `Cost_of.Interpreter.concat_bytes_pair b1 b2` (CONCAT of two bytes). */
export function concatBytesPair(b1: Uint8Array, b2: Uint8Array): number {
  return M.nIConcatPair(bytesLength(b1), bytesLength(b2));
}
/** `Cost_of.Interpreter.slice_bytes b` (SLICE on bytes; `b` = the sliced bytes). */
export function sliceBytes(b: Uint8Array): number {
  return M.nISlice(bytesLength(b));
}
/** `Cost_of.Interpreter.bytes_size` (SIZE of bytes). */
export const bytesSize = 15;
/**
 * `Cost_of.Interpreter.concat_string_precheck list` (CONCAT of a list of strings or bytes, first
 * part, charged by `cost_of_instr`): 10 per element.
 */
export function concatStringPrecheck(list: Sized): number {
  return sMul(sizeOf(list), 10);
}
/** `Cost_of.Interpreter.concat_string total_bytes` (CONCAT of a list of strings, second part, charged by the instruction). */
export function concatString(totalBytes: number): number {
  return sAdd(100, Math.floor(totalBytes / 10));
}
/** `Cost_of.Interpreter.concat_bytes total_bytes` (CONCAT of a list of bytes, second part). */
export function concatBytes(totalBytes: number): number {
  return sAdd(100, Math.floor(totalBytes / 10));
}

// ---------------------------------------------------------------- mutez, booleans, integers

/** `Cost_of.Interpreter.add_tez` (ADD mutez). */
export const addTez = 25;
/** `Cost_of.Interpreter.sub_tez` (SUB mutez). */
export const subTez = 25;
/** `Cost_of.Interpreter.mul_teznat` (MUL mutez nat). */
export const mulTeznat = 100;
/** `Cost_of.Interpreter.mul_nattez` (MUL nat mutez). */
export const mulNattez = 100;
/** `Cost_of.Interpreter.bool_or` (OR bool). */
export const boolOr = 15;
/** `Cost_of.Interpreter.bool_and` (AND bool). */
export const boolAnd = 20;
/** `Cost_of.Interpreter.bool_xor` (XOR bool). */
export const boolXor = 20;
/** `Cost_of.Interpreter.bool_not` (NOT bool). */
export const boolNot = 10;
/** `Cost_of.Interpreter.is_nat` (ISNAT). */
export const isNat = 15;
/** `Cost_of.Interpreter.abs_int i` (ABS). */
export function absInt(i: bigint): number {
  return M.nIAbsInt(intBytes(i));
}
/** `Cost_of.Interpreter.int_nat` (INT on nat). */
export const intNat = 15;
/** `Cost_of.Interpreter.neg_int i` (NEG int). */
export function negInt(i: bigint): number {
  return M.nIAbsInt(intBytes(i));
}
/** `Cost_of.Interpreter.neg_nat n` (NEG nat). */
export function negNat(n: bigint): number {
  return M.nIAbsInt(intBytes(n));
}
/** `Cost_of.Interpreter.add_intint i1 i2` (ADD int int). */
export function addIntint(i1: bigint, i2: bigint): number {
  return M.linearOpInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.add_intnat i1 i2` (ADD int nat). */
export function addIntnat(i1: bigint, i2: bigint): number {
  return M.linearOpInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.add_natint i1 i2` (ADD nat int). */
export function addNatint(i1: bigint, i2: bigint): number {
  return M.linearOpInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.add_natnat i1 i2` (ADD nat nat). */
export function addNatnat(i1: bigint, i2: bigint): number {
  return M.linearOpInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.sub_int i1 i2` (SUB on int/nat, every combination). */
export function subInt(i1: bigint, i2: bigint): number {
  return M.linearOpInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.mul_intint i1 i2` (MUL int int). */
export function mulIntint(i1: bigint, i2: bigint): number {
  return M.mulInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.mul_intnat i1 i2` (MUL int nat). */
export function mulIntnat(i1: bigint, i2: bigint): number {
  return M.mulInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.mul_natint i1 i2` (MUL nat int). */
export function mulNatint(i1: bigint, i2: bigint): number {
  return M.mulInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.mul_natnat i1 i2` (MUL nat nat). */
export function mulNatnat(i1: bigint, i2: bigint): number {
  return M.mulInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.ediv_teznat tez n` (EDIV mutez nat; constant). */
export function edivTeznat(_tez: bigint, _n: bigint): number {
  return 70;
}
/** `Cost_of.Interpreter.ediv_tez` (EDIV mutez mutez). */
export const edivTez = 65;
/** `Cost_of.Interpreter.ediv_intint i1 i2` (EDIV int int). */
export function edivIntint(i1: bigint, i2: bigint): number {
  return M.divInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.ediv_intnat i1 i2` (EDIV int nat). */
export function edivIntnat(i1: bigint, i2: bigint): number {
  return M.divInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.ediv_natint i1 i2` (EDIV nat int). */
export function edivNatint(i1: bigint, i2: bigint): number {
  return M.divInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.ediv_natnat i1 i2` (EDIV nat nat). */
export function edivNatnat(i1: bigint, i2: bigint): number {
  return M.divInt(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.eq` (EQ). */
export const eq = 15;
/** `Cost_of.Interpreter.neq` (NEQ). */
export const neq = 15;
/** `Cost_of.Interpreter.lt` (LT). */
export const lt = 15;
/** `Cost_of.Interpreter.le` (LE). */
export const le = 15;
/** `Cost_of.Interpreter.gt` (GT). */
export const gt = 15;
/** `Cost_of.Interpreter.ge` (GE). */
export const ge = 15;
/** `Cost_of.Interpreter.lsl_nat shifted` (LSL; `shifted` = the number being shifted, top of stack). */
export function lslNat(shifted: bigint): number {
  return M.nILslNat(intBytes(shifted));
}
/** `Cost_of.Interpreter.lsr_nat shifted` (LSR; `shifted` = the number being shifted, top of stack). */
export function lsrNat(shifted: bigint): number {
  return M.nILslNat(intBytes(shifted));
}
/** `Cost_of.Interpreter.or_nat n1 n2` (OR nat). */
export function orNat(n1: bigint, n2: bigint): number {
  return M.linearOpInt(intBytes(n1), intBytes(n2));
}
/** `Cost_of.Interpreter.and_nat n1 n2` (AND nat nat). */
export function andNat(n1: bigint, n2: bigint): number {
  return M.nIAndNat(intBytes(n1), intBytes(n2));
}
/** `Cost_of.Interpreter.and_int_nat n1 n2` (AND int nat). */
export function andIntNat(n1: bigint, n2: bigint): number {
  return M.nIAndIntNat(intBytes(n1), intBytes(n2));
}
/** `Cost_of.Interpreter.xor_nat n1 n2` (XOR nat). */
export function xorNat(n1: bigint, n2: bigint): number {
  return M.linearOpInt(intBytes(n1), intBytes(n2));
}
/** `Cost_of.Interpreter.not_int i` (NOT int). */
export function notInt(i: bigint): number {
  return M.nINotInt(intBytes(i));
}
/** `Cost_of.Interpreter.not_nat n` (NOT nat). */
export function notNat(n: bigint): number {
  return M.nINotInt(intBytes(n));
}

// ---------------------------------------------------------------- control structures

/** `Cost_of.Interpreter.if_` (IF). */
export const if_ = 10;
/** `Cost_of.Interpreter.loop` (LOOP, each time the instruction itself runs). */
export const loop = 10;
/** `Cost_of.Interpreter.loop_left` (LOOP_LEFT). */
export const loopLeft = 10;
/** `Cost_of.Interpreter.dip` (DIP). */
export const dip = 15;
/** `Cost_of.Interpreter.view` (VIEW). */
export const view = 1370;
/** `Cost_of.Interpreter.exec` (EXEC). */
export const exec = 15;
/** `Cost_of.Interpreter.apply` (APPLY; the unparsing of the captured value is charged in the context too). */
export const apply = 135;
/** `Cost_of.Interpreter.lambda` (LAMBDA). */
export const lambda = 10;
/** `Cost_of.Interpreter.halt`: the end of a sequence body (`IHalt`: end of the script, of a DIP/IF/LOOP/ITER/MAP/lambda body). */
export const halt = 15;
/** `Cost_of.Interpreter.const` (PUSH; also the values DIP n puts back). */
export const const_ = 10;
/** FAILWITH: free in `cost_of_instr` (Octez charges the unparsing of the failing value in the context). */
export const failwith = 0;
/** PACK: free in `cost_of_instr` (Octez charges unparsing and serialization in the context). */
export const pack = 0;
/** `Cost_of.Interpreter.dign n` (DIG n). */
export function dign(n: number): number {
  return M.nIDig(n);
}
/** `Cost_of.Interpreter.dugn n` (DUG n). */
export function dugn(n: number): number {
  return M.nIDig(n);
}
/** `Cost_of.Interpreter.dipn n` (DIP n). */
export function dipn(n: number): number {
  return M.nIDipN(n);
}
/** `Cost_of.Interpreter.dropn n` (DROP n). */
export function dropn(n: number): number {
  return M.nIDropN(n);
}
/** `Cost_of.Interpreter.dupn n` (DUP n). */
export function dupn(n: number): number {
  return M.nIDupN(n);
}
/** `Cost_of.Interpreter.comb n` (PAIR n). */
export function comb(n: number): number {
  return M.nIComb(n);
}
/** `Cost_of.Interpreter.uncomb n` (UNPAIR n). */
export function uncomb(n: number): number {
  return M.nIUncomb(n);
}
/** `Cost_of.Interpreter.comb_get n` (GET n; `n` = the GET index). */
export function combGet(n: number): number {
  return M.nICombGet(n);
}
/** `Cost_of.Interpreter.comb_set n` (UPDATE n; `n` = the UPDATE index). */
export function combSet(n: number): number {
  return M.nICombSet(n);
}

// ---------------------------------------------------------------- crypto

/** Key kind of a Base58 public key (`edpk`, `sppk`, `p2pk`) or binary key (tag 0, 1, 2). */
function keyKind(pkey: string | Uint8Array): "ed25519" | "secp256k1" | "p256" {
  if (typeof pkey === "string") {
    if (pkey.startsWith("edpk")) return "ed25519";
    if (pkey.startsWith("sppk")) return "secp256k1";
    if (pkey.startsWith("p2pk")) return "p256";
  } else if (pkey instanceof Uint8Array && pkey.length > 0) {
    if (pkey[0] === 0) return "ed25519";
    if (pkey[0] === 1) return "secp256k1";
    if (pkey[0] === 2) return "p256";
  }
  throw new TypeError("checkSignature: not a public key");
}

/** `Cost_of.Interpreter.check_signature pkey message` (CHECK_SIGNATURE; depends on the key's curve). */
export function checkSignature(pkey: string | Uint8Array, message: Uint8Array): number {
  return M.nICheckSignature(keyKind(pkey), bytesLength(message));
}
/** `Cost_of.Interpreter.hash_key` (HASH_KEY; constant). */
export function hashKey(_pkey?: string): number {
  return 655;
}
/** `Cost_of.Interpreter.blake2b b` (BLAKE2B). */
export function blake2b(b: Uint8Array): number {
  return M.nIBlake2b(bytesLength(b));
}
/** `Cost_of.Interpreter.sha256 b` (SHA256). */
export function sha256(b: Uint8Array): number {
  return M.nISha256(bytesLength(b));
}
/** `Cost_of.Interpreter.sha512 b` (SHA512). */
export function sha512(b: Uint8Array): number {
  return M.nISha512(bytesLength(b));
}
/** `Cost_of.Interpreter.keccak b` (KECCAK). */
export function keccak(b: Uint8Array): number {
  return M.nIKeccak(bytesLength(b));
}
/** `Cost_of.Interpreter.sha3 b` (SHA3). */
export function sha3(b: Uint8Array): number {
  return M.nIKeccak(bytesLength(b));
}
/** `Cost_of.Interpreter.add_bls12_381_g1` (ADD g1). */
export const addBls12381G1 = 8_300;
/** `Cost_of.Interpreter.add_bls12_381_g2` (ADD g2). */
export const addBls12381G2 = 11_450;
/** `Cost_of.Interpreter.add_bls12_381_fr` (ADD fr). */
export const addBls12381Fr = 145;
/** `Cost_of.Interpreter.mul_bls12_381_g1` (MUL g1 fr). */
export const mulBls12381G1 = 229_850;
/** `Cost_of.Interpreter.mul_bls12_381_g2` (MUL g2 fr). */
export const mulBls12381G2 = 760_350;
/** `Cost_of.Interpreter.mul_bls12_381_fr` (MUL fr fr). */
export const mulBls12381Fr = 170;
/** `Cost_of.Interpreter.mul_bls12_381_fr_z z` (MUL fr int/nat; `z` = the integer, second on the stack). */
export function mulBls12381FrZ(z: bigint): number {
  return M.nIMulBls12381FrZ(intBytes(z));
}
/** `Cost_of.Interpreter.mul_bls12_381_z_fr z` (MUL int/nat fr; `z` = the integer, on top of the stack). */
export function mulBls12381ZFr(z: bigint): number {
  return M.nIMulBls12381FrZ(intBytes(z));
}
/** `Cost_of.Interpreter.int_bls12_381_fr` (INT on fr). */
export const intBls12381Fr = 40;
/** `Cost_of.Interpreter.neg_bls12_381_g1` (NEG g1). */
export const negBls12381G1 = 290;
/** `Cost_of.Interpreter.neg_bls12_381_g2` (NEG g2). */
export const negBls12381G2 = 555;
/** `Cost_of.Interpreter.neg_bls12_381_fr` (NEG fr). */
export const negBls12381Fr = 120;
/** `Cost_of.Interpreter.pairing_check_bls12_381 list` (PAIRING_CHECK; per pair in the list). */
export function pairingCheckBls12381(list: Sized): number {
  return M.nIPairingCheckBls12381(sizeOf(list));
}
/** `Cost_of.Interpreter.sapling_verify_update ~inputs ~outputs` (SAPLING_VERIFY_UPDATE; counts of the transaction's inputs and outputs). */
export function saplingVerifyUpdate(inputs: number, outputs: number): number {
  return M.nISaplingVerifyUpdate(inputs, outputs);
}
/** `Cost_of.Interpreter.sapling_empty_state` (SAPLING_EMPTY_STATE). */
export const saplingEmptyState = 15;
/**
 * `Cost_of.Interpreter.open_chest ~chest ~time` (OPEN_CHEST). `plaintextSize` = the chest's
 * ciphertext payload length minus 16 (`Timelock.get_plaintext_size`); `time` = the time argument.
 * Octez charges `Z.log2 (1 + time)` time units.
 */
export function openChest(plaintextSize: number, time: bigint): number {
  return M.nIOpenChest(plaintextSize, zNumbits(time + 1n) - 1);
}

// ---------------------------------------------------------------- chain, contracts, tickets

/** `Cost_of.Interpreter.address` (ADDRESS). */
export const address = 10;
/** `Cost_of.Interpreter.contract` (CONTRACT; the context lookup is charged in the context too). */
export const contract = 30;
/** `Cost_of.Interpreter.transfer_tokens` (TRANSFER_TOKENS; unparsing of the parameter is charged in the context too). */
export const transferTokens = 30;
/** `Cost_of.Interpreter.implicit_account` (IMPLICIT_ACCOUNT). */
export const implicitAccount = 10;
/** `Cost_of.Interpreter.create_contract` (CREATE_CONTRACT; unparsing of the storage is charged in the context too). */
export const createContract = 30;
/** `Cost_of.Interpreter.set_delegate` (SET_DELEGATE). */
export const setDelegate = 40;
/** `Cost_of.Interpreter.balance` (BALANCE; free here, the balance read is charged in the context). */
export const balance = 0;
/** `Cost_of.Interpreter.level` (LEVEL). */
export const level = 25;
/** `Cost_of.Interpreter.now` (NOW). */
export const now = 25;
/** `Cost_of.Interpreter.source` (SOURCE). */
export const source = 15;
/** `Cost_of.Interpreter.sender` (SENDER). */
export const sender = 15;
/** `Cost_of.Interpreter.self` (SELF). */
export const self = 15;
/** `Cost_of.Interpreter.self_address` (SELF_ADDRESS). */
export const selfAddress = 15;
/** `Cost_of.Interpreter.amount` (AMOUNT). */
export const amount = 15;
/** `Cost_of.Interpreter.chain_id` (CHAIN_ID). */
export const chainId = 15;
/** `Cost_of.Interpreter.voting_power` (VOTING_POWER). */
export const votingPower = 400;
/** `Cost_of.Interpreter.total_voting_power` (TOTAL_VOTING_POWER). */
export const totalVotingPower = 300;
/** `Cost_of.Interpreter.ticket` (TICKET). */
export const ticket = 15;
/** `Cost_of.Interpreter.read_ticket` (READ_TICKET). */
export const readTicket = 15;
/**
 * `Cost_of.Interpreter.split_ticket ticket_amount amount_a amount_b` (SPLIT_TICKET): depends on
 * the larger of the two requested amounts (the ticket's own amount is not used).
 */
export function splitTicket(_ticketAmount: bigint, amountA: bigint, amountB: bigint): number {
  return M.nISplitTicket(intBytes(amountA), intBytes(amountB));
}
/** `Cost_of.Interpreter.join_tickets ty ticket_a ticket_b` (JOIN_TICKETS; `ty` = the contents type). */
export function joinTickets(ty: Ty, ticketA: Ticket, ticketB: Ticket): number {
  return sAdd(compare(ty, ticketA.contents, ticketB.contents), compareAddress, addNatnat(ticketA.amount, ticketB.amount));
}
/** `Cost_of.Interpreter.unpack bytes` (UNPACK, before decoding; decoding and typechecking are charged in the context). */
export function unpack(bytes: Uint8Array): number {
  return sAdd(100, Math.floor(bytesLength(bytes) / 8));
}
/** `Cost_of.Interpreter.unpack_failed bytes`: worst-case charge when the bytes do not decode. */
export function unpackFailed(bytes: Uint8Array): number {
  const len = bytesLength(bytes);
  const d = zNumbits(BigInt(len));
  // len * alloc_mbytes_cost 1 + len * (d * (alloc_cost 3 + step_cost 1))
  const allocMbytes1 = 2000 * 13 + 2000 * 2;
  return sAdd(sMul(len, allocMbytes1), sMul(len, sMul(d, 2000 * 4 + 1000)));
}
/** `Cost_of.manager_operation`: the fixed gas of every manager operation (1000 gas). */
export const managerOperation = 1_000_000;

// ---------------------------------------------------------------- COMPARE

/** `Cost_of.Interpreter.compare_unit`. */
export const compareUnit = 10;
/** `Cost_of.Interpreter.compare_pair_tag`: charged for each pair level. */
export const comparePairTag = 10;
/** `Cost_of.Interpreter.compare_union_tag`: charged for each `or` level. */
export const compareUnionTag = 10;
/** `Cost_of.Interpreter.compare_option_tag`: charged for each option level. */
export const compareOptionTag = 10;
/** `Cost_of.Interpreter.compare_bool`. */
export const compareBool = M.nICompare(1, 1);
/** `Cost_of.Interpreter.compare_signature`. */
export const compareSignature = 92;
/** `Cost_of.Interpreter.compare_string s1 s2`. */
export function compareString(s1: string, s2: string): number {
  return M.nICompare(stringLength(s1), stringLength(s2));
}
/** `Cost_of.Interpreter.compare_bytes b1 b2`. */
export function compareBytes(b1: Uint8Array, b2: Uint8Array): number {
  return M.nICompare(bytesLength(b1), bytesLength(b2));
}
/** `Cost_of.Interpreter.compare_mutez`. */
export const compareMutez = M.nICompare(8, 8);
/** `Cost_of.Interpreter.compare_int i1 i2`. */
export function compareInt(i1: bigint, i2: bigint): number {
  return M.nICompare(intBytes(i1), intBytes(i2));
}
/** `Cost_of.Interpreter.compare_nat n1 n2`. */
export function compareNat(n1: bigint, n2: bigint): number {
  return M.nICompare(intBytes(n1), intBytes(n2));
}
/** `Cost_of.Interpreter.compare_key_hash`. */
export const compareKeyHash = M.nICompare(PUBLIC_KEY_HASH_SIZE, PUBLIC_KEY_HASH_SIZE);
/** `Cost_of.Interpreter.compare_key`. */
export const compareKey = 92;
/** `Cost_of.Interpreter.compare_timestamp t1 t2`. */
export function compareTimestamp(t1: bigint, t2: bigint): number {
  return M.nICompare(zBytes(t1), zBytes(t2));
}
/** `Cost_of.Interpreter.entrypoint_size`: largest entrypoint name (bytes). */
export const entrypointSize = ENTRYPOINT_SIZE;
/** `Cost_of.Interpreter.compare_address`. */
export const compareAddress = M.nICompare(PUBLIC_KEY_HASH_SIZE + ENTRYPOINT_SIZE, PUBLIC_KEY_HASH_SIZE + ENTRYPOINT_SIZE);
/** `Cost_of.Interpreter.compare_chain_id`. */
export const compareChainId = 30;

/**
 * `Cost_of.Interpreter.compare ty a b` (COMPARE, and the per-element cost of map/set
 * operations): walks both values along the comparable type `ty`. Pairs charge a tag and both
 * sides (always, even when the left sides differ); `or` charges a tag and, when both are on the
 * same side, that side; options charge a tag and, when both are `Some`, the contents.
 */
export function compare(ty: Ty, a: Value, b: Value): number {
  let acc = 0;
  const todo: [Ty, Value, Value][] = [[ty, a, b]];
  while (todo.length > 0) {
    const [t, x, y] = todo.pop() as [Ty, Value, Value];
    switch (t.prim) {
      case "unit":
        acc = sAdd(acc, compareUnit);
        break;
      case "bool":
        acc = sAdd(acc, compareBool);
        break;
      case "string":
        acc = sAdd(acc, compareString(x as string, y as string));
        break;
      case "signature":
        acc = sAdd(acc, compareSignature);
        break;
      case "bytes":
        acc = sAdd(acc, compareBytes(x as Uint8Array, y as Uint8Array));
        break;
      case "mutez":
        acc = sAdd(acc, compareMutez);
        break;
      case "int":
        acc = sAdd(acc, compareInt(x as bigint, y as bigint));
        break;
      case "nat":
        acc = sAdd(acc, compareNat(x as bigint, y as bigint));
        break;
      case "key_hash":
        acc = sAdd(acc, compareKeyHash);
        break;
      case "key":
        acc = sAdd(acc, compareKey);
        break;
      case "timestamp":
        acc = sAdd(acc, compareTimestamp(x as bigint, y as bigint));
        break;
      case "address":
        acc = sAdd(acc, compareAddress);
        break;
      case "chain_id":
        acc = sAdd(acc, compareChainId);
        break;
      case "pair": {
        const [xl, xr] = x as readonly [Value, Value];
        const [yl, yr] = y as readonly [Value, Value];
        acc = sAdd(acc, comparePairTag);
        todo.push([t.args[1], xr, yr], [t.args[0], xl, yl]);
        break;
      }
      case "or": {
        const xo = x as OrValue;
        const yo = y as OrValue;
        acc = sAdd(acc, compareUnionTag);
        if (xo.or === yo.or) todo.push([xo.or === "Left" ? t.args[0] : t.args[1], xo.value, yo.value]);
        break;
      }
      case "option":
        acc = sAdd(acc, compareOptionTag);
        if (x !== null && y !== null) todo.push([t.args[0], (x as Some).some, (y as Some).some]);
        break;
      default:
        throw new TypeError(`compare: ${t.prim} is not a comparable type`);
    }
  }
  return acc;
}

// ---------------------------------------------------------------- continuations

/**
 * `Cost_of.Interpreter.Control`: what popping each continuation costs (`cost_of_control`).
 * - `nil`: end of the whole run (`KNil`).
 * - `cons`: going on with the instruction after a finished body (`KCons`). NOTE: when a tracer
 *   is installed (run_code/trace_code with trace), Octez's logging wrapper dispatches `KCons`
 *   without charging it, so traced runs skip this cost.
 * - `return`: end of a lambda body (`KReturn`), `undip`: end of a DIP body (`KUndip`),
 *   `loopIn`/`loopInLeft`: each LOOP/LOOP_LEFT test, `iter`: each ITER step (also the last),
 *   `listEnterBody`/`listExitBody`: MAP on a list, `mapEnterBody`/`mapExitBody`: MAP on a map,
 *   `viewExit`: end of a VIEW body.
 */
export const control = {
  /** `Control.nil` (`KNil`). */
  nil: 20,
  /** `Control.cons` (`KCons`; not charged under a tracer). */
  cons: 15,
  /** `Control.return` (`KReturn`). */
  return: 15,
  /** `Control.view_exit` (`KView_exit`). */
  viewExit: 15,
  /** `Control.undip` (`KUndip`). */
  undip: 15,
  /** `Control.loop_in` (`KLoop_in`). */
  loopIn: 15,
  /** `Control.loop_in_left` (`KLoop_in_left`). */
  loopInLeft: 15,
  /** `Control.iter` (`KIter`). */
  iter: 20,
  /**
   * `Control.list_enter_body xs ys_len` (`KList_enter_body`): `remaining` = elements still to
   * map (70 when any), `ysLen` = the list length (charged once at the end, when none remain).
   */
  listEnterBody(remaining: number | Sized, ysLen: number): number {
    return M.nKListEnterBody(sizeOf(remaining as Sized | number), ysLen);
  },
  /** `Control.list_exit_body` (`KList_exit_body`). */
  listExitBody: 30,
  /** `Control.map_enter_body` (`KMap_enter_body`). */
  mapEnterBody: 130,
  /** `Control.map_exit_body key map` (`KMap_exit_body`): a `map_update` of the new map being built (`map` = that map so far). */
  mapExitBody(keyTy: Ty, key: Value, map: Sized): number {
    return mapUpdate(keyTy, key, map);
  },
} as const;
