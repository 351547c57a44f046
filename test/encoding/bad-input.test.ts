/** Bad inputs give DecodeErrors that say what and where, never a crash. */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DecodeError, decodeBinary, fromHex, type Json } from "../../lib/encoding/mod.ts";
import { jsonPreview } from "../../lib/encoding/core.ts";
import { blockHeader, operation } from "../../lib/encoding/hangzhou/mod.ts";

const file = new URL("../vectors/octez/examples/hangzhou-binary-encoding-vectors.json", import.meta.url);
const { vectors } = JSON.parse(readFileSync(file, "utf8")) as { vectors: { encoding: string; json: Json; hex: string }[] };
const transactionHex = vectors.find((v) => v.encoding === "011-PtHangz2.operation" && JSON.stringify(v.json).includes('"parameters"'))!.hex;
const headerVector = vectors.find((v) => v.encoding === "011-PtHangz2.block_header")!;

function decodeError(f: () => unknown): DecodeError {
  try {
    f();
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw new Error(`expected a DecodeError, got ${e}`);
  }
  throw new Error("expected a DecodeError, got success");
}

test("truncated bytes fail with a path", () => {
  const bytes = fromHex(headerVector.hex);
  const e = decodeError(() => decodeBinary(blockHeader, bytes.subarray(0, 40)));
  assert.match(e.message, /Not enough data/);
  assert.equal(e.path, ["timestamp"]);
  // Every prefix fails cleanly.
  for (let n = 0; n < bytes.length; n++) decodeError(() => decodeBinary(blockHeader, bytes.subarray(0, n)));
});

test("trailing bytes are refused", () => {
  const e = decodeError(() => decodeBinary(blockHeader, fromHex(headerVector.hex + "00")));
  assert.match(e.message, /trailing/);
});

test("a wrong content tag names the contents index", () => {
  const bytes = fromHex(transactionHex);
  bytes[32] = 0x70; // not a Hangzhou tag
  const e = decodeError(() => decodeBinary(operation, bytes));
  assert.match(e.message, /Unknown tag 112/);
  assert.equal(e.path, ["contents", 0]);
});

test("an overlong Zarith counter is refused in its field", () => {
  // branch, tag 0x6c, source (21), fee 0x21, counter of 11 bytes.
  const hex = "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8" + "6c" + "0002298c03ed7d454a101eb7022bc95f7e5f41ac78" + "21" +
    "ffffffffffffffffffff01" + "00".repeat(80);
  const e = decodeError(() => decodeBinary(operation, fromHex(hex)));
  assert.match(e.message, /longer than 10 bytes/);
  assert.equal(e.path, ["contents", 0, "Transaction", "counter"]);
});

test("bad hex and bad Base58Check in JSON fail with a path", () => {
  const json = headerVector.json as { [k: string]: Json };
  let e = decodeError(() => blockHeader.fromJson({ ...json, proof_of_work_nonce: "zz1895ca00000000" }));
  assert.match(e.message, /Invalid hex/);
  assert.equal(e.path, ["proof_of_work_nonce"]);
  e = decodeError(() => blockHeader.fromJson({ ...json, fitness: ["01", "0g"] }));
  assert.equal(e.path, ["fitness", 1]);
  e = decodeError(() => blockHeader.fromJson({ ...json, predecessor: "BKpbfCvh777DQHnXjU2sqHvVUNZ7dBAdqEfKkdw8EGSkD9LSYXa" }));
  assert.match(e.message, /Invalid block_hash/);
  assert.equal(e.path, ["predecessor"]);
  e = decodeError(() => operation.fromJson({ branch: json["predecessor"]!, contents: [{ kind: "transaction" }] }));
  assert.equal(e.path, ["contents", 0, "source"]);
  e = decodeError(() => operation.fromJson({ branch: json["predecessor"]!, contents: [{ kind: "teleport" }] }));
  assert.equal(e.path, ["contents", 0, "kind"]);
});

test("a bad option byte and a bad boolean are refused", () => {
  const bytes = fromHex(headerVector.hex);
  // seed_nonce_hash presence byte sits after shell (…) + priority + nonce; find it from the JSON length.
  const shellLength = bytes.length - (2 + 8 + 1 + 32 + 1 + 64);
  const flag = shellLength + 10;
  assert.is(bytes[flag], 0xff);
  const a = bytes.slice();
  a[flag] = 0x01;
  assert.equal(decodeError(() => decodeBinary(blockHeader, a)).path, ["seed_nonce_hash"]);
  const b = bytes.slice();
  b[flag + 33] = 0x01;
  assert.equal(decodeError(() => decodeBinary(blockHeader, b)).path, ["liquidity_baking_escape_vote"]);
});

test("JSON of the wrong type is a DecodeError, not a crash", () => {
  for (const j of [null, 5, "x", [], true] as Json[]) decodeError(() => operation.fromJson(j));
  decodeError(() => blockHeader.fromJson({ level: "1" }));
});

test("a value nested 100 000 deep or megabytes long where another is expected: a short message, no stack overflow", () => {
  let deep: Json = [];
  for (let i = 0; i < 100_000; i++) deep = { prim: "Pair", args: [deep] };
  const long = "z".repeat(4_000_000);
  for (const bad of [deep, [deep], long, { signature: deep }] as Json[]) {
    const e = decodeError(() => operation.fromJson({ branch: bad, contents: [] } as Json));
    assert.ok(e.message.length < 300, e.message.slice(0, 300));
  }
  assert.is(jsonPreview(deep, 30), '{"prim":"Pair","args":[{"pr...');
  assert.is(jsonPreview({ a: [1, "x", null, true] }), '{"a":[1,"x",null,true]}');
  assert.is(jsonPreview([1n, new Uint8Array(3)]), "[1n,<3 bytes>]");
});

test.run();
