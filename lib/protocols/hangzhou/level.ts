/**
 * Levels and cycles (Octez `Level_repr`, `Level_storage`): cycle eras, the level information of
 * a raw level, the levels of a cycle, and the predicates that drive the end of a block (nonce
 * commitment, roll snapshot, end of cycle). Pure functions of the cycle eras.
 *
 * @example
 * ```ts
 * const eras = initialCycleEras(1, { blocks_per_cycle: 8, blocks_per_commitment: 4 });
 * levelFromRaw(eras, 4); // { level: 4, level_position: 3, cycle: 0, cycle_position: 3, expected_commitment: true }
 * levelsInCurrentCycle(eras, levelFromRaw(eras, 1)); // { first: 1, last: 8 }
 * ```
 * @module
 */
import type { Codec } from "../../encoding/core.ts";
import { conv } from "../../encoding/conv.ts";
import { DecodeError } from "../../encoding/codec.ts";
import { int32 } from "../../encoding/integers.ts";
import { list } from "../../encoding/list.ts";
import { obj, req } from "../../encoding/object.ts";
import type { Level } from "../../encoding/hangzhou/basic.ts";
import { type ErrorDefinition, failure } from "../../errors/mod.ts";
import { protoError } from "./proto-error.ts";

export type { Level } from "../../encoding/hangzhou/basic.ts";

const INT32_MAX = 0x7fffffff;

/** A cycle era: from `first_level` on, cycles (numbered from `first_cycle`) have these sizes. */
export interface CycleEra {
  first_level: number;
  first_cycle: number;
  blocks_per_cycle: number;
  blocks_per_commitment: number;
}

/** Cycle eras, newest first (as the context stores them). */
export type CycleEras = readonly CycleEra[];

function checkLevelNumber(what: string, n: number): number {
  if (typeof n !== "number" || !Number.isInteger(n)) throw new TypeError(`${what} must be an integer, got ${String(n)}`);
  if (n < 0 || n > INT32_MAX) throw new RangeError(`${what} must be in [0, 2^31 - 1], got ${n}`);
  return n;
}

/**
 * Checks cycle eras as `Level_repr.create_cycle_eras` does: non-empty, newest first, first levels
 * and first cycles strictly decreasing towards the oldest era, sizes positive. Returns them.
 */
export function createCycleEras(eras: readonly CycleEra[]): CycleEras {
  if (!Array.isArray(eras)) throw new TypeError("cycle eras must be an array");
  if (eras.length === 0) throw new RangeError("Invalid cycle eras: the list is empty");
  for (const e of eras) {
    checkLevelNumber("first_level", e.first_level);
    checkLevelNumber("first_cycle", e.first_cycle);
    checkLevelNumber("blocks_per_cycle", e.blocks_per_cycle);
    checkLevelNumber("blocks_per_commitment", e.blocks_per_commitment);
    if (e.blocks_per_cycle === 0 || e.blocks_per_commitment === 0) throw new RangeError("Invalid cycle eras: zero-sized cycles or commitments");
  }
  for (let i = 1; i < eras.length; i++) {
    const newer = eras[i - 1]!, older = eras[i]!;
    if (!(newer.first_level > older.first_level && newer.first_cycle > older.first_cycle)) {
      throw new RangeError("Invalid cycle eras: first levels and first cycles must decrease from the newest era");
    }
  }
  return eras;
}

/**
 * The eras of a chain activated from genesis: one era starting at the activation block's level,
 * cycle 0 (`Raw_context.prepare_first_block`).
 */
export function initialCycleEras(
  activationLevel: number,
  constants: { readonly blocks_per_cycle: number; readonly blocks_per_commitment: number },
): CycleEras {
  return createCycleEras([
    {
      first_level: activationLevel,
      first_cycle: 0,
      blocks_per_cycle: constants.blocks_per_cycle,
      blocks_per_commitment: constants.blocks_per_commitment,
    },
  ]);
}

/** One cycle era (`cycle_era` encoding: first_level, first_cycle, blocks_per_cycle, blocks_per_commitment). */
export const cycleEra: Codec<CycleEra> = obj(
  req("first_level", int32),
  req("first_cycle", int32),
  req("blocks_per_cycle", int32),
  req("blocks_per_commitment", int32),
);

