/**
 * The specification's coverage: every path of the user's specification (`SPEC.md`: node-level
 * endpoints, protocol-specific endpoints below `{B}`, and each line of the rename table), as a
 * concrete request on a sandbox node with a few blocks and the liquidity-baking contracts,
 * answers something other than 404, 405 or 501. Where Octez itself answers 404 for the argument
 * used (a key absent from a big map), the request says so and must answer exactly that.
 *
 * The list is written here from the specification's tables (the specification is not part of the
 * repository). The `/network/*` rows and the old layout's `/p2p/*` ones are asked of a second node
 * whose P2P pool (a real one, over loopback TCP) is connected to another pool, so that each peer id
 * and point named exists. The `/workers/*` rows (with the old layout's `/workers/peer_validators`)
 * are asked of the first node, which has no peer: a peer validator's state is Octez's 404 there.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../mod.ts";
import { closeAll, startPool, until } from "../p2p/pool-support.ts";

const B = "/chains/main/blocks/head";
const C = "/chains/main";
const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const CPMM = "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5";
const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
const ZERO_SIG = "sigMzJ4GVAvXEd2RjsKGfG2H9QvqTSKCZsuB2KiHbZRGFz72XgF6KaKADznh674fQgBatxw3xdHqTtMHUZAGRprxy64wg1aq";
const GENESIS = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";
/** A well-formed peer id (16 bytes of 7) that no peer of these nodes has. */
const NO_PEER = "idqXLcdkt4BnFbfdphq3fPQeC3eaYx";

/** One concrete request for a specification row. */
interface Row {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  body?: unknown;
  /** Octez answers 404 for this argument: the row must answer exactly that. */
  octez404?: true;
}

const UNIT_SCRIPT = [
  { prim: "parameter", args: [{ prim: "unit" }] },
  { prim: "storage", args: [{ prim: "unit" }] },
  { prim: "code", args: [[{ prim: "CDR" }, { prim: "NIL", args: [{ prim: "operation" }] }, { prim: "PAIR" }]] },
];

