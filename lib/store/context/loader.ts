/**
 * Loading context nodes from the store, through a cache shared by every context of that store.
 *
 * Nodes of the store are immutable (content addressed), so the cache never goes stale. It keeps
 * roughly the most recently used nodes in two generations (a young map that, when full, becomes
 * the old one): a hit in the old generation moves the node to the young one. A generation is full
 * at {@link NODE_CACHE_GENERATION} nodes or {@link NODE_CACHE_GENERATION_BYTES} bytes of stored
 * encodings, whichever comes first: a sandbox loads a few large directories per block (the root,
 * `contracts/index`, the bakers'), and counting nodes alone let the cache hold some 150 MiB of
 * decoded directories before it turned over; decoded, a node takes some 30 to 40 times its encoding.
 * @module
 */
import { toHex } from "../../encoding/hex.ts";
import type { KeyValueStore } from "../kv.ts";
import { key, Table } from "../tables.ts";
import { ContextCorruptionError, decodeNode, type DirNode, Flat, type Ref, Shard, type TreeNode } from "./node.ts";

/** Nodes per cache generation (so at most twice as many are kept). */
export const NODE_CACHE_GENERATION = 16384;

/** Bytes of stored node encodings per cache generation (decoded nodes take a few times more). */
export const NODE_CACHE_GENERATION_BYTES = 512 * 1024;

/** A cached node and the size of its stored encoding. */
interface Cached {
  readonly node: TreeNode;
  readonly bytes: number;
}

/** Reads the nodes of one store, with the cache. */
export class NodeLoader {
  readonly store: KeyValueStore;
  #young = new Map<string, Cached>();
  #old = new Map<string, Cached>();
  #youngBytes = 0;

  constructor(store: KeyValueStore) {
    this.store = store;
  }

  /** The node behind `ref`. */
  load(ref: Ref): TreeNode {
    if (ref.node !== undefined) return ref.node;
    const id = ref.id;
    const young = this.#young.get(id);
    if (young !== undefined) return young.node;
    let entry = this.#old.get(id);
    if (entry === undefined) {
      const bytes = this.store.get(nodeKey(ref.hash!));
      if (bytes === undefined) throw new ContextCorruptionError(`context node ${hex(ref.hash!)} is missing from the store`);
      entry = { node: decodeNode(bytes), bytes: bytes.length };
    }
    this.#young.set(id, entry);
    this.#youngBytes += entry.bytes;
    if (this.#young.size >= NODE_CACHE_GENERATION || this.#youngBytes >= NODE_CACHE_GENERATION_BYTES) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngBytes = 0;
    }
    return entry.node;
  }

  /** Bytes of stored encodings the cache holds now (at most twice {@link NODE_CACHE_GENERATION_BYTES}, plus one node). */
  get cachedBytes(): number {
    let old = 0;
    for (const e of this.#old.values()) old += e.bytes;
    return old + this.#youngBytes;
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
export const hex: (b: Uint8Array) => string = toHex;
