/** The combinators lay bytes out as data-encoding does, and describe themselves as Octez prints it. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  bytes,
  constant,
  conv,
  DecodeError,
  decodeBinary,
  def,
  dft,
  dynamicSize,
  encodeBinary,
  fromHex,
  int32,
  int64,
  list,
  mergeObjs,
  mu,
  obj,
  opt,
  option,
  req,
  string,
  stringEnum,
  tagged,
  toHex,
  tup,
  uint16,
  uint8,
  union,
  variableBytes,
  variableList,
  type Codec,
} from "../../lib/encoding/mod.ts";

const hex = <T>(c: Codec<T>, v: T) => toHex(encodeBinary(c, v));

test("obj lays fields out in order with presence bytes for options", () => {
  const c = obj(req("a", uint8), opt("b", uint16), opt("c", uint16), dft("d", int32, 7));
  assert.is(hex(c, { a: 1, c: 2, d: 7 }), "01" + "00" + "ff0002" + "00000007");
  assert.equal(decodeBinary(c, fromHex("0100ff000200000007")), { a: 1, c: 2, d: 7 });
  assert.equal(c.toJson({ a: 1, c: 2, d: 7 }), { a: 1, c: 2 });
  assert.equal(c.fromJson({ a: 1 }), { a: 1, d: 7 });
});

test("a variable-size field may be followed only by fixed-size fields", () => {
  const c = obj(req("data", variableBytes), req("tail", uint16));
  assert.equal(decodeBinary(c, fromHex("aabbcc0005")), { data: fromHex("aabbcc"), tail: 5 });
  assert.throws(() => obj(req("data", variableBytes), req("more", bytes)), (e: unknown) => e instanceof TypeError);
});

test("dynamic size, list and string carry 4-byte length prefixes", () => {
  assert.is(hex(list(uint8), [1, 2]), "000000020102");
  assert.is(hex(variableList(uint8), [1, 2]), "0102");
  assert.is(hex(string, "ab"), "000000026162");
  assert.is(hex(list(bytes), [fromHex("01")]), "00000005" + "0000000101");
  assert.is(hex(dynamicSize(int32), 1), "00000004" + "00000001");
  assert.throws(() => decodeBinary(dynamicSize(int32), fromHex("0000000500000001ff")), (e: unknown) => e instanceof DecodeError);
});

test("unions write their tag and pick the case by kind in JSON", () => {
  type Shape = { kind: "dot" } | { kind: "line"; length: number };
  const shape = union<Shape>([
    tagged(0, "Dot", obj(req("kind", constant("dot"))), (v: Shape) => (v.kind === "dot" ? v : undefined), (v) => v as Shape),
    tagged(7, "Line", obj(req("kind", constant("line")), req("length", uint16)), (v: Shape) => (v.kind === "line" ? v : undefined), (v) => v as Shape),
  ]);
  assert.is(hex(shape, { kind: "line", length: 3 }), "070003");
  assert.equal(decodeBinary(shape, fromHex("00")), { kind: "dot" });
  assert.equal(shape.fromJson({ kind: "line", length: 3 }), { kind: "line", length: 3 });
  assert.throws(() => decodeBinary(shape, fromHex("05")), (e: unknown) => e instanceof DecodeError && /Unknown tag 5/.test((e as Error).message));
  const wide = union<number>([tagged(0x1234, "N", int32, (v: number) => v, (v) => v)], { tagSize: "Uint16" });
  assert.is(hex(wide, 1), "123400000001");
});

test("option, tuples, enums, int64 and conv", () => {
  assert.is(hex(option(uint8), undefined), "00");
  assert.is(hex(option(uint8), 5), "0105");
  assert.is(hex(tup(uint8, string), [1, "a"]), "010000000161");
  assert.is(hex(stringEnum(["a", "b", "c"]), "c"), "02");
  assert.is(hex(int64, -2n), "fffffffffffffffe");
  assert.is(int64.toJson(2789n), "2789");
  const date = conv((d: Date) => BigInt(d.getTime() / 1000), (s) => new Date(Number(s) * 1000), int64);
  assert.is(decodeBinary(date, fromHex("000000005e9dcbaf")).toISOString(), "2020-04-20T16:19:59.000Z");
});

test("mergeObjs concatenates objects in binary and JSON", () => {
  const c = mergeObjs(obj(req("a", uint8)), obj(req("b", uint8)));
  assert.is(hex(c, { a: 1, b: 2 }), "0102");
  assert.equal(c.toJson({ a: 1, b: 2 }), { a: 1, b: 2 });
});

test("mu describes recursive types; its schema points back at its definition", () => {
  type Tree = { leaf: number } | Tree[];
  const tree: Codec<Tree> = mu("tree", (self) =>
    union<Tree>([
      tagged(0, "Leaf", obj(req("leaf", uint8)), (v: Tree) => (Array.isArray(v) ? undefined : v), (v) => v as Tree),
      tagged(1, "Node", list(self), (v: Tree) => (Array.isArray(v) ? v : undefined), (v) => v as Tree),
    ]));
  const v: Tree = [{ leaf: 1 }, [{ leaf: 2 }]];
  assert.is(hex(tree, v), "01" + "00000009" + "0001" + "01" + "00000002" + "0002");
  assert.equal(decodeBinary(tree, encodeBinary(tree, v)), v);
  const s = tree.jsonSchema() as { definitions: { tree: { oneOf: { items?: unknown }[] } } };
  assert.equal(s.definitions.tree.oneOf[1]!.items, { $ref: "#/definitions/tree" });
});

test("binary schemas flatten objects and name references as data-encoding does", () => {
  const c = def("thing", obj(req("a", uint8), opt("b", def("inner", obj(req("x", uint8), req("y", uint8)))), req("s", string)));
  assert.equal(c.binarySchema(), {
    toplevel: {
      fields: [
        { name: "a", layout: { size: "Uint8", kind: "Int" }, data_kind: { size: 1, kind: "Float" }, kind: "named" },
        { kind: "option_indicator", name: "b" },
        { name: "b", layout: { name: "inner", kind: "Ref" }, data_kind: { size: 2, kind: "Float" }, kind: "named" },
        { kind: "dyn", num_fields: 1, size: "Uint30" },
        { name: "s", layout: { kind: "String" }, data_kind: { kind: "Variable" }, kind: "named" },
      ],
    },
    fields: [
      {
        description: { title: "inner" },
        encoding: {
          fields: [
            { name: "x", layout: { size: "Uint8", kind: "Int" }, data_kind: { size: 1, kind: "Float" }, kind: "named" },
            { name: "y", layout: { size: "Uint8", kind: "Int" }, data_kind: { size: 1, kind: "Float" }, kind: "named" },
          ],
        },
      },
    ],
  });
  assert.equal(c.jsonSchema(), {
    $schema: "http://json-schema.org/draft-04/schema#",
    type: "object",
    properties: {
      a: { type: "integer", minimum: 0, maximum: 255 },
      b: { $ref: "#/definitions/inner" },
      s: { $ref: "#/definitions/unistring" },
    },
    required: ["s", "a"],
    additionalProperties: false,
    definitions: {
      inner: {
        type: "object",
        properties: { x: { type: "integer", minimum: 0, maximum: 255 }, y: { type: "integer", minimum: 0, maximum: 255 } },
        required: ["y", "x"],
        additionalProperties: false,
      },
      unistring: (string.jsonSchema() as { definitions: { unistring: unknown } }).definitions.unistring,
    },
  } as never);
});

test("writing a wrong value names the field and leaves no partial result", () => {
  const c = obj(req("a", uint8), req("b", uint8));
  assert.throws(() => encodeBinary(c, { a: 1, b: 256 }), (e: unknown) => e instanceof RangeError && /field "b"/.test((e as Error).message));
  assert.throws(() => encodeBinary(c, { a: 1 } as never), (e: unknown) => e instanceof TypeError && /Missing field "b"/.test((e as Error).message));
});

test.run();
