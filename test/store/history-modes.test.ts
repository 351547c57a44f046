/**
 * History modes (issue 15, part A) against Octez v12's rules: the text and JSON forms and the
 * allowed switches (`history_mode.ml`, `store.ml`), the savepoint and caboose a node reaches after
 * baking (`block_store.ml`'s compute_new_savepoint and compute_new_caboose, worked out by hand
 * below for the sandbox: preserved_cycles 2, blocks_per_cycle 8, max_operations_ttl 120), what
 * the RPC answers below them, a rolling store that stays the same size, switches on reopen, and a
 * store killed with SIGKILL while pruning.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { canSwitchHistoryMode, historyModeFromJson, historyModeToJson, parseHistoryMode, printHistoryMode, sameHistoryMode } from "../../lib/shell/history-mode.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import type { KeyValueStore } from "../../lib/store/kv.ts";
import { Table, tableRange } from "../../lib/store/tables.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";
import { startFixture } from "./spawn.ts";

test("text forms as octez-node's --history-mode, JSON as Octez's history_mode encoding", () => {
  assert.equal(parseHistoryMode("full"), { mode: "full" });
  assert.equal(parseHistoryMode("Full:3"), { mode: "full", additionalCycles: 3 });
  assert.equal(parseHistoryMode("rolling:0"), { mode: "rolling", additionalCycles: 0 });
  assert.equal(parseHistoryMode("experimental-rolling"), { mode: "rolling" });
  assert.equal(parseHistoryMode("archive"), { mode: "archive" });
  for (const bad of ["archive:1", "full:", "full:-1", "full:x", "full:1001", "fast", "full:1:2"]) assert.is(parseHistoryMode(bad), undefined, bad);
  assert.is(printHistoryMode({ mode: "rolling", additionalCycles: 2 }), "rolling:2");
  assert.equal(historyModeToJson({ mode: "full", additionalCycles: 7 }), { full: { additional_cycles: 7 } });
  assert.equal(historyModeToJson({ mode: "rolling" }), "rolling");
  assert.equal(historyModeFromJson({ rolling: { additional_cycles: 0 } }), { mode: "rolling", additionalCycles: 0 });
  assert.is(historyModeFromJson({ rolling: { additional_cycles: 1001 } }), undefined);
  // History_mode.equal: the alias equals its default offset, 5.
  assert.ok(sameHistoryMode({ mode: "full" }, { mode: "full", additionalCycles: 5 }));
  assert.not.ok(sameHistoryMode({ mode: "full" }, { mode: "full", additionalCycles: 4 }));
});

test("allowed switches are Octez's: archive to full or rolling, full to rolling, another N in one mode", () => {
  const m = (t: string) => parseHistoryMode(t)!;
  const allowed = [["archive", "full"], ["archive", "rolling:3"], ["full", "rolling"], ["full", "full:2"], ["rolling", "rolling:9"]];
  const refused = [["full", "archive"], ["rolling", "archive"], ["rolling", "full"], ["archive", "archive"], ["full:2", "full:2"]];
  for (const [a, b] of allowed) assert.ok(canSwitchHistoryMode(m(a!), m(b!)), `${a} -> ${b}`);
  for (const [a, b] of refused) assert.not.ok(canSwitchHistoryMode(m(a!), m(b!)), `${a} -> ${b}`);
});

/** A memory store whose close() is a no-op, so that a second node reopens what the first wrote. */
function reopenable(): KeyValueStore {
  const store = new MemoryStore();
  return { get: (k) => store.get(k), range: (r) => store.range(r), write: (ops) => store.write(ops), close: async () => {} };
}

async function get(node: TezosNode, path: string): Promise<{ status: number; json: any }> {
  const res = await node.fetch(new Request(`http://localhost${path}`));
  const text = await res.text();
  return { status: res.status, json: text === "" ? undefined : JSON.parse(text) };
}

async function bakeTo(node: TezosNode, level: number): Promise<void> {
  const head = (await get(node, "/chains/main/blocks/head/header")).json.level as number;
  if (level > head) assert.is((await node.fetch(new Request(`http://localhost/sandbox/bake?count=${level - head}`, { method: "POST" }))).status, 200);
}

async function levels(node: TezosNode): Promise<[number, number, number]> {
  const l = async (n: string) => (await get(node, `/chains/main/levels/${n}`)).json.level as number;
  return [await l("checkpoint"), await l("savepoint"), await l("caboose")];
}

// Head 163 is in cycle 20 (levels 161-168): lafl = first level of cycle 18 = 145 = the checkpoint.
// Cemented cycles: [0,1] (genesis and activation), then [2,9], [10,17], ... [138,145]: 19 of them.
// min_level_to_preserve = lafl - max_operations_ttl(block 145) = 145 - 120 = 25.
const HEAD = 163;

