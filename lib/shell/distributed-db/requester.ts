/**
 * What the node asks its peers (Octez's `distributed_db_requester.ml`, one table per kind): block
 * headers, predecessor headers, the operations of a block's validation passes, and operations.
 * Each request is a promise that the matching answer resolves; it rejects after a timeout, or
 * when the peer it was sent to goes away. Answers nobody waits for are left to the caller to
 * count as unexpected.
 *
 * @example
 * ```ts
 * const requester = new Requester();
 * const [head] = await requester.blockHeaders(peer, [hash]);   // peer: a PeerLink
 * // the pool's handler passes answers on: requester.receive(from, message) → true when awaited
 * ```
 * @module
 */
import { B58, b58encode } from "../../encoding/base58.ts";
import { encodeBinary } from "../../encoding/codec.ts";
import { rawBlockHeader, type RawBlockHeader } from "../../encoding/block-header.ts";
import { rawOperation, type RawOperation } from "../../encoding/operation.ts";
import { blockHash, operationHash } from "../../crypto/hashes.ts";
import type { ChainMessage } from "../../p2p/encoding/chain-messages.ts";
import { MAX_HASHES_PER_REQUEST } from "../../p2p/encoding/bounds.ts";
import type { PeerLink, RequestCounts } from "../../p2p/pool/api.ts";

/** A header as received: its hash, its bytes and its fields. */
export interface FetchedHeader {
  readonly hash: string;
  readonly bytes: Uint8Array;
  readonly header: RawBlockHeader;
}

/** The request of a peer that did not answer in time (Octez's `Distributed_db.Timeout`). */
export class RequestTimeout extends Error {
  constructor(what: string, peerId: string, ms: number) {
    super(`${peerId} did not send ${what} within ${ms} ms`);
    this.name = "RequestTimeout";
  }
}

/** The request of a peer whose connection ended before it answered. */
export class PeerGone extends Error {
  constructor(peerId: string) {
    super(`the connection to ${peerId} ended`);
    this.name = "PeerGone";
  }
}

/** How long the requester waits for each kind of answer, in milliseconds. */
export interface RequesterTimeouts {
  /** Octez's `block_header_timeout` is 60 s; a loopback sandbox gives up sooner by default. */
  readonly header: number;
  readonly operations: number;
}

/** The default timeouts: 15 s for headers and operations. */
export const DEFAULT_REQUEST_TIMEOUTS: RequesterTimeouts = { header: 15_000, operations: 15_000 };

interface Waiter<T> {
  readonly peer: PeerLink;
  readonly resolve: (value: T) => void;
  readonly reject: (error: unknown) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

/** One requester table (Octez's `Raw_block_header`, `Raw_operations`, ...): waiters by key. */
class Table<T> {
  readonly waiting = new Map<string, Waiter<T>[]>();

  wait(key: string, peer: PeerLink, ms: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => this.drop(key, waiter, new RequestTimeout(what, peer.peerId, ms)), ms);
      const waiter: Waiter<T> = { peer, resolve, reject, timer };
      const list = this.waiting.get(key);
      if (list === undefined) this.waiting.set(key, [waiter]);
      else list.push(waiter);
    });
  }

  /** Resolves every waiter of `key`; whether there was one. */
  settle(key: string, value: T): boolean {
    const list = this.waiting.get(key);
    if (list === undefined) return false;
    this.waiting.delete(key);
    for (const w of list) {
      clearTimeout(w.timer);
      w.resolve(value);
    }
    return true;
  }

  private drop(key: string, waiter: Waiter<T>, error: unknown): void {
    const list = this.waiting.get(key);
    if (list === undefined) return;
    const i = list.indexOf(waiter);
    if (i < 0) return;
    list.splice(i, 1);
    if (list.length === 0) this.waiting.delete(key);
    clearTimeout(waiter.timer);
    waiter.reject(error);
  }

  /** Rejects the waiters of requests sent to `peer`. */
  peerGone(peer: PeerLink): void {
    for (const [key, list] of [...this.waiting]) for (const w of [...list]) if (w.peer === peer) this.drop(key, w, new PeerGone(peer.peerId));
  }

  /** Rejects every waiter (the node closes). */
  clear(error: unknown): void {
    for (const [key, list] of [...this.waiting]) for (const w of [...list]) this.drop(key, w, error);
  }
}

/** Sizes of the requester's tables for `/workers/chain_validators/<chain>/ddb`. */
export interface RequesterStats {
  readonly blockHeaders: number;
  readonly operations: number;
  readonly operation: number;
}

/** Asks peers for chain data and matches their answers to the requests. */
export class Requester {
  private readonly headers = new Table<FetchedHeader>();
  private readonly predecessors = new Table<FetchedHeader>();
  private readonly passes = new Table<RawOperation[]>();
  private readonly ops = new Table<Uint8Array>();
  private readonly timeouts: RequesterTimeouts;

  constructor(timeouts: Partial<RequesterTimeouts> = {}) {
    this.timeouts = { ...DEFAULT_REQUEST_TIMEOUTS, ...timeouts };
  }

