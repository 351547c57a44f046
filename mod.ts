/**
 * A Tezos node serving the Octez RPC interface as one `fetch(request)` handler: the package's
 * main export, `tezos-node-ts` (the stores and the HTTP adapters are its other exports,
 * `tezos-node-ts/stores/*` and `tezos-node-ts/serve/*`).
 *
 * @example
 * ```ts
 * import { createNode } from "tezos-node-ts";
 * const node = await createNode({ bake: { mode: "manual" } });
 * const res = await node.fetch(new Request("http://node/chains/main/blocks/head/hash"));
 * console.log(await res.json()); // the hash of the sandbox's block 3
 * const baked = await node.fetch(new Request("http://node/sandbox/bake", { method: "POST" }));
 * console.log(await baked.json()); // [the hash of block 4]
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
export type { LogFields, LogLevel, LogRecord, LogRow, LogSink, LogValue } from "./lib/log.ts";
