/**
 * A Tezos node serving the Octez RPC interface as one `fetch(request)` handler.
 *
 * @example
 * ```ts
 * import { createNode } from "./mod.ts";
 * const node = await createNode();
 * const res = await node.fetch(new Request("http://node/chains/main/blocks/head/hash"));
 * console.log(await res.json());
 * await node.close();
 * ```
 * @module
 */
import { createNode as createNodeWith, type NodeOptions, type TezosNode } from "./lib/node.ts";
import { readResource } from "./platform/resource.ts";

/**
 * A node (see {@link NodeOptions}); its data files (the embedded protocols' sources) are read from
 * beside the package unless `options.readResource` says otherwise.
 */
export function createNode(options: NodeOptions = {}): Promise<TezosNode> {
  return createNodeWith({ readResource, ...options });
}
export type { BakeMode, HistoryMode, NodeOptions, TezosNode } from "./lib/node.ts";
export type { KeyValueStore, RangeOptions, WriteOp } from "./lib/store/kv.ts";
export { StoreWriteError } from "./lib/store/kv.ts";
export type { ResourceReader } from "./lib/protocols/sources/mod.ts";
