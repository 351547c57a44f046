/**
 * Voting state set up at activation and the listings (Octez `Vote_storage`,
 * `Voting_period_storage`): `votes/participation_ema` (int32), `votes/current_period`
 * (`voting_period`: index, kind, start position), `votes/pred_period_kind`,
 * `votes/listings/<curve>/<hex>` (rolls of each delegate, int32) and `votes/listings_size`.
 * Listings count the *current* roll map roll by roll, not a snapshot.
 * @module
 */
import { decodeBinary, encodeBinary } from "../../../encoding/codec.ts";
import { votingPeriod, votingPeriodKind, type Listing, type VotingPeriod, type VotingPeriodKind } from "../../../encoding/hangzhou/basic.ts";
import { formatPublicKeyHash, publicKeyHash } from "../../../crypto/keys.ts";
import { decodeInt32, encodeInt32, pkhOfSegments, pkhSegments, votesPath } from "./layout.ts";
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
