/**
 * The store's errors the RPC answers with, with Octez's ids and fields (`store_errors.ml`).
 * @module
 */
import { blockHash, contextHash } from "../encoding/hashes.ts";
import { obj, req } from "../encoding/object.ts";
import { defineError, TezosError } from "../errors/registry.ts";

/** `store.metadata_not_found`: the block's metadata was pruned (below the savepoint) or never stored. */
export const blockMetadataNotFound = defineError<{ block_metadata_not_found: string }>({
  id: "store.metadata_not_found",
  kind: "permanent",
  title: "Block metadata not found",
  description: "Block metadata not found",
  fields: obj(req("block_metadata_not_found", blockHash)),
});

/** The error Octez answers `/metadata` with for a block whose metadata is gone. */
export function metadataNotFound(hash: string): TezosError {
  return new TezosError(blockMetadataNotFound.create({ block_metadata_not_found: hash }));
}

/** `store.cannot_checkout_context`: the block's context is not in the store (collected below the savepoint). */
export const cannotCheckoutContext = defineError<{ block_hash: string; context_hash: string }>({
  id: "store.cannot_checkout_context",
  kind: "temporary",
  title: "Cannot checkout context",
  description: "Failed to checkout context",
  fields: obj(req("block_hash", blockHash), req("context_hash", contextHash)),
});

/** The error Octez answers a context RPC with when the block's context is gone. */
export function contextNotFound(block: string, context: string): TezosError {
  return new TezosError(cannotCheckoutContext.create({ block_hash: block, context_hash: context }));
}
