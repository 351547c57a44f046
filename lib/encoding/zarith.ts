/**
 * Zarith arbitrary-precision integers (data-encoding `n` and `z`): little-endian base-128 with a
 * continuation bit; `z` keeps a sign bit in the first byte. JSON: decimal strings.
 * @module
 */
import { DecodeError, type Json, type JsonSchema, type Reader, type Writer } from "./codec.ts";
import { jsonTypeError, makeCodec, valueTypeError, type Codec, type SchemaContext } from "./core.ts";

/** Appends the Zarith `n` form of a non-negative bigint. */
export function writeN(out: Writer, v: bigint): void {
  if (typeof v !== "bigint") throw valueTypeError("a bigint (N)", v);
  if (v < 0n) throw new RangeError(`N: ${v} is negative`);
  if (v <= 0xffffffffffffn) {
    let x = Number(v);
    while (x >= 0x80) {
      out.u8((x % 0x80) | 0x80);
      x = Math.floor(x / 0x80);
    }
    out.u8(x);
    return;
  }
  let x = v;
  while (x >= 0x80n) {
    out.u8(Number(x & 0x7fn) | 0x80);
    x >>= 7n;
  }
  out.u8(Number(x));
}

/** Reads a Zarith `n`; `maxBytes` bounds its length (data-encoding `check_size`). */
export function readN(r: Reader, maxBytes = Infinity): bigint {
  let small = 0;
  let big = 0n;
  let shift = 0;
  let count = 0;
  for (;;) {
    const b = r.u8();
    count++;
    if (count > maxBytes) throw new DecodeError(`Zarith number longer than ${maxBytes} bytes`);
    const bits = b & 0x7f;
    if (shift < 49) small += bits * 2 ** shift;
    else big |= BigInt(bits) << BigInt(shift);
    shift += 7;
    if ((b & 0x80) === 0) {
      if (b === 0 && count > 1) throw new DecodeError("Non-canonical Zarith number (trailing zero byte)");
      return shift <= 49 ? BigInt(small) : BigInt(small) | big;
    }
  }
}

/** Appends the Zarith `z` form of a bigint. */
export function writeZ(out: Writer, v: bigint): void {
  if (typeof v !== "bigint") throw valueTypeError("a bigint (Z)", v);
  const neg = v < 0n;
  let x = neg ? -v : v;
  const first = Number(x & 0x3fn) | (neg ? 0x40 : 0);
  x >>= 6n;
  if (x === 0n) {
    out.u8(first);
    return;
  }
  out.u8(first | 0x80);
  writeN(out, x);
}

/** Reads a Zarith `z`. */
export function readZ(r: Reader, maxBytes = Infinity): bigint {
  const b = r.u8();
  const neg = (b & 0x40) !== 0;
  let v = BigInt(b & 0x3f);
  if ((b & 0x80) !== 0) {
    const rest = readN(r, maxBytes - 1);
    if (rest === 0n) throw new DecodeError("Non-canonical Zarith number (trailing zero byte)");
    v |= rest << 6n;
  }
  if (neg && v === 0n) throw new DecodeError("Non-canonical Zarith number (negative zero)");
  return neg ? -v : v;
}

const NAT = /^[0-9]+$/;
const INT = /^-?[0-9]+$/;

/** Parses a JSON natural number (decimal string, or a safe integer number). */
export function parseNJson(j: Json, what = "N"): bigint {
  if (typeof j === "string" && NAT.test(j)) return BigInt(j);
  if (typeof j === "number" && Number.isSafeInteger(j) && j >= 0) return BigInt(j);
  throw jsonTypeError(`a non-negative decimal string (${what})`, j);
}

/** Parses a JSON integer (decimal string, or a safe integer number). */
export function parseZJson(j: Json, what = "Z"): bigint {
  if (typeof j === "string" && INT.test(j)) return BigInt(j);
  if (typeof j === "number" && Number.isSafeInteger(j)) return BigInt(j);
  throw jsonTypeError(`a decimal string (${what})`, j);
}

/** `positive_bignum` definition. */
export function positiveBignumSchema(ctx: SchemaContext): JsonSchema {
  if (!ctx.defs.has("positive_bignum")) {
    ctx.defs.set("positive_bignum", {
      title: "Positive big number",
      description: "Decimal representation of a positive big number",
      type: "string",
    });
  }
  return { $ref: "#/definitions/positive_bignum" };
}

/** `bignum` definition. */
export function bignumSchema(ctx: SchemaContext): JsonSchema {
  if (!ctx.defs.has("bignum")) {
    ctx.defs.set("bignum", { title: "Big number", description: "Decimal representation of a big number", type: "string" });
  }
  return { $ref: "#/definitions/bignum" };
}

/** Options of {@link nat}. */
export interface ZarithOptions {
  /** Longest binary form accepted, in bytes (data-encoding `check_size`; Octez uses 10 for counters and limits). */
  readonly maxBytes?: number;
}

/**
 * Zarith natural number (data-encoding `n`), bigint values, JSON decimal strings.
 * @example encodeBinary(nat(), 407n) // 97 03
 */
export function nat(options: ZarithOptions = {}): Codec<bigint> {
  const maxBytes = options.maxBytes ?? Infinity;
  return makeCodec<bigint>({
    size: { kind: "dynamic" },
    desc: { t: "n" },
    toJson(v) {
      if (typeof v !== "bigint") throw valueTypeError("a bigint (N)", v);
      if (v < 0n) throw new RangeError(`N: ${v} is negative`);
      return v.toString();
    },
    fromJson(j) {
      const v = parseNJson(j);
      if (maxBytes !== Infinity && v >= 1n << BigInt(7 * maxBytes)) throw new DecodeError(`N: ${v} needs more than ${maxBytes} bytes`);
      return v;
    },
    write(out, v) {
      if (maxBytes !== Infinity && typeof v === "bigint" && v >= 1n << BigInt(7 * maxBytes)) {
        throw new RangeError(`N: ${v} needs more than ${maxBytes} bytes`);
      }
      writeN(out, v);
    },
    read: (r) => readN(r, maxBytes),
    schema: positiveBignumSchema,
  });
}

/**
 * Zarith integer (data-encoding `z`), bigint values, JSON decimal strings.
 * @example encodeBinary(z, -1n) // 41
 */
export const z: Codec<bigint> = makeCodec<bigint>({
  size: { kind: "dynamic" },
  desc: { t: "z" },
  toJson(v) {
    if (typeof v !== "bigint") throw valueTypeError("a bigint (Z)", v);
    return v.toString();
  },
  fromJson: (j) => parseZJson(j),
  write: writeZ,
  read: (r) => readZ(r),
  schema: bignumSchema,
});

/** Zarith natural number without a size limit. */
export const n: Codec<bigint> = nat();
