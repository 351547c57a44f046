/**
 * The chain validator (Octez's `chain_validator.ml`, with the distributed DB's advertising): keeps
 * the node's chain in step with its peers.
 *
 * - Each new connection is asked for its branch (`Get_current_branch`, as Octez's `P2p_reader.run`)
 *   and gets a {@link PeerValidator}, which brings the node to the best head that peer shows.
 * - Each new head of the node is advertised to the peers for which the chain is active
 *   (`Current_head` with the mempool) once the node is bootstrapped, and so is each change of
 *   the mempool, coalesced.
 * - Operations of a peer's advertised mempool that the node does not know are fetched
 *   (`Get_operations`) and given to the prevalidator as arrived operations, which classifies them
 *   as it does injected ones; so an operation injected at any node reaches every mempool.
 * - A head a peer shows that the node holds valid, and each block of a peer validated, are
 *   reported to the synchronisation heuristic (`onPeerHead`).
 * - `/workers` records (`workers`): the peer validators', the chain validator's processed blocks,
 *   the distributed DB's counts.
 * @module
 */
import type { RawBlockHeader } from "../encoding/block-header.ts";
import type { BlockLocator } from "../p2p/encoding/locator.ts";
import type { Mempool } from "../p2p/encoding/mempool.ts";
import type { PeerLink } from "../p2p/pool/api.ts";
import type { Block, Chain } from "./chain.ts";
import type { Prevalidator } from "./prevalidator.ts";
import type { BlockValidator } from "./validator.ts";
import { fetchedHeader, type Requester } from "./distributed-db/requester.ts";
import { PeerValidator } from "./peer-validator.ts";
import type { NodeWorkers } from "./workers-view.ts";
import type { ChainUpdate } from "./worker-states.ts";
import { toTezosError } from "../errors/core.ts";

/** How long mempool changes are gathered before one advertisement, in milliseconds. */
export const MEMPOOL_ADVERTISE_DELAY_MS = 10;

/** What the chain validator uses of the node. */
export interface ChainValidatorOptions {
  readonly chain: Chain;
  readonly validator: BlockValidator;
  readonly prevalidator: Prevalidator;
  readonly requester: Requester;
  /** The peers connected now. */
  readonly links: () => readonly PeerLink[];
  /** Whether the chain is active for a peer (it asked our branch): only those hear our advertisements. */
  readonly isActive: (peer: PeerLink) => boolean;
  /** The mempool the node advertises. */
  readonly mempool: () => Mempool;
  /** Whether the node is bootstrapped: until then its new heads are not advertised (Octez's `broadcast_head`); always when absent. */
  readonly isBootstrapped?: () => boolean;
  /** A head a peer showed, or a block of a peer validated: its timestamp in seconds, and the peer. */
  readonly onPeerHead?: (timestamp: number, peerId: string) => void;
  /**
   * The records `/workers` reads: a peer validator's per connection, the chain validator's
   * requests (each block of a peer validated: what it did to the head) and the distributed DB's
   * counts.
   */
  readonly workers?: NodeWorkers;
  readonly log?: (line: string) => void;
}

/** Brings the chain to its peers' best head and tells them of ours. */
export class ChainValidator {
  private readonly o: ChainValidatorOptions;
  private readonly peers = new Map<PeerLink, PeerValidator>();
  private readonly stop = new AbortController();
  private advertiseTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(options: ChainValidatorOptions) {
    this.o = options;
    void this.followHeads();
    const w = options.workers;
    if (w !== undefined) {
      w.useDdb(() => {
        const t = options.requester.stats();
        const links = options.links();
        const table = (n: number) => ({ table_length: n, scheduler_length: n });
        return {
          p2p_readers: links.length,
          active_chains: 1,
          operation_db: table(t.operation),
          operations_db: table(t.operations),
          block_header_db: table(t.blockHeaders),
          active_connections: links.length,
          active_peers: links.filter((l) => options.isActive(l)).length,
        };
      });
      w.chainValidator.setHandlers({
        onCompletion: (request, status, outcome) => {
          const b = request.kind === "hash" ? options.chain.block(request.hash) : undefined;
          if (b !== undefined) {
            w.chainValidator.record({ kind: "processed_block", request, status, outcome: outcome as ChainUpdate, fitness: b.header.fitness, level: b.header.level, timestamp: b.header.timestamp });
          }
        },
        onError: (request, status, error) => {
          w.chainValidator.record({ kind: "request_failure", request, status, errors: toTezosError(error).toJson() });
          return "continue";
        },
      });
    }
  }

  /** The peer validators, by peer. */
  peerValidators(): ReadonlyMap<PeerLink, PeerValidator> {
    return this.peers;
  }

  /** A new connection: its validator, and a request for its branch. */
  connected(peer: PeerLink): void {
    if (this.closed || this.peers.has(peer)) return;
    this.peers.set(peer, this.peerValidator(peer));
    this.o.workers?.chainValidator.record({ kind: "connection", peer_id: peer.peerId });
    peer.metadata.requests.sent.branch++;
    peer.send({ kind: "Get_current_branch", chain_id: this.o.chain.chainId }).catch(() => {
      peer.metadata.requests.sent.branch--;
      peer.metadata.requests.failed.branch++;
    });
  }

