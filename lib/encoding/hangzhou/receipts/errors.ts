/**
 * Errors inside receipts (`apply_results.ml`'s `error_encoding` and `trace_encoding`): each error
 * is kept as its JSON object (`{kind, id, ...}`), opaque to the codecs. In binary, Octez writes an
 * error as data-encoding's `json`: a 4-byte length then the value as a BSON document (the
 * `Json_repr_bson` layout of ocplib-json-typed), which {@link bsonEncode} and {@link bsonDecode}
 * reproduce.
 * @module
 */
import { DecodeError, type Json } from "../../codec.ts";
import { makeCodec, type Codec } from "../../core.ts";
import { def } from "../../conv.ts";
import { list } from "../../list.ts";

const UTF8 = new TextEncoder();
const UTF8_DECODER = new TextDecoder("utf-8", { fatal: true });

/** One protocol error, as its JSON object (`{kind, id, ...}`). */
export type ProtocolError = Json;

/** The errors of a failed or backtracked operation, outermost last (an Octez error trace). */
export type ErrorTrace = ProtocolError[];

class BsonWriter {
  private buf = new Uint8Array(64);
  private view = new DataView(this.buf.buffer);
  len = 0;

  private ensure(n: number): void {
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
  i32le(v: number): void {
    this.ensure(4);
    this.view.setInt32(this.len, v, true);
    this.len += 4;
  }
  f64le(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.len, v, true);
    this.len += 8;
  }
  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  patchI32le(at: number, v: number): void {
    this.view.setInt32(at, v, true);
  }
  bytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

function cstring(w: BsonWriter, name: string): void {
  const b = UTF8.encode(name);
  if (b.includes(0)) throw new RangeError(`BSON field names cannot contain NUL: ${JSON.stringify(name)}`);
  w.raw(b);
  w.u8(0);
}

function bsonString(w: BsonWriter, s: string): void {
  const b = UTF8.encode(s);
  w.i32le(b.length + 1);
  w.raw(b);
  w.u8(0);
}

function checkNumber(v: number): number {
  if (!Number.isFinite(v)) throw new RangeError(`JSON numbers must be finite, got ${v}`);
  return v;
}

function writeDocument(w: BsonWriter, fields: [string, Json][], depth: number): void {
  if (depth > 1000) throw new RangeError("JSON value nested too deeply");
  const at = w.len;
  w.i32le(0);
  for (const [name, v] of fields) {
    if (v === null) {
      w.u8(0x0a);
      cstring(w, name);
    } else if (typeof v === "number") {
      w.u8(0x01);
      cstring(w, name);
      w.f64le(checkNumber(v));
    } else if (typeof v === "string") {
      w.u8(0x02);
      cstring(w, name);
      bsonString(w, v);
    } else if (typeof v === "boolean") {
      w.u8(0x08);
      cstring(w, name);
      w.u8(v ? 1 : 0);
    } else if (Array.isArray(v)) {
      w.u8(0x04);
      cstring(w, name);
      writeDocument(w, v.map((x, i) => [String(i), x]), depth + 1);
    } else if (typeof v === "object") {
      w.u8(0x03);
      cstring(w, name);
      writeDocument(w, Object.entries(v), depth + 1);
    } else throw new TypeError(`Not a JSON value: ${typeof v}`);
  }
  w.u8(0);
  w.patchI32le(at, w.len - at);
}

/**
 * The BSON bytes of a JSON value, as Octez's data-encoding writes `json` in binary: objects and
 * arrays as documents (a top-level array as a document keyed "0", "1", …), numbers as doubles, and
 * a top-level scalar as a one-value document with tag 0x81 (number), 0x82 (string), 0x88 (boolean)
 * or 0x8A (null).
 */
export function bsonEncode(value: Json): Uint8Array {
  const w = new BsonWriter();
  if (value !== null && typeof value === "object") {
    writeDocument(w, Array.isArray(value) ? value.map((x, i) => [String(i), x]) : Object.entries(value), 0);
    return w.bytes();
  }
  w.i32le(0);
  if (value === null) w.u8(0x8a);
  else if (typeof value === "number") {
    w.u8(0x81);
    w.f64le(checkNumber(value));
  } else if (typeof value === "string") {
    w.u8(0x82);
    bsonString(w, value);
  } else if (typeof value === "boolean") {
    w.u8(0x88);
    w.u8(value ? 1 : 0);
  } else throw new TypeError(`Not a JSON value: ${typeof value}`);
  w.u8(0);
  w.patchI32le(0, w.len);
  return w.bytes();
}

class BsonReader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly end: number;
  pos: number;
  constructor(bytes: Uint8Array, pos: number, end: number) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = pos;
    this.end = end;
  }
  need(n: number, what: string): void {
    if (this.pos + n > this.end) throw new DecodeError(`Invalid BSON: not enough data for ${what}`);
  }
  u8(): number {
    this.need(1, "a byte");
    return this.bytes[this.pos++]!;
  }
  i32le(): number {
    this.need(4, "a size");
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }
  f64le(): number {
    this.need(8, "a double");
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }
  utf8(from: number, to: number): string {
    try {
      return UTF8_DECODER.decode(this.bytes.subarray(from, to));
    } catch {
      throw new DecodeError("Invalid BSON: string is not UTF-8");
    }
  }
  cstring(): string {
    const start = this.pos;
    while (this.pos < this.end && this.bytes[this.pos] !== 0) this.pos++;
    if (this.pos >= this.end) throw new DecodeError("Invalid BSON: unterminated field name");
    const s = this.utf8(start, this.pos);
    this.pos++;
    return s;
  }
  string(): string {
    const n = this.i32le() - 1;
    if (n < 0) throw new DecodeError("Invalid BSON: negative string size");
    this.need(n + 1, "a string");
    const s = this.utf8(this.pos, this.pos + n);
    this.pos += n;
    if (this.bytes[this.pos++] !== 0) throw new DecodeError("Invalid BSON: string terminator expected");
    return s;
  }
  bool(): boolean {
    const b = this.u8();
    if (b === 0) return false;
    if (b === 1) return true;
    throw new DecodeError(`Invalid BSON: bad boolean byte 0x${b.toString(16).padStart(2, "0")}`);
  }
}

