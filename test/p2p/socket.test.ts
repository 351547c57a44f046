/**
 * The handshake and the encrypted channel between two `authenticate` calls over an in-memory
 * pair of connections (no sockets), and against a hand-driven peer for every way a handshake can
 * go wrong: each must end in a typed refusal or error with Octez's greylisting, the connection
 * closed, and nothing thrown or left unhandled.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import process from "node:process";
import { blake2bWasmReady } from "../../lib/crypto/blake2b.ts";
import { encodeBinary } from "../../lib/encoding/codec.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { variableBytes } from "../../lib/encoding/bytes.ts";
import { ack } from "../../lib/p2p/encoding/ack.ts";
import { connectionMetadata } from "../../lib/p2p/encoding/connection.ts";
import { encodeMessage, type P2pMessage } from "../../lib/p2p/encoding/p2p-message.ts";
import { P2pError } from "../../lib/p2p/errors.ts";
import { generateIdentity, type Identity } from "../../lib/p2p/identity.ts";
import {
  authenticate,
  CHUNK_MAX_PAYLOAD,
  type AuthenticatedChannel,
  type AuthenticateOptions,
  type AuthenticateResult,
  type Refusal,
} from "../../lib/p2p/socket.ts";
import type { Connection } from "../../lib/p2p/transport.ts";
import { connectionPair } from "./memory-connection.ts";
import { RawPeer } from "./raw-peer.ts";

const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);
process.on("unhandledRejection", onUnhandled);

const CHAIN = "SANDBOXED_TEZOS";
let idA: Identity; // dials; its stamp meets difficulty 8
let idB: Identity; // accepts; difficulty 0 only
let idC: Identity;

test.before(async () => {
  await blake2bWasmReady;
  idA = await generateIdentity(8);
  idB = await generateIdentity(0);
  idC = await generateIdentity(0);
});

type Opts<M> = Partial<AuthenticateOptions<M>>;

function options<M>(connection: Connection, incoming: boolean, identity: Identity, extra: Opts<M>): AuthenticateOptions<M> {
  return { connection, incoming, identity, chainName: CHAIN, powTarget: 0, announcedPort: incoming ? 9732 : 9733, timeoutMs: 2000, ...extra };
}

/** A dials B; both authenticate. */
async function handshake<M = P2pMessage>(a: Opts<M> = {}, b: Opts<M> = {}) {
  const [ca, cb] = connectionPair();
  const [ra, rb] = await Promise.all([
    authenticate<M>(options(ca, false, a.identity ?? idA, a)),
    authenticate<M>(options(cb, true, b.identity ?? idB, b)),
  ]);
  return { ra, rb, ca, cb };
}

function channel<M>(r: AuthenticateResult<M>): AuthenticatedChannel<M> {
  if (!r.ok) throw new Error(`refused: ${r.refusal.reason}: ${r.refusal.message}`);
  return r.channel;
}

function refusal<M>(r: AuthenticateResult<M>): Refusal {
  if (r.ok) throw new Error("the handshake succeeded");
  return r.refusal;
}

/** Runs a hand-driven peer against `authenticate` (not waiting for the peer, which may stall on purpose). */
async function against(
  drive: (peer: RawPeer) => Promise<unknown>,
  extra: Opts<P2pMessage> = {},
  { peerIdentity = idC, incoming = true } = {},
): Promise<{ result: AuthenticateResult<P2pMessage>; peer: RawPeer; ours: Connection; driven: Promise<unknown> }> {
  const [ours, theirs] = connectionPair();
  const peer = new RawPeer(theirs, peerIdentity, !incoming);
  const driven = drive(peer).catch((e) => e);
  const result = await authenticate(options(ours, incoming, idB, extra));
  return { result, peer, ours, driven };
}

async function isClosed(c: Connection): Promise<boolean> {
  return await Promise.race([c.closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 50))]);
}

/** Bytes of our handshake: connection message, metadata chunk, Ack chunk. */
const HANDSHAKE_BYTES = 2 + (2 + 32 + 24 + 24 + 4 + CHAIN.length + 2 + 2) + (2 + 16 + 2) + (2 + 16 + 1);

