/**
 * BSON, as Octez writes a JSON value in binary. data-encoding's `json` type has no binary form of
 * its own: it converts the value to ocplib-json-typed's BSON representation (`Json_repr_bson`)
 * and stores those bytes behind a 4-byte big-endian length. This is how the genesis protocol's
 * `protocol_parameters`, the `sandbox_parameter` context key and the errors inside receipts are
 * stored, so the bytes must be the same as Octez's, byte for byte.
 *
 * The layout (all sizes little-endian int32, as in the BSON specification):
 * - an object is a document: its size (itself included), its elements, then 0x00;
 * - an element is a type byte, the field name, 0x00, then the value;
 * - numbers are doubles (0x01, 8 bytes little-endian), never integers, so `2` is `2.0`;
 * - strings are 0x02: size of the UTF-8 bytes plus one, the bytes, 0x00;
 * - objects 0x03 and arrays 0x04 are nested documents; an array is keyed "0", "1", ...;
 * - booleans 0x08 (one byte, 0x00 or 0x01), null 0x0A (no payload);
 * - a scalar at the top is a document holding one nameless "immediate" element whose type byte
 *   has its high bit set: 0x81 number, 0x82 string, 0x88 boolean, 0x8A null.
 *
 * Reading follows ocplib-json-typed, including two of its habits that make a round trip lossy:
 * a top-level array reads back as an object keyed "0", "1", ... (the root is never an array),
 * and an empty array reads back as `{}` (an empty document carries no type). Octez accepts both
 * when it destructs such a value with a list encoding; consumers of {@link decodeBson} must too.
 * Object keys are written in the value's own enumeration order, which for a JavaScript object
 * puts integer-like keys first.
 *
 * @example
 * ```ts
 * import { encodeBson, decodeBson, bsonJson, encodeBinary } from "./mod.ts";
 * encodeBson({ a: 1 });            // 10000000 01 6100 000000000000f03f 00
 * decodeBson(encodeBson({ a: 1 })); // { a: 1 }
 * encodeBinary(bsonJson(), { a: 1 }); // 00000010 then the 16 bytes above
 * ```
 * @module
 */
import { DecodeError, type Json, type JsonSchema } from "./codec.ts";
import { makeCodec, valueTypeError, type Codec } from "./core.ts";
import { dynamicSize } from "./dynamic.ts";
import { splitted } from "./conv.ts";

/** Deepest nesting of objects and arrays accepted when writing or reading BSON. */
export const BSON_MAX_DEPTH = 1000;

const TAG_DOUBLE = 0x01;
const TAG_STRING = 0x02;
const TAG_OBJECT = 0x03;
const TAG_ARRAY = 0x04;
const TAG_BOOL = 0x08;
const TAG_NULL = 0x0a;
const IMMEDIATE = 0x80;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

// ---------------------------------------------------------------------------------------------
// Writing

class BsonWriter {
  buf = new Uint8Array(256);
  view = new DataView(this.buf.buffer);
  len = 0;

  ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): void {
    this.ensure(1);
    this.buf[this.len++] = v;
  }
  i32(v: number): void {
    this.ensure(4);
    this.view.setInt32(this.len, v, true);
    this.len += 4;
  }
  f64(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.len, v, true);
    this.len += 8;
  }
  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  /** The field name: its UTF-8 bytes then 0x00 (a name cannot hold 0x00 itself). */
  cstring(name: string, path: readonly string[]): void {
    const b = utf8Encoder.encode(name);
    if (b.includes(0)) throw new RangeError(`BSON field names cannot contain U+0000 (at ${[...path, name].join(".") || "top"})`);
    this.raw(b);
    this.u8(0);
  }
  string(s: string): void {
    const b = utf8Encoder.encode(s);
    this.i32(b.length + 1);
    this.raw(b);
    this.u8(0);
  }
}

function number(v: number, path: readonly string[]): number {
  if (!Number.isFinite(v)) throw new RangeError(`JSON numbers must be finite, got ${v} (at ${path.join(".") || "top"})`);
  return v;
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === null || proto === Object.prototype;
}

function elementsOf(v: Json[] | { [key: string]: Json }, path: readonly string[]): [string, Json][] {
  if (Array.isArray(v)) return v.map((x, i) => [String(i), x]);
  if (!isPlainObject(v)) throw valueTypeError(`a JSON value at ${path.join(".") || "top"}`, v);
  return Object.entries(v);
}

