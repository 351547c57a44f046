/**
 * Byte sequences and strings: fixed-size, variable-size (runs to the end of its enclosing limit)
 * and dynamic-size (4-byte length prefix: data-encoding's plain `bytes` and `string`).
 * JSON: bytes as hex, strings as JSON strings.
 * @module
 */
import { DecodeError, type JsonSchema } from "./codec.ts";
import { jsonTypeError, makeCodec, valueTypeError, type Codec, type SchemaContext } from "./core.ts";
import { dynamicSize } from "./dynamic.ts";
import { toHex, tryFromHex } from "./hex.ts";

const HEX_SCHEMA: JsonSchema = { type: "string", pattern: "^([a-zA-Z0-9][a-zA-Z0-9])*$" };

function hexJson(j: unknown, size: number | undefined): Uint8Array {
  if (typeof j !== "string") throw jsonTypeError("a hex string", j as never);
  const b = tryFromHex(j);
  if (b === undefined) throw new DecodeError(`Invalid hex string ${JSON.stringify(j.length > 40 ? j.slice(0, 40) + "..." : j)}`);
  if (size !== undefined && b.length !== size) throw new DecodeError(`Expected ${size} bytes, got ${b.length}`);
  return b;
}

function checkBytes(v: unknown, size?: number): Uint8Array {
  if (!(v instanceof Uint8Array)) throw valueTypeError("a Uint8Array", v);
  if (size !== undefined && v.length !== size) throw new RangeError(`Expected ${size} bytes, got ${v.length}`);
  return v;
}

/**
 * Exactly `size` bytes, no prefix; JSON hex.
 * @example fixedBytes(8) // proof_of_work_nonce
 */
export function fixedBytes(size: number): Codec<Uint8Array> {
  return makeCodec<Uint8Array>({
    size: { kind: "fixed", size },
    desc: { t: "leaf", layout: { kind: "Bytes" } },
    toJson: (v) => toHex(checkBytes(v, size)),
    fromJson: (j) => hexJson(j, size),
    write(out, v) {
      out.raw(checkBytes(v, size));
    },
    read: (r) => r.take(size).slice(),
    schema: () => ({ ...HEX_SCHEMA }),
  });
}

/** Bytes running to the end of the enclosing limit (data-encoding `Variable.bytes`); JSON hex. */
export const variableBytes: Codec<Uint8Array> = makeCodec<Uint8Array>({
  size: { kind: "variable" },
  desc: { t: "leaf", layout: { kind: "Bytes" } },
  toJson: (v) => toHex(checkBytes(v)),
  fromJson: (j) => hexJson(j, undefined),
  write(out, v) {
    out.raw(checkBytes(v));
  },
  read: (r) => r.take(r.remaining).slice(),
  schema: () => ({ ...HEX_SCHEMA }),
});

/** Bytes with a 4-byte length prefix (data-encoding `bytes`); JSON hex. */
export const bytes: Codec<Uint8Array> = dynamicSize(variableBytes);

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** `unistring` definition (Octez's JSON schema of strings). */
export function unistringSchema(ctx: SchemaContext): JsonSchema {
  if (!ctx.defs.has("unistring")) {
    ctx.defs.set("unistring", {
      title: "Universal string representation",
      description: "Either a plain UTF8 string, or a sequence of bytes for strings that contain invalid byte sequences.",
      oneOf: [
        { type: "string" },
        {
          type: "object",
          properties: { invalid_utf8_string: { type: "array", items: { type: "integer", minimum: 0, maximum: 255 } } },
          required: ["invalid_utf8_string"],
          additionalProperties: false,
        },
      ],
    });
  }
  return { $ref: "#/definitions/unistring" };
}

/** UTF-8 bytes of a string. */
export function utf8(s: string): Uint8Array {
  return utf8Encoder.encode(s);
}

/** String of UTF-8 bytes; throws a DecodeError on invalid UTF-8. */
export function fromUtf8(b: Uint8Array): string {
  try {
    return utf8Decoder.decode(b);
  } catch {
    throw new DecodeError("Invalid UTF-8 string");
  }
}

function checkString(v: unknown): string {
  if (typeof v !== "string") throw valueTypeError("a string", v);
  return v;
}

/** UTF-8 string running to the end of the enclosing limit (data-encoding `Variable.string`). */
export const variableString: Codec<string> = makeCodec<string>({
  size: { kind: "variable" },
  desc: { t: "leaf", layout: { kind: "String" } },
  toJson: (v) => checkString(v),
  fromJson(j) {
    if (typeof j === "string") return j;
    throw jsonTypeError("a string", j);
  },
  write(out, v) {
    out.raw(utf8(checkString(v)));
  },
  read: (r) => fromUtf8(r.take(r.remaining)),
  schema: unistringSchema,
});

/** UTF-8 string with a 4-byte length prefix (data-encoding `string`); JSON string. */
export const string: Codec<string> = dynamicSize(variableString);

/** UTF-8 string of at most `max` bytes with a 1-byte length prefix (data-encoding `Bounded.string`, max < 256). */
export function boundedString(max: number): Codec<string> {
  const inner = makeCodec<string>({
    size: { kind: "variable" },
    desc: { t: "leaf", layout: { kind: "String" } },
    toJson: (v) => checkString(v),
    fromJson(j) {
      if (typeof j !== "string") throw jsonTypeError("a string", j);
      if (utf8(j).length > max) throw new DecodeError(`String longer than ${max} bytes`);
      return j;
    },
    write(out, v) {
      const b = utf8(checkString(v));
      if (b.length > max) throw new RangeError(`String longer than ${max} bytes`);
      out.raw(b);
    },
    read(r) {
      if (r.remaining > max) throw new DecodeError(`String longer than ${max} bytes`);
      return fromUtf8(r.take(r.remaining));
    },
    schema: () => ({ type: "string" }),
  });
  return dynamicSize(inner, { lengthSize: max < 256 ? "Uint8" : "Uint30" });
}
