/**
 * Emmy* block times (Octez `Baking.minimal_time`, `Baking.minimal_valid_time`,
 * `Baking.earlier_predecessor_timestamp`): when a block of a given priority, carrying a given
 * endorsing power, may be baked after its predecessor. Timestamps are seconds since the epoch
 * (numbers, as `lib/encoding/time.ts` has them); periods are the constants' bigints.
 *
 * @example
 * ```ts
 * minimalTime(SANDBOX_CONSTANTS, 0, t);            // t + minimal_block_delay
 * minimalValidTime(mainnet, 0, 100, t);            // t + 60 + 92·4 (too few endorsements)
 * ```
 * @module
 */
import type { ErrorDefinition } from "../../errors/mod.ts";
import type { ParametricConstants } from "./constants.ts";
import { protoError } from "./proto-error.ts";

/** The constants the block times depend on. */
export type TimingConstants = Pick<
  ParametricConstants,
  "time_between_blocks" | "minimal_block_delay" | "endorsers_per_block" | "initial_endorsers" | "delay_per_missing_endorsement"
>;

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const ONE_MINUTE = 60n;

/** `proto.011-PtHangz2.timestamp_add`: adding a period to a timestamp overflowed. */
export const timestampAdd: ErrorDefinition = protoError({
  id: "timestamp_add",
  kind: "permanent",
  title: "Timestamp add",
  description: "Overflow when adding timestamps.",
});

/** `proto.011-PtHangz2.invalid_arg`: a negative multiple of a period. */
export const periodInvalidArg: ErrorDefinition = protoError({
  id: "invalid_arg",
  kind: "permanent",
  title: "Invalid arg",
  description: "Negative multiple of periods are not allowed.",
});

/** `proto.011-PtHangz2.period_overflow`: a period computation overflowed. */
export const periodOverflow: ErrorDefinition = protoError({
  id: "period_overflow",
  kind: "permanent",
  title: "Period overflow",
  description: "Last operation generated an integer overflow.",
});

function wrap64(v: bigint): bigint {
  return BigInt.asIntN(64, v);
}

function checkTimestamp(what: string, t: number): bigint {
  if (typeof t !== "number" || !Number.isSafeInteger(t)) throw new TypeError(`${what} must be an integer number of seconds, got ${String(t)}`);
  return BigInt(t);
}

function checkInt(what: string, n: number): number {
  if (typeof n !== "number" || !Number.isSafeInteger(n)) throw new TypeError(`${what} must be an integer, got ${String(n)}`);
  return n;
}

/** `Period.mult`: n (an int32) times a period, refusing negative n and int64 overflow. */
function periodMult(n: number, p: bigint): bigint {
  if (n < 0) throw periodInvalidArg.error(undefined);
  const r = BigInt(n) * p;
  if (r > INT64_MAX || r < INT64_MIN) throw periodOverflow.error(undefined);
  return r;
}

/** `Timestamp.(+?)`: the int64 sum (wrapping), refused when negative. */
function timestampPlus(t: bigint, p: bigint): bigint {
  const r = wrap64(t + p);
  if (r < 0n) throw timestampAdd.error(undefined);
  return r;
}

function toSeconds(t: bigint): number {
  if (t > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`Timestamp ${t} is beyond the supported range`);
  return Number(t);
}

/** The slow-path sum: `prioPlusOne` (int32) steps of time_between_blocks, the last element repeating. */
function slowPath(timeBetweenBlocks: readonly bigint[], prioPlusOne: number, pred: bigint): bigint {
  let acc = pred;
  const durations: readonly bigint[] = timeBetweenBlocks.length === 0 ? [ONE_MINUTE] : timeBetweenBlocks;
  let p = prioPlusOne;
  let i = 0;
  while (p > 0) {
    if (i === durations.length - 1) return timestampPlus(acc, periodMult(p, durations[i]!));
    acc = timestampPlus(acc, durations[i]!);
    i++;
    p--;
  }
  return acc;
}

/**
 * The earliest time of a block of `priority` after a predecessor at `predecessorTimestamp`
 * (`Baking.minimal_time`): priority 0 → pred + minimal_block_delay; otherwise pred + the first
 * priority + 1 entries of time_between_blocks, the last entry repeated (an empty list counts as
 * one 60 s entry). The priority is taken as an int32, as Octez does.
 */
export function minimalTime(c: TimingConstants, priority: number, predecessorTimestamp: number): number {
  const pred = checkTimestamp("predecessor timestamp", predecessorTimestamp);
  const prio = checkInt("priority", priority) | 0;
  if (prio === 0) return toSeconds(timestampPlus(pred, c.minimal_block_delay));
  return toSeconds(slowPath(c.time_between_blocks, (prio + 1) | 0, pred));
}

/** The endorsing power from which a priority-0 block takes the fast path: ⌊3·endorsers_per_block/5⌋. */
export function fastPathEndorsingPower(c: Pick<TimingConstants, "endorsers_per_block">): number {
  return Math.floor((3 * c.endorsers_per_block) / 5);
}

/**
 * The earliest valid time of a block (`Baking.minimal_valid_time`, also the
 * `helpers/minimal_valid_time` answer): priority 0 with endorsing power ≥
 * {@link fastPathEndorsingPower} → pred + minimal_block_delay; else the slow path of
 * {@link minimalTime} plus delay_per_missing_endorsement for each endorsement short of
 * initial_endorsers.
 */
export function minimalValidTime(c: TimingConstants, priority: number, endorsingPower: number, predecessorTimestamp: number): number {
  const pred = checkTimestamp("predecessor timestamp", predecessorTimestamp);
  checkInt("priority", priority);
  checkInt("endorsing power", endorsingPower);
  if (priority === 0 && endorsingPower >= fastPathEndorsingPower(c)) return toSeconds(timestampPlus(pred, c.minimal_block_delay));
  const slow = slowPath(c.time_between_blocks, ((priority | 0) + 1) | 0, pred);
  const missing = Math.max(0, c.initial_endorsers - endorsingPower) | 0;
  const delay = periodMult(missing, c.delay_per_missing_endorsement);
  return toSeconds(wrap64(slow + delay));
}

/**
 * The assumed predecessor time of a future level (`Baking.earlier_predecessor_timestamp`): every
 * block after the current one at minimal_block_delay, i.e.
 * currentTimestamp + (level − currentLevel − 1)·minimal_block_delay. RangeError if level ≤ currentLevel.
 */
export function earlierPredecessorTimestamp(
  c: Pick<TimingConstants, "minimal_block_delay">,
  currentLevel: number,
  currentTimestamp: number,
  level: number,
): number {
  const now = checkTimestamp("current timestamp", currentTimestamp);
  const gap = checkInt("level", level) - checkInt("current level", currentLevel);
  if (gap < 1) throw new RangeError("Baking.earlier_block_timestamp: past block.");
  return toSeconds(timestampPlus(now, periodMult(gap - 1, c.minimal_block_delay)));
}