  /** The headers of `hashes` from `peer`, in their order (`Get_block_headers`, ten hashes a message). */
  blockHeaders(peer: PeerLink, hashes: readonly string[]): Promise<FetchedHeader[]> {
    const answers = hashes.map((h) => this.headers.wait(h, peer, this.timeouts.header, `the header of ${h}`));
    for (let i = 0; i < hashes.length; i += MAX_HASHES_PER_REQUEST) {
      void this.send(peer, "block_header", { kind: "Get_block_headers", hashes: hashes.slice(i, i + MAX_HASHES_PER_REQUEST) });
    }
    return Promise.all(answers);
  }

  /** The header `offset` blocks below `hash` on `peer`'s chain (`Get_predecessor_header`). */
  predecessorHeader(peer: PeerLink, hash: string, offset: number): Promise<FetchedHeader> {
    const answer = this.predecessors.wait(`${hash}/${offset}`, peer, this.timeouts.header, `the header ${offset} below ${hash}`);
    void this.send(peer, "predecessor_header", { kind: "Get_predecessor_header", hash, offset });
    return answer;
  }

  /** The operations of each validation pass of a block (`Get_operations_for_blocks`). */
  blockOperations(peer: PeerLink, hash: string, passes: number): Promise<RawOperation[][]> {
    const keys = Array.from({ length: passes }, (_, pass) => ({ hash, validation_pass: pass }));
    const answers = keys.map((k) => this.passes.wait(`${hash}/${k.validation_pass}`, peer, this.timeouts.operations, `pass ${k.validation_pass} of ${hash}`));
    for (let i = 0; i < keys.length; i += MAX_HASHES_PER_REQUEST) {
      void this.send(peer, "operations_for_block", { kind: "Get_operations_for_blocks", blocks: keys.slice(i, i + MAX_HASHES_PER_REQUEST) });
    }
    return Promise.all(answers);
  }

  /** The bytes of operations (`Get_operations`); `undefined` for each the peer did not send in time. */
  operations(peer: PeerLink, hashes: readonly string[]): Promise<(Uint8Array | undefined)[]> {
    const answers = hashes.map((h) => this.ops.wait(h, peer, this.timeouts.operations, `operation ${h}`).catch(() => undefined));
    for (let i = 0; i < hashes.length; i += MAX_HASHES_PER_REQUEST) {
      void this.send(peer, "operations", { kind: "Get_operations", hashes: hashes.slice(i, i + MAX_HASHES_PER_REQUEST) });
    }
    return Promise.all(answers);
  }

  /** Whether an operation is being asked for. */
  isFetchingOperation(hash: string): boolean {
    return this.ops.waiting.has(hash);
  }

  /**
   * Takes an answer: true when a request waited for it (counted as a received response), false
   * when nobody asked (the caller counts it as unexpected). The Merkle path of
   * `Operations_for_blocks` is not trusted here: the block's `operations_hash` is checked once
   * every pass is in.
   */
  receive(from: PeerLink, m: ChainMessage): boolean {
    const received = from.metadata.responses.received;
    switch (m.kind) {
      case "Block_header": {
        const h = fetchedHeader(m.header);
        return this.headers.settle(h.hash, h) && count(received, "block_header");
      }
      case "Predecessor_header":
        return this.predecessors.settle(`${m.hash}/${m.offset}`, fetchedHeader(m.header)) && count(received, "predecessor_header");
      case "Operations_for_blocks":
        return this.passes.settle(`${m.hash}/${m.validation_pass}`, m.operations) && count(received, "operations_for_block");
      case "Operation": {
        const bytes = encodeBinary(rawOperation, m.operation);
        return this.ops.settle(b58encode(B58.operationHash, operationHash(bytes)), bytes) && count(received, "operations");
      }
      default:
        return false;
    }
  }

  /** Rejects what was asked of a peer whose connection ended. */
  peerGone(peer: PeerLink): void {
    for (const t of [this.headers, this.predecessors, this.passes, this.ops]) t.peerGone(peer);
  }

  /** Rejects everything still asked (the node closes). */
  close(): void {
    const error = new Error("the node is closing");
    for (const t of [this.headers, this.predecessors, this.passes, this.ops]) t.clear(error);
  }

  /** How many items each table waits for. */
  stats(): RequesterStats {
    return { blockHeaders: this.headers.waiting.size + this.predecessors.waiting.size, operations: this.passes.waiting.size, operation: this.ops.waiting.size };
  }

  private async send(peer: PeerLink, kind: keyof RequestCounts, message: ChainMessage): Promise<void> {
    try {
      await peer.send(message);
      peer.metadata.requests.sent[kind]++;
    } catch {
      peer.metadata.requests.failed[kind]++;
    }
  }
}

/** A header with its bytes and hash. */
export function fetchedHeader(header: RawBlockHeader): FetchedHeader {
  const bytes = encodeBinary(rawBlockHeader, header);
  return { hash: b58encode(B58.blockHash, blockHash(bytes)), bytes, header };
}

function count(counts: RequestCounts, kind: keyof RequestCounts): true {
  counts[kind]++;
  return true;
}
