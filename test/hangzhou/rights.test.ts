/**
 * Rights drawn over the sandbox's bootstrap rolls reproduce the Octez capture exactly (slots,
 * order, priorities) and the delegates HANGZHOU-FACTS §2.3 verified; the RPC query logic follows
 * the plugin (§3) and block times follow §4.2.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parsePublicKeyHash, type PublicKey } from "../../lib/crypto/keys.ts";
import type { Json } from "../../lib/encoding/codec.ts";
import { initialCycleEras, levelFromRaw } from "../../lib/protocols/hangzhou/level.ts";
import { SANDBOX_CONSTANTS, type ParametricConstants } from "../../lib/protocols/hangzhou/constants.ts";
import {
  bakingPriorities,
  bakingRights,
  bakingRightsList,
  bakingRightsOwner,
  comparePublicKeyHashes,
  endorsementRights,
  endorsementRightsOwner,
  endorsingRights,
  endorsingRightsList,
  type RightsRpcContext,
} from "../../lib/protocols/hangzhou/rights.ts";
import { earlierPredecessorTimestamp, minimalTime, minimalValidTime } from "../../lib/protocols/hangzhou/timing.ts";
import { TezosError } from "../../lib/errors/mod.ts";
import { BOOTSTRAP, BOOTSTRAP_KEYS, SANDBOX_SOURCE, captured } from "./sandbox.ts";
import { formatPublicKeyHash, publicKeyHash } from "../../lib/crypto/keys.ts";

const eras = initialCycleEras(1, SANDBOX_CONSTANTS);
const T1 = 1_600_000_000; // timestamp of the level-1 block (scrubbed in the capture)

const ctx: RightsRpcContext = {
  eras,
  constants: SANDBOX_CONSTANTS,
  current: levelFromRaw(eras, 1),
  timestamp: T1,
  source: SANDBOX_SOURCE,
  managerKey: (pkh) => BOOTSTRAP_KEYS[BOOTSTRAP.findIndex((b) => b.pkh === pkh)],
};

const pkhOf = (pk: PublicKey) => formatPublicKeyHash(publicKeyHash(pk));
const GJAF = "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN";
const FASW = "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU";
const DDB9 = "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv";
const B7TU = "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv";
const KQTP = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";

/** The JSON with what tezt scrubs replaced by its placeholders. */
function scrub(json: Json): Json {
  return (json as { [k: string]: Json }[]).map((e) => {
    const out: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(e)) {
      out[k] = k === "delegate" ? "[PUBLIC_KEY_HASH]" : k === "estimated_time" ? "[TIMESTAMP]" : v;
    }
    return out;
  });
}

test("endorsing rights at level 1 are the captured answer, slot for slot and in order", () => {
  const rights = endorsingRights(ctx, {});
  const json = endorsingRightsList.toJson(rights);
  assert.is(JSON.stringify(scrub(json)), JSON.stringify(captured("/chains/main/blocks/head/helpers/endorsing_rights")));
  assert.equal(rights.map((r) => r.delegate), [GJAF, FASW, DDB9, B7TU, KQTP]);
  assert.equal(rights.map((r) => r.slots.length), [58, 54, 49, 55, 40]);
  assert.ok(rights.every((r) => r.estimated_time === T1));
});

test("baking rights for level 2 are the captured answer: priorities 0, 2, 4, 6, 8", () => {
  const rights = bakingRights(ctx, {});
  assert.is(JSON.stringify(scrub(bakingRightsList.toJson(rights))), JSON.stringify(captured("/chains/main/blocks/head/helpers/baking_rights")));
  assert.equal(rights.map((r) => [r.priority, r.delegate]), [[0, FASW], [2, DDB9], [4, KQTP], [6, GJAF], [8, B7TU]]);
  // time_between_blocks [1, 0]: every priority may come 1 s after the predecessor.
  assert.ok(rights.every((r) => r.estimated_time === T1 + 1));
});