// -------------------------------------------------------------------------------------------
// Success

test("two nodes authenticate: peer ids, points, versions, metadata", async () => {
  const { ra, rb } = await handshake({ metadata: { disable_mempool: true, private_node: false } }, { metadata: { disable_mempool: false, private_node: true }, powTarget: 8 });
  const a = channel(ra);
  const b = channel(rb);
  assert.is(a.info.peerId, idB.peerId);
  assert.is(b.info.peerId, idA.peerId);
  assert.is(a.info.incoming, false);
  assert.is(b.info.incoming, true);
  // the dialling side knows the peer's listening port from the socket; the other side from the announcement
  assert.equal(a.info.idPoint, { host: "127.0.0.2", port: 9732 });
  assert.equal(b.info.idPoint, { host: "127.0.0.1", port: 9733 });
  assert.is(b.info.remoteSocketPort, 40001);
  assert.equal(a.info.announcedVersion, { chain_name: CHAIN, distributed_db_version: 2, p2p_version: 1 });
  assert.equal(a.info.negotiatedVersion, { chain_name: CHAIN, distributed_db_version: 2, p2p_version: 1 });
  assert.equal(a.info.remoteMetadata, { disable_mempool: false, private_node: true });
  assert.equal(b.info.remoteMetadata, { disable_mempool: true, private_node: false });
  assert.is(a.info.privateNode, true);
  assert.is(b.info.privateNode, false);
  a.close();
  b.close();
});

test("the byte counters count the handshake: connection message, metadata and Ack chunks", async () => {
  const { ra, rb } = await handshake();
  const a = channel(ra);
  const b = channel(rb);
  assert.equal(a.stats(), { bytesSent: HANDSHAKE_BYTES, bytesReceived: HANDSHAKE_BYTES });
  assert.equal(b.stats(), { bytesSent: HANDSHAKE_BYTES, bytesReceived: HANDSHAKE_BYTES });
  a.close();
});

test("versions: the highest both speak", async () => {
  const { ra, rb } = await handshake({ versions: { distributedDb: [0, 1], p2p: [0, 1] } });
  assert.equal(channel(ra).info.negotiatedVersion, { chain_name: CHAIN, distributed_db_version: 1, p2p_version: 1 });
  assert.equal(channel(rb).info.negotiatedVersion, { chain_name: CHAIN, distributed_db_version: 1, p2p_version: 1 });
  const v0 = await handshake({ versions: { distributedDb: [0], p2p: [0] } });
  assert.equal(channel(v0.rb).info.negotiatedVersion, { chain_name: CHAIN, distributed_db_version: 0, p2p_version: 0 });
  channel(ra).close();
  channel(v0.ra).close();
});

/** Frame of `n` body bytes: chunks and bytes on the wire with the default chunk size. */
function wireBytes(n: number, payload = CHUNK_MAX_PAYLOAD): number {
  const frame = 4 + n;
  return frame + 18 * Math.ceil(frame / payload);
}

test("messages of 1 byte, exactly one chunk, two chunks, several chunks and 1 MiB, with the byte counters", async () => {
  const { ra, rb } = await handshake<Uint8Array>({ messageEncoding: variableBytes }, { messageEncoding: variableBytes });
  const a = channel(ra);
  const b = channel(rb);
  let sent = HANDSHAKE_BYTES;
  const sizes = [1, CHUNK_MAX_PAYLOAD - 4, CHUNK_MAX_PAYLOAD - 3, 3 * CHUNK_MAX_PAYLOAD + 1000, 1024 * 1024, 0];
  assert.is(wireBytes(CHUNK_MAX_PAYLOAD - 4), 65535, "a frame of 65 517 bytes fills one chunk of 65 535 bytes");
  for (const n of sizes) {
    const body = crypto.getRandomValues(new Uint8Array(Math.min(n, 65536)));
    const msg = n <= 65536 ? body : new Uint8Array(n).map((_, i) => i * 7);
    const [, got] = await Promise.all([a.writeMessage(msg), b.readMessage()]);
    assert.equal(got, msg, `message of ${n} bytes`);
    sent += wireBytes(n);
    assert.is(a.stats().bytesSent, sent, `bytes sent after ${n}`);
    assert.is(b.stats().bytesReceived, sent, `bytes received after ${n}`);
  }
  // and the other way
  const back = new Uint8Array([42]);
  const [, got] = await Promise.all([b.writeMessage(back), a.readMessage()]);
  assert.equal(got, back);
  a.close();
});

