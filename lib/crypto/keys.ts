/**
 * Keys of the three Tezos curves: ed25519 (tz1), secp256k1 (tz2), p256 (tz3). Base58Check forms
 * (`edpk`/`sppk`/`p2pk`, `edsk`/`spsk`/`p2sk`, `tz1`/`tz2`/`tz3`, `edsig`/`spsig1`/`p2sig`/`sig`),
 * tagged binary forms (tag 0x00/0x01/0x02 ‖ key or hash bytes), derivation of the public key and
 * of the public key hash. Octez: `src/lib_crypto/{signature,ed25519,secp256k1,p256}.ml`.
 * @module
 */
import { B58, type Base58Kind, b58encode, b58tryDecode } from "../encoding/base58.ts";
import { blake2b160 } from "./blake2b.ts";
import { ecdsaIsValidPublicKey, ecdsaIsValidSecretKey, ecdsaPublicKey } from "./ecdsa.ts";
import { ed25519PublicKey } from "./ed25519.ts";

/** A signature curve of Tezos. */
export type Curve = "ed25519" | "secp256k1" | "p256";

/** The curves in tag order. */
export const CURVES: readonly Curve[] = Object.freeze(["ed25519", "secp256k1", "p256"] as const);

/** The tag byte of each curve in binary public keys, public key hashes and secret keys. */
export const CURVE_TAG: Readonly<Record<Curve, number>> = Object.freeze({ ed25519: 0, secp256k1: 1, p256: 2 });

/** Public key size per curve: 32 bytes for ed25519, 33 (compressed point) for secp256k1 and p256. */
export const PUBLIC_KEY_SIZE: Readonly<Record<Curve, number>> = Object.freeze({ ed25519: 32, secp256k1: 33, p256: 33 });

/** Size of a public key hash (BLAKE2b-160). */
export const PUBLIC_KEY_HASH_SIZE = 20;

/** Size of every signature: 64 bytes (R ‖ S for ed25519, r ‖ s for ECDSA). */
export const SIGNATURE_SIZE = 64;

/** A public key: 32 bytes (ed25519) or a 33-byte compressed point (secp256k1, p256). */
export interface PublicKey {
  readonly curve: Curve;
  readonly bytes: Uint8Array;
}

/** A secret key: the 32-byte ed25519 seed, or the 32-byte big-endian ECDSA scalar. */
export interface SecretKey {
  readonly curve: Curve;
  readonly bytes: Uint8Array;
}

/** A public key hash (an implicit account, tz1/tz2/tz3): BLAKE2b-160 of the public key bytes. */
export interface PublicKeyHash {
  readonly curve: Curve;
  readonly bytes: Uint8Array;
}

/** A signature: 64 bytes, which carry no curve (the curve is the signer's). */
export type Signature = Uint8Array;

/** Bytes that have the right length but are not a key of their curve (not a point, scalar out of range). */
export class InvalidKeyError extends Error {
  /** The curve the bytes were read for. */
  readonly curve: Curve;
  constructor(curve: Curve, message: string) {
    super(message);
    this.name = "InvalidKeyError";
    this.curve = curve;
  }
}

const PK_KIND: Record<Curve, Base58Kind> = {
  ed25519: B58.ed25519PublicKey,
  secp256k1: B58.secp256k1PublicKey,
  p256: B58.p256PublicKey,
};
const PKH_KIND: Record<Curve, Base58Kind> = {
  ed25519: B58.ed25519PublicKeyHash,
  secp256k1: B58.secp256k1PublicKeyHash,
  p256: B58.p256PublicKeyHash,
};
const SK_KIND: Record<Curve, Base58Kind> = {
  ed25519: B58.ed25519Seed,
  secp256k1: B58.secp256k1SecretKey,
  p256: B58.p256SecretKey,
};
const SIG_KIND: Record<Curve, Base58Kind> = {
  ed25519: B58.ed25519Signature,
  secp256k1: B58.secp256k1Signature,
  p256: B58.p256Signature,
};
const ENCRYPTED_KINDS = [B58.ed25519EncryptedSeed, B58.secp256k1EncryptedSecretKey, B58.p256EncryptedSecretKey];