test("the baking priorities 0..9 of level 2 are the verified delegates", () => {
  const g = bakingPriorities(SANDBOX_SOURCE, levelFromRaw(eras, 2));
  const got = Array.from({ length: 10 }, () => pkhOf(g.next().value));
  assert.equal(got, [FASW, FASW, DDB9, FASW, KQTP, DDB9, GJAF, GJAF, B7TU, FASW]);
  assert.is(pkhOf(bakingRightsOwner(SANDBOX_SOURCE, levelFromRaw(eras, 2), 4)), KQTP);
  assert.is(pkhOf(endorsementRightsOwner(SANDBOX_SOURCE, levelFromRaw(eras, 1), 9)), KQTP);
});

test("endorsement rights map each delegate to its ascending slots, in descending key-hash order", () => {
  const map = endorsementRights(SANDBOX_SOURCE, levelFromRaw(eras, 1), 256);
  const all = [...map.values()].flatMap((v) => v.slots).sort((a, b) => a - b);
  assert.equal(all, Array.from({ length: 256 }, (_, i) => i));
  for (const v of map.values()) assert.equal(v.slots, [...v.slots].sort((a, b) => a - b));
  const keys = [...map.keys()].map(parsePublicKeyHash);
  for (let i = 1; i < keys.length; i++) assert.ok(comparePublicKeyHashes(keys[i - 1]!, keys[i]!) > 0);
  // Curves order before hash bytes: tz1 < tz2 < tz3.
  const tz1 = parsePublicKeyHash("tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN");
  const tz2 = parsePublicKeyHash("tz2TSvNTh2epDMhZHrw73nV9piBX7kLZ9K9m");
  const tz3 = parsePublicKeyHash("tz3NExpXn9aPNZPorRE4SdjJ2RGrfbJgMAaV");
  assert.ok(comparePublicKeyHashes(tz1, tz2) < 0 && comparePublicKeyHashes(tz2, tz3) < 0);
});

test("baking rights with all keep every priority; max_priority is inclusive", () => {
  const rights = bakingRights(ctx, { all: true, max_priority: 9 });
  assert.equal(rights.map((r) => r.delegate), [FASW, FASW, DDB9, FASW, KQTP, DDB9, GJAF, GJAF, B7TU, FASW]);
  assert.equal(bakingRights(ctx, { max_priority: 0 }).map((r) => r.priority), [0]);
  assert.equal(bakingRights(ctx, { max_priority: -1 }), []);
});

test("baking rights for given delegates stop at their first priority unless all is set", () => {
  assert.equal(bakingRights(ctx, { delegate: [GJAF, KQTP] }).map((r) => [r.priority, r.delegate]), [[4, KQTP], [6, GJAF]]);
  assert.equal(
    bakingRights(ctx, { delegate: [GJAF], all: true, max_priority: 9 }).map((r) => r.priority),
    [6, 7],
  );
  // A delegate without a revealed key is silently ignored.
  assert.equal(bakingRights(ctx, { delegate: ["tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU"] }), []);
  assert.equal(bakingRights(ctx, { delegate: [GJAF], max_priority: 5 }), []);
});

test("requested levels: past ones have no estimated time, future ones assume minimal_block_delay steps", () => {
  // B = level 1 at T1. Level 2: predecessor is B (T1), level 3: T1 + 1, level 5: T1 + 3.
  const b = bakingRights(ctx, { level: [5, 2, 2, 3], max_priority: 0 });
  assert.equal(b.map((r) => [r.level, r.estimated_time]), [[2, T1 + 1], [3, T1 + 2], [5, T1 + 4]]);
  const e = endorsingRights(ctx, { level: [1, 3], delegate: [KQTP] });
  assert.equal(e.map((r) => [r.level, r.delegate, r.estimated_time]), [[1, KQTP, undefined], [3, KQTP, T1 + 1]]);
  assert.ok(!("estimated_time" in (endorsingRightsList.toJson(e) as { [k: string]: Json }[])[0]!));
});

