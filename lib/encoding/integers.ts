/**
 * Fixed-size integers and booleans in data-encoding conventions: big-endian, JSON numbers
 * (int64 as a decimal string), with the JSON schemas and layouts Octez prints.
 * @module
 */
import { DecodeError, type Json, type JsonSchema, type Reader, type Writer } from "./codec.ts";
import { jsonTypeError, makeCodec, valueTypeError, type Codec, type IntSize } from "./core.ts";

function intSchema(min: number, max: number): () => JsonSchema {
  return () => ({ type: "integer", minimum: min, maximum: max });
}

function smallInt(
  name: string,
  bytes: number,
  min: number,
  max: number,
  layout: Json,
  write: (out: Writer, v: number) => void,
  read: (r: Reader) => number,
): Codec<number> {
  const check = (v: unknown): number => {
    if (typeof v !== "number" || !Number.isInteger(v)) throw valueTypeError(`an integer (${name})`, v);
    if (v < min || v > max) throw new RangeError(`${name}: ${v} is out of range ${min}..${max}`);
    return v;
  };
  return makeCodec<number>({
    size: { kind: "fixed", size: bytes },
    desc: { t: "leaf", layout },
    toJson: (v) => check(v),
    fromJson(j) {
      if (typeof j !== "number" || !Number.isInteger(j)) throw jsonTypeError(`an integer (${name})`, j);
      if (j < min || j > max) throw new DecodeError(`${name}: ${j} is out of range ${min}..${max}`);
      return j;
    },
    write(out, v) {
      write(out, check(v));
    },
    read(r) {
      const v = read(r);
      if (v < min || v > max) throw new DecodeError(`${name}: ${v} is out of range ${min}..${max}`);
      return v;
    },
    schema: intSchema(min, max),
  });
}

const intLayout = (size: IntSize): Json => ({ size, kind: "Int" });

/** Unsigned 8-bit integer (JSON number). */
export const uint8: Codec<number> = smallInt("uint8", 1, 0, 255, intLayout("Uint8"), (o, v) => o.u8(v), (r) => r.u8());

/** Signed 8-bit integer (JSON number). */
export const int8: Codec<number> = smallInt("int8", 1, -128, 127, intLayout("Int8"), (o, v) => o.u8(v), (r) => (r.u8() << 24) >> 24);

/** Unsigned 16-bit big-endian integer (JSON number). */
export const uint16: Codec<number> = smallInt("uint16", 2, 0, 65535, intLayout("Uint16"), (o, v) => o.u16(v), (r) => r.u16());

/** Signed 16-bit big-endian integer (JSON number). */
export const int16: Codec<number> = smallInt("int16", 2, -32768, 32767, intLayout("Int16"), (o, v) => o.u16(v), (r) => (r.u16() << 16) >> 16);

/** Signed 32-bit big-endian integer (JSON number). */
export const int32: Codec<number> = smallInt("int32", 4, -2147483648, 2147483647, intLayout("Int32"), (o, v) => o.u32(v), (r) => r.i32());

/** Signed 31-bit integer stored on 4 bytes (data-encoding `int31`; JSON number). */
export const int31: Codec<number> = smallInt(
  "int31",
  4,
  -1073741824,
  1073741823,
  { min: -1073741824, max: 1073741823, kind: "RangedInt" },
  (o, v) => o.u32(v),
  (r) => r.i32(),
);

/** Unsigned 30-bit integer stored on 4 bytes (data-encoding `uint30`, the length-prefix type). */
export const uint30: Codec<number> = smallInt(
  "uint30",
  4,
  0,
  1073741823,
  { min: 0, max: 1073741823, kind: "RangedInt" },
  (o, v) => o.u32(v),
  (r) => r.i32(),
);

/** `int64` definition of the JSON schemas. */
export function int64Schema(ctx: { defs: Map<string, JsonSchema> }): JsonSchema {
  if (!ctx.defs.has("int64")) {
    ctx.defs.set("int64", { title: "64 bit integers", description: "Decimal representation of 64 bit integers", type: "string" });
  }
  return { $ref: "#/definitions/int64" };
}

const MIN64 = -(1n << 63n);
const MAX64 = (1n << 63n) - 1n;
const DECIMAL = /^-?[0-9]+$/;

