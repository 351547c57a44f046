/**
 * Hangzhou's amendment procedure (Octez `amendment.ml`, `voting_period_storage.ml`,
 * `voting_period_repr.ml`): the five-period state machine run at the end of every block, the
 * checks of proposals and ballots, and what the voting RPCs and the block receipt show.
 *
 * Periods last `blocks_per_voting_period` blocks. At the last block of one (remaining = 0),
 * {@link mayStartNewVotingPeriod} decides the next period, which starts at the next block:
 * - proposal: the proposal with the most rolls wins if it is alone at the top and has at least
 *   `min_proposal_quorum` (centiles of a percentage) of the listings; it becomes the current
 *   proposal and exploration starts, otherwise a new proposal period starts; proposals are cleared;
 * - exploration and promotion: ballots are counted, the participation EMA moves
 *   (8/10 old + 2/10 participation), and the proposal passes when participation reaches the
 *   quorum (computed from the old EMA) and yays are at least 8/10 of yays + nays; it goes on to
 *   cooldown or adoption, or the proposal is dropped and a proposal period starts;
 * - cooldown: always on to promotion;
 * - adoption: the proposal is activated (the context's `protocol` key, Octez `Updater.activate`)
 *   and a proposal period starts.
 * Each step records the ending kind as `pred_period_kind`, and the listings are then recomputed.
 *
 * Because the step runs at the end of the last block, that block's context already holds the
 * next period; {@link currentVotingPeriodInfo} (Octez `get_rpc_current_info`) rebuilds the ending
 * one for it (position −1 case), and {@link successorPeriod} tells what the next block will see.
 *
 * @example
 * ```ts
 * // at the end of every block (after the cycle end):
 * mayStartNewVotingPeriod(pc);
 * receipt.voting_period_info = currentVotingPeriodInfo(pc);
 * votesRpc(pc, "current_quorum"); // 5500 on a fresh sandbox
 * ```
 * @module
 */
import { B58, b58decode, b58tryDecode } from "../../encoding/base58.ts";
import type { Json } from "../../encoding/codec.ts";
import type { Ballot, Ballots, VotingPeriod, VotingPeriodKind } from "../../encoding/hangzhou/basic.ts";
import type { VotingPeriodInfo } from "../../encoding/hangzhou/receipts/block-metadata.ts";
import type { ErrorDefinition } from "../../errors/mod.ts";
import { levelFromRawWithOffset, type Level } from "./level.ts";
import { protoError } from "./proto-error.ts";
import type { Path } from "./storage/layout.ts";
import type { ProtoContext } from "./storage/proto-context.ts";
import {
  clearBallots,
  clearCurrentProposal,
  clearProposals,
  currentQuorum,
  currentVotingPeriod,
  findCurrentProposal,
  getBallotList,
  getBallots,
  getCurrentProposal,
  getListings,
  getProposals,
  hasRecordedBallot,
  inListings,
  initCurrentProposal,
  int32Add,
  int32Div,
  listingsSize,
  participationEma,
  predPeriodKind,
  recordBallot,
  recordedProposalCount,
  recordProposal,
  setCurrentVotingPeriod,
  setParticipationEma,
  setPredPeriodKind,
  updateListings,
} from "./storage/vote.ts";
import { FIXED_CONSTANTS } from "./constants.ts";

/** Where a block sits in its voting period (`Voting_period.info`), as receipts and RPCs print it. */
export type { VotingPeriodInfo } from "../../encoding/hangzhou/receipts/block-metadata.ts";

// ---------------------------------------------------------------------------------------------
// Errors (all `branch`, without fields)

/** `invalid_proposal`: a ballot on another proposal than the current one. */
export const invalidProposal: ErrorDefinition = protoError({
  id: "invalid_proposal",
  kind: "branch",
  title: "Invalid proposal",
  description: "Ballot provided for a proposal that is not the current one.",
});

