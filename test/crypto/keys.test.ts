import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import {
  curveOfTag,
  formatPublicKey,
  formatPublicKeyHash,
  formatSecretKey,
  formatSignature,
  InvalidKeyError,
  parsePublicKey,
  parsePublicKeyHash,
  parseSecretKey,
  parseSignature,
  publicKeyEquals,
  publicKeyFromBinary,
  publicKeyFromBytes,
  publicKeyHash,
  publicKeyHashFromBinary,
  publicKeyHashFromBytes,
  publicKeyHashToBinary,
  publicKeyOf,
  publicKeyToBinary,
  secretKeyFromBytes,
} from "../../lib/crypto/keys.ts";

interface KeyVector { seed: string; pkh: string; pk: string; sk: string }
const octez: {
  ed25519_key_encodings: KeyVector[];
  p256_key_encodings: KeyVector[];
  ed25519_pkhs: { hash: string; pkh: string }[];
  p256_pkhs: { hash: string; pkh: string }[];
} = JSON.parse(readFileSync(new URL("vectors/octez-key-encodings.json", import.meta.url), "utf8"));

// OCTEZ-FACTS.md §E: tezt's well-known sandbox keys.
const SANDBOX_KEYS = [
  ["activator", "tz1TGu6TN5GSez2ndXXeDX6LgUDvLzPLqgYV", "edpkuSLWfVU1Vq7Jg9FucPyKmma6otcMHac9zG4oU1KMHSTBpJuGQ2", "edsk31vznjHSSpGExDMHYASz45VZqXN4DPxvsa4hAyY8dHM28cZzp6"],
  ["bootstrap1", "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", "edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav", "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh"],
  ["bootstrap2", "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN", "edpktzNbDAUjUk697W7gYg2CRuBQjyPxbEg8dLccYYwKSKvkPvjtV9", "edsk39qAm1fiMjgmPkw1EgQYkMzkJezLNewd7PLNHTkr6w9XA2zdfo"],
  ["bootstrap3", "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU", "edpkuTXkJDGcFd5nh6VvMz8phXxU3Bi7h6hqgywNFi1vZTfQNnS1RV", "edsk4ArLQgBTLWG5FJmnGnT689VKoqhXwmDPBuGx3z4cvwU9MmrPZZ"],
  ["bootstrap4", "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv", "edpkuFrRoDSEbJYgxRtLx2ps82UdaYc1WwfS9sE11yhauZt5DgCHbU", "edsk2uqQB9AY4FvioK2YMdfmyMrer5R8mGFyuaLLFfSRo8EoyNdht3"],
  ["bootstrap5", "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv", "edpkv8EUUH68jmo3f7Um5PezmfGrRF24gnfLpH3sVNwJnV5bVCxL2n", "edsk4QLrcijEffxV31gGdN2HU7UpyJjA8drFoNcmnB28n89YjPNRFm"],
] as const;

