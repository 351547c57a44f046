/**
 * Loading context nodes from the store, through a cache shared by every context of that store.
 *
 * Nodes of the store are immutable (content addressed), so the cache never goes stale. It keeps
 * roughly the most recently used nodes in two generations (a young map that, when full, becomes
 * the old one): a hit in the old generation moves the node to the young one.
 * @module
 */
import type { KeyValueStore } from "../kv.ts";
import { key, Table } from "../tables.ts";
import { ContextCorruptionError, decodeNode, type DirNode, Flat, type Ref, Shard, type TreeNode } from "./node.ts";

/** Nodes per cache generation (so at most twice as many are kept). */
export const NODE_CACHE_GENERATION = 16384;

/** Reads the nodes of one store, with the cache. */
export class NodeLoader {
  readonly store: KeyValueStore;
  #young = new Map<string, TreeNode>();
  #old = new Map<string, TreeNode>();

  constructor(store: KeyValueStore) {
    this.store = store;
  }

  /** The node behind `ref`. */
  load(ref: Ref): TreeNode {
    if (ref.node !== undefined) return ref.node;
    const id = ref.id;
    let node = this.#young.get(id);
    if (node !== undefined) return node;
    node = this.#old.get(id);
    if (node === undefined) {
      const bytes = this.store.get(nodeKey(ref.hash!));
      if (bytes === undefined) throw new ContextCorruptionError(`context node ${hex(ref.hash!)} is missing from the store`);
      node = decodeNode(bytes);
    }
    this.#young.set(id, node);
    if (this.#young.size >= NODE_CACHE_GENERATION) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    return node;
  }

  /** The directory behind `ref` (a top-level directory: a flat node or a depth-0 shard). */
  loadDir(ref: Ref): DirNode {
    const node = this.load(ref);
    if (node instanceof Flat || node instanceof Shard) return node;
    throw new ContextCorruptionError(`context node ${ref.hash ? hex(ref.hash) : "(new)"} is a blob where a directory was expected`);
  }

  /** The bytes of the blob behind `ref`. */
  loadBlob(ref: Ref): Uint8Array {
    const node = this.load(ref);
    if (node instanceof Uint8Array) return node;
    throw new ContextCorruptionError(`context node ${ref.hash ? hex(ref.hash) : "(new)"} is a directory where a blob was expected`);
  }
}

const loaders = new WeakMap<KeyValueStore, NodeLoader>();

/** The loader (and cache) of `store`, created on first use. */
export function loaderOf(store: KeyValueStore): NodeLoader {
  let l = loaders.get(store);
  if (l === undefined) loaders.set(store, (l = new NodeLoader(store)));
  return l;
}

/** Store key of a context node. */
export function nodeKey(hash: Uint8Array): Uint8Array {
  return key(Table.contextNode, hash);
}

/** Store key of a context commit. */
export function commitKey(hash: Uint8Array): Uint8Array {
  return key(Table.contextCommit, hash);
}

/** Lowercase hex of bytes (for messages). */
export function hex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}
