import { test } from "uvu";
import * as assert from "uvu/assert";
import { throwsA } from "../genesis/throws.ts";
import { drawNonce, NonceStore } from "../../lib/baker/nonces.ts";
import { nonceHash } from "../../lib/crypto/hashes.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { Table } from "../../lib/store/tables.ts";

const CHAIN = new Uint8Array([0x7a, 0x06, 0xa7, 0x70]);
const nonce = (b: number) => new Uint8Array(32).fill(b);

test("a recorded nonce is found by level and hash, under table 0x18, chain id and big-endian level", async () => {
  const kv = new MemoryStore();
  const store = new NonceStore(kv, CHAIN);
  await store.put(260, nonce(1));
  assert.equal(store.find(260, nonceHash(nonce(1))), nonce(1));
  assert.is(store.find(260, nonceHash(nonce(2))), undefined);
  assert.is(store.find(261, nonceHash(nonce(1))), undefined);
  const keys = [...kv.range({})].map(([k]) => toHex(k));
  assert.equal(keys, [`${Table.bakerNonces.toString(16)}7a06a77000000104${toHex(nonceHash(nonce(1)))}`]);
  await kv.close();
});

test("nonces of another chain are not seen", async () => {
  const kv = new MemoryStore();
  await new NonceStore(kv, CHAIN).put(4, nonce(3));
  const other = new NonceStore(kv, new Uint8Array([1, 2, 3, 4]));
  assert.is(other.find(4, nonceHash(nonce(3))), undefined);
  assert.equal(other.list(), []);
  await kv.close();
});

test("prune() forgets the levels below the given one and keeps the others", async () => {
  const kv = new MemoryStore();
  const store = new NonceStore(kv, CHAIN);
  for (const [level, b] of [[4, 4], [8, 8], [12, 12], [16, 16]] as const) await store.put(level, nonce(b));
  await store.prune(12);
  assert.equal(store.list().map((e) => e.level), [12, 16]);
  assert.equal(store.list()[0]!.nonce, nonce(12));
  await kv.close();
});

test("drawNonce() gives 32 fresh random bytes", () => {
  const a = drawNonce(), b = drawNonce();
  assert.is(a.length, 32);
  assert.not.equal(a, b);
});

test("bad levels, nonces and chain ids are refused with TypeError or RangeError", () => {
  const kv = new MemoryStore();
  const store = new NonceStore(kv, CHAIN);
  throwsA(() => store.putOp(1, new Uint8Array(31)), RangeError);
  throwsA(() => store.putOp(-1, nonce(1)), RangeError);
  throwsA(() => store.putOp(1.5, nonce(1)), TypeError);
  throwsA(() => store.find(1, new Uint8Array(20)), RangeError);
  throwsA(() => new NonceStore(kv, new Uint8Array(3)), RangeError);
  throwsA(() => new NonceStore({} as MemoryStore, CHAIN), TypeError);
});

test.run();
