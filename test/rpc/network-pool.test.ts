/**
 * `/network/*` of a node over a real P2P pool (`createPool`), connected over loopback TCP to a
 * second pool: the connection asked through `PUT /network/points/<point>`, then what the node's
 * handler answers about it (connections, points, peers, logs, events, statistics), validated
 * against `rpc-openapi.json`; the second pool's requests answered by the node's distributed DB and
 * counted in the peer's metadata; the rules set through PATCH acting on the pool; the connection
 * closed through DELETE.
 */
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../lib/node.ts";
import type { ChainMessage } from "../../lib/p2p/encoding/chain-messages.ts";
import { OpenApi, type HttpMethod, type OpenApiDocument } from "../support/openapi.ts";
import { OCTEZ_FORMATS } from "../conformance/octez-formats.ts";
import { closeAll, startPool, type TestPool, until, poolSuite } from "../p2p/pool-support.ts";

const api = OpenApi.load(new URL("../vectors/octez/rpc-openapi.json", import.meta.url));
/** Octez's point log schema, whose three kinds printed as a fourth make a `oneOf` ambiguous, as `anyOf` (see network.test.ts). */
const apiForLogs = (() => {
  const doc = JSON.parse(JSON.stringify(api.doc)) as OpenApiDocument & { components: { schemas: Record<string, any> } };
  const items = doc.components.schemas["p2p_point.pool_event"].items;
  items.oneOf[1] = { anyOf: items.oneOf[1].oneOf };
  return new OpenApi(doc, "rpc-openapi.json (point log kinds as anyOf)");
})();
const FORMATS = OCTEZ_FORMATS;

async function call(node: TezosNode, method: string, path: string, body?: unknown): Promise<{ status: number; text: string; json?: unknown }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** A 200 answer, validated against the file. */
async function ok(node: TezosNode, method: HttpMethod, path: string, body?: unknown): Promise<any> {
  const r = await call(node, method.toUpperCase(), path, body);
  assert.is(r.status, 200, `${method} ${path}: ${r.text}`);
  const template = api.template(path, method)!;
  const file = template.endsWith("/points/{point}/log") ? apiForLogs : api;
  file.assertValid(r.json, file.response(template, method), `${method.toUpperCase()} ${path}`, { formats: FORMATS });
  return r.json;
}

const test = poolSuite("/network/* of a node over two real pools", { closeEach: false });

