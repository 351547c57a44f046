/**
 * Watermarks: the bytes put in front of what is signed, so that a signature made for one purpose
 * cannot be replayed for another (Octez `src/lib_crypto/signature.ml`, `bytes_of_watermark`).
 * @module
 */

/** A watermark: bytes prepended to the signed bytes before hashing. */
export type Watermark = Uint8Array;

function chainIdArg(chainId: unknown): Uint8Array {
  if (!(chainId instanceof Uint8Array)) throw new TypeError("chainId must be a Uint8Array");
  if (chainId.length !== 4) throw new RangeError(`chainId must be 4 bytes, got ${chainId.length}`);
  return chainId;
}

/** Block header watermark: 0x01 ‖ chain id (4 bytes). */
export function blockWatermark(chainId: Uint8Array): Watermark {
  const out = new Uint8Array(5);
  out[0] = 0x01;
  out.set(chainIdArg(chainId), 1);
  return out;
}

/** Endorsement watermark: 0x02 ‖ chain id (4 bytes), for a lone endorsement content. */
export function endorsementWatermark(chainId: Uint8Array): Watermark {
  const out = new Uint8Array(5);
  out[0] = 0x02;
  out.set(chainIdArg(chainId), 1);
  return out;
}

/** Generic operation watermark: 0x03, for every operation that is not an endorsement. */
export function genericWatermark(): Watermark {
  return Uint8Array.of(0x03);
}
