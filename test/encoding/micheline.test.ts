/** Micheline binary and JSON forms against OCTEZ-FACTS §C. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  DecodeError,
  decodeBinary,
  decodeMicheline,
  encodeBinary,
  encodeMicheline,
  fromHex,
  HANGZHOU_PRIMITIVES,
  obj,
  opt,
  toHex,
  type Micheline,
} from "../../lib/encoding/mod.ts";
import { parameters } from "../../lib/encoding/hangzhou/mod.ts";

test("primitive codes follow Hangzhou's table", () => {
  assert.is(HANGZHOU_PRIMITIVES.length, 147);
  const code = (p: string) => HANGZHOU_PRIMITIVES.indexOf(p);
  assert.equal([code("parameter"), code("Unit"), code("CAR"), code("NIL"), code("PAIR"), code("SOME"), code("UNIT")], [0x00, 0x0b, 0x16, 0x3d, 0x42, 0x46, 0x4f]);
  assert.equal([code("string"), code("operation"), code("address"), code("constant")], [0x68, 0x6d, 0x6e, 0x92]);
});

test("optional transaction parameters encode as the vector of §C", () => {
  const withParameters = obj(opt("parameters", parameters));
  const p = { entrypoint: "action", value: [{ prim: "UNIT" }] as Micheline };
  const hex = "ff" + "ff06616374696f6e" + "00000007" + "0200000002034f";
  assert.is(toHex(encodeBinary(withParameters, { parameters: p })), hex);
  assert.equal(decodeBinary(withParameters, fromHex(hex)), { parameters: p });
});

test("every expression shape round-trips through binary", () => {
  const e: Micheline = [
    { int: "-1234567890123456789012" },
    { string: "héllo" },
    { bytes: "00ff" },
    { prim: "Unit" },
    { prim: "unit", annots: [":u"] },
    { prim: "Some", args: [{ int: "1" }] },
    { prim: "option", args: [{ prim: "nat" }], annots: ["%x"] },
    { prim: "Pair", args: [{ int: "1" }, { int: "2" }] },
    { prim: "pair", args: [{ prim: "nat" }, { prim: "int" }], annots: ["%a", "%b"] },
    { prim: "Pair", args: [{ int: "1" }, { int: "2" }, { int: "3" }] },
    { prim: "pair", args: [{ prim: "nat" }, { prim: "int" }, { prim: "unit" }], annots: ["@p"] },
    [],
  ];
  const b = encodeMicheline(e);
  assert.equal(decodeMicheline(b), e);
  assert.is(b[0], 0x02);
});

test("generic primitive encoding matches Octez (tag 09, args sequence, annotations length)", () => {
  assert.is(toHex(encodeMicheline({ prim: "Pair", args: [{ int: "1" }, { int: "2" }, { int: "3" }] })), "090700000006000100020003" + "00000000");
  assert.is(toHex(encodeMicheline({ prim: "unit", annots: [":u"] })), "046c000000023a75");
});

test("JSON input is normalised: empty args and annots dropped, ints canonical, bytes lowercase", () => {
  const codec = parameters;
  const v = codec.fromJson({ entrypoint: "default", value: { prim: "Pair", args: [{ int: "007" }, { bytes: "AB" }], annots: [] } });
  assert.equal(v.value, { prim: "Pair", args: [{ int: "7" }, { bytes: "ab" }] });
});

test("unknown primitives and tags are DecodeErrors with a path", () => {
  assert.throws(() => parameters.fromJson({ entrypoint: "default", value: { prim: "Pair", args: [{ prim: "NOPE" }] } }), (e: unknown) =>
    e instanceof DecodeError && e.path.join(".") === "value.args.0.prim");
  assert.throws(() => decodeMicheline(fromHex("03ff")), (e: unknown) => e instanceof DecodeError && /primitive code 255/.test((e as Error).message));
  assert.throws(() => decodeMicheline(fromHex("0b")), (e: unknown) => e instanceof DecodeError && /tag 11/.test((e as Error).message));
});

test("deeply nested input is refused without exhausting the stack", () => {
  let hex = "";
  for (let i = 0; i < 5000; i++) hex += "0546";
  hex += "030b";
  assert.throws(() => decodeMicheline(fromHex(hex)), (e: unknown) => e instanceof DecodeError && /deeply/.test((e as Error).message));
});

test.run();
