/**
 * The cryptography of P2P connections against tezedge's vectors (test/vectors/p2p/SOURCES.md):
 * nonces drawn from two connection messages for both sides, the nonce increment, the channel key
 * (crypto_box_beforenm) and a sealed chunk (tag then ciphertext).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { blake2bWasmReady } from "../../lib/crypto/blake2b.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { boxChunk, channelKey, generateNonces, incrementNonce, InvalidPublicKeyError, unboxChunk } from "../../lib/p2p/crypto.ts";
import { decodeConnectionMessage } from "../../lib/p2p/encoding/connection.ts";
import { generateKeyPair } from "../../lib/p2p/identity.ts";

interface Vectors {
  nonces: { sent_msg: string; recv_msg: string; incoming: boolean; local: string; remote: string }[];
  nonce_increment: { from: string; to: string };
  precompute: { public_key: string; secret_key: string; channel_key: string };
  box: { channel_key: string; nonce: string; message: string; boxed_tag_then_ciphertext: string };
}
const v = JSON.parse(readFileSync(new URL("../vectors/p2p/tezedge-crypto-vectors.json", import.meta.url), "utf8")) as Vectors;

test("nonces of the side that opened the connection: local is the \"Resp -> Init\" nonce", async () => {
  await blake2bWasmReady;
  const c = v.nonces.find((n) => !n.incoming)!;
  const { local, remote } = generateNonces({ incoming: false, sentMessage: fromHex(c.sent_msg), receivedMessage: fromHex(c.recv_msg) });
  assert.is(toHex(local), c.local);
  assert.is(toHex(remote), c.remote);
});

test("nonces of the side that accepted the connection", () => {
  const c = v.nonces.find((n) => n.incoming)!;
  const { local, remote } = generateNonces({ incoming: true, sentMessage: fromHex(c.sent_msg), receivedMessage: fromHex(c.recv_msg) });
  assert.is(toHex(local), c.local);
  assert.is(toHex(remote), c.remote);
});

test("one side's local nonce is the other side's remote nonce", () => {
  const c = v.nonces[0]!;
  const a = generateNonces({ incoming: false, sentMessage: fromHex(c.sent_msg), receivedMessage: fromHex(c.recv_msg) });
  const b = generateNonces({ incoming: true, sentMessage: fromHex(c.recv_msg), receivedMessage: fromHex(c.sent_msg) });
  assert.is(toHex(a.local), toHex(b.remote));
  assert.is(toHex(a.remote), toHex(b.local));
});

test("the vectors' connection messages decode with v12's layout (old chain name, versions 0/0)", () => {
  const msg = decodeConnectionMessage(fromHex(v.nonces[0]!.sent_msg).subarray(2));
  assert.is(msg.port, 19739);
  assert.equal(msg.version, { chain_name: "SANDBOXED_TEZOS_ALPHANET_2018-11-30T15:30:56Z", distributed_db_version: 0, p2p_version: 0 });
});

test("incrementNonce adds one, big-endian, and carries", () => {
  assert.is(toHex(incrementNonce(fromHex(v.nonce_increment.from))), v.nonce_increment.to);
  assert.is(toHex(incrementNonce(fromHex("0000000000000000000000000000000000000000000000ff"))), "000000000000000000000000000000000000000000000100");
  assert.is(toHex(incrementNonce(fromHex("00000000000000000000000000000000000000000000ffff"))), "000000000000000000000000000000000000000000010000");
  assert.is(toHex(incrementNonce(new Uint8Array(24).fill(0xff))), "00".repeat(24));
  const n = fromHex(v.nonce_increment.from);
  incrementNonce(n);
  assert.is(toHex(n), v.nonce_increment.from, "the argument is left unchanged");
});

test("channelKey is NaCl's crypto_box_beforenm", () => {
  const key = channelKey(fromHex(v.precompute.secret_key), fromHex(v.precompute.public_key));
  assert.is(toHex(key), v.precompute.channel_key);
});

test("both ends of a connection get the same channel key", () => {
  const a = generateKeyPair();
  const b = generateKeyPair();
  assert.is(toHex(channelKey(a.secretKey, b.publicKey)), toHex(channelKey(b.secretKey, a.publicKey)));
});

test("channelKey refuses a low-order public key", () => {
  const a = generateKeyPair();
  assert.throws(() => channelKey(a.secretKey, new Uint8Array(32)), (e: unknown) => e instanceof InvalidPublicKeyError);
  const one = new Uint8Array(32);
  one[0] = 1;
  assert.throws(() => channelKey(a.secretKey, one), (e: unknown) => e instanceof InvalidPublicKeyError);
});

test("boxChunk gives the 16-byte tag then the ciphertext", () => {
  const sealed = boxChunk(fromHex(v.box.channel_key), fromHex(v.box.nonce), fromHex(v.box.message));
  assert.is(toHex(sealed), v.box.boxed_tag_then_ciphertext);
  assert.is(sealed.length, fromHex(v.box.message).length + 16);
});

test("unboxChunk opens the vector, and refuses a flipped bit, a wrong nonce, a short input", () => {
  const key = fromHex(v.box.channel_key);
  const nonce = fromHex(v.box.nonce);
  const sealed = fromHex(v.box.boxed_tag_then_ciphertext);
  assert.is(toHex(unboxChunk(key, nonce, sealed)!), v.box.message);
  for (const at of [0, 15, 16, sealed.length - 1]) {
    const bad = sealed.slice();
    bad[at]! ^= 1;
    assert.is(unboxChunk(key, nonce, bad), undefined, `bit flipped at ${at}`);
  }
  assert.is(unboxChunk(key, incrementNonce(nonce), sealed), undefined);
  assert.is(unboxChunk(key, nonce, sealed.subarray(0, 15)), undefined);
  assert.is(toHex(unboxChunk(key, nonce, boxChunk(key, nonce, new Uint8Array(0)))!), "", "an empty payload");
});

test.run();
