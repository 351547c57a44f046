/**
 * State changes and reverts together: a change baked in a block that a revert forgets is undone
 * with it, listed as `reverted`, and not written again into the blocks baked after the revert.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createNode } from "../../lib/node.ts";
import { bake, call, FRESH, get } from "./support.ts";

const balanceOf = (node: Parameters<typeof get>[0], address: string) => get(node, `/chains/main/blocks/head/context/contracts/${address}/balance`);

test("a change in a block forgotten by a revert is undone, listed as reverted, and not baked again", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    await bake(node, 2);
    const snapshot = (await call(node, "POST", "/sandbox/snapshot")).json;
    const set = await call(node, "POST", "/sandbox/set_balance", { address: FRESH[0], balance: "7000000" });
    assert.is(set.status, 200, JSON.stringify(set.json));
    assert.is(set.json.status, "pending");
    const [block] = await bake(node);
    assert.is(await balanceOf(node, FRESH[0]), "7000000");
    const applied = (await get(node, "/sandbox/changes"))[0];
    assert.equal([applied.status, applied.block], ["applied", block]);

    assert.is((await call(node, "POST", "/sandbox/revert", { id: snapshot.id })).status, 200);
    const reverted = (await get(node, "/sandbox/changes"))[0];
    assert.equal([reverted.id, reverted.status, reverted.block], [applied.id, "reverted", block]);
    assert.is(await balanceOf(node, FRESH[0]), "0");

    // the block baked on the snapshot's head again carries no change
    const [again] = await bake(node);
    assert.is.not(again, block);
    assert.is(await balanceOf(node, FRESH[0]), "0");
    assert.is((await get(node, "/sandbox/changes"))[0].status, "reverted");

    // a new change after the revert is applied as usual
    await call(node, "POST", "/sandbox/set_balance", { address: FRESH[0], balance: "5" });
    await bake(node);
    assert.is(await balanceOf(node, FRESH[0]), "5");
    assert.equal((await get(node, "/sandbox/changes")).map((c: { status: string }) => c.status), ["reverted", "applied"]);
  } finally {
    await node.close();
  }
});

test.run();
