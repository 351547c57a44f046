/**
 * BSON as Octez writes data-encoding's `json` in binary, checked against bytes produced by Octez:
 * the Edo sandbox parameters of an activation (with the JSON they were built from) and the
 * Carthage sandbox parameters inside a real level-1 block header (see `vectors/`).
 */
import { readFileSync } from "node:fs";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { throwsA } from "./throws.ts";
import { bsonJson, decodeBson, encodeBson } from "../../lib/encoding/bson.ts";
import { DecodeError, decodeBinary, encodeBinary, type Json } from "../../lib/encoding/codec.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";

const test = suite("bson");

const vector = (name: string) => JSON.parse(readFileSync(new URL(`./vectors/${name}`, import.meta.url), "utf8"));
const ref = (p: string) => new URL(`../vectors/octez/${p}`, import.meta.url);
const edo = vector("edo-sandbox-protocol-parameters.json");
const block = vector("tezedge-sandbox-block-level1.json");
const hangzhou: Json = JSON.parse(readFileSync(ref("examples/011-hangzhou-protocol-parameters.json"), "utf8"));

/** The Carthage parameters inside the tezedge block: between the command's fitness and the signature. */
function carthageParameters(): Uint8Array {
  const header = fromHex(block.header_hex);
  // shell header: 4+1+32+8+1+32 + (4+17) + 32 = 131 bytes; then tag, protocol hash, fitness (4+17).
  const start = 131 + 1 + 32 + 21;
  return header.subarray(start, header.length - 64);
}

test("the Edo sandbox parameters encode to the bytes Octez put in the activation", () => {
  assert.is(toHex(encodeBinary(bsonJson(), edo.parameters)), edo.protocol_parameters);
  assert.is(toHex(encodeBson(edo.parameters)), edo.protocol_parameters.slice(8));
});

test("the Edo sandbox parameters read back with empty arrays as empty objects, as ocplib-json-typed reads them", () => {
  const back = decodeBinary(bsonJson(), fromHex(edo.protocol_parameters)) as { [k: string]: Json };
  assert.equal(back["bootstrap_contracts"], {});
  assert.equal(back["commitments"], {});
  assert.equal({ ...back, bootstrap_contracts: [], commitments: [] }, edo.parameters);
  assert.equal(Object.keys(back), Object.keys(edo.parameters));
});

test("the Carthage parameters of a real activation block decode and re-encode to the same bytes", () => {
  const bytes = carthageParameters();
  assert.is(bytes.length, 4 + 0x56d);
  const json = decodeBinary(bsonJson(), bytes) as { [k: string]: Json };
  assert.is(json["proof_of_work_threshold"], "-1");
  assert.is(json["cost_per_byte"], "1000");
  assert.is(json["preserved_cycles"], 2);
  assert.is(json["michelson_maximum_type_size"], 1000);
  assert.equal(json["time_between_blocks"], ["1", "0"]);
  assert.equal((json["bootstrap_accounts"] as Json[])[0], ["edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav", "4000000000000"]);
  assert.is(toHex(encodeBinary(bsonJson(), json)), toHex(bytes));
});

test("the Hangzhou sandbox parameters round-trip and write numbers as doubles", () => {
  const bytes = encodeBinary(bsonJson(), hangzhou);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.is(view.getUint32(0), bytes.length - 4);
  assert.is(view.getInt32(4, true), bytes.length - 4);
  assert.equal(decodeBinary(bsonJson(), bytes), hangzhou);
  // "preserved_cycles": 2 → 0x01 "preserved_cycles" 0x00 then 2.0 as a little-endian double.
  assert.ok(toHex(bytes).includes("01" + toHex(new TextEncoder().encode("preserved_cycles")) + "00" + "0000000000000040"));
  // "liquidity_baking_escape_ema_threshold": 1000000 → 1e6 as a double (0x412e848000000000).
  assert.ok(toHex(bytes).includes("0000000080842e41"));
});

test("scalars at the top are one immediate element with the high bit in the type byte", () => {
  assert.is(toHex(encodeBson(1)), "0e00000081000000000000f03f00");
  assert.is(toHex(encodeBson("a")), "0c000000820200000061" + "0000");
  assert.is(toHex(encodeBson(true)), "07000000880100");
  assert.is(toHex(encodeBson(false)), "07000000880000");
  assert.is(toHex(encodeBson(null)), "060000008a00");
  for (const v of [1, -0.5, "a", "", true, false, null, 1e300]) assert.equal(decodeBson(encodeBson(v)), v);
});