function writeDocument(w: BsonWriter, elements: [string, Json][], path: string[]): void {
  if (path.length > BSON_MAX_DEPTH) throw new RangeError(`JSON value nested deeper than ${BSON_MAX_DEPTH} levels`);
  const at = w.len;
  w.i32(0);
  for (const [name, v] of elements) {
    if (v === null) {
      w.u8(TAG_NULL);
      w.cstring(name, path);
    } else if (typeof v === "number") {
      w.u8(TAG_DOUBLE);
      w.cstring(name, path);
      w.f64(number(v, [...path, name]));
    } else if (typeof v === "string") {
      w.u8(TAG_STRING);
      w.cstring(name, path);
      w.string(v);
    } else if (typeof v === "boolean") {
      w.u8(TAG_BOOL);
      w.cstring(name, path);
      w.u8(v ? 1 : 0);
    } else if (typeof v === "object") {
      w.u8(Array.isArray(v) ? TAG_ARRAY : TAG_OBJECT);
      w.cstring(name, path);
      writeDocument(w, elementsOf(v, [...path, name]), [...path, name]);
    } else {
      throw valueTypeError(`a JSON value at ${[...path, name].join(".")}`, v);
    }
  }
  w.u8(0);
  w.view.setInt32(at, w.len - at, true);
}

/**
 * The BSON bytes of a JSON value, as ocplib-json-typed writes them for Octez (no outer length;
 * see {@link bsonJson} for data-encoding's `json` with its 4-byte prefix). TypeError for a value
 * that is not JSON, RangeError for a non-finite number, a field name holding U+0000, or nesting
 * deeper than {@link BSON_MAX_DEPTH}.
 * @example encodeBson("a") // 0c000000 82 02000000 6100 00
 */
export function encodeBson(value: Json): Uint8Array {
  const w = new BsonWriter();
  if (value !== null && typeof value === "object") {
    writeDocument(w, elementsOf(value, []), []);
    return w.buf.slice(0, w.len);
  }
  w.i32(0);
  if (value === null) w.u8(IMMEDIATE | TAG_NULL);
  else if (typeof value === "number") {
    w.u8(IMMEDIATE | TAG_DOUBLE);
    w.f64(number(value, []));
  } else if (typeof value === "string") {
    w.u8(IMMEDIATE | TAG_STRING);
    w.string(value);
  } else if (typeof value === "boolean") {
    w.u8(IMMEDIATE | TAG_BOOL);
    w.u8(value ? 1 : 0);
  } else throw valueTypeError("a JSON value", value);
  w.u8(0);
  w.view.setInt32(0, w.len, true);
  return w.buf.slice(0, w.len);
}

// ---------------------------------------------------------------------------------------------
// Reading (ocplib-json-typed's `Json_repr_bson.Repr.view`, its checks and its messages)

class BsonReader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  pos: number;
  end: number;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = 0;
    this.end = bytes.length;
  }
  fail(message: string): never {
    throw new DecodeError(`Invalid BSON at offset ${this.pos}: ${message}`);
  }
  get left(): number {
    return this.end - this.pos;
  }
  u8(): number {
    if (this.left < 1) this.fail("not enough data");
    return this.bytes[this.pos++]!;
  }
  i32(): number {
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }
  f64(): number {
    if (this.left < 8) this.fail("not enough data, double expected (8 bytes)");
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }
  utf8(from: number, to: number): string {
    try {
      return utf8Decoder.decode(this.bytes.subarray(from, to));
    } catch {
      return this.fail("invalid UTF-8");
    }
  }
  string(): string {
    if (this.left < 4) this.fail("not enough data, string size tag expected (4 bytes)");
    const n = this.i32() - 1;
    if (n < 0) this.fail("negative string size");
    if (this.left < n) this.fail(`not enough data, string expected (${n} bytes)`);
    const s = this.utf8(this.pos, this.pos + n);
    this.pos += n;
    if (this.left < 1) this.fail("not enough data, string terminator expected (0x00)");
    if (this.bytes[this.pos] !== 0) this.fail("string terminator expected (0x00)");
    this.pos++;
    return s;
  }
  bool(): boolean {
    if (this.left < 1) this.fail("not enough data, bool expected (1 byte)");
    const b = this.bytes[this.pos]!;
    if (b !== 0 && b !== 1) this.fail(`invalid bool value (0x${hex2(b)})`);
    this.pos++;
    return b === 1;
  }
  fieldName(): string {
    const start = this.pos;
    const at = this.bytes.subarray(start, this.end).indexOf(0);
    if (at < 0) this.fail("not enough data, field name terminator expected (0x00)");
    this.pos = start + at + 1;
    return this.utf8(start, start + at);
  }
}

function hex2(b: number): string {
  return b.toString(16).toUpperCase().padStart(2, "0");
}

function setField(o: { [key: string]: Json }, name: string, v: Json): void {
  if (name === "__proto__") Object.defineProperty(o, name, { value: v, enumerable: true, writable: true, configurable: true });
  else o[name] = v;
}

