/**
 * The Merkle trees of a block's operations, written from Octez v12's `blake2B.ml`
 * (`Generic_Merkle_tree`, `Make_merkle_tree`): an `Operation_list_hash` is the tree of a pass's
 * operation hashes, the header's `operations_hash` (an `Operation_list_list_hash`) the tree of
 * the passes' list hashes; `Operations_for_blocks` carries the path from a pass's leaf to that
 * root. BLAKE2b-256 throughout: the empty tree is the hash of no bytes, a leaf the hash of its
 * element's 32 bytes, a node the hash of its two children one after the other. Octez's `step`
 * completes each level with the subtree of the last leaf repeated, which comes to a full tree
 * over the leaves padded to a power of two with the last one (not the last node of each level
 * repeated: the two differ from six leaves on).
 * @module
 */
import { blake2b } from "@noble/hashes/blake2.js";
import { concat } from "./bytes.ts";

const hash = (bytes: Uint8Array): Uint8Array => blake2b(bytes, { dkLen: 32 });
const leaf = (element: Uint8Array) => hash(element);
const node = (left: Uint8Array, right: Uint8Array) => hash(concat(left, right));

/** A path from a leaf to the root: the sibling at each level, nearest the leaf first. */
type Step = { readonly side: "left" | "right"; readonly sibling: Uint8Array };

/** The root of the tree over `elements`, and the path of element `index` (when asked). */
function tree(elements: readonly Uint8Array[], index?: number): { root: Uint8Array; path: Step[] } {
  if (elements.length === 0) return { root: hash(new Uint8Array(0)), path: [] };
  let level: Uint8Array[] = elements.map(leaf);
  while (level.length & (level.length - 1)) level.push(level[level.length - 1]!);
  let at = index ?? 0;
  const path: Step[] = [];
  while (level.length > 1) {
    // the element is the left child (its sibling on the right) when its position is even
    path.push(at % 2 === 0 ? { side: "left", sibling: level[at + 1]! } : { side: "right", sibling: level[at - 1]! });
    const up: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) up.push(node(level[i]!, level[i + 1]!));
    level = up;
    at = Math.floor(at / 2);
  }
  return { root: level[0]!, path };
}

/** `Operation_list_hash.compute`: the root over a pass's operation hashes (32 bytes each). */
export function operationListHash(operationHashes: readonly Uint8Array[]): Uint8Array {
  return tree(operationHashes).root;
}

/** The header's `operations_hash` over each pass's operation hashes. */
export function operationListListHash(passes: readonly (readonly Uint8Array[])[]): Uint8Array {
  return tree(passes.map(operationListHash)).root;
}

/**
 * The path of pass `pass` to the `operations_hash` root, in Octez's binary `path` encoding: from
 * the root down, `Left` (0xf0, the path below, then the right sibling), `Right` (0x0f, the left
 * sibling, then the path below), and `Op` (0x00) at the leaf.
 */
export function encodeOperationListPath(passes: readonly (readonly Uint8Array[])[], pass: number): Uint8Array {
  if (!(pass >= 0 && pass < passes.length)) throw new RangeError(`no pass ${pass} among ${passes.length}`);
  const { path } = tree(passes.map(operationListHash), pass);
  let out: Uint8Array = Uint8Array.of(0x00);
  for (const step of path) out = step.side === "left" ? concat(Uint8Array.of(0xf0), out, step.sibling) : concat(Uint8Array.of(0x0f), step.sibling, out);
  return out;
}