test("objects, arrays and nested documents follow the BSON layout", () => {
  assert.is(toHex(encodeBson({})), "0500000000");
  assert.is(toHex(encodeBson({ a: 1 })), "10000000016100000000000000f03f00");
  // size, 0x04 "k", then the array as a document keyed "0" (true) and "1" (null).
  assert.is(toHex(encodeBson({ k: [true, null] })), "14000000" + "046b00" + "0c000000" + "08300001" + "0a3100" + "00" + "00");
  assert.equal(decodeBson(encodeBson({ k: [true, null], o: { s: "é" } })), { k: [true, null], o: { s: "é" } });
  // "é" is written as its UTF-8 bytes.
  assert.ok(toHex(encodeBson({ s: "é" })).includes("03000000c3a900"));
});

test("a top-level array reads back as an object keyed by indices, and an empty array as an empty object", () => {
  assert.equal(decodeBson(encodeBson(["x", 2])), { 0: "x", 1: 2 });
  assert.is(toHex(encodeBson(["x"])), toHex(encodeBson({ 0: "x" })));
  assert.equal(decodeBson(encodeBson({ a: [] })), { a: {} });
  assert.equal(decodeBson(encodeBson({ a: [[1], []] })), { a: [[1], {}] });
});

test("a __proto__ key stays an own field", () => {
  const v = JSON.parse('{"__proto__":{"x":1}}') as Json;
  const back = decodeBson(encodeBson(v)) as { [k: string]: Json };
  assert.ok(Object.prototype.hasOwnProperty.call(back, "__proto__"));
  assert.equal(back["__proto__"], { x: 1 });
  assert.is(Object.getPrototypeOf(back), Object.prototype);
});

const bad: [string, string, RegExp][] = [
  ["empty input", "", /not enough data for size and terminator/],
  ["a size that is not the input's", "0600000000", /size tag inconsistent/],
  ["an early terminator", "060000000000", /early terminator/],
  ["an unknown element type", "0800000007610000", /unknown tag \(0x07\)/],
  ["an unknown immediate type", "060000008300", /unknown immediate tag \(0x03\)/],
  ["a bad boolean byte", "090000000861000200", /invalid bool value \(0x02\)/],
  ["a string without its terminator", "0e000000026100020000006201" + "00", /string terminator expected/],
  ["array keys out of order", "14000000046b000c000000083100010a30000000", /invalid field names for array field/],
  ["a truncated double", "0c0000000161000000000000", /double expected/],
  ["a field name without its terminator", "07000000086161", /field name terminator/],
  ["a string that is not UTF-8", "0e00000002610002000000ff0000", /invalid UTF-8/],
  ["a subdocument longer than its parent", "0c00000003610020000000" + "00", /subdocument expected/],
];

for (const [what, hex, message] of bad) {
  test(`decodeBson() rejects ${what}`, () => {
    try {
      decodeBson(fromHex(hex));
      assert.unreachable("should have thrown");
    } catch (e) {
      assert.instance(e, DecodeError);
      assert.match((e as Error).message, message);
    }
  });
}

test("the json codec refuses trailing bytes after the BSON document", () => {
  const ok = encodeBinary(bsonJson(), { a: 1 });
  const longer = new Uint8Array(ok.length + 1);
  longer.set(ok);
  longer[3] = ok[3]! + 1;
  throwsA(() => decodeBinary(bsonJson(), longer), DecodeError, /size tag inconsistent/);
});

test("encodeBson() refuses values that are not JSON", () => {
  throwsA(() => encodeBson({ n: Number.NaN }), RangeError);
  throwsA(() => encodeBson(Infinity), RangeError);
  throwsA(() => encodeBson({ "a\u0000b": 1 }), RangeError);
  throwsA(() => encodeBson({ b: new Uint8Array(2) as unknown as Json }), TypeError);
  throwsA(() => encodeBson({ u: undefined as unknown as Json }), TypeError);
  throwsA(() => encodeBson(10n as unknown as Json), TypeError);
  throwsA(() => bsonJson().toJson({ d: new Date(0) as unknown as Json }), TypeError);
});

test("nesting deeper than the limit is refused on both sides", () => {
  let deep: Json = 1;
  for (let i = 0; i < 1200; i++) deep = [deep];
  throwsA(() => encodeBson({ d: deep }), RangeError);
  // The same depth as bytes: documents nested 1,200 times under the name "a".
  let doc = Uint8Array.of(5, 0, 0, 0, 0);
  for (let i = 0; i < 1200; i++) {
    const next = new Uint8Array(doc.length + 8);
    new DataView(next.buffer).setInt32(0, next.length, true);
    next.set([0x03, 0x61, 0x00], 4);
    next.set(doc, 7);
    doc = next;
  }
  throwsA(() => decodeBson(doc), DecodeError, /nested deeper/);
});

test.run();
