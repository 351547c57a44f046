/**
 * The baker's decisions on the context Hangzhou's initialisation leaves after the activation
 * block (the one Octez's sandbox captures describe: baking priorities at level 2 are 0, 2, 4, 6, 8
 * for the five bootstrap delegates, bootstrap3 first; 256 endorsement slots at level 1).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { throwsA } from "../genesis/throws.ts";
import { bootstrapSecretKeys, keyRing } from "../../lib/baker/keys.ts";
import { MAX_PRIORITY, NoBakingRights, planBlock, type PlanHead } from "../../lib/baker/plan.ts";
import { nonceHash } from "../../lib/crypto/hashes.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import type { Json } from "../../lib/encoding/codec.ts";
import { protocolParametersBytes } from "../../lib/protocols/genesis/activation.ts";
import { initHangzhou } from "../../lib/protocols/hangzhou/init.ts";
import { levelFromRaw } from "../../lib/protocols/hangzhou/level.ts";
import { bakingRights } from "../../lib/protocols/hangzhou/rights.ts";
import * as S from "../../lib/protocols/hangzhou/storage/mod.ts";
import { emptyContext } from "../../lib/store/context/mod.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { captured, example } from "../hangzhou/sandbox.ts";

const T1 = 1_600_000_000;
const PARAMS = example("011-hangzhou-protocol-parameters.json") as { [k: string]: Json };
const init = initHangzhou(
  emptyContext(new MemoryStore()).set(["version"], new TextEncoder().encode("genesis")).set(["protocol_parameters"], protocolParametersBytes(PARAMS)),
  { level: 1, timestamp: T1 },
);
const context = init.context;
const ALL = keyRing(bootstrapSecretKeys());
const ACTIVATION: PlanHead = { hash: "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2", level: 1, timestamp: T1, endorsable: false };

/** The level-2 rights of the capture: each delegate's first priority. */
const level2 = bakingRights(
  {
    eras: init.protoContext.eras,
    constants: init.protoContext.constants,
    current: init.protoContext.level,
    timestamp: T1,
    source: S.contextRightsSource(init.protoContext),
    managerKey: (pkh) => S.findManagerKey(init.protoContext, pkh),
  },
  {},
);

test("holding every bootstrap key, the next block is baked at priority 0 by the captured first baker", () => {
  assert.equal((captured("/chains/main/blocks/head/helpers/baking_rights") as { priority: number }[]).map((r) => r.priority), [0, 2, 4, 6, 8]);
  const plan = planBlock({ context, head: ACTIVATION, keys: ALL, now: 0 });
  assert.is(plan.level.level, 2);
  assert.is(plan.priority, 0);
  assert.is(plan.baker.pkh, "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU");
});

test("holding one key, the block takes that delegate's best priority", () => {
  for (const right of level2) {
    const keys = new Map([[right.delegate, ALL.get(right.delegate)!]]);
    const plan = planBlock({ context, head: ACTIVATION, keys, now: 0 });
    assert.is(plan.priority, right.priority, right.delegate);
    assert.is(plan.baker.pkh, right.delegate);
  }
});

test("the activation block is not endorsed; its successor comes one second after it", () => {
  const plan = planBlock({ context, head: ACTIVATION, keys: ALL, now: 0 });
  assert.equal(plan.endorsements, []);
  assert.is(plan.endorsingPower, 0);
  // priority 0 without endorsements: the slow path, time_between_blocks[0] + 1 missing endorsement × 1 s
  assert.is(plan.minimalValidTime, T1 + 2);
  assert.is(plan.timestamp, T1 + 2);
});

test("an endorsable head gets the 256 slots of the held delegates, each delegate once with its captured slots", () => {
  const head: PlanHead = { ...ACTIVATION, endorsable: true };
  const plan = planBlock({ context, head, keys: ALL, now: 0 });
  assert.is(plan.endorsingPower, 256);
  const slots = (captured("/chains/main/blocks/head/helpers/endorsing_rights") as { slots: number[] }[]).map((r) => r.slots);
  assert.equal(plan.endorsements.map((e) => e.slots), slots);
  assert.is(new Set(plan.endorsements.map((e) => e.key.pkh)).size, 5);
  // fast path: priority 0 with at least 153 slots
  assert.is(plan.minimalValidTime, T1 + 1);
  assert.is(plan.timestamp, T1 + 1);
});

