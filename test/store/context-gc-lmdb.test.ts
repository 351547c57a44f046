import { existsSync } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { collectContext, startContextCollection } from "../../lib/store/context/gc.ts";
import { sweepMarkerKey } from "../../lib/store/context/guard.ts";
import { checkout, commit, emptyContext } from "../../lib/store/context/mod.ts";
import { hashId } from "../../lib/store/context/node.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { COMPACT_FILE_NAME, LMDB_FILE_NAME, openLmdbStore } from "../../platform/store/lmdb.ts";
import { buildHistory, commitRows, leavesOf, nodeRows, reachable, stateAt } from "./context-gc-helpers.ts";
import { startFixture } from "./spawn.ts";

const test = suite("context collection and compaction on LMDB");
const dirs: string[] = [];
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), "tezos-context-gc-lmdb-"));
  dirs.push(d);
  return d;
};
test.after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** Runs the collection child and kills it (SIGKILL) after its `after`-th step line. */
function killAfter(dir: string, keep: Uint8Array[], after: number): Promise<string[]> {
  const child = startFixture("context-gc-child.ts", [dir, keep.map(hex).join(",")]);
  const lines: string[] = [];
  let buffered = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      buffered += d;
      const parts = buffered.split("\n");
      buffered = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (lines.length === after) child.kill("SIGKILL");
      }
    });
    child.on("error", reject);
    child.on("close", () => resolve(lines));
  });
}

for (const after of [4, 13, 30]) {
  test(`killed (kill -9) after ${after} steps: kept commits check out whole, and a later collection finishes the job`, async () => {
    const dir = await tempDir();
    let store = await openLmdbStore(dir);
    const hashes = await buildHistory(store, 6);
    const keep = [hashes[2]!, hashes[5]!];
    const before = keep.map((h) => leavesOf(store, h));
    const keptNodes = reachable(store, keep);
    await store.close();

    const lines = await killAfter(dir, keep, after);
    assert.ok(lines.length >= after, lines.join("\n"));
    store = await openLmdbStore(dir);
    keep.forEach((h, i) => assert.equal(leavesOf(store, h), before[i]));
    for (const h of commitRows(store)) {
      const hash = Uint8Array.from(h, (c) => c.charCodeAt(0));
      assert.ok(reachable(store, [hash]).size > 0, "every commit left is whole");
    }
    // After the crash, rebuilding an old state (level 0, dropped) must not trust leftover nodes.
    const rebuilt = commit(stateAt(emptyContext(store), 0), { parents: [], time: 1, message: "again" });
    await store.write(rebuilt.ops);
    assert.equal(leavesOf(store, rebuilt.hash), [...stateAt(emptyContext(new MemoryStore()), 0).leaves()]);
    await collectContext(store, [...keep, rebuilt.hash]);
    assert.equal(nodeRows(store), new Set([...keptNodes, ...reachable(store, [rebuilt.hash])]));
    assert.equal(commitRows(store), new Set([...keep, rebuilt.hash].map(hashId)));
    assert.is(store.get(sweepMarkerKey), undefined);
    await store.close();
  });
}

test("a collection stopped while deleting nodes leaves the marker; commits after a reopen rewrite the nodes they would have trusted", async () => {
  const dir = await tempDir();
  let store = await openLmdbStore(dir);
  const hashes = await buildHistory(store, 6);
  const gc = startContextCollection(store, [hashes[5]!], { stepNodes: 3 });
  while (gc.stats.phase !== "nodes" || gc.stats.deletedNodes < 6) await gc.step();
  gc.cancel();
  await store.close(); // as after a crash: the collection is gone, the marker stays
  store = await openLmdbStore(dir);
  assert.ok(store.get(sweepMarkerKey) !== undefined);
  // Level 1's state was dropped and is partly deleted; rebuilding it must write it whole.
  const rebuilt = commit(stateAt(stateAt(emptyContext(store), 0), 1), { parents: [], time: 1, message: "" });
  await store.write(rebuilt.ops);
  assert.equal(leavesOf(store, rebuilt.hash), [...stateAt(stateAt(emptyContext(new MemoryStore()), 0), 1).leaves()]);
  await collectContext(store, [hashes[5]!, rebuilt.hash]);
  assert.is(store.get(sweepMarkerKey), undefined);
  assert.equal(nodeRows(store), reachable(store, [hashes[5]!, rebuilt.hash]));
  await store.close();
});

test("compact() shrinks the file after a collection, keeps the contents and the store usable", async () => {
  const dir = await tempDir();
  let store = await openLmdbStore(dir);
  const hashes = await buildHistory(store, 4);
  // Bulk: 3000 blobs in a commit that the collection drops.
  let big = checkout(store, hashes[3]!)!;
  for (let i = 0; i < 3000; i++) big = big.set(["bulk", `n${i}`], new Uint8Array(600).fill(i % 251));
  const dropped = commit(big, { parents: [hashes[3]!], time: 5000, message: "" });
  await store.write(dropped.ops);
  const kept = leavesOf(store, hashes[3]!);
  await collectContext(store, [hashes[3]!]);
  const grown = (await stat(join(dir, LMDB_FILE_NAME))).size;
  const { before, after } = await store.compact();
  assert.is(before, grown);
  assert.ok(after < before / 4, `${after} < ${before} / 4`);
  assert.is((await stat(join(dir, LMDB_FILE_NAME))).size, after);
  assert.equal(leavesOf(store, hashes[3]!), kept);
  assert.is(existsSync(join(dir, COMPACT_FILE_NAME)), false);
  // Writes issued during the compaction wait for it and land.
  const next = commit(stateAt(checkout(store, hashes[3]!)!, 9), { parents: [], time: 6000, message: "" });
  const [, w] = await Promise.all([store.compact(), store.write(next.ops)]);
  assert.is(w, undefined);
  assert.ok(checkout(store, next.hash) !== undefined);
  await store.close();
  // The lock was kept and released; a leftover copy from a killed compaction is removed at open.
  await writeFile(join(dir, COMPACT_FILE_NAME), "partial");
  store = await openLmdbStore(dir);
  assert.is(existsSync(join(dir, COMPACT_FILE_NAME)), false);
  assert.equal(leavesOf(store, hashes[3]!), kept);
  await store.close();
});

test.run();
