import { readFileSync } from "node:fs";
import { hexToBytes } from "@noble/hashes/utils.js";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { formatPublicKey, formatSignature, parseSecretKey, parseSignature, publicKeyOf } from "../../lib/crypto/keys.ts";
import { checkSignature, parseTypedSignature } from "../../lib/michelson/crypto/signature.ts";

interface Case { id: string; file?: string; storage?: string; input?: string; expected_storage?: string; expected_error?: string }
const { cases }: { cases: Case[] } = JSON.parse(
  readFileSync(new URL("../vectors/michelson/cases.json", import.meta.url), "utf8"),
);

/** PACK of a Michelson string. */
function packString(s: string): Uint8Array {
  const utf8 = new TextEncoder().encode(s);
  const out = new Uint8Array(6 + utf8.length);
  out.set([0x05, 0x01]);
  new DataView(out.buffer).setUint32(2, utf8.length);
  out.set(utf8, 6);
  return out;
}

const checkCases = cases.filter((c) => c.file === "opcodes/check_signature.tz");

test("the Octez suite has one accepted and one refused CHECK_SIGNATURE case", () => {
  assert.is(checkCases.length, 2);
});

for (const c of checkCases) {
  const [, sig, msg] = /^\(Pair "(\w+)" "(.*)"\)$/.exec(c.storage!)!;
  const expected = c.expected_error === undefined;
  test(`check_signature.tz: ${sig!.slice(0, 12)}… on PACK ${JSON.stringify(msg)} is ${expected} (${c.id})`, () => {
    assert.is(checkSignature(JSON.parse(c.input!) as string, sig!, packString(msg!)), expected);
  });
}

// Taquito InMemorySigner vectors (signatures of 0x03 ‖ 0x1234): CHECK_SIGNATURE sees the message 0x031234.
const TAQUITO = [
  ["edsk4TjJWEszkHKono7XMnepVqwi37FrpbVt1KCsifJeAGimxheShG", "sigpKAnfQGzG4Rk5pV7z9mx2TL9veQCHD7qN4PhsUZMj1BqsumBoApBS9Ue616vKVymxrzfZE2L4h27zzxRUVy6BNPRMpufb"],
  ["spsk2rBDDeUqakQ42nBHDGQTtP3GErb6AahHPwF9bhca3Q5KA5HESE", "sigREwM1SuRN5WzjH5xGJuyeZQ9kWi8XtbA4wRqGTumJwNY18PmF1XQMLCXEQBr4frnriKHWdPUynF1vGUvPcoWrNjb3s5xp"],
  ["p2sk2obfVMEuPUnadAConLWk7Tf4Dt3n4svSgJwrgpamRqJXvaYcg1", "sigRUobRZ4oG7CvdtQfNoDe3Gqn8zrLw6RXjXVa84rX3HMzWuCuncWgDqY8wRkssofLUsfbdR6MNGJzDWaNXEwTxDktfrKmj"],
] as const;
const message = hexToBytes("031234");

for (const [sk, sig] of TAQUITO) {
  const secret = parseSecretKey(sk);
  const pk = formatPublicKey(publicKeyOf(secret));
  const bytes = parseSignature(sig);
  test(`a generic sig… and the ${secret.curve} one of the same bytes verify under ${pk.slice(0, 8)}…`, () => {
    assert.is(parseTypedSignature(sig).kind, "generic");
    assert.ok(checkSignature(pk, sig, message));
    const typed = formatSignature(bytes, secret.curve);
    assert.is(parseTypedSignature(typed).kind, secret.curve);
    assert.ok(checkSignature(pk, typed, message));
  });
  test(`the ${secret.curve} signature is false on another message, under another curve's label, or altered`, () => {
    assert.not.ok(checkSignature(pk, sig, hexToBytes("031235")));
    for (const other of ["ed25519", "secp256k1", "p256"] as const) {
      if (other !== secret.curve) assert.not.ok(checkSignature(pk, formatSignature(bytes, other), message), other);
    }
    const altered = bytes.slice();
    altered[10]! ^= 1;
    assert.not.ok(checkSignature(pk, formatSignature(altered), message));
    assert.not.ok(checkSignature(pk, formatSignature(new Uint8Array(64).fill(0xff)), message));
  });
}

test("strings that are no key or no signature are a TypeError, not a false", () => {
  const [sk, sig] = TAQUITO[0];
  const pk = formatPublicKey(publicKeyOf(parseSecretKey(sk)));
  assert.throws(() => checkSignature("edpkNOPE", sig, message), TypeError);
  assert.throws(() => checkSignature(pk, "sigNOPE", message), TypeError);
  assert.throws(() => checkSignature(pk, sig, "031234" as unknown as Uint8Array), TypeError);
});

test.run();