// Taquito InMemorySigner and utils vectors (ecadlabs/taquito packages/taquito-signer/test/taquito-signer.spec.ts,
// packages/taquito-utils/test): secret key → public key → public key hash.
const TAQUITO_KEYS = [
  ["edsk4TjJWEszkHKono7XMnepVqwi37FrpbVt1KCsifJeAGimxheShG", "edpkuhmrbunxumoiVdQuxBZUPMmwkPt7yLtY5Qnua3VJVTLWr3vXXa", "tz1b9kV41KV9N3sp69ycLdSoZ2Ak8jXwtNPv"],
  ["edskS3DtVSbWbPD1yviMGebjYwWJtruMjDcfAZsH9uba22EzKeYhmQkkraFosFETmEMfFNVcDYQ5QbFerj9ozDKroXZ6mb5oxV", "edpkvJELH15q7a8ShGRsoULGxLQfUQaGahwRTFywCsnWPPdwnmASRH", "tz1RvhdZ5pcjD19vCCK9PgZpnmErTba3dsBs"],
  ["spsk2rBDDeUqakQ42nBHDGQTtP3GErb6AahHPwF9bhca3Q5KA5HESE", "sppk7aqSksZan1AGXuKtCz9UBLZZ77e3ZWGpFxR7ig1Z17GneEhSSbH", "tz2Ch1abG7FNiibmV26Uzgdsnfni9XGrk5wD"],
  ["spsk33kCcKpgrvXRQJB2GVGxAMxrSEmwKXLh2KR4ztLcbaCnQq3FFs", "sppk7bFd7b4DWcabg4yw4N5q8rn9thycWmY21EJDCKfTskNiBH8RJrd", "tz2JFbdFh1RVYuYX4gWbVQz9SAtqEZSwZaB8"],
  ["spsk24EJohZHJkZnWEzj3w9wE7BFARpFmq5WAo9oTtqjdJ2t4pyoB3", "sppk7bcmsCiZmrzrfGpPHnZMx73s6pUC4Tf1zdASQ3rgXfq8uGP3wgV", "tz2T7hMiWgLAtpsB1JXEP59h3QA8rNVAP1Ue"],
  ["p2sk2obfVMEuPUnadAConLWk7Tf4Dt3n4svSgJwrgpamRqJXvaYcg1", "p2pk66tTYL5EvahKAXncbtbRPBkAnxo3CszzUho5wPCgWauBMyvybuB", "tz3Lfm6CyfSTZ7EgMckptZZGiPxzs9GK59At"],
  ["p2sk2mJNRYqs3UXJzzF44Ym6jk38RVDPVSuLCfNd5ShE5zyVdu8Au9", "p2pk65zwHGP9MdvANKkp267F4VzoKqL8DMNpPfTHUNKbm8S9DUqqdpw", "tz3hFR7NZtjT2QtzgMQnWb4xMuD6yt2YzXUt"],
] as const;

const isError = (kind: new (...args: never[]) => Error) => (e: unknown) => e instanceof kind;

test("the sandbox activator and bootstrap keys give the public keys and hashes of Octez's table", () => {
  for (const [alias, pkh, pk, sk] of SANDBOX_KEYS) {
    const secret = parseSecretKey(sk);
    const publicKey = publicKeyOf(secret);
    assert.is(formatPublicKey(publicKey), pk, alias);
    assert.is(formatPublicKeyHash(publicKeyHash(publicKey)), pkh, alias);
    assert.is(formatPublicKeyHash(publicKeyHash(parsePublicKey(pk))), pkh, alias);
    assert.is(formatSecretKey(secret), sk, alias);
  }
});

test("Octez's ed25519 key encoding vectors: seed → pkh, edpk, edsk", () => {
  assert.is(octez.ed25519_key_encodings.length, 100);
  for (const v of octez.ed25519_key_encodings) {
    const sk = secretKeyFromBytes("ed25519", hexToBytes(v.seed));
    const pk = publicKeyOf(sk);
    assert.is(formatSecretKey(sk), v.sk);
    assert.is(formatPublicKey(pk), v.pk);
    assert.is(formatPublicKeyHash(publicKeyHash(pk)), v.pkh);
    assert.equal(parseSecretKey(v.sk), sk);
  }
});

test("Octez's p256 key encoding vectors: seed → pkh, p2pk, p2sk", () => {
  assert.is(octez.p256_key_encodings.length, 100);
  for (const v of octez.p256_key_encodings) {
    const sk = secretKeyFromBytes("p256", hexToBytes(v.seed));
    const pk = publicKeyOf(sk);
    assert.is(formatSecretKey(sk), v.sk);
    assert.is(formatPublicKey(pk), v.pk);
    assert.is(formatPublicKeyHash(publicKeyHash(pk)), v.pkh);
    assert.ok(publicKeyEquals(parsePublicKey(v.pk), pk));
  }
});

test("Octez's public key hash vectors format and parse as tz1 and tz3", () => {
  for (const [curve, list] of [["ed25519", octez.ed25519_pkhs], ["p256", octez.p256_pkhs]] as const) {
    for (const v of list) {
      assert.is(formatPublicKeyHash(publicKeyHashFromBytes(curve, hexToBytes(v.hash))), v.pkh);
      const parsed = parsePublicKeyHash(v.pkh);
      assert.is(parsed.curve, curve);
      assert.is(bytesToHex(parsed.bytes), v.hash);
    }
  }
});

