/**
 * Every line of the specification's rename table: the old path answers what its current path
 * answers (status and body), with the old arguments mapped where the old form differed; the old
 * paths are listed in `/describe`.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../mod.ts";

const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const GENESIS = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";
const B = "/chains/main/blocks";

async function answer(node: TezosNode, path: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  return { status: res.status, text: await res.text() };
}

const early = suite<{ node: TezosNode; head: string; level: number; cycle: number }>("early layout");
early.before(async (ctx) => {
  ctx.node = await createNode({ bake: { mode: "manual" } });
  await answer(ctx.node, "/sandbox/bake?count=9", { method: "POST" });
  const header = JSON.parse((await answer(ctx.node, `${B}/head/header`)).text) as { hash: string; level: number };
  ctx.head = header.hash;
  ctx.level = header.level;
  ctx.cycle = (JSON.parse((await answer(ctx.node, `${B}/head/helpers/current_level`)).text) as { cycle: number }).cycle;
});
early.after(async (ctx) => {
  await ctx.node.close();
});

/** [old request, current request]: the same answer, byte for byte. */
function pairs(c: { head: string; level: number; cycle: number }): [string, string, RequestInit?][] {
  const h = c.head;
  return [
    ["/blocks", `${B}`],
    ["/blocks?length=2", `${B}?length=2`],
    [`/blocks/${h}`, `${B}/${h}`],
    ["/blocks/head/chain_id", "/chains/main/chain_id"],
    ["/blocks/head/complete/tz1KqTp", `${B}/head/helpers/complete/tz1KqTp`],
    ["/blocks/head/fitness", `${B}/head/header/shell/fitness`],
    ["/blocks/head~1/hash", `${B}/head~1/hash`],
    ["/blocks/head/level", `${B}/head/header/shell/level`],
    ["/blocks/head/operations", `${B}/head/operations`],
    ["/blocks/head/predecessor", `${B}/head/header/shell/predecessor`],
    ["/blocks/head/predecessors?length=3", `${B}?head=${h}&length=3`],
    ["/blocks/head/protocol", `${B}/head/metadata/next_protocol_hash`],
    ["/blocks/head/proto/constants", `${B}/head/context/constants`],
    ["/blocks/head/proto/constants/block_reward", `${B}/head/context/constants/block_reward`],
    ["/blocks/head/proto/context/contracts", `${B}/head/context/contracts`],
    [`/blocks/head/proto/context/contracts/${BOOTSTRAP1}`, `${B}/head/context/contracts/${BOOTSTRAP1}`],
    ["/blocks/head/proto/context/level", `${B}/head/metadata/protocol_data`],
    ["/blocks/head/proto/context/next_level", `${B}/head/helpers/current_level`],
    ["/blocks/head/proto/context/nonce/8", `${B}/head/context/nonces/8`],
    ["/blocks/head/proto/context/voting_period_kind", `${B}/head/metadata/protocol_data`],
    ["/blocks/head/proto/header", `${B}/head/header/protocol_data`],
    ["/blocks/head/proto/helpers/level/3", `${B}/head/helpers/current_level?offset=${3 - c.level}`],
    ["/blocks/head/proto/helpers/level/20", `${B}/head/helpers/current_level?offset=${20 - c.level}`],
    ["/blocks/head/proto/helpers/levels/0", `${B}/head/helpers/levels_in_current_cycle?offset=${0 - c.cycle}`],
    ["/blocks/head/proto/helpers/minimal_timestamp", `${B}/head/helpers/baking_rights?max_priority=1`],
    ["/blocks/head/proto/helpers/minimal_timestamp?priority=2", `${B}/head/helpers/baking_rights?max_priority=3`],
    ["/blocks/head/proto/helpers/rights/baking", `${B}/head/helpers/baking_rights`],
    ["/blocks/head/proto/helpers/rights/baking?max_priority=3", `${B}/head/helpers/baking_rights?max_priority=3`],
    [`/blocks/head/proto/helpers/rights/baking/delegate/${BOOTSTRAP1}`, `${B}/head/helpers/baking_rights?delegate=${BOOTSTRAP1}`],
    ["/blocks/head/proto/helpers/rights/baking/level/12", `${B}/head/helpers/baking_rights?level=12`],
    ["/blocks/head/proto/helpers/rights/endorsement", `${B}/head/helpers/endorsing_rights`],
    [`/blocks/head/proto/helpers/rights/endorsement/delegate/${BOOTSTRAP1}`, `${B}/head/helpers/endorsing_rights?delegate=${BOOTSTRAP1}`],
    ["/blocks/head/proto/helpers/rights/endorsement/level/12", `${B}/head/helpers/endorsing_rights?level=12`],
    ["/blocks/head/proto/operations", `${B}/head/operations`],
    ["/blocks/head/raw_context/v1/constants", `${B}/head/context/raw/bytes/v1/constants`],
    ["/blocks/head/test_chain", `${B}/head/metadata/test_chain_status`],
    ["/blocks/head/timestamp", `${B}/head/header/shell/timestamp`],
    ["/bootstrapped", "/monitor/bootstrapped"],
    ["/complete/BLock", `${B}/head/helpers/complete/BLock`],
    ["/invalid_blocks", "/chains/main/invalid_blocks"],
    ["/mempool/pending_operations", "/chains/main/mempool/pending_operations"],
    ["/workers/peer_validators/main", "/workers/chain_validators/main/peers_validators"],
    ["/p2p/stat", "/network/stat"],
    ["/p2p/versions", "/network/versions"],
    ["/p2p/points", "/network/points"],
    ["/networks/point", "/network/points"],
    ["/p2p/peers", "/network/peers"],
    ["/p2p/connections", "/network/connections"],
  ];
}

