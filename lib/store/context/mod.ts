/**
 * The context: a Merkle tree of the chain's state, kept in the key-value store, content
 * addressed (BLAKE2b-256) and shared between versions; the hash of its commit is the block
 * header's `context` field.
 *
 * @example
 * import { b58encode, B58 } from "../../encoding/base58.ts";
 * let ctx = emptyContext(store);
 * ctx = ctx.set(["version"], new TextEncoder().encode("genesis"));
 * const { hash, ops } = commit(ctx, { parents: [], time: 0, message: "genesis" });
 * await store.write(ops);
 * b58encode(B58.contextHash, hash); // "Co..."
 * checkout(store, hash)?.get(["version"]);
 * @module
 */
export { Context, emptyContext, type ListOptions, type RawContext } from "./context.ts";
export { checkout, commit, type CommitInfo, type CommitResult, readCommit, type StoredCommit } from "./commit.ts";
export { ContextCorruptionError } from "./node.ts";
export type { ContextPath } from "./path.ts";
