import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { collectContext, startContextCollection } from "../../lib/store/context/gc.ts";
import { sweepMarkerKey } from "../../lib/store/context/guard.ts";
import { nodeKey } from "../../lib/store/context/loader.ts";
import { checkout, commit, ContextCorruptionError, emptyContext } from "../../lib/store/context/mod.ts";
import { hashId } from "../../lib/store/context/node.ts";
import type { KeyValueStore, WriteOp } from "../../lib/store/kv.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";
import { buildHistory, commitRows, leavesOf, nodeRows, reachable, stateAt, utf8 } from "./context-gc-helpers.ts";

const test = suite("context garbage collection");
const dirs: string[] = [];
test.after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** The two stores the collection runs on in these tests. */
const stores: [string, () => Promise<KeyValueStore>][] = [
  ["memory", async () => new MemoryStore()],
  ["LMDB", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tezos-context-gc-"));
    dirs.push(dir);
    return openLmdbStore(dir);
  }],
];

/** Counts the store's writes and the deletes in each. */
function counting(store: KeyValueStore): { store: KeyValueStore; writes: WriteOp[][] } {
  const writes: WriteOp[][] = [];
  const wrapped: KeyValueStore = {
    get: (k) => store.get(k),
    range: (o) => store.range(o),
    write: (ops) => {
      writes.push([...ops]);
      return store.write(ops);
    },
    close: () => store.close(),
  };
  return { store: wrapped, writes };
}

for (const [name, open] of stores) {
  test(`${name}: kept commits check out whole, every other node and commit is gone, shared nodes stay`, async () => {
    const base = await open();
    const hashes = await buildHistory(base, 8);
    const keep = [hashes[2]!, hashes[5]!, hashes[7]!];
    const before = new Map(hashes.map((h) => [hashId(h), leavesOf(base, h)]));
    const keptNodes = reachable(base, keep);
    const dropped = reachable(base, [hashes[0]!, hashes[1]!, hashes[3]!, hashes[4]!, hashes[6]!]);
    const shared = [...dropped].filter((id) => keptNodes.has(id));
    const onlyDropped = [...dropped].filter((id) => !keptNodes.has(id));
    assert.ok(shared.length > 0 && onlyDropped.length > 0, "the history shares nodes between kept and dropped commits");
    const rowsBefore = nodeRows(base).size;

    const { store, writes } = counting(base);
    const gc = startContextCollection(store, keep, { stepNodes: 7 });
    let steps = 0;
    while (!(await gc.step())) steps++;
    assert.ok(steps > 10, "many bounded steps");
    for (const ops of writes) assert.ok(ops.filter((o) => o.value === undefined).length <= 8, "at most stepNodes deletes (+ the marker) per write");
    assert.is(writes.length <= gc.stats.steps, true);

    assert.equal(nodeRows(base), keptNodes);
    assert.equal(commitRows(base), new Set(keep.map(hashId)));
    assert.is(gc.stats.deletedNodes, rowsBefore - keptNodes.size);
    assert.is(gc.stats.deletedCommits, 5);
    assert.is(gc.stats.marked, keptNodes.size);
    assert.is(gc.stats.phase, "done");
    for (const h of keep) assert.equal(leavesOf(base, h), before.get(hashId(h)));
    for (const h of [hashes[0]!, hashes[6]!]) assert.is(checkout(base, h), undefined);
    assert.is(base.get(sweepMarkerKey), undefined);
    // A kept commit still grows a chain: the next commit on it checks out whole.
    const next = commit(stateAt(checkout(base, hashes[7]!)!, 8), { parents: [hashes[7]!], time: 2000, message: "" });
    await base.write(next.ops);
    assert.equal(leavesOf(base, next.hash), [...stateAt(checkout(base, hashes[7]!)!, 8).leaves()]);
    await base.close();
  });

  test(`${name}: commits made between steps survive, one recreating an old unreachable subtree while deletes are in flight`, async () => {
    const store = await open();
    const hashes = await buildHistory(store, 8);
    const head = hashes[7]!;
    const headLeaves = leavesOf(store, head);
    // Computed before the collection starts, written once it is deleting commits.
    const early = commit(checkout(store, head)!.set(["early"], new Uint8Array(64).fill(9)), { parents: [head], time: 3000, message: "early" });
    const earlyLeaves = [...checkout(store, head)!.set(["early"], new Uint8Array(64).fill(9)).leaves()];

    const gc = startContextCollection(store, [head], { stepNodes: 5 });
    await gc.step();
    assert.is(gc.stats.phase, "mark");
    // Made while marking.
    const duringMark = stateAt(checkout(store, head)!, 9).set(["mark"], new Uint8Array(50).fill(1));
    const d1 = commit(duringMark, { parents: [head], time: 3001, message: "d1" });
    await store.write(d1.ops);
    while (gc.stats.phase === "mark") await gc.step();
    await store.write(early.ops);
    while (gc.stats.phase === "commits") await gc.step();
    assert.is(gc.stats.phase, "nodes");
    // Level 1's whole state, unreachable from the head, rebuilt on top of d1 while a delete
    // batch is in flight: commit finds its nodes still stored and must write them again.
    const step = gc.step();
    let old = checkout(store, d1.hash)!.remove([]);
    old = stateAt(stateAt(old, 0), 1);
    const present = [...nodeRows(store)];
    const d2 = commit(old, { parents: [d1.hash], time: 3002, message: "d2" });
    const rewritten = d2.ops.filter((o) => o.key[0] === 1 && present.includes(hashId(o.key.subarray(1))));
    assert.ok(rewritten.length > 0, "d2 rewrites stored nodes that the collection does not keep");
    await store.write(d2.ops);
    await step;
    while (!(await gc.step()));

    assert.equal(leavesOf(store, head), headLeaves);
    assert.equal(leavesOf(store, d1.hash), [...duringMark.leaves()]);
    assert.equal(leavesOf(store, early.hash), earlyLeaves);
    assert.equal(leavesOf(store, d2.hash), [...stateAt(stateAt(emptyContext(new MemoryStore()), 0), 1).leaves()]);
    // Nothing reachable is missing, and only garbage went: rows = what the four commits use.
    assert.equal(nodeRows(store), reachable(store, [head, d1.hash, early.hash, d2.hash]));
    assert.equal(commitRows(store), new Set([head, d1.hash, early.hash, d2.hash].map(hashId)));
    await store.close();
  });
}