test("a smaller binaryChunksSize cuts messages into more chunks", async () => {
  const { ra, rb } = await handshake<Uint8Array>({ messageEncoding: variableBytes, binaryChunksSize: 100 }, { messageEncoding: variableBytes });
  const a = channel(ra);
  const b = channel(rb);
  const msg = new Uint8Array(1000).fill(9);
  const [, got] = await Promise.all([a.writeMessage(msg), b.readMessage()]);
  assert.equal(got, msg);
  assert.is(a.stats().bytesSent - HANDSHAKE_BYTES, 1004 + 18 * Math.ceil(1004 / 82));
  a.close();
});

test("P2P and distributed DB messages go through, in order, however the writes are queued", async () => {
  const { ra, rb } = await handshake();
  const a = channel(ra);
  const b = channel(rb);
  const messages: P2pMessage[] = [
    { kind: "Bootstrap" },
    { kind: "Get_current_head", chain_id: "NetXdQprcVkpaWU" },
    { kind: "Advertise", points: [{ host: "127.0.0.3", port: 9732 }] },
    { kind: "Operation", operation: { branch: "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2", data: new Uint8Array(100_000).fill(3) } },
    { kind: "Disconnect" },
  ];
  const writes = Promise.all(messages.map((m) => a.writeMessage(m)));
  const reads = Promise.all(messages.map(() => b.readMessage()));
  await writes;
  assert.equal(await reads, messages);
  a.close();
});

test("a chunk may end one message and start the next (Octez reads a stream)", async () => {
  const { result, peer } = await against(async (p) => {
    await p.handshake();
    const two = Uint8Array.from([...encodeMessage({ kind: "Bootstrap" }), ...encodeMessage({ kind: "Get_current_head", chain_id: "NetXdQprcVkpaWU" })]);
    await p.writeChunk(two.subarray(0, 8)); // all of Bootstrap, 2 bytes of the next frame's size
    await p.writeChunk(new Uint8Array(0)); // an empty chunk
    await p.writeChunk(two.subarray(8));
  });
  const c = channel(result);
  assert.equal(await c.readMessage(), { kind: "Bootstrap" });
  assert.equal(await c.readMessage(), { kind: "Get_current_head", chain_id: "NetXdQprcVkpaWU" });
  peer.close();
});

test("a message that breaks a bound is not sent, and the channel stays open", async () => {
  const { ra, rb } = await handshake();
  const a = channel(ra);
  const b = channel(rb);
  const before = a.stats().bytesSent;
  const e = await a.writeMessage({ kind: "Get_block_headers", hashes: new Array(11).fill("BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2") }).catch((x) => x);
  assert.ok(e instanceof P2pError && e.kind === "encoding-error" && !e.greylist);
  assert.is(a.stats().bytesSent, before);
  const [, got] = await Promise.all([a.writeMessage({ kind: "Bootstrap" }), b.readMessage()]);
  assert.equal(got, { kind: "Bootstrap" });
  a.close();
});

// -------------------------------------------------------------------------------------------
// Refusals decided by the versions and by the pool

test("a wrong chain name: each side Nacks the other (Unknown_chain_name), nobody greylists", async () => {
  const { ra, rb, ca, cb } = await handshake({ chainName: "TEZOS_MAINNET" });
  const ours = refusal(rb);
  assert.is(ours.reason, "rejected");
  assert.is(ours.motive, 2);
  assert.is(ours.greylist, false);
  assert.is(ours.peerId, idA.peerId);
  assert.equal(ours.announcedVersion, { chain_name: "TEZOS_MAINNET", distributed_db_version: 2, p2p_version: 1 });
  assert.equal([refusal(ra).reason, refusal(ra).motive, refusal(ra).greylist], ["rejected", 2, false]);
  assert.ok(await isClosed(ca));
  assert.ok(await isClosed(cb));
});

