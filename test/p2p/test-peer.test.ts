/**
 * The independent test peer (`test/support/p2p-peer/`) checked before it is used to check the
 * node: against tezedge's vectors (test/vectors/p2p/: nonces, nonce increment, channel key,
 * sealed chunk, proof of work, an Octez identity), and against the repository's own
 * `authenticate` (lib/p2p/socket.ts) over real loopback TCP, in both directions: handshakes,
 * messages both ways (one across many chunks), and each way the peer can misbehave, which
 * `authenticate` must refuse as Octez does (reason, greylisting); and the peer's operation trees
 * and the chain messages it serves (predecessor headers, operations of blocks) against lib's.
 * Two implementations written apart agreeing is the point; neither is taken on trust.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import * as net from "node:net";
import process from "node:process";
import { blake2b256, blake2bWasmReady } from "../../lib/crypto/blake2b.ts";
import { operationListHash, operationListListHash } from "../../lib/crypto/hashes.ts";
import { operationListPathUnbounded } from "../../lib/p2p/encoding/operation-path.ts";
import { decodeMessage as decodeLibMessage, encodeMessage as encodeLibMessage, type P2pMessage } from "../../lib/p2p/encoding/p2p-message.ts";
import { operationListPath } from "../../lib/shell/distributed-db/operation-path.ts";
import { decodeBinary, encodeBinary } from "../../lib/encoding/codec.ts";
import { rawBlockHeader, type RawBlockHeader } from "../../lib/encoding/block-header.ts";
import { P2pError } from "../../lib/p2p/errors.ts";
import { generateIdentity, type Identity } from "../../lib/p2p/identity.ts";
import { authenticate, type AuthenticatedChannel, type AuthenticateResult } from "../../lib/p2p/socket.ts";
import type { Connection, Listener } from "../../lib/p2p/transport.ts";
import { currentTransport } from "../../platform/net/current.ts";
import {
  blockHash,
  channelKey,
  concat,
  decodeConnectionBody,
  encodeConnectionBody,
  frameConnectionMessage,
  hex,
  hsalsa20,
  makeIdentity,
  meetsDifficulty,
  Motive,
  nextNonce,
  open,
  peerId,
  PeerSocket,
  publicKeyOf,
  seal,
  sessionNonces,
  TestPeer,
  toHex,
  type PeerIdentity,
  decodeMessage as decodePeerMessage,
  encodeMessage as encodePeerMessage,
  encodeOperationListPath,
  operationListHash as peerOperationListHash,
  operationListListHash as peerOperationListListHash,
  type PeerMessage,
  uint,
} from "../support/p2p-peer/mod.ts";

const unhandled: unknown[] = [];
process.on("unhandledRejection", (e) => unhandled.push(e));

interface CryptoVectors {
  nonces: { sent_msg: string; recv_msg: string; incoming: boolean; local: string; remote: string }[];
  nonce_increment: { from: string; to: string };
  precompute: { public_key: string; secret_key: string; channel_key: string };
  box: { channel_key: string; nonce: string; message: string; boxed_tag_then_ciphertext: string };
}
interface IdentityVectors {
  identity: { peer_id: string; public_key: string; secret_key: string; proof_of_work_stamp: string };
  proof_of_work: { public_key: string; stamp: string; difficulty: number };
}
const vectors = (name: string) => JSON.parse(readFileSync(new URL(`../vectors/p2p/${name}`, import.meta.url), "utf8"));
const cv = vectors("tezedge-crypto-vectors.json") as CryptoVectors;
const iv = vectors("tezedge-identity.json") as IdentityVectors;

const CHAIN = "SANDBOXED_TEZOS";
const SANDBOX_CHAIN_ID = "NetXdQprcVkpaWU";
/** What the library side asks of the test peer's stamp. */
const LIB_POW = 4;

// --- against tezedge's vectors -----------------------------------------------------------------

