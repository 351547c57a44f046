/**
 * The read side of the distributed DB (Octez v12 `src/lib_shell/p2p_reader.ml`, `handle_msg`):
 * what the node answers when a peer asks about its chain, and what it counts of each peer in the
 * peer's metadata (Octez's `Peer_metadata` kinds).
 *
 * | asked | answered | counted |
 * |---|---|---|
 * | `Get_current_branch` of our chain | `Current_branch`: our head and its locator (seed: our id, the peer's id); the chain becomes active for the peer | request `branch`, then a response sent or failed |
 * | `Get_current_head` (chain active for the peer) | `Current_head`: the head's header and our mempool (empty if the peer disabled it) | request `head`, response |
 * | `Get_block_headers` | one `Block_header` per known block | request `block_header`; `unadvertised.block` per unknown one |
 * | `Get_operations` | one `Operation` per operation the node propagates | request `operations`; `unadvertised.operations` per unknown one |
 * | `Get_protocols` | one `Protocol` per known protocol | request `protocols`; `unadvertised.protocol` per unknown one |
 * | `Get_operations_for_blocks` | one `Operations_for_blocks` (with its Merkle path) per known block and pass | request `operations_for_block` |
 * | `Get_checkpoint` of our chain | `Checkpoint`: the checkpoint's header | request `checkpoint` |
 * | `Get_protocol_branch` of our chain | `Protocol_branch`: a locator of the blocks of that protocol level | request `protocol_branch` |
 * | `Get_predecessor_header` | `Predecessor_header`: the header `offset` blocks below | request `predecessor_header`; `unadvertised.block` when unknown |
 *
 * A request for another chain, or for an unknown item, is dropped as Octez drops it. Answers the
 * node asked for (`Block_header`, `Predecessor_header`, `Operation`, `Operations_for_blocks`) go
 * to `onResponse` (the requester), which counts them. Unasked `Block_header`, `Operation` and
 * `Operations_for_blocks` are counted as unexpected; an unasked `Predecessor_header`, and every
 * `Protocol`, `Checkpoint` and `Protocol_branch` (the node asks none), as received responses.
 * `Current_branch` and `Current_head` are counted as
 * received advertisements and go to `onAdvertised` (the chain validator), or are counted as
 * future blocks past `maxFutureS` of drift, or as inactive chains when the chain is not active
 * for that peer, as `Deactivate` is.
 * @module
 */
import { B58, b58decode } from "../../encoding/base58.ts";
import { decodeBinary } from "../../encoding/codec.ts";
import { rawOperation } from "../../encoding/operation.ts";
import { protocolRecord } from "../../encoding/protocol.ts";
import { operationListHash } from "../../crypto/hashes.ts";
import type { ChainMessage } from "../../p2p/encoding/chain-messages.ts";
import type { BlockLocator } from "../../p2p/encoding/locator.ts";
import { emptyMempool, type Mempool } from "../../p2p/encoding/mempool.ts";
import type { ChainMessageHandler, PeerLink, RequestCounts } from "../../p2p/pool/api.ts";
import type { Block, Chain } from "../chain.ts";
import { computeLocatorHistory, type LocatorChain, MAX_LOCATOR_SIZE } from "./locator.ts";
import { operationListPath } from "./operation-path.ts";

/** Octez's `Clock_drift.max_timestamp_drift`: how far in the future an advertised head may be, in seconds. */
export const MAX_TIMESTAMP_DRIFT_S = 5;

/** What the responder reads of the node. */
export interface ResponderOptions {
  /** The node's chain. */
  readonly chain: Chain;
  /** Our peer id (the sender of our locators' seeds). */
  readonly selfPeerId: string;
  /** The mempool the node advertises with its head (Octez's `Store.Chain.mempool`). */
  readonly mempool: () => Mempool;
  /** The bytes of an operation the node propagates (Octez's operation table of the distributed DB). */
  readonly operation: (hash: string) => Uint8Array | undefined;
  /** The binary record of a protocol the node knows (Octez's protocol store). */
  readonly protocol: (hash: string) => Promise<Uint8Array | undefined>;
  /** The clock, in milliseconds (`Date.now` when absent). */
  readonly now?: () => number;
  /**
   * How far in the future an advertised head may be, in seconds ({@link MAX_TIMESTAMP_DRIFT_S}
   * when absent, Octez's rule; the sandbox, whose baker runs ahead of the clock, gives Infinity).
   */
  readonly maxFutureS?: number;
  /** A branch or head a peer advertised on a chain active for it, not too far in the future. */
  readonly onAdvertised?: (from: PeerLink, message: Extract<ChainMessage, { kind: "Current_branch" | "Current_head" }>) => void;
  /** An answer of a peer: true when the node asked for it (the requester took it), else counted unexpected. */
  readonly onResponse?: (from: PeerLink, message: ChainMessage) => boolean;
}

type Countable = keyof RequestCounts;

/**
 * Answers peers' chain requests from the node's store. `handle` resolves once the answers are
 * sent (or failed); it never rejects.
 */
