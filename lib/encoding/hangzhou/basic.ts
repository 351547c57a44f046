/**
 * Hangzhou's small types: tez, levels, cycles, periods, nonces, gas, votes, frozen balances,
 * contract ids and big-map diffs, with Octez's names (`011-PtHangz2.*`).
 * @module
 */
import { DecodeError } from "../codec.ts";
import { type Codec, jsonPreview } from "../core.ts";
import { constant, conv, def, splitted, stringEnum } from "../conv.ts";
import { fixedBytes } from "../bytes.ts";
import { scriptExprHash } from "../hashes.ts";
import { bool, int8, int32, int64 } from "../integers.ts";
import { contractIdCodec, publicKeyHash } from "../keys.ts";
import { list } from "../list.ts";
import { expression } from "./script.ts";
import type { Micheline } from "../micheline.ts";
import { mergeObjs, obj, opt, req } from "../object.ts";
import { tagged, union } from "../union.ts";
import { nat, z } from "../zarith.ts";

const MAX_MUTEZ = (1n << 63n) - 1n;

/**
 * Amount in mutez (`011-PtHangz2.mutez`, Octez `Tez_repr`): Zarith N of at most 10 bytes and at
 * most 2^63 - 1; bigint values, JSON decimal strings.
 */
export const mutez: Codec<bigint> = def(
  "011-PtHangz2.mutez",
  conv<bigint, bigint>(
    (v) => {
      if (typeof v === "bigint" && v > MAX_MUTEZ) throw new RangeError(`Amount ${v} exceeds 2^63 - 1 mutez`);
      return v;
    },
    (v) => {
      if (v > MAX_MUTEZ) throw new DecodeError(`Amount ${v} exceeds 2^63 - 1 mutez`);
      return v;
    },
    nat({ maxBytes: 10 }),
  ),
);

/** `011-PtHangz2.tez` (same as {@link mutez}). */
export const tez: Codec<bigint> = mutez;

/** Zarith N limited to 10 bytes, as counters, gas and storage limits are. */
export const n10: Codec<bigint> = nat({ maxBytes: 10 });

/** Cycle number (int32). */
export const cycle: Codec<number> = int32;
/** Level as stored (`raw_level`, int32). */
export const rawLevel: Codec<number> = int32;
/** Roll number (int32). */
export const roll: Codec<number> = int32;
/** Time span in seconds (`period`, int64; JSON decimal string). */
export const period: Codec<bigint> = int64;
/** Seed nonce (32 bytes, JSON hex). */
export const nonce: Codec<Uint8Array> = fixedBytes(32);
/** Random seed (32 bytes, JSON hex). */
export const seed: Codec<Uint8Array> = fixedBytes(32);

/** Gas: an amount (Zarith Z, in gas units) or `"unaccounted"`. */
export type Gas = bigint | "unaccounted";

/** Gas codec (`011-PtHangz2.gas`): tag 0 and Z, or tag 1 for `"unaccounted"`. */
export const gas: Codec<Gas> = union<Gas>([
  tagged<Gas, bigint>(0, "Limited", z, (v) => (typeof v === "bigint" ? v : undefined), (v) => v),
  tagged<Gas, "unaccounted">(1, "Unaccounted", constant("unaccounted"), (v) => (v === "unaccounted" ? v : undefined), (v) => v),
]);

/** Gas cost in milligas (`011-PtHangz2.gas.cost`, Zarith Z). */
export const gasCost: Codec<bigint> = z;

/** A level with its position in the cycle. */
export interface Level {
  level: number;
  level_position: number;
  cycle: number;
  cycle_position: number;
  expected_commitment: boolean;
}

/** Level codec (`011-PtHangz2.level`). */
export const level: Codec<Level> = obj(
  req("level", int32),
  req("level_position", int32),
  req("cycle", int32),
  req("cycle_position", int32),
  req("expected_commitment", bool),
);

/** Kinds of voting periods. */
export type VotingPeriodKind = "proposal" | "exploration" | "cooldown" | "promotion" | "adoption";

/** Voting period kind codec (`011-PtHangz2.voting_period.kind`, one byte). */
export const votingPeriodKind: Codec<VotingPeriodKind> = stringEnum(["proposal", "exploration", "cooldown", "promotion", "adoption"]);

/** A voting period. */
export interface VotingPeriod {
  index: number;
  kind: VotingPeriodKind;
  start_position: number;
}

/** Voting period codec (`011-PtHangz2.voting_period`). */
export const votingPeriod: Codec<VotingPeriod> = obj(req("index", int32), req("kind", votingPeriodKind), req("start_position", int32));

