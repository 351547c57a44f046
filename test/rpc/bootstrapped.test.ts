/**
 * The bootstrapped state over RPC, as Octez v12 serves it: `GET /chains/<c>/is_bootstrapped`
 * (the flag and the heuristic's status), `PATCH /chains/<c>` (forcing the flag) and
 * `/monitor/bootstrapped` (the current head, each new head while not bootstrapped, then the end;
 * at once the head and the end when bootstrapped).
 *
 * First the services over a real chain and a real heuristic with a fixed clock, the test playing
 * the chain validator's part (two peers' heads); then whole nodes: a threshold of 0 (the default)
 * is bootstrapped at once, a threshold of 2 is not, and forcing the flag ends an open stream; then
 * nodes over real P2P pools, where the peers' heads reach the heuristic through the chain
 * validator: one peer bootstraps a node of threshold 1, not one of threshold 2.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createBaker } from "../../lib/baker/baker.ts";
import { bootstrapSecretKeys } from "../../lib/baker/keys.ts";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { createRpcHandler } from "../../lib/rpc/handler.ts";
import { chainServices } from "../../lib/rpc/services/chains.ts";
import type { ShellView } from "../../lib/rpc/services/context.ts";
import { nodeServices } from "../../lib/rpc/services/node.ts";
import { SANDBOX_GENESIS } from "../../lib/shell/genesis.ts";
import { ProtocolRegistry } from "../../lib/shell/protocols.ts";
import { createSyncHeuristic } from "../../lib/shell/sync-heuristic.ts";
import { ACTIVATION_TIME, openSandbox } from "../baker/sandbox.ts";
import { closeAll, startPool } from "../p2p/pool-support.ts";

type Fetch = (request: Request) => Promise<Response>;

async function call(fetch: Fetch, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  const isJson = (res.headers.get("content-type") ?? "").startsWith("application/json");
  return { status: res.status, json: isJson && text !== "" ? JSON.parse(text) : text };
}

/** A stream's values, one JSON value per chunk; `undefined` once it ends. */
async function stream(fetch: Fetch, path: string) {
  const res = await fetch(new Request(`http://localhost${path}`));
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  return {
    async next(): Promise<any> {
      const { value, done } = await reader.read();
      return done ? undefined : JSON.parse(decoder.decode(value));
    },
    cancel: () => reader.cancel(),
  };
}

const services = suite("bootstrapped services over a chain and a heuristic");

services("threshold 2: not bootstrapped, the stream follows the heads; two peers in step bootstrap the node and end it", async () => {
  const sb = await openSandbox();
  const nowS = ACTIVATION_TIME + 100;
  const sync = createSyncHeuristic({ threshold: 2, latency: 150, now: () => nowS * 1000 });
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), mode: "manual", now: () => nowS * 1000 });
  const shell: ShellView = {
    chain: sb.chain,
    protocols: new ProtocolRegistry(sb.chain.store, []),
    genesis: SANDBOX_GENESIS,
    validator: sb.validator,
    blockRpc: () => undefined,
    sync,
  };
  const fetch = createRpcHandler(chainServices(shell).merge(nodeServices(shell)), { onInternalError: (e) => assert.unreachable(String(e)) });
  try {
    assert.equal(await call(fetch, "GET", "/chains/main/is_bootstrapped"), { status: 200, json: { bootstrapped: false, sync_state: "unsynced" } });
    const monitor = await stream(fetch, "/monitor/bootstrapped");
    const head = sb.chain.head;
    assert.equal(await monitor.next(), { block: head.hash, timestamp: new Date(head.header.timestamp * 1000).toISOString().replace(".000Z", "Z") });
    const b2 = await baker.bakeBlock();
    assert.is((await monitor.next()).block, b2.hash, "a new head while bootstrapping");
    sync.update({ timestamp: nowS - 10, peerId: "idtPeerA" });
    assert.equal((await call(fetch, "GET", "/chains/main/is_bootstrapped")).json, { bootstrapped: false, sync_state: "unsynced" }, "one peer of two");
    const b3 = await baker.bakeBlock();
    assert.is((await monitor.next()).block, b3.hash);
    // The second peer's head is 150 s old: just within the latency.
    sync.update({ timestamp: nowS - 150, peerId: "idtPeerB" });
    assert.is(await monitor.next(), undefined, "bootstrapped: the stream ends");
    assert.equal((await call(fetch, "GET", "/chains/main/is_bootstrapped")).json, { bootstrapped: true, sync_state: "synced" });
    // Already bootstrapped: the head, then the end.
    const again = await stream(fetch, "/monitor/bootstrapped");
    assert.is((await again.next()).block, b3.hash);
    assert.is(await again.next(), undefined);
    // Forced back to not bootstrapped (Octez's PATCH): the stream waits again, until forced back.
    assert.equal(await call(fetch, "PATCH", "/chains/main", { bootstrapped: false }), { status: 200, json: {} });
    assert.equal((await call(fetch, "GET", "/chains/main/is_bootstrapped")).json, { bootstrapped: false, sync_state: "synced" });
    const waiting = await stream(fetch, "/monitor/bootstrapped");
    assert.is((await waiting.next()).block, b3.hash);
    const end = waiting.next();
    assert.equal(await call(fetch, "PATCH", `/chains/${sb.chain.chainId}`, { bootstrapped: true }), { status: 200, json: {} });
    assert.is(await end, undefined);
  } finally {
    await baker.stop();
    await sb.close();
  }
});

