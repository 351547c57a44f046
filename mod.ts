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
export { createNode } from "./lib/node.ts";
export type { BakeMode, HistoryMode, NodeOptions, TezosNode } from "./lib/node.ts";
export type { KeyValueStore, RangeOptions, WriteOp } from "./lib/store/kv.ts";
export { StoreWriteError } from "./lib/store/kv.ts";
export type { ResourceReader } from "./lib/protocols/sources/mod.ts";
