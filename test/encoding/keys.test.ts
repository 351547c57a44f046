/** Keys, signatures and contract ids against OCTEZ-FACTS §A and §C. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  DecodeError,
  decodeBinary,
  encodeBinary,
  fromHex,
  publicKey,
  publicKeyHash,
  signature,
  toHex,
  blockHash,
} from "../../lib/encoding/mod.ts";
import { contractId } from "../../lib/encoding/hangzhou/mod.ts";

const isDecodeError = (e: unknown) => e instanceof DecodeError;

test("contract ids encode as in OCTEZ-FACTS §C", () => {
  assert.is(toHex(encodeBinary(contractId, "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx")), "000002298c03ed7d454a101eb7022bc95f7e5f41ac78");
  assert.is(toHex(encodeBinary(contractId, "KT1DieU51jzXLerQx5AqMCiLC1SsCeM8yRat")), "0138560805b4c8d7b7fbbafad5c59dbfa3878ca70500");
  assert.is(decodeBinary(contractId, fromHex("0138560805b4c8d7b7fbbafad5c59dbfa3878ca70500")), "KT1DieU51jzXLerQx5AqMCiLC1SsCeM8yRat");
});

test("an originated contract id with non-zero padding is rejected", () => {
  assert.throws(() => decodeBinary(contractId, fromHex("0138560805b4c8d7b7fbbafad5c59dbfa3878ca70501")), isDecodeError);
});

test("a public key hash is a curve tag and 20 bytes", () => {
  assert.is(toHex(encodeBinary(publicKeyHash, "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx")), "0002298c03ed7d454a101eb7022bc95f7e5f41ac78");
  assert.throws(() => decodeBinary(publicKeyHash, fromHex("0302298c03ed7d454a101eb7022bc95f7e5f41ac78")), isDecodeError);
});

test("an ed25519 public key is tag 0 and 32 bytes", () => {
  const hex = "004798d2cc98473d7e250c898885718afd2e4efbcb1a1595ab9730761ed830de0f";
  assert.is(toHex(encodeBinary(publicKey, "edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav")), hex);
  assert.is(decodeBinary(publicKey, fromHex(hex)), "edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav");
});

test("signatures read from binary are generic; JSON input accepts edsig", () => {
  const edsig = "edsigtkpiSSschcaCt9pUVrpNPf7TTcgvgDEDD6NCEHMy8NNQJCGnMfLZzYoQj74yLjo9wx6MPVV29CvVzgi7qEcEUok3k7AuMg";
  const bytes = encodeBinary(signature, signature.fromJson(edsig));
  assert.is(bytes.length, 64);
  const back = decodeBinary(signature, bytes);
  assert.ok(back.startsWith("sig"));
  assert.equal(encodeBinary(signature, back), bytes);
});

test("bad Base58Check is a DecodeError naming the kind", () => {
  assert.throws(() => blockHash.fromJson("BKpbfCvh777DQHnXjU2sqHvVUNZ7dBAdqEfKkdw8EGSkD9LSYXc"), (e: unknown) => isDecodeError(e) && /block_hash/.test((e as Error).message));
  assert.throws(() => publicKeyHash.fromJson("tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSX"), isDecodeError);
  assert.throws(() => contractId.fromJson("KT1"), isDecodeError);
  assert.throws(() => signature.fromJson(42), isDecodeError);
});

test("writing a value of the wrong type is a TypeError", () => {
  assert.throws(() => encodeBinary(publicKeyHash, "KT1DieU51jzXLerQx5AqMCiLC1SsCeM8yRat"), (e: unknown) => e instanceof TypeError);
  assert.throws(() => encodeBinary(blockHash, 5 as unknown as string), (e: unknown) => e instanceof TypeError);
});

test.run();
