/**
 * What the prevalidator needs from a protocol beyond the `Protocol` interface, after Octez's
 * `Prevalidator_filters.FILTER` (the protocol plugin) and `Proto.operation_data_encoding`:
 * parsing an operation's protocol data, the mempool filter and its configuration (minimal fees,
 * gas and byte prices), the pre-filter run on operations that arrive or are recycled after a new
 * head, the post-filter run on applied operations, and who signed a consensus operation. The
 * shell never looks inside protocol data; a plugin does, for its protocol.
 * @module
 */
import type { Codec } from "../encoding/core.ts";
import type { Json } from "../encoding/codec.ts";
import type { TraceItem } from "../errors/registry.ts";
import type { ShellOperation } from "./protocol.ts";

/** The classes an operation lands in when it is not applied (Octez `error_classification`). */
export type ErrorClass = "refused" | "outdated" | "branch_refused" | "branch_delayed";

/** Every class of a classified operation (Octez `classification`, without `prechecked`). */
export type Classification = "applied" | ErrorClass;

/** Order in which pending operations are classified (Octez `Pending_ops.priority`). */
export type Priority = "high" | "medium" | "low";

/** The pre-filter's answer: classify later with a priority, or classify now with errors. */
export type PreFilterResult =
  | { readonly passed: true; readonly priority: Priority }
  | { readonly passed: false; readonly class: ErrorClass; readonly trace: readonly TraceItem[] };

/** The post-filter's answer for an operation the protocol applied. */
export type PostFilterResult = { readonly passed: true } | { readonly passed: false; readonly trace: readonly TraceItem[] };

/** The block the mempool builds on, as the filters see it. */
export interface FilterContext {
  /** Hash of the head (the predecessor of the block being built). */
  readonly predecessor: string;
  /** Level of the block being built (the head's level + 1). */
  readonly level: number;
}

/** A parsed operation: its protocol data and its size as the protocol measures it. */
export interface ParsedOperation<P> {
  readonly data: P;
  /** Octez's `Data_encoding.Binary.length Operation.encoding`: branch plus protocol data, re-encoded. */
  readonly size: number;
}

/** One protocol's mempool plugin; `P` is its parsed protocol data, `C` its filter configuration. */
export interface MempoolPlugin<P = any, C = any> {
  /** The protocol's hash. */
  readonly protocol: string;
  /** JSON of the protocol data (`contents`, `signature`), for the mempool RPCs. */
  readonly dataCodec: Codec<P>;
  /** Parses an operation (all its bytes, branch included); throws when it is not one of the protocol's. */
  parse(bytes: Uint8Array, op: ShellOperation): ParsedOperation<P>;
  /** The default filter configuration. */
  readonly defaultConfig: C;
  /** JSON of a configuration; without `includeDefault`, fields equal to their default are left out. */
  configToJson(config: C, includeDefault: boolean): Json;
  /** Reads a configuration (absent fields take their default); throws on anything invalid. */
  configFromJson(json: Json): C;
  /** Octez's `pre_filter`: run on operations that arrive from peers or are recycled on a new head. */
  preFilter(config: C, op: { readonly data: P; readonly branch: string; readonly size: number }, ctx: FilterContext): PreFilterResult;
  /** Octez's `post_filter`: run on each operation the protocol applied, with its receipt bytes. */
  postFilter(config: C, data: P, receipt: Uint8Array): PostFilterResult;
  /** The delegate of a consensus operation (an endorsement), read from its receipt; otherwise `undefined`. */
  endorser(data: P, receipt: Uint8Array): string | undefined;
}

/** Finds the mempool plugin of a protocol hash, if the node has one. */
export type PluginLookup = (protocol: string) => MempoolPlugin | undefined;
