/**
 * Signing and verification as Octez does them: the curve signs BLAKE2b-256(watermark ‖ bytes).
 * Ed25519 signs that 32-byte digest as its message; secp256k1 and P-256 sign the digest itself
 * (ECDSA without a further hash). Acceptance rules per curve: see `ed25519.ts` and `ecdsa.ts`, and
 * `docs/crypto.md`.
 * @module
 */
import { blake2b256 } from "./blake2b.ts";
import { ecdsaSign, ecdsaVerify } from "./ecdsa.ts";
import { ed25519SignAsync, ed25519Verify } from "./ed25519.ts";
import { type PublicKey, type SecretKey, type Signature, PUBLIC_KEY_SIZE, SIGNATURE_SIZE } from "./keys.ts";
import type { Watermark } from "./watermark.ts";
import { byteString, Lru } from "../encoding/lru.ts";

function bytesArg(name: string, value: unknown, size?: number): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (size !== undefined && value.length !== size) throw new RangeError(`${name} must be ${size} bytes, got ${value.length}`);
  return value;
}

function keyArg(name: string, key: unknown, sizeOf: (curve: PublicKey["curve"]) => number): PublicKey | SecretKey {
  if (typeof key !== "object" || key === null) throw new TypeError(`${name} must be a key object`);
  const { curve, bytes } = key as PublicKey;
  if (curve !== "ed25519" && curve !== "secp256k1" && curve !== "p256") throw new TypeError(`Unknown curve ${JSON.stringify(curve)}`);
  bytesArg(`${name} bytes`, bytes, sizeOf(curve));
  return key as PublicKey;
}

/**
 * Signatures found valid, by key, signature and digest: an operation's signature is checked when
 * the mempool takes it and again in its block, and the answer cannot change. Only valid ones are
 * kept, so that nobody fills it with garbage.
 */
const verified = new Lru<string, true>(16_384);

/** The digest the curve signs: BLAKE2b-256(watermark ‖ bytes). */
export function signedDigest(bytes: Uint8Array, watermark: Watermark): Uint8Array {
  return blake2b256(bytesArg("watermark", watermark), bytesArg("bytes", bytes));
}

/**
 * Signs `bytes` under `watermark` (use `new Uint8Array()` for none) with `secretKey`; resolves to
 * the 64-byte signature. Deterministic on every curve (RFC 8032; RFC 6979 with low s).
 * @example
 * const sig = await sign(parseSecretKey("edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh"), unsignedOp, genericWatermark());
 */
export async function sign(secretKey: SecretKey, bytes: Uint8Array, watermark: Watermark): Promise<Signature> {
  const { curve, bytes: sk } = keyArg("secretKey", secretKey, () => 32);
  const digest = signedDigest(bytes, watermark);
  return curve === "ed25519" ? ed25519SignAsync(sk, digest) : ecdsaSign(curve, sk, digest);
}

/**
 * Whether `signature` signs `bytes` under `watermark` for `publicKey`, by Octez's rule for the
 * key's curve. Resolves to `false` for any invalid signature; rejects only on arguments of the
 * wrong type or length. Many verifications may run at once (`Promise.all`): Ed25519 ones then
 * overlap inside WebCrypto.
 */
export async function verify(publicKey: PublicKey, signature: Signature, bytes: Uint8Array, watermark: Watermark): Promise<boolean> {
  const { curve, bytes: pk } = keyArg("publicKey", publicKey, (c) => PUBLIC_KEY_SIZE[c]);
  bytesArg("signature", signature, SIGNATURE_SIZE);
  const digest = signedDigest(bytes, watermark);
  const key = new Uint8Array(1 + pk.length + signature.length + digest.length);
  key[0] = curve === "ed25519" ? 0 : curve === "secp256k1" ? 1 : 2;
  key.set(pk, 1);
  key.set(signature, 1 + pk.length);
  key.set(digest, 1 + pk.length + signature.length);
  const id = byteString(key);
  if (verified.get(id) === true) return true;
  const valid = curve === "ed25519" ? await ed25519Verify(pk, digest, signature) : ecdsaVerify(curve, pk, digest, signature);
  if (valid) verified.set(id, true);
  return valid;
}
