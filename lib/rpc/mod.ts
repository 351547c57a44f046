/**
 * The RPC machinery: typed arguments and queries, services declared as data, the service tree
 * with dynamic subtrees, `/describe` and `/errors`, media types, CORS, streaming, and
 * `createRpcHandler`.
 *
 * @example
 * ```ts
 * import { blockArg, chainArg, createRpcHandler, Directory, service } from "./lib/rpc/mod.ts";
 * const root = new Directory();
 * root.register(service({ method: "GET", path: ["chains", chainArg, "blocks", blockArg, "hash"],
 *   output: blockHashEncoding, handler: ({ params: [chain, block] }) => shell.blockHash(chain, block) }));
 * const fetch = createRpcHandler(root);
 * ```
 * @module
 */
export * from "./arg.ts";
export * from "./query.ts";
export { NotFound, service, streamService, tail } from "./service.ts";
export type { Method, ParamsOf, PathItem, Service, ServiceCall, ServiceSpec, StreamServiceSpec, Tail } from "./service.ts";
export { Directory, DirectoryConflict, mount } from "./directory.ts";
export type { Mounted, Subtree, SubtreeBuilder } from "./directory.ts";
export { createRpcHandler } from "./handler.ts";
export type { RpcHandlerOptions } from "./handler.ts";
export type { CorsOptions } from "./cors.ts";
export { ACCEPTABLE, BINARY_MEDIA, JSON_MEDIA } from "./media.ts";
export type { MediaType } from "./media.ts";
export { describeAt, describeService as describeServiceObject } from "./describe.ts";
export { describeService, errorsService, registerBuiltins } from "./builtins.ts";
export { anyJson } from "./json_any.ts";
