/**
 * The pool's access control over loopback TCP: bans and trust of points (the whole address) and
 * peers, private mode, greylisting of an address that sends garbage during the handshake (its
 * next connection closed at once, `clearGreylist` lets it back), of a peer that sends an unknown
 * message once connected, and a peer that stalls mid-handshake dropped after the authentication
 * timeout. On Deno every outgoing connection comes from 127.0.0.1, which the tests allow for.
 */
import * as assert from "uvu/assert";
import { variableBytes } from "../../lib/encoding/bytes.ts";
import { generateIdentity } from "../../lib/p2p/identity.ts";
import { authenticate } from "../../lib/p2p/socket.ts";
import {
  CHAIN,
  drainUntilClosed,
  eventsOf,
  firstBytes,
  firstError,
  hostOf,
  limits,
  rawConnect,
  rejection,
  startPool,
  until,
  poolSuite,
} from "./pool-support.ts";

const test = poolSuite("P2P pool: access control");

test("banning a point bans its address and its connected peers; open lifts it; trust", async () => {
  const a = await startPool(51);
  const b = await startPool(52);
  await b.pool.connect(a.point);
  await until(() => a.pool.connections().length === 1, "connected");
  const info = a.pool.patchPoint(b.point, { acl: "ban" })!;
  assert.is(info.trusted, false);
  await until(() => a.pool.connections().length === 0 && b.pool.connections().length === 0, "the banned peer dropped");
  assert.is(a.pool.pointBanned(b.point), true);
  assert.is(a.pool.pointBanned(`${b.host}:1`), true, "every port of the address");
  assert.is(a.pool.peerBanned(b.identity.peerId), true, "its peer too (Octez bans the peers connected from there)");
  // b's next connection is closed before any handshake; a refuses to dial b
  const refused = await rejection(b.pool.connect(a.point), "b connects to a");
  assert.is(firstError(refused).id, "node.p2p_io_scheduler.connection_closed");
  const out = await rejection(a.pool.connect(b.point), "a dials b");
  assert.equal(firstError(out), { kind: "permanent", id: "node.p2p_pool.point_banned", point: b.point });
  // open: unbanned (address, and the peers connected from it: none now), untrusted
  const opened = a.pool.patchPoint(b.point, { acl: "open" })!;
  assert.is(opened.trusted, false);
  assert.is(a.pool.pointBanned(b.point), false);
  assert.is(a.pool.peerBanned(b.identity.peerId), true, "the peer stays banned: it was not connected when unbanning");
  const open = await rejection(b.pool.connect(a.point), "a banned peer connects");
  assert.is(firstError(open).id, "node.p2p_socket.rejected_socket_connection", "a closes the handshake of a banned peer");
  const peerInfo = a.pool.patchPeer(b.identity.peerId, { acl: "open" })!;
  assert.is(peerInfo.trusted, false);
  assert.is(a.pool.peerBanned(b.identity.peerId), false);
  await until(() => b.pool.point(a.point)!.greylistedUntil! < Date.now(), "b's reconnection delay");
  await b.pool.connect(a.point);
  await until(() => a.pool.connections().length === 1, "reconnected");
  // trust: the point is registered trusted (and unbanned)
  const c = await hostOf(53);
  const trusted = a.pool.patchPoint(`${c}:4444`, { acl: "trust" })!;
  assert.is(trusted.trusted, true);
  assert.equal(a.pool.pointLog(`${c}:4444`), []);
  assert.equal(a.pool.patchPoint(`${c}:4444`, {})!.trusted, true, "an empty change changes nothing");
  // peers: ban drops the connection, trust registers and unbans, open untrusts
  const unknown = (await generateIdentity(0)).peerId;
  assert.is(a.pool.patchPeer(unknown, { acl: "ban" }), undefined, "banning an unknown peer registers nothing");
  assert.is(a.pool.peerBanned(unknown), true);
  const t = a.pool.patchPeer(unknown, { acl: "trust" })!;
  assert.is(t.trusted, true);
  assert.is(a.pool.peerBanned(unknown), false);
  a.pool.patchPeer(b.identity.peerId, { acl: "ban" });
  await until(() => a.pool.connections().length === 0, "the banned peer dropped");
  assert.throws(() => a.pool.patchPeer("not a peer id", { acl: "ban" }));
  assert.throws(() => a.pool.patchPoint(b.point, { acl: "nonsense" as "ban" }));
  // clearGreylist clears the bans too (Octez's P2p_acl.clear)
  a.pool.clearGreylist();
  assert.is(a.pool.peerBanned(b.identity.peerId), false);
});

