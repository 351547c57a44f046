import { readFileSync } from "node:fs";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  Bls12381DecodeError,
  FR_ORDER,
  frAdd,
  frFromBytes,
  frFromInt,
  frMul,
  frNeg,
  frToBytes,
  frToInt,
  G1_ZERO,
  g1Add,
  g1FromBytes,
  g1Mul,
  g1Neg,
  G2_ZERO,
  g2Add,
  g2FromBytes,
  g2Mul,
  g2Neg,
  pairingCheck,
} from "../../lib/michelson/crypto/bls12-381.ts";

interface Case {
  id: string;
  file?: string;
  storage?: string;
  input?: string;
  expected_storage?: string;
  expected_error?: string;
}
const { cases }: { cases: Case[] } = JSON.parse(
  readFileSync(new URL("../vectors/michelson/cases.json", import.meta.url), "utf8"),
);

const hexOf = (b: Uint8Array) => "0x" + bytesToHex(b);
const bytesOf = (lit: string) => hexToBytes(lit.slice(2));
/** Michelson literal of an fr: bytes, or an integer (Fr.of_z). */
const frOf = (lit: string) => (lit.startsWith("0x") ? frFromBytes(bytesOf(lit)) : frFromInt(BigInt(lit)));
/** The two arguments of `Pair a b`. */
function pairOf(text: string): [string, string] {
  const m = /^Pair (\S+) (\S+)$/.exec(text.trim());
  if (m === null) throw new Error(`not a Pair: ${text}`);
  return [m[1]!, m[2]!];
}
/** `(Some x)` → x. */
const someOf = (text: string) => /^\(Some (\S+)\)$/.exec(text.trim())![1]!;

type Kind = "g1" | "g2" | "fr";
const fromLit = (kind: Kind, lit: string): Uint8Array | bigint =>
  kind === "fr" ? frOf(lit) : kind === "g1" ? g1FromBytes(bytesOf(lit)) : g2FromBytes(bytesOf(lit));
const show = (kind: Kind, v: Uint8Array | bigint) => hexOf(kind === "fr" ? frToBytes(v as bigint) : (v as Uint8Array));
const kindOf = (file: string) => /(g1|g2|fr)\.tz$/.exec(file)![1] as Kind;

/** What each BLS contract computes, on the case's input and storage; the result printed as the client does. */
const contracts: Record<string, (c: Case) => string> = {
  "store_bls12_381_": (c) => `(Some ${show(kindOf(c.file!), fromLit(kindOf(c.file!), c.input!))})`,
  "add_bls12_381_": (c) => {
    const k = kindOf(c.file!);
    const [a, b] = pairOf(c.input!).map((l) => fromLit(k, l));
    const r = k === "fr" ? frAdd(a as bigint, b as bigint) : k === "g1" ? g1Add(a as Uint8Array, b as Uint8Array) : g2Add(a as Uint8Array, b as Uint8Array);
    return `(Some ${show(k, r)})`;
  },
  "mul_bls12_381_": (c) => {
    const k = kindOf(c.file!);
    const [a, n] = pairOf(c.input!);
    const s = frOf(n);
    const r = k === "fr" ? frMul(frOf(a), s) : k === "g1" ? g1Mul(fromLit(k, a) as Uint8Array, s) : g2Mul(fromLit(k, a) as Uint8Array, s);
    return `(Some ${show(k, r)})`;
  },
  "neg_bls12_381_": (c) => {
    const k = kindOf(c.file!);
    const v = fromLit(k, c.input!);
    const r = k === "fr" ? frNeg(v as bigint) : k === "g1" ? g1Neg(v as Uint8Array) : g2Neg(v as Uint8Array);
    return `(Some ${show(k, r)})`;
  },
  "pairing_check": (c) => {
    const body = c.input!.trim().replace(/^\{/, "").replace(/\}$/, "").trim();
    const pairs = body === "" ? [] : body.split(";").map((p) => pairOf(p));
    const ok = pairingCheck(pairs.map(([a, b]) => [g1FromBytes(bytesOf(a)), g2FromBytes(bytesOf(b))] as const));
    return `(Some ${ok ? "True" : "False"})`;
  },
  // MUL fr × int / int × fr: Fr.of_z of the integer, then the product.
  "bls12_381_fr_z_": (c) => hexOf(frToBytes(frMul(frOf(c.storage!), frFromInt(BigInt(c.input!))))),
  "bls12_381_z_fr_": (c) => hexOf(frToBytes(frMul(frFromInt(BigInt(c.input!)), frOf(c.storage!)))),
  "bls12_381_fr_to_int": (c) => frToInt(frOf(c.input!)).toString(),
  "bls12_381_fr_to_mutez": (c) => frToInt(frOf(c.input!)).toString(),
  "bls12_381_fr_push_nat": () => `(Some ${hexOf(frToBytes(frFromInt(16n)))})`,
  "bls12_381_fr_push_bytes_not_padded": () => `(Some ${hexOf(frToBytes(frFromBytes(Uint8Array.of(0))))})`,
  "mutez_to_bls12_381_fr": (c) => hexOf(frToBytes(frMul(frFromInt(BigInt(c.input!)), frFromInt(1n)))),
};

const blsCases = cases.filter((c) => c.file?.startsWith("opcodes/") && /bls12_381|pairing_check/.test(c.file));
const runOf = (c: Case) => Object.entries(contracts).find(([k]) => c.file!.includes(k))?.[1];

test("every BLS12-381 opcode case of the Octez suite is covered here", () => {
  assert.is(blsCases.length, 541);
  assert.equal(blsCases.filter((c) => runOf(c) === undefined).map((c) => c.file), []);
});

