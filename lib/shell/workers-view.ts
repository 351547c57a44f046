/**
 * The node's workers as the `/workers/*` services read them ({@link WorkersView}), and the
 * node's own set of them ({@link NodeWorkers}): the block validator's and the prevalidator's
 * worker records (their request queues), the chain validator's record, created here for the
 * chain validator to drive, the peer validators it registers, and the distributed DB's counts.
 *
 * @example
 * ```ts
 * const workers = new NodeWorkers({ chainId, now, blockValidator: validator.worker, prevalidator: prevalidator.worker });
 * workers.chainValidator.push({ kind: "hash", hash }, async () => …);      // the chain validator's requests
 * const pv = workers.addPeerValidator(peerId, () => ({ fetched_headers: 0, fetched_blocks: 0 }));
 * pv.push({ kind: "new_head", block }, async () => …);
 * await workers.removePeerValidator(peerId);                              // closes it
 * workers.useDdb(() => requester.counts());
 * ```
 * @module
 */
import { Worker } from "./worker.ts";
import {
  type BlockValidatorEvent,
  type BlockValidatorRequest,
  type ChainValidatorEvent,
  chainValidatorEventLevel,
  type ChainValidatorRequest,
  type DdbState,
  type PeerPipeline,
  type PeerValidatorEvent,
  peerValidatorEventLevel,
  type PeerValidatorRequest,
  type PrevalidatorRequest,
} from "./worker-states.ts";

/** A chain validator: its chain, its worker, its distributed DB's counts. */
export interface ChainValidatorEntry {
  readonly chainId: string;
  readonly worker: Worker<ChainValidatorRequest, ChainValidatorEvent>;
  ddb(): DdbState;
}

/** A prevalidator: its chain and its worker (it records no events). */
export interface PrevalidatorEntry {
  readonly chainId: string;
  readonly worker: Worker<PrevalidatorRequest, never>;
}

/** A peer validator: its chain, its peer, its worker and its bootstrap pipeline. */
export interface PeerValidatorEntry {
  readonly chainId: string;
  readonly peerId: string;
  readonly worker: Worker<PeerValidatorRequest, PeerValidatorEvent>;
  pipeline(): PeerPipeline;
}

/** What `/workers/*` reads: the running workers of each kind. */
export interface WorkersView {
  /** The block validator (one per node). */
  readonly blockValidator: Worker<BlockValidatorRequest, BlockValidatorEvent>;
  /** The chain validators, one per chain validated. */
  chainValidators(): readonly ChainValidatorEntry[];
  /** The prevalidators, one per chain with a mempool. */
  prevalidators(): readonly PrevalidatorEntry[];
  /** Every peer validator, of every chain. */
  peerValidators(): readonly PeerValidatorEntry[];
}

/** The counts of a distributed DB that requests nothing: `connections` readers, peers and connections, the one chain. */
export function idleDdb(connections: number): DdbState {
  const none = { table_length: 0, scheduler_length: 0 };
  return {
    p2p_readers: connections,
    active_chains: 1,
    operation_db: none,
    operations_db: none,
    block_header_db: none,
    active_connections: connections,
    active_peers: connections,
  };
}

/** Options of {@link NodeWorkers}. */
export interface NodeWorkersOptions {
  readonly chainId: string;
  /** The clock of the workers created here, milliseconds since the epoch. */
  readonly now: () => number;
  readonly blockValidator: Worker<BlockValidatorRequest, BlockValidatorEvent>;
  readonly prevalidator: Worker<PrevalidatorRequest, never>;
  /** The distributed DB's counts; {@link idleDdb} of no connection when absent (see {@link NodeWorkers.useDdb}). */
  readonly ddb?: () => DdbState;
}

/** The workers of a node with one chain (see the module documentation). */
export class NodeWorkers implements WorkersView {
  readonly chainId: string;
  readonly blockValidator: Worker<BlockValidatorRequest, BlockValidatorEvent>;
  readonly prevalidator: Worker<PrevalidatorRequest, never>;
  /** The chain validator's worker, running from the start: the chain validator pushes its requests and records its events here. */
  readonly chainValidator: Worker<ChainValidatorRequest, ChainValidatorEvent>;
  private readonly now: () => number;
  private ddb: () => DdbState;
  private readonly peers = new Map<string, PeerValidatorEntry>();

  constructor(options: NodeWorkersOptions) {
    this.chainId = options.chainId;
    this.now = options.now;
    this.blockValidator = options.blockValidator;
    this.prevalidator = options.prevalidator;
    this.ddb = options.ddb ?? (() => idleDdb(0));
    this.chainValidator = new Worker({ name: { base: "validator-chain", name: this.chainId }, now: this.now, level: chainValidatorEventLevel });
    this.chainValidator.started();
  }

  /** Where the distributed DB's counts come from from now on. */
  useDdb(source: () => DdbState): void {
    this.ddb = source;
  }

  /**
   * A running worker record for the peer validator of `peerId` (on this node's chain), listed
   * until {@link removePeerValidator}; `pipeline` gives its bootstrap pipeline's counts. Throws
   * when that peer has one already (Octez's duplicate worker).
   */
  addPeerValidator(peerId: string, pipeline: () => PeerPipeline = () => ({ fetched_headers: 0, fetched_blocks: 0 })): Worker<PeerValidatorRequest, PeerValidatorEvent> {
    if (this.peers.has(peerId)) throw new Error(`NodeWorkers: the peer ${peerId} has a peer validator already`);
    const worker = new Worker<PeerValidatorRequest, PeerValidatorEvent>({
      name: { base: "validator-peer", name: `${this.chainId}-${peerId}` },
      now: this.now,
      level: peerValidatorEventLevel,
    });
    worker.started();
    this.peers.set(peerId, { chainId: this.chainId, peerId, worker, pipeline });
    return worker;
  }

  /** Closes the peer validator's worker of `peerId` and stops listing it (Octez removes a closed worker). */
  async removePeerValidator(peerId: string): Promise<void> {
    const entry = this.peers.get(peerId);
    if (entry === undefined) return;
    this.peers.delete(peerId);
    await entry.worker.close();
  }

  chainValidators(): readonly ChainValidatorEntry[] {
    return [{ chainId: this.chainId, worker: this.chainValidator, ddb: () => this.ddb() }];
  }

  prevalidators(): readonly PrevalidatorEntry[] {
    return [{ chainId: this.chainId, worker: this.prevalidator }];
  }

  peerValidators(): readonly PeerValidatorEntry[] {
    return [...this.peers.values()];
  }

  /** Closes the chain validator's and the peer validators' workers (the node closes its own components' workers). */
  async close(): Promise<void> {
    await Promise.all([...this.peers.keys()].map((p) => this.removePeerValidator(p)));
    await this.chainValidator.close();
  }
}
