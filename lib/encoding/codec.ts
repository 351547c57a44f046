/**
 * The codec contract: one definition of a type gives its JSON form, its binary form (Octez
 * data-encoding conventions), its JSON schema and its binary layout description. Combinators
 * that build codecs live beside this file; `/describe`, `/errors` and every RPC read them
 * through this interface only.
 * @module
 */

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON schema (draft-04) fragment. */
export type JsonSchema = { [key: string]: Json };

/**
 * A binary layout description, in the shape Octez's `/describe` prints as `binary_schema`:
 * `{ toplevel: { fields: [...] }, fields: [{ description: { title }, encoding: {...} }, ...] }`.
 */
export type BinarySchema = { toplevel: Json; fields: Json[] };

/**
 * How many bytes a value takes in binary: always `size` (fixed); self-delimiting (dynamic);
 * or everything up to the end of its enclosing limit (variable, e.g. unprefixed bytes).
 */
export type BinarySize =
  | { readonly kind: "fixed"; readonly size: number }
  | { readonly kind: "dynamic" }
  | { readonly kind: "variable" };

/** Raised when a JSON or binary input does not decode; `path` locates the fault. */
export class DecodeError extends Error {
  override name = "DecodeError";
  readonly path: readonly (string | number)[];
  constructor(message: string, path: readonly (string | number)[] = []) {
    super(path.length > 0 ? `${message} (at ${path.join(".")})` : message);
    this.path = path;
  }
}

/** Growing byte buffer for binary encoding. */
export class Writer {
  private buf = new Uint8Array(256);
  private len = 0;

  /** Bytes written so far (a copy). */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }

  /** Number of bytes written so far. */
  get length(): number {
    return this.len;
  }

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** Appends one byte. */
  u8(v: number): void {
    this.ensure(1);
    this.buf[this.len++] = v & 0xff;
  }

  /** Appends a big-endian uint16 (the low 16 bits of `v`). */
  u16(v: number): void {
    this.ensure(2);
    this.buf[this.len++] = (v >>> 8) & 0xff;
    this.buf[this.len++] = v & 0xff;
  }

  /** Appends a big-endian 32-bit integer (the low 32 bits of `v`, so int32 and uint32 alike). */
  u32(v: number): void {
    this.ensure(4);
    const b = this.buf;
    const at = this.len;
    b[at] = (v >>> 24) & 0xff;
    b[at + 1] = (v >>> 16) & 0xff;
    b[at + 2] = (v >>> 8) & 0xff;
    b[at + 3] = v & 0xff;
    this.len = at + 4;
  }

  /** Appends raw bytes. */
  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  /** Reserves `n` bytes and returns their offset, for a length prefix written later. */
  reserve(n: number): number {
    this.ensure(n);
    const at = this.len;
    this.len += n;
    return at;
  }

  /** Writes one byte at an offset returned by `reserve(1)`, for a one-byte length prefix. */
  patchU8(at: number, v: number): void {
    this.buf[at] = v & 0xff;
  }

  /** Drops everything written after the first `n` bytes (to undo a partial write). */
  truncate(n: number): void {
    if (n < this.len) this.len = Math.max(0, n);
  }

  /** Writes a big-endian uint32 at an offset returned by `reserve(4)`. */
  patchU32(at: number, v: number): void {
    this.buf[at] = (v >>> 24) & 0xff;
    this.buf[at + 1] = (v >>> 16) & 0xff;
    this.buf[at + 2] = (v >>> 8) & 0xff;
    this.buf[at + 3] = v & 0xff;
  }
}

/** Cursor over bytes for binary decoding; `end` bounds what variable-size values may consume. */
export class Reader {
  readonly bytes: Uint8Array;
  pos: number;
  end: number;
  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
  }

  /** Bytes left before `end`. */
  get remaining(): number {
    return this.end - this.pos;
  }

  /** Reads `n` raw bytes (a view), or throws a DecodeError if fewer remain. */
  take(n: number): Uint8Array {
    if (n < 0 || this.pos + n > this.end) throw new DecodeError(`Not enough data: need ${n} bytes, ${this.remaining} left`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** Reads one byte. */
  u8(): number {
    if (this.pos >= this.end) throw new DecodeError("Not enough data: need 1 byte, 0 left");
    return this.bytes[this.pos++]!;
  }

  /** Reads a big-endian uint16. */
  u16(): number {
    const p = this.pos;
    if (p + 2 > this.end) throw new DecodeError(`Not enough data: need 2 bytes, ${this.remaining} left`);
    this.pos = p + 2;
    return (this.bytes[p]! << 8) | this.bytes[p + 1]!;
  }

  /** Reads a big-endian uint32 (as a non-negative number). */
  u32(): number {
    return this.i32() >>> 0;
  }

  /** Reads a big-endian int32. */
  i32(): number {
    const p = this.pos;
    if (p + 4 > this.end) throw new DecodeError(`Not enough data: need 4 bytes, ${this.remaining} left`);
    const b = this.bytes;
    this.pos = p + 4;
    return (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
  }

  /** Runs `f` with `end` narrowed to the next `n` bytes, and checks that it consumed them all. */
  within<T>(n: number, f: () => T): T {
    if (n < 0 || this.pos + n > this.end) throw new DecodeError(`Not enough data: need ${n} bytes, ${this.remaining} left`);
    const saved = this.end;
    this.end = this.pos + n;
    try {
      const v = f();
      if (this.pos !== this.end) throw new DecodeError(`${this.end - this.pos} unexpected trailing bytes`);
      return v;
    } finally {
      this.end = saved;
    }
  }
}

/** One type's codec: JSON, binary, JSON schema and binary layout, from a single definition. */
export interface Encoding<T> {
  /** Name of the type in schemas (data-encoding's `def` name), if it has one. */
  readonly title?: string;
  /** Binary size class. */
  readonly size: BinarySize;
  /** The JSON form of a value. */
  toJson(value: T): Json;
  /** A value from its JSON form; throws DecodeError with a path on bad input. */
  fromJson(json: Json): T;
  /** Appends the binary form of a value. */
  write(out: Writer, value: T): void;
  /** Reads a value; throws DecodeError on bad input. */
  read(input: Reader): T;
  /** The JSON schema (draft-04) of the JSON form. */
  jsonSchema(): JsonSchema;
  /** The binary layout description, as `/describe` prints it. */
  binarySchema(): BinarySchema;
}

/** Binary form of `value`. */
export function encodeBinary<T>(enc: Encoding<T>, value: T): Uint8Array {
  const w = new Writer();
  enc.write(w, value);
  return w.bytes();
}

/** Value from its complete binary form; trailing bytes are an error. */
export function decodeBinary<T>(enc: Encoding<T>, bytes: Uint8Array): T {
  const r = new Reader(bytes);
  const v = enc.read(r);
  if (r.remaining !== 0) throw new DecodeError(`${r.remaining} unexpected trailing bytes`);
  return v;
}
