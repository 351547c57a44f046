/**
 * The pool's maintenance and P2P protocol over loopback TCP: four pools reach their expected
 * connections through one bootstrap peer (Bootstrap / Advertise), a pool over its limit answers
 * with a Nack (Too_many_connections) and points, a second connection of a connected peer gets
 * Already_connected, swaps, and the GC of known points after an Advertise.
 */
import * as assert from "uvu/assert";
import { variableBytes } from "../../lib/encoding/bytes.ts";
import { decodeBinary, encodeBinary } from "../../lib/encoding/codec.ts";
import { p2pMessage } from "../../lib/p2p/encoding/p2p-message.ts";
import { authenticate } from "../../lib/p2p/socket.ts";
import type { Identity } from "../../lib/p2p/identity.ts";
import { generateIdentity } from "../../lib/p2p/identity.ts";
import { CHAIN, eventsOf, firstError, hostOf, limits, rawConnect, rejection, startPool, until, poolSuite } from "./pool-support.ts";

const test = poolSuite("P2P pool: maintenance and protocol");

/** An authenticated channel to `point` from 127.0.0.`n`, with raw message bodies. */
async function rawPeer(n: number, point: string, identity: Identity, port = 9999) {
  const connection = await rawConnect(n, point);
  const result = await authenticate({
    connection,
    incoming: false,
    identity,
    chainName: CHAIN,
    powTarget: 0,
    announcedPort: port,
    messageEncoding: variableBytes,
  });
  return result;
}

test("four pools reach their expected connections through one bootstrap peer", async () => {
  const l = limits(3, 3, 6);
  // A swap may leave a pool one connection short; as in Octez, only the maintenance's next turn
  // (maintenance_idle_time, 120 s by default) mends that: a short turn here.
  const tuning = { maintenanceIdleTimeMs: 500 };
  const a = await startPool(31, { limits: l, tuning });
  const others = [];
  for (const n of [32, 33, 34]) others.push(await startPool(n, { limits: l, bootstrapPeers: [a.point], tuning }));
  const all = [a, ...others];
  await until(() => all.every((t) => t.pool.connections().length === 3), "three connections each", 30_000).catch((e) => {
    for (const t of all) console.log(t.point, t.pool.connections().length, JSON.stringify(t.pool.points()), t.events.map((x) => x.event).join(" "), t.lines);
    throw e;
  });
  for (const t of all) {
    const peers = new Set(t.pool.connections().map((c) => c.peerId));
    assert.is(peers.size, 3);
    assert.not.ok(peers.has(t.identity.peerId));
  }
  // the others learnt each other's points from a's Advertise, after asking with Bootstrap
  for (const t of others) {
    assert.ok(eventsOf(t, "bootstrap_sent").length > 0, "asked for points");
    assert.ok(eventsOf(t, "advertise_received").length > 0, "got points");
    for (const u of others) if (u !== t) assert.ok(t.pool.point(u.point) !== undefined, "knows the others' points");
  }
  assert.ok(eventsOf(a, "bootstrap_received").length > 0 && eventsOf(a, "advertise_sent").length > 0);
});

test("past its limit, a pool answers Nack(Too_many_connections) with points", async () => {
  const a = await startPool(35, { limits: limits(0, 1, 1), tuning: { random: () => 0 } });
  const b = await startPool(36);
  const c = await startPool(37);
  await b.pool.connect(a.point);
  await until(() => a.pool.connections().length === 1, "a's first connection");
  const e = await rejection(c.pool.connect(a.point), "a connection past the limit");
  // the points a knows as public, c's own among them (as Octez: the Nack is built after the handshake set c's point public)
  const err = firstError(e);
  assert.equal({ ...err, alternative_points: undefined }, { kind: "permanent", id: "node.p2p_socket.rejected_by_nack", motive: 1, alternative_points: undefined });
  assert.equal([...(err.alternative_points as string[])].sort(), [b.point, c.point].sort());
  // c took the points offered
  assert.ok(c.pool.point(b.point) !== undefined);
  assert.ok(eventsOf(c, "new_point").some((x) => x.point === b.point));
  const info = c.pool.point(a.point)!;
  assert.equal(info.state, { kind: "disconnected" });
  assert.is(info.lastRejectedConnection![0], a.identity.peerId);
  assert.equal(c.pool.peerLog(a.identity.peerId)!.map((x) => x.kind), ["incoming_request", "request_rejected"]);
  // a's side: rejecting_request for c, no connection
  const rej = eventsOf(a, "rejecting_request");
  assert.is(rej.length, 1);
  assert.is(rej[0]!.peerId, c.identity.peerId);
  assert.is(a.pool.connections().length, 1);
  // and a pool over its limit refuses to dial (Octez: active > max)
  const d = await startPool(38, { limits: limits(0, 1, 1), tuning: { random: () => 0.99 } });
  await b.pool.connect(d.point);
  await c.pool.connect(d.point);
  await until(() => d.pool.connections().length === 2, "d's extra incoming slot");
  const tooMany = await rejection(d.pool.connect(a.point), "dialling past the limit");
  assert.equal(firstError(tooMany), { kind: "permanent", id: "node.p2p_pool.too_many_connections" });
});