services("two peers on the same old head: stuck, and bootstrapped; bad PATCH bodies and chains change nothing", async () => {
  const sb = await openSandbox();
  const nowS = ACTIVATION_TIME + 10_000;
  const sync = createSyncHeuristic({ threshold: 2, latency: 150, now: () => nowS * 1000 });
  const shell: ShellView = { chain: sb.chain, protocols: new ProtocolRegistry(sb.chain.store, []), genesis: SANDBOX_GENESIS, validator: sb.validator, blockRpc: () => undefined, sync };
  const fetch = createRpcHandler(chainServices(shell).merge(nodeServices(shell)));
  try {
    sync.update({ timestamp: ACTIVATION_TIME, peerId: "idtPeerA" });
    sync.update({ timestamp: ACTIVATION_TIME, peerId: "idtPeerB" });
    assert.equal((await call(fetch, "GET", "/chains/main/is_bootstrapped")).json, { bootstrapped: true, sync_state: "stuck" });
    sync.forceBootstrapped(false);
    for (const body of ["{}", '{"bootstrapped":"yes"}', "[true]", "true", "{"]) {
      const r = await call(fetch, "PATCH", "/chains/main", body);
      assert.is(r.status, 400, body);
      assert.match(r.json, /^Failed to parse the request body/, body);
    }
    assert.is((await call(fetch, "PATCH", "/chains/test", { bootstrapped: true })).status, 404);
    assert.is((await call(fetch, "PATCH", "/chains/NetXz969SFaFn8k", { bootstrapped: true })).status, 404, "another chain (granadanet's id)");
    assert.is((await call(fetch, "GET", "/chains/test/is_bootstrapped")).status, 404);
    assert.not.ok(sync.isBootstrapped(), "nothing was forced");
  } finally {
    await sb.close();
  }
});

services.run();

const nodes = suite("bootstrapped on whole nodes");

async function withNode(options: Parameters<typeof createNode>[0], f: (node: TezosNode) => Promise<void>): Promise<void> {
  const node = await createNode(options);
  try {
    await f(node);
  } finally {
    await node.close();
  }
}

nodes("by default (threshold 0) a node is bootstrapped at once: the head, then the end", () =>
  withNode({ bake: { mode: "manual" } }, async (node) => {
    const fetch: Fetch = (r) => node.fetch(r);
    assert.equal((await call(fetch, "GET", "/chains/main/is_bootstrapped")).json, { bootstrapped: true, sync_state: "synced" });
    const monitor = await stream(fetch, "/monitor/bootstrapped");
    assert.is((await monitor.next()).block, (await call(fetch, "GET", "/chains/main/blocks/head/hash")).json);
    assert.is(await monitor.next(), undefined);
  }));

