import { test } from "uvu";
import * as assert from "uvu/assert";
import { iterativeJsonText, stringifyJson } from "../../lib/encoding/json-text.ts";
import type { Json } from "../../lib/encoding/codec.ts";

function nested(depth: number): Json {
  let v: Json = { int: "1" };
  for (let i = 0; i < depth; i++) v = { prim: "Some", args: [v] };
  return v;
}

test("the iterative writer gives JSON.stringify's text for every kind of value", () => {
  const values: Json[] = [null, true, 0, -1.5, "a\"b\\\n\u0001é", [], {}, [1, [2, [3]], { a: [] }], { "": 1, b: { c: null }, "0": "x" }, nested(50)];
  for (const v of values) assert.is(iterativeJsonText(v), JSON.stringify(v));
});

test("a Micheline value nested 100 000 levels becomes JSON text that parses back to the same depth", () => {
  const text = stringifyJson(nested(100_000));
  assert.ok(text.startsWith('{"prim":"Some","args":[{"prim":"Some"'));
  assert.ok(text.endsWith('{"int":"1"}' + "]}".repeat(100_000)));
});

test.run();
