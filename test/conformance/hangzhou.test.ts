/**
 * Every GET of `hangzhou-openapi.json` (paths below `/chains/main/blocks/head`) and of
 * `hangzhou-mempool-openapi.json` (below `/chains/main/mempool`), queried on a node baked past
 * the end of cycle 0 with concrete arguments, each 200 answer validated against the file's schema.
 * The block-level entries with genesis shapes are in blocks.test.ts, the streams in monitor.test.ts.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { OpenApi } from "../support/openapi.ts";
import { ConformanceNode, HEAD_LEVEL } from "./node.ts";
import { pendingOperations } from "./octez-schemas.ts";

const REF = new URL("../vectors/octez/", import.meta.url);
const api = OpenApi.load(new URL("hangzhou-openapi.json", REF));
const mempoolApi = OpenApi.load(new URL("hangzhou-mempool-openapi.json", REF));
const B = "/chains/main/blocks/head";
const MEMPOOL = "/chains/main/mempool";

const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const BOOTSTRAP3 = "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU";

/** Arguments read from the node itself before the cases run. */
interface Found {
  cpmm: string;
  contracts: string[];
  bigMap: { id: string; key: string } | undefined;
  headHash: string;
}

type Case = (f: Found) => string[];

/** Concrete paths (relative to the block) for each GET template. */
const CASES: Record<string, Case> = {
  "/context/big_maps/{big_map_id}": (f) => (f.bigMap ? [`/context/big_maps/${f.bigMap.id}`, `/context/big_maps/${f.bigMap.id}?offset=0&length=1`] : []),
  "/context/big_maps/{big_map_id}/{script_expr}": (f) => (f.bigMap ? [`/context/big_maps/${f.bigMap.id}/${f.bigMap.key}`] : []),
  "/context/cache/contracts/all": () => ["/context/cache/contracts/all"],
  "/context/cache/contracts/size": () => ["/context/cache/contracts/size"],
  "/context/cache/contracts/size_limit": () => ["/context/cache/contracts/size_limit"],
  "/context/constants": () => ["/context/constants"],
  "/context/constants/errors": () => ["/context/constants/errors"],
  "/context/contracts": () => ["/context/contracts"],
  "/context/contracts/{contract_id}": (f) => [BOOTSTRAP1, ...f.contracts].map((c) => `/context/contracts/${c}`),
  "/context/contracts/{contract_id}/balance": (f) => [BOOTSTRAP1, f.cpmm].map((c) => `/context/contracts/${c}/balance`),
  "/context/contracts/{contract_id}/counter": () => [`/context/contracts/${BOOTSTRAP1}/counter`],
  "/context/contracts/{contract_id}/delegate": () => [`/context/contracts/${BOOTSTRAP1}/delegate`],
  "/context/contracts/{contract_id}/entrypoints": (f) => f.contracts.map((c) => `/context/contracts/${c}/entrypoints`),
  "/context/contracts/{contract_id}/entrypoints/{string}": (f) => [`/context/contracts/${f.cpmm}/entrypoints/xtzToToken`],
  "/context/contracts/{contract_id}/manager_key": () => [`/context/contracts/${BOOTSTRAP1}/manager_key`],
  "/context/contracts/{contract_id}/script": (f) => f.contracts.map((c) => `/context/contracts/${c}/script`),
  "/context/contracts/{contract_id}/storage": (f) => f.contracts.map((c) => `/context/contracts/${c}/storage`),
  "/context/delegates": () => ["/context/delegates", "/context/delegates?active=true", "/context/delegates?inactive=true"],
  "/context/delegates/{pkh}": () => [BOOTSTRAP1, BOOTSTRAP3].map((d) => `/context/delegates/${d}`),
  "/context/delegates/{pkh}/balance": () => [`/context/delegates/${BOOTSTRAP1}/balance`],
  "/context/delegates/{pkh}/deactivated": () => [`/context/delegates/${BOOTSTRAP1}/deactivated`],
  "/context/delegates/{pkh}/delegated_balance": () => [`/context/delegates/${BOOTSTRAP1}/delegated_balance`],
  "/context/delegates/{pkh}/delegated_contracts": () => [`/context/delegates/${BOOTSTRAP1}/delegated_contracts`],
  "/context/delegates/{pkh}/frozen_balance": () => [`/context/delegates/${BOOTSTRAP1}/frozen_balance`],
  "/context/delegates/{pkh}/frozen_balance_by_cycle": () => [BOOTSTRAP1, BOOTSTRAP3].map((d) => `/context/delegates/${d}/frozen_balance_by_cycle`),
  "/context/delegates/{pkh}/grace_period": () => [`/context/delegates/${BOOTSTRAP1}/grace_period`],
  "/context/delegates/{pkh}/staking_balance": () => [`/context/delegates/${BOOTSTRAP1}/staking_balance`],
  "/context/delegates/{pkh}/voting_power": () => [`/context/delegates/${BOOTSTRAP1}/voting_power`],
  "/context/liquidity_baking/cpmm_address": () => ["/context/liquidity_baking/cpmm_address"],
  "/context/merkle_tree": () => ["/context/merkle_tree", "/context/merkle_tree?holey=true"],
  // Levels 4, 8, 12 carry seed-nonce commitments (blocks_per_commitment 4): revealed in cycle 1 or not yet; 5 and 14 have none.
  "/context/nonces/{block_level}": () => [4, 8, 12, 5, 14].map((l) => `/context/nonces/${l}`),
  "/context/raw/bytes": () => ["/context/raw/bytes?depth=1", "/context/raw/bytes?depth=2"],
  "/hash": () => ["/hash"],
  "/header/protocol_data/raw": () => ["/header/protocol_data/raw"],
  "/header/raw": () => ["/header/raw"],
  "/header/shell": () => ["/header/shell"],
  "/helpers/baking_rights": () => [
    "/helpers/baking_rights",
    `/helpers/baking_rights?level=${HEAD_LEVEL + 1}`,
    "/helpers/baking_rights?cycle=1",
    `/helpers/baking_rights?delegate=${BOOTSTRAP1}`,
    "/helpers/baking_rights?max_priority=3",
    "/helpers/baking_rights?all=true",
  ],
  "/helpers/complete/{prefix}": (f) => [`/helpers/complete/${f.headHash.slice(0, 8)}`, `/helpers/complete/${f.cpmm.slice(0, 8)}`],
  "/helpers/current_level": () => ["/helpers/current_level", "/helpers/current_level?offset=1", "/helpers/current_level?offset=-3"],
  "/helpers/endorsing_rights": () => [
    "/helpers/endorsing_rights",
    `/helpers/endorsing_rights?level=${HEAD_LEVEL - 1}`,
    "/helpers/endorsing_rights?cycle=1",
    `/helpers/endorsing_rights?delegate=${BOOTSTRAP3}`,
  ],
  "/helpers/levels_in_current_cycle": () => ["/helpers/levels_in_current_cycle", "/helpers/levels_in_current_cycle?offset=-1"],
  "/live_blocks": () => ["/live_blocks"],
  "/metadata_hash": () => ["/metadata_hash"],
  "/minimal_valid_time": () => ["/minimal_valid_time", "/minimal_valid_time?priority=1&endorsing_power=3"],
  "/operation_hashes": () => ["/operation_hashes"],
  "/operation_hashes/{list_offset}": () => ["/operation_hashes/0", "/operation_hashes/3"],
  "/operation_hashes/{list_offset}/{operation_offset}": () => ["/operation_hashes/0/0"],
  "/operation_metadata_hashes": () => ["/operation_metadata_hashes"],
  "/operation_metadata_hashes/{list_offset}": () => ["/operation_metadata_hashes/0"],
  "/operation_metadata_hashes/{list_offset}/{operation_offset}": () => ["/operation_metadata_hashes/0/0"],
  "/operations_metadata_hash": () => ["/operations_metadata_hash"],
  "/protocols": () => ["/protocols"],
  "/votes/ballot_list": () => ["/votes/ballot_list"],
  "/votes/ballots": () => ["/votes/ballots"],
  "/votes/current_period": () => ["/votes/current_period"],
  "/votes/current_proposal": () => ["/votes/current_proposal"],
  "/votes/current_quorum": () => ["/votes/current_quorum"],
  "/votes/listings": () => ["/votes/listings"],
  "/votes/proposals": () => ["/votes/proposals"],
  "/votes/successor_period": () => ["/votes/successor_period"],
  "/votes/total_voting_power": () => ["/votes/total_voting_power"],
};

