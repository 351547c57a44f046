/**
 * The prevalidator's errors with Octez's ids (`validation_errors.ml`, `prevalidation.ml`,
 * `RPC_error.ml`), the classification of an error trace (Octez `classify_trace`), and the text
 * Octez prints for a trace inside a `failure` message (`pp_print_trace`).
 * @module
 */
import type { Json } from "../encoding/codec.ts";
import { int8, int31 } from "../encoding/integers.ts";
import { list } from "../encoding/list.ts";
import { obj, req } from "../encoding/object.ts";
import { failure } from "../errors/core.ts";
import { defineError, ErrorItem, type ErrorDefinition, TezosError, type TraceItem } from "../errors/registry.ts";
import type { ErrorClass } from "./mempool-plugin.ts";

/** `node.prevalidation.parse_error`: the operation's bytes are not an operation of the protocol. */
export const parseError: ErrorDefinition = defineError({
  id: "node.prevalidation.parse_error",
  kind: "permanent",
  title: "Parsing error in prevalidation",
  description: "Raised when an operation has not been parsed correctly during prevalidation.",
});

/** `node.prevalidation.oversized_operation`: longer than the protocol's `max_operation_data_length`. */
export const oversizedOperation: ErrorDefinition<{ size: number; max_size: number }> = defineError({
  id: "node.prevalidation.oversized_operation",
  kind: "permanent",
  title: "Oversized operation",
  description: "The operation size is bigger than allowed.",
  fields: obj(req("size", int31), req("max_size", int31)),
});

/** `prevalidation.endorsement_branch_not_live`: the operation is already in a live block. */
export const endorsementBranchNotLive: ErrorDefinition = defineError({
  id: "prevalidation.endorsement_branch_not_live",
  kind: "permanent",
  title: "Endorsement branch not live",
  description: "Endorsement's branch is not in the live blocks",
});

/** `RPC_error.bad_version`: `pending_operations?version=` outside the supported versions. */
export const badVersion: ErrorDefinition<{ given: number; supported: number[] }> = defineError({
  id: "RPC_error.bad_version",
  kind: "permanent",
  title: "Unknown RPC version",
  description: "The RPC was called with a bad version number.",
  fields: obj(req("given", int8), req("supported", list(int8))),
});

/** A trace item read back from JSON (errors a protocol put in a receipt). */
export class JsonTraceItem implements TraceItem {
  readonly id: string;
  readonly kind: TraceItem["kind"];
  private readonly json: { [key: string]: Json };
  constructor(json: { [key: string]: Json }) {
    this.json = json;
    this.id = typeof json["id"] === "string" ? json["id"] : "unknown";
    const k = json["kind"];
    this.kind = k === "permanent" || k === "branch" ? k : "temporary";
  }
  /** The JSON it was read from. */
  toJson(): { [key: string]: Json } {
    return this.json;
  }
}

/**
 * The class of an error trace, as Octez's `classify_trace`: a permanent error anywhere makes it
 * refused, else an outdated one outdated, else a branch one branch refused, else branch delayed.
 */
export function classOfTrace(trace: readonly TraceItem[]): ErrorClass {
  let out: ErrorClass = "branch_delayed";
  for (const item of trace) {
    const kind = item.kind as string;
    if (kind === "permanent") return "refused";
    if (kind === "outdated") out = "outdated";
    else if (kind === "branch" && out !== "outdated") out = "branch_refused";
  }
  return out;
}

/** How Octez prints one error: its own printer for the shell's, its JSON (the default printer) otherwise. */
export function printError(item: TraceItem): string {
  const json = item.toJson();
  if (item instanceof ErrorItem) {
    if (item.definition === (parseError as ErrorDefinition<unknown>)) return "Operation parsing error in prevalidation.";
    if (item.definition === (oversizedOperation as ErrorDefinition<unknown>)) {
      return `Oversized operation (size: ${String(json["size"])}, max: ${String(json["max_size"])})`;
    }
    if (item.definition === (failure as ErrorDefinition<unknown>)) return String(json["msg"]);
  }
  const { kind: _kind, id: _id, ...data } = json;
  const description = item instanceof ErrorItem ? item.definition.description : "";
  return JSON.stringify({ id: item.id, description, data });
}

/** Octez's `pp_print_trace`: `Error:` then the error, or the first error and the whole trace oldest first. */
export function printTrace(trace: readonly TraceItem[]): string {
  if (trace.length === 0) return "Error:\n  (empty trace)\n";
  if (trace.length === 1) return `Error:\n  ${printError(trace[0]!)}\n`;
  const all = [...trace].reverse().map((e) => `  ${printError(e)}`);
  return `Error:\n  ${printError(trace[0]!)},\n  trace:\n${all.join("\n")}\n`;
}

/** A `failure` error with Octez's message (`failwith`). */
export function failWith(msg: string, trace?: readonly TraceItem[]): TezosError {
  if (trace === undefined || trace.length === 0) return failure.error({ msg });
  return new TezosError(failure.create({ msg }), { cause: new TezosError(trace) });
}

/**
 * The error ids behind a refusal: those of the trace a {@link failWith} error was made from
 * (the protocol's, say `proto.011-PtHangz2.contract.balance_too_low`), else the error's own.
 */
export function refusalIds(error: unknown): string[] {
  const inner = error instanceof TezosError && error.cause instanceof TezosError ? error.cause : error;
  return inner instanceof TezosError ? inner.trace.map((item) => item.id) : ["failure"];
}