test("a second connection of a connected peer gets Nack(Already_connected)", async () => {
  const a = await startPool(39);
  const b = await startPool(40);
  await b.pool.connect(a.point);
  await until(() => a.pool.connections().length === 1, "the connection");
  // the same peer (b's identity) again, from another socket
  const again = await rawPeer(40, a.point, b.identity, 7777);
  assert.is(again.ok, false);
  if (!again.ok) {
    assert.is(again.refusal.reason, "rejected-by-nack");
    assert.is(again.refusal.motive, 5);
  }
  assert.is(a.pool.connections().length, 1, "the first connection stays");
  assert.is(eventsOf(a, "rejecting_request").length, 1);
});

test("Bootstrap is answered with known public points; Advertise registers points, with the GC", async () => {
  const a = await startPool(41, { tuning: { maxKnownPoints: [6, 3] } });
  const b = await startPool(42);
  await b.pool.connect(a.point);
  await until(() => a.pool.connections().length === 1, "b connected");
  const identity = await generateIdentity(0);
  const r = await rawPeer(43, a.point, identity);
  assert.ok(r.ok);
  if (!r.ok) return;
  const channel = r.channel;
  await channel.writeMessage(encodeBinary(p2pMessage, { kind: "Bootstrap" }));
  const answer = decodeBinary(p2pMessage, await channel.readMessage());
  // Advertise of the points known public: b's, and the raw peer's own announced point
  assert.is(answer.kind, "Advertise");
  if (answer.kind === "Advertise") {
    assert.equal(answer.points.map((p) => `${p.host}:${p.port}`).sort(), [b.point, `${await hostOf(43)}:9999`].sort());
  }
  await until(() => eventsOf(a, "advertise_sent").length === 1, "advertise_sent");
  assert.equal(eventsOf(a, "bootstrap_received").map((e) => e.source), [identity.peerId]);
  const points = ["10.0.0.1:1", "10.0.0.2:1", "10.0.0.3:1", "10.0.0.4:1", "10.0.0.5:1"].map((t) => {
    const [host, port] = t.split(":");
    return { host: host!, port: Number(port) };
  });
  await channel.writeMessage(encodeBinary(p2pMessage, { kind: "Advertise", points }));
  await until(() => eventsOf(a, "advertise_received").length === 1, "advertise_received");
  await until(() => eventsOf(a, "gc_points").length >= 1, "the GC of points");
  assert.ok(a.pool.points().length <= 6, "bounded");
  assert.ok(a.pool.point(b.point) !== undefined, "a running point is never collected");
  channel.close();
});

test("swaps: a proposes one peer to the other, which connects to it and drops a", async () => {
  const l = limits(1, 2, 4);
  const a = await startPool(44, { limits: l, tuning: { maintenanceIdleTimeMs: 100 } });
  const b = await startPool(45, { limits: l });
  const c = await startPool(46, { limits: l });
  await b.pool.connect(a.point);
  await c.pool.connect(a.point);
  // a proposes every idle period; the first proposal to succeed is checked (two crossing swaps
  // may both fail with Already_connected, as in Octez, and are proposed again)
  await until(() => eventsOf(b, "swap_success").length + eventsOf(c, "swap_success").length > 0, "a swap", 30_000);
  const [x, y] = eventsOf(b, "swap_success").length > 0 ? [b, c] : [c, b];
  assert.ok(eventsOf(a, "swap_request_sent").some((e) => e.source === x.identity.peerId), "a proposed to x");
  const kinds = x.events.map((e) => e.event);
  const received = kinds.indexOf("swap_request_received");
  const acked = kinds.indexOf("swap_ack_sent");
  const success = kinds.indexOf("swap_success");
  assert.ok(received >= 0 && received < acked && acked < success, "received, acked, then connected");
  assert.equal(x.events[received], { event: "swap_request_received", source: a.identity.peerId });
  assert.equal(x.events[acked], { event: "swap_ack_sent", source: a.identity.peerId });
  assert.equal(x.events[success], { event: "swap_success", source: a.identity.peerId });
  assert.ok(
    x.events.slice(acked, success).some((e) => e.event === "connection_established" && e.peerId === y.identity.peerId),
    "x connected to the proposed peer",
  );
  // then x drops the peer it gave away (a), and a hears the ack
  await until(() => eventsOf(x, "disconnection").some((e) => e.peerId === a.identity.peerId), "x drops a");
  await until(() => eventsOf(a, "swap_ack_received").some((e) => e.source === x.identity.peerId), "a got the ack");
  // a request inside swap_linger (30 s) is ignored
  const ignoredBefore = eventsOf(x, "swap_request_ignored").length;
  const identity = await generateIdentity(0);
  const r = await rawPeer(47, x.point, identity);
  assert.ok(r.ok);
  if (!r.ok) return;
  await r.channel.writeMessage(encodeBinary(p2pMessage, { kind: "Swap_request", point: { host: "10.9.9.9", port: 1 }, peer_id: identity.peerId }));
  await until(() => eventsOf(x, "swap_request_ignored").length > ignoredBefore, "the request ignored");
  r.channel.close();
});

test.run();
