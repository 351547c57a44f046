/**
 * The context of a commit as a snapshot carries it: every node reachable from the commit's root,
 * each once, in its hashed (canonical) encoding, in depth-first pre-order (a node comes after a
 * node that links to it). The store may keep a node in another form (a packed directory, small
 * subdirectories inside their parent); the walk decodes what the store holds and re-encodes it,
 * so the snapshot does not depend on the store's layout and each node checks by its hash.
 * @module
 */
import { blake2b256 } from "../../crypto/blake2b.ts";
import type { KeyValueStore } from "../kv.ts";
import { nodeKey } from "../context/loader.ts";
import { BLOB, decodeNode, DIR, encodeNode, Flat, type Ref, Shard, type TreeNode } from "../context/node.ts";
import { SnapshotError } from "./format.ts";

type Pending = { readonly hash: Uint8Array } | { readonly node: TreeNode };

const idOf = (h: Uint8Array) => String.fromCharCode.apply(null, h as unknown as number[]);

/** The links of a decoded node: a stored node by hash, or a node the store kept inside its parent. */
function links(node: TreeNode): Pending[] {
  const refs: Ref[] = [];
  if (node instanceof Flat) {
    for (const c of node.children) if (c.kind === BLOB || c.kind === DIR) refs.push(c.ref);
  } else if (node instanceof Shard) {
    for (const s of node.slots) if (s !== undefined) refs.push(s);
  }
  return refs.map((r) => (r.node !== undefined ? { node: r.node } : { hash: r.hash!.slice() }));
}

/**
 * The canonical encoding of each node reachable from `root` (a node hash), in snapshot order;
 * reads the store as it is pulled.
 * @throws {SnapshotError} when a node is missing from the store or does not decode.
 */
export function* contextNodes(kv: KeyValueStore, root: Uint8Array): Generator<Uint8Array> {
  const seen = new Set<string>();
  const stack: Pending[] = [{ hash: root }];
  while (stack.length > 0) {
    const p = stack.pop()!;
    let node: TreeNode;
    let canonical: Uint8Array;
    if ("hash" in p) {
      const id = idOf(p.hash);
      if (seen.has(id)) continue;
      seen.add(id);
      const stored = kv.get(nodeKey(p.hash));
      if (stored === undefined) throw new SnapshotError("a context node is missing from the store (the store is corrupt)");
      try {
        node = decodeNode(stored);
      } catch (error) {
        throw new SnapshotError(`a context node of the store does not decode (${(error as Error).message})`);
      }
      // Tags 1-3 are the canonical encodings themselves.
      canonical = stored[0]! <= 0x03 ? stored : encodeNode(node);
    } else {
      node = p.node;
      canonical = encodeNode(node);
      const id = idOf(blake2b256(canonical));
      if (seen.has(id)) continue;
      seen.add(id);
    }
    yield canonical;
    const next = links(node);
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
  }
}

/**
 * The hashes a canonical node links to (every link of a canonical node is by hash).
 * @throws {SnapshotError} when it does not decode.
 */
export function canonicalLinks(canonical: Uint8Array): Uint8Array[] {
  let node: TreeNode;
  try {
    node = decodeNode(canonical);
  } catch (error) {
    throw new SnapshotError(`a context node does not decode (${(error as Error).message})`);
  }
  if (canonical[0]! > 0x03) throw new SnapshotError("a context node is not in its hashed encoding");
  return links(node).map((l) => ("hash" in l ? l.hash : blake2b256(encodeNode(l.node))));
}
