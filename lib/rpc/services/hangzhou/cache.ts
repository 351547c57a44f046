/**
 * The script cache at `{B}` (Octez 011 `alpha_services.ml`, `Cache` services over
 * `Script_cache`): `context/cache/contracts/all` (the cached contracts with their sizes, oldest
 * first), `context/cache/contracts/size` and `…/size_limit` (bytes), and
 * `POST context/cache/contracts/rank` (how many cached contracts are older than the given one,
 * `null` when it is not cached). They show the cache as the block left it.
 * @module
 */
import { int31 } from "../../../encoding/integers.ts";
import { list } from "../../../encoding/list.ts";
import { tup } from "../../../encoding/tuple.ts";
import { contractId } from "../../../encoding/hangzhou/basic.ts";
import {
  scriptCacheEntries,
  scriptCacheRank,
  scriptCacheSize,
  scriptCacheSizeLimit,
} from "../../../protocols/hangzhou/michelson/script-cache.ts";
import { Directory } from "../../directory.ts";
import { service } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import { nullable, protoContextOf } from "./context.ts";

/** The script cache services of Hangzhou. */
export function cacheServices(): Directory<BlockCtx> {
  return new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: ["context", "cache", "contracts", "all"],
      description: "Return the list of cached contracts",
      output: list(tup(contractId, int31)),
      handler: ({ ctx }) => scriptCacheEntries(protoContextOf(ctx)),
    }),
    service({
      method: "GET",
      path: ["context", "cache", "contracts", "size"],
      description: "Return the size of the contract cache",
      output: int31,
      handler: ({ ctx }) => scriptCacheSize(protoContextOf(ctx)),
    }),
    service({
      method: "GET",
      path: ["context", "cache", "contracts", "size_limit"],
      description: "Return the size limit of the contract cache",
      output: int31,
      handler: ({ ctx }) => scriptCacheSizeLimit(protoContextOf(ctx)),
    }),
    service({
      method: "POST",
      path: ["context", "cache", "contracts", "rank"],
      description: "Return the number of cached contracts older than the provided contract",
      input: contractId,
      output: nullable(int31),
      handler: ({ ctx, body }) => scriptCacheRank(protoContextOf(ctx), body) ?? null,
    }),
  );
}