export class ChainResponder {
  private readonly chain: Chain;
  private readonly selfPeerId: string;
  private readonly options: ResponderOptions;
  private readonly now: () => number;
  /** The chains each peer activated (Octez's `peer_active_chains`), by connection. */
  private readonly active = new WeakMap<PeerLink, Set<string>>();

  constructor(options: ResponderOptions) {
    this.options = options;
    this.chain = options.chain;
    this.selfPeerId = options.selfPeerId;
    this.now = options.now ?? Date.now;
  }

  /**
   * The handler to give the pool (`P2pPool.setChainMessageHandler`). It returns `handle`'s promise,
   * which the pool may ignore (it never rejects).
   */
  readonly handler: ChainMessageHandler = (from, message) => this.handle(from, message);

  /** Answers one message of `from`, and counts it. */
  async handle(from: PeerLink, message: ChainMessage): Promise<void> {
    try {
      await this.dispatch(from, message);
    } catch {
      // a message we cannot answer (a store read that failed) is dropped, as a peer's bad request
    }
  }

  private async dispatch(from: PeerLink, m: ChainMessage): Promise<void> {
    const meta = from.metadata;
    const chainId = this.chain.chainId;
    switch (m.kind) {
      case "Get_current_branch": {
        meta.requests.received.branch++;
        if (m.chain_id !== chainId) return;
        this.activate(from);
        const head = this.chain.head;
        const locator = this.locator(head, from.peerId, this.caboose());
        await this.respond(from, "branch", { kind: "Current_branch", chain_id: chainId, locator });
        return;
      }
      case "Get_current_head": {
        if (!this.isActive(from, m.chain_id)) {
          meta.inactive_chains++;
          return;
        }
        meta.requests.received.head++;
        const mempool = from.disableMempool ? emptyMempool() : this.options.mempool();
        await this.respond(from, "head", { kind: "Current_head", chain_id: chainId, header: this.chain.head.header, mempool });
        return;
      }
      case "Get_block_headers": {
        meta.requests.received.block_header++;
        for (const hash of m.hashes) {
          const b = this.chain.block(hash);
          if (b === undefined) meta.unadvertised.block++;
          else await this.respond(from, "block_header", { kind: "Block_header", header: b.header });
        }
        return;
      }
      case "Get_operations": {
        meta.requests.received.operations++;
        for (const hash of m.hashes) {
          const bytes = this.options.operation(hash);
          if (bytes === undefined) meta.unadvertised.operations++;
          else await this.respond(from, "operations", { kind: "Operation", operation: decodeBinary(rawOperation, bytes) });
        }
        return;
      }
      case "Get_protocols": {
        meta.requests.received.protocols++;
        for (const hash of m.hashes) {
          const bytes = await this.options.protocol(hash);
          if (bytes === undefined) meta.unadvertised.protocol++;
          else await this.respond(from, "protocols", { kind: "Protocol", protocol: decodeBinary(protocolRecord, bytes) });
        }
        return;
      }
      case "Get_operations_for_blocks": {
        meta.requests.received.operations_for_block++;
        for (const { hash, validation_pass: pass } of m.blocks) {
          const answer = this.operationsForBlock(hash, pass);
          if (answer !== undefined) await this.respond(from, "operations_for_block", answer);
        }
        return;
      }
      case "Get_checkpoint": {
        meta.requests.received.checkpoint++;
        if (m.chain_id !== chainId) return;
        const b = this.chain.block(this.chain.locator("checkpoint").hash);
        if (b !== undefined) await this.respond(from, "checkpoint", { kind: "Checkpoint", chain_id: chainId, header: b.header });
        return;
      }
      case "Get_protocol_branch": {
        meta.requests.received.protocol_branch++;
        if (m.chain_id !== chainId) return;
        this.activate(from);
        const locator = this.protocolLocator(m.proto_level, from.peerId);
        if (locator !== undefined) {
          await this.respond(from, "protocol_branch", { kind: "Protocol_branch", chain_id: chainId, proto_level: m.proto_level, locator });
        }
        return;
      }
      case "Get_predecessor_header": {
        meta.requests.received.predecessor_header++;
        const b = m.offset < 0 ? undefined : this.chain.block(m.hash);
        const pred = b === undefined ? undefined : this.chain.offset(b, m.offset);
        if (pred === undefined) meta.unadvertised.block++;
        else await this.respond(from, "predecessor_header", { kind: "Predecessor_header", hash: m.hash, offset: m.offset, header: pred.header });
        return;
      }
      case "Current_branch":
      case "Current_head": {
        if (!this.isActive(from, m.chain_id)) {
          meta.inactive_chains++;
          return;
        }
        const header = m.kind === "Current_branch" ? m.locator.current_head : m.header;
        if (header.timestamp > Math.floor(this.now() / 1000) + (this.options.maxFutureS ?? MAX_TIMESTAMP_DRIFT_S)) {
          meta.future_blocks_advertised++;
          return;
        }
        if (m.kind === "Current_branch") meta.advertisements.received.branch++;
        else meta.advertisements.received.head++;
        this.options.onAdvertised?.(from, m);
        return;
      }
      case "Deactivate": {
        if (!this.isActive(from, m.chain_id)) meta.inactive_chains++;
        else this.active.get(from)!.delete(m.chain_id);
        return;
      }
      case "Block_header":
      case "Operation":
      case "Operations_for_blocks":
        if (this.options.onResponse?.(from, m) !== true) meta.responses.unexpected++;
        return;
      case "Protocol":
        meta.responses.received.protocols++;
        return;
      case "Checkpoint":
        meta.responses.received.checkpoint++;
        return;
      case "Protocol_branch":
        meta.responses.received.protocol_branch++;
        return;
      case "Predecessor_header":
        if (this.options.onResponse?.(from, m) !== true) meta.responses.received.predecessor_header++;
        return;
    }
  }

