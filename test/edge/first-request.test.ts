/**
 * The node's making at the first request: requests that arrive together are served by one node
 * (each baking on the block the one before it baked); a worker deployed without the node's object
 * answers a failure saying how to bind it. (In workerd the making never waits for I/O, so the
 * requests behind the first cannot reach the object before it is done; that requests arriving
 * during a making wait for that one is test/platform/edge-lazy-node.test.ts's.)
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { EdgeWorker } from "./support.ts";

test("four bakes as the first requests, together, bake four blocks on one chain", async () => {
  const worker = await EdgeWorker.start();
  try {
    const answers = await Promise.all([1, 2, 3, 4].map(() => worker.json<string[]>("/sandbox/bake", { method: "POST" })));
    const baked = answers.map(([hash]) => hash!);
    const chain = await Promise.all([4, 5, 6, 7].map((level) => worker.json<string>(`/chains/main/blocks/${level}/hash`)));
    assert.equal([...baked].sort(), [...chain].sort());
    assert.is(await worker.json("/chains/main/blocks/head/hash"), chain[3]);
  } finally {
    await worker.close();
  }
});

test("a worker without the node's object answers every request a failure naming the binding", async () => {
  const worker = await EdgeWorker.start(false);
  try {
    for (const path of ["/chains/main/blocks/head/hash", "/sandbox/bake"]) {
      const res = await worker.fetch(path, { method: path === "/sandbox/bake" ? "POST" : "GET" });
      assert.is(res.status, 500);
      assert.is(res.headers.get("content-type"), "application/json");
      const [error, ...more] = (await res.json()) as { kind: string; id: string; msg: string }[];
      assert.equal(more, []);
      assert.is(error!.kind, "temporary");
      assert.is(error!.id, "failure");
      assert.ok(error!.msg.includes("TezosNodeObject as TEZOS_NODE"), error!.msg);
    }
  } finally {
    await worker.close();
  }
});

test.run();
