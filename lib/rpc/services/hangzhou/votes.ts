/**
 * `{B}/votes/…` (Octez 011 `voting_services.ml`): ballots and their sum, the current and next
 * block's voting period, the quorum, the listings, the proposals, the proposal under evaluation
 * and the total voting power. Plus `current_period_kind`, which the specification lists and
 * Hangzhou dropped: the kind of the period `current_period` shows (as the earlier protocols
 * answered it). Listings and the ballot list come in Octez's order (reverse key order);
 * proposals sorted by hash.
 * @module
 */
import { int32 } from "../../../encoding/integers.ts";
import { publicKeyHash } from "../../../encoding/keys.ts";
import { protocolHash } from "../../../encoding/hashes.ts";
import { list } from "../../../encoding/list.ts";
import { obj, req } from "../../../encoding/object.ts";
import { tup } from "../../../encoding/tuple.ts";
import { ballot, ballots, listings, votingPeriodKind } from "../../../encoding/hangzhou/basic.ts";
import { votingPeriodInfo } from "../../../encoding/hangzhou/receipts/block-metadata.ts";
import { currentVotingPeriodInfo, successorPeriod } from "../../../protocols/hangzhou/amendment.ts";
import {
  currentQuorum,
  findCurrentProposal,
  getBallotList,
  getBallots,
  getListings,
  getProposals,
  listingsSize,
} from "../../../protocols/hangzhou/storage/vote.ts";
import { Directory } from "../../directory.ts";
import { service } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import { nullable, octezListOrder, protoContextOf } from "./context.ts";

/** The votes services of Hangzhou. */
export function votesServices(): Directory<BlockCtx> {
  const V = "votes";
  return new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: [V, "ballots"],
      description: "Sum of ballots casted so far during a voting period.",
      output: ballots,
      handler: ({ ctx }) => getBallots(protoContextOf(ctx)),
    }),
    service({
      method: "GET",
      path: [V, "ballot_list"],
      description: "Ballots casted so far during a voting period.",
      output: list(obj(req("pkh", publicKeyHash), req("ballot", ballot))),
      handler: ({ ctx }) => octezListOrder(getBallotList(protoContextOf(ctx))),
    }),
    service({
      method: "GET",
      path: [V, "current_period"],
      description: "Returns the voting period (index, kind, starting position) and related information (position, remaining) of the interrogated block.",
      output: votingPeriodInfo,
      handler: ({ ctx }) => currentVotingPeriodInfo(protoContextOf(ctx)),
    }),
    service({
      method: "GET",
      path: [V, "successor_period"],
      description:
        "Returns the voting period (index, kind, starting position) and related information (position, remaining) of the next block.Useful to craft operations that will be valid in the next block.",
      output: votingPeriodInfo,
      handler: ({ ctx }) => successorPeriod(protoContextOf(ctx)),
    }),
    service({
      method: "GET",
      path: [V, "current_period_kind"],
      description: "Current period kind (the specification's path; Hangzhou answers it within `current_period`).",
      output: votingPeriodKind,
      handler: ({ ctx }) => currentVotingPeriodInfo(protoContextOf(ctx)).voting_period.kind,
    }),
    service({
      method: "GET",
      path: [V, "current_quorum"],
      description: "Current expected quorum.",
      output: int32,
      handler: ({ ctx }) => currentQuorum(protoContextOf(ctx)),
    }),
    service({
      method: "GET",
      path: [V, "listings"],
      description: "List of delegates with their voting weight, in number of rolls.",
      output: listings,
      handler: ({ ctx }) => octezListOrder(getListings(protoContextOf(ctx))),
    }),
    service({
      method: "GET",
      path: [V, "proposals"],
      description: "List of proposals with number of supporters.",
      output: list(tup(protocolHash, int32)),
      handler: ({ ctx }) => getProposals(protoContextOf(ctx)),
    }),
    service({
      method: "GET",
      path: [V, "current_proposal"],
      description: "Current proposal under evaluation.",
      output: nullable(protocolHash),
      handler: ({ ctx }) => findCurrentProposal(protoContextOf(ctx)) ?? null,
    }),
    service({
      method: "GET",
      path: [V, "total_voting_power"],
      description: "Total number of rolls for the delegates in the voting listings.",
      output: int32,
      handler: ({ ctx }) => listingsSize(protoContextOf(ctx)),
    }),
  );
}
