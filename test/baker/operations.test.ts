/**
 * The baker's operations in Hangzhou's binary encoding, checked against Octez's regression
 * vectors (tezt `hangzhou.operation.unsigned.out`): the unsigned forms plus the 64 zero bytes
 * that stand for "no signature".
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { rejects, throwsA } from "../genesis/throws.ts";
import { readFileSync } from "node:fs";
import { bootstrapSecretKeys } from "../../lib/baker/keys.ts";
import {
  endorsementSignedBytes,
  endorsementWithSlotBytes,
  forgeEndorsementWithSlot,
  forgeSeedNonceRevelation,
} from "../../lib/baker/operations.ts";
import { parseSignature, publicKeyOf } from "../../lib/crypto/keys.ts";
import { verify } from "../../lib/crypto/sign.ts";
import { endorsementWatermark } from "../../lib/crypto/watermark.ts";
import { B58, b58decode } from "../../lib/encoding/base58.ts";
import { decodeBinary } from "../../lib/encoding/codec.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { operation } from "../../lib/encoding/hangzhou/operation.ts";

type Vector = { encoding: string; json: { branch: string; contents: any[] }; hex: string };
const vectors = (
  JSON.parse(readFileSync(new URL("../vectors/octez/examples/hangzhou-binary-encoding-vectors.json", import.meta.url), "utf8")) as {
    vectors: Vector[];
  }
).vectors;

function unsignedVector(kind: string): Vector {
  const v = vectors.find((x) => x.encoding === "011-PtHangz2.operation.unsigned" && x.json.contents[0]!.kind === kind);
  if (v === undefined) throw new Error(`no vector for ${kind}`);
  return v;
}

const ZEROS = "00".repeat(64);
const CHAIN_ID = b58decode(B58.chainId, "NetXdQprcVkpaWU");

test("an endorsement_with_slot is the unsigned operation of Octez's vector followed by 64 zero bytes", () => {
  const v = unsignedVector("endorsement_with_slot");
  const c = v.json.contents[0] as { endorsement: { branch: string; operations: { level: number }; signature: string }; slot: number };
  const bytes = endorsementWithSlotBytes(v.json.branch, c.endorsement.operations.level, c.slot, parseSignature(c.endorsement.signature));
  assert.is(toHex(bytes), v.hex + ZEROS);
});

test("the endorsed bytes are the unsigned bare endorsement of Octez's vector", () => {
  const v = unsignedVector("endorsement");
  assert.is(toHex(endorsementSignedBytes(v.json.branch, (v.json.contents[0] as { level: number }).level)), v.hex);
});

test("a seed_nonce_revelation is the unsigned operation of Octez's vector followed by 64 zero bytes", () => {
  const v = unsignedVector("seed_nonce_revelation");
  const c = v.json.contents[0] as { level: number; nonce: string };
  assert.is(toHex(forgeSeedNonceRevelation(v.json.branch, c.level, fromHex(c.nonce))), v.hex + ZEROS);
});

test("a forged endorsement carries the delegate's signature under 0x02 ‖ chain id, the slot, and no wrapper signature", async () => {
  const [sk] = bootstrapSecretKeys();
  const branch = "BKpbfCvh777DQHnXjU2sqHvVUNZ7dBAdqEfKkdw8EGSkD9LSYXb";
  const bytes = await forgeEndorsementWithSlot(sk!, CHAIN_ID, branch, 7, 12);
  const op = decodeBinary(operation, bytes);
  assert.is(op.signature, undefined);
  assert.is(op.branch, branch);
  const c = op.contents[0]!;
  if (c.kind !== "endorsement_with_slot") throw new Error(`unexpected ${c.kind}`);
  assert.is(c.slot, 12);
  assert.equal(c.endorsement.operations, { kind: "endorsement", level: 7 });
  const sig = parseSignature(c.endorsement.signature!);
  assert.ok(await verify(publicKeyOf(sk!), sig, endorsementSignedBytes(branch, 7), endorsementWatermark(CHAIN_ID)));
  assert.not.ok(await verify(publicKeyOf(sk!), sig, endorsementSignedBytes(branch, 8), endorsementWatermark(CHAIN_ID)));
});

test("bad levels, slots and nonces are refused with TypeError or RangeError", async () => {
  const branch = "BKpbfCvh777DQHnXjU2sqHvVUNZ7dBAdqEfKkdw8EGSkD9LSYXb";
  throwsA(() => forgeSeedNonceRevelation(branch, 1, new Uint8Array(31)), RangeError);
  throwsA(() => forgeSeedNonceRevelation(branch, 1, "00" as unknown as Uint8Array), TypeError);
  throwsA(() => forgeSeedNonceRevelation(branch, -1, new Uint8Array(32)), RangeError);
  throwsA(() => endorsementSignedBytes(branch, 1.5), TypeError);
  throwsA(() => endorsementWithSlotBytes(branch, 1, 65536, new Uint8Array(64)), RangeError);
  const [sk] = bootstrapSecretKeys();
  await rejects(() => forgeEndorsementWithSlot(sk!, CHAIN_ID, branch, 1, -1), RangeError);
});

test.run();