test("the Nack a peer of another chain reads: tag 1, motive 2, our points", async () => {
  const points = [{ host: "10.0.0.7", port: 9732 }];
  const { result, driven } = await against(async (p) => {
    await p.sendConnectionMessage({ version: { chain_name: "TEZOS_MAINNET", distributed_db_version: 2, p2p_version: 1 } });
    await p.readConnectionMessage();
    p.keys();
    await p.writeChunk(encodeBinary(connectionMetadata, { disable_mempool: false, private_node: false }));
    await p.readChunk();
    return await p.readChunk();
  }, { nackPoints: points });
  assert.is(refusal(result).reason, "rejected");
  assert.equal(await driven, encodeBinary(ack, { kind: "Nack", motive: 2, points }));
  assert.equal(toHex((await driven) as Uint8Array), "010002" + "00000011" + "0000000d" + toHex(new TextEncoder().encode("10.0.0.7:9732")));
});

test("a P2P-version-0 peer refused gets a Nack_v_0 (no motive, no points)", async () => {
  const { ra, rb } = await handshake({ versions: { distributedDb: [0], p2p: [0] } }, { versions: { distributedDb: [1, 2], p2p: [0, 1] } });
  assert.is(refusal(rb).reason, "rejected");
  assert.is(refusal(rb).motive, 4);
  const theirs = refusal(ra);
  assert.is(theirs.reason, "rejected-by-nack");
  assert.is(theirs.motive, 0);
  assert.is(theirs.alternativePoints, undefined);
});

test("no common distributed DB version: Nack Deprecated_distributed_db_version, with our points", async () => {
  const points = [{ host: "10.0.0.8", port: 1 }];
  const { ra, rb } = await handshake({ versions: { distributedDb: [0], p2p: [1] } }, { versions: { distributedDb: [1, 2], p2p: [0, 1] }, nackPoints: points });
  assert.is(refusal(rb).motive, 4);
  assert.is(refusal(ra).motive, 4);
  assert.is(refusal(ra).reason, "rejected-by-nack");
  assert.equal(refusal(ra).alternativePoints, points);
  assert.is(refusal(ra).greylist, false);
});

test("no common P2P version: Nack Deprecated_p2p_version", async () => {
  const { ra, rb } = await handshake({ versions: { distributedDb: [2], p2p: [0] } }, { versions: { distributedDb: [2], p2p: [1] } });
  assert.is(refusal(rb).motive, 3);
  // a P2P-version-0 peer gets Nack_v_0
  assert.is(refusal(ra).motive, 0);
});

test("decide: a Nack of the pool's motive (Too_many_connections) with its points", async () => {
  const seen: string[] = [];
  const { ra, rb } = await handshake({}, {
    decide: (peer) => {
      seen.push(peer.peerId);
      return { kind: "nack", motive: 1, points: [{ host: "10.1.1.1", port: 1 }] };
    },
  });
  assert.equal(seen, [idA.peerId]);
  assert.is(refusal(rb).reason, "rejected");
  assert.is(refusal(ra).motive, 1);
  assert.equal(refusal(ra).alternativePoints, [{ host: "10.1.1.1", port: 1 }]);
});

test("decide: close at once (a banned peer): no Ack, no Nack", async () => {
  const { ra, rb } = await handshake({}, { decide: () => ({ kind: "close", reason: "banned" }) });
  assert.equal([refusal(rb).reason, refusal(rb).message, refusal(rb).greylist], ["refused", "banned", false]);
  assert.is(refusal(ra).reason, "rejected-socket-connection");
  assert.is(refusal(ra).greylist, false);
});

test("decide may be async, and its failure refuses the peer", async () => {
  const ok = await handshake({}, { decide: async () => ({ kind: "accept" }) });
  channel(ok.ra).close();
  const { rb } = await handshake({}, {
    decide: () => {
      throw new Error("boom");
    },
  });
  assert.is(refusal(rb).reason, "refused");
});

// -------------------------------------------------------------------------------------------
// Refusals for the peer's misbehaviour

