/**
 * The baker's modes on a real chain: `auto` bakes the start-up blocks and one block per
 * notification, `interval` one block per timer tick (fake timers: the test fires them), `manual`
 * nothing by itself. Every wait is on a promise the baker resolves (its `baked` watcher), never
 * on time.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { AUTO_MAX_LEAD_SECONDS, AUTO_START_LEVEL, createBaker } from "../../lib/baker/baker.ts";
import { FakeTimers, next } from "./fake-timers.ts";
import { bootstrapSecretKeys } from "../../lib/baker/keys.ts";
import { ACTIVATION_TIME, openSandbox } from "./sandbox.ts";

const now = () => ACTIVATION_TIME * 1000;

test("auto mode bakes a fresh sandbox up to level 3 at start, then nothing until notified", async () => {
  const sb = await openSandbox();
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), now, onError: (e) => assert.unreachable(String(e)) });
  try {
    assert.equal(baker.mode, { mode: "auto" });
    await baker.start();
    assert.is(AUTO_START_LEVEL, 3);
    assert.is(sb.chain.head.header.level, 3);
    await baker.start(); // already started: nothing more
    assert.is(sb.chain.head.header.level, 3);
    const sub = baker.baked.subscribe();
    baker.notify();
    baker.notify(); // coalesced with the first
    assert.is((await next(sub)).level, 4);
    // Jobs run in order: a request now gets level 5 only if no other bake was queued.
    assert.is((await baker.bakeBlock()).level, 5);
    assert.is((await next(sub)).level, 5);
    await baker.stop();
    assert.is(sb.chain.head.header.level, 5);
    await sub.return!();
  } finally {
    await baker.stop();
    await sb.close();
  }
});

test("auto mode on a chain activated after the start bakes the start-up blocks when the activation arrives", async () => {
  const sb = await openSandbox({ activate: false });
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), now, onError: (e) => assert.unreachable(String(e)) });
  try {
    const sub = baker.baked.subscribe();
    await baker.start();
    assert.is(sb.chain.head.header.level, 0);
    await sb.activate();
    assert.is((await next(sub)).level, 2);
    assert.is((await next(sub)).level, 3);
    await baker.stop();
    assert.is(sb.chain.head.header.level, 3);
  } finally {
    await baker.stop();
    await sb.close();
  }
});

test("an auto baker does not bake on notifications before start or after stop", async () => {
  const sb = await openSandbox();
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), now });
  try {
    baker.notify();
    await baker.stop();
    assert.is(sb.chain.head.header.level, 1);
    await baker.start();
    await baker.stop();
    baker.notify();
    await baker.stop();
    assert.is(sb.chain.head.header.level, 3);
  } finally {
    await sb.close();
  }
});

test("auto mode lets block timestamps run at most its lead ahead of the clock, then bakes at the clock's pace", async () => {
  const sb = await openSandbox();
  const timers = new FakeTimers();
  let t = now();
  const clock = () => t;
  const LEAD = 8;
  assert.is(AUTO_MAX_LEAD_SECONDS, 600);
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), now: clock, timers, maxLeadSeconds: LEAD, onError: (e) => assert.unreachable(String(e)) });
  try {
    await baker.start();
    const sub = baker.baked.subscribe();
    // the start-up blocks end 3 s ahead; each block at least a second after the last
    assert.is(sb.chain.head.header.timestamp - t / 1000, 3);
    for (let ahead = 4; ahead <= LEAD; ahead++) {
      baker.notify();
      assert.is((await next(sub)).timestamp - t / 1000, ahead);
    }
    // one more second ahead would be too far: the baker waits for the clock
    const level = sb.chain.head.header.level;
    baker.notify();
    assert.is((await timers.armed()).ms, 1000);
    assert.is(sb.chain.head.header.level, level);
    t += 1000;
    timers.fire();
    assert.is((await next(sub)).timestamp - t / 1000, LEAD);
    assert.is(sb.chain.head.header.level, level + 1);
    await sub.return!();
  } finally {
    await baker.stop();
    await sb.close();
  }
});

test("interval mode bakes one block per tick of its timer and stops cleanly", async () => {
  const sb = await openSandbox();
  const timers = new FakeTimers();
  let t = now();
  const clock = () => t;
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), now: clock, mode: "interval:2", timers, onError: (e) => assert.unreachable(String(e)) });
  try {
    const sub = baker.baked.subscribe();
    await baker.start();
    assert.is(sb.chain.head.header.level, 3, "started at level 3, as every fresh sandbox");
    await next(sub);
    await next(sub);
    for (const level of [4, 5, 6]) {
      assert.is((await timers.armed()).ms, 2000);
      t += 2000;
      timers.fire();
      assert.is((await next(sub)).level, level);
    }
    await timers.armed(); // the next tick is scheduled after each block
    await baker.stop();
    assert.is(timers.pending.size, 0, "stop cancels the next tick");
    assert.is(sb.chain.head.header.level, 6);
    await sub.return!();
  } finally {
    await baker.stop();
    await sb.close();
  }
});

test("interval mode keeps its marks: a bake that runs past the next mark is followed at once, then the marks resume", async () => {
  const sb = await openSandbox();
  const timers = new FakeTimers();
  const start = now();
  let t = start;
  const clock = () => t;
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), now: clock, mode: "interval:2", timers, onError: (e) => assert.unreachable(String(e)) });
  try {
    const sub = baker.baked.subscribe();
    await baker.start();
    await next(sub);
    await next(sub);
    assert.is((await timers.armed()).ms, 2000); // mark start + 2 s
    t = start + 2000;
    timers.fire();
    await next(sub);
    assert.is((await timers.armed()).ms, 2000); // mark start + 4 s
    t = start + 4000;
    timers.fire();
    t = start + 9000; // that bake ends 5 s later: marks 6 s and 8 s are past
    await next(sub);
    assert.is((await timers.armed()).ms, 0, "the latest missed mark (8 s) is baked at once");
    timers.fire();
    t = start + 9500;
    await next(sub);
    assert.is((await timers.armed()).ms, 500, "then the mark of 10 s, not 9.5 + 2 s");
    t = start + 10_000;
    timers.fire();
    await next(sub);
    assert.is((await timers.armed()).ms, 2000);
    await sub.return!();
  } finally {
    await baker.stop();
    await sb.close();
  }
});

test("interval mode skips ticks while the protocol is not activated, and bakes once it is", async () => {
  const sb = await openSandbox({ activate: false });
  const timers = new FakeTimers();
  const errors: unknown[] = [];
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), now, mode: { mode: "interval", seconds: 1 }, timers, onError: (e) => errors.push(e) });
  try {
    const sub = baker.baked.subscribe();
    await baker.start();
    await timers.armed();
    timers.fire();
    await timers.armed(); // rescheduled after the skipped tick
    assert.is(sb.chain.head.header.level, 0);
    await sb.activate();
    timers.fire();
    assert.is((await next(sub)).level, 2);
    assert.equal(errors, []);
    await sub.return!();
  } finally {
    await baker.stop();
    await sb.close();
  }
});

test("manual mode bakes only on request, once the chain is at level 3", async () => {
  const sb = await openSandbox();
  const timers = new FakeTimers();
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), now, mode: "manual", timers });
  try {
    await baker.start();
    baker.notify();
    await baker.stop();
    assert.is(timers.pending.size, 0);
    assert.is(sb.chain.head.header.level, 3);
    assert.is((await baker.bakeBlock()).level, 4);
  } finally {
    await sb.close();
  }
});

test("createBaker() refuses bad options", () => {
  const fake = {} as never;
  for (const [opts, kind] of [
    [{ chain: fake, validator: fake, keys: [] }, RangeError],
    [{ chain: fake, validator: fake, keys: "edsk" as never }, TypeError],
    [{ chain: fake, validator: fake, keys: [{} as never] }, TypeError],
    [{ chain: fake, validator: fake, keys: bootstrapSecretKeys(), mode: "sometimes" }, RangeError],
    [{ chain: undefined as never, validator: fake, keys: bootstrapSecretKeys() }, TypeError],
  ] as const) {
    try {
      createBaker(opts as never);
      assert.unreachable("accepted");
    } catch (e) {
      assert.instance(e, kind);
    }
  }
});

test.run();