test("Taquito's keys of the three curves give its public keys and hashes", () => {
  for (const [sk, pk, pkh] of TAQUITO_KEYS) {
    const publicKey = publicKeyOf(parseSecretKey(sk));
    assert.is(formatPublicKey(publicKey), pk);
    assert.is(formatPublicKeyHash(publicKeyHash(publicKey)), pkh);
  }
  assert.is(formatPublicKeyHash(publicKeyHash(parsePublicKey("sppk7czKu6So3zDWjhBPBv9wgCrBAfbEFoKYzEaKUsjhNr5Ug6E4Sn1"))), "tz2Gsf1Q857wUzkNGzHsJNC98z881UutMwjg");
  assert.is(formatPublicKeyHash(publicKeyHash(parsePublicKey("p2pk67BANWUUX2fod9EQbv8ev7GGLpb4UXvLHEVVMiHBSWPHgyzf1tv"))), "tz3daYfTrShLBfH24hv2kGwXD5y2bApH83RC");
  assert.is(formatPublicKeyHash(publicKeyHash(parsePublicKey("edpku61nGAwkeoA7PQJEFWmrVP1eWrSTVoHgCaF2isjWqDeGdux37k"))), "tz1ipB38oB5F76HnbTRqWPLEnVtCgj6yf2nB");
});

test("the long edsk form (seed ‖ public key) parses to its seed and formats back (Taquito vector)", () => {
  const short = parseSecretKey("edsk4TjJWEszkHKono7XMnepVqwi37FrpbVt1KCsifJeAGimxheShG");
  const long = "edskS8rh49SrQHQxMu5sVsyRXX3Kaodfgbk8qqtTFjxSg2tJbLEtbMnimfJzSz7TTZQeP7EMhZoegHbQWa548RcXJP9kn2J8P8";
  assert.is(formatSecretKey(short, "long"), long);
  assert.equal(parseSecretKey(long), short);
  assert.is(formatSecretKey(parseSecretKey(long)), "edsk4TjJWEszkHKono7XMnepVqwi37FrpbVt1KCsifJeAGimxheShG");
  assert.throws(() => formatSecretKey(parseSecretKey(TAQUITO_KEYS[2][0]), "long"), isError(RangeError));
});

test("binary forms carry the curve tag, as in Octez's Hangzhou encoding vectors", () => {
  // 011-PtHangz2.contract of tz1KqTpE…: 0x00 (implicit) ‖ 0x00 (ed25519) ‖ hash.
  const pkh = parsePublicKeyHash("tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx");
  assert.is(bytesToHex(publicKeyHashToBinary(pkh)), "0002298c03ed7d454a101eb7022bc95f7e5f41ac78");
  assert.equal(publicKeyHashFromBinary(publicKeyHashToBinary(pkh)), pkh);
  // 011-PtHangz2.operation.internal reveal of edpkuBknW…: the public key is 0x00 ‖ 32 bytes.
  const reveal =
    "000002298c03ed7d454a101eb7022bc95f7e5f41ac78000000004798d2cc98473d7e250c898885718afd2e4efbcb1a1595ab9730761ed830de0f";
  const pk = parsePublicKey("edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav");
  assert.is(bytesToHex(publicKeyToBinary(pk)), reveal.slice(-66));
  assert.equal(publicKeyFromBinary(publicKeyToBinary(pk)), pk);
  const tz2 = parsePublicKey(TAQUITO_KEYS[2][1]);
  const tz3 = parsePublicKey(TAQUITO_KEYS[5][1]);
  assert.is(publicKeyToBinary(tz2)[0], 1);
  assert.is(publicKeyToBinary(tz2).length, 34);
  assert.is(publicKeyToBinary(tz3)[0], 2);
  assert.equal(publicKeyFromBinary(publicKeyToBinary(tz3)), tz3);
  assert.is(publicKeyHashToBinary(publicKeyHash(tz3))[0], 2);
});

