/**
 * The edge worker's node made at the first request (platform/edge/lazy-node.ts), here with real
 * nodes: requests that arrive while it is being made wait for that one making, a making that
 * fails answers Octez's `failure` to each waiting request and is tried again at the next one.
 * (test/edge/ runs the worker itself in workerd.)
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../mod.ts";
import { lazyNode } from "../../platform/edge/lazy-node.ts";

const get = (path: string) => new Request(`http://node${path}`);
const bake = () => new Request("http://node/sandbox/bake", { method: "POST" });

test("requests arriving while the node is made share it: one making, their bakes on one chain", async () => {
  const made: TezosNode[] = [];
  const handle = lazyNode(async () => {
    await new Promise((r) => setTimeout(r, 0)); // the making yields, as any would with I/O
    const node = await createNode({ bake: { mode: "manual" } });
    made.push(node);
    return node;
  });
  try {
    const answers = await Promise.all([bake(), bake(), bake()].map((r) => handle(r)));
    assert.is(made.length, 1);
    const baked = await Promise.all(answers.map(async (a) => ((await a.json()) as string[])[0]));
    const chain = await Promise.all([4, 5, 6].map(async (l) => (await handle(get(`/chains/main/blocks/${l}/hash`))).json()));
    assert.equal([...baked].sort(), [...chain].sort());
    assert.is(made.length, 1);
  } finally {
    for (const node of made) await node.close();
  }
});

test("a making that fails answers a failure to every waiting request, and the next request makes the node again", async () => {
  const made: TezosNode[] = [];
  let calls = 0;
  const handle = lazyNode(async () => {
    calls++;
    await new Promise((r) => setTimeout(r, 0));
    // the first making is refused for its parameters, as createNode refuses them
    const node = await createNode({ bake: { mode: "manual" }, ...(calls === 1 ? { protocolParameters: { blocks_per_cycle: "many" } } : {}) });
    made.push(node);
    return node;
  });
  try {
    const failed = await Promise.all([handle(get("/chains/main/blocks/head/hash")), handle(get("/chains/main/blocks/head/hash"))]);
    assert.is(calls, 1);
    for (const res of failed) {
      assert.is(res.status, 500);
      assert.is(res.headers.get("content-type"), "application/json");
      const trace = (await res.json()) as { kind: string; id: string; msg: string }[];
      assert.is(trace.length, 1);
      assert.is(trace[0]!.kind, "temporary");
      assert.is(trace[0]!.id, "failure");
      assert.ok(trace[0]!.msg.startsWith("The node could not start: RangeError: Invalid protocol parameters"), trace[0]!.msg);
    }
    const res = await handle(get("/chains/main/blocks/head/header"));
    assert.is(res.status, 200);
    assert.is(((await res.json()) as { level: number }).level, 3);
    assert.is(calls, 2);
    await handle(get("/chains/main/blocks/head/hash"));
    assert.is(calls, 2);
  } finally {
    for (const node of made) await node.close();
  }
});

test.run();
