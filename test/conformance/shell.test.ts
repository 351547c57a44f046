/**
 * Every GET of `rpc-openapi.json` (the shell: chains, config, errors, network, protocols, stats,
 * version, workers), queried on a node baked past the end of cycle 0 with concrete arguments,
 * each 200 answer validated against the file's schema. Streams are in monitor.test.ts.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { OpenApi, type Schema } from "../support/openapi.ts";
import { ConformanceNode } from "./node.ts";
import { checkpointWithSavePoint, HANGZHOU, withFloatTimespans } from "./octez-schemas.ts";

const api = OpenApi.load(new URL("../vectors/octez/rpc-openapi.json", import.meta.url));
const GENESIS_PROTOCOL = "ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im";

/** Arguments read from the node before the cases run. */
interface Found {
  headHash: string;
  level2Hash: string;
  invalidBlock: string | undefined;
  headTime: string;
  /** A protocol injected through `POST /injection/protocol`. */
  injected: string | undefined;
}


const CASES: Record<string, (f: Found) => string[]> = {
  "/chains/{chain_id}/blocks": (f) => [
    "/chains/main/blocks",
    "/chains/main/blocks?length=3",
    `/chains/main/blocks?head=${f.level2Hash}&length=2`,
    `/chains/NetXdQprcVkpaWU/blocks?min_date=${encodeURIComponent(f.headTime)}`,
  ],
  "/chains/{chain_id}/chain_id": () => ["/chains/main/chain_id", "/chains/NetXdQprcVkpaWU/chain_id"],
  "/chains/{chain_id}/checkpoint": () => ["/chains/main/checkpoint"],
  "/chains/{chain_id}/invalid_blocks": () => ["/chains/main/invalid_blocks"],
  "/chains/{chain_id}/invalid_blocks/{block_hash}": (f) => (f.invalidBlock === undefined ? [] : [`/chains/main/invalid_blocks/${f.invalidBlock}`]),
  "/chains/{chain_id}/is_bootstrapped": () => ["/chains/main/is_bootstrapped"],
  "/chains/{chain_id}/levels/caboose": () => ["/chains/main/levels/caboose"],
  "/chains/{chain_id}/levels/checkpoint": () => ["/chains/main/levels/checkpoint"],
  "/chains/{chain_id}/levels/savepoint": () => ["/chains/main/levels/savepoint"],
  "/config": () => ["/config"],
  "/config/history_mode": () => ["/config/history_mode"],
  "/config/network/user_activated_protocol_overrides": () => ["/config/network/user_activated_protocol_overrides"],
  "/config/network/user_activated_upgrades": () => ["/config/network/user_activated_upgrades"],
  "/errors": () => ["/errors"],
  "/fetch_protocol/{Protocol_hash}": () => [`/fetch_protocol/${HANGZHOU}`],
  "/monitor/commit_hash": () => ["/monitor/commit_hash"],
  "/network/version": () => ["/network/version"],
  "/network/versions": () => ["/network/versions"],
  "/protocols": () => ["/protocols"],
  "/protocols/{Protocol_hash}": (f) => [`/protocols/${HANGZHOU}`, `/protocols/${GENESIS_PROTOCOL}`, ...(f.injected === undefined ? [] : [`/protocols/${f.injected}`])],
  "/protocols/{Protocol_hash}/environment": (f) => [
    `/protocols/${HANGZHOU}/environment`,
    `/protocols/${GENESIS_PROTOCOL}/environment`,
    ...(f.injected === undefined ? [] : [`/protocols/${f.injected}/environment`]),
  ],
  "/stats/gc": () => ["/stats/gc"],
  "/stats/memory": () => ["/stats/memory"],
  "/version": () => ["/version"],
  "/workers/block_validator": () => ["/workers/block_validator"],
  "/workers/chain_validators": () => ["/workers/chain_validators"],
  "/workers/chain_validators/{chain_id}": () => ["/workers/chain_validators/main"],
  "/workers/chain_validators/{chain_id}/ddb": () => ["/workers/chain_validators/main/ddb"],
  "/workers/chain_validators/{chain_id}/peers_validators": () => ["/workers/chain_validators/main/peers_validators"],
  "/workers/prevalidators": () => ["/workers/prevalidators"],
  "/workers/prevalidators/{chain_id}": () => ["/workers/prevalidators/main"],
};

/**
 * Where this node answers differently from Octez v12 on purpose, the schema used instead:
 * the checkpoint carries the specification's `save_point` next to v12's `savepoint` (DESIGN.md).
 * Where the file is wrong, the schema corrected: the workers' durations are floats, which the
 * file writes as integers (`withFloatTimespans`).
 */
const EXCEPTIONS: Record<string, () => Schema> = {
  "/chains/{chain_id}/checkpoint": () => checkpointWithSavePoint(api),
  "/workers/block_validator": () => withFloatTimespans(api, "/workers/block_validator"),
  "/workers/chain_validators/{chain_id}": () => withFloatTimespans(api, "/workers/chain_validators/{chain_id}"),
};

const NO_PEER = "the sandbox node has no peer or known point, so there is no valid argument";
const NO_P2P =
  "the node runs without P2P layer, as npm start does by default: Octez's node.p2p_pool.disabled; test/rpc/network.test.ts validates it against this file over a pool";
