import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hexToBytes } from "@noble/hashes/utils.js";
import { type EcdsaCurve, ecdsaIsValidPublicKey, ecdsaVerify } from "../../lib/crypto/ecdsa.ts";
import { InvalidKeyError, publicKeyFromBytes } from "../../lib/crypto/keys.ts";

interface Case { curve: EcdsaCurve; case: string; public_key: string; digest: string; signature: string; expected: boolean }
const { cases }: { cases: Case[] } = JSON.parse(
  readFileSync(new URL("vectors/ecdsa-edge-cases.json", import.meta.url), "utf8"),
);

test("the ECDSA edge cases cover both curves, with the high-s case answered differently", () => {
  const highS = cases.filter((c) => c.case.startsWith("high s"));
  assert.equal(highS.map((c) => [c.curve, c.expected]), [["secp256k1", false], ["p256", true]]);
});

for (const c of cases) {
  test(`ecdsaVerify(${c.curve}) answers ${c.expected} for: ${c.case}`, () => {
    assert.is(ecdsaVerify(c.curve, hexToBytes(c.public_key), hexToBytes(c.digest), hexToBytes(c.signature)), c.expected);
  });
}

test("public keys the verifier refuses are refused at parse time too", () => {
  for (const c of cases.filter((c) => c.case.startsWith("public key"))) {
    const bytes = hexToBytes(c.public_key);
    assert.not.ok(ecdsaIsValidPublicKey(c.curve, bytes), c.case);
    assert.throws(() => publicKeyFromBytes(c.curve, bytes), (e: unknown) => e instanceof InvalidKeyError, c.case);
  }
});

test("ecdsaVerify() refuses arguments of the wrong size or curve", () => {
  const c = cases[0]!;
  const args = [hexToBytes(c.public_key), hexToBytes(c.digest), hexToBytes(c.signature)] as const;
  assert.throws(() => ecdsaVerify(c.curve, args[0], args[1].subarray(1), args[2]), (e: unknown) => e instanceof RangeError);
  assert.throws(() => ecdsaVerify(c.curve, args[0], args[1], args[2].subarray(1)), (e: unknown) => e instanceof RangeError);
  assert.throws(() => ecdsaVerify("ed25519" as EcdsaCurve, ...args), (e: unknown) => e instanceof TypeError);
});

test.run();
