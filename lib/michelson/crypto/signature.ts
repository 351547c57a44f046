/**
 * CHECK_SIGNATURE (Octez `Signature.check` without watermark): the key's curve signs
 * BLAKE2b-256(message). The signature's Base58 prefix matters as in Octez: a generic `sig…`
 * (how signatures read from bytes are kept) is checked with the key's curve; a curve-specific one
 * (`edsig…`, `spsig1…`, `p2sig…`) only ever verifies under a key of that same curve.
 *
 * Synchronous, unlike `lib/crypto/sign.ts` `verify` (whose Ed25519 path may go through
 * WebCrypto): Ed25519 goes through `ed25519VerifySync`, the same rule on noble points.
 * @module
 */
import { blake2b256 } from "../../crypto/blake2b.ts";
import { ecdsaVerify } from "../../crypto/ecdsa.ts";
import { ed25519VerifySync } from "../../crypto/ed25519.ts";
import { type Curve, parsePublicKey } from "../../crypto/keys.ts";
import { B58, b58tryDecode } from "../../encoding/base58.ts";

const SIGNATURE_KINDS: readonly [Curve | "generic", typeof B58.genericSignature][] = [
  ["generic", B58.genericSignature],
  ["ed25519", B58.ed25519Signature],
  ["secp256k1", B58.secp256k1Signature],
  ["p256", B58.p256Signature],
];

/**
 * The curve a Base58 signature is labelled with (`"generic"` for `sig…`) and its 64 bytes;
 * TypeError if the text is no signature.
 */
export function parseTypedSignature(text: string): { kind: Curve | "generic"; bytes: Uint8Array } {
  if (typeof text !== "string") throw new TypeError("signature must be a string");
  for (const [kind, b58] of SIGNATURE_KINDS) {
    const bytes = b58tryDecode(b58, text);
    if (bytes !== undefined) return { kind, bytes };
  }
  throw new TypeError(`Invalid signature ${JSON.stringify(text)}`);
}

/**
 * CHECK_SIGNATURE: whether `signatureB58` signs `message` for `publicKeyB58` (`edpk…`, `sppk…`,
 * `p2pk…`). Returns `false` for a wrong or malformed signature and for a signature labelled with
 * another curve than the key's; throws TypeError only when a string is not a key / signature at all.
 * @example checkSignature("edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav", "edsigu3Qsz…", packed) // true
 */
export function checkSignature(publicKeyB58: string, signatureB58: string, message: Uint8Array): boolean {
  if (!(message instanceof Uint8Array)) throw new TypeError("message must be a Uint8Array");
  const key = parsePublicKey(publicKeyB58);
  const { kind, bytes } = parseTypedSignature(signatureB58);
  if (kind !== "generic" && kind !== key.curve) return false;
  const digest = blake2b256(message);
  try {
    return key.curve === "ed25519" ? ed25519VerifySync(key.bytes, digest, bytes) : ecdsaVerify(key.curve, key.bytes, digest, bytes);
  } catch {
    return false;
  }
}
