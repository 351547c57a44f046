/** Levels and cycles come out as Octez prints them (sandbox capture, mainnet responses, HANGZHOU-FACTS §0). */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { level as levelCodec } from "../../lib/encoding/hangzhou/basic.ts";
import { TezosError } from "../../lib/errors/mod.ts";
import {
  createCycleEras,
  cycleBounds,
  cycleEras,
  firstLevelInCycle,
  initialCycleEras,
  isLastOfCycle,
  lastAllowedForkLevel,
  lastLevelInCycle,
  levelFromRaw,
  levelFromRawWithOffset,
  levelsInCurrentCycle,
  levelsInCycle,
  levelsWithCommitmentsInCycle,
  maySnapshotRolls,
  rootLevel,
} from "../../lib/protocols/hangzhou/level.ts";
import { captured, example } from "./sandbox.ts";

const sandbox = initialCycleEras(1, { blocks_per_cycle: 8, blocks_per_commitment: 4 });
// Mainnet before Granada: one era from level 1, 4096 blocks per cycle, a commitment every 32.
const mainnet2020 = initialCycleEras(1, { blocks_per_cycle: 4096, blocks_per_commitment: 32 });
// Mainnet under Hangzhou: the era Granada opened at level 1589249 (cycle 388), 8192 blocks, 64 per commitment.
const mainnetHangzhou = createCycleEras([
  { first_level: 1589249, first_cycle: 388, blocks_per_cycle: 8192, blocks_per_commitment: 64 },
  { first_level: 1, first_cycle: 0, blocks_per_cycle: 4096, blocks_per_commitment: 32 },
]);

test("current_level at the activation block is the captured answer", () => {
  const json = levelCodec.toJson(levelFromRawWithOffset(sandbox, 1, 0));
  assert.equal(json, captured("/chains/main/blocks/head/helpers/current_level?offset=0"));
  assert.is(JSON.stringify(json), JSON.stringify(captured("/chains/main/blocks/head/helpers/current_level?offset=0")));
});

test("levels_in_current_cycle at the activation block is the captured answer", () => {
  const bounds = levelsInCurrentCycle(sandbox, levelFromRaw(sandbox, 1))!;
  assert.equal(cycleBounds.toJson(bounds), captured("/chains/main/blocks/head/helpers/levels_in_current_cycle"));
});

type LevelJson = { level: number; level_position: number; cycle: number; cycle_position: number; expected_commitment: boolean };

function levelObjects(j: unknown, out: LevelJson[] = []): LevelJson[] {
  if (Array.isArray(j)) for (const x of j) levelObjects(x, out);
  else if (j !== null && typeof j === "object") {
    const o = j as { [k: string]: unknown };
    if (typeof o["level"] === "number" && typeof o["cycle_position"] === "number") out.push(o as unknown as LevelJson);
    for (const v of Object.values(o)) levelObjects(v, out);
  }
  return out;
}

test("mainnet levels of 2020 have the cycle and position Octez reported for them", () => {
  const found = [
    ...levelObjects(example("mainnet-2020-misc-rpc-responses.json")),
    ...levelObjects(example("mainnet-carthage-block-1064978.json")),
  ];
  assert.ok(found.length >= 3, `found ${found.length}`);
  for (const f of found) {
    const l = levelFromRaw(mainnet2020, f.level);
    assert.equal(
      [l.level_position, l.cycle, l.cycle_position, l.expected_commitment],
      [f.level_position, f.cycle, f.cycle_position, f.expected_commitment],
    );
  }
});