test("the timestamp is the wall clock when it is later than the minimal valid time", () => {
  const plan = planBlock({ context, head: { ...ACTIVATION, endorsable: true }, keys: ALL, now: T1 + 100 });
  assert.is(plan.timestamp, T1 + 100);
  assert.is(plan.minimalValidTime, T1 + 1);
});

test("with a part of the endorsers, the minimal valid time follows the slow path of the baker's priority", () => {
  const right = level2.find((r) => r.priority === 2)!;
  const keys = new Map([[right.delegate, ALL.get(right.delegate)!]]);
  const plan = planBlock({ context, head: { ...ACTIVATION, endorsable: true }, keys, now: 0 });
  assert.is(plan.priority, 2);
  assert.ok(plan.endorsingPower > 0 && plan.endorsingPower < 256);
  // [1, 0]: 1 s for the first step, 0 for the others; power ≥ initial_endorsers (1): no delay
  assert.is(plan.minimalValidTime, T1 + 1);
});

test("a level expecting a commitment is flagged; nothing to reveal in cycle 0", () => {
  const head: PlanHead = { hash: ACTIVATION.hash, level: 3, timestamp: T1 + 2, endorsable: true };
  const plan = planBlock({ context, head, keys: ALL, now: 0, nonce: () => new Uint8Array(32) });
  assert.equal(plan.level, { level: 4, level_position: 3, cycle: 0, cycle_position: 3, expected_commitment: true });
  assert.equal(plan.revelations, []);
  assert.is(plan.forgetBelow, 0);
});

test("in cycle 1 the baker reveals its unrevealed commitments of cycle 0, and only those", () => {
  const pc = S.ProtoContext.prepare(context, { level: 4, predecessorTimestamp: T1, timestamp: T1, fitness: 0n });
  const ours = new Uint8Array(32).fill(7);
  const theirs = new Uint8Array(32).fill(9);
  S.recordNonceHash(pc, { nonceHash: b58encode(B58.nonceHash, nonceHash(ours)), delegate: "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU", rewards: 0n, fees: 0n });
  pc.level = levelFromRaw(pc.eras, 8);
  S.recordNonceHash(pc, { nonceHash: b58encode(B58.nonceHash, nonceHash(theirs)), delegate: "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU", rewards: 0n, fees: 0n });
  const known = new Map([[`4:${b58encode(B58.nonceHash, nonceHash(ours))}`, ours]]);
  const nonce = (level: number, hash: Uint8Array) => known.get(`${level}:${b58encode(B58.nonceHash, hash)}`);
  const head: PlanHead = { hash: ACTIVATION.hash, level: 8, timestamp: T1 + 7, endorsable: true };
  const plan = planBlock({ context: pc.context, head, keys: ALL, now: 0, nonce });
  assert.is(plan.level.cycle, 1);
  assert.equal(plan.revelations, [{ level: 4, nonce: ours }]);
  assert.is(plan.forgetBelow, 1);
  // once revealed, it is not revealed again
  const pc9 = S.ProtoContext.prepare(pc.context, { level: 9, predecessorTimestamp: T1, timestamp: T1, fitness: 0n });
  S.revealNonce(pc9, levelFromRaw(pc9.eras, 4), ours);
  assert.equal(planBlock({ context: pc9.context, head, keys: ALL, now: 0, nonce }).revelations, []);
});

test("keys without rights within maxPriority, or no key at all, raise NoBakingRights", () => {
  const right = level2.find((r) => r.priority === 8)!;
  const keys = new Map([[right.delegate, ALL.get(right.delegate)!]]);
  throwsA(() => planBlock({ context, head: ACTIVATION, keys, now: 0, maxPriority: 7 }), NoBakingRights);
  throwsA(() => planBlock({ context, head: ACTIVATION, keys: new Map(), now: 0 }), NoBakingRights);
  throwsA(() => planBlock({ context, head: ACTIVATION, keys: ALL, now: 0, maxPriority: MAX_PRIORITY + 1 }), RangeError);
  throwsA(() => planBlock({ context, head: ACTIVATION, keys: ALL, now: 1.5 }), TypeError);
});

test.run();
