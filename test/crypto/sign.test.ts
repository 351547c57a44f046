import { test } from "uvu";
import * as assert from "uvu/assert";
import { hexToBytes } from "@noble/hashes/utils.js";
import { chainIdOfGenesis } from "../../lib/crypto/hashes.ts";
import {
  formatSignature,
  parsePublicKey,
  parseSecretKey,
  parseSignature,
  publicKeyOf,
  type PublicKey,
  type SecretKey,
} from "../../lib/crypto/keys.ts";
import { sign, verify } from "../../lib/crypto/sign.ts";
import { blockWatermark, endorsementWatermark, genericWatermark } from "../../lib/crypto/watermark.ts";
import { B58, b58decode } from "../../lib/encoding/base58.ts";

const chainId = chainIdOfGenesis(b58decode(B58.blockHash, "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2"));
const otherChainId = Uint8Array.of(0x7a, 0x06, 0xa7, 0x71); // NetXdQprcVkpaWU is 7a06a770

// Taquito InMemorySigner vectors (ecadlabs/taquito packages/taquito-signer/test/taquito-signer.spec.ts):
// sign(0x1234, watermark 0x03) — deterministic on every curve (RFC 8032, RFC 6979 with low s).
const TAQUITO_SIGNATURES = [
  ["edsk4TjJWEszkHKono7XMnepVqwi37FrpbVt1KCsifJeAGimxheShG", "sigpKAnfQGzG4Rk5pV7z9mx2TL9veQCHD7qN4PhsUZMj1BqsumBoApBS9Ue616vKVymxrzfZE2L4h27zzxRUVy6BNPRMpufb"],
  ["edskS3DtVSbWbPD1yviMGebjYwWJtruMjDcfAZsH9uba22EzKeYhmQkkraFosFETmEMfFNVcDYQ5QbFerj9ozDKroXZ6mb5oxV", "sigeeho3jK4MZKsyqcTc9mjhtz9w6enG3AFniufgUXCuXFW7VjShxLoNmxqkQSRYUwP1LHRMere5LrvxcqLgU9KmDGN356Yz"],
  ["spsk2rBDDeUqakQ42nBHDGQTtP3GErb6AahHPwF9bhca3Q5KA5HESE", "sigREwM1SuRN5WzjH5xGJuyeZQ9kWi8XtbA4wRqGTumJwNY18PmF1XQMLCXEQBr4frnriKHWdPUynF1vGUvPcoWrNjb3s5xp"],
  ["spsk24EJohZHJkZnWEzj3w9wE7BFARpFmq5WAo9oTtqjdJ2t4pyoB3", "sigmVKa3AcvzDTPGD7rJXkrMh8XMVkVQUkLwGLL3h1APWgicRKBmgjZ3624vqHA2FufBrLTQuPS9YBN1h2Z16kexp9F8NRXp"],
  ["p2sk2obfVMEuPUnadAConLWk7Tf4Dt3n4svSgJwrgpamRqJXvaYcg1", "sigRUobRZ4oG7CvdtQfNoDe3Gqn8zrLw6RXjXVa84rX3HMzWuCuncWgDqY8wRkssofLUsfbdR6MNGJzDWaNXEwTxDktfrKmj"],
  ["p2sk2mJNRYqs3UXJzzF44Ym6jk38RVDPVSuLCfNd5ShE5zyVdu8Au9", "sigZiUh7khZmjP1kGSSNe3LQdZC5GMpWHuyFkqcR37pwiGUJrpKaatUxWcRPBE5sHwqfydUsPM4JvK14dBMoHbCxC7VHdMZC"],
] as const;

const KEYS: Record<string, SecretKey> = {
  ed25519: parseSecretKey("edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh"), // bootstrap1
  secp256k1: parseSecretKey("spsk2rBDDeUqakQ42nBHDGQTtP3GErb6AahHPwF9bhca3Q5KA5HESE"),
  p256: parseSecretKey("p2sk2obfVMEuPUnadAConLWk7Tf4Dt3n4svSgJwrgpamRqJXvaYcg1"),
};

const WATERMARKS = {
  block: blockWatermark(chainId),
  endorsement: endorsementWatermark(chainId),
  generic: genericWatermark(),
};

const message = hexToBytes("0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a80000000533");

test("watermarks are 0x01 ‖ chain id, 0x02 ‖ chain id and 0x03", () => {
  assert.equal(Array.from(WATERMARKS.block), [1, 0x7a, 0x06, 0xa7, 0x70]);
  assert.equal(Array.from(WATERMARKS.endorsement), [2, 0x7a, 0x06, 0xa7, 0x70]);
  assert.equal(Array.from(WATERMARKS.generic), [3]);
  assert.throws(() => blockWatermark(new Uint8Array(5)), (e: unknown) => e instanceof RangeError);
});