/** `unexpected_proposal`: proposals outside a proposal period. */
export const unexpectedProposal: ErrorDefinition = protoError({
  id: "unexpected_proposal",
  kind: "branch",
  title: "Unexpected proposal",
  description: "Proposal recorded outside of a proposal period.",
});

/** `unauthorized_proposal`: the proposer is not in the listings. */
export const unauthorizedProposal: ErrorDefinition = protoError({
  id: "unauthorized_proposal",
  kind: "branch",
  title: "Unauthorized proposal",
  description: "The delegate provided for the proposal is not in the voting listings.",
});

/** `unexpected_ballot`: a ballot outside an exploration or promotion period. */
export const unexpectedBallot: ErrorDefinition = protoError({
  id: "unexpected_ballot",
  kind: "branch",
  title: "Unexpected ballot",
  description: "Ballot recorded outside of a voting period.",
});

/** `unauthorized_ballot`: the voter is not in the listings, or already voted in this period. */
export const unauthorizedBallot: ErrorDefinition = protoError({
  id: "unauthorized_ballot",
  kind: "branch",
  title: "Unauthorized ballot",
  description: "The delegate provided for the ballot is not in the voting listings.",
});

/** `too_many_proposals`: more than `max_proposals_per_delegate` (20) proposals in one period. */
export const tooManyProposals: ErrorDefinition = protoError({
  id: "too_many_proposals",
  kind: "branch",
  title: "Too many proposals",
  description: "The delegate reached the maximum number of allowed proposals.",
});

/** `empty_proposal`: a proposals operation with an empty list. */
export const emptyProposal: ErrorDefinition = protoError({
  id: "empty_proposal",
  kind: "branch",
  title: "Empty proposal",
  description: "Proposal lists cannot be empty.",
});

// ---------------------------------------------------------------------------------------------
// Voting period arithmetic (Voting_period_repr, Voting_period_storage)

/** The kind after `kind` (`succ_kind`): proposal → exploration → cooldown → promotion → adoption → proposal. */
export function succKind(kind: VotingPeriodKind): VotingPeriodKind {
  switch (kind) {
    case "proposal":
      return "exploration";
    case "exploration":
      return "cooldown";
    case "cooldown":
      return "promotion";
    case "promotion":
      return "adoption";
    case "adoption":
      return "proposal";
  }
}

/** Where `level` sits in `period` and how many blocks follow it (`position_since`, `remaining_blocks`). */
export function votingPeriodInfoAt(level: Level, period: VotingPeriod, blocksPerVotingPeriod: number): VotingPeriodInfo {
  const position = (level.level_position - period.start_position) | 0;
  const remaining = (blocksPerVotingPeriod - ((position + 1) | 0)) | 0;
  return { voting_period: { ...period }, position, remaining };
}

/** The stored period and the current level's place in it (`get_current_info`), without the last-block fix. */
export function rawVotingPeriodInfo(pc: ProtoContext): VotingPeriodInfo {
  return votingPeriodInfoAt(pc.level, currentVotingPeriod(pc), pc.constants.blocks_per_voting_period);
}

/** The kind of the stored period (`get_current_kind`). Hangzhou has no RPC for it: clients read `current_period`. */
export function currentPeriodKind(pc: ProtoContext): VotingPeriodKind {
  return currentVotingPeriod(pc).kind;
}

/** Whether the current level is the last of its voting period (`is_last_block`: remaining = 0). */
export function isLastBlockOfVotingPeriod(pc: ProtoContext): boolean {
  return rawVotingPeriodInfo(pc).remaining === 0;
}

/**
 * The voting period of the current level (`get_rpc_current_info`): the block receipt's
 * `voting_period_info` and `GET …/votes/current_period`. At the last block of a period (its
 * context already holds the next period, position −1) it rebuilds the ending period: index − 1,
 * the kind of `pred_period_kind`, start position − blocks_per_voting_period.
 */
