/**
 * The P2P pool over real TCP on loopback: two pools connect and see each other (points, peers,
 * connections, events in Octez's order, logs, byte counters), chain messages through peer links,
 * disconnection, Octez's errors of `connect`, and `close()` releasing every socket.
 */
import * as assert from "uvu/assert";
import type { ChainMessage } from "../../lib/p2p/encoding/chain-messages.ts";
import type { PeerLink } from "../../lib/p2p/pool/api.ts";
import { createPool } from "../../lib/p2p/pool/mod.ts";
import { generateIdentity } from "../../lib/p2p/identity.ts";
import {
  CHAIN,
  eventsOf,
  firstError,
  freePort,
  hostOf,
  limits,
  openDescriptors,
  rejection,
  startPool,
  transport,
  until,
  poolSuite,
} from "./pool-support.ts";

const test = poolSuite("P2P pool: two pools");

const CHAIN_ID = "NetXdQprcVkpaWU";

test("two pools connect through a bootstrap peer and see each other", async () => {
  const a = await startPool(11);
  const b = await startPool(12, { bootstrapPeers: [], limits: limits(1, 1, 2) });
  // b learns a as a trusted point, then its expected peer id (as Octez, a peer id given for an
  // unknown point is not kept: the PATCH sets it before the `trust` that registers the point)
  const first = b.pool.patchPoint(a.point, { acl: "trust", peerId: a.identity.peerId });
  assert.ok(first !== undefined && first.trusted);
  assert.is(first!.expectedPeerId, undefined);
  const patched = b.pool.patchPoint(a.point, { peerId: a.identity.peerId });
  assert.is(patched!.expectedPeerId, a.identity.peerId);
  await until(() => a.pool.connections().length === 1 && b.pool.connections().length === 1, "the connection");

  const [ca] = a.pool.connections();
  const [cb] = b.pool.connections();
  assert.is(ca!.peerId, b.identity.peerId);
  assert.is(ca!.incoming, true);
  assert.is(ca!.idPoint.addr, b.host);
  assert.is(`${ca!.idPoint.addr}:${ca!.idPoint.port}`, b.point, "b announced its listening port");
  assert.is(cb!.peerId, a.identity.peerId);
  assert.is(cb!.incoming, false);
  assert.is(`${cb!.idPoint.addr}:${cb!.idPoint.port}`, a.point);
  assert.equal(cb!.announcedVersion, { chain_name: CHAIN, distributed_db_version: 2, p2p_version: 1 });
  assert.is(cb!.private, false);
  assert.equal(cb!.remoteMetadata, { disable_mempool: false, private_node: false });

  // points: b's record of a, a's record of b's listening point
  const pa = b.pool.point(a.point)!;
  assert.equal(pa.state, { kind: "running", peerId: a.identity.peerId });
  assert.is(pa.trusted, true);
  assert.is(pa.peerId, a.identity.peerId);
  assert.is(pa.lastEstablishedConnection![0], a.identity.peerId);
  assert.equal(b.pool.points(["running"]).map(([k]) => k), [a.point]);
  assert.equal(b.pool.points(["disconnected"]), []);
  const pb = a.pool.point(b.point)!;
  assert.equal(pb.state, { kind: "running", peerId: b.identity.peerId });
  assert.is(pb.trusted, false);

  // peers
  const peerA = b.pool.peer(a.identity.peerId)!;
  assert.is(peerA.state, "running");
  assert.is(peerA.score, 1);
  assert.equal(peerA.reachableAt, cb!.idPoint);
  assert.equal(peerA.connMetadata, { disable_mempool: false, private_node: false });
  assert.is(peerA.peerMetadata.valid_blocks, 0);
  assert.equal(a.pool.peers(["running"]).map(([id]) => id), [b.identity.peerId]);
  assert.is(b.pool.peer("idtNpBsnzoatN1mMvFvSmgmpgDTd6p"), undefined, "an unknown peer");

  // logs, oldest first, as Octez's point and peer events
  assert.equal(b.pool.pointLog(a.point)!.map((e) => e.kind), [
    { event: "outgoing_request" },
    { event: "accepting_request", peerId: a.identity.peerId },
    { event: "connection_established", peerId: a.identity.peerId },
  ]);
  assert.equal(b.pool.peerLog(a.identity.peerId)!.map((e) => [e.kind, e.point]), [
    ["incoming_request", cb!.idPoint],
    ["connection_established", cb!.idPoint],
  ]);
  assert.equal(a.pool.pointLog(b.point)!.map((e) => e.kind.event), ["accepting_request", "connection_established"]);

  // events, in Octez's order
  assert.equal(b.events.map((e) => e.event), ["new_point", "outgoing_connection", "new_peer", "accepting_request", "connection_established"]);
  assert.equal(b.events[1], { event: "outgoing_connection", point: a.point });
  assert.equal(b.events[4], { event: "connection_established", idPoint: cb!.idPoint, peerId: a.identity.peerId });
  const aKinds = a.events.map((e) => e.event);
  assert.equal(aKinds, ["incoming_connection", "new_point", "new_peer", "accepting_request", "connection_established"]);
  const accepting = eventsOf(a, "accepting_request")[0]!;
  assert.equal(accepting.idPoint, ca!.idPoint);
  assert.is(accepting.peerId, b.identity.peerId);
  assert.is(eventsOf(a, "new_point")[0]!.point, b.point);
});