/** GETs not queried here, and why. */
const ELSEWHERE: Record<string, string> = {
  "/": "blocks.test.ts: genesis shapes in the file, validated with the 011 components",
  "/header": "blocks.test.ts: genesis shapes in the file",
  "/header/protocol_data": "blocks.test.ts: genesis shapes in the file",
  "/metadata": "blocks.test.ts: genesis shapes in the file",
  "/operations": "blocks.test.ts: the file's `operation` is the genesis one (a oneOf of two identical branches)",
  "/operations/{list_offset}": "blocks.test.ts: same `operation` component",
  "/operations/{list_offset}/{operation_offset}": "blocks.test.ts: same `operation` component",
  "/context/contracts/{contract_id}/single_sapling_get_diff": "no sapling contract exists in the sandbox (none is originated at start), so no valid argument",
  "/context/sapling/{sapling_state_id}/get_diff": "no sapling state exists in the sandbox, so no valid argument",
};

const MEMPOOL_CASES: Record<string, string[]> = {
  "/filter": ["/filter", "/filter?include_default=false"],
  "/pending_operations": ["/pending_operations"],
};
const MEMPOOL_ELSEWHERE: Record<string, string> = { "/monitor_operations": "monitor.test.ts: a stream" };

const hz = suite<{ setup: Promise<void>; node: ConformanceNode; found: Found }>("hangzhou-openapi.json");