function rows(c: { head: string; level: number; shell: unknown; protocolData: unknown; operation: unknown }): Row[] {
  const run = { script: UNIT_SCRIPT, storage: { prim: "Unit" }, input: { prim: "Unit" }, amount: "0", balance: "0", chain_id: "NetXdQprcVkpaWU" };
  const header = { ...(c.shell as object), protocol_data: c.protocolData };
  const block = { protocol_data: { protocol: HANGZHOU, priority: 0, proof_of_work_nonce: "0000000000000000", liquidity_baking_escape_vote: false, signature: ZERO_SIG }, operations: [[], [], [], []] };
  const endorsement = { branch: c.head, operations: { kind: "endorsement", level: c.level }, signature: ZERO_SIG };
  const runOperation = { operation: c.operation, chain_id: "NetXdQprcVkpaWU" };
  return [
    // Node-level endpoints
    { path: `${C}/blocks` },
    { path: `${C}/blocks?length=2&head=${c.head}` },
    { path: B },
    { path: `${C}/chain_id` },
    { path: `${C}/checkpoint` },
    { path: `${C}/invalid_blocks` },
    { path: `${C}/invalid_blocks/${GENESIS}`, octez404: true },
    { method: "DELETE", path: `${C}/invalid_blocks/${GENESIS}` },
    { path: `${C}/mempool/pending_operations` },
    { path: "/describe?recurse=yes" },
    { path: "/errors" },
    { method: "POST", path: "/injection/block", body: { data: "00", operations: [] } },
    { method: "POST", path: "/injection/operation", body: "00" },
    { method: "POST", path: "/injection/protocol", body: { expected_env_version: 3, components: [] } },
    { path: "/monitor/bootstrapped" },
    { path: "/monitor/heads/main" },
    { path: "/monitor/protocols" },
    { path: "/monitor/valid_blocks" },
    { path: "/protocols" },
    { path: `/protocols/${HANGZHOU}` },
    { path: "/config/network/user_activated_protocol_overrides" },
    { path: "/config/network/user_activated_upgrades" },
    { path: "/workers/block_validator" },
    { path: "/workers/chain_validators" },
    { path: "/workers/chain_validators/main" },
    { path: "/workers/chain_validators/main/ddb" },
    { path: "/workers/chain_validators/main/peers_validators" },
    // a node without peers has no peer validator: Octez's Not_found
    { path: `/workers/chain_validators/main/peers_validators/${NO_PEER}`, octez404: true },
    { path: "/workers/prevalidators" },
    { path: "/workers/prevalidators/main" },
    // Protocol-specific endpoints below {B}
    { path: `${B}/hash` },
    { path: `${B}/header` },
    { path: `${B}/header/shell` },
    { path: `${B}/header/protocol_data` },
    { path: `${B}/header/raw` },
    { path: `${B}/header/protocol_data/raw` },
    ...["context_hash", "fitness", "level", "operations_hash", "predecessor", "proto_level", "timestamp", "validation_passes"].map((f) => ({ path: `${B}/header/shell/${f}` })),
    { path: `${B}/metadata` },
    ...["protocol_data", "protocol_hash", "next_protocol_hash", "max_block_header_length", "max_operation_data_length", "max_operations_ttl", "operation_list_quota", "test_chain_status"].map((f) => ({ path: `${B}/metadata/${f}` })),
    { path: `${B}/operation_hashes` },
    { path: `${B}/operation_hashes/0` },
    { path: `/chains/main/blocks/${c.level - 1}/operation_hashes/0/0` },
    { path: `${B}/operations` },
    { path: `${B}/operations/0` },
    { path: `/chains/main/blocks/${c.level - 1}/operations/0/0` },
    { path: `${B}/context/constants` },
    { path: `${B}/context/constants/errors` },
    ...["block_reward", "first_free_baking_slot", "origination_burn", "time_between_slots", "preserved_cycles", "blocks_per_cycle"].map((f) => ({ path: `${B}/context/constants/${f}` })),
    { path: `${B}/context/contracts` },
    { path: `${B}/context/contracts/${CPMM}` },
    ...["balance", "counter", "delegate", "manager_key", "delegatable", "manager", "spendable"].map((f) => ({ path: `${B}/context/contracts/${BOOTSTRAP1}/${f}` })),
    ...["balance", "script", "storage", "entrypoints", "entrypoints/default"].map((f) => ({ path: `${B}/context/contracts/${CPMM}/${f}` })),
    { method: "POST", path: `${B}/context/contracts/${CPMM}/big_map_get`, body: { key: { bytes: "00" }, type: { prim: "bytes" } } },
    { path: `${B}/context/big_maps/0/exprtZBwZUeYYYfUs9B9Rg2ywHezVHnCCnmF9WsDQVrs582dSK63dC`, octez404: true },
    { path: `${B}/context/delegates` },
    { path: `${B}/context/delegates/${BOOTSTRAP1}` },
    ...["balance", "frozen_balance", "frozen_balance_by_cycle", "staking_balance", "delegated_contracts", "delegated_balance", "deactivated", "grace_period"].map((f) => ({ path: `${B}/context/delegates/${BOOTSTRAP1}/${f}` })),
    { path: `${B}/context/nonces/1` },
    { path: `${B}/context/raw/bytes?depth=1` },
    { path: `${B}/context/raw/json/big_maps/next` },
    { method: "POST", path: `${B}/context/seed`, body: {} },
    { method: "POST", path: `${B}/endorsing_power`, body: { endorsement_operation: { branch: c.head, contents: [{ kind: "endorsement_with_slot", endorsement, slot: 0 }] }, chain_id: "NetXdQprcVkpaWU" } },
    { path: `${B}/live_blocks` },
    { path: `${B}/minimal_valid_time` },
    { path: `${B}/protocols` },
    { path: `${B}/required_endorsements` },
    ...["ballot_list", "ballots", "current_period_kind", "current_proposal", "current_quorum", "listings", "proposals"].map((f) => ({ path: `${B}/votes/${f}` })),
    { path: `${B}/helpers/baking_rights` },
    { path: `${B}/helpers/endorsing_rights` },
    { path: `${B}/helpers/current_level?offset=1` },
    { path: `${B}/helpers/levels_in_current_cycle?offset=0` },
    // a cycle before the first: no levels, Octez's Not_found
    { path: `${B}/helpers/levels_in_current_cycle?offset=-1`, octez404: true },
    { path: `${B}/helpers/complete/tz1KqTp` },
    { method: "POST", path: `${B}/helpers/forge/operations`, body: c.operation },
    { method: "POST", path: `${B}/helpers/forge/protocol_data`, body: { priority: 0 } },
    { method: "POST", path: `${B}/helpers/forge_block_header`, body: header },
    { method: "POST", path: `${B}/helpers/forge/block_header`, body: header },
    { method: "POST", path: `${B}/helpers/parse/block`, body: header },
    { method: "POST", path: `${B}/helpers/parse/operations`, body: { operations: [] } },
    { method: "POST", path: `${B}/helpers/preapply/block`, body: block },
    { method: "POST", path: `${B}/helpers/preapply/operations`, body: [] },
    { method: "POST", path: `${B}/helpers/scripts/run_code`, body: run },
    { method: "POST", path: `${B}/helpers/scripts/trace_code`, body: run },
    { method: "POST", path: `${B}/helpers/scripts/typecheck_code`, body: { program: UNIT_SCRIPT, gas: "10000" } },
    { method: "POST", path: `${B}/helpers/scripts/typecheck_data`, body: { data: { int: "1" }, type: { prim: "nat" } } },
    { method: "POST", path: `${B}/helpers/scripts/hash_data`, body: { data: { int: "1" }, type: { prim: "nat" } } },
    { method: "POST", path: `${B}/helpers/scripts/pack_data`, body: { data: { int: "1" }, type: { prim: "nat" } } },
    { method: "POST", path: `${B}/helpers/scripts/entrypoint`, body: { script: UNIT_SCRIPT } },
    { method: "POST", path: `${B}/helpers/scripts/entrypoints`, body: { script: UNIT_SCRIPT } },
    { method: "POST", path: `${B}/helpers/scripts/run_operation`, body: runOperation },
    // The rename table's old paths
    { path: "/blocks" },
    { path: "/blocks/head" },
    ...["chain_id", "complete/tz1KqTp", "fitness", "hash", "level", "operations", "predecessor", "predecessors?length=2", "protocol", "proto/constants", "proto/context/contracts", `proto/context/contracts/${BOOTSTRAP1}`, "proto/context/level", "proto/context/next_level", "proto/context/nonce/1", "proto/context/voting_period_kind", "proto/header", "proto/helpers/level/2", "proto/helpers/levels/0", "proto/helpers/minimal_timestamp", "proto/helpers/rights/baking", `proto/helpers/rights/baking/delegate/${BOOTSTRAP1}`, "proto/helpers/rights/baking/level/3", "proto/helpers/rights/endorsement", `proto/helpers/rights/endorsement/delegate/${BOOTSTRAP1}`, "proto/helpers/rights/endorsement/level/3", "proto/operations", "raw_context?depth=1", "test_chain", "timestamp"].map((p) => ({ path: `/blocks/head/${p}` })),
    { method: "POST", path: "/blocks/head/preapply", body: block },
    { method: "POST", path: "/blocks/head/proto/helpers/apply_operation", body: [] },
    { method: "POST", path: "/blocks/head/proto/helpers/forge/operations", body: c.operation },
    { method: "POST", path: "/blocks/head/proto/helpers/forge/protocol_data", body: { priority: 0 } },
    { method: "POST", path: "/blocks/head/proto/helpers/hash_data", body: { data: { int: "1" }, type: { prim: "nat" } } },
    { method: "POST", path: "/blocks/head/proto/helpers/parse/block", body: header },
    { method: "POST", path: "/blocks/head/proto/helpers/parse/operations", body: { operations: [] } },
    { method: "POST", path: "/blocks/head/proto/helpers/run_code", body: run },
    { method: "POST", path: "/blocks/head/proto/helpers/trace_code", body: run },
    { method: "POST", path: "/blocks/head/proto/helpers/typecheck_code", body: { program: UNIT_SCRIPT, gas: "10000" } },
    { method: "POST", path: "/blocks/head/proto/helpers/typecheck_data", body: { data: { int: "1" }, type: { prim: "nat" } } },
    { path: "/bootstrapped" },
    { path: "/complete/tz1KqTp" },
    { path: "/describe?recurse=yes" },
    // resto's describe service: a node without a service of its own, undescribed without recurse
    { path: "/describe", octez404: true },
    { path: "/errors" },
    { method: "POST", path: "/forge_block_header", body: header },
    { method: "POST", path: "/inject_block", body: { data: "00", operations: [] } },
    { method: "POST", path: "/inject_operation", body: "00" },
    { method: "POST", path: "/inject_protocol", body: { expected_env_version: 3, components: [] } },
    { path: "/invalid_blocks" },
    { path: `/invalid_blocks/${GENESIS}`, octez404: true },
    { method: "POST", path: `/invalid_blocks/${GENESIS}/unmark` },
    { path: "/mempool/pending_operations" },
    { path: "/protocols" },
    { path: `/protocols/${HANGZHOU}` },
    { path: "/workers/peer_validators/main" },
    { path: `/workers/peer_validators/main/${NO_PEER}`, octez404: true },
  ];
}

