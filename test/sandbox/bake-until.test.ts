/**
 * `POST /sandbox/bake?until_level=L` and `?until_cycle_end` through `node.fetch`: they land on
 * the levels computed by hand from the sandbox's `blocks_per_cycle` (8: cycle c holds levels
 * 8c + 1 … 8c + 8, the protocol being activated at level 1), answer the blocks baked oldest
 * first, refuse a target at or below the head, too far away, or given with another argument, and
 * then bake nothing. `count` keeps its behaviour (test/baker/rpc.test.ts).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { MAX_BAKE_COUNT } from "../../lib/baker/baker.ts";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { call } from "./support.ts";

const headLevel = async (node: TezosNode): Promise<number> => (await call(node, "GET", "/chains/main/blocks/head/header")).json.level;

/** The levels of the blocks `hashes` names. */
async function levelsOf(node: TezosNode, hashes: string[]): Promise<number[]> {
  return Promise.all(hashes.map(async (h) => (await call(node, "GET", `/chains/main/blocks/${h}/header`)).json.level as number));
}

const Until = suite<{ node: TezosNode }>("bake until");

Until.before.each(async (ctx) => {
  ctx.node = await createNode({ bake: { mode: "manual" } });
});
Until.after.each(async (ctx) => {
  await ctx.node.close();
});

Until("the sandbox has 8 blocks a cycle, the first cycle starting at level 1, and starts at level 3", async ({ node }) => {
  assert.is((await call(node, "GET", "/chains/main/blocks/head/context/constants")).json.blocks_per_cycle, 8);
  assert.is(await headLevel(node), 3);
  const info = (await call(node, "GET", "/chains/main/blocks/head/metadata")).json.level_info;
  assert.equal({ cycle: info.cycle, cycle_position: info.cycle_position }, { cycle: 0, cycle_position: 2 });
});

Until("until_level=L bakes until the head is at L and answers those blocks, oldest first", async ({ node }) => {
  const r = await call(node, "POST", "/sandbox/bake?until_level=6");
  assert.is(r.status, 200, JSON.stringify(r.json));
  assert.is(r.json.length, 3);
  assert.equal(await levelsOf(node, r.json), [4, 5, 6]);
  assert.is(await headLevel(node), 6);
  assert.is((await call(node, "GET", "/chains/main/blocks/head/hash")).json, r.json[2]);
  const one = await call(node, "POST", "/sandbox/bake?until_level=7");
  assert.equal(await levelsOf(node, one.json), [7]);
});

Until("until_cycle_end bakes to the last level of the cycle (8, then 16, 24): the head ends the cycle", async ({ node }) => {
  const first = await call(node, "POST", "/sandbox/bake?until_cycle_end");
  assert.is(first.status, 200, JSON.stringify(first.json));
  assert.equal(await levelsOf(node, first.json), [4, 5, 6, 7, 8]);
  let info = (await call(node, "GET", "/chains/main/blocks/head/metadata")).json.level_info;
  assert.equal({ level: info.level, cycle: info.cycle, cycle_position: info.cycle_position }, { level: 8, cycle: 0, cycle_position: 7 });
  // on a head ending a cycle, the next cycle is baked whole
  const second = await call(node, "POST", "/sandbox/bake?until_cycle_end=true");
  assert.equal(await levelsOf(node, second.json), [9, 10, 11, 12, 13, 14, 15, 16]);
  info = (await call(node, "GET", "/chains/main/blocks/head/metadata")).json.level_info;
  assert.equal({ level: info.level, cycle: info.cycle, cycle_position: info.cycle_position }, { level: 16, cycle: 1, cycle_position: 7 });
  // from the middle of a cycle
  await call(node, "POST", "/sandbox/bake?count=3");
  const third = await call(node, "POST", "/sandbox/bake?until_cycle_end");
  assert.equal(await levelsOf(node, third.json), [20, 21, 22, 23, 24]);
  // blocks baked this way are ordinary blocks: the nonces committed in cycle 1 are revealed at the start of cycle 2
  const revealed = (await call(node, "GET", "/chains/main/blocks/17/operations/2")).json as unknown[];
  assert.ok(revealed.length > 0, "the nonces of cycle 1 are revealed at the start of cycle 2");
});

Until("a target at or below the head, or more than MAX_BAKE_COUNT blocks away, is refused with sandbox.invalid_bake_target; nothing is baked", async ({ node }) => {
  for (const level of [3, 2, 3 + MAX_BAKE_COUNT + 1]) {
    const r = await call(node, "POST", `/sandbox/bake?until_level=${level}`);
    assert.is(r.status, 500, String(level));
    assert.equal(r.json, [{ kind: "permanent", id: "sandbox.invalid_bake_target", until_level: level, head_level: 3, max_count: MAX_BAKE_COUNT }]);
  }
  assert.is(await headLevel(node), 3);
});

Until("a level that is not a natural number is refused with 400, as a bad count", async ({ node }) => {
  for (const q of ["-1", "abc", "1.5", "", "4294967296"]) {
    const r = await call(node, "POST", `/sandbox/bake?until_level=${q}`);
    assert.is(r.status, 400, q);
    assert.match(String(r.json), /until_level/);
  }
  assert.is((await call(node, "POST", "/sandbox/bake?until_cycle_end=maybe")).status, 400);
  assert.is(await headLevel(node), 3);
});

Until("count, until_level and until_cycle_end are exclusive: sandbox.conflicting_bake_arguments, nothing baked", async ({ node }) => {
  for (const [q, args] of [
    ["count=2&until_level=9", ["count", "until_level"]],
    ["until_level=9&until_cycle_end", ["until_level", "until_cycle_end"]],
    ["count=1&until_cycle_end", ["count", "until_cycle_end"]],
  ] as const) {
    const r = await call(node, "POST", `/sandbox/bake?${q}`);
    assert.is(r.status, 500, q);
    assert.equal(r.json, [{ kind: "permanent", id: "sandbox.conflicting_bake_arguments", arguments: args }], q);
  }
  // a flag given as false is absent
  const r = await call(node, "POST", "/sandbox/bake?count=2&until_cycle_end=false");
  assert.is(r.status, 200, JSON.stringify(r.json));
  assert.is(await headLevel(node), 5);
});

Until("/describe lists the three query arguments of /sandbox/bake", async ({ node }) => {
  const post = (await call(node, "GET", "/describe/sandbox/bake")).json.static.post_service;
  assert.equal(post.query.map((q: { name: string }) => q.name), ["count", "until_level", "until_cycle_end"]);
});

Until.run();

const Before = suite("bake until before the activation");

Before("until_cycle_end and until_level before the protocol is activated fail as a bake does", async () => {
  const node = await createNode({ bake: { mode: "manual" }, activate: false });
  try {
    for (const q of ["until_cycle_end", "until_level=3"]) {
      const r = await call(node, "POST", `/sandbox/bake?${q}`);
      assert.is(r.status, 500, q);
      assert.is(r.json[0].id, "failure");
      assert.match(r.json[0].msg, /activate the protocol first/);
    }
    assert.is(await headLevel(node), 0);
  } finally {
    await node.close();
  }
});

Before.run();