/** A ballot. */
export type Ballot = "yay" | "nay" | "pass";

const BALLOTS = ["yay", "nay", "pass"] as const;

/** Ballot codec (`011-PtHangz2.vote.ballot`): int8 0 yay, 1 nay, 2 pass; JSON the name. */
export const ballot: Codec<Ballot> = splitted<Ballot>(
  {
    toJson: (v) => v,
    fromJson(j) {
      if (j === "yay" || j === "nay" || j === "pass") return j;
      throw new DecodeError(`Expected "yay", "nay" or "pass", got ${jsonPreview(j, 200)}`);
    },
    schema: () => ({ type: "string", enum: ["nay", "yay", "pass"] }),
  },
  conv<Ballot, number>(
    (v) => {
      const i = BALLOTS.indexOf(v);
      if (i < 0) throw new TypeError(`Invalid ballot ${JSON.stringify(v)}`);
      return i;
    },
    (i) => {
      const v = BALLOTS[i];
      if (v === undefined) throw new DecodeError(`Invalid ballot ${i}`);
      return v;
    },
    int8,
  ),
);

/** Ballot counts. */
export interface Ballots {
  yay: number;
  nay: number;
  pass: number;
}

/** Ballot counts codec (`011-PtHangz2.vote.ballots`). */
export const ballots: Codec<Ballots> = obj(req("yay", int32), req("nay", int32), req("pass", int32));

/** One delegate's rolls in the voting listings. */
export interface Listing {
  pkh: string;
  rolls: number;
}

/** Voting listings codec (`011-PtHangz2.vote.listings`). */
export const listings: Codec<Listing[]> = list(obj(req("pkh", publicKeyHash), req("rolls", int32)));

/** Frozen balances of a delegate. */
export interface FrozenBalance {
  deposits: bigint;
  fees: bigint;
  rewards: bigint;
}

/** Frozen balance codec (`011-PtHangz2.delegate.frozen_balance`). */
export const frozenBalance: Codec<FrozenBalance> = obj(req("deposits", mutez), req("fees", mutez), req("rewards", mutez));

/** Frozen balances of a delegate for one cycle. */
export interface FrozenBalanceByCycle extends FrozenBalance {
  cycle: number;
}

/** Frozen balances by cycle codec (`011-PtHangz2.delegate.frozen_balance_by_cycles`). */
export const frozenBalanceByCycles: Codec<FrozenBalanceByCycle[]> = list(
  mergeObjs(obj(req("cycle", int32)), frozenBalance),
);

/** Contract id codec (`011-PtHangz2.contract_id`): `tz1`/`tz2`/`tz3`/`KT1`, 22 bytes. */
export const contractId: Codec<string> = contractIdCodec("011-PtHangz2.contract_id");

/** One change of the legacy big-map diff. */
export type BigMapDiffItem =
  | { action: "update"; big_map: bigint; key_hash: string; key: Micheline; value?: Micheline }
  | { action: "remove"; big_map: bigint }
  | { action: "copy"; source_big_map: bigint; destination_big_map: bigint }
  | { action: "alloc"; big_map: bigint; key_type: Micheline; value_type: Micheline };

const bigMapDiffItem: Codec<BigMapDiffItem> = union<BigMapDiffItem>([
  tagged(
    0,
    "update",
    obj(req("action", constant("update")), req("big_map", z), req("key_hash", scriptExprHash), req("key", expression), opt("value", expression)),
    (v: BigMapDiffItem) => (v.action === "update" ? v : undefined),
    (v) => v as BigMapDiffItem,
  ),
  tagged(1, "remove", obj(req("action", constant("remove")), req("big_map", z)), (v: BigMapDiffItem) => (v.action === "remove" ? v : undefined), (v) => v as BigMapDiffItem),
  tagged(
    2,
    "copy",
    obj(req("action", constant("copy")), req("source_big_map", z), req("destination_big_map", z)),
    (v: BigMapDiffItem) => (v.action === "copy" ? v : undefined),
    (v) => v as BigMapDiffItem,
  ),
  tagged(
    3,
    "alloc",
    obj(req("action", constant("alloc")), req("big_map", z), req("key_type", expression), req("value_type", expression)),
    (v: BigMapDiffItem) => (v.action === "alloc" ? v : undefined),
    (v) => v as BigMapDiffItem,
  ),
]);

/** Legacy big-map diff codec (`011-PtHangz2.contract.big_map_diff`). */
export const bigMapDiff: Codec<BigMapDiffItem[]> = list(bigMapDiffItem);

export { fitness as fitnessCodec } from "../fitness.ts";
export { timestamp } from "../time.ts";