function assertCurve(curve: unknown): Curve {
  if (curve !== "ed25519" && curve !== "secp256k1" && curve !== "p256") {
    throw new TypeError(`Unknown curve ${JSON.stringify(curve)}`);
  }
  return curve;
}

function assertBytes(name: string, value: unknown, size?: number): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (size !== undefined && value.length !== size) {
    throw new RangeError(`${name} must be ${size} bytes, got ${value.length}`);
  }
  return value;
}

function assertString(name: string, value: unknown): string {
  if (typeof value !== "string") throw new TypeError(`${name} must be a string`);
  return value;
}

/** The curve of a binary tag (0 ed25519, 1 secp256k1, 2 p256); throws a RangeError otherwise. */
export function curveOfTag(tag: number): Curve {
  const curve = CURVES[tag];
  if (curve === undefined || !Number.isInteger(tag)) throw new RangeError(`Unknown curve tag ${tag}`);
  return curve;
}

// ---------------------------------------------------------------------------------------------
// Construction from raw bytes (validated as Octez does when it decodes)

/**
 * A public key of `curve` from its raw bytes. ed25519 takes any 32 bytes (Octez checks no point);
 * secp256k1 and p256 take a valid 33-byte compressed point, or throw InvalidKeyError.
 */
export function publicKeyFromBytes(curve: Curve, bytes: Uint8Array): PublicKey {
  assertCurve(curve);
  assertBytes(`${curve} public key`, bytes, PUBLIC_KEY_SIZE[curve]);
  if (curve !== "ed25519" && !ecdsaIsValidPublicKey(curve, bytes)) {
    throw new InvalidKeyError(curve, `Invalid ${curve} public key: not a point of the curve`);
  }
  return Object.freeze({ curve, bytes: bytes.slice() });
}

/**
 * A secret key of `curve` from its 32 raw bytes (ed25519 seed, or ECDSA scalar, which must be in
 * 1..n−1, else InvalidKeyError).
 */
export function secretKeyFromBytes(curve: Curve, bytes: Uint8Array): SecretKey {
  assertCurve(curve);
  assertBytes(`${curve} secret key`, bytes, 32);
  if (curve !== "ed25519" && !ecdsaIsValidSecretKey(curve, bytes)) {
    throw new InvalidKeyError(curve, `Invalid ${curve} secret key: not in 1..n-1`);
  }
  return Object.freeze({ curve, bytes: bytes.slice() });
}

/** A public key hash of `curve` from its 20 raw bytes. */
export function publicKeyHashFromBytes(curve: Curve, bytes: Uint8Array): PublicKeyHash {
  assertCurve(curve);
  assertBytes(`${curve} public key hash`, bytes, PUBLIC_KEY_HASH_SIZE);
  return Object.freeze({ curve, bytes: bytes.slice() });
}

function assertPublicKey(pk: unknown): PublicKey {
  if (typeof pk !== "object" || pk === null) throw new TypeError("publicKey must be a PublicKey object");
  const { curve, bytes } = pk as PublicKey;
  assertCurve(curve);
  assertBytes(`${curve} public key`, bytes, PUBLIC_KEY_SIZE[curve]);
  return pk as PublicKey;
}

function assertSecretKey(sk: unknown): SecretKey {
  if (typeof sk !== "object" || sk === null) throw new TypeError("secretKey must be a SecretKey object");
  const { curve, bytes } = sk as SecretKey;
  assertCurve(curve);
  assertBytes(`${curve} secret key`, bytes, 32);
  return sk as SecretKey;
}

