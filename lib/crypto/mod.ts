/**
 * The crypto layer of the node: BLAKE2b digests, the identifiers Octez hashes (blocks,
 * operations, operation lists, chain ids, KT1, script expressions, nonces), keys of the three
 * curves with their Base58Check and binary forms, watermarks, signing and verification with one
 * acceptance rule on every runtime (see `docs/crypto.md`).
 *
 * @example
 * ```ts
 * import { parseSecretKey, publicKeyOf, sign, verify, genericWatermark } from "./lib/crypto/mod.ts";
 * const sk = parseSecretKey("edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh");
 * const sig = await sign(sk, bytes, genericWatermark());
 * await verify(publicKeyOf(sk), sig, bytes, genericWatermark()); // true
 * ```
 * @module
 */
export { blake2b, blake2b160, blake2b256 } from "./blake2b.ts";
export { merkleRoot } from "./merkle.ts";
export {
  blockHash,
  chainIdOfGenesis,
  nonceHash,
  operationHash,
  operationListHash,
  operationListListHash,
  originatedContractHash,
  scriptExprHash,
} from "./hashes.ts";
export {
  CURVE_TAG,
  CURVES,
  type Curve,
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
  PUBLIC_KEY_HASH_SIZE,
  PUBLIC_KEY_SIZE,
  type PublicKey,
  publicKeyEquals,
  publicKeyFromBinary,
  publicKeyFromBytes,
  type PublicKeyHash,
  publicKeyHash,
  publicKeyHashFromBinary,
  publicKeyHashFromBytes,
  publicKeyHashToBinary,
  publicKeyOf,
  publicKeyToBinary,
  type SecretKey,
  secretKeyFromBytes,
  type Signature,
  SIGNATURE_SIZE,
} from "./keys.ts";
export { blockWatermark, endorsementWatermark, genericWatermark, type Watermark } from "./watermark.ts";
export { sign, signedDigest, verify } from "./sign.ts";
export {
  type Ed25519Backend,
  ed25519PublicKey,
  ed25519Sign,
  ed25519Verify,
  hasWebCryptoEd25519,
  isCanonicalEd25519Encoding,
} from "./ed25519.ts";
export {
  type EcdsaCurve,
  ecdsaIsValidPublicKey,
  ecdsaIsValidSecretKey,
  ecdsaPublicKey,
  ecdsaSign,
  ecdsaVerify,
} from "./ecdsa.ts";
