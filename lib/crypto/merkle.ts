/**
 * The Merkle root Octez puts over operation lists (`Lo…` per validation pass, `LLo…` in the
 * block header): Octez `src/lib_crypto/blake2B.ml`, `Generic_Merkle_tree`.
 * @module
 */
import { blake2b256 } from "./blake2b.ts";

/**
 * Merkle root of `elements` (raw bytes, usually 32-byte hashes), following Octez:
 * - no element: BLAKE2b-256 of the empty string;
 * - one element `x`: its leaf, BLAKE2b-256(x);
 * - n ≥ 2: a complete binary tree over the leaves, the list padded to the next power of two by
 *   repeating the last leaf; an inner node is BLAKE2b-256(left ‖ right).
 *
 * @example merkleRoot([]) // 0e5751c0…2fe3a8, the hash of the empty string
 */
export function merkleRoot(elements: readonly Uint8Array[]): Uint8Array {
  if (!Array.isArray(elements)) throw new TypeError("merkleRoot: elements must be an array of Uint8Array");
  for (const [i, e] of elements.entries()) {
    if (!(e instanceof Uint8Array)) throw new TypeError(`merkleRoot: element ${i} is not a Uint8Array`);
  }
  if (elements.length === 0) return blake2b256();
  let level = elements.map((e) => blake2b256(e));
  if (level.length === 1) return level[0]!;
  // `pad` stands for the padding subtree at the current height: leaf(last), then node(pad, pad).
  let pad = level[level.length - 1]!;
  while (level.length > 1) {
    if (level.length % 2 === 1) level.push(pad);
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(blake2b256(level[i]!, level[i + 1]!));
    pad = blake2b256(pad, pad);
    level = next;
  }
  return level[0]!;
}
