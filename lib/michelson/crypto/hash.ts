/**
 * The hash instructions of Michelson (protocol 011): BLAKE2B (32-byte BLAKE2b), SHA256, SHA512,
 * KECCAK (Keccak-256 with the original Keccak padding, as Ethereum) and SHA3 (FIPS 202 SHA3-256).
 * Each takes the bytes on the stack and returns a fresh digest.
 * @module
 */
import { sha256 as nobleSha256, sha512 as nobleSha512 } from "@noble/hashes/sha2.js";
import { keccak_256 as nobleKeccak256, sha3_256 as nobleSha3_256 } from "@noble/hashes/sha3.js";
import { blake2b256 } from "../../crypto/blake2b.ts";

function bytesArg(value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError("bytes must be a Uint8Array");
  return value;
}

/** BLAKE2B: the 32-byte BLAKE2b digest. */
export function blake2b(bytes: Uint8Array): Uint8Array {
  return blake2b256(bytesArg(bytes));
}

/** SHA256: the SHA-256 digest (32 bytes). */
export function sha256(bytes: Uint8Array): Uint8Array {
  return nobleSha256(bytesArg(bytes));
}

/** SHA512: the SHA-512 digest (64 bytes). */
export function sha512(bytes: Uint8Array): Uint8Array {
  return nobleSha512(bytesArg(bytes));
}

/** KECCAK: the Keccak-256 digest (32 bytes; pre-FIPS padding, as Ethereum's). */
export function keccak256(bytes: Uint8Array): Uint8Array {
  return nobleKeccak256(bytesArg(bytes));
}

/** SHA3: the SHA3-256 digest (32 bytes). */
export function sha3_256(bytes: Uint8Array): Uint8Array {
  return nobleSha3_256(bytesArg(bytes));
}
