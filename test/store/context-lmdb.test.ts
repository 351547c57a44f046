import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { checkout, commit, emptyContext, readCommit } from "../../lib/store/context/mod.ts";
import { key, Table } from "../../lib/store/tables.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";

const test = suite("context on LMDB");
const utf8 = (s: string) => new TextEncoder().encode(s);
let dir = "";
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "tezos-context-test-"));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("commits written with a block and head in one write survive a reopen, and old commits check out", async () => {
  let store = await openLmdbStore(dir);
  let ctx = emptyContext(store);
  const hashes: Uint8Array[] = [];
  for (let level = 0; level < 5; level++) {
    for (let i = 0; i < 200; i++) ctx = ctx.set(["data", `k${i}`], utf8(`level ${level} key ${i}`));
    ctx = ctx.set(["level"], utf8(String(level)));
    if (level === 3) ctx = ctx.remove(["data"]);
    const { hash, ops } = commit(ctx, { parents: hashes.slice(-1), time: 1000 + level, message: `block ${level}` });
    // The chain store's way: block, context and head in one atomic write.
    await store.write([...ops, { key: key(Table.chainData, "head"), value: hash }]);
    hashes.push(hash);
    ctx = checkout(store, hash)!;
  }
  await store.close();

  store = await openLmdbStore(dir);
  try {
    const head = store.get(key(Table.chainData, "head"))!;
    assert.equal(head, hashes[4]);
    for (let level = 0; level < 5; level++) {
      const c = checkout(store, hashes[level]!)!;
      assert.equal(c.get(["level"]), utf8(String(level)));
      if (level === 3) assert.is(c.has(["data"]), false);
      else assert.equal(c.get(["data", "k7"]), utf8(`level ${level} key 7`));
      const info = readCommit(store, hashes[level]!)!;
      assert.is(info.message, `block ${level}`);
      assert.is(info.time, BigInt(1000 + level));
      assert.equal(info.parents, level === 0 ? [] : [hashes[level - 1]]);
    }
    assert.equal(checkout(store, hashes[4]!)!.listKeys(["data"]).length, 200);
  } finally {
    await store.close();
  }
});

test.run();
