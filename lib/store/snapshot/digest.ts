/**
 * Incremental BLAKE2b-256 for the section and file digests: hash-wasm's WebAssembly hasher
 * where it compiles (each digest its own instance), else `@noble/hashes`'s.
 * @module
 */
import { blake2b as nobleBlake2b } from "@noble/hashes/blake2.js";
import { createBLAKE2b } from "hash-wasm";

/** A running BLAKE2b-256. */
export interface Digest {
  update(bytes: Uint8Array): void;
  /** The 32-byte digest of everything given so far (the digest then ends). */
  digest(): Uint8Array;
}

/** A new running BLAKE2b-256. */
export async function createDigest(): Promise<Digest> {
  try {
    const h = await createBLAKE2b(256);
    h.init();
    return { update: (b) => void h.update(b), digest: () => h.digest("binary") };
  } catch {
    const h = nobleBlake2b.create({ dkLen: 32 });
    return { update: (b) => void h.update(b), digest: () => h.digest() };
  }
}

/** Whether two byte strings are equal. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