function assertPublicKeyHash(pkh: unknown): PublicKeyHash {
  if (typeof pkh !== "object" || pkh === null) throw new TypeError("publicKeyHash must be a PublicKeyHash object");
  const { curve, bytes } = pkh as PublicKeyHash;
  assertCurve(curve);
  assertBytes(`${curve} public key hash`, bytes, PUBLIC_KEY_HASH_SIZE);
  return pkh as PublicKeyHash;
}

// ---------------------------------------------------------------------------------------------
// Derivation

/** The public key of a secret key (ed25519: from the seed; ECDSA: k·G, compressed). */
export function publicKeyOf(secretKey: SecretKey): PublicKey {
  const { curve, bytes } = assertSecretKey(secretKey);
  const pk = curve === "ed25519" ? ed25519PublicKey(bytes) : ecdsaPublicKey(curve, bytes);
  return Object.freeze({ curve, bytes: pk });
}

/**
 * The public key hash of a public key: BLAKE2b-160 of its bytes (no tag).
 * @example formatPublicKeyHash(publicKeyHash(parsePublicKey("edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav"))) // tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx
 */
export function publicKeyHash(publicKey: PublicKey): PublicKeyHash {
  const { curve, bytes } = assertPublicKey(publicKey);
  return Object.freeze({ curve, bytes: blake2b160(bytes) });
}

// ---------------------------------------------------------------------------------------------
// Base58Check

/** Parses `edpk…`, `sppk…` or `p2pk…`; TypeError if it is none of them, InvalidKeyError if not a point. */
export function parsePublicKey(text: string): PublicKey {
  assertString("public key", text);
  for (const curve of CURVES) {
    const raw = b58tryDecode(PK_KIND[curve], text);
    if (raw !== undefined) return publicKeyFromBytes(curve, raw);
  }
  throw new TypeError(`Invalid public key ${JSON.stringify(text)}`);
}

/** The `edpk…`/`sppk…`/`p2pk…` form of a public key. */
export function formatPublicKey(publicKey: PublicKey): string {
  const { curve, bytes } = assertPublicKey(publicKey);
  return b58encode(PK_KIND[curve], bytes);
}

/**
 * Parses an unencrypted secret key: `edsk…` (54 characters: the 32-byte seed; or 98 characters:
 * seed ‖ public key, whose second half is ignored as Octez does), `spsk…`, `p2sk…`.
 * Encrypted keys (`edesk…`, `spesk…`, `p2esk…`) are refused with a TypeError.
 */
export function parseSecretKey(text: string): SecretKey {
  assertString("secret key", text);
  for (const curve of CURVES) {
    const raw = b58tryDecode(SK_KIND[curve], text);
    if (raw !== undefined) return secretKeyFromBytes(curve, raw);
  }
  const long = b58tryDecode(B58.ed25519SecretKey, text);
  if (long !== undefined) return secretKeyFromBytes("ed25519", long.subarray(0, 32));
  if (ENCRYPTED_KINDS.some((k) => b58tryDecode(k, text) !== undefined)) {
    throw new TypeError("Encrypted secret keys are not supported; give the unencrypted key");
  }
  throw new TypeError("Invalid secret key (not an edsk, spsk or p2sk string)");
}

/**
 * The Base58Check form of a secret key: `edsk…` seed form (54 characters, Octez's own output),
 * `spsk…`, `p2sk…`; with `form: "long"`, the 98-character `edsk…` seed ‖ public key form.
 */
export function formatSecretKey(secretKey: SecretKey, form: "short" | "long" = "short"): string {
  const { curve, bytes } = assertSecretKey(secretKey);
  if (form === "short") return b58encode(SK_KIND[curve], bytes);
  if (form !== "long") throw new TypeError(`Unknown secret key form ${JSON.stringify(form)}`);
  if (curve !== "ed25519") throw new RangeError(`Only ed25519 secret keys have a long form, not ${curve}`);
  const full = new Uint8Array(64);
  full.set(bytes, 0);
  full.set(ed25519PublicKey(bytes), 32);
  return b58encode(B58.ed25519SecretKey, full);
}