function readDocument(r: BsonReader, asArray: boolean, depth: number): Json {
  if (depth > 1000) throw new DecodeError("Invalid BSON: nested too deeply");
  const start = r.pos;
  const size = r.i32le();
  if (size < 5 || start + size > r.end) throw new DecodeError("Invalid BSON: document size out of bounds");
  const docEnd = start + size;
  const sub = new BsonReader(r.bytes, r.pos, docEnd);
  const fields: [string, Json][] = [];
  for (;;) {
    const tag = sub.u8();
    if (tag === 0) break;
    const name = sub.cstring();
    let v: Json;
    switch (tag) {
      case 0x01:
        v = sub.f64le();
        break;
      case 0x02:
        v = sub.string();
        break;
      case 0x08:
        v = sub.bool();
        break;
      case 0x0a:
        v = null;
        break;
      case 0x03:
      case 0x04:
        v = readDocument(sub, tag === 0x04, depth + 1);
        break;
      default:
        throw new DecodeError(`Invalid BSON: unknown tag 0x${tag.toString(16).padStart(2, "0")}`);
    }
    fields.push([name, v]);
  }
  if (sub.pos !== docEnd) throw new DecodeError("Invalid BSON: early terminator");
  r.pos = docEnd;
  if (asArray) {
    return fields.map(([name, v], i) => {
      if (name !== String(i)) throw new DecodeError("Invalid BSON: invalid field names for an array");
      return v;
    });
  }
  const o: { [k: string]: Json } = {};
  for (const [k, v] of fields) o[k] = v;
  return o;
}

/** The JSON value of BSON bytes written by {@link bsonEncode} (or by Octez); DecodeError if malformed. */
export function bsonDecode(bytes: Uint8Array): Json {
  const r = new BsonReader(bytes, 0, bytes.length);
  if (bytes.length < 5) throw new DecodeError("Invalid BSON: not enough data for size and terminator");
  const size = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(0, true);
  if (size !== bytes.length) throw new DecodeError("Invalid BSON: size inconsistent with the data");
  const tag = bytes[4]!;
  if ((tag & 0xf0) === 0x80) {
    r.pos = 5;
    let v: Json;
    switch (tag & 0x0f) {
      case 0x01:
        v = r.f64le();
        break;
      case 0x02:
        v = r.string();
        break;
      case 0x08:
        v = r.bool();
        break;
      case 0x0a:
        v = null;
        break;
      default:
        throw new DecodeError(`Invalid BSON: unknown immediate tag 0x${tag.toString(16)}`);
    }
    if (r.pos !== bytes.length - 1 || bytes[r.pos] !== 0) throw new DecodeError("Invalid BSON: terminator expected");
    return v;
  }
  return readDocument(r, false, 0);
}

/**
 * Any JSON value in Octez's data-encoding `json` form: the value itself in JSON; in binary a
 * 4-byte length then its BSON bytes.
 */
export const bsonJson: Codec<Json> = makeCodec<Json>({
  size: { kind: "dynamic" },
  desc: { t: "dyn", lengthSize: "Uint30", codec: makeCodec<Json>({
    size: { kind: "variable" },
    desc: { t: "leaf", layout: { kind: "Bytes" } },
    toJson: (v) => v,
    fromJson: (j) => j,
    write: (out, v) => out.raw(bsonEncode(v)),
    read: (r) => bsonDecode(r.take(r.remaining)),
    schema: () => ({}),
  }) },
  toJson: (v) => {
    if (v === undefined) throw new TypeError("Expected a JSON value, got undefined");
    return v;
  },
  fromJson: (j) => j,
  write(out, v) {
    if (v === undefined) throw new TypeError("Expected a JSON value, got undefined");
    const b = bsonEncode(v);
    out.u32(b.length);
    out.raw(b);
  },
  read(r) {
    const n = r.u32();
    if (n > 0x3fffffff) throw new DecodeError(`Length prefix ${n} exceeds 2^30 - 1`);
    return bsonDecode(r.take(n));
  },
  schema: () => ({}),
});

/**
 * One error of a receipt (`011-PtHangz2.error`): any JSON in JSON (Octez prints the registered
 * error's object, `{kind, id, ...}`), {@link bsonJson} in binary.
 */
export const protocolError: Codec<ProtocolError> = def("011-PtHangz2.error", bsonJson, {
  description:
    "The full list of RPC errors would be too long to include.\nIt is available at RPC `/errors` (GET).\nErrors specific to protocol Alpha have an id that starts with `proto.alpha`.",
});

/** An error trace (`trace_encoding`): a list of {@link protocolError}. */
export const errorTrace: Codec<ErrorTrace> = list(protocolError);
