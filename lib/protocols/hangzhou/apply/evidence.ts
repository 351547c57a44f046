/**
 * Denunciations (Octez `apply.ml`): evidence that a delegate endorsed two different blocks of one
 * level, or baked two blocks of one level. The offender loses what it has frozen for the level's
 * cycle; the including baker gets half of the deposit and fees as a frozen reward.
 * @module
 */
import { encodeBinary } from "../../../encoding/codec.ts";
import type { BalanceUpdate } from "../../../encoding/hangzhou/receipts/balance-updates.ts";
import { blockHeader } from "../../../encoding/hangzhou/block-header.ts";
import type { DoubleBakingEvidence, DoubleEndorsementEvidence } from "../../../encoding/hangzhou/operation.ts";
import { blockHash, publicKeyHash as pkhCodec } from "../../../encoding/mod.ts";
import { int32 } from "../../../encoding/integers.ts";
import { obj, req } from "../../../encoding/object.ts";
import { formatPublicKeyHash, publicKeyEquals, publicKeyHash } from "../../../crypto/keys.ts";
import type { ErrorDefinition } from "../../../errors/mod.ts";
import { givenLevel, lastAllowedForkLevel, type Level } from "../level.ts";
import { protoError } from "../proto-error.ts";
import { bakingRightsOwner } from "../rights.ts";
import { cleanupBalanceUpdates, hasFrozenBalance, punish } from "../storage/frozen.ts";
import type { ProtoContext } from "../storage/proto-context.ts";
import { contextRightsSource } from "../storage/rights-source.ts";
import { blockHashOf, checkBlockSignature } from "./baking.ts";
import { checkEndorsementRight } from "./endorsement.ts";

const levels = obj(req("level", int32), req("current", int32));
const outdated = obj(req("level", int32), req("last", int32));
const delegates = obj(req("delegate1", pkhCodec), req("delegate2", pkhCodec));

/** `block.invalid_double_endorsement_evidence`. */
export const invalidDoubleEndorsementEvidence: ErrorDefinition = protoError({
  id: "block.invalid_double_endorsement_evidence",
  kind: "permanent",
  title: "Invalid double endorsement evidence",
  description: "A double-endorsement evidence is malformed",
});
/** `block.inconsistent_double_endorsement_evidence`. */
export const inconsistentDoubleEndorsementEvidence: ErrorDefinition<{ delegate1: string; delegate2: string }> = protoError({
  id: "block.inconsistent_double_endorsement_evidence",
  kind: "permanent",
  title: "Inconsistent double endorsement evidence",
  description: "A double-endorsement evidence is inconsistent  (two distinct delegates)",
  fields: delegates,
});
/** `block.unrequired_double_endorsement_evidence`. */
export const unrequiredDoubleEndorsementEvidence: ErrorDefinition = protoError({
  id: "block.unrequired_double_endorsement_evidence",
  kind: "branch",
  title: "Unrequired double endorsement evidence",
  description: "A double-endorsement evidence is unrequired",
});
/** `block.too_early_double_endorsement_evidence`. */
export const tooEarlyDoubleEndorsementEvidence: ErrorDefinition<{ level: number; current: number }> = protoError({
  id: "block.too_early_double_endorsement_evidence",
  kind: "temporary",
  title: "Too early double endorsement evidence",
  description: "A double-endorsement evidence is in the future",
  fields: levels,
});
/** `block.outdated_double_endorsement_evidence`. */
export const outdatedDoubleEndorsementEvidence: ErrorDefinition<{ level: number; last: number }> = protoError({
  id: "block.outdated_double_endorsement_evidence",
  kind: "permanent",
  title: "Outdated double endorsement evidence",
  description: "A double-endorsement evidence is outdated.",
  fields: outdated,
});
/** `block.invalid_double_baking_evidence`. */
export const invalidDoubleBakingEvidence: ErrorDefinition<{ hash1: string; level1: number; hash2: string; level2: number }> = protoError({
  id: "block.invalid_double_baking_evidence",
  kind: "permanent",
  title: "Invalid double baking evidence",
  description: "A double-baking evidence is inconsistent  (two distinct level)",
  fields: obj(req("hash1", blockHash), req("level1", int32), req("hash2", blockHash), req("level2", int32)),
});
/** `block.inconsistent_double_baking_evidence`. */
export const inconsistentDoubleBakingEvidence: ErrorDefinition<{ delegate1: string; delegate2: string }> = protoError({
  id: "block.inconsistent_double_baking_evidence",
  kind: "permanent",
  title: "Inconsistent double baking evidence",
  description: "A double-baking evidence is inconsistent  (two distinct delegates)",
  fields: delegates,
});
/** `block.unrequired_double_baking_evidence`. */
export const unrequiredDoubleBakingEvidence: ErrorDefinition = protoError({
  id: "block.unrequired_double_baking_evidence",
  kind: "branch",
  title: "Unrequired double baking evidence",
  description: "A double-baking evidence is unrequired",
});
/** `block.too_early_double_baking_evidence`. */
export const tooEarlyDoubleBakingEvidence: ErrorDefinition<{ level: number; current: number }> = protoError({
  id: "block.too_early_double_baking_evidence",
  kind: "temporary",
  title: "Too early double baking evidence",
  description: "A double-baking evidence is in the future",
  fields: levels,
});
/** `block.outdated_double_baking_evidence`. */
export const outdatedDoubleBakingEvidence: ErrorDefinition<{ level: number; last: number }> = protoError({
  id: "block.outdated_double_baking_evidence",
  kind: "permanent",
  title: "Outdated double baking evidence",
  description: "A double-baking evidence is outdated.",
  fields: outdated,
});