test("a connection to ourselves is refused (same peer id), not greylisted", async () => {
  const { ra, rb } = await handshake({ identity: idB }, { identity: idB });
  assert.is(refusal(ra).reason, "myself");
  assert.is(refusal(rb).reason, "myself");
  assert.is(refusal(rb).greylist, false);
  assert.equal(refusal(rb).idPoint, { host: "127.0.0.1", port: 9733 });
});

test("insufficient proof of work: refused and greylisted; the other side sees the connection close", async () => {
  const { ra, rb, ca } = await handshake({ identity: idB }, { identity: idA, powTarget: 40 });
  const ours = refusal(rb);
  assert.is(ours.reason, "not-enough-proof-of-work");
  assert.is(ours.greylist, true);
  assert.is(ours.peerId, idB.peerId);
  assert.is(refusal(ra).reason, "connection-closed");
  assert.is(refusal(ra).greylist, false);
  assert.ok(await isClosed(ca));
  // the stamp of idA meets 8
  const ok = await handshake({}, { powTarget: 8 });
  channel(ok.ra).close();
});

test("garbage: a decoding error, greylisted", async () => {
  const { result, ours } = await against((p) => p.send(Uint8Array.from([0, 5, 1, 2, 3, 4, 5])));
  const r = refusal(result);
  assert.is(r.reason, "decoding-error");
  assert.is(r.greylist, true);
  assert.ok(await isClosed(ours));
});

test("a connection message with trailing bytes: a decoding error", async () => {
  const { result } = await against(async (p) => {
    const m = p.connectionMessage();
    const longer = Uint8Array.from([...m, 0]);
    longer[1] = longer[1]! + 1;
    await p.send(longer);
  });
  assert.is(refusal(result).reason, "decoding-error");
});

test("a truncated connection message then a close: connection closed, not greylisted", async () => {
  const { result } = await against(async (p) => {
    await p.send(p.connectionMessage().subarray(0, 40));
    p.close();
  });
  const r = refusal(result);
  assert.is(r.reason, "connection-closed");
  assert.is(r.greylist, false);
});

test("an oversized length prefix with nothing after: a timeout, not greylisted", async () => {
  const { result } = await against((p) => p.send(Uint8Array.from([0xff, 0xff, 1, 2, 3])), { timeoutMs: 100 });
  assert.equal([refusal(result).reason, refusal(result).greylist], ["timeout", false]);
});

test("a peer that stalls (says nothing): a timeout", async () => {
  const t0 = Date.now();
  const { result, ours } = await against(() => new Promise(() => {}), { timeoutMs: 100 });
  assert.is(refusal(result).reason, "timeout");
  assert.ok(Date.now() - t0 < 1000);
  assert.ok(await isClosed(ours));
});

test("a peer that stalls after its connection message: a timeout, with what is known of it", async () => {
  const { result } = await against(async (p) => {
    await p.sendConnectionMessage();
    await p.readConnectionMessage();
  }, { timeoutMs: 100 });
  const r = refusal(result);
  assert.is(r.reason, "timeout");
  assert.is(r.peerId, idC.peerId);
  assert.equal(r.idPoint, { host: "127.0.0.2", port: 9999 }); // incoming: the address, and the port it announced
});

test("a metadata chunk that does not decrypt: decipher error, greylisted", async () => {
  const { result } = await against(async (p) => {
    await p.sendConnectionMessage();
    await p.readConnectionMessage();
    p.keys();
    const chunk = p.seal(encodeBinary(connectionMetadata, { disable_mempool: false, private_node: false }));
    chunk[chunk.length - 1]! ^= 0x80;
    await p.send(chunk);
  });
  assert.equal([refusal(result).reason, refusal(result).greylist], ["decipher-error", true]);
});

test("a chunk sealed with the wrong nonce (labels swapped) does not decrypt", async () => {
  const { result } = await against(async (p) => {
    await p.sendConnectionMessage();
    await p.readConnectionMessage();
    p.keys();
    p.localNonce = p.remoteNonce;
    await p.writeChunk(encodeBinary(connectionMetadata, { disable_mempool: false, private_node: false }));
  });
  assert.is(refusal(result).reason, "decipher-error");
});

