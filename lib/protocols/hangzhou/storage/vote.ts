/**
 * Voting state set up at activation and the listings (Octez `Vote_storage`,
 * `Voting_period_storage`): `votes/participation_ema` (int32), `votes/current_period`
 * (`voting_period`: index, kind, start position), `votes/pred_period_kind`,
 * `votes/listings/<curve>/<hex>` (rolls of each delegate, int32) and `votes/listings_size`.
 * Listings count the *current* roll map roll by roll, not a snapshot. Then the period's
 * proposals and ballots and the proposal under evaluation (see the section below), which
 * `../amendment.ts` drives.
 * @module
 */
import { B58, b58decode, b58encode } from "../../../encoding/base58.ts";
import { decodeBinary, encodeBinary } from "../../../encoding/codec.ts";
import {
  ballot,
  votingPeriod,
  votingPeriodKind,
  type Ballot,
  type Ballots,
  type Listing,
  type VotingPeriod,
  type VotingPeriodKind,
} from "../../../encoding/hangzhou/basic.ts";
import { fromHex, toHex } from "../../../encoding/hex.ts";
import { formatPublicKeyHash, publicKeyHash } from "../../../crypto/keys.ts";
import { decodeInt32, decodeUint16, encodeInt32, encodeUint16, INITED, pkhOfSegments, pkhSegments, votesPath } from "./layout.ts";
import type { ProtoContext } from "./proto-context.ts";
import { forEachRoll } from "./roll.ts";

const LISTINGS = votesPath("listings");
const LISTINGS_SIZE = votesPath("listings_size");
const CURRENT_PERIOD = votesPath("current_period");
const PRED_PERIOD_KIND = votesPath("pred_period_kind");
const PARTICIPATION_EMA = votesPath("participation_ema");

/**
 * The voting state of a new chain (`Vote_storage.init`): participation EMA = quorum_max, period 0
 * of kind proposal starting at `startPosition`, previous kind proposal.
 */
export function initVotes(pc: ProtoContext, startPosition: number): void {
  pc.atomically(() => {
    pc.init(PARTICIPATION_EMA, encodeInt32(pc.constants.quorum_max));
    pc.init(CURRENT_PERIOD, encodeBinary(votingPeriod, { index: 0, kind: "proposal", start_position: startPosition }));
    pc.init(PRED_PERIOD_KIND, encodeBinary(votingPeriodKind, "proposal"));
  });
}

/** The current voting period. */
export function currentVotingPeriod(pc: ProtoContext): VotingPeriod {
  return decodeBinary(votingPeriod, pc.get(CURRENT_PERIOD));
}

/** The kind of the previous period. */
export function predPeriodKind(pc: ProtoContext): VotingPeriodKind {
  return decodeBinary(votingPeriodKind, pc.get(PRED_PERIOD_KIND));
}

/** The participation EMA (centile of a percentage). */
export function participationEma(pc: ProtoContext): number {
  return decodeInt32(pc.get(PARTICIPATION_EMA));
}

/**
 * Recomputes the listings from the current roll map (`update_listings`): every owned roll counts
 * one for its owner; the total goes to `listings_size`.
 */
export function updateListings(pc: ProtoContext): void {
  pc.atomically(() => {
    pc.remove(LISTINGS);
    const counts = new Map<string, number>();
    let total = 0;
    forEachRoll(pc, (_roll, owner) => {
      const pkh = formatPublicKeyHash(publicKeyHash(owner));
      counts.set(pkh, (counts.get(pkh) ?? 0) + 1);
      total++;
    });
    for (const [pkh, n] of counts) pc.add([...LISTINGS, ...pkhSegments(pkh)], encodeInt32(n));
    pc.add(LISTINGS_SIZE, encodeInt32(total));
  });
}

/** The listings in context order (`get_listings`). */
export function getListings(pc: ProtoContext): Listing[] {
  const out: Listing[] = [];
  for (const curve of pc.listKeys(LISTINGS)) {
    for (const hex of pc.listKeys([...LISTINGS, curve])) {
      out.push({ pkh: pkhOfSegments(curve, hex), rolls: decodeInt32(pc.get([...LISTINGS, curve, hex])) });
    }
  }
  return out;
}

/** A delegate's voting power: its rolls in the listings, 0 if absent. */
export function votingPower(pc: ProtoContext, pkh: string): number {
  const b = pc.find([...LISTINGS, ...pkhSegments(pkh)]);
  return b === undefined ? 0 : decodeInt32(b);
}

/** The total of the listings (`listing_size`). */
export function listingsSize(pc: ProtoContext): number {
  return decodeInt32(pc.get(LISTINGS_SIZE));
}