for (const c of blsCases) {
  const run = runOf(c)!;
  const name = `${c.file} gives ${c.expected_storage ?? "an error"} on ${(c.input ?? "").slice(0, 40)}… (${c.id})`;
  test(name, () => {
    if (c.expected_error !== undefined) assert.throws(() => run(c), (e: unknown) => e instanceof Bls12381DecodeError);
    else assert.is(run(c), c.expected_storage!.replace(/\s+/g, " "));
  });
}

test("an fr literal of more than 32 bytes is refused, and so is r itself", () => {
  assert.throws(() => frFromBytes(new Uint8Array(33)), (e: unknown) => e instanceof Bls12381DecodeError);
  const r = new Uint8Array(32);
  let v = FR_ORDER;
  for (let i = 0; i < 32; i++, v >>= 8n) r[i] = Number(v & 0xffn);
  assert.throws(() => frFromBytes(r), (e: unknown) => e instanceof Bls12381DecodeError);
  r[0]! -= 1;
  assert.is(frFromBytes(r), FR_ORDER - 1n);
});

test("negative integers become fr elements modulo r", () => {
  assert.is(frFromInt(-1n), FR_ORDER - 1n);
  assert.is(hexOf(frToBytes(frFromInt(-42n))), "0xd7fffffffefffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73");
});

const G1 = bls12_381.G1.Point.BASE.toBytes(false);
const G2 = bls12_381.G2.Point.BASE.toBytes(false);

test("the points at infinity are 0x40 then zeros, and the only infinity encodings accepted", () => {
  assert.is(hexOf(G1_ZERO), "0x40" + "00".repeat(95));
  assert.is(hexOf(G2_ZERO), "0x40" + "00".repeat(191));
  const bad = G1_ZERO.slice();
  bad[95] = 1;
  assert.throws(() => g1FromBytes(bad), (e: unknown) => e instanceof Bls12381DecodeError);
  const sorted = G1_ZERO.slice();
  sorted[0] = 0x60;
  assert.throws(() => g1FromBytes(sorted), (e: unknown) => e instanceof Bls12381DecodeError);
  assert.throws(() => g1FromBytes(new Uint8Array(96)), (e: unknown) => e instanceof Bls12381DecodeError);
  assert.throws(() => g2FromBytes(new Uint8Array(192)), (e: unknown) => e instanceof Bls12381DecodeError);
});

test("points of the wrong length, off the curve, with a coordinate ≥ p or outside the subgroup are refused", () => {
  const refuse = (f: () => unknown) => assert.throws(f, (e: unknown) => e instanceof Bls12381DecodeError);
  refuse(() => g1FromBytes(G1.subarray(0, 95)));
  refuse(() => g2FromBytes(G1));
  const off = G1.slice();
  off[95]! ^= 1;
  refuse(() => g1FromBytes(off));
  const offG2 = G2.slice();
  offG2[191]! ^= 1;
  refuse(() => g2FromBytes(offG2));
  // x = p: the coordinate is out of the field even though x mod p = 0 is a valid abscissa (y² = 4).
  const p = bls12_381.fields.Fp.ORDER;
  const big = new Uint8Array(96);
  for (let i = 47, v = p; i >= 0; i--, v >>= 8n) big[i] = Number(v & 0xffn);
  big[95] = 2;
  refuse(() => g1FromBytes(big));
  // (0, 2) is on y² = x³ + 4 but not in the prime-order subgroup.
  const torsion = new Uint8Array(96);
  torsion[95] = 2;
  refuse(() => g1FromBytes(torsion));
});

test("a 96-byte G1 literal whose first half is a compressed point is read as blst reads it", () => {
  const compressed = new Uint8Array(96);
  compressed.set(bls12_381.G1.Point.BASE.negate().toBytes(true));
  compressed.fill(0xab, 48);
  assert.is(hexOf(g1FromBytes(compressed)), hexOf(g1Neg(g1FromBytes(G1))));
  const compressed2 = new Uint8Array(192);
  compressed2.set(bls12_381.G2.Point.BASE.toBytes(true));
  assert.is(hexOf(g2FromBytes(compressed2)), hexOf(G2));
});

test("scalar multiplication by 0 and by r − 1 gives infinity and the opposite point", () => {
  const g1 = g1FromBytes(G1);
  assert.is(hexOf(g1Mul(g1, 0n)), hexOf(G1_ZERO));
  assert.is(hexOf(g1Mul(g1, FR_ORDER - 1n)), hexOf(g1Neg(g1)));
  const g2 = g2FromBytes(G2);
  assert.is(hexOf(g2Add(g2Mul(g2, 5n), g2Neg(g2Mul(g2, 5n)))), hexOf(G2_ZERO));
});

test("pairing checks: the empty list holds, bilinearity holds, a lone generator pair does not", () => {
  const g1 = g1FromBytes(G1);
  const g2 = g2FromBytes(G2);
  assert.ok(pairingCheck([]));
  assert.not.ok(pairingCheck([[g1, g2]]));
  assert.ok(pairingCheck([[g1Mul(g1, 6n), g2], [g1Neg(g1Mul(g1, 2n)), g2Mul(g2, 3n)]]));
  assert.ok(pairingCheck([[G1_ZERO, g2], [g1, G2_ZERO]]));
});

test("arguments of the wrong type or an unreduced fr are refused with TypeError / RangeError", () => {
  assert.throws(() => frAdd(1 as unknown as bigint, 2n), TypeError);
  assert.throws(() => frToBytes(FR_ORDER), RangeError);
  assert.throws(() => g1FromBytes("0x00" as unknown as Uint8Array), TypeError);
  assert.throws(() => g1Add(new Uint8Array(10), G1), RangeError);
});

test.run();
