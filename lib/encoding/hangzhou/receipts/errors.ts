/**
 * Errors inside receipts (`apply_results.ml`'s `error_encoding` and `trace_encoding`): each error
 * is kept as its JSON object (`{kind, id, ...}`), opaque to the codecs. In binary, Octez writes an
 * error as data-encoding's `json`: a 4-byte length then the value as a BSON document
 * (`../../bson.ts`).
 * @module
 */
import { bsonJson } from "../../bson.ts";
import type { Json } from "../../codec.ts";
import type { Codec } from "../../core.ts";
import { def } from "../../conv.ts";
import { list } from "../../list.ts";

/** One protocol error, as its JSON object (`{kind, id, ...}`). */
export type ProtocolError = Json;

/** The errors of a failed or backtracked operation, outermost last (an Octez error trace). */
export type ErrorTrace = ProtocolError[];

const bsonValue = bsonJson();

/** One error of a trace: its JSON object; in binary, data-encoding's `json` (length ‖ BSON). */
export const protocolError: Codec<ProtocolError> = def("011-PtHangz2.error", bsonValue, {
  description:
    "The full list of RPC errors would be too long to include.\nIt is available at RPC `/errors` (GET).\nErrors specific to protocol Alpha have an id that starts with `proto.alpha`.",
});

/** An error trace (`trace_encoding`): a list of {@link protocolError}. */
export const errorTrace: Codec<ErrorTrace> = list(protocolError);