// ---------------------------------------------------------------------------------------------
// Proposals, ballots, the current proposal (Octez `Vote_storage`), and the period setters.
//
// Paths (Octez `Storage.Vote`): `votes/proposals/<protocol hash path>/<curve>/<hex>` = "inited"
// (a set of (proposal, delegate) pairs), `votes/proposals_count/<curve>/<hex>` (uint16),
// `votes/ballots/<curve>/<hex>` (the ballot's int8), `votes/current_proposal` (32 raw bytes).
// A protocol hash's path is its lowercase hex cut as Octez's `Blake2B.to_path` does: five
// segments of two characters, then the remaining 54.

const PROPOSALS = votesPath("proposals");
const PROPOSALS_COUNT = votesPath("proposals_count");
const BALLOTS = votesPath("ballots");
const CURRENT_PROPOSAL = votesPath("current_proposal");
/** Depth of a protocol hash's path (`Blake2B.path_length`). */
const HASH_PATH_LENGTH = 6;

/** The path segments of a protocol hash (`P…`), as Octez's `Protocol_hash.to_path`. TypeError if invalid. */
export function protocolHashSegments(hash: string): string[] {
  if (typeof hash !== "string") throw new TypeError(`protocol hash must be a string, got ${typeof hash}`);
  const hex = toHex(b58decode(B58.protocolHash, hash));
  return [hex.slice(0, 2), hex.slice(2, 4), hex.slice(4, 6), hex.slice(6, 8), hex.slice(8, 10), hex.slice(10)];
}

function protocolHashOfSegments(segments: readonly string[]): string {
  return b58encode(B58.protocolHash, fromHex(segments.join("")));
}

/** Replaces the current voting period (`Voting_period_storage.set_current`: an update). */
export function setCurrentVotingPeriod(pc: ProtoContext, period: VotingPeriod): void {
  pc.update(CURRENT_PERIOD, encodeBinary(votingPeriod, period));
}

/** Replaces the kind of the previous period (`Pred_period_kind.update`). */
export function setPredPeriodKind(pc: ProtoContext, kind: VotingPeriodKind): void {
  pc.update(PRED_PERIOD_KIND, encodeBinary(votingPeriodKind, kind));
}

/** Replaces the participation EMA (`set_participation_ema`: an update). */
export function setParticipationEma(pc: ProtoContext, ema: number): void {
  pc.update(PARTICIPATION_EMA, encodeInt32(ema));
}

/**
 * The quorum expected now (`get_current_quorum`), in centiles of a percentage:
 * quorum_min + ⌊participation_ema × (quorum_max − quorum_min) / 10000⌋ (int32 arithmetic).
 */
export function currentQuorum(pc: ProtoContext): number {
  const ema = participationEma(pc);
  const { quorum_min: min, quorum_max: max } = pc.constants;
  return int32Add(min, int32Div(Math.imul(ema, int32Sub(max, min)), 10000));
}

/** Whether a delegate is in the listings (`in_listings`). */
export function inListings(pc: ProtoContext, pkh: string): boolean {
  return pc.mem([...LISTINGS, ...pkhSegments(pkh)]);
}

/** How many proposals a delegate submitted in this period (`recorded_proposal_count_for_delegate`), 0 if none. */
export function recordedProposalCount(pc: ProtoContext, pkh: string): number {
  const b = pc.find([...PROPOSALS_COUNT, ...pkhSegments(pkh)]);
  return b === undefined ? 0 : decodeUint16(b);
}

/**
 * Records one proposal of a delegate (`record_proposal`): its count goes up by one and the pair
 * (proposal, delegate) joins the set (proposing the same hash twice counts twice, stored once).
 */
export function recordProposal(pc: ProtoContext, proposal: string, pkh: string): void {
  const proposalSegments = protocolHashSegments(proposal);
  const delegateSegments = pkhSegments(pkh);
  const count = recordedProposalCount(pc, pkh);
  pc.atomically(() => {
    pc.add([...PROPOSALS_COUNT, ...delegateSegments], encodeUint16(count + 1));
    pc.add([...PROPOSALS, ...proposalSegments, ...delegateSegments], INITED);
  });
}

/** Calls `f` for every (proposal, delegate) pair of the set, in context order. */
function forEachProposal(pc: ProtoContext, f: (proposal: string, pkh: string) => void): void {
  const walk = (path: string[], depth: number): void => {
    for (const name of pc.listKeys(path)) {
      const next = [...path, name];
      if (depth + 1 < HASH_PATH_LENGTH + 2) walk(next, depth + 1);
      else if (pc.mem(next)) f(protocolHashOfSegments(next.slice(PROPOSALS.length, PROPOSALS.length + HASH_PATH_LENGTH)), pkhOfSegments(next[next.length - 2]!, name));
    }
  };
  walk([...PROPOSALS], 0);
}