test("rolling (5 additional cycles): savepoint = caboose = 25 at head 163; blocks below answer 404, above whole", async () => {
  const node = await createNode({ bake: { mode: "manual" }, historyMode: "rolling" });
  await bakeTo(node, HEAD);
  await node.pruned();
  // shifted = start of cycles[19 - 5] = [114,121] -> 114 >= 25: the savepoint is the min block, 25;
  // the caboose: min_level_to_preserve is not below the savepoint -> the savepoint.
  assert.equal(await levels(node), [145, 25, 25]);
  assert.is((await get(node, "/chains/main/blocks/24/header")).status, 404);
  assert.is((await get(node, "/chains/main/blocks/2")).status, 404);
  assert.is((await get(node, "/chains/main/blocks/25/metadata")).status, 200);
  assert.is((await get(node, "/chains/main/blocks/genesis/header")).status, 200);
  assert.is((await get(node, "/chains/main/blocks/caboose/header")).json.level, 25);
  assert.equal((await get(node, "/config/history_mode")).json, { history_mode: "rolling" });
  await node.close();
});

test("full:16 keeps every header and metadata from 18: the 16th newest cemented cycle starts below the min block", async () => {
  const node = await createNode({ bake: { mode: "manual" }, historyMode: "full:16" });
  await bakeTo(node, HEAD);
  await node.pruned();
  // shifted = start of cycles[19 - 16] = [18,25] -> 18 < 25 = min block: the savepoint is 18; full keeps the caboose at genesis.
  assert.equal(await levels(node), [145, 18, 0]);
  for (let level = 1; level <= HEAD; level++) assert.is((await get(node, `/chains/main/blocks/${level}/header`)).status, 200, `header ${level}`);
  const pruned = await get(node, "/chains/main/blocks/17/metadata");
  assert.is(pruned.status, 500);
  assert.equal(pruned.json[0].id, "store.metadata_not_found");
  const full = await get(node, "/chains/main/blocks/17");
  assert.is(full.status, 200);
  assert.equal(Object.keys(full.json), ["protocol", "chain_id", "hash", "header", "operations"]);
  // Endorsements are there, without receipts.
  assert.ok(full.json.operations[0].length > 0);
  assert.not.ok("metadata" in full.json.operations[0][0].contents[0]);
  // The metadata hashes are kept: the same answer as before pruning would give.
  assert.match((await get(node, "/chains/main/blocks/17/metadata_hash")).json, /^bm/);
  assert.is((await get(node, "/chains/main/blocks/18/metadata")).status, 200);
  // Its context is collected: Octez's Store.Block.context error, for the raw context and the protocol's RPCs alike.
  const block17 = (await get(node, "/chains/main/blocks/17/header")).json;
  const gone = [{ kind: "temporary", id: "store.cannot_checkout_context", block_hash: block17.hash, context_hash: block17.context }];
  for (const path of ["/chains/main/blocks/17/context/raw/bytes/version", "/chains/main/blocks/17/context/contracts/tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx/balance"]) {
    const r = await get(node, path);
    assert.equal([r.status, r.json], [500, gone], path);
  }
  assert.is((await get(node, "/chains/main/blocks/18/context/contracts/tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx/balance")).status, 200);
  assert.equal((await get(node, "/config/history_mode")).json, { history_mode: { full: { additional_cycles: 16 } } });
  await node.close();
});

test("archive answers everything; its levels stay at genesis", async () => {
  const node = await createNode({ bake: { mode: "manual" }, historyMode: "archive" });
  await bakeTo(node, HEAD);
  assert.equal(await levels(node), [145, 0, 0]);
  assert.is((await get(node, "/chains/main/blocks/2/metadata")).status, 200);
  await node.close();
});

