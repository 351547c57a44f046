/**
 * An encoding of any JSON value, as data-encoding's `json`: the JSON form is the value itself,
 * the binary form is its minified text behind a 4-byte length. Used for `/describe`'s and
 * `/errors`' answers, whose shapes are described by a JSON schema given here.
 * @module
 */
import { stringifyJson } from "../encoding/json-text.ts";
import { type BinarySchema, DecodeError, type Encoding, type Json, type JsonSchema } from "../encoding/codec.ts";

const UTF8 = new TextEncoder();
const UTF8_DECODER = new TextDecoder("utf-8", { fatal: true });

/** data-encoding's binary layout of `json`: a dynamically sized string. */
export const JSON_TEXT_BINARY_SCHEMA: BinarySchema = {
  toplevel: {
    fields: [
      { kind: "dyn", num_fields: 1, size: "Uint30" },
      { layout: { kind: "String" }, kind: "anon", data_kind: { kind: "Variable" } },
    ],
  },
  fields: [],
};

/** An `Encoding<Json>` passing values through, with the given JSON schema. */
export function anyJson(schema: JsonSchema = {}): Encoding<Json> {
  return {
    size: { kind: "dynamic" },
    toJson: (v) => v,
    fromJson: (j) => j,
    write(out, v) {
      const bytes = UTF8.encode(stringifyJson(v));
      const at = out.reserve(4);
      out.patchU32(at, bytes.length);
      out.raw(bytes);
    },
    read(input) {
      const len = input.take(4);
      const n = ((len[0]! << 24) | (len[1]! << 16) | (len[2]! << 8) | len[3]!) >>> 0;
      const text = input.take(n);
      try {
        return JSON.parse(UTF8_DECODER.decode(text)) as Json;
      } catch {
        throw new DecodeError("invalid JSON text");
      }
    },
    jsonSchema: () => schema,
    binarySchema: () => JSON_TEXT_BINARY_SCHEMA,
  };
}