test("a context checked out from a commit the collection drops cannot be committed once it sweeps", async () => {
  const store = new MemoryStore();
  const hashes = await buildHistory(store, 4);
  const stale = checkout(store, hashes[1]!)!;
  stale.leaves().next(); // loads its root
  const gc = startContextCollection(store, [hashes[3]!]);
  while (gc.stats.phase === "mark") await gc.step();
  assert.throws(() => commit(stale.set(["x"], utf8("y")), { parents: [], time: 0, message: "" }), (e: unknown) => e instanceof ContextCorruptionError && /does not keep/.test((e as Error).message));
  while (!(await gc.step()));
});

test("an empty set of roots deletes every context node and commit", async () => {
  const store = new MemoryStore();
  await buildHistory(store, 5);
  const stats = await collectContext(store, []);
  assert.is(nodeRows(store).size, 0);
  assert.is(commitRows(store).size, 0);
  assert.is(stats.deletedCommits, 5);
  assert.ok(stats.deletedNodes > 20);
});

test("a kept commit computed but not written yet (a block being stored) is a root: kept whole once its write lands", async () => {
  const store = new MemoryStore();
  const hashes = await buildHistory(store, 4);
  const next = stateAt(checkout(store, hashes[3]!)!, 4);
  const { hash, ops } = commit(next, { parents: [hashes[3]!], time: 2000, message: "block 4" });
  const expected = leavesOf(store, hashes[3]!); // read before: the new commit is not stored yet
  const gc = startContextCollection(store, [hashes[3]!, hash]);
  const landing = store.write(ops); // the block's write lands while the collection runs
  while (!(await gc.step()));
  await landing;
  assert.is(gc.stats.keptCommits, 1); // the stored root; the other came in as a pending commit
  assert.equal(commitRows(store), new Set([hashes[3]!, hash].map(hashId)));
  assert.equal(nodeRows(store), reachable(store, [hashes[3]!, hash])); // whole, and nothing else
  assert.equal(leavesOf(store, hashes[3]!), expected);
  assert.equal(leavesOf(store, hash), [...stateAt(checkout(store, hashes[3]!)!, 4).leaves()]);
});

test("a root that is not a stored commit, or not a hash, is refused before anything is deleted", async () => {
  const store = new MemoryStore();
  const hashes = await buildHistory(store, 3);
  const rows = nodeRows(store).size;
  const unknown = new Uint8Array(32).fill(7);
  assert.throws(() => startContextCollection(store, [hashes[0]!, unknown]), (e: unknown) => (e as Error).message === `startContextCollection: context ${b58encode(B58.contextHash, unknown)} is not a commit of the store`);
  assert.throws(() => startContextCollection(store, [new Uint8Array(31)]), RangeError);
  assert.throws(() => startContextCollection(store, ["Co..." as unknown as Uint8Array]), TypeError);
  assert.throws(() => startContextCollection(store, [hashes[0]!], { stepNodes: 0 }), RangeError);
  // A node of a kept commit missing from the store: found while marking, nothing deleted.
  const root = reachable(store, [hashes[2]!]);
  const victim = [...root].find((id) => !reachable(store, [hashes[0]!]).has(id))!;
  await store.write([{ key: nodeKey(Uint8Array.from(victim, (c) => c.charCodeAt(0))) }]);
  const gc = startContextCollection(store, [hashes[2]!]);
  const failure = await (async () => {
    while (!(await gc.step()));
  })().then(() => undefined, (e: unknown) => e);
  assert.ok(failure instanceof ContextCorruptionError && /missing from the store; nothing was deleted/.test(failure.message), String(failure));
  assert.is(nodeRows(store).size, rows - 1);
  assert.is(commitRows(store).size, 3);
  // The failed collection no longer holds the store: another one can start.
  startContextCollection(store, [hashes[0]!]).cancel();
  const running = startContextCollection(store, [hashes[0]!]);
  assert.throws(() => startContextCollection(store, [hashes[0]!]), /already running/);
  running.cancel();
});

test.run();