test("a chunk shorter than its tag: invalid ciphertext size, not greylisted (as Octez)", async () => {
  const { result } = await against(async (p) => {
    await p.sendConnectionMessage();
    await p.readConnectionMessage();
    await p.send(Uint8Array.from([0, 10, ...new Uint8Array(10)]));
  });
  assert.equal([refusal(result).reason, refusal(result).greylist], ["invalid-incoming-ciphertext-size", false]);
});

test("metadata of the wrong size: a decoding error, greylisted", async () => {
  const { result } = await against(async (p) => {
    await p.sendConnectionMessage();
    await p.readConnectionMessage();
    p.keys();
    await p.writeChunk(Uint8Array.from([0, 0, 0]));
  });
  assert.equal([refusal(result).reason, refusal(result).greylist], ["decoding-error", true]);
});

test("a low-order public key: refused before any chunk", async () => {
  const { result } = await against((p) => p.sendConnectionMessage({ public_key: new Uint8Array(32) }));
  assert.is(refusal(result).reason, "invalid-public-key");
  assert.is(refusal(result).greylist, false);
});

test("an Ack that does not decode or decrypt: refused, not greylisted (Octez's accept step)", async () => {
  const bad = await against(async (p) => {
    await p.sendConnectionMessage();
    await p.readConnectionMessage();
    p.keys();
    await p.writeChunk(encodeBinary(connectionMetadata, { disable_mempool: false, private_node: false }));
    await p.readChunk();
    await p.writeChunk(Uint8Array.from([7]));
  });
  assert.equal([refusal(bad.result).reason, refusal(bad.result).greylist], ["decoding-error", false]);
  const forged = await against(async (p) => {
    await p.sendConnectionMessage();
    await p.readConnectionMessage();
    p.keys();
    await p.writeChunk(encodeBinary(connectionMetadata, { disable_mempool: false, private_node: false }));
    await p.readChunk();
    const chunk = p.seal(encodeBinary(ack, { kind: "Ack" }));
    chunk[5]! ^= 1;
    await p.send(chunk);
  });
  assert.equal([refusal(forged.result).reason, refusal(forged.result).greylist], ["invalid-auth", false]);
});

test("a hand-driven peer that behaves gets the same channel as authenticate", async () => {
  const { result, peer } = await against((p) => p.handshake(), {}, { incoming: false });
  const c = channel(result);
  assert.is(c.info.incoming, false);
  await c.writeMessage({ kind: "Get_checkpoint", chain_id: "NetXdQprcVkpaWU" });
  const chunk = await peer.readChunk();
  assert.equal(chunk, encodeMessage({ kind: "Get_checkpoint", chain_id: "NetXdQprcVkpaWU" }));
  c.close();
});

test("the caller's signal aborts the handshake", async () => {
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(), 20);
  const { result } = await against(() => new Promise(() => {}), { signal: ctl.signal });
  assert.is(refusal(result).reason, "aborted");
});

test("bad options reject with a TypeError or RangeError and close the connection", async () => {
  const [c] = connectionPair();
  const e = await authenticate({ ...options(c, false, idA, {}), chainName: 42 as unknown as string }).catch((x) => x);
  assert.ok(e instanceof TypeError);
  assert.ok(await isClosed(c));
  const [d] = connectionPair();
  const f = await authenticate({ ...options(d, false, idA, {}), binaryChunksSize: 18 }).catch((x) => x);
  assert.ok(f instanceof RangeError);
});

// -------------------------------------------------------------------------------------------
// Errors once connected

test("an unknown message tag: decoding error, greylisted, the channel closed", async () => {
  const { result, peer } = await against(async (p) => {
    await p.handshake();
    await p.writeChunk(Uint8Array.from([0, 0, 0, 6, 0x00, 0x50, 1, 2, 3, 4]));
  });
  const c = channel(result);
  const e = await c.readMessage().catch((x) => x);
  assert.ok(e instanceof P2pError);
  assert.equal([e.kind, e.greylist], ["decoding-error", true]);
  assert.ok(c.isClosed);
  const again = await c.readMessage().catch((x) => x);
  assert.is(again, e);
  const w = await c.writeMessage({ kind: "Bootstrap" }).catch((x) => x);
  assert.ok(w instanceof P2pError);
  peer.close();
});

