/**
 * Dead branches go, as Octez's store trims the alternative branches below its checkpoint: a side
 * branch whose fork point falls below the checkpoint can never become the head, so its blocks are
 * deleted and it leaves the known heads, in every history mode; a side branch above the
 * checkpoint stays. Two nodes share one activation block (the same clock) and bake competing
 * blocks at level 2 (`bakerKeys`); one takes the other's as a side branch.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";

/** Activation at the same time on both nodes: the same activation block. */
const NOW = () => 1_600_000_000_000;

async function call(node: TezosNode, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  return { status: res.status, json: text === "" ? undefined : JSON.parse(text) };
}

for (const mode of ["archive", "full", "rolling"] as const) {
  test(`${mode}: a side branch stays while it forks above the checkpoint, and goes once the checkpoint passes its fork point`, async () => {
    const a = await createNode({ bake: { mode: "manual" }, bakerKeys: ["bootstrap1"], now: NOW });
    const b = await createNode({ bake: { mode: "manual" }, bakerKeys: ["bootstrap2", "bootstrap3", "bootstrap4", "bootstrap5"], now: NOW, historyMode: mode });
    try {
      const side = (await call(a, "GET", "/chains/main/blocks/2/header")).json;
      const raw = (await call(a, "GET", `/chains/main/blocks/${side.hash}/header/raw`)).json;
      assert.equal((await call(b, "POST", "/injection/block", { data: raw, operations: [[], [], [], []] })).json, side.hash);
      const heads = async () => ((await call(b, "GET", "/chains/main/blocks?length=1")).json as string[][]).map((l) => l[0]);
      assert.ok((await heads()).includes(side.hash), "the side branch is a known head");
      // Up to level 24 the checkpoint stays at most at level 1, the fork point (8 blocks a cycle, 2 preserved cycles).
      await call(b, "POST", "/sandbox/bake?count=20");
      await b.pruned();
      assert.is((await call(b, "GET", "/chains/main/checkpoint")).json.block.level, 1);
      assert.is((await call(b, "GET", `/chains/main/blocks/${side.hash}/header`)).status, 200);
      // Past it, the checkpoint is above level 1, where the branch forks: it is dead.
      await call(b, "POST", "/sandbox/bake?count=12");
      await b.pruned();
      assert.ok((await call(b, "GET", "/chains/main/checkpoint")).json.block.level > 1);
      assert.is((await call(b, "GET", `/chains/main/blocks/${side.hash}/header`)).status, 404);
      assert.not.ok((await heads()).includes(side.hash), "the dead branch is no known head");
      assert.equal(await heads(), [(await call(b, "GET", "/chains/main/blocks/head/hash")).json]);
      // The main branch's level 2 stays: even rolling keeps the operations' TTL (120 blocks) below the head.
      assert.is((await call(b, "GET", "/chains/main/blocks/2/header")).status, 200);
    } finally {
      await a.close();
      await b.close();
    }
  });
}

test("a chain without side branches has no dead branch, though blocks are being stored (on LMDB, writes in flight) while the pruner runs", async () => {
  const kinds = new Map<string, number>();
  const dir = await mkdtemp(join(tmpdir(), "dead-branches-"));
  const node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" }, historyMode: "rolling", onPruneStep: (s) => kinds.set(s.kind, (kinds.get(s.kind) ?? 0) + 1) });
  try {
    for (let i = 0; i < 4; i++) await call(node, "POST", "/sandbox/bake?count=50");
    await node.pruned();
    assert.ok((kinds.get("contexts") ?? 0) > 0, "the pruner ran while blocks were stored");
    // A head being stored (its write in flight) once counted as a dead branch and left the known heads.
    assert.is(kinds.get("branches"), undefined);
    const heads = (await call(node, "GET", "/chains/main/blocks?length=1")).json as string[][];
    assert.equal(heads.map((l) => l[0]), [(await call(node, "GET", "/chains/main/blocks/head/hash")).json]);
  } finally {
    await node.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
