/**
 * BLAKE2b, the hash behind every Tezos identifier, computed for every operation, signature and
 * context node. The 20-, 32- and 64-byte digests run on hash-wasm's WebAssembly BLAKE2b, 7 to 15
 * times faster than JavaScript on the small inputs Tezos hashes (`bench/`, docs/bench.md); it is
 * loaded when this module is, and until it is ready (or where WebAssembly is refused) every
 * digest is `@noble/hashes`'s. Both give the same bytes (test/crypto/blake2b.test.ts).
 * @module
 */
import { blake2b as nobleBlake2b } from "@noble/hashes/blake2.js";
import { createBLAKE2b, type IHasher } from "hash-wasm";

/** WebAssembly hashers by digest size, once loaded. */
const wasm = new Map<number, IHasher>();

/** The smallest WebAssembly module: its magic number and version. */
const EMPTY_WASM_MODULE = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

/**
 * Whether this runtime compiles WebAssembly from bytes. Cloudflare's workerd does not (only the
 * modules deployed with a worker), nor a page whose content security policy forbids it; there the
 * hashers are not even tried: workerd's refusal would settle a promise made at a module's top
 * level, and a request awaiting it would go on in that top-level scope, where timers are refused.
 */
function wasmCompiles(): boolean {
  try {
    new WebAssembly.Module(EMPTY_WASM_MODULE);
    return true;
  } catch {
    return false;
  }
}

/** Loads the WebAssembly hashers; `false` where WebAssembly is not available or refused. */
export const blake2bWasmReady: Promise<boolean> = !wasmCompiles()
  ? Promise.resolve(false)
  : Promise.all([20, 32, 64].map(async (size) => wasm.set(size, await createBLAKE2b(size * 8))))
      .then(() => true)
      .catch(() => {
        wasm.clear();
        return false;
      });

/**
 * BLAKE2b digest of the concatenation of `parts`, `size` bytes long (1..64).
 * @example blake2b(32, bytes) // 32-byte digest, as for block and operation hashes
 */
export function blake2b(size: number, ...parts: Uint8Array[]): Uint8Array {
  if (!Number.isInteger(size) || size < 1 || size > 64) throw new RangeError(`blake2b: size must be 1..64, got ${size}`);
  const w = wasm.get(size);
  if (w !== undefined) {
    w.init();
    for (const p of parts) w.update(p);
    return w.digest("binary");
  }
  return nobleBlake2b(parts.length === 1 ? parts[0]! : concat(parts), { dkLen: size });
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const p of parts) {
    out.set(p, n);
    n += p.length;
  }
  return out;
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
