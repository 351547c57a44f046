/**
 * Applying Hangzhou's voting operations (Octez `apply.ml`, the `Proposals` and `Ballot`
 * cases): the source must be a delegate with a revealed key (`contract.manager.unregistered_delegate`),
 * the operation signed by that key under the generic watermark (`operation.missing_signature`,
 * `operation.invalid_signature`), its period index the current one
 * (`operation.wrong_voting_period`), then `../amendment.ts` records it with its own checks.
 * Both receipts are empty: `{kind:"proposals"}`, `{kind:"ballot"}`.
 * @module
 */
import { encodeBinary } from "../../../encoding/codec.ts";
import { int32 } from "../../../encoding/integers.ts";
import { obj, req } from "../../../encoding/object.ts";
import { unsignedOperation, type BallotOperation, type Proposals } from "../../../encoding/hangzhou/operation.ts";
import type { ContentsResult } from "../../../encoding/hangzhou/receipts/contents-results.ts";
import { parseSignature, type PublicKey } from "../../../crypto/keys.ts";
import { verify } from "../../../crypto/sign.ts";
import { genericWatermark } from "../../../crypto/watermark.ts";
import type { ErrorDefinition } from "../../../errors/mod.ts";
import { castBallot, recordProposals } from "../amendment.ts";
import { protoError } from "../proto-error.ts";
import type { ProtoContext } from "../storage/proto-context.ts";
import { delegatePublicKey } from "../storage/roll.ts";
import { currentVotingPeriod } from "../storage/vote.ts";
import { invalidSignature, missingSignature } from "./errors.ts";

/** Fields of `operation.wrong_voting_period`. */
export interface WrongVotingPeriod {
  current_index: number;
  provided_index: number;
}

/** `operation.wrong_voting_period` {current_index, provided_index} (temporary). */
export const wrongVotingPeriod: ErrorDefinition<WrongVotingPeriod> = protoError({
  id: "operation.wrong_voting_period",
  kind: "temporary",
  title: "Wrong voting period",
  description: "Trying to include a proposal or ballot meant for another voting period",
  fields: obj(req("current_index", int32), req("provided_index", int32)),
});

/** A voting operation's content. */
export type VotingContent = Proposals | BallotOperation;

/** The receipt of a proposals operation: no fields besides the kind (`Proposals_result`). */
export type ProposalsReceipt = Extract<ContentsResult, { kind: "proposals" }>;
/** The receipt of a ballot: no fields besides the kind (`Ballot_result`). */
export type BallotReceipt = Extract<ContentsResult, { kind: "ballot" }>;
/** The receipt of a voting operation. */
export type VotingReceipt = ProposalsReceipt | BallotReceipt;

/**
 * The key that must have signed a voting operation (Octez `Roll.delegate_pubkey` of the source):
 * the source's revealed manager key; `contract.manager.unregistered_delegate` when it has none.
 */
export function votingOperationSigner(pc: ProtoContext, content: VotingContent): PublicKey {
  return delegatePublicKey(pc, content.source);
}

function checkPeriod(pc: ProtoContext, provided: number): void {
  const current = currentVotingPeriod(pc).index;
  if (current !== provided) throw wrongVotingPeriod.error({ current_index: current, provided_index: provided });
}

/**
 * Applies a `proposals` content whose signature was checked (`wrong_voting_period`, then
 * {@link recordProposals}). Writes nothing on failure.
 */
export function applyProposals(pc: ProtoContext, content: Proposals): ProposalsReceipt {
  checkPeriod(pc, content.period);
  recordProposals(pc, content.source, content.proposals);
  return { kind: "proposals" } as ProposalsReceipt;
}

/**
 * Applies a `ballot` content whose signature was checked (`wrong_voting_period`, then
 * {@link castBallot}). Writes nothing on failure.
 */
export function applyBallot(pc: ProtoContext, content: BallotOperation): BallotReceipt {
  checkPeriod(pc, content.period);
  castBallot(pc, content.source, content.proposal, content.ballot);
  return { kind: "ballot" } as BallotReceipt;
}

/**
 * Checks a voting operation's signature (`Operation.check_signature`, generic watermark 0x03
 * over the branch and the content) with `key`: `operation.missing_signature`,
 * `operation.invalid_signature`.
 */
export async function checkVotingSignature(key: PublicKey, op: { branch: string; signature?: string }, content: VotingContent): Promise<void> {
  if (op.signature === undefined) throw missingSignature.error();
  const bytes = encodeBinary(unsignedOperation, { branch: op.branch, contents: [content] });
  let ok: boolean;
  try {
    ok = await verify(key, parseSignature(op.signature), bytes, genericWatermark());
  } catch {
    ok = false;
  }
  if (!ok) throw invalidSignature.error();
}

/**
 * Applies a voting operation as Octez's `apply_contents_list` does: the source's key
 * ({@link votingOperationSigner}), the signature ({@link checkVotingSignature}), then
 * {@link applyProposals} or {@link applyBallot}. `chainId` is accepted for symmetry with the
 * other operations; the generic watermark does not use it.
 */
export async function applyVotingOperation(
  pc: ProtoContext,
  chainId: Uint8Array,
  op: { branch: string; signature?: string },
  content: VotingContent,
): Promise<VotingReceipt> {
  void chainId;
  const key = votingOperationSigner(pc, content);
  await checkVotingSignature(key, op, content);
  return content.kind === "proposals" ? applyProposals(pc, content) : applyBallot(pc, content);
}