test("a frame over 100 MiB, or over its message's bound, is refused from its size alone", async () => {
  for (const head of [[0x06, 0x40, 0x00, 0x00, 0x00, 0x21], [0x00, 0x00, 0x01, 0x00, 0x00, 0x13]]) {
    const { result } = await against(async (p) => {
      await p.handshake();
      await p.writeChunk(Uint8Array.from(head));
    });
    const e = await channel(result).readMessage().catch((x) => x);
    assert.ok(e instanceof P2pError && e.kind === "decoding-error" && e.greylist, String(e));
  }
});

test("garbage inside a known message: decoding error, greylisted", async () => {
  const { result } = await against(async (p) => {
    await p.handshake();
    await p.writeChunk(Uint8Array.from([0, 0, 0, 4, 0x00, 0x13, 1, 2])); // a chain id cut short
  });
  const e = await channel(result).readMessage().catch((x) => x);
  assert.ok(e instanceof P2pError && e.kind === "decoding-error" && e.greylist);
});

test("a chunk that does not decrypt once connected: closes, not greylisted (as Octez)", async () => {
  const { result } = await against(async (p) => {
    await p.handshake();
    const chunk = p.seal(encodeMessage({ kind: "Bootstrap" }));
    chunk[2]! ^= 1;
    await p.send(chunk);
  });
  const c = channel(result);
  const e = await c.readMessage().catch((x) => x);
  assert.ok(e instanceof P2pError);
  assert.equal([e.kind, e.greylist], ["decipher-error", false]);
  assert.ok(c.isClosed);
});

test("the peer closes: pending and later reads end with connection-closed", async () => {
  const { ra, rb } = await handshake();
  const a = channel(ra);
  const b = channel(rb);
  const pending = b.readMessage().catch((x) => x);
  a.close();
  const e = await pending;
  assert.ok(e instanceof P2pError && e.kind === "connection-closed" && !e.greylist);
  const w = await b.writeMessage({ kind: "Bootstrap" }).catch((x) => x);
  assert.ok(w instanceof P2pError && w.kind === "connection-closed");
  await b.closed;
  assert.ok(b.isClosed);
});

test("the peer stops in the middle of a message: the read ends when it closes", async () => {
  const { result, peer } = await against(async (p) => {
    await p.handshake();
    await p.writeChunk(encodeMessage({ kind: "Get_current_head", chain_id: "NetXdQprcVkpaWU" }).subarray(0, 7));
  });
  const c = channel(result);
  const pending = c.readMessage().catch((x) => x);
  setTimeout(() => peer.close(), 20);
  const e = await pending;
  assert.ok(e instanceof P2pError && e.kind === "connection-closed");
});

test("readMessage with a signal: aborting closes the channel", async () => {
  const { ra, rb } = await handshake();
  const ctl = new AbortController();
  const pending = channel(rb).readMessage(ctl.signal).catch((x) => x);
  ctl.abort();
  const e = await pending;
  assert.ok(e instanceof P2pError && e.kind === "aborted");
  assert.ok(channel(rb).isClosed);
  channel(ra).close();
});

test("a body-limit callback that throws: an unexpected error, not the peer's fault", async () => {
  const { ra, rb } = await handshake({}, {
    messageBodyLimit: () => {
      throw new Error("bug");
    },
  });
  const [, e] = await Promise.all([channel(ra).writeMessage({ kind: "Bootstrap" }), channel(rb).readMessage().catch((x) => x)]);
  assert.ok(e instanceof P2pError);
  assert.equal([e.kind, e.greylist], ["unexpected-error", false]);
});

test("powTarget may be a bigint target", async () => {
  const { ra, rb } = await handshake({}, { powTarget: (1n << 248n) - 1n });
  channel(ra).close();
  channel(rb).close();
});

test("nothing was left unhandled", async () => {
  await new Promise((r) => setTimeout(r, 100));
  process.off("unhandledRejection", onUnhandled);
  assert.equal(unhandled, []);
});

test.run();