/** Punishes `delegate` for `level`'s cycle and rewards the including baker (`baker`). */
function punishAndReward(pc: ProtoContext, baker: string, delegate: string, level: Level, unrequired: ErrorDefinition): BalanceUpdate[] {
  if (!hasFrozenBalance(pc, delegate, level.cycle)) throw unrequired.error();
  const lost = pc.atomically(() => punish(pc, delegate, level.cycle));
  const reward = (lost.deposits + lost.fees) / 2n;
  pc.addRewards(reward);
  const c = level.cycle;
  return cleanupBalanceUpdates([
    { kind: "freezer", category: "deposits", delegate, cycle: c, change: -lost.deposits, origin: "block" },
    { kind: "freezer", category: "fees", delegate, cycle: c, change: -lost.fees, origin: "block" },
    { kind: "freezer", category: "rewards", delegate, cycle: c, change: -lost.rewards, origin: "block" },
    { kind: "freezer", category: "rewards", delegate: baker, cycle: pc.level.cycle, change: reward, origin: "block" },
  ]);
}

/** Checks that an offence at `raw` may still be denounced in the current block. */
function checkWindow(pc: ProtoContext, raw: number, early: ErrorDefinition<{ level: number; current: number }>, late: ErrorDefinition<{ level: number; last: number }>): Level {
  const oldest = lastAllowedForkLevel(pc.eras, pc.level, pc.constants.preserved_cycles);
  if (!(raw < pc.level.level)) throw early.error({ level: raw, current: pc.level.level });
  if (raw < oldest) throw late.error({ level: raw, last: oldest });
  return givenLevel(pc.eras, raw);
}

/** Applies a double endorsement evidence. */
export async function applyDoubleEndorsementEvidence(
  pc: ProtoContext,
  chainId: Uint8Array,
  baker: string,
  content: DoubleEndorsementEvidence,
): Promise<{ kind: "double_endorsement_evidence"; balance_updates: BalanceUpdate[] }> {
  const { op1, op2, slot } = content;
  if (op1.operations.level !== op2.operations.level || op1.branch === op2.branch) throw invalidDoubleEndorsementEvidence.error();
  const level = checkWindow(pc, op1.operations.level, tooEarlyDoubleEndorsementEvidence, outdatedDoubleEndorsementEvidence);
  const d1 = formatPublicKeyHash(publicKeyHash(await checkEndorsementRight(pc, chainId, op1, slot)));
  const d2 = formatPublicKeyHash(publicKeyHash(await checkEndorsementRight(pc, chainId, op2, slot)));
  if (d1 !== d2) throw inconsistentDoubleEndorsementEvidence.error({ delegate1: d1, delegate2: d2 });
  return { kind: "double_endorsement_evidence", balance_updates: punishAndReward(pc, baker, d1, level, unrequiredDoubleEndorsementEvidence) };
}

/** Applies a double baking evidence. */
export async function applyDoubleBakingEvidence(
  pc: ProtoContext,
  chainId: Uint8Array,
  baker: string,
  content: DoubleBakingEvidence,
): Promise<{ kind: "double_baking_evidence"; balance_updates: BalanceUpdate[] }> {
  const { bh1, bh2 } = content;
  const hash1 = blockHashOf(encodeBinary(blockHeader, bh1));
  const hash2 = blockHashOf(encodeBinary(blockHeader, bh2));
  if (bh1.level !== bh2.level || hash1 === hash2) {
    throw invalidDoubleBakingEvidence.error({ hash1, level1: bh1.level, hash2, level2: bh2.level });
  }
  const level = checkWindow(pc, bh1.level, tooEarlyDoubleBakingEvidence, outdatedDoubleBakingEvidence);
  const src = contextRightsSource(pc);
  const owner1 = bakingRightsOwner(src, level, bh1.priority);
  await checkBlockSignature(bh1, hash1, chainId, owner1);
  const owner2 = bakingRightsOwner(src, level, bh2.priority);
  await checkBlockSignature(bh2, hash2, chainId, owner2);
  const d1 = formatPublicKeyHash(publicKeyHash(owner1));
  if (!publicKeyEquals(owner1, owner2)) {
    throw inconsistentDoubleBakingEvidence.error({ delegate1: d1, delegate2: formatPublicKeyHash(publicKeyHash(owner2)) });
  }
  return { kind: "double_baking_evidence", balance_updates: punishAndReward(pc, baker, d1, level, unrequiredDoubleBakingEvidence) };
}
