/**
 * The shell's own errors (Octez `Error_monad`: `failure`, `canceled`, `utils.Timeout`) and the
 * conversion of any thrown value into an error trace.
 * @module
 */
import type { Encoding, Json } from "../encoding/codec.ts";
import { DecodeError } from "../encoding/codec.ts";
import { defineError, type ErrorDefinition, TezosError, type TraceItem } from "./registry.ts";

// Hand-written until lib/encoding has its object combinators: `obj1 (req "msg" string)`.
const msgFields: Encoding<{ msg: string }> = {
  size: { kind: "dynamic" },
  toJson: (v) => ({ msg: v.msg }),
  fromJson(json) {
    if (json === null || typeof json !== "object" || Array.isArray(json) || typeof json["msg"] !== "string") {
      throw new DecodeError("expected an object with a string field msg");
    }
    return { msg: json["msg"] };
  },
  write() {
    throw new TypeError("failure: JSON-only error encoding");
  },
  read() {
    throw new DecodeError("failure: JSON-only error encoding");
  },
  jsonSchema: () => ({
    type: "object",
    properties: { msg: { $ref: "#/definitions/unistring" } },
    required: ["msg"],
    additionalProperties: false,
    definitions: {
      unistring: {
        title: "Universal string representation",
        description:
          "Either a plain UTF8 string, or a sequence of bytes for strings that contain invalid byte sequences.",
        oneOf: [
          { type: "string" },
          {
            type: "object",
            properties: {
              invalid_utf8_string: { type: "array", items: { type: "integer", minimum: 0, maximum: 255 } },
            },
            required: ["invalid_utf8_string"],
            additionalProperties: false,
          },
        ] as Json[],
      },
    },
  }),
  binarySchema: () => ({ toplevel: { fields: [] }, fields: [] }),
};

/** `{"kind":"temporary","id":"failure","msg":…}`: an exception safely wrapped in an error. */
export const failure: ErrorDefinition<{ msg: string }> = defineError({
  id: "failure",
  kind: "temporary",
  title: "Exception",
  description: "Exception safely wrapped in an error",
  fields: msgFields,
});

/** A promise was unexpectedly canceled. */
export const canceled: ErrorDefinition = defineError({
  id: "canceled",
  kind: "temporary",
  title: "Canceled",
  description: "A promise was unexpectedly canceled",
});

/** The request has timed out. */
export const timeout: ErrorDefinition = defineError({
  id: "utils.Timeout",
  kind: "temporary",
  title: "Timeout",
  description: "Timeout",
});

/** A `failure` item with a message (Octez's `failwith`). */
export function failureItem(msg: string): TraceItem {
  return failure.create({ msg });
}

/** The message Octez would print for an exception: the bare message of a plain `Error`, else `Name: message`. */
export function exceptionMessage(e: unknown): string {
  if (e instanceof Error) return e.name === "Error" || e.name === "" ? e.message : `${e.name}: ${e.message}`;
  try {
    return String(e);
  } catch {
    return "unprintable exception";
  }
}

/** The error trace of any thrown value: a `TezosError`'s own trace, else one `failure` item. */
export function traceOf(e: unknown): readonly TraceItem[] {
  if (e instanceof TezosError) return e.trace;
  return [failureItem(exceptionMessage(e))];
}

/** `e` itself if it is a `TezosError`, else a `TezosError` wrapping it as a `failure`. */
export function toTezosError(e: unknown): TezosError {
  return e instanceof TezosError ? e : new TezosError(traceOf(e), { cause: e });
}