test("switches on reopen: refused without --force-history-mode-switch or outside Octez's list, applied with it", async () => {
  const store = reopenable();
  let node = await createNode({ store, bake: { mode: "manual" }, historyMode: "archive" });
  await bakeTo(node, HEAD);
  await node.close();
  const refused = await createNode({ store, historyMode: "rolling" }).then(() => "opened", (e: Error) => e.message);
  assert.match(refused, /Cannot switch from history mode Archive mode to Rolling mode \+ 5 extra cycles\..*--force-history-mode-switch/);
  node = await createNode({ store, bake: { mode: "manual" }, historyMode: "full:16", forceHistoryModeSwitch: true });
  await node.pruned();
  // infer_savepoint: archive cemented its 19 cycles too; expected = start of cycles[19 - 16] = 18,
  // preserved = lafl - ttl = 25; min(25, 18) = 18, not below the current savepoint (0). Full keeps the caboose.
  assert.equal(await levels(node), [145, 18, 0]);
  assert.is((await get(node, "/chains/main/blocks/17/metadata")).status, 500);
  await node.close();
  const back = await createNode({ store, historyMode: "archive", forceHistoryModeSwitch: true }).then(() => "opened", (e: Error) => e.message);
  assert.match(back, /Cannot switch from history mode Full mode \+ 16 extra cycles to Archive mode\. The allowed switches are/);
  node = await createNode({ store, bake: { mode: "manual" }, historyMode: "rolling:0", forceHistoryModeSwitch: true });
  await node.pruned();
  // infer_savepoint with offset 0: expected = end of the last cycle + 1 = 146, preserved 25 -> 25;
  // infer_caboose from full: min(expected 146, preserved 25) = 25.
  assert.equal(await levels(node), [145, 25, 25]);
  assert.is((await get(node, "/chains/main/blocks/24/header")).status, 404);
  await bakeTo(node, HEAD + 8); // the next cycle end merges with offset 0: savepoint = caboose = min block = 153 - 120 = 33
  await node.pruned();
  assert.equal(await levels(node), [153, 33, 33]);
  assert.is((await get(node, "/chains/main/blocks/32/header")).status, 404);
  await node.close();
  // Without a mode the node takes the store's, as octez-node without --history-mode.
  node = await createNode({ store, bake: { mode: "manual" } });
  assert.equal((await get(node, "/config/history_mode")).json, { history_mode: { rolling: { additional_cycles: 0 } } });
  assert.equal(await levels(node), [153, 33, 33]);
  await node.close();
});

function countRows(kv: KeyValueStore, table: number): number {
  let n = 0;
  for (const _ of kv.range(tableRange(table))) n++;
  return n;
}

test("a rolling:0 LMDB store keeps the same number of block rows however long the chain grows", async () => {
  const dir = await mkdtemp(join(tmpdir(), "tezos-history-rolling-"));
  try {
    const kv = await openLmdbStore(dir);
    const node = await createNode({ store: kv, bake: { mode: "manual" }, historyMode: "rolling:0" });
    const counts: number[][] = [];
    const nodes: number[] = [];
    for (const level of [200, 280, 360]) {
      await bakeTo(node, level);
      await node.pruned();
      const [, savepoint, caboose] = await levels(node);
      assert.ok(caboose > 0 && caboose === savepoint);
      counts.push([Table.blockHeader, Table.blockOperations, Table.blockMetadata, Table.levelIndex].map((t) => countRows(kv, t)));
      // The context collection keeps the commits of the blocks with metadata (savepoint to head), and their nodes.
      assert.is(countRows(kv, Table.contextCommit), 144);
      nodes.push(countRows(kv, Table.contextNode));
    }
    // Each holds genesis and the blocks from the caboose (lafl - 120) to the head: at the 7th level of
    // a cycle the head is 23 above its lafl, so 1 + 23 + 121 = 145 rows, at 200, 280 and 360 alike.
    assert.equal(counts, [[145, 145, 145, 145], [145, 145, 145, 145], [145, 145, 145, 145]]);
    assert.ok(Math.abs(nodes[2]! - nodes[1]!) < nodes[1]! / 10, `context nodes ${nodes}`);
    await node.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("kill -9 while a rolling:0 node bakes and prunes: the store reopens whole, every level from the caboose up answers", async () => {
  const dir = await mkdtemp(join(tmpdir(), "tezos-history-kill-"));
  try {
    for (const stopAt of [170 + Math.floor(Math.random() * 40), 230 + Math.floor(Math.random() * 40)]) {
      const child = startFixture("history-baker.ts", [dir, "rolling:0"]);
      let err = "";
      child.stderr!.on("data", (d) => (err += d));
      await new Promise<void>((resolve, reject) => {
        let out = "";
        child.stdout!.on("data", (d) => {
          out += d;
          const last = out.trim().split("\n").pop()!.split(" ")[0];
          if (Number(last) >= stopAt) {
            child.kill("SIGKILL");
            resolve();
          }
        });
        child.on("close", (code) => reject(new Error(`the child stopped by itself (${code}): ${err}`)));
      });
      await new Promise((r) => child.on("close", r));
      const node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" }, historyMode: "rolling:0" });
      const head = (await get(node, "/chains/main/blocks/head/header")).json;
      assert.ok(head.level >= stopAt);
      assert.is((await get(node, "/chains/main/blocks/head/metadata")).status, 200);
      const [checkpoint, savepoint, caboose] = await levels(node);
      assert.ok(caboose <= savepoint && savepoint <= checkpoint && checkpoint <= head.level, `${caboose} ${savepoint} ${checkpoint}`);
      for (let level = caboose; level <= head.level; level++) {
        assert.is((await get(node, `/chains/main/blocks/${level}/header`)).status, 200, `header ${level}`);
      }
      for (let level = savepoint; level <= head.level; level++) assert.is((await get(node, `/chains/main/blocks/${level}/metadata`)).status, 200);
      await node.pruned();
      assert.is((await get(node, `/chains/main/blocks/${caboose - 1}/header`)).status, 404);
      await bakeTo(node, head.level + 1);
      await node.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