test("chain messages go through peer links; counters move", async () => {
  const a = await startPool(13);
  const b = await startPool(14);
  const gotA: [string, ChainMessage][] = [];
  const gotB: [string, ChainMessage][] = [];
  a.pool.setChainMessageHandler((from, m) => void gotA.push([from.peerId, m]));
  b.pool.setChainMessageHandler((from, m) => void gotB.push([from.peerId, m]));
  const changes: [string, string][] = [];
  const off = a.pool.onPeerChange((link, change) => void changes.push([link.peerId, change]));
  const before = a.pool.stat();
  await b.pool.connect(a.point);
  await until(() => a.pool.links().length === 1, "a's link");
  assert.equal(changes, [[b.identity.peerId, "connected"]]);
  const [linkB] = b.pool.links() as [PeerLink];
  assert.is(linkB.peerId, a.identity.peerId);
  assert.is(linkB.disableMempool, false);
  await linkB.send({ kind: "Get_current_head", chain_id: CHAIN_ID });
  await until(() => gotA.length === 1, "the message at a");
  assert.equal(gotA[0], [b.identity.peerId, { kind: "Get_current_head", chain_id: CHAIN_ID }]);
  await a.pool.links()[0]!.send({ kind: "Get_current_branch", chain_id: CHAIN_ID });
  await until(() => gotB.length === 1, "the answer at b");
  assert.equal(gotB[0], [a.identity.peerId, { kind: "Get_current_branch", chain_id: CHAIN_ID }]);
  // a P2P message is not a chain message
  const bad = await rejection(linkB.send({ kind: "Bootstrap" } as unknown as ChainMessage), "sending a P2P message as a chain message");
  assert.instance(bad, TypeError);

  const after = a.pool.stat();
  assert.ok(after.totalRecv > before.totalRecv && after.totalSent > before.totalSent, "global totals moved");
  const st = a.pool.peer(b.identity.peerId)!.stat;
  assert.ok(st.totalRecv > 0 && st.totalSent > 0, "the peer's totals moved");
  // the flows are refreshed every second: wait for one refresh that saw bytes
  await until(() => a.pool.stat().currentInflow > 0, "a non-zero inflow");

  // disconnecting: both sides see it, records and events say so
  assert.is(await b.pool.disconnect(a.identity.peerId, { wait: true }), true);
  assert.is(await b.pool.disconnect(a.identity.peerId), false, "nothing left to disconnect");
  await until(() => a.pool.connections().length === 0, "a's side closed");
  assert.equal(changes, [[b.identity.peerId, "connected"], [b.identity.peerId, "disconnected"]]);
  off();
  const pa = b.pool.point(a.point)!;
  assert.equal(pa.state, { kind: "disconnected" });
  assert.is(pa.lastDisconnection![0], a.identity.peerId);
  assert.ok(pa.greylistedUntil! > pa.lastDisconnection![1], "Octez's reconnection delay after a disconnection");
  assert.is(pa.lastMiss, pa.lastDisconnection![1]);
  assert.is(b.pool.peer(a.identity.peerId)!.state, "disconnected");
  assert.equal(b.pool.peer(a.identity.peerId)!.stat, { totalSent: 0, totalRecv: 0, currentInflow: 0, currentOutflow: 0 });
  assert.equal(eventsOf(b, "disconnection"), [{ event: "disconnection", peerId: a.identity.peerId }]);
  await until(() => eventsOf(a, "disconnection").length === 1, "a's disconnection event");
  assert.is(b.pool.pointLog(a.point)!.at(-1)!.kind.event, "external_disconnection");
  assert.is(b.pool.stat().totalSent, a.pool.stat().totalRecv, "every byte b sent, a received");
});