export function currentVotingPeriodInfo(pc: ProtoContext): VotingPeriodInfo {
  const info = rawVotingPeriodInfo(pc);
  if (info.position !== -1) return info;
  const bpvp = pc.constants.blocks_per_voting_period;
  const ending: VotingPeriod = {
    index: (info.voting_period.index - 1) | 0,
    kind: predPeriodKind(pc),
    start_position: (info.voting_period.start_position - bpvp) | 0,
  };
  return votingPeriodInfoAt(pc.level, ending, bpvp);
}

/**
 * What the next block will see (`get_rpc_succ_info`; `GET …/votes/successor_period`): the stored
 * period and the place of level + 1 in it — useful to craft operations for the next block.
 */
export function successorPeriod(pc: ProtoContext): VotingPeriodInfo {
  const next = levelFromRawWithOffset(pc.eras, pc.level.level, 1);
  return votingPeriodInfoAt(next, currentVotingPeriod(pc), pc.constants.blocks_per_voting_period);
}

/** Records the ending kind and returns the start position of the next period (the next level's). */
function common(pc: ProtoContext): { current: VotingPeriod; startPosition: number } {
  const current = currentVotingPeriod(pc);
  setPredPeriodKind(pc, current.kind);
  return { current, startPosition: (pc.level.level_position + 1) | 0 };
}

/** Starts a new proposal period at the next level (`Voting_period.reset`). */
export function resetVotingPeriod(pc: ProtoContext): void {
  const { current, startPosition } = common(pc);
  setCurrentVotingPeriod(pc, { index: (current.index + 1) | 0, kind: "proposal", start_position: startPosition });
}

/** Starts the period of the next kind at the next level (`Voting_period.succ`). */
export function succVotingPeriod(pc: ProtoContext): void {
  const { current, startPosition } = common(pc);
  setCurrentVotingPeriod(pc, { index: (current.index + 1) | 0, kind: succKind(current.kind), start_position: startPosition });
}

// ---------------------------------------------------------------------------------------------
// The state machine (Amendment)

/** `["protocol"]`: the protocol of the next block, 32 raw bytes (the shell's key). */
const PROTOCOL_PATH: Path = ["protocol"];

/**
 * The winner of a proposal period (`select_winning_proposal`): the proposal with the most rolls
 * if no other has as many and it has at least ⌊min_proposal_quorum × listings_size / 10000⌋
 * rolls; `undefined` on a tie, below that quorum, or without proposals.
 */
export function selectWinningProposal(pc: ProtoContext): string | undefined {
  let winners: string[] = [];
  let top = 0;
  for (const [proposal, vote] of getProposals(pc)) {
    if (winners.length === 0 || vote > top) {
      winners = [proposal];
      top = vote;
    } else if (vote === top) {
      winners.push(proposal);
    }
  }
  if (winners.length !== 1) return undefined;
  const minVoteToPass = int32Div(Math.imul(pc.constants.min_proposal_quorum, listingsSize(pc)), 10000);
  return top >= minVoteToPass ? winners[0] : undefined;
}

/**
 * The outcome of a vote (`approval_and_participation_ema`): approved when participation
 * (⌊all votes × 10000 / maximumVote⌋, pass included) reaches `expectedQuorum` and yays are at
 * least ⌊8 × (yays + nays) / 10⌋; the new EMA is ⌊(8 × old + 2 × participation) / 10⌋. Int32
 * arithmetic as Octez (the participation through int64); RangeError when maximumVote is 0.
 */