/** Reads the document spanning `r.pos .. r.end` (its size must be exactly that span). */
function readDocument(r: BsonReader, arrayField: boolean, depth: number): Json {
  if (depth > BSON_MAX_DEPTH) r.fail(`nested deeper than ${BSON_MAX_DEPTH} levels`);
  if (r.left < 5) r.fail("not enough data for size and terminator");
  const size = r.i32();
  if (size !== r.left + 4) {
    r.pos -= 4;
    r.fail("size tag inconsistent with actual data");
  }
  const first = r.bytes[r.pos]!;
  if (first === 0) {
    if (r.left !== 1) r.fail("early terminator");
    r.pos++;
    return {};
  }
  if ((first & 0xf0) === IMMEDIATE) {
    r.pos++;
    let v: Json;
    switch (first & 0x0f) {
      case TAG_DOUBLE:
        v = r.f64();
        break;
      case TAG_STRING:
        v = r.string();
        break;
      case TAG_BOOL:
        v = r.bool();
        break;
      case TAG_NULL:
        v = null;
        break;
      default:
        return r.fail(`unknown immediate tag (0x${hex2(first & 0x0f)})`);
    }
    if (r.left !== 1) r.fail("not enough data, terminator expected (0x00)");
    if (r.bytes[r.pos] !== 0) r.fail("terminator expected (0x00)");
    r.pos++;
    return v;
  }
  const names: string[] = [];
  const values: Json[] = [];
  for (;;) {
    const tag = r.u8();
    if (tag === 0) {
      if (r.left !== 0) {
        r.pos--;
        r.fail("early terminator");
      }
      break;
    }
    let v: Json;
    switch (tag) {
      case TAG_DOUBLE:
        names.push(r.fieldName());
        v = r.f64();
        break;
      case TAG_STRING:
        names.push(r.fieldName());
        v = r.string();
        break;
      case TAG_BOOL:
        names.push(r.fieldName());
        v = r.bool();
        break;
      case TAG_NULL:
        names.push(r.fieldName());
        v = null;
        break;
      case TAG_OBJECT:
      case TAG_ARRAY: {
        names.push(r.fieldName());
        if (r.left < 4) r.fail("not enough data, subdocument size tag expected (4 bytes)");
        const len = r.view.getInt32(r.pos, true);
        if (len < 0 || r.left < len) r.fail(`not enough data, subdocument expected (${len} bytes)`);
        const end = r.end;
        r.end = r.pos + len;
        v = readDocument(r, tag === TAG_ARRAY, depth + 1);
        r.end = end;
        break;
      }
      default:
        r.pos--;
        return r.fail(`unknown tag (0x${hex2(tag)})`);
    }
    values.push(v);
    if (r.left === 0) r.fail("not enough data, terminator expected (0x00)");
  }
  if (arrayField) {
    for (let i = 0; i < names.length; i++) if (names[i] !== String(i)) r.fail("invalid field names for array field");
    return values;
  }
  const o: { [key: string]: Json } = {};
  for (let i = 0; i < names.length; i++) setField(o, names[i]!, values[i]!);
  return o;
}

/**
 * The JSON value of BSON bytes, read as ocplib-json-typed reads them for Octez: the document's
 * size must be the whole input; a top-level array comes back as an object keyed "0", "1", ...,
 * and an empty array as `{}`. Throws a DecodeError naming the offset of the fault.
 * @example decodeBson(fromHex("0c0000008202000000610000")) // "a"
 */
export function decodeBson(bytes: Uint8Array): Json {
  if (!(bytes instanceof Uint8Array)) throw valueTypeError("a Uint8Array", bytes);
  return readDocument(new BsonReader(bytes), false, 0);
}

// ---------------------------------------------------------------------------------------------
// The data-encoding `json` type

function checkJson(v: unknown, depth = 0): Json {
  if (depth > BSON_MAX_DEPTH) throw new RangeError(`JSON value nested deeper than ${BSON_MAX_DEPTH} levels`);
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return number(v, []);
  if (Array.isArray(v)) {
    for (const x of v) checkJson(x, depth + 1);
    return v as Json[];
  }
  if (typeof v === "object" && isPlainObject(v)) {
    for (const x of Object.values(v as object)) checkJson(x, depth + 1);
    return v as Json;
  }
  throw valueTypeError("a JSON value", v);
}

/** BSON running to the end of its enclosing limit (the payload of {@link bsonJson}). */
const variableBson: Codec<Json> = makeCodec<Json>({
  size: { kind: "variable" },
  desc: { t: "leaf", layout: { kind: "String" } },
  toJson: (v) => checkJson(v),
  fromJson: (j) => j,
  write(out, v) {
    out.raw(encodeBson(v));
  },
  read: (r) => decodeBson(r.take(r.remaining)),
  schema: () => ({}),
});

const bsonBinary: Codec<Json> = dynamicSize(variableBson);

/**
 * Any JSON value, as data-encoding's `json`: its JSON form is the value itself; its binary form
 * is a 4-byte big-endian length then the value's BSON ({@link encodeBson}). `schema` is the JSON
 * schema to print for it (any value when absent).
 * @example encodeBinary(bsonJson(), JSON.parse(parametersText)) // the activation's protocol_parameters
 */
export function bsonJson(schema: JsonSchema = {}): Codec<Json> {
  return splitted<Json>({ toJson: (v) => checkJson(v), fromJson: (j) => j, schema: () => ({ ...schema }) }, bsonBinary);
}