/**
 * Every proposal of the period with the sum of its supporters' rolls (`get_proposals`), sorted
 * by hash (Octez's `Protocol_hash.Map` order; the `/votes/proposals` RPC prints these pairs).
 * A supporter missing from the listings is `context.storage_error`, as in Octez.
 */
export function getProposals(pc: ProtoContext): [string, number][] {
  const weights = new Map<string, number>();
  forEachProposal(pc, (proposal, pkh) => {
    const weight = decodeInt32(pc.get([...LISTINGS, ...pkhSegments(pkh)]));
    weights.set(proposal, int32Add(weights.get(proposal) ?? 0, weight));
  });
  // The walk visits hashes in hex order, which is the byte order of Octez's map.
  return [...weights];
}

/** Forgets the period's proposals and counts (`clear_proposals`). */
export function clearProposals(pc: ProtoContext): void {
  pc.remove(PROPOSALS_COUNT);
  pc.remove(PROPOSALS);
}

/** Whether a delegate already voted in this period (`has_recorded_ballot`). */
export function hasRecordedBallot(pc: ProtoContext, pkh: string): boolean {
  return pc.mem([...BALLOTS, ...pkhSegments(pkh)]);
}

/** Records a delegate's ballot (`record_ballot`: an init, `context.storage_error` if one is there). */
export function recordBallot(pc: ProtoContext, pkh: string, value: Ballot): void {
  pc.init([...BALLOTS, ...pkhSegments(pkh)], encodeBinary(ballot, value));
}

/**
 * The ballots of the period in context order, as {@link getListings}. Octez's `get_ballot_list`
 * (the `/votes/ballot_list` RPC) is its `bindings`, which prepend while folding in key order:
 * the RPC prints this list *reversed* (the tezt votes capture lists bootstrap2, bootstrap3,
 * bootstrap1).
 */
export function getBallotList(pc: ProtoContext): { pkh: string; ballot: Ballot }[] {
  const out: { pkh: string; ballot: Ballot }[] = [];
  for (const curve of pc.listKeys(BALLOTS)) {
    for (const hex of pc.listKeys([...BALLOTS, curve])) {
      out.push({ pkh: pkhOfSegments(curve, hex), ballot: decodeBinary(ballot, pc.get([...BALLOTS, curve, hex])) });
    }
  }
  return out;
}

/**
 * The rolls behind each ballot value (`get_ballots`; the `/votes/ballots` RPC). A voter missing
 * from the listings is `context.storage_error`, as in Octez.
 */
export function getBallots(pc: ProtoContext): Ballots {
  const sums: Ballots = { yay: 0, nay: 0, pass: 0 };
  for (const { pkh, ballot: b } of getBallotList(pc)) {
    const weight = decodeInt32(pc.get([...LISTINGS, ...pkhSegments(pkh)]));
    sums[b] = int32Add(sums[b], weight);
  }
  return sums;
}

/** Forgets the period's ballots (`clear_ballots`). */
export function clearBallots(pc: ProtoContext): void {
  pc.remove(BALLOTS);
}

/** The proposal under evaluation, if any (`find_current_proposal`; the `/votes/current_proposal` RPC). */
export function findCurrentProposal(pc: ProtoContext): string | undefined {
  const b = pc.find(CURRENT_PROPOSAL);
  return b === undefined ? undefined : b58encode(B58.protocolHash, b);
}

/** The proposal under evaluation (`get_current_proposal`); `context.storage_error` when there is none. */
export function getCurrentProposal(pc: ProtoContext): string {
  return b58encode(B58.protocolHash, pc.get(CURRENT_PROPOSAL));
}

/** Sets the proposal under evaluation (`init_current_proposal`: an init). */
export function initCurrentProposal(pc: ProtoContext, proposal: string): void {
  pc.init(CURRENT_PROPOSAL, b58decode(B58.protocolHash, proposal));
}

/** Removes the proposal under evaluation (`clear_current_proposal`: `context.storage_error` when there is none). */
export function clearCurrentProposal(pc: ProtoContext): void {
  pc.removeExisting(CURRENT_PROPOSAL);
}

/** OCaml `Int32.add`: wraps around. */
export function int32Add(a: number, b: number): number {
  return (a + b) | 0;
}

/** OCaml `Int32.sub`: wraps around. */
export function int32Sub(a: number, b: number): number {
  return (a - b) | 0;
}

/** OCaml `Int32.div`: truncates toward zero; RangeError on a zero divisor (OCaml's Division_by_zero). */
export function int32Div(a: number, b: number): number {
  if (b === 0) throw new RangeError("Division_by_zero");
  return Math.trunc(a / b) | 0;
}
