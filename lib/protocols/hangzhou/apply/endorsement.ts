/**
 * Endorsements in Hangzhou (Octez `apply.ml`, `baking.ml`): only `endorsement_with_slot` is
 * accepted; its inner endorsement, signed under 0x02 ‖ chain id, endorses the predecessor of
 * the block that includes it, by the delegate owning `slot`, which must be its smallest slot.
 * Each delegate endorses once per block; its slots add to the block's endorsing power.
 * @module
 */
import type { BalanceUpdate } from "../../../encoding/hangzhou/receipts/balance-updates.ts";
import type { EndorsementWithSlot } from "../../../encoding/hangzhou/operation.ts";
import { unsignedOperation } from "../../../encoding/hangzhou/operation.ts";
import { encodeBinary } from "../../../encoding/codec.ts";
import { formatPublicKeyHash, parseSignature, publicKeyHash, type PublicKey } from "../../../crypto/keys.ts";
import { verify } from "../../../crypto/sign.ts";
import { endorsementWatermark } from "../../../crypto/watermark.ts";
import { givenLevel } from "../level.ts";
import type { EndorsementSlots } from "../rights.ts";
import { endorsementRightsOwner } from "../rights.ts";
import { cleanupBalanceUpdates, freezeDeposit, freezeRewards } from "../storage/frozen.ts";
import type { ProtoContext } from "../storage/proto-context.ts";
import { contextRightsSource } from "../storage/rights-source.ts";
import { endorsingReward, invalidEndorsementSlot, unexpectedEndorsement, unexpectedEndorsementSlot } from "./baking.ts";
import { duplicateEndorsement, invalidEndorsementLevel, invalidEndorsementWrapper, wrongEndorsementPredecessor } from "./errors.ts";

/** What a block tracks of endorsements: the rights of the previous level and who already endorsed. */
export interface EndorsementState {
  /** Endorsement rights of the predecessor's level, by delegate (`tz…`). */
  readonly allowed: Map<string, EndorsementSlots>;
  /** Delegates whose endorsement the block already includes. */
  readonly used: Set<string>;
  /** Number of slots endorsed so far. */
  power: number;
}

/** The receipt of an endorsement. */
export interface EndorsementReceipt {
  kind: "endorsement_with_slot";
  balance_updates: BalanceUpdate[];
  delegate: string;
  slots: number[];
}

/** Checks an inner endorsement's right and signature (Octez `check_endorsement_right`); the endorser. */
export async function checkEndorsementRight(
  pc: ProtoContext,
  chainId: Uint8Array,
  inner: EndorsementWithSlot["endorsement"],
  slot: number,
): Promise<PublicKey> {
  if (slot < 0 || slot >= pc.constants.endorsers_per_block) throw invalidEndorsementSlot.error({ slot });
  const level = givenLevel(pc.eras, inner.operations.level);
  const owner = endorsementRightsOwner(contextRightsSource(pc), level, slot);
  const bytes = encodeBinary(unsignedOperation, { branch: inner.branch, contents: [inner.operations] });
  const ok = inner.signature !== undefined && (await verify(owner, parseSignature(inner.signature), bytes, endorsementWatermark(chainId)));
  if (!ok) throw unexpectedEndorsement.error();
  return owner;
}

/**
 * Applies an `endorsement_with_slot` in a block built on `predecessor`: freezes the deposit and
 * the reward for the delegate's slots. `blockPriority` is the priority of the including block.
 */
export async function applyEndorsement(
  pc: ProtoContext,
  state: EndorsementState,
  chainId: Uint8Array,
  predecessor: string,
  blockPriority: number,
  op: { branch: string; signature?: string },
  content: EndorsementWithSlot,
): Promise<EndorsementReceipt> {
  const inner = content.endorsement;
  if (op.signature !== undefined || op.branch !== inner.branch) throw invalidEndorsementWrapper.error();
  const owner = await checkEndorsementRight(pc, chainId, inner, content.slot);
  const delegate = formatPublicKeyHash(publicKeyHash(owner));
  if (inner.branch !== predecessor) throw wrongEndorsementPredecessor.error({ expected: predecessor, provided: inner.branch });
  if (inner.operations.level + 1 !== pc.level.level) throw invalidEndorsementLevel.error();
  const rights = state.allowed.get(delegate);
  if (rights === undefined) throw unexpectedEndorsement.error();
  if (rights.slots[0] !== content.slot) throw unexpectedEndorsementSlot.error({ slot: content.slot });
  if (state.used.has(delegate)) throw duplicateEndorsement.error({ delegate });
  const gap = rights.slots.length;
  const deposit = pc.constants.endorsement_security_deposit * BigInt(gap);
  const reward = endorsingReward(pc.constants, blockPriority, gap);
  pc.atomically(() => {
    freezeDeposit(pc, delegate, deposit);
    freezeRewards(pc, delegate, reward);
  });
  state.used.add(delegate);
  state.power += gap;
  const cycle = pc.level.cycle;
  return {
    kind: "endorsement_with_slot",
    balance_updates: cleanupBalanceUpdates([
      { kind: "contract", contract: delegate, change: -deposit, origin: "block" },
      { kind: "freezer", category: "deposits", delegate, cycle, change: deposit, origin: "block" },
      { kind: "freezer", category: "rewards", delegate, cycle, change: reward, origin: "block" },
    ]),
    delegate,
    slots: [...rights.slots],
  };
}
