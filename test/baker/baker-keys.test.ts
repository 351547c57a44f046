/**
 * A baker holding some of the bootstrap keys (`--baker-keys`): it bakes only at its delegates'
 * slots and endorses only with them; in `auto` and `interval` modes it waits for a slot of
 * priority above 0 until that priority's time, and plans again when another baker's block arrives
 * meanwhile; in `manual` mode it bakes at once. The sandbox's rights for the first levels (the
 * same on every branch: the seeds of cycles 0 to 2 are the initial ones) put bootstrap2
 * (tz1gjaF8…) at priority 6 at level 2, 7 at level 3, 1 at level 4 and 1 at level 6, and
 * bootstrap1 at priority 2 at level 5. Time is a fake clock and fake timers: no waiting.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createBaker } from "../../lib/baker/baker.ts";
import { FakeTimers, next } from "./fake-timers.ts";
import { BOOTSTRAP_NAMES, selectBootstrapKeys } from "../../lib/baker/keys.ts";
import { levelFromRaw } from "../../lib/protocols/hangzhou/level.ts";
import { bakingPriorities, endorsementRights } from "../../lib/protocols/hangzhou/rights.ts";
import { contextRightsSource } from "../../lib/protocols/hangzhou/storage/rights-source.ts";
import { formatPublicKeyHash, publicKeyHash } from "../../lib/crypto/keys.ts";
import { ACTIVATION_TIME, openSandbox, protoContextOf, type Sandbox } from "./sandbox.ts";

const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const BOOTSTRAP2 = "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN";
const BOOTSTRAP3 = "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU";

/** The first priority at which `pkh` bakes the level after `block` (the rights on its context). */
function firstPriority(sb: Sandbox, blockHash: string, pkh: string): number {
  const block = sb.chain.block(blockHash)!;
  const pc = protoContextOf(sb.chain, block, block.header.level + 1);
  const owners = bakingPriorities(contextRightsSource(pc), pc.level);
  for (let p = 0; ; p++) if (formatPublicKeyHash(publicKeyHash(owners.next().value)) === pkh) return p;
}

/** `pkh`'s endorsement slots at `block`'s level. */
function slotsAt(sb: Sandbox, blockHash: string, pkh: string): number {
  const block = sb.chain.block(blockHash)!;
  const pc = protoContextOf(sb.chain, block, block.header.level + 1);
  const rights = endorsementRights(contextRightsSource(pc), levelFromRaw(pc.eras, block.header.level), 256);
  return rights.get(pkh)?.slots.length ?? 0;
}

test("selectBootstrapKeys reads names and addresses, keeps each key once, and names an unknown one", () => {
  assert.equal(BOOTSTRAP_NAMES, ["bootstrap1", "bootstrap2", "bootstrap3", "bootstrap4", "bootstrap5"]);
  assert.is(selectBootstrapKeys().length, 5);
  const two = selectBootstrapKeys(["bootstrap2", BOOTSTRAP3, "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN"]);
  assert.is(two.length, 2);
  assert.equal(two, [selectBootstrapKeys()[1], selectBootstrapKeys()[2]]);
  assert.throws(() => selectBootstrapKeys(["bootstrap2", "bootstrap6"]), /Unknown baker key "bootstrap6": expected bootstrap1, bootstrap2, bootstrap3, bootstrap4, bootstrap5 or one of their tz1 addresses/);
  assert.throws(() => selectBootstrapKeys(["tz1burnburnburnburnburnburnburjAYjjX"]), /Unknown baker key "tz1burn/);
  assert.throws(() => selectBootstrapKeys(["Bootstrap1"]), /Unknown baker key "Bootstrap1"/);
  assert.throws(() => selectBootstrapKeys([]), /at least one key/);
  assert.throws(() => selectBootstrapKeys([42 as never]), /Unknown baker key 42/);
  assert.throws(() => selectBootstrapKeys("bootstrap1" as never), /must be a list/);
});

test("manual mode with bootstrap2 alone: every block is bootstrap2's, at its first priority, with its endorsements only", async () => {
  const sb = await openSandbox();
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: selectBootstrapKeys(["bootstrap2"]), mode: "manual", now: () => ACTIVATION_TIME * 1000 });
  try {
    const sub = baker.baked.subscribe();
    await baker.start(); // the start-up blocks, at once in manual mode
    const b2 = await next(sub);
    const b3 = await next(sub);
    const b4 = await baker.bakeBlock();
    assert.equal([b2, b3, b4].map((b) => [b.level, b.baker, b.priority]), [
      [2, BOOTSTRAP2, 6],
      [3, BOOTSTRAP2, 7],
      [4, BOOTSTRAP2, 1],
    ]);
    for (const b of [b2, b3, b4]) {
      const pred = sb.chain.block(b.hash)!.header.predecessor;
      assert.is(b.priority, firstPriority(sb, pred, BOOTSTRAP2), `level ${b.level}: the rights agree`);
    }
    assert.is(b2.endorsingPower, 0, "nothing endorses the activation block");
    for (const b of [b3, b4]) {
      const pred = sb.chain.block(b.hash)!.header.predecessor;
      const own = slotsAt(sb, pred, BOOTSTRAP2);
      assert.ok(own > 0 && own < 256);
      assert.is(b.endorsingPower, own, `level ${b.level}: bootstrap2's slots only`);
    }
    await sub.return!();
  } finally {
    await baker.stop();
    await sb.close();
  }
});

