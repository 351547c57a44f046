/**
 * BLAKE2b on WebAssembly (hash-wasm) and on JavaScript (@noble/hashes) give the same digests:
 * RFC 7693's vector, and random inputs of every length up to three blocks, in one part or many.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { blake2b as nobleBlake2b } from "@noble/hashes/blake2.js";
import { blake2b, blake2b160, blake2b256, blake2bWasmReady } from "../../lib/crypto/blake2b.ts";
import { toHex } from "../../lib/encoding/hex.ts";

test("the WebAssembly hashers load on this runtime", async () => {
  assert.is(await blake2bWasmReady, true);
});

test("RFC 7693 Appendix A: BLAKE2b-512 of \"abc\"", async () => {
  await blake2bWasmReady;
  assert.is(
    toHex(blake2b(64, new TextEncoder().encode("abc"))),
    "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
  );
});

test("the empty input's 32-byte digest", async () => {
  await blake2bWasmReady;
  assert.is(toHex(blake2b256()), "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
});

test("random inputs of 0..384 bytes, in one part and in pieces, as @noble/hashes digests them", async () => {
  await blake2bWasmReady;
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  for (let len = 0; len <= 384; len++) {
    const data = Uint8Array.from({ length: len }, next);
    const cut = Math.floor(len / 3);
    for (const size of [20, 32, 64, 48]) {
      const expected = toHex(nobleBlake2b(data, { dkLen: size }));
      assert.is(toHex(blake2b(size, data)), expected, `size ${size}, length ${len}`);
      assert.is(toHex(blake2b(size, data.subarray(0, cut), data.subarray(cut, 2 * cut), data.subarray(2 * cut))), expected);
    }
    assert.is(toHex(blake2b160(data)), toHex(nobleBlake2b(data, { dkLen: 20 })));
  }
});

test.run();