/** GETs not queried here, and why. */
const ELSEWHERE: Record<string, string> = {
  "/monitor/active_chains": "monitor.test.ts: a stream",
  "/monitor/bootstrapped": "monitor.test.ts: a stream",
  "/monitor/heads/{chain_id}": "monitor.test.ts: a stream",
  "/monitor/protocols": "monitor.test.ts: a stream",
  "/monitor/valid_blocks": "monitor.test.ts: a stream",
  "/network/log": "a stream of P2P events; a sandbox without peers has none to send",
  "/network/connections": NO_P2P,
  "/network/greylist/clear": NO_P2P,
  "/network/greylist/ips": NO_P2P,
  "/network/greylist/peers": NO_P2P,
  "/network/peers": NO_P2P,
  "/network/points": NO_P2P,
  "/network/self": NO_P2P,
  "/network/stat": NO_P2P,
  "/network/connections/{peer_id}": NO_PEER,
  "/network/peers/{peer_id}": NO_PEER,
  "/network/peers/{peer_id}/ban": NO_PEER,
  "/network/peers/{peer_id}/banned": NO_PEER,
  "/network/peers/{peer_id}/log": NO_PEER,
  "/network/peers/{peer_id}/trust": NO_PEER,
  "/network/peers/{peer_id}/unban": NO_PEER,
  "/network/peers/{peer_id}/untrust": NO_PEER,
  "/network/points/{point}": NO_PEER,
  "/network/points/{point}/ban": NO_PEER,
  "/network/points/{point}/banned": NO_PEER,
  "/network/points/{point}/log": NO_PEER,
  "/network/points/{point}/trust": NO_PEER,
  "/network/points/{point}/unban": NO_PEER,
  "/network/points/{point}/untrust": NO_PEER,
  "/workers/chain_validators/{chain_id}/peers_validators/{peer_id}": NO_PEER,
};

const sh = suite<{ setup: Promise<void>; node: ConformanceNode; found: Found }>("rpc-openapi.json");

sh.before(async (ctx) => {
  // uvu hides an error thrown by a hook: keep it, and let every test fail with it.
  ctx.setup = (async () => {
    ctx.node = await ConformanceNode.open();
    const head = (await ctx.node.json("/chains/main/blocks/head/header")) as { hash: string; timestamp: string };
    const level2Hash = (await ctx.node.json("/chains/main/blocks/2/hash")) as string;
    ctx.found = { headHash: head.hash, level2Hash, headTime: head.timestamp, invalidBlock: await forceInvalidBlock(ctx.node), injected: await ctx.node.injectProtocol() };
  })();
  await ctx.setup.catch(() => {});
});
sh.after(async (ctx) => {
  ctx.node?.notice("rpc-openapi.json");
  await ctx.node?.close();
});

/**
 * Injects with `force=true` the level-2 block's header (a block without operations) with its
 * signature spoiled, so that the node records an invalid block; its hash, or undefined when none
 * got recorded.
 */
async function forceInvalidBlock(node: ConformanceNode): Promise<string | undefined> {
  assert.equal(await node.json("/chains/main/blocks/2/operation_hashes"), [[], [], [], []]);
  const raw = (await node.json("/chains/main/blocks/2/header/raw")) as string;
  const spoiled = raw.slice(0, -2) + (raw.endsWith("00") ? "01" : "00");
  const res = await node.node.fetch(
    new Request("http://localhost/injection/block?force=true", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ data: spoiled, operations: [[], [], [], []] }),
    }),
  );
  await res.text();
  const invalid = (await node.json("/chains/main/invalid_blocks")) as { block: string }[];
  return invalid[0]?.block;
}

sh("every GET of the file has a case here or a stated reason", () => {
  const gets = api.paths("get");
  assert.equal(gets.filter((t) => CASES[t] === undefined && ELSEWHERE[t] === undefined), []);
  assert.equal(Object.keys(CASES).filter((t) => !gets.includes(t)), []);
});

sh("the checkpoint's save_point, the one field the exception adds, equals savepoint", async (ctx) => {
  await ctx.setup;
  const c = (await ctx.node.json("/chains/main/checkpoint")) as { savepoint: unknown; save_point: unknown };
  assert.is(c.save_point, c.savepoint);
  assert.equal(api.validate({ ...c, save_point: "x" }, checkpointWithSavePoint(api)), [{ path: "$.save_point", message: "expected integer, got string \"x\"" }]);
});

sh("POST /injection/protocol of a small record gives a protocol to query", async (ctx) => {
  await ctx.setup;
  assert.match(ctx.found.injected ?? "", /^P[1-9A-HJ-NP-Za-km-z]{50}$/);
});

sh("a forced injection of a spoiled block leaves an invalid block to query", async (ctx) => {
  await ctx.setup;
  assert.ok(ctx.found.invalidBlock !== undefined, "POST /injection/block?force=true of a spoiled level-2 header recorded no invalid block");
});

for (const [template, paths] of Object.entries(CASES)) {
  sh(`GET ${template} answers as rpc-openapi.json says`, async (ctx) => {
    await ctx.setup;
    const concrete = paths(ctx.found);
    assert.ok(concrete.length > 0, `no concrete argument for ${template}`);
    for (const p of concrete) {
      assert.is(api.template(p), template, p);
      await ctx.node.conforms(api, template, p, EXCEPTIONS[template]?.() ?? api.response(template));
    }
  });
}

sh.run();
