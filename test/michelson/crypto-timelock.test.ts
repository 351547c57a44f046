import { xsalsa20 } from "@noble/ciphers/salsa.js";
import { blake2b } from "@noble/hashes/blake2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  chestPlaintextSize,
  createChestAndKey,
  createChestKey,
  decodeChest,
  decodeChestKey,
  encodeChest,
  encodeChestKey,
  InvalidChestError,
  isProbablePrime,
  MAX_OPEN_CHEST_TIME,
  MIN_RSA_MODULUS,
  nextPrime,
  openChest,
  unlockedValueToSymmetricKey,
  zarithToBits,
} from "../../lib/michelson/crypto/timelock.ts";

/** A reproducible byte source: BLAKE2b-512 of (seed, counter), as many blocks as needed. */
function seededRng(seed: string) {
  let counter = 0;
  return (size: number): Uint8Array => {
    const out = new Uint8Array(size);
    for (let o = 0; o < size; o += 64) {
      const block = blake2b(new TextEncoder().encode(`${seed}/${counter++}`), { dkLen: 64 });
      out.set(block.subarray(0, Math.min(64, size - o)), o);
    }
    return out;
  };
}

const payload = new TextEncoder().encode("this is my message");
const time = 1000;
const good = createChestAndKey(payload, time, seededRng("good"));
// Octez's contract test: a second RSA setup gives a ciphertext under another key and a false proof.
const other = createChestAndKey(payload, time, seededRng("other"));

test("a chest opens with its key: Left payload", () => {
  const result = openChest(good.chestKey, good.chest, BigInt(time));
  assert.ok("ok" in result);
  assert.is(bytesToHex((result as { ok: Uint8Array }).ok), bytesToHex(payload));
});

test("the key computed by sequential squaring, without the factorisation, is the same key", () => {
  assert.is(bytesToHex(createChestKey(good.chest, time)), bytesToHex(good.chestKey));
});

test("a chest whose ciphertext was sealed under another key is a bogus cipher (Right False)", () => {
  const g = decodeChest(good.chest);
  const o = decodeChest(other.chest);
  const mixed = encodeChest({ ...g, nonce: o.nonce, ciphertext: o.ciphertext });
  assert.equal(openChest(good.chestKey, mixed, BigInt(time)), { bogusCipher: true });
  const flipped = good.chest.slice();
  flipped[flipped.length - 1]! ^= 1;
  assert.equal(openChest(good.chestKey, flipped, BigInt(time)), { bogusCipher: true });
});

test("a wrong unlocked value, a wrong proof or a wrong time is a bogus opening (Right True)", () => {
  const k = decodeChestKey(good.chestKey);
  const wrongProof = encodeChestKey({ ...k, proof: decodeChestKey(createChestKey(other.chest, time)).proof });
  assert.equal(openChest(wrongProof, good.chest, BigInt(time)), { bogusOpening: true });
  const wrongValue = encodeChestKey({ ...k, unlockedValue: k.unlockedValue + 1n });
  assert.equal(openChest(wrongValue, good.chest, BigInt(time)), { bogusOpening: true });
  assert.equal(openChest(good.chestKey, good.chest, BigInt(time - 1)), { bogusOpening: true });
  // The same value shifted by N is still ≡ y but is not y: refused, as Octez compares integers.
  const n = decodeChest(good.chest).rsaPublic;
  const shifted = encodeChestKey({ ...k, unlockedValue: k.unlockedValue + n });
  assert.equal(openChest(shifted, good.chest, BigInt(time)), { bogusOpening: true });
});

test("a time beyond an OCaml int answers Right False; a negative time is a RangeError", () => {
  assert.equal(openChest(good.chestKey, good.chest, MAX_OPEN_CHEST_TIME + 1n), { bogusCipher: true });
  assert.throws(() => openChest(good.chestKey, good.chest, -1n), RangeError);
});

