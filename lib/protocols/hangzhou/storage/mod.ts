/**
 * Hangzhou's storage layer: the mutable {@link ProtoContext} over the immutable Merkle context,
 * the key layout of Octez's `storage.ml`, and the storage operations of contracts, rolls,
 * delegates, frozen balances, seeds, nonces, votes, commitments, big maps and liquidity baking,
 * with Octez's semantics and errors.
 *
 * @example
 * ```ts
 * const pc = ProtoContext.prepare(context, { level, predecessorTimestamp, timestamp, fitness });
 * spend(pc, source, fee); pc.addFees(fee);
 * freezeDeposit(pc, baker, pc.constants.block_security_deposit);
 * const src = contextRightsSource(pc);          // for ../rights.ts
 * ```
 * @module
 */
export * from "./big-map.ts";
export * from "./commitment.ts";
export * from "./contract.ts";
export * from "./delegation.ts";
export * from "./errors.ts";
export * from "./frozen.ts";
export * from "./layout.ts";
export * from "./liquidity-baking.ts";
export * from "./nonce.ts";
export * from "./proto-context.ts";
export * from "./rights-source.ts";
export * from "./roll.ts";
export * from "./seed.ts";
export * from "./tez.ts";
export * from "./vote.ts";