test("unban and untrust (the deprecated GETs' changes): each one half of open, as Octez's P2p_pool", async () => {
  const a = await startPool(57);
  const b = await startPool(58);
  await b.pool.connect(a.point);
  await until(() => a.pool.connections().length === 1, "connected");
  // a peer: banned and dropped, then unban lets it connect again; its trust is left as it was
  a.pool.patchPeer(b.identity.peerId, { acl: "trust" });
  a.pool.patchPeer(b.identity.peerId, { acl: "ban" });
  await until(() => a.pool.connections().length === 0 && b.pool.connections().length === 0, "the banned peer dropped");
  assert.is(a.pool.peerBanned(b.identity.peerId), true);
  const refused = await rejection(b.pool.connect(a.point), "a banned peer connects");
  assert.is(firstError(refused).id, "node.p2p_socket.rejected_socket_connection");
  a.pool.patchPeer(b.identity.peerId, { acl: "trust" });
  assert.is(a.pool.patchPeer(b.identity.peerId, { acl: "unban" })!.trusted, true, "unban leaves the trust");
  assert.is(a.pool.peerBanned(b.identity.peerId), false);
  assert.is(a.pool.patchPeer(b.identity.peerId, { acl: "untrust" })!.trusted, false);
  assert.is(a.pool.peerBanned(b.identity.peerId), false, "untrust bans nothing");
  await until(() => b.pool.point(a.point)!.greylistedUntil! < Date.now(), "b's reconnection delay");
  await b.pool.connect(a.point);
  await until(() => a.pool.connections().length === 1, "reconnected after unban");
  // a point: unban lifts the address's ban and its connected peers'; untrust only the trust
  const c = await hostOf(59);
  a.pool.patchPoint(`${c}:4444`, { acl: "trust" });
  a.pool.patchPoint(`${c}:4444`, { acl: "ban" });
  assert.is(a.pool.pointBanned(`${c}:4444`), true);
  a.pool.patchPoint(`${c}:4444`, { acl: "trust" });
  a.pool.patchPoint(`${c}:4444`, { acl: "untrust" });
  assert.is(a.pool.point(`${c}:4444`)!.trusted, false);
  a.pool.patchPoint(`${c}:4444`, { acl: "ban" });
  assert.is(a.pool.patchPoint(`${c}:4444`, { acl: "unban" })!.trusted, false);
  assert.is(a.pool.pointBanned(`${c}:4444`), false);
});

test("private mode: only trusted points, not advertised, untrusted incoming refused", async () => {
  const b = await startPool(54);
  const a = await startPool(55, { privateMode: true, bootstrapPeers: [b.point], limits: limits(1, 1, 2) });
  await until(() => a.pool.connections().length === 1, "a dials its trusted point");
  await until(() => b.pool.connections().length === 1, "b sees a");
  const view = b.pool.connections()[0]!;
  assert.is(view.private, true, "a says it is private");
  assert.equal(view.remoteMetadata, { disable_mempool: false, private_node: true });
  // c asks b for points: b never gives a's point (private), only the known public ones
  const c = await startPool(56, { limits: limits(2, 2, 3) });
  await c.pool.connect(b.point);
  await until(() => eventsOf(c, "advertise_received").length > 0, "b's Advertise");
  assert.is(c.pool.point(a.point), undefined);
  // a refuses to dial an untrusted point, and closes the handshake of an untrusted peer
  const e = await rejection(a.pool.connect(c.point), "a dials an untrusted point");
  assert.equal(firstError(e), { kind: "permanent", id: "node.p2p_pool.private_mode" });
  const r = await rejection(c.pool.connect(a.point), "c connects to a");
  assert.is(firstError(r).id, "node.p2p_socket.rejected_socket_connection");
  assert.is(a.pool.connections().length, 1);
  // a private node answers no Bootstrap
  assert.is(eventsOf(a, "bootstrap_received").length, 0);
});

