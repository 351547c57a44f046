/**
 * `bakerKeys` on whole nodes, checked through the RPC as a client sees it: a node holding
 * bootstrap2 alone bakes each block as bootstrap2 at its best priority (the one
 * `helpers/baking_rights` lists first for it), with bootstrap2's endorsement only, carrying all
 * of its slots (`helpers/endorsing_rights`); and two nodes with disjoint keys bake competing
 * blocks on the same activation block, one of which the other node takes as a side branch.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../lib/node.ts";

const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const BOOTSTRAP2 = "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN";
/** Activation at 2020-09-13T12:26:40Z on both nodes: the same activation block. */
const NOW = () => 1_600_000_000_000;

async function get(node: TezosNode, path: string): Promise<any> {
  const res = await node.fetch(new Request(`http://localhost${path}`));
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function post(node: TezosNode, path: string, body?: unknown): Promise<any> {
  const init: RequestInit = { method: "POST" };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

test("bootstrap2 alone: its blocks at its first priority in the baking rights, its endorsement only, with all its slots", async () => {
  const node = await createNode({ bake: { mode: "manual" }, bakerKeys: ["bootstrap2"], now: NOW });
  try {
    await post(node, "/sandbox/bake?count=3"); // levels 4 to 6 (2 and 3 at start)
    const seen: [number, number][] = [];
    for (let level = 2; level <= 6; level++) {
      const B = `/chains/main/blocks/${level}`;
      const priority = (await get(node, `${B}/header`)).priority as number;
      assert.is((await get(node, `${B}/metadata`)).baker, BOOTSTRAP2, `level ${level}`);
      const rights = await get(node, `/chains/main/blocks/${level - 1}/helpers/baking_rights?level=${level}&delegate=${BOOTSTRAP2}&max_priority=100`);
      assert.is(rights[0].priority, priority, `level ${level}: baking_rights agrees`);
      seen.push([level, priority]);
      const endorsements = await get(node, `${B}/operations/0`);
      if (level === 2) {
        assert.equal(endorsements, [], "nothing endorses the activation block");
        continue;
      }
      assert.is(endorsements.length, 1, `level ${level}: one endorsement`);
      const [contents] = endorsements[0].contents;
      assert.is(contents.kind, "endorsement_with_slot");
      assert.is(contents.metadata.delegate, BOOTSTRAP2);
      const endorsing = await get(node, `/chains/main/blocks/${level - 1}/helpers/endorsing_rights?level=${level - 1}&delegate=${BOOTSTRAP2}`);
      assert.equal(contents.metadata.slots, endorsing[0].slots, `level ${level}: all of bootstrap2's slots`);
      assert.is(contents.slot, Math.min(...endorsing[0].slots));
    }
    // The sandbox's rights (the same on every branch in the first cycles): bootstrap2 is never first at these levels.
    assert.equal(seen, [[2, 6], [3, 7], [4, 1], [5, 11], [6, 1]]);
  } finally {
    await node.close();
  }
});

test("two nodes with disjoint keys bake competing blocks on one activation block; one takes the other's as a side branch", async () => {
  const a = await createNode({ bake: { mode: "manual" }, bakerKeys: ["bootstrap1"], now: NOW });
  const b = await createNode({ bake: { mode: "manual" }, bakerKeys: ["bootstrap2", "bootstrap3", "bootstrap4", "bootstrap5"], now: NOW });
  try {
    const activation = await get(a, "/chains/main/blocks/1/hash");
    assert.is(await get(b, "/chains/main/blocks/1/hash"), activation);
    const [a2, b2] = [await get(a, "/chains/main/blocks/2/header"), await get(b, "/chains/main/blocks/2/header")];
    assert.equal([a2.predecessor, b2.predecessor], [activation, activation]);
    assert.is.not(a2.hash, b2.hash);
    assert.equal([a2.priority, (await get(a, "/chains/main/blocks/2/metadata")).baker], [4, BOOTSTRAP1]);
    assert.equal(b2.priority, 0);
    assert.is.not((await get(b, "/chains/main/blocks/2/metadata")).baker, BOOTSTRAP1);
    // a's block, injected into b, is valid there: a side branch; b's head stays its own.
    const bHead = await get(b, "/chains/main/blocks/head/hash");
    const raw = await get(a, `/chains/main/blocks/${a2.hash}/header/raw`);
    assert.is(await post(b, "/injection/block", { data: raw, operations: [[], [], [], []] }), a2.hash);
    assert.is((await get(b, `/chains/main/blocks/${a2.hash}/metadata`)).baker, BOOTSTRAP1);
    assert.is(await get(b, "/chains/main/blocks/head/hash"), bHead);
  } finally {
    await a.close();
    await b.close();
  }
});

test.run();
