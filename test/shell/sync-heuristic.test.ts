/**
 * The synchronisation heuristic against Octez v12's own cases (`test_synchronisation_heuristic.ml`
 * at v12.4): each case below is one of those tests, the same thresholds, latencies, timestamps
 * (seconds before the clock) and peers, and the same expected status after each step. Octez's
 * tests read the wall clock; here the clock is fixed, so "now" is exact.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createSyncHeuristic, reportSyncEvents, type SyncEvent, type SyncState, type SyncStatus } from "../../lib/shell/sync-heuristic.ts";

const NOW_S = 1_600_000_000;
const now = () => NOW_S * 1000 + 999; // the heuristic works in whole seconds, as Octez's protocol time

/** One candidate: `ago` seconds before now (0 by default), from a named peer or a new one each time. */
interface Step {
  readonly ago?: number;
  readonly at?: number;
  readonly peer?: string;
  readonly expect?: SyncStatus;
}

interface Case {
  readonly name: string;
  readonly threshold: number;
  readonly latency: number;
  readonly initial: SyncStatus;
  readonly steps: readonly Step[];
}

const PAST = NOW_S - 3 * 120;

const CASES: readonly Case[] = [
  {
    name: "a negative threshold is never in step",
    threshold: -1, latency: 120, initial: "unsynced",
    steps: [{ expect: "unsynced" }, {}, {}, { expect: "unsynced" }],
  },
  {
    name: "a threshold of 0 is always in step",
    threshold: 0, latency: 120, initial: "synced",
    steps: [{ expect: "synced" }, {}, {}, { expect: "synced" }],
  },
  {
    name: "threshold 1: one recent block from anyone is enough, and more keep it so",
    threshold: 1, latency: 120, initial: "unsynced",
    steps: [{ expect: "synced" }, {}, { expect: "synced" }, { expect: "synced" }, {}, { expect: "synced" }],
  },
  {
    name: "threshold 1: the same peer's older blocks do not undo a recent one",
    threshold: 1, latency: 120, initial: "unsynced",
    steps: [{ peer: "a", expect: "synced" }, { peer: "a", ago: 240, expect: "synced" }, { peer: "a", ago: 1200, expect: "synced" }],
  },
  {
    name: "threshold 1: blocks older than the latency are not enough (and never stuck)",
    threshold: 1, latency: 120, initial: "unsynced",
    steps: [{ ago: 240, expect: "unsynced" }, { ago: 1200, expect: "unsynced" }],
  },
  {
    name: "threshold 1: other peers' older blocks do not undo a recent one",
    threshold: 1, latency: 120, initial: "unsynced",
    steps: [{ expect: "synced" }, { ago: 240, expect: "synced" }, { ago: 240, expect: "synced" }, { ago: 1200, expect: "synced" }],
  },
  {
    name: "threshold 2: two peers with recent blocks; older blocks later change nothing",
    threshold: 2, latency: 120, initial: "unsynced",
    steps: [
      { peer: "a", expect: "unsynced" },
      { expect: "synced" },
      { ago: 240 },
      { peer: "a", ago: 240 },
      { ago: 1200, expect: "synced" },
    ],
  },
  {
    name: "threshold 2: a peer with an old block counts once it shows a recent one",
    threshold: 2, latency: 120, initial: "unsynced",
    steps: [{ expect: "unsynced" }, { peer: "b", ago: 240, expect: "unsynced" }, { peer: "b", expect: "synced" }],
  },
  {
    name: "threshold 2: one peer twice is still one peer",
    threshold: 2, latency: 120, initial: "unsynced",
    steps: [{ peer: "a", ago: 3, expect: "unsynced" }, { peer: "a", ago: 1, expect: "unsynced" }],
  },
  {
    name: "threshold 2: two peers on the same old block are stuck, until a newer old block",
    threshold: 2, latency: 120, initial: "unsynced",
    steps: [{ at: PAST, expect: "unsynced" }, { at: PAST, expect: "stuck" }, { ago: 240, expect: "unsynced" }],
  },
  {
    name: "threshold 3: three peers with recent blocks",
    threshold: 3, latency: 120, initial: "unsynced",
    steps: [{ expect: "unsynced" }, { expect: "unsynced" }, { expect: "synced" }],
  },
  {
    name: "threshold 3: stuck on one old block, then in step once all three move on",
    threshold: 3, latency: 120, initial: "unsynced",
    steps: [
      { peer: "p1", at: NOW_S - 240, expect: "unsynced" },
      { peer: "p2", ago: 240, expect: "unsynced" },
      { peer: "p3", at: NOW_S - 240, expect: "stuck" },
      { peer: "p1", expect: "unsynced" },
      { peer: "p2", expect: "unsynced" },
      { peer: "p3", expect: "synced" },
    ],
  },
  {
    name: "threshold 3: the case a random search once found against an earlier version",
    threshold: 3, latency: 100, initial: "unsynced",
    steps: [
      { peer: "p9", ago: 279 },
      { peer: "fresh", ago: 273 },
      { peer: "p2", ago: 200 },
      { peer: "p9", ago: 123 },
      { peer: "p7", ago: 162 },
      { peer: "p8", ago: 50, expect: "unsynced" },
    ],
  },
];

