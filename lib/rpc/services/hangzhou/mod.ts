/**
 * Protocol 011 Hangzhou's RPC side: how its blocks are read (header data, metadata, operations
 * with receipts, the limits it sets) and the services it offers below `{B}` when it is a block's
 * next protocol — constants, contracts, delegates, nonces and seed, liquidity baking, the raw
 * JSON view of its storage, rights and levels, block times, votes, and `helpers/preapply/block`.
 * Every read runs on the block's context prepared at the block's level (Octez `rpc_init`).
 *
 * @example
 * ```ts
 * const rpcs = new Map([genesisRpc(now), hangzhouRpc(now)].map((r) => [r.hash, r]));
 * nodeDirectory({ chain, protocols, genesis, validator, blockRpc: (h) => rpcs.get(h) });
 * // GET /chains/main/blocks/head/context/delegates/tz1…/staking_balance → "4000000000000"
 * ```
 * @module
 */
import { encodeBinary } from "../../../encoding/codec.ts";
import { constant } from "../../../encoding/conv.ts";
import { protocolData } from "../../../encoding/hangzhou/block-header.ts";
import { operation, type Operation } from "../../../encoding/hangzhou/operation.ts";
import { hangzhouBlockMetadata } from "../../../encoding/hangzhou/receipts/block-metadata.ts";
import { mergeObjs, obj, req } from "../../../encoding/object.ts";
import { HANGZHOU, hangzhouProtocol } from "../../../protocols/hangzhou/protocol.ts";
import { Directory } from "../../directory.ts";
import type { BlockCtx } from "../block-context.ts";
import type { BlockProtocolRpc, ProtocolLimits } from "../block-protocols.ts";
import { preapplyBlockService } from "../preapply.ts";
import { hangzhouOperationRpc } from "./block.ts";
import { constantsServices } from "./constants.ts";
import { bigMapsServices } from "./big-maps.ts";
import { cacheServices } from "./cache.ts";
import { contractScriptsServices } from "./contract-scripts.ts";
import { contractsServices } from "./contracts.ts";
import { scriptsServices } from "./scripts.ts";
import { delegatesServices } from "./delegates.ts";
import { HANGZHOU_PREFIX_RESOLVERS, hangzhouHelperServices } from "./helpers.ts";
import { simulationServices } from "./simulation.ts";
import { nonceServices } from "./nonces.ts";
import { rawJsonServices } from "./raw.ts";
import { rightsServices } from "./rights.ts";
import { votesServices } from "./votes.ts";

export { hangzhouBlockOperation, hangzhouOperationRpc } from "./block.ts";
export { constantsAt, constantsServices } from "./constants.ts";
export { contractInfo, contractInfoAt, contractsServices, type ContractInfo } from "./contracts.ts";
export { balanceRpcNonDelegate, delegateInfo, delegateInfoAt, delegatesServices, type DelegateInfo } from "./delegates.ts";
export { contractArg, cycleArg, levelArg, nullable, octezListOrder, pkhArg, protoContextOf, protocolFitness } from "./context.ts";
export { nonceInfo, nonceServices, type NonceInfo } from "./nonces.ts";
export { leafJson, rawJson, rawJsonServices } from "./raw.ts";
export { requiredEndorsements, rightsContextOf, rightsServices } from "./rights.ts";
export { votesServices } from "./votes.ts";

/** The limits Hangzhou sets for its blocks (shown in the metadata of their predecessors). */
export const HANGZHOU_LIMITS: ProtocolLimits = Object.freeze({
  maxOperationDataLength: hangzhouProtocol.maxOperationDataLength,
  maxBlockHeaderLength: hangzhouProtocol.maxBlockHeaderLength,
  operationListQuota: hangzhouProtocol.operationListQuota,
});

/** Every service Hangzhou offers below `{B}` (as the next protocol); `now` (ms) dates preapplied blocks by default. */
export function hangzhouServices(now: () => number): Directory<BlockCtx> {
  const nextOperation = mergeObjs(obj(req("protocol", constant(HANGZHOU))), operation);
  return new Directory<BlockCtx>()
    .merge(constantsServices())
    .merge(contractsServices())
    .merge(contractScriptsServices())
    .merge(bigMapsServices())
    .merge(cacheServices())
    .merge(scriptsServices())
    .merge(delegatesServices())
    .merge(nonceServices())
    .merge(rawJsonServices())
    .merge(rightsServices())
    .merge(votesServices())
    .merge(hangzhouHelperServices())
    .merge(simulationServices(now))
    .register(
      preapplyBlockService(
        {
          hash: HANGZHOU,
          headerData: protocolData,
          operation: nextOperation,
          operationBytes: (op) => encodeBinary(operation, op as Operation),
        },
        now,
      ),
    );
}

/** How Hangzhou blocks are read and the services Hangzhou offers below `{B}`. */
export function hangzhouRpc(now: () => number): BlockProtocolRpc {
  return {
    hash: HANGZHOU,
    headerData: protocolData,
    services: hangzhouServices(now),
    metadata: hangzhouBlockMetadata,
    operation: hangzhouOperationRpc(HANGZHOU),
    limits: HANGZHOU_LIMITS,
    environmentVersion: hangzhouProtocol.environmentVersion,
    completeResolvers: HANGZHOU_PREFIX_RESOLVERS,
  };
}
