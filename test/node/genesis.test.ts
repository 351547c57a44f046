import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { createNode, type TezosNode } from "../../mod.ts";

const GENESIS = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";
const capture = JSON.parse(
  readFileSync(new URL("../vectors/octez/examples/shell-header-genesis-json-and-binary.json", import.meta.url), "utf8"),
);

/** A node left at the genesis block (no activation), as `--no-activate` starts it. */
async function withNode(f: (node: TezosNode) => Promise<void>): Promise<void> {
  const node = await createNode({ activate: false });
  try {
    await f(node);
  } finally {
    await node.close();
  }
}

async function get(node: TezosNode, path: string, init?: RequestInit): Promise<{ status: number; json: unknown; text: string }> {
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

test("the genesis block answers with the sandbox hash under every way of naming it", () =>
  withNode(async (node) => {
    for (const id of ["head", "genesis", "0", "head~1", "head~5", GENESIS, `${GENESIS}~2`, "checkpoint", "savepoint", "caboose"]) {
      const r = await get(node, `/chains/main/blocks/${id}/hash`);
      assert.is(r.status, 200, id);
      assert.is(r.text, `"${GENESIS}"\n`, id);
    }
    assert.is((await get(node, "/chains/NetXdQprcVkpaWU/blocks/head/hash")).status, 200);
  }));

test("unknown blocks and chains answer 404 with an empty body", () =>
  withNode(async (node) => {
    for (const path of [
      "/chains/main/blocks/1/hash",
      "/chains/main/blocks/genesis+1/hash",
      "/chains/main/blocks/5~2/hash",
      "/chains/main/blocks/BLockGenesisGenesisGenesisGenesisGenesisd1f7bcGMoXy/hash",
      "/chains/test/chain_id",
      "/chains/NetXHAoG8TyXu4i/chain_id",
    ]) {
      const r = await get(node, path);
      assert.is(r.status, 404, path);
      assert.is(r.text, "", path);
    }
  }));

test("the genesis shell header is Octez's sandbox genesis header, but for our own context hash", () =>
  withNode(async (node) => {
    const expected = capture.exchanges[0].response;
    const r = await get(node, "/chains/main/blocks/head/header/shell");
    const shell = r.json as Record<string, unknown>;
    assert.equal(Object.keys(shell), Object.keys(expected));
    for (const k of ["level", "proto", "predecessor", "validation_pass", "operations_hash", "fitness"]) assert.equal(shell[k], expected[k], k);
    assert.is(shell["timestamp"], "2018-06-30T16:07:32Z");
    assert.match(shell["context"] as string, /^Co[1-9A-HJ-NP-Za-km-z]{50}$/);
    // Binary: a 4-byte length, then the same bytes as Octez's up to the context hash.
    const bin = new Uint8Array(
      await (await node.fetch(new Request("http://localhost/chains/main/blocks/head/header/shell", { headers: { accept: "application/octet-stream" } }))).arrayBuffer(),
    );
    const hex = [...bin].map((b) => b.toString(16).padStart(2, "0")).join("");
    const octez: string = capture.exchanges[1].output_text;
    assert.is(hex.slice(0, 8), (octez.length / 2).toString(16).padStart(8, "0"));
    assert.is(hex.slice(8, 8 + octez.length - 64), octez.slice(0, -64));
  }));

test("the genesis header carries Octez's fake-protocol fields and the context of the shell header", () =>
  withNode(async (node) => {
    const header = (await get(node, "/chains/main/blocks/genesis/header")).json as Record<string, unknown>;
    const shell = (await get(node, "/chains/main/blocks/genesis/header/shell")).json as Record<string, unknown>;
    assert.equal(Object.keys(header), ["protocol", "chain_id", "hash", ...Object.keys(shell)]);
    assert.is(header["protocol"], "PrihK96nBAFSxVL1GLJTVhu9YnzkMFiBeuJRPA8NwuZVZCE1L6i");
    assert.is(header["chain_id"], "NetXdQprcVkpaWU");
    assert.is(header["hash"], GENESIS);
    assert.is(header["context"], shell["context"]);
    assert.is((await get(node, "/chains/main/blocks/genesis/header/protocol_data/raw")).text, '""\n');
  }));

test("chain services answer the sandbox chain id, checkpoint, levels and bootstrap status", () =>
  withNode(async (node) => {
    assert.is((await get(node, "/chains/main/chain_id")).text, '"NetXdQprcVkpaWU"\n');
    const cp = (await get(node, "/chains/main/checkpoint")).json as Record<string, unknown>;
    assert.equal(Object.keys(cp), ["block", "save_point", "savepoint", "caboose", "history_mode"]);
    assert.is((cp["block"] as Record<string, unknown>)["level"], 0);
    assert.is((cp["block"] as Record<string, unknown>)["protocol_data"], "");
    assert.equal([cp["save_point"], cp["savepoint"], cp["caboose"], cp["history_mode"]], [0, 0, 0, "full"]);
    for (const l of ["checkpoint", "savepoint", "caboose"]) {
      assert.equal((await get(node, `/chains/main/levels/${l}`)).json, { block_hash: GENESIS, level: 0 });
    }
    assert.equal((await get(node, "/chains/main/is_bootstrapped")).json, { bootstrapped: true, sync_state: "synced" });
    assert.equal((await get(node, "/chains/main/invalid_blocks")).json, []);
    assert.is((await get(node, `/chains/main/invalid_blocks/${GENESIS}`)).status, 404);
    const del = await get(node, `/chains/main/invalid_blocks/${GENESIS}`, { method: "DELETE" });
    assert.is(del.status, 500);
    assert.equal(del.json, [{ kind: "permanent", id: "node.state.block_not_invalid", block: GENESIS }]);
  }));

test("the blocks listing gives the head, predecessors on request, and filters by date", () =>
  withNode(async (node) => {
    assert.equal((await get(node, "/chains/main/blocks")).json, [[GENESIS]]);
    assert.equal((await get(node, "/chains/main/blocks?length=5")).json, [[GENESIS]]);
    assert.equal((await get(node, `/chains/main/blocks?head=${GENESIS}&length=3`)).json, [[GENESIS]]);
    assert.equal((await get(node, "/chains/main/blocks?head=BLockGenesisGenesisGenesisGenesisGenesisd1f7bcGMoXy")).json, []);
    assert.equal((await get(node, "/chains/main/blocks?min_date=2018-06-30T16:07:32Z")).json, [[GENESIS]]);
    assert.equal((await get(node, "/chains/main/blocks?min_date=1530375000")).json, []);
    const bad = await get(node, "/chains/main/blocks?length=x");
    assert.is(bad.status, 400);
    assert.is(bad.text, `Failed to parse the query string: Failed to parse argument 'length' ("x"): Cannot parse natural number (number expected)`);
  }));

test("node services: version, protocols and network configuration", () =>
  withNode(async (node) => {
    assert.equal((await get(node, "/version")).json, {
      version: { major: 12, minor: 4, additional_info: "release" },
      network_version: { chain_name: "SANDBOXED_TEZOS", distributed_db_version: 2, p2p_version: 1 },
      commit_info: null,
    });
    assert.equal((await get(node, "/protocols")).json, [
      "ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im",
      "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx",
    ]);
    assert.equal((await get(node, "/config/network/user_activated_upgrades")).json, []);
    assert.equal((await get(node, "/config/network/user_activated_protocol_overrides")).json, []);
    assert.equal((await get(node, "/config/history_mode")).json, { history_mode: "full" });
  }));

test("/monitor/bootstrapped streams the head once and ends", () =>
  withNode(async (node) => {
    const r = await get(node, "/monitor/bootstrapped");
    assert.is(r.text, `{"block":"${GENESIS}","timestamp":"2018-06-30T16:07:32Z"}\n`);
  }));

test("/monitor/heads starts with the current head and stops when the client aborts", () =>
  withNode(async (node) => {
    const ac = new AbortController();
    const res = await node.fetch(new Request("http://localhost/monitor/heads/main", { signal: ac.signal }));
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const head = JSON.parse(first);
    assert.is(head.hash, GENESIS);
    assert.is(head.level, 0);
    assert.is(head.protocol_data, "");
    ac.abort();
    const end = await reader.read().catch(() => ({ done: true }));
    assert.is(end.done, true);
  }));

test("the early layout's paths answer as their current ones", () =>
  withNode(async (node) => {
    assert.is((await get(node, "/blocks/head/hash")).text, `"${GENESIS}"\n`);
    assert.is((await get(node, "/blocks/genesis/chain_id")).text, '"NetXdQprcVkpaWU"\n');
    assert.is((await get(node, "/blocks/head/level")).text, "0\n");
    assert.is((await get(node, "/blocks/head/timestamp")).text, '"2018-06-30T16:07:32Z"\n');
  }));

test("the shell's helpers answer at the genesis block too: completion and forge_block_header", () =>
  withNode(async (node) => {
    assert.equal((await get(node, "/chains/main/blocks/genesis/helpers/complete/BLockGenesis")).json, [GENESIS]);
    const shell = (await get(node, "/chains/main/blocks/genesis/header/shell")).json as Record<string, unknown>;
    const raw = (await get(node, "/chains/main/blocks/genesis/header/raw")).json;
    const forged = await get(node, "/chains/main/blocks/genesis/helpers/forge_block_header", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...shell, protocol_data: "" }),
    });
    assert.equal(forged.json, { block: raw });
  }));

test("/describe lists the block subtree resolved at a block", () =>
  withNode(async (node) => {
    const d = (await get(node, "/describe/chains/main/blocks/head?recurse=yes")).json as { static: { subdirs: { suffixes: { name: string }[] } } };
    const names = d.static.subdirs.suffixes.map((s) => s.name);
    assert.ok(names.includes("hash") && names.includes("header"), names.join(","));
  }));

test.run();