test("garbage in a handshake greylists the address: closed at once, until clearGreylist", async () => {
  const a = await startPool(57);
  const raw = await rawConnect(58, a.point);
  const w = raw.writable.getWriter();
  await w.write(Uint8Array.from([0, 4, 1, 2, 3, 4])); // a connection message of 4 bytes: does not decode
  w.releaseLock();
  const host = await hostOf(58);
  await drainUntilClosed(raw);
  await until(() => a.pool.greylistedIps().ips.includes(host), "the address greylisted");
  assert.ok(eventsOf(a, "authentication_failed").length === 1);
  assert.ok(a.lines.some((l) => l.includes("greylisted")), "one line logged");
  assert.is(a.pool.pointBanned(`${host}:1`), true);
  // next connection: closed before a byte
  const again = await rawConnect(58, a.point);
  assert.is(await firstBytes(again), undefined);
  again.close();
  // cleared: the handshake starts (a sends its connection message)
  a.pool.clearGreylist();
  assert.equal(a.pool.greylistedIps(), { ips: [] });
  const back = await rawConnect(58, a.point);
  const first = await firstBytes(back);
  assert.ok(first !== undefined && first.length > 0);
  back.close();
});

test("an unknown message once connected greylists the peer and its address; nothing else is affected", async () => {
  const a = await startPool(59);
  const b = await startPool(60);
  await b.pool.connect(a.point);
  const identity = await generateIdentity(0);
  const connection = await rawConnect(61, a.point);
  const r = await authenticate({ connection, incoming: false, identity, chainName: CHAIN, powTarget: 0, announcedPort: 9998, messageEncoding: variableBytes });
  assert.ok(r.ok);
  if (!r.ok) return;
  await until(() => a.pool.connections().length === 2, "both connected");
  await r.channel.writeMessage(Uint8Array.from([0x00, 0x99, 1, 2, 3])); // tag 0x0099: unknown
  await r.channel.closed;
  await until(() => a.pool.greylistedPeers().includes(identity.peerId), "the peer greylisted");
  assert.is(a.pool.peerBanned(identity.peerId), true);
  assert.ok(a.pool.greylistedIps().ips.includes(await hostOf(61)));
  assert.equal(a.pool.connections().map((c) => c.peerId), [b.identity.peerId], "b's connection stays");
  assert.ok(a.lines.some((l) => l.includes("does not decode")));
  // an oversized message (a Bootstrap of 3 bytes, over its bound of 2): closed, greylisted
  a.pool.clearGreylist();
  const other = await generateIdentity(0);
  const c2 = await rawConnect(61, a.point);
  const r2 = await authenticate({ connection: c2, incoming: false, identity: other, chainName: CHAIN, powTarget: 0, messageEncoding: variableBytes });
  assert.ok(r2.ok);
  if (!r2.ok) return;
  await r2.channel.writeMessage(Uint8Array.from([0x00, 0x02, 0]));
  await r2.channel.closed;
  await until(() => a.pool.greylistedPeers().includes(other.peerId), "the second peer greylisted");
  assert.equal(a.pool.connections().map((c) => c.peerId), [b.identity.peerId], "b's connection stays");
});

test("a peer that stalls in the handshake is dropped after the authentication timeout", async () => {
  const a = await startPool(62, { limits: limits(0, 1, 2, { authenticationTimeoutMs: 200 }) });
  const raw = await rawConnect(63, a.point);
  // read a's connection message, send nothing
  assert.ok((await firstBytes(raw)) !== undefined);
  await drainUntilClosed(raw);
  await until(() => eventsOf(a, "authentication_failed").length === 1, "authentication_failed");
  assert.equal(a.pool.greylistedIps(), { ips: [] }, "a timeout is not greylisted");
});

test.run();