for (const c of CASES) {
  test(`Octez case: ${c.name}`, () => {
    const sync = createSyncHeuristic({ threshold: c.threshold, latency: c.latency, now });
    assert.is(sync.status(), c.initial);
    let fresh = 0;
    c.steps.forEach((s, i) => {
      const timestamp = s.at ?? NOW_S - (s.ago ?? 0);
      sync.update({ timestamp, peerId: s.peer ?? `fresh-${fresh++}` });
      if (s.expect !== undefined) assert.is(sync.status(), s.expect, `after step ${i + 1}`);
    });
  });
}

test("Octez: the status changes are told in order (threshold 3, stuck then in step)", () => {
  const sync = createSyncHeuristic({ threshold: 3, latency: 120, now });
  const told: SyncState[] = [];
  sync.onChange((s) => told.push(s));
  sync.update({ timestamp: NOW_S - 240, peerId: "p1" });
  sync.update({ timestamp: NOW_S - 240, peerId: "p2" });
  assert.equal(told, [], "no change yet");
  sync.update({ timestamp: NOW_S - 240, peerId: "p3" });
  sync.update({ timestamp: NOW_S, peerId: "p1" });
  sync.update({ timestamp: NOW_S, peerId: "p2" });
  sync.update({ timestamp: NOW_S, peerId: "p3" });
  // Octez also calls its callback once at activation (with Not_synchronised): 4 calls there.
  assert.equal(told, [
    { status: "stuck", bootstrapped: true },
    { status: "unsynced", bootstrapped: true },
    { status: "synced", bootstrapped: true },
  ]);
  assert.ok(sync.isBootstrapped(), "a stuck chain bootstraps the node, and it stays bootstrapped");
});

test("Octez: a threshold of 0 is bootstrapped at creation; 1 is not until a candidate or a force", async () => {
  const zero = createSyncHeuristic({ threshold: 0, latency: 100, now });
  assert.ok(zero.isBootstrapped());
  await zero.bootstrapped(); // resolved already
  const one = createSyncHeuristic({ threshold: 1, latency: 100, now });
  assert.not.ok(one.isBootstrapped());
  let resolved = false;
  const waiting = one.bootstrapped().then(() => (resolved = true));
  await Promise.resolve();
  assert.not.ok(resolved, "still waiting");
  one.forceBootstrapped(true);
  await waiting;
  assert.ok(one.isBootstrapped());
});

test("Octez: forcing the flag tells the listeners only of changes; it can be cleared", () => {
  const sync = createSyncHeuristic({ threshold: 1, latency: 100, now });
  const told: boolean[] = [];
  sync.onChange((s) => told.push(s.bootstrapped));
  sync.forceBootstrapped(false); // unchanged
  assert.equal(told, []);
  sync.forceBootstrapped(true);
  sync.forceBootstrapped(false);
  assert.equal(told, [true, false]);
  assert.not.ok(sync.isBootstrapped());
  sync.update({ timestamp: NOW_S, peerId: "a" });
  assert.ok(sync.isBootstrapped(), "in step again: bootstrapped again");
  assert.equal(told, [true, false, true]);
});