test("the sandbox commits and snapshots at levels 4, 8, 12 and ends cycles at 8c + 8", () => {
  const l2 = levelFromRaw(sandbox, 2);
  assert.equal(l2, { level: 2, level_position: 1, cycle: 0, cycle_position: 1, expected_commitment: false });
  const commits: number[] = [], snaps: number[] = [], ends: number[] = [];
  for (let l = 1; l <= 17; l++) {
    const info = levelFromRaw(sandbox, l);
    if (info.expected_commitment) commits.push(l);
    if (maySnapshotRolls(info, 4)) snaps.push(l);
    if (isLastOfCycle(sandbox, info)) ends.push(l);
  }
  assert.equal(commits, [4, 8, 12, 16]);
  assert.equal(snaps, [4, 8, 12, 16]);
  assert.equal(ends, [8, 16]);
  for (const c of [0, 1, 5]) {
    assert.is(firstLevelInCycle(sandbox, c).level, 8 * c + 1);
    assert.is(lastLevelInCycle(sandbox, c).level, 8 * c + 8);
  }
  assert.equal(levelsInCycle(sandbox, 1).map((l) => l.level), [9, 10, 11, 12, 13, 14, 15, 16]);
  assert.equal(levelsWithCommitmentsInCycle(sandbox, 1).map((l) => l.level), [12, 16]);
});

test("two eras: Hangzhou's first level 1916929 starts cycle 428, and the old era keeps its cycles", () => {
  const l = levelFromRaw(mainnetHangzhou, 1916929);
  assert.equal(l, { level: 1916929, level_position: 1916928, cycle: 428, cycle_position: 0, expected_commitment: false });
  assert.is(firstLevelInCycle(mainnetHangzhou, 428).level, 1916929);
  assert.is(lastLevelInCycle(mainnetHangzhou, 387).level, 1589248);
  assert.equal(levelFromRaw(mainnetHangzhou, 1589248).cycle, 387);
  assert.equal(levelFromRaw(mainnetHangzhou, 1589248).cycle_position, 4095);
  assert.ok(levelFromRaw(mainnetHangzhou, 1589249 + 63).expected_commitment);
  assert.ok(!levelFromRaw(mainnetHangzhou, 1589249 + 31).expected_commitment);
  assert.equal(levelsInCurrentCycle(mainnetHangzhou, l, -41), { first: 387 * 4096 + 1, last: 1589248 });
});

test("offsets move the current level and cycle, and negative sums are refused as Octez does", () => {
  assert.is(levelFromRawWithOffset(sandbox, 5, 3).level, 8);
  assert.equal(levelsInCurrentCycle(sandbox, levelFromRaw(sandbox, 9), 1), { first: 17, last: 24 });
  assert.is(levelsInCurrentCycle(sandbox, levelFromRaw(sandbox, 9), -2), undefined);
  try {
    levelFromRawWithOffset(sandbox, 1, -2);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, TezosError);
    assert.equal((e as TezosError).toJson(), [
      { kind: "permanent", id: "proto.011-PtHangz2.negative_level_and_offset_sum", level: 1, offset: -2 },
    ]);
  }
  // Octez adds as int32: level + offset past 2^31 - 1 wraps negative.
  assert.throws(() => levelFromRawWithOffset(sandbox, 5, 2147483647), (e: unknown) => e instanceof TezosError);
});

test("levels before the first era, malformed eras and bad arguments are errors, not crashes", () => {
  assert.throws(() => levelFromRaw(sandbox, 0), (e: unknown) => e instanceof RangeError);
  assert.throws(() => levelFromRaw(sandbox, -1), (e: unknown) => e instanceof RangeError);
  assert.throws(() => levelFromRaw(sandbox, 1.5), (e: unknown) => e instanceof TypeError);
  assert.throws(() => createCycleEras([]), (e: unknown) => e instanceof RangeError);
  assert.throws(() => createCycleEras([...mainnetHangzhou].reverse()), (e: unknown) => e instanceof RangeError);
  assert.throws(() => cycleEras.fromJson([]), /Invalid cycle eras/);
  assert.equal(cycleEras.fromJson(cycleEras.toJson([...mainnetHangzhou])), [...mainnetHangzhou]);
});

test("the root level and the last allowed fork level follow preserved_cycles", () => {
  assert.equal(rootLevel(mainnetHangzhou), { level: 1, level_position: 0, cycle: 0, cycle_position: 0, expected_commitment: false });
  assert.is(lastAllowedForkLevel(sandbox, levelFromRaw(sandbox, 20), 2), 1);
  assert.is(lastAllowedForkLevel(sandbox, levelFromRaw(sandbox, 30), 2), 9);
  assert.is(lastAllowedForkLevel(sandbox, levelFromRaw(sandbox, 8), 2), 0);
});

test.run();
