import { test } from "uvu";
import * as assert from "uvu/assert";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNode, type TezosNode } from "../../mod.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";

async function json(node: TezosNode, path: string, method = "GET") {
  const res = await node.fetch(new Request(`http://localhost${path}`, { method }));
  return res.json();
}

test("a node on a data dir resumes at the same head after a restart, without activating again", async () => {
  const dir = await mkdtemp(join(tmpdir(), "tezos-node-restart-"));
  try {
    let node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" } });
    await json(node, "/sandbox/bake?count=6", "POST");
    const head = await json(node, "/chains/main/blocks/head/header");
    const balance = await json(node, "/chains/main/blocks/head/context/delegates/tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx/balance");
    await node.close();

    node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" } });
    try {
      assert.equal(await json(node, "/chains/main/blocks/head/header"), head);
      assert.is(await json(node, "/chains/main/blocks/head/context/delegates/tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx/balance"), balance);
      assert.is((await json(node, "/chains/main/blocks/1/header")).level, 1);
      const [next] = await json(node, "/sandbox/bake", "POST");
      assert.is((await json(node, "/chains/main/blocks/head/hash")), next);
      assert.is((await json(node, "/chains/main/blocks/head/header")).level, head.level + 1);
    } finally {
      await node.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