const Coverage = suite<{ node: TezosNode; head: string; level: number; shell: unknown; protocolData: unknown; operation: unknown }>("specification coverage");

Coverage.before(async (ctx) => {
  ctx.node = await createNode({ bake: { mode: "manual" } });
  const call = async (path: string, init?: RequestInit) => (await ctx.node.fetch(new Request(`http://localhost${path}`, init))).json();
  await call("/sandbox/bake?count=3", { method: "POST" });
  const header = (await call(`${B}/header`)) as { hash: string; level: number; protocol_data?: unknown };
  ctx.head = header.hash;
  ctx.level = header.level;
  ctx.shell = await call(`${B}/header/shell`);
  ctx.protocolData = await call(`${B}/header/protocol_data/raw`);
  ctx.operation = {
    branch: header.hash,
    contents: [{ kind: "transaction", source: BOOTSTRAP1, fee: "1000", counter: "1", gas_limit: "1600", storage_limit: "0", amount: "1", destination: BOOTSTRAP1 }],
    signature: ZERO_SIG,
  };
});
Coverage.after(async (ctx) => {
  await ctx.node.close();
});

/** The rows of the network paths, for a node connected to `peer` at `point`; the rules last (a ban closes the connection). */
function networkRows(peer: string, point: string): Row[] {
  const N = "/network";
  return [
    { path: `${N}/connections` },
    { path: `${N}/connections/${peer}` },
    { path: `${N}/log` },
    { path: `${N}/peers?filter=running&filter=accepted` },
    { path: `${N}/peers/${peer}` },
    { path: `${N}/peers/${peer}/banned` },
    { path: `${N}/peers/${peer}/log` },
    { path: `${N}/points?filter=running` },
    { path: `${N}/points/${point}` },
    { method: "PUT", path: `${N}/points/${point}?timeout=5`, body: {} },
    { path: `${N}/points/${point}/banned` },
    { path: `${N}/points/${point}/log` },
    { path: `${N}/stat` },
    { path: `${N}/versions` },
    { path: `${N}/version` },
    { path: `${N}/self` },
    // the old layout
    { path: "/p2p/connections" },
    { path: `/p2p/connections/${peer}` },
    { path: "/p2p/log" },
    { path: "/p2p/peers" },
    { path: `/p2p/peers/${peer}` },
    { path: `/p2p/peers/${peer}/log` },
    { path: "/networks/point" },
    { path: `/p2p/points/${point}` },
    { path: `/p2p/points/${point}/log` },
    { path: "/p2p/stat" },
    { path: "/p2p/versions" },
    // rules, then the connection closed
    { path: `${N}/greylist/clear` },
    ...["trust", "untrust", "ban", "unban"].flatMap((rule) => [{ path: `${N}/peers/${peer}/${rule}` }, { path: `${N}/points/${point}/${rule}` }]),
    { path: `/p2p/connect/${point}` },
    { path: `/p2p/connections/${peer}/kick` },
    { method: "DELETE", path: `${N}/connections/${peer}?wait` },
  ];
}