test("binary forms refuse unknown tags and wrong lengths", () => {
  assert.throws(() => curveOfTag(3), isError(RangeError));
  assert.throws(() => publicKeyFromBinary(Uint8Array.of(3, ...new Uint8Array(32))), isError(RangeError));
  assert.throws(() => publicKeyFromBinary(new Uint8Array(33 + 1)), isError(RangeError));
  assert.throws(() => publicKeyFromBinary(new Uint8Array(0)), isError(RangeError));
  assert.throws(() => publicKeyHashFromBinary(new Uint8Array(20)), isError(RangeError));
  assert.throws(() => publicKeyHashFromBinary(Uint8Array.of(7, ...new Uint8Array(20))), isError(RangeError));
});

test("signatures parse from every prefix to the same 64 bytes, and format as generic sig by default", () => {
  const edsig = "edsigtz8duidBGCFToGonG1zxuKjqvkjLAv5iD3p8SDUYN5299hrMgh5uGVPPggcu1ngLDWLcb51PAgenro3A5cqwHESVJ31m4x";
  const bytes = parseSignature(edsig);
  assert.is(bytes.length, 64);
  assert.is(formatSignature(bytes, "ed25519"), edsig);
  const generic = formatSignature(bytes);
  assert.ok(generic.startsWith("sig"));
  assert.equal(parseSignature(generic), bytes);
  assert.equal(parseSignature(formatSignature(bytes, "secp256k1")), bytes);
  assert.ok(formatSignature(bytes, "secp256k1").startsWith("spsig1"));
  assert.ok(formatSignature(bytes, "p256").startsWith("p2sig"));
  assert.throws(() => parseSignature("sig123"), isError(TypeError));
  assert.throws(() => formatSignature(new Uint8Array(63)), isError(RangeError));
});

test("ed25519 public keys are any 32 bytes, as in Octez; ECDSA public keys must be points", () => {
  assert.is(publicKeyFromBytes("ed25519", Uint8Array.of(2, ...new Uint8Array(31))).bytes[0], 2);
  const notOnCurve = Uint8Array.of(2, ...new Uint8Array(31), 5); // secp256k1: x = 5 has no y
  assert.throws(() => publicKeyFromBytes("secp256k1", notOnCurve), isError(InvalidKeyError));
  assert.throws(() => publicKeyFromBytes("p256", Uint8Array.of(4, ...new Uint8Array(32))), isError(InvalidKeyError));
  assert.throws(() => publicKeyFromBytes("p256", new Uint8Array(32)), isError(RangeError));
});

test("secret keys out of the scalar range are refused", () => {
  assert.throws(() => secretKeyFromBytes("secp256k1", new Uint8Array(32)), isError(InvalidKeyError));
  assert.throws(() => secretKeyFromBytes("p256", new Uint8Array(32).fill(0xff)), isError(InvalidKeyError));
  assert.is(secretKeyFromBytes("ed25519", new Uint8Array(32)).curve, "ed25519");
});

test("parse functions give a TypeError naming what was expected", () => {
  assert.throws(() => parsePublicKey("tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx"), /Invalid public key/);
  assert.throws(() => parsePublicKeyHash("edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav"), /Invalid public key hash/);
  assert.throws(() => parseSecretKey("edsk4TjJWEszkHKono7XMnepqwi37FrbVt1KCsifJeAGimxheShG"), isError(TypeError));
  assert.throws(() => parseSecretKey(42 as unknown as string), isError(TypeError));
  assert.throws(
    () => parseSecretKey("p2esk2TFqgNcoT4u99ut5doGTUFNwo9x4nNvkpM6YMLqXrt4SbFdQnqLM3hoAXLMB2uZYazj6LZGvcoYzk16H6Et"),
    /Encrypted secret keys are not supported/,
  );
  assert.throws(() => publicKeyHash({ curve: "ed448", bytes: new Uint8Array(57) } as never), isError(TypeError));
});

test.run();