/** Cycle eras (`cycle_eras` encoding): a list, validated by {@link createCycleEras} on decoding. */
export const cycleEras: Codec<CycleEra[]> = conv<CycleEra[], CycleEra[]>(
  (v) => v,
  (v) => {
    try {
      return createCycleEras(v) as CycleEra[];
    } catch (e) {
      throw new DecodeError(e instanceof Error ? e.message : "Invalid cycle eras");
    }
  },
  list(cycleEra),
);

function oldestEra(eras: CycleEras): CycleEra {
  if (eras.length === 0) throw new RangeError("Invalid cycle eras: the list is empty");
  return eras[eras.length - 1]!;
}

/** The era a raw level belongs to; RangeError below the oldest era. */
export function eraOfLevel(eras: CycleEras, level: number): CycleEra {
  checkLevelNumber("level", level);
  for (const e of eras) if (level >= e.first_level) return e;
  throw new RangeError(`Level ${level} is before the first level of the protocol (${oldestEra(eras).first_level})`);
}

/** The era a cycle belongs to; RangeError below the oldest era. */
export function eraOfCycle(eras: CycleEras, cycle: number): CycleEra {
  checkLevelNumber("cycle", cycle);
  for (const e of eras) if (cycle >= e.first_cycle) return e;
  throw new RangeError(`Cycle ${cycle} is before the first cycle of the protocol (${oldestEra(eras).first_cycle})`);
}

function levelInEra(era: CycleEra, firstLevelOfAll: number, level: number): Level {
  const pos = level - era.first_level;
  const cyclePosition = pos % era.blocks_per_cycle;
  return {
    level,
    level_position: level - firstLevelOfAll,
    cycle: era.first_cycle + Math.floor(pos / era.blocks_per_cycle),
    cycle_position: cyclePosition,
    expected_commitment: cyclePosition % era.blocks_per_commitment === era.blocks_per_commitment - 1,
  };
}

/**
 * The level information of a raw level (`Level_repr.from_raw`): cycle and position within it,
 * position since the protocol's first level, whether a nonce commitment is expected.
 * RangeError for a level before the oldest era (Octez asserts there).
 */
export function levelFromRaw(eras: CycleEras, level: number): Level {
  const era = eraOfLevel(eras, level);
  return levelInEra(era, oldestEra(eras).first_level, level);
}

/**
 * Runs a level computation on a level, cycle or offset that an operation or an RPC request gave:
 * where Octez's `Level_repr` fails an assertion (a level or cycle before the protocol's first, a
 * level past int32), the exception reaches the client as a `failure`, and so does the reason here
 * (the RangeError's message), instead of a JavaScript error. Other errors pass unchanged.
 *
 * @example
 * ```ts
 * givenLevels(() => levelFromRaw(eras, 0)); // throws failure "Level 0 is before the first level of the protocol (1)"
 * ```
 */
export function givenLevels<T>(compute: () => T): T {
  try {
    return compute();
  } catch (e) {
    if (e instanceof RangeError) throw failure.error({ msg: e.message });
    throw e;
  }
}

/** `levelFromRaw` of a level an operation or a request gave ({@link givenLevels}). */
export function givenLevel(eras: CycleEras, level: number): Level {
  return givenLevels(() => levelFromRaw(eras, level));
}

/** Fields of `negative_level_and_offset_sum`. */
export interface NegativeLevelAndOffsetSum {
  level: number;
  offset: number;
}

/** `proto.011-PtHangz2.negative_level_and_offset_sum` {level, offset}: a level plus an offset is negative. */
export const negativeLevelAndOffsetSum: ErrorDefinition<NegativeLevelAndOffsetSum> = protoError({
  id: "negative_level_and_offset_sum",
  kind: "permanent",
  title: "Negative sum of level and offset",
  description: "Negative sum of level and offset",
  fields: obj(req("level", int32), req("offset", int32)),
});

/**
 * The level `offset` levels after `level` (`Level_repr.from_raw_with_offset`, the
 * `helpers/current_level?offset=` answer). The sum wraps as an int32 does; a negative sum throws
 * `negative_level_and_offset_sum`.
 */
export function levelFromRawWithOffset(eras: CycleEras, level: number, offset: number): Level {
  checkLevelNumber("level", level);
  if (typeof offset !== "number" || !Number.isInteger(offset)) throw new TypeError(`offset must be an integer, got ${String(offset)}`);
  if (offset < -0x80000000 || offset > INT32_MAX) throw new RangeError(`offset must fit in an int32, got ${offset}`);
  const sum = (level + offset) | 0;
  if (sum < 0) throw negativeLevelAndOffsetSum.error({ level, offset });
  return levelFromRaw(eras, sum);
}

