import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hexToBytes } from "@noble/hashes/utils.js";
import { ed25519Verify, hasWebCryptoEd25519, isCanonicalEd25519Encoding } from "../../lib/crypto/ed25519.ts";

interface Case { id: string; message: string; public_key: string; signature: string; expected: boolean; why: string }
const { cases }: { cases: Case[] } = JSON.parse(
  readFileSync(new URL("vectors/ed25519-edge-cases.json", import.meta.url), "utf8"),
);

test("the edge-case file holds the 12 'Taming the many EdDSAs' cases and our own", () => {
  assert.is(cases.filter((c) => c.id.startsWith("speccheck-")).length, 12);
  assert.ok(cases.some((c) => c.expected) && cases.some((c) => !c.expected));
});

for (const c of cases) {
  test(`ed25519Verify() answers ${c.expected} for ${c.id}: ${c.why}`, async () => {
    const args = [hexToBytes(c.public_key), hexToBytes(c.message), hexToBytes(c.signature)] as const;
    assert.is(await ed25519Verify(...args), c.expected, "auto");
    assert.is(await ed25519Verify(...args, "noble"), c.expected, "noble");
    if (await hasWebCryptoEd25519()) assert.is(await ed25519Verify(...args, "webcrypto"), c.expected, "webcrypto");
  });
}

test("all edge cases verified at once give the same answers", async () => {
  const answers = await Promise.all(
    cases.map((c) => ed25519Verify(hexToBytes(c.public_key), hexToBytes(c.message), hexToBytes(c.signature))),
  );
  assert.equal(answers, cases.map((c) => c.expected));
});

test("isCanonicalEd25519Encoding() refuses y ≥ p and a sign bit on x = 0, nothing else", () => {
  const bytes = (first: number, middle: number, last: number) => Uint8Array.of(first, ...new Uint8Array(30).fill(middle), last);
  assert.not.ok(isCanonicalEd25519Encoding(bytes(0xed, 0xff, 0x7f)), "y = p");
  assert.not.ok(isCanonicalEd25519Encoding(bytes(0xff, 0xff, 0xff)), "y = 2^255 - 1, sign bit");
  assert.not.ok(isCanonicalEd25519Encoding(bytes(0x01, 0x00, 0x80)), "y = 1, sign bit");
  assert.not.ok(isCanonicalEd25519Encoding(bytes(0xec, 0xff, 0xff)), "y = p - 1, sign bit");
  assert.ok(isCanonicalEd25519Encoding(bytes(0xec, 0xff, 0x7f)), "y = p - 1");
  assert.ok(isCanonicalEd25519Encoding(bytes(0x01, 0x00, 0x00)), "y = 1");
  assert.ok(isCanonicalEd25519Encoding(bytes(0x02, 0x00, 0x80)), "y = 2, sign bit (canonical, though not on the curve)");
});

test("ed25519Verify() refuses arguments of the wrong size with a RangeError", async () => {
  let error: unknown;
  try {
    await ed25519Verify(new Uint8Array(31), new Uint8Array(0), new Uint8Array(64));
  } catch (e) {
    error = e;
  }
  assert.instance(error, RangeError);
});

test.run();