test("a node's pool connects to another through PUT, and the node answers about it and to it", async () => {
  const a: TestPool = await startPool(31);
  const b: TestPool = await startPool(32);
  const node = await createNode({ bake: { mode: "manual" }, p2p: a.pool });
  try {
    // what the second pool receives, as chain messages
    const got: ChainMessage[] = [];
    b.pool.setChainMessageHandler((_from, m) => void got.push(m));
    const events = node.fetch(new Request("http://localhost/network/log"));

    assert.is(await ok(node, "get", "/network/self"), a.identity.peerId);
    assert.equal(await ok(node, "put", `/network/points/${b.point}?timeout=10`, {}), {});

    // connections
    const [conn] = await ok(node, "get", "/network/connections");
    assert.equal([conn.peer_id, conn.incoming, conn.id_point, conn.private], [b.identity.peerId, false, { addr: `::ffff:${b.host}`, port: Number(b.point.split(":")[1]) }, false]);
    assert.equal(conn.announced_version, { chain_name: "SANDBOXED_TEZOS", distributed_db_version: 2, p2p_version: 1 });
    assert.equal(await ok(node, "get", `/network/connections/${b.identity.peerId}`), conn);

    // points and peers, with their filters
    const points = await ok(node, "get", "/network/points?filter=running");
    assert.equal(points.map(([p]: [string]) => p), [b.point]);
    assert.equal(points[0][1].state, { event_kind: "running", p2p_peer_id: b.identity.peerId });
    assert.equal(await ok(node, "get", "/network/points?filter=disconnected"), []);
    assert.equal(await ok(node, "get", `/network/points/${b.point}`), points[0][1]);
    const log = await ok(node, "get", `/network/points/${b.point}/log`);
    assert.equal(log.map(([, k]: [string, { event_kind: string }]) => k.event_kind), ["outgoing_request", "accepting_request", "rejecting_request"]);
    const peers = await ok(node, "get", "/network/peers?filter=running&filter=accepted");
    assert.equal(peers.map(([p]: [string]) => p), [b.identity.peerId]);
    const peer = await ok(node, "get", `/network/peers/${b.identity.peerId}`);
    assert.equal([peer.state, peer.trusted, peer.reachable_at], ["running", false, conn.id_point]);
    assert.equal((await ok(node, "get", `/network/peers/${b.identity.peerId}/log`)).map((e: { kind: string }) => e.kind), ["incoming_request", "connection_established"]);
    await ok(node, "get", "/network/stat");
    assert.equal(await ok(node, "get", "/network/greylist/ips"), { ips: [], not_reliable_since: null });
    assert.equal(await ok(node, "get", "/network/greylist/peers"), []);

    // the second pool asks the node for its branch: the node's distributed DB answers
    await until(() => b.pool.links().length === 1, "the second pool's link");
    const head = (await call(node, "GET", "/chains/main/blocks/head/header")).json as { chain_id: string; level: number };
    await b.pool.links()[0]!.send({ kind: "Get_current_branch", chain_id: head.chain_id });
    await until(() => got.some((m) => m.kind === "Current_branch"), "the node's answer");
    // the node asked the second pool's branch first, as Octez's P2p_reader does on each connection
    assert.equal(got.map((m) => m.kind), ["Get_current_branch", "Current_branch"]);
    const answer = got[1] as Extract<ChainMessage, { kind: "Current_branch" }>;
    assert.equal([answer.chain_id, answer.locator.current_head.level, answer.locator.history.at(-1)], [head.chain_id, head.level, (await call(node, "GET", "/chains/main/blocks/genesis/hash")).json]);
    const counted = (await ok(node, "get", `/network/peers/${b.identity.peerId}`)).peer_metadata;
    assert.equal([counted.requests.received.branch, counted.responses.sent.branch, counted.requests.sent.branch], ["1", "1", "1"]);

    // the event stream saw the connection
    const stream = (await events).body!.getReader();
    let text = "";
    while (!text.includes("connection_established")) {
      const r = await stream.read();
      assert.ok(!r.done);
      text += new TextDecoder().decode(r.value);
    }
    await stream.cancel();
    const lines = text.trim().split("\n").map((l) => JSON.parse(l) as { event: string });
    for (const e of lines) api.assertValid(e, api.response("/network/log"), "GET /network/log", { formats: FORMATS });
    assert.equal(lines.map((e) => e.event).slice(0, 3), ["new_point", "outgoing_connection", "new_peer"]);

    // the connection closed through DELETE ?wait
    assert.equal(await ok(node, "delete", `/network/connections/${b.identity.peerId}?wait`), {});
    assert.equal(a.pool.connection(b.identity.peerId), undefined);
    assert.is((await call(node, "GET", `/network/connections/${b.identity.peerId}`)).status, 404);
    assert.is((await ok(node, "get", `/network/peers/${b.identity.peerId}`)).state, "disconnected");

    // rules: a banned peer, then open again; a trusted point
    assert.equal((await ok(node, "patch", `/network/peers/${b.identity.peerId}`, { acl: "ban" })).trusted, false);
    assert.is(await ok(node, "get", `/network/peers/${b.identity.peerId}/banned`), true);
    assert.is((await ok(node, "patch", `/network/peers/${b.identity.peerId}`, { acl: "open" })).trusted, false);
    assert.is(await ok(node, "get", `/network/peers/${b.identity.peerId}/banned`), false);
    assert.is((await ok(node, "patch", `/network/points/${b.point}`, { acl: "trust" })).trusted, true);
    assert.is(await ok(node, "get", `/network/points/${b.point}/banned`), false);
  } finally {
    await node.close();
    await closeAll();
  }
});

test.run();
