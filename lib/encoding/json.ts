/**
 * Any JSON value (data-encoding's `json`): the JSON form is the value itself; the binary form
 * is its minified text behind a 4-byte length. For error traces and other schemaless fields.
 * @module
 */
import { string } from "./bytes.ts";
import type { Json, JsonSchema } from "./codec.ts";
import { DecodeError } from "./codec.ts";
import { conv, splitted } from "./conv.ts";
import type { Codec } from "./core.ts";

const asText: Codec<Json> = conv(
  (v: Json) => JSON.stringify(v),
  (s: string) => {
    try {
      return JSON.parse(s) as Json;
    } catch {
      throw new DecodeError("invalid JSON text");
    }
  },
  string,
);

/** A codec for any JSON value, with `schema` as its JSON schema (any value when absent). */
export function jsonValue(schema: JsonSchema = {}): Codec<Json> {
  return splitted<Json>({ toJson: (v) => v, fromJson: (j) => j, schema: () => schema }, asText);
}