test("connect fails with Octez's errors", async () => {
  const a = await startPool(15);
  const host = await hostOf(16);
  // malformed points
  for (const [text, msg] of [
    ["nonsense", "P2p_point.of_string_exn: no port"],
    ["1.2.3.4:99999", "Parsing of '1.2.3.4:99999' failed: port '99999' not in range [0-65535].\n"],
    ["a b:1", "Parsing of 'a b:1' failed: expected <addr>[:<port>][#<peer_id>].\n"],
    ["example.com:80", "P2p_point.of_string"],
  ] as const) {
    const e = await rejection(a.pool.connect(text), `connect ${text}`);
    assert.equal(firstError(e), { kind: "temporary", id: "failure", msg }, text);
  }
  assert.throws(() => a.pool.point("nonsense"));
  // nothing listens there: refused, recorded on the point with Octez's delay
  const closed = `${host}:${await freePort(host)}`;
  const refused = await rejection(a.pool.connect(closed), "connect to a closed port");
  assert.equal(firstError(refused), { kind: "permanent", id: "node.p2p_pool.connection_refused" });
  const info = a.pool.point(closed)!;
  assert.equal(info.state, { kind: "disconnected" });
  assert.ok(info.lastFailedConnection !== undefined && info.greylistedUntil! > info.lastFailedConnection);
  assert.equal(a.pool.pointLog(closed)!.map((e) => e.kind.event), ["outgoing_request", "request_rejected"]);
  // a banned address
  assert.equal(a.pool.patchPoint(`${host}:1`, { acl: "ban" }), undefined, "ban registers no point (Octez answers 404)");
  assert.is(a.pool.pointBanned(`${host}:2`), true, "the whole address is banned");
  const banned = await rejection(a.pool.connect(`${host}:3`), "connect to a banned address");
  assert.equal(firstError(banned), { kind: "permanent", id: "node.p2p_pool.point_banned", point: `${host}:3` });
  assert.equal(a.pool.patchPoint(`${host}:1`, { acl: "open" }), undefined);
  assert.is(a.pool.pointBanned(`${host}:2`), false);
  // ourselves: the point is forgotten and never registered again
  const self = await rejection(a.pool.connect(a.point), "connect to ourselves");
  assert.equal(firstError(self), { kind: "permanent", id: "node.p2p_socket.myself", connection_id: { addr: `::ffff:${a.host}`, port: Number(a.point.split(":")[1]) } });
  assert.is(a.pool.point(a.point), undefined);
  // the wrong peer at a point
  const b = await startPool(17);
  const other = (await generateIdentity(0)).peerId;
  a.pool.patchPoint(b.point, { acl: "trust" });
  a.pool.patchPoint(b.point, { peerId: other });
  const wrong = await rejection(a.pool.connect(b.point), "connect to an unexpected peer");
  assert.equal(firstError(wrong), {
    kind: "permanent",
    id: "node.p2p_connect_handler.identity_check_failure",
    point: b.point,
    expected_peer_id: other,
    received_peer_id: b.identity.peerId,
  });
  assert.equal(a.pool.connections(), []);
  // already connected, and a connection pending
  a.pool.patchPoint(b.point, { peerId: b.identity.peerId });
  const [first, second] = await Promise.allSettled([a.pool.connect(b.point), a.pool.connect(b.point)]);
  assert.is(first.status, "fulfilled");
  assert.equal(firstError((second as PromiseRejectedResult).reason), { kind: "permanent", id: "node.p2p_pool.pending_connection" });
  const again = await rejection(a.pool.connect(b.point), "connect again");
  assert.equal(firstError(again), { kind: "permanent", id: "node.p2p_pool.connected" });
});

test("close() releases every socket", async () => {
  const fds = openDescriptors();
  const a = await startPool(18, { limits: limits(1, 2, 3) });
  const b = await startPool(19, { bootstrapPeers: [a.point], limits: limits(1, 2, 3) });
  const c = await startPool(20, { bootstrapPeers: [a.point], limits: limits(1, 2, 3) });
  await until(() => a.pool.connections().length === 2 && b.pool.connections().length >= 1 && c.pool.connections().length >= 1, "connections");
  const events = a.events.length;
  await Promise.all([a.pool.close(), b.pool.close(), c.pool.close()]);
  assert.equal(a.pool.connections(), []);
  assert.ok(a.events.length > events, "the disconnections were recorded");
  // a closed pool refuses to connect, and closing again is harmless
  await rejection(a.pool.connect(b.point), "connect after close");
  await a.pool.close();
  if (fds !== undefined) await until(() => openDescriptors()! <= fds, `descriptors back to ${fds} (now ${openDescriptors()})`);
});

test("a pool without listener still dials; bad options are refused", async () => {
  const a = await startPool(21);
  const b = await startPool(22, { listen: false, bootstrapPeers: [`${a.point}#${a.identity.peerId}`], limits: limits(1, 1, 1) });
  await until(() => b.pool.connections().length === 1, "b dials a");
  assert.is(a.pool.connections()[0]!.idPoint.port, undefined, "b announced no port");
  assert.is(b.pool.point(a.point)!.expectedPeerId, a.identity.peerId);
  const t = await transport();
  const identity = await generateIdentity(0);
  const base = { transport: t, identity, chainName: CHAIN, expectedPow: 0, privateMode: false, limits: limits(0, 1, 2) };
  const e = await rejection(createPool({ ...base, bootstrapPeers: ["not a point"] }), "a malformed bootstrap peer");
  assert.is(firstError(e).id, "failure");
  await rejection(createPool({ ...base, bootstrapPeers: [], limits: limits(3, 2, 1) }), "inconsistent limits");
});

test.run();
