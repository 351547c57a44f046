/**
 * BLS12-381 for Michelson (types `bls12_381_fr`, `bls12_381_g1`, `bls12_381_g2`; instructions
 * ADD, MUL, NEG, INT and PAIRING_CHECK on them), with the acceptance rules of Octez v12 (protocol
 * environment v3 = the `bls12-381` 1.1 library over blst).
 *
 * Values (see `../value.ts`): an Fr element is a `bigint` in [0, r); a G1/G2 point is the
 * `Uint8Array` of its uncompressed serialisation (Zcash layout: big-endian coordinates, flag bits in
 * the first byte; 96 bytes for G1, 192 for G2 with x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0). The point at
 * infinity is `0x40` followed by zeros.
 *
 * Decoding rules (Michelson data `0x…`):
 * - Fr: at most 32 bytes, little-endian, zero-padded on the right, and below r (else error).
 * - G1/G2: exactly 96/192 bytes. First-byte flags: none = affine point whose coordinates must be
 *   below p and satisfy the curve equation; `0x40` alone = infinity, every other bit zero; the
 *   compression bit `0x80` makes blst read the first half as a compressed point and ignore the rest
 *   (Octez accepts that, and so do we; the value is then re-serialised uncompressed). Any other
 *   flag combination is refused. The point must lie in the prime-order subgroup.
 *
 * Decoded points are remembered per `Uint8Array` object (values are immutable), so arithmetic on
 * values produced here does not decode or re-validate them.
 * @module
 */
import { bls12_381 } from "@noble/curves/bls12-381.js";

const { Fp, Fp2, Fp12 } = bls12_381.fields;
type G1Point = InstanceType<typeof bls12_381.G1.Point>;
type G2Point = InstanceType<typeof bls12_381.G2.Point>;
type Fp2Elt = ReturnType<typeof Fp2.create>;

/** Order r of the BLS12-381 groups (the modulus of `bls12_381_fr`). */
export const FR_ORDER = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
/** The base-field prime p. */
const P = Fp.ORDER;

/** Size in bytes of an Fr element's serialisation. */
export const FR_SIZE = 32;
/** Size in bytes of an uncompressed G1 point. */
export const G1_SIZE = 96;
/** Size in bytes of an uncompressed G2 point. */
export const G2_SIZE = 192;

/** Bytes that are not a valid Fr element or group point (Octez: the constant is ill-typed). */
export class Bls12381DecodeError extends RangeError {
  override name = "Bls12381DecodeError";
}

function bytesArg(name: string, value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  return value;
}

function bigintArg(name: string, value: unknown): bigint {
  if (typeof value !== "bigint") throw new TypeError(`${name} must be a bigint`);
  return value;
}

function frArg(name: string, value: unknown): bigint {
  const v = bigintArg(name, value);
  if (v < 0n || v >= FR_ORDER) throw new RangeError(`${name} is not a reduced bls12_381_fr element`);
  return v;
}

function mod(a: bigint, m: bigint): bigint {
  const x = a % m;
  return x < 0n ? x + m : x;
}