export function approvalAndParticipationEma(
  ballots: Ballots,
  maximumVote: number,
  participationEmaValue: number,
  expectedQuorum: number,
): { approval: boolean; participationEma: number } {
  const casted = int32Add(ballots.yay, ballots.nay);
  const all = int32Add(casted, ballots.pass);
  const supermajority = int32Div(Math.imul(8, casted), 10);
  if (maximumVote === 0) throw new RangeError("Division_by_zero: the listings are empty");
  const participation = Number(BigInt.asIntN(32, (BigInt(all) * 10000n) / BigInt(maximumVote)));
  const approval = participation >= expectedQuorum && ballots.yay >= supermajority;
  const ema = int32Div(int32Add(Math.imul(8, participationEmaValue), Math.imul(2, participation)), 10);
  return { approval, participationEma: ema };
}

/** Counts the ballots, clears them and stores the new EMA (`get_approval_and_update_participation_ema`); the approval. */
function approvalAndUpdateParticipationEma(pc: ProtoContext): boolean {
  const ballots = getBallots(pc);
  const maximumVote = listingsSize(pc);
  const ema = participationEma(pc);
  const expectedQuorum = currentQuorum(pc);
  clearBallots(pc);
  const r = approvalAndParticipationEma(ballots, maximumVote, ema, expectedQuorum);
  setParticipationEma(pc, r.participationEma);
  return r.approval;
}

/**
 * Makes `proposal` the protocol of the next block (Octez `Updater.activate`): writes its 32
 * bytes at the context's `protocol` key, which the shell reads after the block.
 */
export function activateProtocol(pc: ProtoContext, proposal: string): void {
  pc.add(PROTOCOL_PATH, b58decode(B58.protocolHash, proposal));
}

/** Moves to the next voting period and recomputes the listings (`start_new_voting_period`); see the module doc. */
export function startNewVotingPeriod(pc: ProtoContext): void {
  pc.atomically(() => {
    switch (currentPeriodKind(pc)) {
      case "proposal": {
        const winner = selectWinningProposal(pc);
        clearProposals(pc);
        if (winner === undefined) resetVotingPeriod(pc);
        else {
          initCurrentProposal(pc, winner);
          succVotingPeriod(pc);
        }
        break;
      }
      case "exploration":
      case "promotion":
        if (approvalAndUpdateParticipationEma(pc)) succVotingPeriod(pc);
        else {
          clearCurrentProposal(pc);
          resetVotingPeriod(pc);
        }
        break;
      case "cooldown":
        succVotingPeriod(pc);
        break;
      case "adoption":
        activateProtocol(pc, getCurrentProposal(pc));
        clearCurrentProposal(pc);
        resetVotingPeriod(pc);
        break;
    }
    updateListings(pc);
  });
}

/**
 * Octez `Amendment.may_start_new_voting_period`, run at the end of every block (after the cycle
 * end): at the last block of a voting period, {@link startNewVotingPeriod}; otherwise nothing.
 */
export function mayStartNewVotingPeriod(pc: ProtoContext): void {
  if (isLastBlockOfVotingPeriod(pc)) startNewVotingPeriod(pc);
}

/**
 * Records a delegate's proposals (`Amendment.record_proposals`), checking in this order:
 * a non-empty list (`empty_proposal`), a proposal period (`unexpected_proposal`), the delegate
 * in the listings (`unauthorized_proposal`), at most `max_proposals_per_delegate` proposals in
 * the period counting earlier ones (`too_many_proposals`). Nothing is written on failure.
 */
export function recordProposals(pc: ProtoContext, delegate: string, proposals: readonly string[]): void {
  if (!Array.isArray(proposals)) throw new TypeError("proposals must be an array of protocol hashes");
  for (const p of proposals) {
    if (typeof p !== "string" || b58tryDecode(B58.protocolHash, p) === undefined) {
      throw new TypeError(`Invalid protocol hash ${JSON.stringify(p)}`);
    }
  }
  if (proposals.length === 0) throw emptyProposal.error();
  if (currentPeriodKind(pc) !== "proposal") throw unexpectedProposal.error();
  if (!inListings(pc, delegate)) throw unauthorizedProposal.error();
  const count = recordedProposalCount(pc, delegate);
  if (proposals.length > FIXED_CONSTANTS.max_proposals_per_delegate - count) throw tooManyProposals.error();
  pc.atomically(() => {
    for (const p of proposals) recordProposal(pc, p, delegate);
  });
}