/** The rows that answer 404, 405 or 501 (or not exactly 404 where Octez answers it). */
async function unserved(node: TezosNode, rows: readonly Row[]): Promise<string[]> {
  const missing: string[] = [];
  for (const row of rows) {
    const method = row.method ?? "GET";
    const init: RequestInit = { method };
    if (row.body !== undefined) {
      init.body = JSON.stringify(row.body);
      init.headers = { "content-type": "application/json" };
    }
    const res = await node.fetch(new Request(`http://localhost${row.path}`, init));
    const ok = row.octez404 ? res.status === 404 : ![404, 405, 501].includes(res.status);
    if (!ok) missing.push(`${method} ${row.path} → ${res.status}`);
    await res.body?.cancel();
  }
  return missing;
}

Coverage("every path of the specification is served", async (ctx) => {
  assert.equal(await unserved(ctx.node, rows(ctx)), []);
});

Coverage("every network path of the specification is served by a node with peers", async () => {
  const [a, b] = [await startPool(41), await startPool(42)];
  const node = await createNode({ bake: { mode: "manual" }, p2p: a.pool });
  try {
    await a.pool.connect(b.point);
    await until(() => a.pool.links().length === 1, "the connection");
    assert.equal(await unserved(node, networkRows(b.identity.peerId, b.point)), []);
  } finally {
    await node.close();
    await closeAll();
  }
});

Coverage.run();
