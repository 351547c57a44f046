import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hexToBytes, bytesToHex } from "@noble/hashes/utils.js";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import {
  blockHash,
  chainIdOfGenesis,
  nonceHash,
  operationHash,
  operationListHash,
  operationListListHash,
  originatedContractHash,
  scriptExprHash,
} from "../../lib/crypto/hashes.ts";
import { merkleRoot } from "../../lib/crypto/merkle.ts";
import { B58, b58decode, b58encode, b58tryDecode } from "../../lib/encoding/base58.ts";

// Mainnet block 1064978 (protocol 006 Carthage) as `GET /chains/main/blocks/1064978` returned it.
const carthage = JSON.parse(readFileSync(new URL("../vectors/octez/examples/mainnet-carthage-block-1064978.json", import.meta.url), "utf8"));

const h = (n: number) => blake2b256(Uint8Array.of(n)); // distinct 32-byte elements
const node = (a: Uint8Array, b: Uint8Array) => blake2b256(a, b);
const leaf = (x: Uint8Array) => blake2b256(x);

test("merkleRoot() of no element is the BLAKE2b-256 of the empty string", () => {
  assert.is(bytesToHex(merkleRoot([])), "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
});

test("merkleRoot() of one element is its leaf hash", () => {
  assert.equal(merkleRoot([h(1)]), leaf(h(1)));
});

test("merkleRoot() pads an odd list with its last leaf, level by level", () => {
  const [a, b, c, d, e] = [1, 2, 3, 4, 5].map(h) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  assert.equal(merkleRoot([a, b]), node(leaf(a), leaf(b)));
  assert.equal(merkleRoot([a, b, c]), node(node(leaf(a), leaf(b)), node(leaf(c), leaf(c))));
  assert.equal(merkleRoot([a, b, c, d]), node(node(leaf(a), leaf(b)), node(leaf(c), leaf(d))));
  const ee = node(leaf(e), leaf(e));
  assert.equal(merkleRoot([a, b, c, d, e]), node(node(node(leaf(a), leaf(b)), node(leaf(c), leaf(d))), node(ee, ee)));
});

test("operationListListHash() of nothing is the genesis header's operations_hash", () => {
  assert.is(b58encode(B58.operationListListHash, operationListListHash([])), "LLoZS2LW3rEi7KYU4ouBQtorua37aWWCtpDmv1n2x3xoKi6sVXLWp");
});

test("operationListListHash() recomputes the operations_hash of mainnet block 1064978 from its operation hashes", () => {
  const passes: { hash: string }[][] = carthage.operations;
  assert.equal(passes.map((p) => p.length), [23, 0, 0, 4]);
  const lists = passes.map((pass) => operationListHash(pass.map((op) => b58decode(B58.operationHash, op.hash))));
  assert.is(b58encode(B58.operationListListHash, operationListListHash(lists)), carthage.header.operations_hash);
  assert.is(carthage.header.operations_hash, "LLoaG8QGjYYR4hBA5i15XmfY9RuTVsRYfKawJ7BxxzWeBDKpRNbGK");
});

test("chainIdOfGenesis() of the mainnet and sandbox genesis block is NetXdQprcVkpaWU", () => {
  const genesis = b58decode(B58.blockHash, "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2");
  assert.is(b58encode(B58.chainId, chainIdOfGenesis(genesis)), "NetXdQprcVkpaWU");
});

// The binary header of a Carthage block: shell header, then priority, proof-of-work nonce, absent
// seed nonce hash, signature (Octez block_header.ml and Carthage block_header_repr.ml).
function carthageHeaderBytes(header: typeof carthage.header): Uint8Array {
  const parts: number[] = [];
  const u = (n: number, size: number) => {
    for (let i = size - 1; i >= 0; i--) parts.push(Math.floor(n / 256 ** i) % 256);
  };
  const raw = (b: Uint8Array) => parts.push(...b);
  u(header.level, 4);
  u(header.proto, 1);
  raw(b58decode(B58.blockHash, header.predecessor));
  u(Date.parse(header.timestamp) / 1000, 8);
  u(header.validation_pass, 1);
  raw(b58decode(B58.operationListListHash, header.operations_hash));
  const fitness = (header.fitness as string[]).map((f) => hexToBytes(f));
  u(fitness.reduce((n, f) => n + 4 + f.length, 0), 4);
  for (const f of fitness) {
    u(f.length, 4);
    raw(f);
  }
  raw(b58decode(B58.contextHash, header.context));
  u(header.priority, 2);
  raw(hexToBytes(header.proof_of_work_nonce));
  u(0, 1);
  raw(b58decode(B58.genericSignature, header.signature));
  return Uint8Array.from(parts);
}

test("blockHash() of mainnet block 1064978's binary header is its hash", () => {
  assert.is(b58encode(B58.blockHash, blockHash(carthageHeaderBytes(carthage.header))), carthage.hash);
});

test("operationHash() of a Carthage endorsement's bytes is its hash", () => {
  const op = carthage.operations[0][0];
  const level = new Uint8Array(4);
  new DataView(level.buffer).setInt32(0, op.contents[0].level);
  const bytes = Uint8Array.from([
    ...b58decode(B58.blockHash, op.branch),
    0x00, // endorsement tag
    ...level,
    ...b58decode(B58.genericSignature, op.signature),
  ]);
  assert.is(b58encode(B58.operationHash, operationHash(bytes)), "ooy6DvwxByrtWiE5uatSdudCKJongCdUUXkZqrb67r2eGSAgdaU");
});

test("operationHash() matches Taquito's encodeOpHash vector", () => {
  const bytes = hexToBytes(
    "0f185d8a30061e8134c162dbb7a6c3ab8f5fdb153363ccd6149b49a33481156a6c00b2e19a9e74440d86c59f13dab8a18ff873e889eaa304ab05da13000001f1585a7384f36e45fb43dc37e8ce172bced3e05700ff0000000002002110c033f3a990c2e46a3d6054ecc2f74072aae7a34b5ac4d9ce9edc11c2410a97695682108951786f05b361da03b97245dc9897e1955e08b5b8d9e153b0bdeb0d",
  );
  assert.is(b58encode(B58.operationHash, operationHash(bytes)), "opapqvVXmebRTCFd2GQFydr4tJj3V5QocQuTmuhbatcHm4Seo2t");
});

test("originatedContractHash() gives the liquidity baking contracts from their migration nonce", () => {
  // Hangzhou liquidity_baking_migration.ml: origination nonce = hash of "Drip, drip, drip.", CPMM first, then LQT.
  const nonce = blake2b256(new TextEncoder().encode("Drip, drip, drip."));
  assert.is(b58encode(B58.contractHash, originatedContractHash(nonce, 0)), "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5");
  assert.is(b58encode(B58.contractHash, originatedContractHash(nonce, 1)), "KT1AafHA1C1vk959wvHWBispY9Y2f3fxBUUo");
});

test("originatedContractHash() refuses indexes outside int32 and hashes of the wrong size", () => {
  const nonce = h(0);
  assert.throws(() => originatedContractHash(nonce, -1), (e: unknown) => e instanceof RangeError);
  assert.throws(() => originatedContractHash(nonce, 2 ** 31), (e: unknown) => e instanceof RangeError);
  assert.throws(() => originatedContractHash(nonce, 1.5), (e: unknown) => e instanceof TypeError);
  assert.throws(() => originatedContractHash(nonce.subarray(1), 0), (e: unknown) => e instanceof RangeError);
});

test("scriptExprHash() of a PACKed address is Taquito's encodeExpr vector", () => {
  const packed = hexToBytes("050a000000160000b2e19a9e74440d86c59f13dab8a18ff873e889ea");
  assert.is(b58encode(B58.scriptExprHash, scriptExprHash(packed)), "exprv6UsC1sN3Fk2XfgcJCL8NCerP5rCGy1PRESZAqr7L2JdzX55EN");
});

test("scriptExprHash() of a global constant hashes its Micheline bytes without 0x05 (Taquito vector)", () => {
  // Pair 999 999: prim with two arguments (0x07), Pair (0x07), two ints (0x00, zarith a70f).
  const expr = hexToBytes("070700a70f00a70f");
  assert.is(b58encode(B58.scriptExprHash, scriptExprHash(expr)), "exprvNeeFGy8M7xhmaq7bkQcd3RsXc7ogv2HwL1dciubXdgPHEMRH2");
});

test("nonceHash() hashes a 32-byte nonce and refuses other sizes", () => {
  const nonce = new Uint8Array(32);
  assert.equal(nonceHash(nonce), blake2b256(nonce));
  assert.is(b58encode(B58.nonceHash, nonceHash(nonce)).slice(0, 3), "nce");
  assert.throws(() => nonceHash(new Uint8Array(31)), (e: unknown) => e instanceof RangeError);
});

test("hash functions refuse arguments of the wrong type", () => {
  assert.throws(() => blockHash("00" as unknown as Uint8Array), (e: unknown) => e instanceof TypeError);
  assert.throws(() => operationListHash([new Uint8Array(31)]), (e: unknown) => e instanceof RangeError);
  assert.throws(() => operationListListHash("x" as unknown as Uint8Array[]), (e: unknown) => e instanceof TypeError);
  assert.throws(() => chainIdOfGenesis(new Uint8Array(4)), (e: unknown) => e instanceof RangeError);
});

test("Base58Check: the longest and shortest payloads of every kind decode; a text past a kind's length is refused at once", () => {
  for (const k of Object.values(B58)) {
    for (const fill of [0x00, 0xff]) {
      const payload = new Uint8Array(k.size).fill(fill);
      const text = b58encode(k, payload);
      assert.equal(b58tryDecode(k, text), payload, `${k.name} filled with ${fill}`);
    }
  }
  // a 4 MB text of base58 digits: refused by its length (decoding it would take minutes)
  const t = "z".repeat(4_000_000);
  assert.is(b58tryDecode(B58.blockHash, t), undefined);
  assert.throws(() => b58decode(B58.blockHash, t), (e: Error) => e.message.length < 200 && e.message.startsWith("Invalid block_hash"));
});

test.run();
