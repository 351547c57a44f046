/**
 * The node's distributed DB, read side: answers peers' requests about its chain (Octez v12
 * `p2p_reader.ml`) from the chain store, the prevalidator and the protocols.
 *
 * @example
 * ```ts
 * const responder = nodeResponder({ chain, prevalidator, protocols, selfPeerId: pool.peerId });
 * pool.setChainMessageHandler(responder.handler);
 * ```
 * @module
 */
import type { Chain } from "../chain.ts";
import type { Prevalidator } from "../prevalidator.ts";
import type { ProtocolRegistry } from "../protocols.ts";
import { ChainResponder } from "./responder.ts";
import { advertisedMempool, propagatedOperation, storedProtocol } from "./sources.ts";

export { ChainResponder, MAX_TIMESTAMP_DRIFT_S, type ResponderOptions } from "./responder.ts";
export { computeLocatorHistory, locatorSteps, MAX_LOCATOR_SIZE, type LocatorChain, type LocatorSeed } from "./locator.ts";
export { operationListPath } from "./operation-path.ts";
export { advertisedMempool, propagatedOperation, storedProtocol } from "./sources.ts";

/** The responder of a node: its chain, its prevalidator's mempool, its protocols, our peer id. */
export function nodeResponder(node: {
  readonly chain: Chain;
  readonly prevalidator: Prevalidator;
  readonly protocols: ProtocolRegistry;
  readonly selfPeerId: string;
  readonly now?: () => number;
}): ChainResponder {
  const { chain, prevalidator, protocols } = node;
  return new ChainResponder({
    chain,
    selfPeerId: node.selfPeerId,
    mempool: () => advertisedMempool(prevalidator, chain),
    operation: (hash) => propagatedOperation(prevalidator, hash),
    protocol: (hash) => storedProtocol(protocols, hash),
    ...(node.now === undefined ? {} : { now: node.now }),
  });
}