/**
 * Records a delegate's ballot (`Amendment.record_ballot`), checking in this order: an
 * exploration or promotion period (`unexpected_ballot`), the ballot is on the current proposal
 * (`invalid_proposal`), the delegate has not voted yet and is in the listings (both
 * `unauthorized_ballot`: Octez has no separate duplicate-ballot error).
 */
export function castBallot(pc: ProtoContext, delegate: string, proposal: string, value: Ballot): void {
  if (value !== "yay" && value !== "nay" && value !== "pass") throw new TypeError(`Invalid ballot ${JSON.stringify(value)}`);
  const kind = currentPeriodKind(pc);
  if (kind !== "exploration" && kind !== "promotion") throw unexpectedBallot.error();
  if (proposal !== getCurrentProposal(pc)) throw invalidProposal.error();
  if (hasRecordedBallot(pc, delegate)) throw unauthorizedBallot.error();
  if (!inListings(pc, delegate)) throw unauthorizedBallot.error();
  recordBallot(pc, delegate, value);
}

// ---------------------------------------------------------------------------------------------
// The votes RPCs

/** The services under `…/votes/` in Hangzhou (`voting_services.ml`). */
export const VOTES_RPC_NAMES = [
  "ballots",
  "ballot_list",
  "current_period",
  "successor_period",
  "current_quorum",
  "listings",
  "proposals",
  "current_proposal",
  "total_voting_power",
] as const;

/** A service under `…/votes/`. */
export type VotesRpcName = (typeof VOTES_RPC_NAMES)[number];

/**
 * The JSON answer of `GET …/votes/<name>` on a block's context (Octez `voting_services.ml`):
 * - `ballots` `{"yay","nay","pass"}` (rolls); `ballot_list` `[{"pkh","ballot"}]` and `listings`
 *   `[{"pkh","rolls"}]` in reverse context order (Octez's `bindings`);
 * - `current_period`, `successor_period` `{"voting_period":{"index","kind","start_position"},"position","remaining"}`;
 * - `current_quorum`, `total_voting_power` numbers;
 * - `proposals` `[["P…", rolls]]` sorted by hash; `current_proposal` `"P…"` or `null`.
 * Hangzhou has no `current_period_kind` service (see {@link currentPeriodKind}).
 */
export function votesRpc(pc: ProtoContext, name: VotesRpcName): Json {
  switch (name) {
    case "ballots":
      return { ...getBallots(pc) };
    case "ballot_list":
      // `get_ballot_list` is Octez's `bindings`: reverse context order.
      return getBallotList(pc)
        .reverse()
        .map((b) => ({ pkh: b.pkh, ballot: b.ballot }));
    case "current_period":
      return infoJson(currentVotingPeriodInfo(pc));
    case "successor_period":
      return infoJson(successorPeriod(pc));
    case "current_quorum":
      return currentQuorum(pc);
    case "listings":
      // `get_listings` is Octez's `bindings` too.
      return getListings(pc)
        .reverse()
        .map((l) => ({ pkh: l.pkh, rolls: l.rolls }));
    case "proposals":
      return getProposals(pc).map(([p, n]) => [p, n]);
    case "current_proposal":
      return findCurrentProposal(pc) ?? null;
    case "total_voting_power":
      return listingsSize(pc);
    default:
      throw new TypeError(`Unknown votes RPC ${JSON.stringify(name)}`);
  }
}

function infoJson(i: VotingPeriodInfo): Json {
  return {
    voting_period: { index: i.voting_period.index, kind: i.voting_period.kind, start_position: i.voting_period.start_position },
    position: i.position,
    remaining: i.remaining,
  };
}
