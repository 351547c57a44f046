/**
 * BLAKE2b, the hash behind every Tezos identifier. Kept behind these functions so that a faster
 * implementation can replace `@noble/hashes` where the bench shows it matters.
 * @module
 */
import { blake2b as nobleBlake2b } from "@noble/hashes/blake2.js";

/**
 * BLAKE2b digest of the concatenation of `parts`, `size` bytes long (1..64).
 * @example blake2b(32, bytes) // 32-byte digest, as for block and operation hashes
 */
export function blake2b(size: number, ...parts: Uint8Array[]): Uint8Array {
  if (!Number.isInteger(size) || size < 1 || size > 64) throw new RangeError(`blake2b: size must be 1..64, got ${size}`);
  const h = nobleBlake2b.create({ dkLen: size });
  for (const p of parts) h.update(p);
  return h.digest();
}

/** BLAKE2b-256 of the concatenation of `parts` (block, operation, context hashes). */
export function blake2b256(...parts: Uint8Array[]): Uint8Array {
  return blake2b(32, ...parts);
}

/** BLAKE2b-160 of the concatenation of `parts` (public key hashes, KT1 addresses). */
export function blake2b160(...parts: Uint8Array[]): Uint8Array {
  return blake2b(20, ...parts);
}

/** Keyed BLAKE2b (MAC mode) of `parts`, `size` bytes long; the key is 1..64 bytes (blinded key hashes). */
export function blake2bKeyed(size: number, key: Uint8Array, ...parts: Uint8Array[]): Uint8Array {
  if (!Number.isInteger(size) || size < 1 || size > 64) throw new RangeError(`blake2b: size must be 1..64, got ${size}`);
  if (!(key instanceof Uint8Array) || key.length < 1 || key.length > 64) throw new RangeError("blake2bKeyed: key must be 1..64 bytes");
  const h = nobleBlake2b.create({ dkLen: size, key });
  for (const p of parts) h.update(p);
  return h.digest();
}
