/**
 * Sizes, arithmetic and composite costs of the Hangzhou gas model, with values worked out by
 * hand from Octez v12.4's formulas (michelson_v1_gas.ml, saturation_repr.ml, script_repr.ml).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as I from "../../lib/michelson/gas/interpreter.ts";
import * as T from "../../lib/michelson/gas/typechecking.ts";
import * as U from "../../lib/michelson/gas/unparsing.ts";
import * as S from "../../lib/michelson/gas/script.ts";
import { formatMilligas, log2, numbits, parseMilligas, SATURATED, sAdd, sMul } from "../../lib/michelson/gas/arith.ts";
import { michelineNodes, michelineSize, zBytes, zNumbits } from "../../lib/michelson/gas/size.ts";
import { ty } from "../../lib/michelson/ty.ts";

test("integer sizes are the bytes of the magnitude, 0 for zero", () => {
  assert.is(zBytes(0n), 0);
  assert.is(zBytes(255n), 1);
  assert.is(zBytes(256n), 2);
  assert.is(zBytes(-256n), 2);
  assert.is(zBytes(2n ** 64n), 9);
  assert.is(zNumbits(12039123919239192312931n), 74);
});

test("log2 of the cost models is 1 + numbits, so log2 0 = 1", () => {
  assert.is(numbits(0), 0);
  assert.is(log2(0), 1);
  assert.is(log2(1), 2);
  assert.is(log2(3), 3);
  assert.is(numbits(2 ** 40), 41);
});

test("gas prints and parses as Octez prints it", () => {
  assert.is(formatMilligas(1039986369), "1039986.369");
  assert.is(formatMilligas(1039986000), "1039986");
  assert.is(formatMilligas(5), "0.005");
  assert.is(parseMilligas("1039989.246"), 1039989246);
  assert.is(parseMilligas("12.5"), 12500);
  assert.throws(() => parseMilligas("1e3"), TypeError);
});

test("costs saturate instead of overflowing", () => {
  assert.is(sAdd(SATURATED, 1), SATURATED);
  assert.is(sMul(2 ** 40, 2 ** 40), SATURATED);
});

test("integer arithmetic models: ADD of a 10-byte and a 1-byte int, EDIV, MUL", () => {
  const big = 2n ** 79n; // 10 bytes
  assert.is(I.addIntint(big, 1n), 35); // 10 >> 4 = 0
  assert.is(I.addIntint(2n ** 255n, 1n), 35 + 2 + 0); // 32 bytes: 32>>4 = 2, 32>>7 = 0
  assert.is(I.edivNatnat(1n, 2n ** 64n), 110); // dividend shorter than divisor
  assert.is(I.mulNatnat(0n, 0n), 75);
  assert.is(I.mulIntint(1n, 1n), 79); // a = 2, log2 2 = 3, v = 6: 75 + 3 + 1
});

test("COMPARE on pairs charges a tag and both sides; on or/option only what both share", () => {
  const pairTy = ty("pair", ty("int"), ty("string"));
  assert.is(I.compare(pairTy, [1n, "a"], [2n, "b"]), 10 + 35 + 35);
  const orTy = ty("or", ty("int"), ty("unit"));
  assert.is(I.compare(orTy, { or: "Left", value: 1n }, { or: "Right", value: null }), 10);
  assert.is(I.compare(orTy, { or: "Right", value: null }, { or: "Right", value: null }), 10 + 10);
  const optTy = ty("option", ty("nat"));
  assert.is(I.compare(optTy, null, { some: 3n }), 10);
  assert.is(I.compare(optTy, { some: 3n }, { some: 4n }), 10 + 35);
  assert.is(I.compare(ty("key_hash"), "tz1", "tz1"), 36);
  assert.is(I.compareAddress, 36);
  assert.throws(() => I.compare(ty("list", ty("int")), null, null), TypeError);
});

test("set and map updates scale with log2 of the size", () => {
  const nat = ty("nat");
  assert.is(I.setMem(nat, 1n, { size: 0 }), 80 + 35);
  assert.is(I.setUpdate(nat, 1n, { size: 3 }), 80 + 2 * 3 * 35);
  assert.is(I.mapGetAndUpdate(nat, 1n, { size: 1 }), 80 + 3 * 2 * 35);
  assert.is(I.bigMapGetAndUpdate({ size: 0 }), 165 + 4 + 0);
  assert.is(I.control.mapExitBody(nat, 1n, { size: 0 }), 80 + 2 * 35);
  assert.is(I.control.listEnterBody(2, 0), 70);
  assert.is(I.control.listEnterBody(0, 8), 40 + 8 + 4 + 1);
});

test("CHECK_SIGNATURE depends on the key's curve", () => {
  const msg = new Uint8Array(16);
  assert.is(I.checkSignature("edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav", msg), 242_950 + 16 + 2);
  assert.is(I.checkSignature("sppk7a", msg), 49_700 + 18);
  assert.is(I.checkSignature("p2pk66", msg), 532_150 + 18);
  assert.throws(() => I.checkSignature("tz1", msg), TypeError);
});

test("typechecking and unparsing leaves take the costliest curve", () => {
  assert.is(T.publicKeyReadable, 27_000);
  assert.is(T.publicKeyOptimized, 23_000);
  assert.is(T.contract, 54_000);
  assert.is(T.contractExists, 220_016);
  assert.is(T.checkPrintable("abc"), 44);
  assert.is(U.publicKeyReadable, 4_700);
  assert.is(U.keyHashOptimized, 80);
  assert.is(U.contract, 9_400);
  assert.is(T.proofArgument(4), 200);
});

test("Micheline sizes count annotations as strings; strip_locations counts nodes only", () => {
  const node = { prim: "Pair", args: [{ int: "300" }, { string: "ab" }], annots: ["%x"] };
  assert.equal(michelineSize(node), { nodes: 4, stringBytes: 4, zBytes: 2 });
  assert.is(michelineNodes(node), 3);
  assert.is(S.stripLocationsCost(node), 153);
  assert.is(S.serializationCost(michelineSize(node)), 400 + 40 + 50);
  assert.is(S.deserializationCost(michelineSize(node)), 240 + 40 + 20);
});

test.run();