hz.before(async (ctx) => {
  // uvu hides an error thrown by a hook: keep it, and let every test fail with it.
  ctx.setup = (async () => {
    ctx.node = await ConformanceNode.open();
    const cpmm = (await ctx.node.json(`${B}/context/liquidity_baking/cpmm_address`)) as string;
    const all = (await ctx.node.json(`${B}/context/contracts`)) as string[];
    const contracts = [cpmm, ...all.filter((c) => c.startsWith("KT1") && c !== cpmm)];
    ctx.found = { cpmm, contracts, bigMap: await findBigMapKey(ctx.node), headHash: (await ctx.node.json(`${B}/hash`)) as string };
  })();
  await ctx.setup.catch(() => {});
});
hz.after(async (ctx) => {
  ctx.node?.notice("hangzhou-openapi.json + hangzhou-mempool-openapi.json");
  await ctx.node?.close();
});

/**
 * A big map with a key, read from the raw context (`big_maps/index/<id>/contents/<key hash>`,
 * the layout of Octez's Storage.Big_map); undefined when the node's raw context has none.
 */
async function findBigMapKey(node: ConformanceNode): Promise<Found["bigMap"]> {
  const r = await node.call(`${B}/context/raw/bytes/big_maps/index?depth=3`);
  if (r.status !== 200 || typeof r.json !== "object" || r.json === null) return undefined;
  for (const [id, m] of Object.entries(r.json as Record<string, { contents?: Record<string, unknown> }>)) {
    const hex = Object.keys(m.contents ?? {})[0];
    if (hex !== undefined && /^[0-9a-f]{64}$/.test(hex)) {
      return { id, key: b58encode(B58.scriptExprHash, Uint8Array.from(hex.match(/../g)!, (b) => parseInt(b, 16))) };
    }
  }
  return undefined;
}

hz("every GET of the file has a case here or a stated reason", () => {
  const gets = api.paths("get");
  assert.equal(gets.filter((t) => CASES[t] === undefined && ELSEWHERE[t] === undefined), []);
  assert.equal(Object.keys(CASES).filter((t) => !gets.includes(t)), []);
  const mgets = mempoolApi.paths("get");
  assert.equal(mgets.filter((t) => MEMPOOL_CASES[t] === undefined && MEMPOOL_ELSEWHERE[t] === undefined), []);
});

hz("the mempool holds the pending transfer that pending_operations is checked with", async (ctx) => {
  await ctx.setup;
  const p = (await ctx.node.json(`${MEMPOOL}/pending_operations`)) as { applied: { hash: string }[] };
  assert.equal(p.applied.map((o) => o.hash), [ctx.node.pending]);
});

hz("the node holds the arguments the cases need (a liquidity-baking CPMM, a big map key)", async (ctx) => {
  await ctx.setup;
  assert.match(ctx.found.cpmm, /^KT1/);
  assert.ok(ctx.found.contracts.length >= 2, ctx.found.contracts.join());
  assert.ok(ctx.found.bigMap !== undefined, "no big map key found in the raw context under big_maps/index/<id>/contents");
});

for (const [template, paths] of Object.entries(CASES)) {
  hz(`GET ${template} answers as hangzhou-openapi.json says`, async (ctx) => {
    await ctx.setup;
    const concrete = paths(ctx.found);
    assert.ok(concrete.length > 0, `no concrete argument for ${template}`);
    for (const p of concrete) {
      assert.is(api.template(p), template, p);
      await ctx.node.conforms(api, `{B}${template}`, B + p, api.response(template));
    }
  });
}

for (const [template, paths] of Object.entries(MEMPOOL_CASES)) {
  hz(`GET ${MEMPOOL}${template} answers as hangzhou-mempool-openapi.json says`, async (ctx) => {
    await ctx.setup;
    // pending_operations: the snapshot lags the v12.4 code, which adds the required `outdated` (see octez-schemas.ts).
    const schema = template === "/pending_operations" ? pendingOperations(mempoolApi) : mempoolApi.response(template);
    for (const p of paths) await ctx.node.conforms(mempoolApi, `/chains/{chain_id}/mempool${template}`, MEMPOOL + p, schema);
  });
}

hz.run();
