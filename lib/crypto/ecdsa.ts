/**
 * ECDSA on secp256k1 (tz2) and NIST P-256 (tz3), over a 32-byte digest that the caller computes
 * (for Tezos, BLAKE2b-256 of watermark ‖ bytes). WebCrypto's ECDSA always hashes the message
 * itself, so both curves use `@noble/curves` on every runtime: one implementation, one answer.
 *
 * Acceptance rules, as Octez v12 applies them:
 * - secp256k1 (`src/lib_crypto/secp256k1.ml` → secp256k1-internal → libsecp256k1): the 64 bytes
 *   parse as r ‖ s with r < n and s < n (compact parse), then `secp256k1_ecdsa_verify` refuses
 *   r = 0, s = 0 and high s (s > n/2: only lower-S signatures are valid, no normalization first);
 *   the digest is read big-endian and reduced mod n; the public key is 33 bytes, 0x02/0x03 ‖ x
 *   with x < p and x³ + 7 a square.
 * - P-256 (`src/lib_crypto/p256.ml` → `src/lib_hacl_glue/unix/hacl.ml` → HACL* ECDSA without
 *   hash): the public key must be a valid point (0x02/0x03 ‖ x, x < p, on the curve; never the
 *   point at infinity); 0 < r < n and 0 < s < n, and high s is accepted; the digest is read
 *   big-endian and reduced mod n; u1·G + u2·Q must not be the point at infinity and its x mod n
 *   must equal r.
 * Signing is deterministic (RFC 6979) and always produces low s, which both rules accept.
 * @module
 */
import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToNumberBE } from "@noble/curves/utils.js";

/** The two ECDSA curves of Tezos. */
export type EcdsaCurve = "secp256k1" | "p256";

const ORDER = {
  secp256k1: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n,
  p256: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
} as const;

function impl(curve: EcdsaCurve) {
  if (curve === "secp256k1") return secp256k1;
  if (curve === "p256") return p256;
  throw new TypeError(`Unknown ECDSA curve ${JSON.stringify(curve)}`);
}

function bytes(name: string, value: unknown, size: number): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (value.length !== size) throw new RangeError(`${name} must be ${size} bytes, got ${value.length}`);
  return value;
}

/** Whether `publicKey` is a 33-byte compressed point of `curve` (0x02/0x03 ‖ x, x < p, on the curve). */
export function ecdsaIsValidPublicKey(curve: EcdsaCurve, publicKey: Uint8Array): boolean {
  const c = impl(curve);
  bytes("publicKey", publicKey, 33);
  if (publicKey[0] !== 0x02 && publicKey[0] !== 0x03) return false;
  try {
    c.Point.fromBytes(publicKey).assertValidity();
    return true;
  } catch {
    return false;
  }
}

/** Whether `secretKey` is a valid 32-byte scalar of `curve` (0 < k < n, big-endian). */
export function ecdsaIsValidSecretKey(curve: EcdsaCurve, secretKey: Uint8Array): boolean {
  impl(curve);
  const k = bytesToNumberBE(bytes("secretKey", secretKey, 32));
  return k > 0n && k < ORDER[curve];
}

/** The 33-byte compressed public key of `secretKey`; throws a RangeError if it is not a valid scalar. */
export function ecdsaPublicKey(curve: EcdsaCurve, secretKey: Uint8Array): Uint8Array {
  if (!ecdsaIsValidSecretKey(curve, secretKey)) throw new RangeError(`Invalid ${curve} secret key: not in 1..n-1`);
  return impl(curve).getPublicKey(secretKey, true);
}

/** The 64-byte signature r ‖ s (RFC 6979, low s) of the 32-byte `digest`. */
export function ecdsaSign(curve: EcdsaCurve, secretKey: Uint8Array, digest: Uint8Array): Uint8Array {
  bytes("digest", digest, 32);
  if (!ecdsaIsValidSecretKey(curve, secretKey)) throw new RangeError(`Invalid ${curve} secret key: not in 1..n-1`);
  return impl(curve).sign(digest, secretKey, { prehash: false, lowS: true, format: "compact" });
}

/**
 * Whether `signature` (r ‖ s, 64 bytes) signs the 32-byte `digest` under `publicKey` (33 bytes)
 * by the rule of `curve` (see the module doc). Returns `false` for anything the rule refuses,
 * invalid public keys included; throws only on arguments of the wrong type or length.
 */
export function ecdsaVerify(curve: EcdsaCurve, publicKey: Uint8Array, digest: Uint8Array, signature: Uint8Array): boolean {
  const c = impl(curve);
  bytes("publicKey", publicKey, 33);
  bytes("digest", digest, 32);
  bytes("signature", signature, 64);
  const n = ORDER[curve];
  const r = bytesToNumberBE(signature.subarray(0, 32));
  const s = bytesToNumberBE(signature.subarray(32, 64));
  if (r === 0n || r >= n || s === 0n || s >= n) return false;
  const lowS = curve === "secp256k1";
  if (lowS && s > n >> 1n) return false;
  if (publicKey[0] !== 0x02 && publicKey[0] !== 0x03) return false;
  try {
    return c.verify(signature, digest, publicKey, { prehash: false, lowS, format: "compact" });
  } catch {
    return false;
  }
}