/** Parses a JSON int64: a decimal string (or a safe integer number). */
export function parseInt64Json(j: Json, what = "int64"): bigint {
  let v: bigint;
  if (typeof j === "string" && DECIMAL.test(j)) v = BigInt(j);
  else if (typeof j === "number" && Number.isSafeInteger(j)) v = BigInt(j);
  else throw jsonTypeError(`a decimal string (${what})`, j);
  if (v < MIN64 || v > MAX64) throw new DecodeError(`${what}: ${j} is out of range`);
  return v;
}

/** Writes a signed 64-bit big-endian integer. */
export function writeInt64(out: Writer, v: bigint): void {
  if (typeof v !== "bigint") throw valueTypeError("a bigint (int64)", v);
  if (v < MIN64 || v > MAX64) throw new RangeError(`int64: ${v} is out of range`);
  const u = BigInt.asUintN(64, v);
  out.u32(Number(u >> 32n));
  out.u32(Number(u & 0xffffffffn));
}

/** Reads a signed 64-bit big-endian integer. */
export function readInt64(r: Reader): bigint {
  const hi = r.i32();
  const lo = r.u32();
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** Signed 64-bit big-endian integer; JSON decimal string (numbers accepted on input). */
export const int64: Codec<bigint> = makeCodec<bigint>({
  size: { kind: "fixed", size: 8 },
  desc: { t: "leaf", layout: intLayout("Int64") },
  toJson(v) {
    if (typeof v !== "bigint") throw valueTypeError("a bigint (int64)", v);
    return v.toString();
  },
  fromJson: (j) => parseInt64Json(j),
  write: writeInt64,
  read: readInt64,
  schema: int64Schema,
});

/**
 * A boolean codec: one byte, written 0x00 false / 0xff true; JSON boolean. `read` says what a
 * byte means (the strict {@link bool}, or a reader that takes any non-zero byte as true).
 */
export function booleanCodec(read: (r: Reader) => boolean): Codec<boolean> {
  return makeCodec<boolean>({
    size: { kind: "fixed", size: 1 },
    desc: { t: "leaf", layout: { kind: "Bool" } },
    toJson(v) {
      if (typeof v !== "boolean") throw valueTypeError("a boolean", v);
      return v;
    },
    fromJson(j) {
      if (typeof j !== "boolean") throw jsonTypeError("a boolean", j);
      return j;
    },
    write(out, v) {
      if (typeof v !== "boolean") throw valueTypeError("a boolean", v);
      out.u8(v ? 0xff : 0x00);
    },
    read,
    schema: () => ({ type: "boolean" }),
  });
}

/** Boolean: one byte, 0x00 false, 0xff true (other bytes are rejected); JSON boolean. */
export const bool: Codec<boolean> = booleanCodec((r) => {
  const b = r.u8();
  if (b === 0xff) return true;
  if (b === 0x00) return false;
  throw new DecodeError(`Invalid boolean byte 0x${b.toString(16).padStart(2, "0")}`);
});

/** IEEE-754 double, 8 bytes big-endian; JSON number. */
export const float: Codec<number> = makeCodec<number>({
  size: { kind: "fixed", size: 8 },
  desc: { t: "leaf", layout: { kind: "Float" } },
  toJson(v) {
    if (typeof v !== "number") throw valueTypeError("a number", v);
    return v;
  },
  fromJson(j) {
    if (typeof j !== "number") throw jsonTypeError("a number", j);
    return j;
  },
  write(out, v) {
    if (typeof v !== "number") throw valueTypeError("a number", v);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, v);
    out.raw(b);
  },
  read(r) {
    const b = r.take(8);
    return new DataView(b.buffer, b.byteOffset, 8).getFloat64(0);
  },
  schema: () => ({ type: "number" }),
});

/**
 * data-encoding's `ranged_int min max` for a range within 0..65535: a uint16 on the wire (the
 * smallest unsigned size holding `max`), a JSON number, out-of-range values refused both ways.
 */
export function rangedUint16(min: number, max: number): Codec<number> {
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max > 65535 || min > max) throw new RangeError(`rangedUint16: bad range ${min}..${max}`);
  return smallInt(`ranged int ${min}..${max}`, 2, min, max, intLayout("Uint16"), (o, v) => o.u16(v), (r) => r.u16());
}