test("the chest is n(x) ‖ n(N) ‖ 24-byte nonce ‖ tag ‖ payload, and re-encodes to the same bytes", () => {
  const c = decodeChest(good.chest);
  assert.ok(c.lockedValue < c.rsaPublic && c.rsaPublic > MIN_RSA_MODULUS);
  assert.is(c.rsaPublic.toString(2).length, 2048);
  assert.is(c.nonce.length, 24);
  assert.is(c.ciphertext.length, payload.length + 16);
  assert.is(chestPlaintextSize(good.chest), payload.length);
  assert.is(bytesToHex(encodeChest(c)), bytesToHex(good.chest));
  assert.is(bytesToHex(encodeChestKey(decodeChestKey(good.chestKey))), bytesToHex(good.chestKey));
});

test("the ciphertext is NaCl's combined secretbox: Poly1305 tag first, then payload ⊕ XSalsa20 stream from byte 32", () => {
  const c = decodeChest(good.chest);
  const key = unlockedValueToSymmetricKey(decodeChestKey(good.chestKey).unlockedValue);
  const stream = xsalsa20(key, c.nonce, new Uint8Array(32 + payload.length));
  const body = c.ciphertext.subarray(16);
  assert.equal(Array.from(body), Array.from(payload.map((b, i) => b ^ stream[32 + i]!)));
});

test("malformed chest and chest key bytes give InvalidChestError", () => {
  const refuse = (f: () => unknown, what: string) => assert.throws(f, (e: unknown) => e instanceof InvalidChestError, what);
  const c = decodeChest(good.chest);
  refuse(() => decodeChest(new Uint8Array(0)), "empty");
  refuse(() => decodeChest(Uint8Array.of(0x80)), "truncated natural");
  refuse(() => decodeChest(Uint8Array.of(0x81, 0x00, 0x05)), "trailing zero byte");
  refuse(() => decodeChest(good.chest.subarray(0, good.chest.length - payload.length - 16 - 1)), "short nonce");
  refuse(() => decodeChest(encodeChest({ ...c, ciphertext: c.ciphertext.subarray(0, 16) })), "empty payload");
  refuse(() => decodeChest(encodeChest({ ...c, lockedValue: c.rsaPublic })), "locked value = N");
  refuse(() => decodeChest(encodeChest({ ...c, rsaPublic: MIN_RSA_MODULUS, lockedValue: 1n })), "modulus 2^2001");
  refuse(() => decodeChestKey(Uint8Array.of(1)), "one natural");
  refuse(() => decodeChestKey(Uint8Array.of(1, 2, 3)), "trailing bytes");
  refuse(() => openChest(good.chestKey, Uint8Array.of(1, 2), 10n), "openChest on bad chest");
  assert.throws(() => decodeChest("00" as unknown as Uint8Array), TypeError);
});

test("random bytes never crash the decoders: a chest, a key or an InvalidChestError", () => {
  const rng = seededRng("fuzz");
  for (let i = 0; i < 300; i++) {
    const bytes = rng(rng(1)[0]! + (i % 7 === 0 ? 300 : 0));
    for (const decode of [decodeChest, decodeChestKey]) {
      try {
        decode(bytes);
      } catch (e) {
        assert.instance(e, InvalidChestError);
      }
    }
  }
});

test("Z.to_bits layout: little-endian, padded to 8-byte limbs, empty for zero", () => {
  assert.is(bytesToHex(zarithToBits(0n)), "");
  assert.is(bytesToHex(zarithToBits(1n)), "0100000000000000");
  assert.is(bytesToHex(zarithToBits(0x0102030405060708090an)), "0a090807060504030201000000000000");
  assert.is(zarithToBits(1n << 64n).length, 16);
});

test("nextPrime is strictly greater: 2^64 + 13, 2^127 − 1 (Mersenne), 17 after 13", () => {
  assert.is(nextPrime(1n << 64n), (1n << 64n) + 13n);
  assert.is(nextPrime((1n << 127n) - 2n), (1n << 127n) - 1n);
  assert.is(nextPrime(13n), 17n);
  assert.not.ok(isProbablePrime(3215031751n)); // strong pseudoprime to bases 2, 3, 5, 7
  assert.ok(isProbablePrime((1n << 255n) - 19n));
});

test.run();
