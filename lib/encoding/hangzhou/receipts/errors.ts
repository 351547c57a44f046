/**
 * Errors inside receipts (`apply_results.ml`'s `error_encoding` and `trace_encoding`): each error
 * is kept as its JSON object (`{kind, id, ...}`), opaque to the codecs. In binary, Octez writes an
 * error as data-encoding's `json`: a 4-byte length then the value as a BSON document
 * (`../../bson.ts`); reading one back goes through its definition in the node's error registry,
 * which restores what BSON loses (an empty array comes back as `{}`).
 * @module
 */
import { defaultRegistry } from "../../../errors/mod.ts";
import { bsonJson } from "../../bson.ts";
import type { Json } from "../../codec.ts";
import type { Codec } from "../../core.ts";
import { conv, def } from "../../conv.ts";
import { list } from "../../list.ts";

/** One protocol error, as its JSON object (`{kind, id, ...}`). */
export type ProtocolError = Json;

/** The errors of a failed or backtracked operation, outermost last (an Octez error trace). */
export type ErrorTrace = ProtocolError[];

// Read back through the error's registered encoding, as Octez does (BSON loses empty arrays).
const bsonValue = conv((e: ProtocolError) => e, (j: Json) => defaultRegistry.normalizeJson(j), bsonJson());

/** One error of a trace: its JSON object; in binary, data-encoding's `json` (length ‖ BSON). */
export const protocolError: Codec<ProtocolError> = def("011-PtHangz2.error", bsonValue, {
  description:
    "The full list of RPC errors would be too long to include.\nIt is available at RPC `/errors` (GET).\nErrors specific to protocol Alpha have an id that starts with `proto.alpha`.",
});

/** An error trace (`trace_encoding`): a list of {@link protocolError}. */
export const errorTrace: Codec<ErrorTrace> = list(protocolError);