test("nonces of both sides from tezedge's connection messages", () => {
  for (const v of cv.nonces) {
    // tezedge's `incoming` is the side that accepted the connection: not the initiator
    const n = sessionNonces(!v.incoming, hex(v.sent_msg), hex(v.recv_msg));
    assert.is(toHex(n.send), v.local, `local nonce, incoming ${v.incoming}`);
    assert.is(toHex(n.receive), v.remote, `remote nonce, incoming ${v.incoming}`);
  }
  // the other side of the same connection (messages swapped) sends under our receiving nonce
  const [sent, received] = [hex(cv.nonces[0]!.sent_msg), hex(cv.nonces[0]!.recv_msg)];
  const dialler = sessionNonces(true, sent, received);
  const acceptor = sessionNonces(false, received, sent);
  assert.is(toHex(dialler.send), toHex(acceptor.receive));
  assert.is(toHex(dialler.receive), toHex(acceptor.send));
});

test("nonce increment, with carries and the wrap at 2^192", () => {
  assert.is(toHex(nextNonce(hex(cv.nonce_increment.from))), cv.nonce_increment.to);
  assert.is(toHex(nextNonce(hex("00".repeat(22) + "00ff"))), "00".repeat(22) + "0100");
  assert.is(toHex(nextNonce(hex("ff".repeat(24)))), "00".repeat(24));
});

