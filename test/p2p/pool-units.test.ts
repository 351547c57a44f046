/**
 * The pool's pure parts against Octez's definitions: the maintenance thresholds
 * (`P2p_maintenance.bounds`), the limits of `--connections`, the reconnection delay policy of a
 * point (`P2p_point_state.set_disconnected`), the ACL's lists, the errors' JSON (ids and fields of
 * `p2p_errors.ml`), point texts (`P2p_point.Id.of_string`), and watchers.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { defaultRegistry } from "../../lib/errors/registry.ts";
import { AccessControl } from "../../lib/p2p/pool/acl.ts";
import { identityCheckFailure, myself, parsePointText, pointTextProblem, refusalError, rejectedByNack } from "../../lib/p2p/pool/errors.ts";
import { bounds, DEFAULT_TUNING, limitsForConnections } from "../../lib/p2p/pool/limits.ts";
import { PointRecord } from "../../lib/p2p/pool/points.ts";
import { BoundedLog, Watchers } from "../../lib/p2p/pool/watch.ts";
import { generateIdentity } from "../../lib/p2p/identity.ts";

const ID = (await generateIdentity(0)).peerId;

const test = suite("P2P pool: parts");

test("thresholds and limits as Octez computes them", () => {
  // octez-node's defaults: 10 / 50 / 100
  assert.equal(bounds({ ...limitsForConnections(50), minConnections: 10, maxConnections: 100 }), {
    minThreshold: 23,
    minTarget: 36,
    maxTarget: 68,
    maxThreshold: 84,
  });
  assert.equal(limitsForConnections(50), {
    minConnections: 25,
    expectedConnections: 50,
    maxConnections: 75,
    maxIncomingConnections: 20,
    connectionTimeoutMs: 10_000,
    authenticationTimeoutMs: 5_000,
  });
  assert.equal(bounds(limitsForConnections(3)), { minThreshold: 1, minTarget: 1, maxTarget: 4, maxThreshold: 4 });
});

test("a point's reconnection delay: 1 s, then ×1.2 up to 2 days; 60 s after a disconnection", () => {
  const cfg = DEFAULT_TUNING.reconnection;
  const p = new PointRecord({ host: "1.2.3.4", port: 9732 });
  let at = 1_000_000;
  const ends: number[] = [];
  for (let i = 0; i < 3; i++) {
    p.setRequested(at, new AbortController());
    p.setDisconnected(at, cfg);
    ends.push(p.info().greylistedUntil! - at);
    at += 10_000;
  }
  assert.equal(ends, [1000, 1200, 1440]);
  assert.is(p.waitingToReconnect(at - 10_000 + 1440), true);
  assert.is(p.waitingToReconnect(at - 10_000 + 1441), false);
  assert.equal(p.log.elements().map((e) => e.kind.event), ["outgoing_request", "request_rejected", "outgoing_request", "request_rejected", "outgoing_request", "request_rejected"]);
  p.setRequested(at, new AbortController());
  p.setRunning(at, ID, undefined as never);
  p.setDisconnected(at + 5, cfg);
  assert.is(p.info().greylistedUntil, at + 5 + 60_000);
  assert.equal(p.info().lastDisconnection, [ID, at + 5]);
  assert.is(p.info().lastMiss, at + 5);
  // after a disconnection the next failure starts again from the initial delay
  p.setRequested(at + 10, new AbortController());
  p.setDisconnected(at + 10, cfg);
  assert.is(p.info().greylistedUntil, at + 10 + 1000);
  const capped = new PointRecord({ host: "1.2.3.4", port: 1 });
  for (let i = 0; i < 200; i++) {
    capped.setRequested(0, new AbortController());
    capped.setDisconnected(0, cfg);
  }
  assert.is(capped.info().greylistedUntil, 172_800_000);
});

test("the ACL: greylist expiry, the lists' bounds, unreliability, bans", () => {
  let now = 0;
  const acl = new AccessControl({ peerGreylistSize: 2, ipGreylistSize: 2, ipGreylistCleanupDelayMs: 1000, now: () => now });
  acl.greylistAddr("1.1.1.1");
  acl.greylistAddr("2.2.2.2");
  assert.equal(acl.greylistedIpList(), { ips: ["2.2.2.2", "1.1.1.1"] });
  now = 10;
  acl.greylistAddr("3.3.3.3");
  assert.equal(acl.greylistedIpList(), { ips: ["3.3.3.3", "2.2.2.2"], notReliableSince: 10 });
  assert.is(acl.bannedAddr("1.1.1.1"), true, "still greylisted, though no longer listed");
  now = 1001;
  assert.is(acl.bannedAddr("1.1.1.1"), false, "forgotten after the cleanup delay");
  assert.is(acl.bannedAddr("3.3.3.3"), true);
  acl.greylistPeer("p1");
  acl.greylistPeer("p2");
  acl.greylistPeer("p3");
  assert.equal(acl.greylistedPeerList(), ["p3", "p2"]);
  assert.is(acl.bannedPeer("p1"), false, "the ring dropped the oldest");
  acl.banAddr("4.4.4.4");
  now = 1e12;
  assert.is(acl.bannedAddr("4.4.4.4"), true, "a ban does not expire");
  acl.clear();
  assert.is(acl.bannedAddr("4.4.4.4"), false);
  assert.equal(acl.greylistedIpList(), { ips: [] });
  assert.equal(acl.greylistedPeerList(), []);
});

test("errors: Octez's ids and fields, registered", () => {
  for (const id of [
    "node.p2p_pool.pending_connection",
    "node.p2p_pool.connected",
    "node.p2p_pool.connection_refused",
    "node.p2p_pool.rejected",
    "node.p2p_pool.too_many_connections",
    "node.p2p_pool.private_mode",
    "node.p2p_pool.point_banned",
    "node.p2p_pool.peer_banned",
    "node.p2p_pool.disabled",
    "node.p2p_connect_handler.identity_check_failure",
    "node.p2p_socket.rejected_by_nack",
    "node.p2p_socket.myself",
    "node.p2p_io_scheduler.connection_closed",
  ]) assert.ok(defaultRegistry.get(id) !== undefined, id);
  assert.equal(myself.create({ connection_id: { addr: "127.0.0.1", port: 9732 } }).toJson(), {
    kind: "permanent",
    id: "node.p2p_socket.myself",
    connection_id: { addr: "::ffff:127.0.0.1", port: 9732 },
  });
  assert.equal(rejectedByNack.create({ motive: 1, alternative_points: [{ host: "::1", port: 1 }] }).toJson(), {
    kind: "permanent",
    id: "node.p2p_socket.rejected_by_nack",
    motive: 1,
    alternative_points: ["[::1]:1"],
  });
  assert.equal(rejectedByNack.create({ motive: 0 }).toJson(), { kind: "permanent", id: "node.p2p_socket.rejected_by_nack", motive: 0 });
  const id = ID;
  assert.equal(identityCheckFailure.create({ point: { host: "1.2.3.4", port: 5 }, expected_peer_id: id, received_peer_id: id }).toJson(), {
    kind: "permanent",
    id: "node.p2p_connect_handler.identity_check_failure",
    point: "1.2.3.4:5",
    expected_peer_id: id,
    received_peer_id: id,
  });
  // refusals of the handshake as Octez's errors
  const announced = { chain_name: "OTHER", distributed_db_version: 2, p2p_version: 1 };
  assert.equal(refusalError({ reason: "rejected", message: "", greylist: false, motive: 2, peerId: id, announcedVersion: announced }).toJson(), [
    { kind: "permanent", id: "node.p2p_socket.rejected_no_common_protocol", announced_version: announced },
  ]);
  assert.equal(refusalError({ reason: "rejected", message: "", greylist: false, motive: 5, peerId: id }).toJson(), [
    { kind: "permanent", id: "node.p2p_pool.rejected", peer_id: id, motive: 5 },
  ]);
  assert.equal(refusalError({ reason: "timeout", message: "", greylist: false }).toJson(), [{ kind: "temporary", id: "utils.Timeout" }]);
});

test("point texts as Octez parses them", () => {
  assert.equal(parsePointText("127.0.0.1:9732"), { point: { host: "127.0.0.1", port: 9732 }, key: "127.0.0.1:9732" });
  assert.equal(parsePointText("[::ffff:127.0.0.1]:1"), { point: { host: "127.0.0.1", port: 1 }, key: "127.0.0.1:1" });
  assert.equal(parsePointText("[2001:DB8::1]:1").key, "[2001:db8::1]:1");
  assert.equal(parsePointText(`1.2.3.4:5#${ID}`).peerId, ID);
  assert.is(pointTextProblem("1.2.3.4"), "P2p_point.of_string_exn: no port");
  assert.is(pointTextProblem("1.2.3.4:5#zz"), "Parsing of '1.2.3.4:5#zz' failed: peer id 'zz' is not valid (b58 format expected).\n");
  assert.is(pointTextProblem("[::1:5"), "Parsing of '[::1:5' failed: expected <addr>[:<port>][#<peer_id>].\n");
  assert.is(pointTextProblem("999.1.1.1:5"), "P2p_point.of_string");
  assert.throws(() => parsePointText(`1.2.3.4:5#${ID.slice(0, -1)}${ID.endsWith("a") ? "b" : "a"}`), "a peer id whose checksum is wrong");
});

test("watchers: values from the call on, in order, until abort; logs keep their last values", async () => {
  const w = new Watchers<number>();
  const stop = new AbortController();
  const it = w.watch(stop.signal);
  w.notify(1);
  w.notify(2);
  const got: number[] = [];
  const reading = (async () => {
    for await (const x of it) got.push(x);
  })();
  await new Promise((r) => setTimeout(r, 5));
  w.notify(3);
  await new Promise((r) => setTimeout(r, 5));
  stop.abort();
  await reading;
  assert.equal(got, [1, 2, 3]);
  assert.is(w.size, 0);
  const log = new BoundedLog<number>(2);
  for (const x of [1, 2, 3]) log.add(x);
  assert.equal(log.elements(), [2, 3]);
  const closed = new Watchers<number>();
  closed.close();
  for await (const _ of closed.watch(new AbortController().signal)) assert.unreachable("a closed source gives nothing");
});

test.run();
