/**
 * Hangzhou receipts (`apply_results.ml`, `receipt_repr.ml`, `lazy_storage_diff.ml`, and the
 * shell's `block_services.ml` wrappers): balance updates, operation results, operation and block
 * metadata, lazy storage diffs, errors.
 *
 * @example
 * ```ts
 * import { operationWithMetadata, decodeBinary, encodeBinary } from "../mod.ts";
 * const op = operationWithMetadata.fromJson(preapplyResult[0]); // contents with `metadata`
 * op.contents[0].metadata.operation_result.status; // "applied"
 * decodeBinary(operationWithMetadata, encodeBinary(operationWithMetadata, op)); // same value
 * ```
 * @module
 */
export * from "./errors.ts";
export * from "./balance-updates.ts";
export * from "./lazy-storage-diff.ts";
export * from "./operation-results.ts";
export * from "./contents-results.ts";
export * from "./block-metadata.ts";