  /** Sends an answer, counted as sent or failed (Octez's `update_responses` of `try_send`). */
  private async respond(to: PeerLink, kind: Countable, message: ChainMessage): Promise<void> {
    try {
      await to.send(message);
      to.metadata.responses.sent[kind]++;
    } catch {
      to.metadata.responses.failed[kind]++;
    }
  }

  private activate(peer: PeerLink): void {
    let chains = this.active.get(peer);
    if (chains === undefined) this.active.set(peer, (chains = new Set()));
    chains.add(this.chain.chainId);
  }

  /** Whether `chainId` is active for `peer` (it asked our branch). */
  isActive(peer: PeerLink, chainId: string): boolean {
    return this.active.get(peer)?.has(chainId) === true;
  }

  private caboose(): Block {
    return this.chain.block(this.chain.locator("caboose").hash) ?? this.chain.genesis;
  }

  /**
   * The locator of `top` for `peer` with `floor` as its lowest block (Octez's `compute_locator`
   * with the caboose, or `compute_locator_from_hash` with a protocol's first level): ancestors
   * are read on the main branch, none below the floor.
   */
  private locator(top: Block, peer: string, floor: Block): BlockLocator {
    const levels = new Map<string, number>([[top.hash, top.header.level]]);
    const chain: LocatorChain = {
      caboose: floor.hash,
      predecessor: (hash, distance) => {
        const level = levels.get(hash);
        if (level === undefined) return undefined;
        const target = level - distance;
        if (target < floor.header.level) return undefined;
        const b = this.chain.blockAtLevel(target);
        if (b === undefined) return undefined;
        levels.set(b.hash, target);
        return b.hash;
      },
    };
    const history = computeLocatorHistory(chain, top.hash, { sender: this.selfPeerId, receiver: peer }, MAX_LOCATOR_SIZE);
    return { current_head: top.header, history };
  }

  /**
   * Octez's `compute_protocol_locator`: the blocks of protocol level `level` on the main branch,
   * from its last one (the head if it is the head's level) down to its activation block; none
   * when the level is unknown, or is not the head's and has no successor level yet.
   */
  private protocolLocator(level: number, peer: string): BlockLocator | undefined {
    const head = this.chain.head;
    const first = this.firstOfLevel(level);
    if (first === undefined) return undefined;
    let top: Block | undefined;
    if (level === head.header.proto) top = head;
    else {
      const next = this.firstOfLevel(level + 1);
      top = next === undefined ? undefined : this.chain.blockAtLevel(next.header.level - 1);
    }
    return top === undefined ? undefined : this.locator(top, peer, first);
  }

  /** The main-branch block where protocol level `level` starts (its activation block), if any. */
  private firstOfLevel(level: number): Block | undefined {
    const head = this.chain.head;
    if (level > head.header.proto) return undefined;
    // proto levels never decrease along a branch: the first block at `level` by bisection
    let lo = this.chain.locator("caboose").level;
    let hi = head.header.level;
    const at = (l: number) => this.chain.blockAtLevel(l);
    if ((at(hi)?.header.proto ?? -1) < level) return undefined;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if ((at(mid)?.header.proto ?? -1) >= level) hi = mid;
      else lo = mid + 1;
    }
    const b = at(lo);
    return b !== undefined && b.header.proto === level ? b : undefined;
  }

  /** `Operations_for_blocks` of a block's pass, with its Merkle path; none for an unknown block or pass. */
  private operationsForBlock(hash: string, pass: number): ChainMessage | undefined {
    const b = this.chain.block(hash);
    if (b === undefined) return undefined;
    const passes = b.header.validation_pass;
    // Octez raises Invalid_argument here (its reader for that peer stops); we drop the request
    if (pass < 0 || pass >= passes) return undefined;
    const ops = this.chain.store.operations(hash) ?? [];
    const lists = Array.from({ length: passes }, (_, i) => ops[i] ?? []);
    const listHashes = this.chain.operationHashes(hash).map((hs) => operationListHash(hs.map((h) => b58decode(B58.operationHash, h))));
    while (listHashes.length < passes) listHashes.push(operationListHash([]));
    return {
      kind: "Operations_for_blocks",
      hash,
      validation_pass: pass,
      path: operationListPath(listHashes, pass),
      operations: lists[pass]!.map((bytes) => decodeBinary(rawOperation, bytes)),
    };
  }
}
