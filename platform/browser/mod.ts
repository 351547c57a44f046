/**
 * The node in a browser (a page or a Web Worker): the entry of the browser bundle
 * (`dist/browser/tezos-node.js`, built by `scripts/bundle-browser.mjs`), with the IndexedDB store.
 *
 * @example
 * ```ts
 * import { createNode, openIndexedDbStore } from "tezos-node-ts/browser";
 * const node = await createNode({ store: await openIndexedDbStore("tezos-sandbox") });
 * const res = await node.fetch(new Request("http://node/chains/main/blocks/head/header"));
 * console.log((await res.json()).level);
 * ```
 * @module
 */
import { createNode as createNodeWith, type NodeOptions, type TezosNode } from "../../lib/node.ts";
import { readBundledResource } from "./resource.ts";

/**
 * A node (see {@link NodeOptions}); in memory unless `options.store` is given (for instance
 * {@link openIndexedDbStore}). The protocol sources are fetched from beside the bundle unless
 * `options.readResource` says otherwise.
 */
export function createNode(options: NodeOptions = {}): Promise<TezosNode> {
  return createNodeWith({ readResource: readBundledResource, ...options });
}

export { openIndexedDbStore } from "../store/indexeddb.ts";
export { readBundledResource } from "./resource.ts";
export type { BakeMode, HistoryMode, NodeOptions, TezosNode } from "../../lib/node.ts";
export type { KeyValueStore, RangeOptions, WriteOp } from "../../lib/store/kv.ts";
export { StoreWriteError } from "../../lib/store/kv.ts";
export type { ResourceReader } from "../../lib/protocols/sources/mod.ts";
