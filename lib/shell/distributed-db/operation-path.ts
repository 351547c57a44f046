/**
 * The Merkle path of one validation pass in a block's `operations_hash` (Octez
 * `src/lib_crypto/blake2B.ml`, `Generic_Merkle_tree.compute_path`, over the passes' operation
 * list hashes): what `Operations_for_blocks` carries so that the receiver can check the
 * operations against the header.
 *
 * The tree is Octez's: leaves BLAKE2b-256(list hash), nodes BLAKE2b-256(left ‖ right), each level
 * padded to an even width with the padding subtree of its height (the last leaf, then the node of
 * two paddings). The path is built from the leaf up: at each level, `Left(path, right sibling)`
 * when the walk is on a left child, `Right(left sibling, path)` otherwise; the outermost step is
 * the root's. One pass alone is the leaf itself (`Op`).
 * @module
 */
import { blake2b256 } from "../../crypto/blake2b.ts";
import { B58, b58encode } from "../../encoding/base58.ts";
import type { OperationListPath } from "../../p2p/encoding/operation-path.ts";

const llo = (h: Uint8Array) => b58encode(B58.operationListListHash, h);

/**
 * The path of pass `index` among `listHashes` (32-byte `Lo…` hashes, one per validation pass).
 * Throws a RangeError for an index out of range or no pass at all (Octez's `invalid_arg`).
 */
export function operationListPath(listHashes: readonly Uint8Array[], index: number): OperationListPath {
  const n = listHashes.length;
  if (n === 0 || !Number.isInteger(index) || index < 0 || index >= n) throw new RangeError(`operationListPath: no pass ${index} among ${n}`);
  if (n === 1) return { kind: "Op" };
  // a[0..width) holds one level, a[width] the padding subtree of that level's height
  const a: Uint8Array[] = listHashes.map((h) => blake2b256(h));
  a.push(a[n - 1]!);
  let width = n;
  let j = index;
  let path: OperationListPath = { kind: "Op" };
  for (;;) {
    path = j % 2 === 0 ? { kind: "Left", path, right: llo(a[j + 1]!) } : { kind: "Right", left: llo(a[j - 1]!), path };
    const m = Math.floor((width + 1) / 2);
    const pad = a[width]!;
    for (let i = 0; i < m; i++) a[i] = blake2b256(a[2 * i]!, a[2 * i + 1]!);
    a[m] = blake2b256(pad, pad);
    if (m === 1) return path;
    if (m % 2 === 0) width = m;
    else {
      a[m + 1] = a[m]!;
      width = m + 1;
    }
    j = Math.floor(j / 2);
  }
}
