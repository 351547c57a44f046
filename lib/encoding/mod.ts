/**
 * The encoding layer: codec combinators in Octez data-encoding conventions (each codec gives a
 * JSON form, a binary form, a JSON schema and a binary layout description), Base58Check, and
 * the shell's types. Hangzhou's types are in `./hangzhou/mod.ts`.
 *
 * @example
 * ```ts
 * import { obj, req, opt, int32, nonceHash, encodeBinary, decodeBinary } from "./mod.ts";
 * const c = obj(req("level", int32), opt("seed_nonce_hash", nonceHash));
 * const bytes = encodeBinary(c, { level: 5 }); // 00000005 00
 * decodeBinary(c, bytes); // { level: 5 }
 * c.toJson({ level: 5 }); // { level: 5 }
 * ```
 * @module
 */
export * from "./codec.ts";
export * from "./base58.ts";
export * from "./core.ts";
export * from "./hex.ts";
export * from "./integers.ts";
export * from "./zarith.ts";
export * from "./bytes.ts";
export * from "./dynamic.ts";
export * from "./object.ts";
export * from "./tuple.ts";
export * from "./list.ts";
export * from "./union.ts";
export * from "./conv.ts";
export * from "./hashes.ts";
export * from "./keys.ts";
export * from "./time.ts";
export * from "./fitness.ts";
export * from "./micheline.ts";
export * from "./michelson-primitives.ts";
export * from "./block-header.ts";
export * from "./operation.ts";
export * from "./bson.ts";
export { describeBinary } from "./describe.ts";
