/**
 * The sandbox baker and endorser (Emmy*, protocol 011 Hangzhou): bakes blocks with the held
 * keys at their best priority, includes the endorsements of its delegates, commits to seed nonces
 * and reveals them in the next cycle, and times blocks at the later of the wall clock and their
 * minimal valid time. Modes: `auto`, `interval:<s>`, `manual`. See `docs/baker.md`.
 *
 * @example
 * ```ts
 * import { bootstrapSecretKeys, createBaker } from "./lib/baker/mod.ts";
 * const baker = createBaker({ chain, validator, keys: bootstrapSecretKeys(), mode: "manual" });
 * const hashes = await baker.bakeMany(3);
 * ```
 * @module
 */
export { AUTO_START_LEVEL, type Baker, type BakerOptions, type BakeManyOptions, createBaker, MAX_BAKE_COUNT, type Timers } from "./baker.ts";
export {
  type BakedBlock,
  bakeBlock,
  type BakeEnv,
  findProofOfWork,
  HANGZHOU,
  NotHangzhou,
  type OperationPasses,
  planOnHead,
  proofOfWorkNonce,
  proofOfWorkStamp,
} from "./block.ts";
export { BOOTSTRAP_ACCOUNTS, type BootstrapAccount, findBootstrapAccount } from "./bootstrap-accounts.ts";
export { BOOTSTRAP_NAMES, BOOTSTRAP_SECRET_KEYS, bootstrapSecretKeys, type HeldKey, keyRing, selectBootstrapKeys } from "./keys.ts";
export { type BakerMode, checkBakerMode, formatBakerMode, MAX_INTERVAL_SECONDS, parseBakerMode } from "./mode.ts";
export { drawNonce, NONCE_SIZE, NonceStore } from "./nonces.ts";
export { endorsementSignedBytes, endorsementWithSlotBytes, forgeEndorsementWithSlot, forgeSeedNonceRevelation } from "./operations.ts";
export {
  type BlockPlan,
  MAX_ANONYMOUS_OPERATIONS,
  MAX_PRIORITY,
  NoBakingRights,
  type PlanHead,
  type PlanInput,
  type PlannedEndorsement,
  type PlannedRevelation,
  planBlock,
} from "./plan.ts";
