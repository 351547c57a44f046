/**
 * The sandbox controls on a node with a real P2P peer (two pools on loopback TCP): the ones that
 * change the chain's state are refused with `sandbox.peers_connected` and change nothing; time
 * and baking go on; once the peer is gone the state changes are taken again.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createNode } from "../../lib/node.ts";
import { closeAll, startPool, until } from "../p2p/pool-support.ts";
import { call } from "./support.ts";

const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const FRESH = "tz1burnburnburnburnburnburnburjAYjjX";

const test = suite("sandbox controls with a P2P peer connected");
test.after(async () => {
  await closeAll();
});

test("state changes are refused while a peer is connected, time and baking are not", async () => {
  const [a, b] = [await startPool(105), await startPool(106)];
  const A = await createNode({ bake: { mode: "manual" }, p2p: a.pool });
  const B = await createNode({ bake: { mode: "manual" }, activate: false, p2p: b.pool });
  try {
    await call(A, "POST", "/sandbox/bake?count=2");
    const snapshot = (await call(A, "POST", "/sandbox/snapshot")).json;
    assert.ok(typeof snapshot.id === "string", JSON.stringify(snapshot));
    await b.pool.connect(a.point);
    await until(() => a.pool.connections().length === 1, "the peer connected");
    const head = (await call(A, "GET", "/chains/main/blocks/head/hash")).json;

    const refused = [
      ["/sandbox/set_balance", { address: FRESH, balance: "1000" }],
      ["/sandbox/set_counter", { address: BOOTSTRAP1, counter: "100" }],
      ["/sandbox/impersonate", { address: FRESH }],
      ["/sandbox/snapshot", undefined],
      ["/sandbox/revert", { id: snapshot.id }],
    ] as const;
    for (const [path, body] of refused) {
      const r = await call(A, "POST", path, body);
      assert.is(r.status, 500, `${path}: ${JSON.stringify(r.json)}`);
      assert.equal(r.json, [{ kind: "temporary", id: "sandbox.peers_connected", peers: 1 }], path);
    }
    assert.equal((await call(A, "GET", "/sandbox/changes")).json, []);
    assert.equal((await call(A, "GET", "/sandbox/impersonating")).json, []);
    assert.is((await call(A, "GET", "/chains/main/blocks/head/hash")).json, head, "the revert changed nothing");

    // time and baking work on a network, and the peer follows
    const moved = await call(A, "POST", "/sandbox/time/increase", { seconds: 600 });
    assert.is(moved.status, 200, JSON.stringify(moved.json));
    const baked = await call(A, "POST", "/sandbox/bake");
    assert.is(baked.status, 200, JSON.stringify(baked.json));
    const end = Date.now() + 20_000;
    while ((await call(B, "GET", "/chains/main/blocks/head/hash")).json !== baked.json[0] && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.is((await call(B, "GET", "/chains/main/blocks/head/hash")).json, baked.json[0], "the follower took the block");

    // the peer gone, state changes are taken again
    await B.close(); // its pool with it: no reconnection
    await until(() => a.pool.connections().length === 0, "the peer gone");
    const set = await call(A, "POST", "/sandbox/set_balance", { address: FRESH, balance: "1000" });
    assert.is(set.status, 200, JSON.stringify(set.json));
    assert.is(set.json.status, "pending");
  } finally {
    await A.close();
    await B.close(); // a second close does nothing
  }
});

test.run();