/** Parses `tz1…`, `tz2…` or `tz3…`; TypeError otherwise. */
export function parsePublicKeyHash(text: string): PublicKeyHash {
  assertString("public key hash", text);
  for (const curve of CURVES) {
    const raw = b58tryDecode(PKH_KIND[curve], text);
    if (raw !== undefined) return Object.freeze({ curve, bytes: raw });
  }
  throw new TypeError(`Invalid public key hash ${JSON.stringify(text)}`);
}

/** The `tz1…`/`tz2…`/`tz3…` form of a public key hash. */
export function formatPublicKeyHash(publicKeyHash: PublicKeyHash): string {
  const { curve, bytes } = assertPublicKeyHash(publicKeyHash);
  return b58encode(PKH_KIND[curve], bytes);
}

/**
 * Parses a signature, `edsig…`, `spsig1…`, `p2sig…` or the generic `sig…`, into its 64 bytes
 * (the prefix only says how the client labelled it; the bytes are the same).
 */
export function parseSignature(text: string): Signature {
  assertString("signature", text);
  for (const kind of [B58.genericSignature, ...CURVES.map((c) => SIG_KIND[c])]) {
    const raw = b58tryDecode(kind, text);
    if (raw !== undefined) return raw;
  }
  throw new TypeError(`Invalid signature ${JSON.stringify(text)}`);
}

/**
 * The Base58Check form of a 64-byte signature: generic `sig…` (how Octez shows signatures read
 * from binary) unless a curve is given (`edsig…`, `spsig1…`, `p2sig…`).
 */
export function formatSignature(signature: Signature, curve?: Curve): string {
  assertBytes("signature", signature, SIGNATURE_SIZE);
  if (curve === undefined) return b58encode(B58.genericSignature, signature);
  return b58encode(SIG_KIND[assertCurve(curve)], signature);
}

// ---------------------------------------------------------------------------------------------
// Tagged binary forms (data-encoding `Signature.Public_key.encoding` and `Public_key_hash.encoding`)

/** Binary public key: curve tag ‖ key bytes (33 or 34 bytes). */
export function publicKeyToBinary(publicKey: PublicKey): Uint8Array {
  const { curve, bytes } = assertPublicKey(publicKey);
  const out = new Uint8Array(1 + bytes.length);
  out[0] = CURVE_TAG[curve];
  out.set(bytes, 1);
  return out;
}

/** Reads a binary public key (exactly tag ‖ key bytes); RangeError on a bad tag or length. */
export function publicKeyFromBinary(binary: Uint8Array): PublicKey {
  assertBytes("binary public key", binary);
  if (binary.length === 0) throw new RangeError("binary public key is empty");
  const curve = curveOfTag(binary[0]!);
  assertBytes(`binary ${curve} public key`, binary, 1 + PUBLIC_KEY_SIZE[curve]);
  return publicKeyFromBytes(curve, binary.subarray(1));
}

/** Binary public key hash: curve tag ‖ 20 hash bytes (21 bytes). */
export function publicKeyHashToBinary(publicKeyHash: PublicKeyHash): Uint8Array {
  const { curve, bytes } = assertPublicKeyHash(publicKeyHash);
  const out = new Uint8Array(21);
  out[0] = CURVE_TAG[curve];
  out.set(bytes, 1);
  return out;
}

/** Reads a binary public key hash (exactly 21 bytes); RangeError on a bad tag or length. */
export function publicKeyHashFromBinary(binary: Uint8Array): PublicKeyHash {
  assertBytes("binary public key hash", binary, 21);
  return publicKeyHashFromBytes(curveOfTag(binary[0]!), binary.subarray(1));
}

/** Whether two public keys are the same key. */
export function publicKeyEquals(a: PublicKey, b: PublicKey): boolean {
  assertPublicKey(a);
  assertPublicKey(b);
  if (a.curve !== b.curve || a.bytes.length !== b.bytes.length) return false;
  return a.bytes.every((x, i) => x === b.bytes[i]);
}