test("sign() reproduces Taquito's signatures on the three curves, and verify() accepts them", async () => {
  for (const [sk, sig] of TAQUITO_SIGNATURES) {
    const secret = parseSecretKey(sk);
    const signature = await sign(secret, hexToBytes("1234"), genericWatermark());
    assert.is(formatSignature(signature), sig, sk);
    assert.ok(await verify(publicKeyOf(secret), parseSignature(sig), hexToBytes("1234"), genericWatermark()), sk);
  }
});

for (const [curve, secret] of Object.entries(KEYS)) {
  for (const [name, watermark] of Object.entries(WATERMARKS)) {
    test(`${curve}: a signature under the ${name} watermark verifies, and any change is refused`, async () => {
      const pk = publicKeyOf(secret);
      const signature = await sign(secret, message, watermark);
      assert.is(signature.length, 64);
      assert.ok(await verify(pk, signature, message, watermark));
      assert.equal(await sign(secret, message, watermark), signature, "deterministic");

      const tamperedMessage = message.slice();
      tamperedMessage[message.length - 1]! ^= 1;
      assert.not.ok(await verify(pk, signature, tamperedMessage, watermark), "message changed");
      for (const other of Object.values(WATERMARKS)) {
        if (other !== watermark) assert.not.ok(await verify(pk, signature, message, other), "other watermark");
      }
      if (watermark.length === 5) {
        const otherChain = watermark.slice();
        otherChain.set(otherChainId, 1);
        assert.not.ok(await verify(pk, signature, message, otherChain), "other chain");
      }
      for (const index of [0, 31, 32, 63]) {
        const tampered = signature.slice();
        tampered[index]! ^= 0x10;
        assert.not.ok(await verify(pk, tampered, message, watermark), `signature byte ${index} changed`);
      }
      const otherKey = publicKeyOf(KEYS[curve === "p256" ? "secp256k1" : "p256"]!);
      assert.not.ok(await verify(otherKey, signature, message, watermark), "other key");
    });
  }
}

test("a secp256k1 signature is not a p256 signature for the same scalar", async () => {
  const scalar = KEYS.secp256k1!.bytes;
  const asP256: SecretKey = { curve: "p256", bytes: scalar };
  const signature = await sign(KEYS.secp256k1!, message, genericWatermark());
  assert.not.ok(await verify(publicKeyOf(asP256), signature, message, genericWatermark()));
});

test("verify() of many ed25519 signatures at once gives each its own answer", async () => {
  const pk = publicKeyOf(KEYS.ed25519!);
  const messages = Array.from({ length: 64 }, (_, i) => Uint8Array.of(i, i + 1, i + 2));
  const signatures = await Promise.all(messages.map((m) => sign(KEYS.ed25519!, m, genericWatermark())));
  const answers = await Promise.all(
    messages.map((m, i) => verify(pk, signatures[i % 2 === 0 ? i : (i + 1) % 64]!, m, genericWatermark())),
  );
  assert.equal(answers, messages.map((_, i) => i % 2 === 0));
});

test("sign() and verify() refuse arguments of the wrong type or size", async () => {
  const pk: PublicKey = publicKeyOf(KEYS.ed25519!);
  const sig = await sign(KEYS.ed25519!, message, genericWatermark());
  const rejects = async (p: Promise<unknown>, kind: new (...a: never[]) => Error) => {
    try {
      await p;
    } catch (e) {
      assert.instance(e, kind);
      return;
    }
    assert.unreachable("expected a rejection");
  };
  await rejects(verify(pk, sig.subarray(1), message, genericWatermark()), RangeError);
  await rejects(verify(pk, sig, "00" as unknown as Uint8Array, genericWatermark()), TypeError);
  await rejects(verify({ curve: "ed25519", bytes: new Uint8Array(33) }, sig, message, genericWatermark()), RangeError);
  await rejects(verify(parsePublicKey("p2pk66tTYL5EvahKAXncbtbRPBkAnxo3CszzUho5wPCgWauBMyvybuB"), sig, message, undefined as unknown as Uint8Array), TypeError);
  await rejects(sign({ curve: "ed448", bytes: new Uint8Array(32) } as unknown as SecretKey, message, genericWatermark()), TypeError);
  await rejects(sign({ curve: "secp256k1", bytes: new Uint8Array(32) }, message, genericWatermark()), RangeError);
});

test("WebCrypto and pure-JS Ed25519 signing give the same bytes", async () => {
  const { ed25519Sign, ed25519SignAsync } = await import("../../lib/crypto/ed25519.ts");
  const seed = new Uint8Array(32).map((_, i) => i * 7 + 1);
  for (const len of [0, 1, 32, 100]) {
    const msg = new Uint8Array(len).map((_, i) => i);
    assert.equal([...(await ed25519SignAsync(seed, msg))], [...ed25519Sign(seed, msg)]);
  }
});

test.run();