early("each old read answers what its current path answers", async ({ node, head, level, cycle }) => {
  for (const [old, current] of pairs({ head, level, cycle })) {
    const a = await answer(node, old);
    const b = await answer(node, current);
    assert.is(a.status, b.status, `${old} vs ${current}`);
    assert.is(a.text, b.text, `${old} vs ${current}`);
  }
});

early("the early layout's reads take POST too, and its POST-only helpers answer as theirs", async ({ node }) => {
  const post = (path: string, body?: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
  assert.is((await answer(node, "/blocks/head/hash", post("/"))).text, (await answer(node, `${B}/head/hash`)).text);
  const data = { data: { int: "12" }, type: "nat" };
  assert.equal(
    await answer(node, "/blocks/head/proto/helpers/hash_data", post("", data)),
    await answer(node, `${B}/head/helpers/scripts/hash_data`, post("", data)),
  );
  const code = { script: [{ prim: "parameter", args: [{ prim: "unit" }] }, { prim: "storage", args: [{ prim: "unit" }] }, { prim: "code", args: [[{ prim: "CDR" }, { prim: "NIL", args: [{ prim: "operation" }] }, { prim: "PAIR" }]] }] };
  assert.equal(
    await answer(node, "/blocks/head/proto/helpers/typecheck_code", post("", code)),
    await answer(node, `${B}/head/helpers/scripts/typecheck_code`, post("", code)),
  );
  // the old minimal_timestamp took its priority in a POST body
  assert.equal(
    await answer(node, "/blocks/head/proto/helpers/minimal_timestamp", post("", { priority: 1 })),
    await answer(node, `${B}/head/helpers/baking_rights?max_priority=2`),
  );
  // old unmark is DELETE of the invalid block: an unknown one answers as the current path does
  const unmark = await answer(node, `/invalid_blocks/${GENESIS}/unmark`, { method: "POST" });
  assert.equal(unmark, await answer(node, `/chains/main/invalid_blocks/${GENESIS}`, { method: "DELETE" }));
  // a GET on a POST-only old path: 405, as a current POST-only path
  assert.is((await answer(node, "/inject_operation")).status, 405);
});

early("bad old arguments answer 400 as bad current ones do", async ({ node }) => {
  const level = await answer(node, "/blocks/head/proto/helpers/level/three");
  assert.is(level.status, 400);
  assert.match(level.text, /block_level/);
  assert.is((await answer(node, "/blocks/head/proto/helpers/minimal_timestamp?priority=-1")).status, 400);
  const body = await answer(node, "/blocks/head/proto/helpers/minimal_timestamp", { method: "POST", headers: { "content-type": "application/json" }, body: '{"priority": "x"}' });
  assert.is(body.status, 400);
  assert.is((await answer(node, "/blocks/nonsense/hash")).status, (await answer(node, `${B}/nonsense/hash`)).status);
  // the mapped paths read the block first: its answer (400 for a block id that does not parse,
  // 404 for an unknown block) is the old path's, not a 500 carrying the read's text
  for (const old of ["/blocks/nonsense/predecessors", "/blocks/nonsense/proto/helpers/level/3", "/blocks/nonsense/proto/helpers/levels/0", "/blocks/a%2Fb/predecessors"]) {
    const r = await answer(node, old);
    assert.is(r.status, 400, `${old}: ${r.text}`);
    assert.match(r.text, /^Failed to parsed an argument in path\. After "chains\/main\/blocks\/(nonsense|a\/b)", the value "Cannot parse block identifier: (nonsense|a\/b)" is not acceptable for type "block_id"$/);
  }
  for (const old of ["/blocks/99999/predecessors", "/blocks/99999/proto/helpers/level/3", "/blocks/caboose/proto/helpers/levels/0"]) {
    assert.is((await answer(node, old)).status, 404, old);
  }
});

early("/describe lists the old paths", async ({ node }) => {
  const d = JSON.parse((await answer(node, "/describe/blocks/head/proto/helpers/rights/baking/level/5")).text) as { static: { get_service: { description: string; path: unknown[] } } };
  assert.match(d.static.get_service.description, /Early layout: served as GET \(mapped/);
  const root = JSON.parse((await answer(node, "/describe?recurse=yes")).text) as { static: { subdirs: { suffixes: { name: string }[] } } };
  const names = root.static.subdirs.suffixes.map((s) => s.name);
  for (const old of ["blocks", "bootstrapped", "complete", "forge_block_header", "inject_block", "inject_operation", "inject_protocol", "invalid_blocks", "mempool", "networks", "p2p"]) {
    assert.ok(names.includes(old), old);
  }
});

early.run();