test("a cycle query covers its levels with max_priority 8 by default, merged with explicit levels", () => {
  const rights = bakingRights(ctx, { cycle: [0], level: [9], all: true });
  const levels = [...new Set(rights.map((r) => r.level))];
  assert.equal(levels, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.ok(rights.every((r) => r.priority <= 8));
  assert.is(rights.filter((r) => r.level === 4).length, 9);
});

test("a missing seed surfaces as the source's error", () => {
  const failing: RightsRpcContext = {
    ...ctx,
    source: {
      seed: (cycle) => {
        throw new RangeError(`no seed ${cycle}`);
      },
      snapshot: () => SANDBOX_SOURCE.snapshot(0),
    },
  };
  assert.throws(() => endorsingRights(failing, {}), /no seed 0/);
  assert.throws(() => bakingRightsOwner({ ...SANDBOX_SOURCE, snapshot: () => ({ bound: 0, owner: () => undefined }) }, levelFromRaw(eras, 2), 0), (e: unknown) => e instanceof RangeError);
});

const MAINNET: ParametricConstants = {
  ...SANDBOX_CONSTANTS,
  time_between_blocks: [60n, 40n],
  minimal_block_delay: 30n,
  initial_endorsers: 192,
  delay_per_missing_endorsement: 4n,
};

test("minimal times: priority 0 after minimal_block_delay, then 60 + 40·prio on mainnet, 1 s in the sandbox", () => {
  const pred = 1_000_000;
  assert.is(minimalTime(MAINNET, 0, pred), pred + 30);
  assert.is(minimalTime(MAINNET, 1, pred), pred + 100);
  assert.is(minimalTime(MAINNET, 3, pred), pred + 60 + 40 * 3);
  for (const p of [0, 1, 2, 9]) assert.is(minimalTime(SANDBOX_CONSTANTS, p, pred), pred + 1);
  assert.is(minimalTime({ ...MAINNET, time_between_blocks: [] }, 2, pred), pred + 180);
  assert.is(minimalTime({ ...MAINNET, time_between_blocks: [10n, 20n, 30n] }, 4, pred), pred + 10 + 20 + 30 * 3);
});

test("minimal valid times: the fast path needs 60% of the slots, else missing endorsements cost", () => {
  const pred = 1_000_000;
  assert.is(minimalValidTime(MAINNET, 0, 153, pred), pred + 30);
  assert.is(minimalValidTime(MAINNET, 0, 100, pred), pred + 60 + 92 * 4);
  assert.is(minimalValidTime(MAINNET, 0, 152, pred), pred + 60 + 40 * 4);
  assert.is(minimalValidTime(MAINNET, 2, 200, pred), pred + 140);
  assert.is(minimalValidTime(SANDBOX_CONSTANTS, 0, 0, pred), pred + 1 + 1);
  assert.is(minimalValidTime(SANDBOX_CONSTANTS, 0, 153, pred), pred + 1);
  assert.is(earlierPredecessorTimestamp(MAINNET, 10, pred, 13), pred + 60);
  assert.throws(() => earlierPredecessorTimestamp(MAINNET, 10, pred, 10), (e: unknown) => e instanceof RangeError);
});

test("time overflow is the protocol's timestamp_add error; bad arguments are TypeErrors", () => {
  const huge = { ...MAINNET, minimal_block_delay: (1n << 63n) - 1n };
  try {
    minimalTime(huge, 0, 10);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, TezosError);
    assert.is((e as TezosError).trace[0]!.id, "proto.011-PtHangz2.timestamp_add");
  }
  assert.throws(() => minimalTime(MAINNET, 0, 1.5), (e: unknown) => e instanceof TypeError);
  assert.throws(() => minimalValidTime(MAINNET, 0, Number.NaN, 0), (e: unknown) => e instanceof TypeError);
});

test.run();