nodes("threshold 2: unsynced and not bootstrapped; the stream follows baked heads until the flag is forced", () =>
  withNode({ bake: { mode: "manual" }, synchronisationThreshold: 2, syncLatency: 30 }, async (node) => {
    const fetch: Fetch = (r) => node.fetch(r);
    assert.equal((await call(fetch, "GET", "/chains/main/is_bootstrapped")).json, { bootstrapped: false, sync_state: "unsynced" });
    const monitor = await stream(fetch, "/monitor/bootstrapped");
    const head = (await call(fetch, "GET", "/chains/main/blocks/head/hash")).json;
    assert.is((await monitor.next()).block, head);
    const [h4, h5] = (await call(fetch, "POST", "/sandbox/bake?count=2")).json;
    assert.is((await monitor.next()).block, h4);
    assert.is((await monitor.next()).block, h5);
    const end = monitor.next();
    await call(fetch, "PATCH", "/chains/main", { bootstrapped: true });
    assert.is(await end, undefined);
    assert.equal((await call(fetch, "GET", "/chains/main/is_bootstrapped")).json, { bootstrapped: true, sync_state: "unsynced" });
  }));

nodes("a stream left by its client is dropped; closing the node ends a waiting stream", async () => {
  const node = await createNode({ bake: { mode: "manual" }, synchronisationThreshold: 1 });
  const fetch: Fetch = (r) => node.fetch(r);
  const left = await stream(fetch, "/monitor/bootstrapped");
  await left.next();
  await left.cancel();
  const waiting = await stream(fetch, "/monitor/bootstrapped");
  await waiting.next();
  const end = waiting.next();
  await node.close();
  assert.is(await end, undefined);
});

nodes("limits out of range are refused, naming the option", async () => {
  for (const [options, message] of [
    [{ synchronisationThreshold: 256 }, /synchronisationThreshold must be a whole number of peers from 0 to 255, got 256/],
    [{ synchronisationThreshold: -1 }, /synchronisationThreshold/],
    [{ synchronisationThreshold: 1.5 }, /synchronisationThreshold/],
    [{ syncLatency: 65_536 }, /syncLatency must be a whole number of seconds from 0 to 65535, got 65536/],
    [{ bakerKeys: ["bootstrap1", "alice"] }, /Unknown baker key "alice"/],
  ] as const) {
    await createNode(options).then(
      async (n) => {
        await n.close();
        assert.unreachable(JSON.stringify(options));
      },
      (e: Error) => assert.match(e.message, message),
    );
  }
});

nodes.run();

const network = suite("bootstrapped over the network");
network.after(async () => {
  await closeAll();
});

/** Asks again (bounded) until `check` holds. */
async function eventually(what: string, check: () => Promise<boolean>, capMs = 20_000): Promise<void> {
  const end = Date.now() + capMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

network("a node of threshold 1 is bootstrapped by its peer's recent head, and its stream ends; one of threshold 2 is not", async () => {
  const [a, b, c] = [await startPool(81), await startPool(82), await startPool(83)];
  const A = await createNode({ bake: { mode: "manual" }, p2p: a.pool });
  const B = await createNode({ bake: { mode: "manual" }, activate: false, synchronisationThreshold: 1, p2p: b.pool });
  const C = await createNode({ bake: { mode: "manual" }, activate: false, synchronisationThreshold: 2, p2p: c.pool });
  const fetchB: Fetch = (r) => B.fetch(r);
  const fetchC: Fetch = (r) => C.fetch(r);
  try {
    assert.equal((await call(fetchB, "GET", "/chains/main/is_bootstrapped")).json, { bootstrapped: false, sync_state: "unsynced" });
    const monitor = await stream(fetchB, "/monitor/bootstrapped");
    assert.is((await monitor.next()).block, "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2");
    await b.pool.connect(a.point);
    await c.pool.connect(a.point);
    // Heads B validates on the way may come first; the stream ends once A's head has counted.
    const known = new Set<string>();
    for (let v = await monitor.next(); v !== undefined; v = await monitor.next()) known.add(v.block);
    for (const block of known) assert.is((await call(fetchB, "GET", `/chains/main/blocks/${block}/hash`)).json, block, "each streamed head is a block of B's");
    assert.equal((await call(fetchB, "GET", "/chains/main/is_bootstrapped")).json, { bootstrapped: true, sync_state: "synced" });
    const top = (await call((r) => A.fetch(r), "GET", "/chains/main/blocks/head/hash")).json;
    await eventually("C at A's head", async () => (await call(fetchC, "GET", "/chains/main/blocks/head/hash")).json === top);
    assert.equal((await call(fetchC, "GET", "/chains/main/is_bootstrapped")).json, { bootstrapped: false, sync_state: "unsynced" }, "one peer of two");
  } finally {
    await A.close();
    await B.close();
    await C.close();
  }
});

network.run();
