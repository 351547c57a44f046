import { test } from "uvu";
import * as assert from "uvu/assert";
import { Lru } from "../../lib/encoding/lru.ts";

test("an entry stays while it is used within capacity entries, and goes when it is not", () => {
  const memo = new Lru<string, number>(3);
  memo.set("a", 1);
  memo.set("b", 2);
  memo.set("c", 3);
  memo.set("d", 4); // a, b, c are now old
  assert.is(memo.get("a"), 1); // back to the young generation
  memo.set("e", 5);
  memo.set("f", 6); // young holds d, a, e; f starts a new one: b and c are forgotten
  assert.is(memo.get("b"), undefined);
  assert.is(memo.get("c"), undefined);
  assert.is(memo.get("a"), 1);
  assert.is(memo.get("d"), 4);
  assert.ok(memo.size <= 6);
});

test("it never holds more than twice its capacity", () => {
  const memo = new Lru<number, number>(100);
  for (let i = 0; i < 10_000; i++) memo.set(i, i);
  assert.ok(memo.size <= 200, String(memo.size));
  assert.is(memo.get(9_999), 9_999);
  assert.is(memo.get(0), undefined);
});

test("a capacity that is not a positive integer is refused", () => {
  assert.throws(() => new Lru(0), RangeError);
  assert.throws(() => new Lru(1.5), RangeError);
});

test.run();