/** The first level of the protocol (`Level_repr.root_level`): level of the oldest era, cycle 0, position 0. */
export function rootLevel(eras: CycleEras): Level {
  return { level: oldestEra(eras).first_level, level_position: 0, cycle: 0, cycle_position: 0, expected_commitment: false };
}

/** The first level of a cycle (`first_level_in_cycle`). */
export function firstLevelInCycle(eras: CycleEras, cycle: number): Level {
  const era = eraOfCycle(eras, cycle);
  const level = era.first_level + era.blocks_per_cycle * (cycle - era.first_cycle);
  if (level > INT32_MAX) throw new RangeError(`The first level of cycle ${cycle} does not fit in an int32`);
  return levelInEra(era, oldestEra(eras).first_level, level);
}

/** The last level of a cycle (`last_level_in_cycle`): the level before the next cycle's first. */
export function lastLevelInCycle(eras: CycleEras, cycle: number): Level {
  return levelFromRaw(eras, firstLevelInCycle(eras, cycle + 1).level - 1);
}

/** Every level of a cycle, in ascending order (`levels_in_cycle`, which Octez builds reversed). */
export function levelsInCycle(eras: CycleEras, cycle: number): Level[] {
  const first = firstLevelInCycle(eras, cycle).level;
  const last = lastLevelInCycle(eras, cycle).level;
  const out: Level[] = [];
  for (let l = first; l <= last; l++) out.push(levelFromRaw(eras, l));
  return out;
}

/**
 * The levels of a cycle at which a nonce commitment is expected, in ascending order
 * (`levels_with_commitments_in_cycle` builds them highest first: reverse for the seed update).
 */
export function levelsWithCommitmentsInCycle(eras: CycleEras, cycle: number): Level[] {
  return levelsInCycle(eras, cycle).filter((l) => l.expected_commitment);
}

/** Whether a level is the last of its cycle (`Level_repr.last_of_cycle`): the cycle ends after it. */
export function isLastOfCycle(eras: CycleEras, level: Level): boolean {
  return level.cycle_position + 1 === eraOfLevel(eras, level.level).blocks_per_cycle;
}

/** Whether rolls are snapshotted at the end of this level (`may_snapshot_rolls`). */
export function maySnapshotRolls(level: Level, blocksPerRollSnapshot: number): boolean {
  checkLevelNumber("blocks_per_roll_snapshot", blocksPerRollSnapshot);
  if (blocksPerRollSnapshot === 0) throw new RangeError("blocks_per_roll_snapshot must be positive");
  return level.cycle_position % blocksPerRollSnapshot === blocksPerRollSnapshot - 1;
}

/** First and last level of a cycle, the `helpers/levels_in_current_cycle` answer. */
export interface CycleBounds {
  first: number;
  last: number;
}

/** `{first, last}` codec of `helpers/levels_in_current_cycle`. */
export const cycleBounds: Codec<CycleBounds> = obj(req("first", int32), req("last", int32));

/**
 * The first and last levels of the cycle `offset` cycles after the current level's
 * (`helpers/levels_in_current_cycle?offset=`); `undefined` when that cycle is negative (Octez
 * answers 404). The cycle sum wraps as an int32 does.
 */
export function levelsInCurrentCycle(eras: CycleEras, current: Level, offset = 0): CycleBounds | undefined {
  if (typeof offset !== "number" || !Number.isInteger(offset)) throw new TypeError(`offset must be an integer, got ${String(offset)}`);
  if (offset < -0x80000000 || offset > INT32_MAX) throw new RangeError(`offset must fit in an int32, got ${offset}`);
  const cycle = (current.cycle + offset) | 0;
  if (cycle < 0) return undefined;
  return { first: firstLevelInCycle(eras, cycle).level, last: lastLevelInCycle(eras, cycle).level };
}

/**
 * The oldest level a fork may branch from (`last_allowed_fork_level`): the first level of cycle
 * current − preserved_cycles, or the root level (0 in Octez's `Raw_level.root`) before that.
 */
export function lastAllowedForkLevel(eras: CycleEras, current: Level, preservedCycles: number): number {
  const cycle = current.cycle - preservedCycles;
  return cycle < 0 ? 0 : firstLevelInCycle(eras, cycle).level;
}