test("auto mode with bootstrap2 alone waits for each of its slots above priority 0, then bakes at that time", async () => {
  const sb = await openSandbox();
  const timers = new FakeTimers();
  let t = ACTIVATION_TIME * 1000;
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: selectBootstrapKeys(["bootstrap2"]), now: () => t, timers, onError: (e) => assert.unreachable(String(e)) });
  try {
    const sub = baker.baked.subscribe();
    await baker.start();
    assert.is(sb.chain.head.header.level, 1, "level 2 is bootstrap2's at priority 6 only: not yet");
    // priority 6 after the activation: 1 s (time_between_blocks) + 1 s for the missing endorsement
    assert.is((await timers.armed()).ms, 2000);
    t += 1999;
    timers.fire(); // a timer that fires early: planned again, not baked
    assert.is((await timers.armed()).ms, 1);
    assert.is(sb.chain.head.header.level, 1);
    t += 1;
    timers.fire();
    const b2 = await next(sub);
    assert.equal([b2.level, b2.priority, b2.baker, b2.timestamp], [2, 6, BOOTSTRAP2, ACTIVATION_TIME + 2]);
    // level 3 (priority 7), a second later: the start-up blocks go on in turn
    assert.is((await timers.armed()).ms, 1000);
    t += 1000;
    timers.fire();
    const b3 = await next(sub);
    assert.equal([b3.level, b3.priority, b3.timestamp], [3, 7, ACTIVATION_TIME + 3]);
    assert.is(timers.pending.size, 0, "start-up done: idle");
    // an operation waits: level 4 is bootstrap2's at priority 1, a second after level 3
    baker.notify();
    assert.is((await timers.armed()).ms, 1000);
    t += 1000;
    timers.fire();
    const b4 = await next(sub);
    assert.equal([b4.level, b4.priority, b4.timestamp], [4, 1, ACTIVATION_TIME + 4]);
    await sub.return!();
  } finally {
    await baker.stop();
    await sb.close();
  }
});

test("a waiting baker plans again on another baker's block: bootstrap1 takes level 5, bootstrap2 bakes level 6 on it", async () => {
  const sb = await openSandbox();
  const timers = new FakeTimers();
  let t = ACTIVATION_TIME * 1000;
  const clock = () => t;
  const mine = createBaker({ chain: sb.chain, validator: sb.validator, keys: selectBootstrapKeys(["bootstrap2"]), now: clock, timers, onError: (e) => assert.unreachable(String(e)) });
  const theirs = createBaker({ chain: sb.chain, validator: sb.validator, keys: selectBootstrapKeys(["bootstrap1"]), now: clock, mode: "manual" });
  try {
    await theirs.start(); // levels 2 and 3 (bootstrap1's priorities 4 and 0)
    await theirs.bake(); // level 4
    t = sb.chain.head.header.timestamp * 1000; // the clock at level 4's time: level 5's slots are a second later
    const sub = mine.baked.subscribe();
    await mine.start(); // past level 3: nothing to top up
    mine.notify();
    const level5 = firstPriority(sb, sb.chain.head.hash, BOOTSTRAP2);
    assert.ok(level5 > 2, `bootstrap2 bakes level 5 only after bootstrap1 (priority ${level5})`);
    assert.is((await timers.armed()).ms, 1000, "waiting for its slot");
    assert.is(firstPriority(sb, sb.chain.head.hash, BOOTSTRAP1), 2);
    const theirs5 = await theirs.bakeBlock();
    assert.equal([theirs5.level, theirs5.baker, theirs5.priority], [5, BOOTSTRAP1, 2]);
    // the slot of level 5 is moot: a new wait, for bootstrap2's priority 1 at level 6 on that block
    const b6 = next(sub);
    const again = await timers.armed();
    assert.is(again.ms, (theirs5.timestamp + 1) * 1000 - t);
    t = (theirs5.timestamp + 1) * 1000;
    timers.fire();
    const mine6 = await b6;
    assert.equal([mine6.level, mine6.baker, mine6.priority], [6, BOOTSTRAP2, 1]);
    assert.is(sb.chain.block(mine6.hash)!.header.predecessor, theirs5.hash);
    await sub.return!();
  } finally {
    await mine.stop();
    await theirs.stop();
    await sb.close();
  }
});

test("with every bootstrap key the baker never waits: priority 0 at every level, ahead of the clock if need be", async () => {
  const sb = await openSandbox();
  const timers = new FakeTimers();
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: selectBootstrapKeys(), now: () => ACTIVATION_TIME * 1000, timers, onError: (e) => assert.unreachable(String(e)) });
  try {
    const sub = baker.baked.subscribe();
    await baker.start();
    const startUp = [await next(sub), await next(sub)];
    assert.equal(startUp.map((b) => [b.level, b.priority, b.timestamp]), [[2, 0, ACTIVATION_TIME + 2], [3, 0, ACTIVATION_TIME + 3]]);
    for (const level of [4, 5, 6]) {
      baker.notify();
      const b = await next(sub);
      assert.equal([b.level, b.priority, b.timestamp], [level, 0, ACTIVATION_TIME + level], "ahead of the fixed clock, at once");
    }
    assert.is(timers.pending.size, 0);
    await sub.return!();
  } finally {
    await baker.stop();
    await sb.close();
  }
});

test.run();
