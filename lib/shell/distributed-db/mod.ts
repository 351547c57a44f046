/**
 * The node's distributed DB (Octez v12 `distributed_db.ml`, `p2p_reader.ml`): answers peers'
 * requests about its chain from the chain store, the prevalidator and the protocols; asks peers
 * for what the chain validator needs and routes their answers and advertisements to it.
 *
 * @example
 * ```ts
 * const network = joinNetwork({ chain, validator, prevalidator, protocols, pool });
 * // ... the node follows its peers and they hear of its heads and operations
 * network.close();
 * ```
 * @module
 */
import type { P2pPool } from "../../p2p/pool/api.ts";
import type { Chain } from "../chain.ts";
import { ChainValidator } from "../chain-validator.ts";
import type { Prevalidator } from "../prevalidator.ts";
import type { ProtocolRegistry } from "../protocols.ts";
import type { BlockValidator } from "../validator.ts";
import type { NodeWorkers } from "../workers-view.ts";
import { ChainResponder } from "./responder.ts";
import { Requester, type RequesterTimeouts } from "./requester.ts";
import { advertisedMempool, propagatedOperation, storedProtocol } from "./sources.ts";

export { ChainResponder, MAX_TIMESTAMP_DRIFT_S, type ResponderOptions } from "./responder.ts";
export { type FetchedHeader, fetchedHeader, PeerGone, Requester, RequestTimeout, type RequesterStats, type RequesterTimeouts } from "./requester.ts";
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

/** A node on the network: its distributed DB's parts, and how to leave. */
export interface NodeNetwork {
  readonly responder: ChainResponder;
  readonly requester: Requester;
  readonly chainValidator: ChainValidator;
  /** Stops following peers and answering them (the pool itself is closed by its owner). */
  close(): void;
}

/**
 * Puts a node on its pool: peers' requests answered, their branches and heads followed (blocks
 * fetched and validated), the node's heads and mempool advertised, peers' operations fetched.
 */
export function joinNetwork(node: {
  readonly chain: Chain;
  readonly validator: BlockValidator;
  readonly prevalidator: Prevalidator;
  readonly protocols: ProtocolRegistry;
  readonly pool: P2pPool;
  readonly now?: () => number;
  /** How far in the future an advertised head may be, in seconds (Octez's 5 s when absent). */
  readonly maxFutureS?: number;
  /** Whether the node is bootstrapped (its heads are advertised from then on); always when absent. */
  readonly isBootstrapped?: () => boolean;
  /** Each head a peer shows, for the synchronisation heuristic (timestamp in seconds). */
  readonly onPeerHead?: (timestamp: number, peerId: string) => void;
  readonly timeouts?: Partial<RequesterTimeouts>;
  readonly log?: (line: string) => void;
  /** The records `/workers` reads (the chain validator's, the peer validators', the distributed DB's counts). */
  readonly workers?: NodeWorkers;
}): NodeNetwork {
  const { chain, prevalidator, pool } = node;
  const requester = new Requester(node.timeouts);
  const mempool = () => advertisedMempool(prevalidator, chain);
  let validator: ChainValidator | undefined;
  const responder = new ChainResponder({
    chain,
    selfPeerId: pool.peerId,
    mempool,
    operation: (hash) => propagatedOperation(prevalidator, hash),
    protocol: (hash) => storedProtocol(node.protocols, hash),
    ...(node.now === undefined ? {} : { now: node.now }),
    ...(node.maxFutureS === undefined ? {} : { maxFutureS: node.maxFutureS }),
    onAdvertised: (from, m) => (m.kind === "Current_branch" ? validator?.branch(from, m.locator) : validator?.head(from, m.header, m.mempool)),
    onResponse: (from, m) => requester.receive(from, m),
  });
  const chainValidator = new ChainValidator({
    chain,
    validator: node.validator,
    prevalidator,
    requester,
    links: () => pool.links(),
    isActive: (peer) => responder.isActive(peer, chain.chainId),
    mempool,
    ...(node.onPeerHead === undefined ? {} : { onPeerHead: node.onPeerHead }),
    ...(node.isBootstrapped === undefined ? {} : { isBootstrapped: node.isBootstrapped }),
    ...(node.log === undefined ? {} : { log: node.log }),
    ...(node.workers === undefined ? {} : { workers: node.workers }),
  });
  validator = chainValidator;
  pool.setChainMessageHandler(responder.handler);
  const off = pool.onPeerChange((link, change) => (change === "connected" ? chainValidator.connected(link) : chainValidator.disconnected(link)));
  for (const link of pool.links()) chainValidator.connected(link);
  return {
    responder,
    requester,
    chainValidator,
    close() {
      off();
      pool.setChainMessageHandler(undefined);
      chainValidator.close();
    },
  };
}