test("the bootstrapped flag stays set when the peers fall behind", () => {
  const sync = createSyncHeuristic({ threshold: 2, latency: 150, now });
  sync.update({ timestamp: NOW_S, peerId: "a" });
  sync.update({ timestamp: NOW_S - 10, peerId: "b" });
  assert.is(sync.status(), "synced");
  // Time passes: the status is only recomputed on a candidate (as Octez); an old one makes it unsynced.
  const later = createSyncHeuristic({ threshold: 2, latency: 150, now: () => (NOW_S + 1000) * 1000 });
  later.update({ timestamp: NOW_S, peerId: "a" });
  later.update({ timestamp: NOW_S - 10, peerId: "b" });
  assert.is(later.status(), "unsynced");
  assert.not.ok(later.isBootstrapped());
  assert.ok(sync.isBootstrapped());
  sync.update({ timestamp: NOW_S - 5000, peerId: "c" }); // older than every kept block: ignored
  assert.is(sync.status(), "synced");
});

test("waiting for bootstrapped can be abandoned; an abandoned wait is dropped", async () => {
  const sync = createSyncHeuristic({ threshold: 1, latency: 100, now });
  const ac = new AbortController();
  const waiting = sync.bootstrapped(ac.signal);
  ac.abort(new Error("client gone"));
  await waiting.then(
    () => assert.unreachable("resolved"),
    (e: Error) => assert.is(e.message, "client gone"),
  );
  await sync.bootstrapped(AbortSignal.abort()).then(
    () => assert.unreachable("resolved"),
    () => {},
  );
  sync.update({ timestamp: NOW_S, peerId: "a" });
  await sync.bootstrapped(ac.signal); // bootstrapped: resolves whatever the signal
});

test("a listener's error does not stop the update nor the other listeners; unsubscribing works", () => {
  const errors: unknown[] = [];
  const sync = createSyncHeuristic({ threshold: 1, latency: 100, now, onError: (e) => errors.push(e) });
  const told: string[] = [];
  sync.onChange(() => {
    throw new Error("broken listener");
  });
  const off = sync.onChange((s) => told.push(s.status));
  sync.update({ timestamp: NOW_S, peerId: "a" });
  assert.equal(told, ["synced"]);
  assert.is(errors.length, 1);
  off();
  sync.forceBootstrapped(false);
  assert.equal(told, ["synced"]);
});

test("the chain validator's log: activation, then each status change before the flag it sets, as Octez's Bootstrapping", () => {
  const events: SyncEvent[] = [];
  const sync = createSyncHeuristic({ threshold: 2, latency: 120, now });
  const stop = reportSyncEvents(sync, (e) => events.push(e));
  assert.equal(events, [{ kind: "sync_status", sync_status: "unsynced" }]);
  sync.update({ timestamp: NOW_S - 240, peerId: "a" });
  assert.is(events.length, 1, "no change, nothing logged");
  sync.update({ timestamp: NOW_S - 240, peerId: "b" });
  sync.update({ timestamp: NOW_S, peerId: "a" });
  sync.update({ timestamp: NOW_S, peerId: "b" });
  assert.equal(events.slice(1), [
    { kind: "sync_status", sync_status: "stuck" },
    { kind: "bootstrapped" },
    { kind: "sync_status", sync_status: "unsynced" },
    { kind: "sync_status", sync_status: "synced" },
  ]);
  stop();
  sync.forceBootstrapped(false);
  assert.is(events.length, 5, "stopped");
  const zero: SyncEvent[] = [];
  reportSyncEvents(createSyncHeuristic({ threshold: 0, latency: 120, now }), (e) => zero.push(e));
  assert.equal(zero, [{ kind: "bootstrapped" }, { kind: "sync_status", sync_status: "synced" }], "Octez's activation order");
});

test("bad candidates and options are refused and change nothing", () => {
  const sync = createSyncHeuristic({ threshold: 1, latency: 100, now });
  assert.throws(() => sync.update({ timestamp: 1.5, peerId: "a" }), /whole number of seconds/);
  assert.throws(() => sync.update({ timestamp: Number.NaN, peerId: "a" }), /whole number of seconds/);
  assert.throws(() => sync.update({ timestamp: NOW_S, peerId: "" }), /peer id/);
  assert.throws(() => sync.update(null as never), /object/);
  assert.is(sync.status(), "unsynced");
  assert.throws(() => sync.forceBootstrapped("yes" as never), /true or false/);
  assert.throws(() => createSyncHeuristic({ threshold: 1.5, latency: 1 }), /threshold/);
  assert.throws(() => createSyncHeuristic({ threshold: 1, latency: Number.POSITIVE_INFINITY }), /latency/);
});

test.run();
