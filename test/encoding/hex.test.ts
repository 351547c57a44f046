import { test } from "uvu";
import * as assert from "uvu/assert";
import { fromHex, toHex, tryFromHex } from "../../lib/encoding/hex.ts";

const reference = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

test("toHex: every byte value, lowercase, two digits", () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.is(toHex(all), reference(all));
  assert.is(toHex(Uint8Array.of(1, 171)), "01ab");
  assert.is(toHex(new Uint8Array(0)), "");
});

test("toHex: short and long inputs (both ways of building the text) round-trip", () => {
  let seed = 7;
  for (let n = 0; n < 80; n++) {
    const b = Uint8Array.from({ length: n }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
    const h = toHex(b);
    assert.is(h, reference(b), `length ${n}`);
    assert.equal(fromHex(h), b);
    assert.equal(tryFromHex(h.toUpperCase()), b);
  }
});

test.run();