function beToBigint(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function bigintToBe(v: bigint, size: number, out: Uint8Array, offset: number): void {
  for (let i = size - 1; i >= 0; i--) {
    out[offset + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

// ---------------------------------------------------------------------------------------------
// Fr

/**
 * The Fr element of Michelson bytes: little-endian, at most 32 bytes (shorter is zero-padded),
 * below r. Throws {@link Bls12381DecodeError} otherwise.
 * @example frFromBytes(Uint8Array.of(0x10)) // 16n
 */
export function frFromBytes(bytes: Uint8Array): bigint {
  bytesArg("bytes", bytes);
  if (bytes.length > FR_SIZE) throw new Bls12381DecodeError(`bls12_381_fr: at most ${FR_SIZE} bytes, got ${bytes.length}`);
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  if (v >= FR_ORDER) throw new Bls12381DecodeError("bls12_381_fr: value is not below the group order");
  return v;
}

/** The 32-byte little-endian serialisation of an Fr element (how Octez prints and packs it). */
export function frToBytes(fr: bigint): Uint8Array {
  let v = frArg("fr", fr);
  const out = new Uint8Array(FR_SIZE);
  for (let i = 0; i < FR_SIZE; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** The Fr element of any integer, reduced modulo r (negative values too), as `Fr.of_z`. */
export function frFromInt(n: bigint): bigint {
  return mod(bigintArg("n", n), FR_ORDER);
}

/** The integer in [0, r) of an Fr element (instruction INT). */
export function frToInt(fr: bigint): bigint {
  return frArg("fr", fr);
}

/** a + b in Fr. */
export function frAdd(a: bigint, b: bigint): bigint {
  return (frArg("a", a) + frArg("b", b)) % FR_ORDER;
}

/** a × b in Fr. */
export function frMul(a: bigint, b: bigint): bigint {
  return (frArg("a", a) * frArg("b", b)) % FR_ORDER;
}

/** −a in Fr. */
export function frNeg(a: bigint): bigint {
  const v = frArg("a", a);
  return v === 0n ? 0n : FR_ORDER - v;
}

// ---------------------------------------------------------------------------------------------
// Points: decoding as blst does, encoding uncompressed

const g1Cache = new WeakMap<Uint8Array, G1Point>();
const g2Cache = new WeakMap<Uint8Array, G2Point>();

function allZero(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (bytes[i] !== 0) return false;
  return true;
}

/** Reads a base-field element (big-endian, flag bits already cleared by the caller), below p. */
function readFp(bytes: Uint8Array, what: string): bigint {
  const v = beToBigint(bytes);
  if (v >= P) throw new Bls12381DecodeError(`${what}: coordinate is not below the field prime`);
  return v;
}

/** Zcash's "lexicographically largest" y: y > (p − 1) / 2, over (c1, c0) for Fp2. */
function fpIsLarger(y: bigint): boolean {
  return y * 2n > P;
}

function fp2IsLarger(y: Fp2Elt): boolean {
  return y.c1 !== 0n ? fpIsLarger(y.c1) : fpIsLarger(y.c0);
}

type Flags = { compressed: boolean; infinity: boolean; sort: boolean };

function flagsOf(bytes: Uint8Array): Flags {
  const b = bytes[0]!;
  return { compressed: (b & 0x80) !== 0, infinity: (b & 0x40) !== 0, sort: (b & 0x20) !== 0 };
}

/** The coordinate bytes at [from, from + size) with the three flag bits of the first byte cleared. */
function field(bytes: Uint8Array, from: number, size: number): Uint8Array {
  const out = bytes.slice(from, from + size);
  if (from === 0) out[0]! &= 0x1f;
  return out;
}

function decodeG1(bytes: Uint8Array): G1Point {
  const Point = bls12_381.G1.Point;
  const { compressed, infinity, sort } = flagsOf(bytes);
  const half = G1_SIZE / 2;
  let point: G1Point;
  if (compressed) {
    if (infinity) {
      if ((bytes[0]! & 0x3f) !== 0 || !allZero(bytes, 1, half)) throw new Bls12381DecodeError("bls12_381_g1: bad infinity encoding");
      return Point.ZERO;
    }
    const x = readFp(field(bytes, 0, half), "bls12_381_g1");
    let y = Fp.sqrt(Fp.add(Fp.pow(x, 3n), 4n));
    if (y === undefined) throw new Bls12381DecodeError("bls12_381_g1: point is not on the curve");
    if (fpIsLarger(y) !== sort) y = Fp.neg(y);
    point = Point.fromAffine({ x, y });
  } else if (infinity) {
    if ((bytes[0]! & 0x3f) !== 0 || !allZero(bytes, 1, G1_SIZE)) throw new Bls12381DecodeError("bls12_381_g1: bad infinity encoding");
    return Point.ZERO;
  } else {
    if (sort) throw new Bls12381DecodeError("bls12_381_g1: bad flag bits");
    const x = readFp(field(bytes, 0, half), "bls12_381_g1");
    const y = readFp(field(bytes, half, half), "bls12_381_g1");
    // noble reads affine (0, 0) as infinity; blst finds it off the curve.
    if (x === 0n && y === 0n) throw new Bls12381DecodeError("bls12_381_g1: point is not on the curve");
    point = Point.fromAffine({ x, y });
  }
  try {
    point.assertValidity(); // on the curve and in the prime-order subgroup
  } catch {
    throw new Bls12381DecodeError("bls12_381_g1: point is not on the curve or not in the prime-order subgroup");
  }
  return point;
}

function readFp2(bytes: Uint8Array, from: number, what: string): Fp2Elt {
  const size = G2_SIZE / 4;
  const c1 = readFp(field(bytes, from, size), what);
  const c0 = readFp(field(bytes, from + size, size), what);
  return Fp2.create({ c0, c1 });
}

function decodeG2(bytes: Uint8Array): G2Point {
  const Point = bls12_381.G2.Point;
  const { compressed, infinity, sort } = flagsOf(bytes);
  const half = G2_SIZE / 2;
  let point: G2Point;
  if (compressed) {
    if (infinity) {
      if ((bytes[0]! & 0x3f) !== 0 || !allZero(bytes, 1, half)) throw new Bls12381DecodeError("bls12_381_g2: bad infinity encoding");
      return Point.ZERO;
    }
    const x = readFp2(bytes, 0, "bls12_381_g2");
    const b = bls12_381.G2.Point.CURVE().b;
    let y = Fp2.sqrt(Fp2.add(Fp2.pow(x, 3n), b));
    if (y === undefined) throw new Bls12381DecodeError("bls12_381_g2: point is not on the curve");
    if (fp2IsLarger(y) !== sort) y = Fp2.neg(y);
    point = Point.fromAffine({ x, y });
  } else if (infinity) {
    if ((bytes[0]! & 0x3f) !== 0 || !allZero(bytes, 1, G2_SIZE)) throw new Bls12381DecodeError("bls12_381_g2: bad infinity encoding");
    return Point.ZERO;
  } else {
    if (sort) throw new Bls12381DecodeError("bls12_381_g2: bad flag bits");
    const x = readFp2(bytes, 0, "bls12_381_g2");
    const y = readFp2(bytes, half, "bls12_381_g2");
    // noble reads affine (0, 0) as infinity; blst finds it off the curve.
    if (Fp2.is0(x) && Fp2.is0(y)) throw new Bls12381DecodeError("bls12_381_g2: point is not on the curve");
    point = Point.fromAffine({ x, y });
  }
  try {
    point.assertValidity();
  } catch {
    throw new Bls12381DecodeError("bls12_381_g2: point is not on the curve or not in the prime-order subgroup");
  }
  return point;
}

function encodeG1(point: G1Point): Uint8Array {
  const out = new Uint8Array(G1_SIZE);
  if (point.is0()) out[0] = 0x40;
  else {
    const { x, y } = point.toAffine();
    bigintToBe(x, 48, out, 0);
    bigintToBe(y, 48, out, 48);
  }
  g1Cache.set(out, point);
  return out;
}

function encodeG2(point: G2Point): Uint8Array {
  const out = new Uint8Array(G2_SIZE);
  if (point.is0()) out[0] = 0x40;
  else {
    const { x, y } = point.toAffine();
    bigintToBe(x.c1, 48, out, 0);
    bigintToBe(x.c0, 48, out, 48);
    bigintToBe(y.c1, 48, out, 96);
    bigintToBe(y.c0, 48, out, 144);
  }
  g2Cache.set(out, point);
  return out;
}

function g1Point(bytes: Uint8Array, name: string): G1Point {
  bytesArg(name, bytes);
  const cached = g1Cache.get(bytes);
  if (cached !== undefined) return cached;
  if (bytes.length !== G1_SIZE) throw new RangeError(`${name}: bls12_381_g1 must be ${G1_SIZE} bytes, got ${bytes.length}`);
  const point = decodeG1(bytes);
  g1Cache.set(bytes, point);
  return point;
}

function g2Point(bytes: Uint8Array, name: string): G2Point {
  bytesArg(name, bytes);
  const cached = g2Cache.get(bytes);
  if (cached !== undefined) return cached;
  if (bytes.length !== G2_SIZE) throw new RangeError(`${name}: bls12_381_g2 must be ${G2_SIZE} bytes, got ${bytes.length}`);
  const point = decodeG2(bytes);
  g2Cache.set(bytes, point);
  return point;
}

// ---------------------------------------------------------------------------------------------
// G1

/**
 * The G1 value of Michelson bytes (96 bytes, rules in the module doc), as its canonical
 * uncompressed serialisation. Throws RangeError on a wrong length, {@link Bls12381DecodeError}
 * on anything else Octez refuses.
 */
export function g1FromBytes(bytes: Uint8Array): Uint8Array {
  bytesArg("bytes", bytes);
  if (bytes.length !== G1_SIZE) throw new Bls12381DecodeError(`bls12_381_g1 must be ${G1_SIZE} bytes, got ${bytes.length}`);
  return encodeG1(decodeG1(bytes));
}

/** P + Q in G1. */
export function g1Add(p: Uint8Array, q: Uint8Array): Uint8Array {
  return encodeG1(g1Point(p, "p").add(g1Point(q, "q")));
}

/** [n]P in G1, n an Fr element. */
export function g1Mul(p: Uint8Array, n: bigint): Uint8Array {
  return encodeG1(g1Point(p, "p").multiplyUnsafe(frArg("n", n)));
}

/** −P in G1. */
export function g1Neg(p: Uint8Array): Uint8Array {
  return encodeG1(g1Point(p, "p").negate());
}

// ---------------------------------------------------------------------------------------------
// G2

/** The G2 value of Michelson bytes (192 bytes), as {@link g1FromBytes} for G1. */
export function g2FromBytes(bytes: Uint8Array): Uint8Array {
  bytesArg("bytes", bytes);
  if (bytes.length !== G2_SIZE) throw new Bls12381DecodeError(`bls12_381_g2 must be ${G2_SIZE} bytes, got ${bytes.length}`);
  return encodeG2(decodeG2(bytes));
}

/** P + Q in G2. */
export function g2Add(p: Uint8Array, q: Uint8Array): Uint8Array {
  return encodeG2(g2Point(p, "p").add(g2Point(q, "q")));
}

/** [n]P in G2, n an Fr element. */
export function g2Mul(p: Uint8Array, n: bigint): Uint8Array {
  return encodeG2(g2Point(p, "p").multiplyUnsafe(frArg("n", n)));
}

/** −P in G2. */
export function g2Neg(p: Uint8Array): Uint8Array {
  return encodeG2(g2Point(p, "p").negate());
}

// ---------------------------------------------------------------------------------------------
// Pairing

/**
 * PAIRING_CHECK: whether the product of e(g1ᵢ, g2ᵢ) is the identity of GT. The empty list gives
 * `true`; a pair with a point at infinity contributes the identity.
 * @example pairingCheck([[g1, g2], [g1Neg(g1), g2]]) // true
 */
export function pairingCheck(pairs: readonly (readonly [Uint8Array, Uint8Array])[]): boolean {
  if (!Array.isArray(pairs)) throw new TypeError("pairs must be an array of [g1, g2] pairs");
  const terms: { g1: G1Point; g2: G2Point }[] = [];
  for (const [i, pair] of pairs.entries()) {
    if (!Array.isArray(pair) || pair.length !== 2) throw new TypeError(`pairs[${i}] must be a [g1, g2] pair`);
    const g1 = g1Point(pair[0], `pairs[${i}][0]`);
    const g2 = g2Point(pair[1], `pairs[${i}][1]`);
    if (!g1.is0() && !g2.is0()) terms.push({ g1, g2 });
  }
  if (terms.length === 0) return true;
  return Fp12.eql(bls12_381.pairingBatch(terms), Fp12.ONE);
}

/** The G1 point at infinity (`0x40` then zeros). */
export const G1_ZERO: Uint8Array = encodeG1(bls12_381.G1.Point.ZERO);
/** The G2 point at infinity. */
export const G2_ZERO: Uint8Array = encodeG2(bls12_381.G2.Point.ZERO);