test("channel key (X25519, then HSalsa20 written here) and a sealed chunk", () => {
  assert.is(toHex(channelKey(hex(cv.precompute.secret_key), hex(cv.precompute.public_key))), cv.precompute.channel_key);
  const sealed = seal(hex(cv.box.channel_key), hex(cv.box.nonce), hex(cv.box.message));
  assert.is(toHex(sealed), cv.box.boxed_tag_then_ciphertext);
  assert.is(toHex(open(hex(cv.box.channel_key), hex(cv.box.nonce), sealed)!), cv.box.message);
  const forged = Uint8Array.from(sealed);
  forged[0] ^= 1;
  assert.is(open(hex(cv.box.channel_key), hex(cv.box.nonce), forged), undefined);
  assert.is(open(hex(cv.box.channel_key), nextNonce(hex(cv.box.nonce)), sealed), undefined, "the next nonce does not open it");
  // HSalsa20's known answer (NaCl's core/hsalsa20 test: the first key of its crypto_box test)
  assert.is(
    toHex(hsalsa20(hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"), new Uint8Array(16))),
    "1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389",
  );
});

test("tezedge's connection messages decode with the layout of v12 and encode back to the same bytes", () => {
  for (const framed of [cv.nonces[0]!.sent_msg, cv.nonces[0]!.recv_msg].map(hex)) {
    const length = (framed[0]! << 8) | framed[1]!;
    assert.is(length, framed.length - 2);
    const m = decodeConnectionBody(framed.subarray(2));
    assert.equal(m.version, { chainName: "SANDBOXED_TEZOS_ALPHANET_2018-11-30T15:30:56Z", distributedDbVersion: 0, p2pVersion: 0 });
    assert.is(toHex(frameConnectionMessage(encodeConnectionBody(m))), toHex(framed));
  }
});

test("proof of work: tezedge's stamp at difficulty 24, Octez's identity, stamps made to meet or to miss", () => {
  const pk = hex(iv.proof_of_work.public_key);
  assert.ok(meetsDifficulty(pk, hex(iv.proof_of_work.stamp), 24));
  assert.ok(meetsDifficulty(pk, hex(iv.proof_of_work.stamp), 0));
  const id = iv.identity;
  assert.is(peerId(hex(id.public_key)), id.peer_id);
  assert.is(toHex(publicKeyOf(hex(id.secret_key))), id.public_key);
  assert.ok(meetsDifficulty(hex(id.public_key), hex(id.proof_of_work_stamp), 0));
  const good = makeIdentity(6);
  assert.ok(meetsDifficulty(good.publicKey, good.stamp, 6));
  const bad = makeIdentity(0, { missing: 6 });
  assert.not.ok(meetsDifficulty(bad.publicKey, bad.stamp, 6));
  assert.throws(() => makeIdentity(0.5), (e: unknown) => e instanceof RangeError);
});

// --- against lib/p2p's authenticate over loopback TCP ------------------------------------------

let libId: Identity;
let peerId0: PeerIdentity;
let listener: Listener;
let accepted: AsyncIterator<Connection>;

// --- the operation trees and the chain messages the peer serves, against the library's ------------

test("operation trees and paths (0 to 17 operations, 1 to 9 passes) agree with lib's; the four chain messages decode in lib", () => {
  const ops = (n: number, seed: number) => Array.from({ length: n }, (_, i) => blake2b256(Uint8Array.of(seed, i)));
  for (let n = 0; n <= 17; n++) assert.equal(toHex(peerOperationListHash(ops(n, 1))), toHex(operationListHash(ops(n, 1))), `a pass of ${n} operations`);
  for (let passes = 1; passes <= 9; passes++) {
    const lists = Array.from({ length: passes }, (_, p) => ops((p * 5) % 7, p));
    const root = operationListListHash(lists.map((l) => operationListHash(l)));
    assert.equal(toHex(peerOperationListListHash(lists)), toHex(root), `${passes} passes`);
    for (let pass = 0; pass < passes; pass++) {
      const expected = encodeBinary(operationListPathUnbounded, operationListPath(lists.map((l) => operationListHash(l)), pass));
      assert.equal(toHex(encodeOperationListPath(lists, pass)), toHex(expected), `the path of pass ${pass} of ${passes}`);
    }
  }
  // the messages as the peer writes them, read by lib, and lib's written back read by the peer
  const block = blockHash.encode(new Uint8Array(32).fill(3));
  const header = encodeBinary(rawBlockHeader, HEADER);
  const op = concat(new Uint8Array(32).fill(3), hex("6c00"));
  const four = [[], [], [], [op].map((o) => blake2b256(o))];
  const cases: [PeerMessage, unknown][] = [
    [{ kind: "Get_predecessor_header", hash: block, offset: 7 }, { kind: "Get_predecessor_header", hash: block, offset: 7 }],
    [{ kind: "Predecessor_header", hash: block, offset: 7, header }, { kind: "Predecessor_header", hash: block, offset: 7, header: decodeBinary(rawBlockHeader, header) }],
    [{ kind: "Get_operations_for_blocks", blocks: [{ hash: block, validationPass: 0 }, { hash: block, validationPass: 3 }] }, { kind: "Get_operations_for_blocks", blocks: [{ hash: block, validation_pass: 0 }, { hash: block, validation_pass: 3 }] }],
  ];
  for (const [ours, theirs] of cases) {
    const framed = concat(uint(encodePeerMessage(ours).length, 4), encodePeerMessage(ours));
    assert.equal(decodeLibMessage(framed), theirs, ours.kind);
    assert.equal(decodePeerMessage(encodeLibMessage(theirs as P2pMessage).subarray(4)), ours, `${ours.kind} back`);
  }
  for (let pass = 0; pass < 4; pass++) {
    const ours: PeerMessage = { kind: "Operations_for_blocks", hash: block, validationPass: pass, path: encodeOperationListPath(four, pass), operations: pass === 3 ? [op] : [] };
    const framed = concat(uint(encodePeerMessage(ours).length, 4), encodePeerMessage(ours));
    const theirs = decodeLibMessage(framed) as Extract<P2pMessage, { kind: "Operations_for_blocks" }>;
    assert.equal([theirs.hash, theirs.validation_pass, theirs.operations.length], [block, pass, pass === 3 ? 1 : 0]);
    assert.equal(theirs.path, operationListPath(four.map((l) => operationListHash(l)), pass), `the path of pass ${pass}`);
    assert.equal(decodePeerMessage(encodeLibMessage(theirs).subarray(4)), ours, `Operations_for_blocks ${pass} back`);
  }
});

test.before(async () => {
  await blake2bWasmReady;
  libId = await generateIdentity(LIB_POW);
  peerId0 = makeIdentity(LIB_POW);
  listener = await (await currentTransport()).listen({ host: "127.0.0.1", port: 0 });
  accepted = listener.connections[Symbol.asyncIterator]();
});

test.after(async () => {
  await listener.close();
  assert.equal(unhandled, [], "no unhandled rejection");
});

/** The test peer dials the library's listener; the library authenticates the connection it accepted. */
async function dialLib(identity: PeerIdentity = peerId0, timeoutMs = 5000) {
  const peer = await TestPeer.dial({ host: "127.0.0.1", port: listener.local.port, identity, announcedPort: 9999 });
  const connection = (await accepted.next()).value as Connection;
  const lib = authenticate({ connection, incoming: true, identity: libId, chainName: CHAIN, powTarget: LIB_POW, announcedPort: 19732, timeoutMs });
  return { peer, lib, connection };
}

function refusalOf(result: AuthenticateResult) {
  assert.not.ok(result.ok, "refused");
  return (result as Extract<AuthenticateResult, { ok: false }>).refusal;
}

function channelOf(result: AuthenticateResult): AuthenticatedChannel {
  if (!result.ok) throw new Error(`refused: ${result.refusal.reason}: ${result.refusal.message}`);
  return result.channel;
}

const HEADER: RawBlockHeader = {
  level: 3,
  proto: 1,
  predecessor: "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2",
  timestamp: 1_700_000_000,
  validation_pass: 4,
  operations_hash: "LLoZS2LW3rEi7KYU4ouBQtorua37aWWCtpDmv1n2x3xoKi6sVXLWp",
  fitness: [Uint8Array.of(1), Uint8Array.of(0, 0, 0, 3)],
  context: "CoV8SQumiVU9saiu3FVNeDNewJaJH8yWdsGF3WLdsRr2P9S7MzCj",
  protocol_data: new Uint8Array(40).fill(7),
};

test("the peer dials authenticate: handshake, then messages both ways, one over many chunks", async () => {
  const { peer, lib } = await dialLib();
  const [result, answer] = await Promise.all([lib, peer.handshake()]);
  const channel = channelOf(result);
  assert.equal(answer, { kind: "Ack" });
  // what each side learnt of the other
  assert.is(channel.info.peerId, peer.peerId);
  assert.equal(channel.info.idPoint, { host: "127.0.0.1", port: 9999 });
  assert.is(channel.info.remoteSocketPort, peer.socket.local.port);
  assert.equal(channel.info.negotiatedVersion, { chain_name: CHAIN, distributed_db_version: 2, p2p_version: 1 });
  assert.is(peer.remotePeerId, libId.peerId);
  assert.is(peer.remote!.port, 19732);
  assert.equal(peer.remote!.version, { chainName: CHAIN, distributedDbVersion: 2, p2pVersion: 1 });
  assert.equal(peer.remoteMetadata, { disableMempool: false, privateNode: false });

  // library → peer
  await channel.writeMessage({ kind: "Get_current_branch", chain_id: SANDBOX_CHAIN_ID });
  assert.equal(await peer.receive(), { kind: "Get_current_branch", chainId: SANDBOX_CHAIN_ID });
  const header = encodeBinary(rawBlockHeader, HEADER);
  await channel.writeMessage({ kind: "Block_header", header: HEADER });
  const got = await peer.receive();
  assert.is(got.kind, "Block_header");
  assert.is(toHex((got as { header: Uint8Array }).header), toHex(header));
  await channel.writeMessage({ kind: "Get_block_headers", hashes: [HEADER.predecessor, HEADER.predecessor] });
  assert.equal(await peer.receive(), { kind: "Get_block_headers", hashes: [HEADER.predecessor, HEADER.predecessor] });

  // peer → library: a locator, then a header of 300 000 bytes (five chunks), then one cut into 1-byte chunks
  const history = [blockHash.encode(new Uint8Array(32).fill(1)), HEADER.predecessor];
  await peer.send({ kind: "Current_branch", chainId: SANDBOX_CHAIN_ID, head: header, history });
  assert.equal(await channel.readMessage(), { kind: "Current_branch", chain_id: SANDBOX_CHAIN_ID, locator: { current_head: HEADER, history } });
  const big = { ...HEADER, protocol_data: crypto.getRandomValues(new Uint8Array(65_536)) };
  const bigBytes = concat(encodeBinary(rawBlockHeader, big), new Uint8Array(0));
  await peer.send({ kind: "Block_header", header: bigBytes });
  await peer.send({ kind: "Get_current_head", chainId: SANDBOX_CHAIN_ID }, 1);
  const m1 = await channel.readMessage();
  assert.is(m1.kind, "Block_header");
  assert.is(toHex(encodeBinary(rawBlockHeader, (m1 as { header: RawBlockHeader }).header)), toHex(bigBytes));
  assert.equal(await channel.readMessage(), { kind: "Get_current_head", chain_id: SANDBOX_CHAIN_ID });
  // and a large one back, library → peer, across chunks of the library's size
  await channel.writeMessage({ kind: "Block_header", header: big });
  const back = await peer.receive();
  assert.is(toHex((back as { header: Uint8Array }).header), toHex(bigBytes));

  // Disconnect: the library decodes it; closing its side ends the peer's connection
  await peer.send({ kind: "Disconnect" });
  assert.equal(await channel.readMessage(), { kind: "Disconnect" });
  channel.close();
  await peer.closedByRemote();
  peer.close();
});

test("authenticate dials the peer: the peer's nonces as the accepting side", async () => {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  const socketP = new Promise<net.Socket>((r) => server.once("connection", r));
  const connection = await (await currentTransport()).connect({ host: "127.0.0.1", port });
  const peer = new TestPeer(new PeerSocket(await socketP), false, { identity: peerId0, announcedPort: port });
  const [result, answer] = await Promise.all([
    authenticate({ connection, incoming: false, identity: libId, chainName: CHAIN, powTarget: LIB_POW, announcedPort: 19732, timeoutMs: 5000 }),
    peer.handshake(),
  ]);
  const channel = channelOf(result);
  assert.equal(answer, { kind: "Ack" });
  assert.equal(channel.info.idPoint, { host: "127.0.0.1", port });
  await peer.send({ kind: "Bootstrap" });
  assert.equal(await channel.readMessage(), { kind: "Bootstrap" });
  await channel.writeMessage({ kind: "Advertise", points: [{ host: "127.0.0.1", port: 9732 }, { host: "::1", port: 9733 }] });
  assert.equal(await peer.receive(), { kind: "Advertise", points: ["127.0.0.1:9732", "[::1]:9733"] });
  channel.close();
  peer.close();
  await new Promise<void>((r) => server.close(() => r()));
});

// --- each misbehaviour, as authenticate sees it --------------------------------------------------

test("garbage instead of a connection message: a decoding error, greylisted", async () => {
  const { peer, lib } = await dialLib();
  await peer.sendRawConnectionMessage(concat(Uint8Array.of(0, 100), new Uint8Array(100).fill(0xab)));
  const r = refusalOf(await lib);
  assert.is(r.reason, "decoding-error");
  assert.is(r.greylist, true);
  await peer.closedByRemote();
  peer.close();
});

test("a truncated connection message, then the end of the connection: closed, not greylisted", async () => {
  const { peer, lib } = await dialLib();
  const full = frameConnectionMessage(peer.connectionMessageBody());
  await peer.sendRawConnectionMessage(full.subarray(0, 40));
  peer.socket.end();
  const r = refusalOf(await lib);
  assert.is(r.reason, "connection-closed");
  assert.is(r.greylist, false);
  peer.close();
});

test("a connection message whose length leaves out its last field: a decoding error, greylisted", async () => {
  const { peer, lib } = await dialLib();
  const body = peer.connectionMessageBody();
  await peer.sendRawConnectionMessage(frameConnectionMessage(body.subarray(0, body.length - 2)));
  const r = refusalOf(await lib);
  assert.is(r.reason, "decoding-error");
  assert.is(r.greylist, true);
  peer.close();
});

test("an oversized connection message (bytes past its end, or a chain name longer than the frame): decoding errors, greylisted", async () => {
  for (const make of [
    (body: Uint8Array) => concat(body, new Uint8Array(8)),
    (body: Uint8Array) => {
      const b = Uint8Array.from(body);
      b[2 + 32 + 24 + 24 + 2] = 0x10; // the chain name's 4-byte length, now about a megabyte
      return b;
    },
  ]) {
    const { peer, lib } = await dialLib();
    await peer.sendRawConnectionMessage(frameConnectionMessage(make(peer.connectionMessageBody())));
    const r = refusalOf(await lib);
    assert.is(r.reason, "decoding-error");
    assert.is(r.greylist, true);
    peer.close();
  }
});

test("another chain name: a Nack with Unknown_chain_name, not greylisted", async () => {
  const { peer, lib } = await dialLib();
  await peer.sendConnectionMessage({ version: { chainName: "TEZOS_MAINNET", distributedDbVersion: 2, p2pVersion: 1 } });
  await peer.readConnectionMessage();
  peer.keyChannel();
  await peer.sendMetadata();
  await peer.readMetadata();
  assert.equal(await peer.readAck(), { kind: "Nack", motive: Motive.UnknownChainName, points: [] });
  const r = refusalOf(await lib);
  assert.is(r.reason, "rejected");
  assert.is(r.motive, Motive.UnknownChainName);
  assert.is(r.greylist, false);
  await peer.closedByRemote();
  peer.close();
});

test("a stamp that misses the target: refused after the connection messages, greylisted", async () => {
  const { peer, lib } = await dialLib(makeIdentity(0, { missing: LIB_POW }));
  await peer.sendConnectionMessage();
  await peer.readConnectionMessage();
  const r = refusalOf(await lib);
  assert.is(r.reason, "not-enough-proof-of-work");
  assert.is(r.greylist, true);
  assert.is(await peer.closedByRemote().then((rest) => rest.length), 0, "nothing after the connection message");
  peer.close();
});

test("a metadata chunk that does not decrypt: a decipher error, greylisted", async () => {
  const { peer, lib } = await dialLib();
  await peer.sendConnectionMessage();
  await peer.readConnectionMessage();
  peer.keyChannel();
  await peer.writeForgedChunk(Uint8Array.of(0, 0));
  const r = refusalOf(await lib);
  assert.is(r.reason, "decipher-error");
  assert.is(r.greylist, true);
  peer.close();
});

test("a stall after the connection messages: a timeout, not greylisted", async () => {
  const { peer, lib } = await dialLib(peerId0, 300);
  await peer.sendConnectionMessage();
  await peer.readConnectionMessage();
  const r = refusalOf(await lib);
  assert.is(r.reason, "timeout");
  assert.is(r.greylist, false);
  await peer.closedByRemote();
  peer.close();
});

test("once connected: an unknown tag is a decoding error (greylisted), a forged chunk only closes", async () => {
  {
    const { peer, lib } = await dialLib();
    const [result] = await Promise.all([lib, peer.handshake()]);
    const channel = channelOf(result);
    await peer.sendFrame(Uint8Array.of(0x09, 0x99, 1, 2, 3));
    const e = await channel.readMessage().then(() => undefined, (err: unknown) => err);
    assert.instance(e, P2pError);
    assert.is((e as P2pError).kind, "decoding-error");
    assert.is((e as P2pError).greylist, true);
    await peer.closedByRemote();
    peer.close();
  }
  {
    const { peer, lib } = await dialLib();
    const [result] = await Promise.all([lib, peer.handshake()]);
    const channel = channelOf(result);
    await peer.writeForgedChunk(concat(Uint8Array.of(0, 0, 0, 2), Uint8Array.of(0, 2)));
    const e = await channel.readMessage().then(() => undefined, (err: unknown) => err);
    assert.instance(e, P2pError);
    assert.is((e as P2pError).kind, "decipher-error");
    assert.is((e as P2pError).greylist, false);
    await peer.closedByRemote();
    peer.close();
  }
});

test("metadata of 1 or 3 bytes instead of two bools: decoding errors, greylisted", async () => {
  for (const metadata of [Uint8Array.of(0), Uint8Array.of(0, 0, 0)]) {
    const { peer, lib } = await dialLib();
    await peer.sendConnectionMessage();
    await peer.readConnectionMessage();
    peer.keyChannel();
    await peer.writeChunk(metadata);
    const r = refusalOf(await lib);
    assert.is(r.reason, "decoding-error");
    assert.is(r.greylist, true);
    peer.close();
  }
});

test.run();