  /** A connection ended: its validator stops, what was asked of it fails. */
  disconnected(peer: PeerLink): void {
    const v = this.peers.get(peer);
    v?.close();
    this.peers.delete(peer);
    this.o.requester.peerGone(peer);
    if (v !== undefined) {
      this.o.workers?.chainValidator.record({ kind: "disconnection", peer_id: peer.peerId });
      void this.o.workers?.removePeerValidator(peer.peerId);
    }
  }

  /** A branch a peer advertised (or sent in answer). */
  branch(from: PeerLink, locator: BlockLocator): void {
    this.knownHead(from, locator.current_head);
    this.validatorOf(from)?.notifyBranch(locator.current_head, locator.history);
  }

  /** A head a peer advertised, with its mempool. */
  head(from: PeerLink, header: RawBlockHeader, mempool: Mempool): void {
    this.knownHead(from, header);
    this.validatorOf(from)?.notifyHead(header);
    void this.fetchMempool(from, mempool);
  }

  /**
   * A head a peer shows counts for the synchronisation heuristic only when the node holds it as
   * valid already (Octez's chain validator); the others count once validated.
   */
  private knownHead(from: PeerLink, header: RawBlockHeader): void {
    if (this.o.onPeerHead !== undefined && this.o.chain.block(fetchedHeader(header).hash) !== undefined) this.o.onPeerHead(header.timestamp, from.peerId);
  }

  /** The mempool changed: advertise it soon (changes close together make one advertisement). */
  mempoolChanged(): void {
    if (this.closed || this.advertiseTimer !== undefined) return;
    this.advertiseTimer = setTimeout(() => {
      this.advertiseTimer = undefined;
      this.advertise(this.o.chain.head);
    }, MEMPOOL_ADVERTISE_DELAY_MS);
  }

  /** Resolves once every peer validator is idle (tests, benchmarks). */
  async idle(): Promise<void> {
    await Promise.all([...this.peers.values()].map((v) => v.idle()));
  }

  /** Stops: no more advertisements, the peer validators stop, what was asked fails. */
  close(): void {
    this.closed = true;
    this.stop.abort();
    clearTimeout(this.advertiseTimer);
    for (const v of this.peers.values()) v.close();
    this.peers.clear();
    this.o.requester.close();
  }

  private validatorOf(peer: PeerLink): PeerValidator | undefined {
    if (this.closed) return undefined;
    let v = this.peers.get(peer);
    if (v === undefined) this.peers.set(peer, (v = this.peerValidator(peer)));
    return v;
  }

  private peerValidator(peer: PeerLink): PeerValidator {
    const workers = this.o.workers;
    let pipeline = { fetched_headers: 0, fetched_blocks: 0 };
    let worker: ReturnType<NodeWorkers["addPeerValidator"]> | undefined;
    try {
      worker = workers?.addPeerValidator(peer.peerId, () => ({ ...pipeline }));
    } catch {
      worker = undefined; // a second connection of the same peer: its first one keeps the record
    }
    worker?.setHandlers({
      onCompletion: (request, status) => worker!.record({ kind: "request", request, status }),
      onError: (request, status, error) => {
        worker!.record({ kind: "request", request, status, errors: toTezosError(error).toJson() });
        return "continue";
      },
    });
    const v = new PeerValidator(peer, {
      chain: this.o.chain,
      validator: this.o.validator,
      requester: this.o.requester,
      log: this.o.log ?? (() => {}),
      ...(worker === undefined ? {} : { worker }),
      onValidated: (p, b, headBefore) => {
        this.o.onPeerHead?.(b.header.timestamp, p.peerId);
        this.processed(b, headBefore);
      },
    });
    pipeline = v.pipeline;
    return v;
  }

  /** The chain validator's request for a block a peer validator stored: what it did to the head (`headBefore`). */
  private processed(b: Block, headBefore: string): void {
    const w = this.o.workers?.chainValidator;
    if (w === undefined || !w.alive) return;
    const outcome: ChainUpdate = this.o.chain.head.hash !== b.hash ? "ignored" : b.header.predecessor === headBefore ? "increment" : "branch";
    void w.push({ kind: "hash", hash: b.hash }, async () => outcome).catch(() => {});
  }

  private async followHeads(): Promise<void> {
    for await (const head of this.o.chain.heads.subscribe([], this.stop.signal)) {
      if (this.o.isBootstrapped?.() !== false) this.advertise(head);
    }
  }

  /** `Current_head` with the mempool to every peer for which the chain is active. */
  private advertise(head: Block): void {
    if (this.closed) return;
    const mempool = this.o.mempool();
    const empty = { known_valid: [], pending: [] };
    for (const peer of this.o.links()) {
      if (!this.o.isActive(peer)) continue;
      peer.metadata.advertisements.sent.head++;
      peer.send({ kind: "Current_head", chain_id: this.o.chain.chainId, header: head.header, mempool: peer.disableMempool ? empty : mempool }).catch(() => {
        peer.metadata.advertisements.sent.head--;
      });
    }
  }

  /** Fetches the operations of a peer's mempool the node does not know, for the prevalidator. */
  private async fetchMempool(from: PeerLink, mempool: Mempool): Promise<void> {
    const { prevalidator, requester } = this.o;
    const wanted = [...mempool.known_valid, ...mempool.pending].filter((h) => !prevalidator.knows(h) && !requester.isFetchingOperation(h));
    if (wanted.length === 0) return;
    const got = await requester.operations(from, wanted);
    for (const bytes of got) if (bytes !== undefined) prevalidator.arrived(bytes);
  }
}
