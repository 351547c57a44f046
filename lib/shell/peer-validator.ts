/**
 * The peer validator (Octez's `peer_validator.ml` with `bootstrap_pipeline.ml`): for one peer,
 * brings the node to the best head that peer showed.
 *
 * - A head whose fitness is not above ours is ignored (equal fitness never switches).
 * - A head on a known predecessor: its operations are fetched, checked against the header's
 *   `operations_hash`, and the block is validated.
 * - A head on an unknown predecessor, shown without a branch (`Current_head`): the peer is asked
 *   for its branch (`Get_current_branch`), and its locator goes the next way.
 * - A branch (`Current_branch`): the first block of the locator's history the node knows is the
 *   anchor; the headers between it and the head come by `Get_predecessor_header`, a window of
 *   {@link HEADERS_PER_WINDOW} at a time from the anchor up (many requests at once, each header
 *   linked to the one below it by its hash), and the blocks of a window are validated in order,
 *   the operations of the next ones and the next window's headers fetched meanwhile. So a long
 *   branch holds at most two windows of headers (a peer cannot fill the node's memory with a
 *   made-up branch before its first block is validated) and validation starts after one window.
 *
 * A peer that sends an invalid block, a header that does not link, or operations that do not
 * match their header is greylisted (its connection closes) and the rest of its branch dropped;
 * the invalid block is recorded under `invalid_blocks`. One target at a time: a better head
 * arriving meanwhile replaces the pending one.
 * @module
 */
import { compareFitness } from "../encoding/fitness.ts";
import { encodeBinary } from "../encoding/codec.ts";
import type { RawBlockHeader } from "../encoding/block-header.ts";
import { rawOperation, type RawOperation } from "../encoding/operation.ts";
import { TezosError } from "../errors/registry.ts";
import type { PeerLink } from "../p2p/pool/api.ts";
import type { Block, Chain } from "./chain.ts";
import { hashOperation, operationsHashOf } from "./operations.ts";
import type { BlockValidator } from "./validator.ts";
import { type FetchedHeader, fetchedHeader, type Requester } from "./distributed-db/requester.ts";
import type { Worker } from "./worker.ts";
import type { PeerValidatorEvent, PeerValidatorRequest } from "./worker-states.ts";

/** How many headers are asked at once while bootstrapping, and how many blocks' operations ahead. */
export const HEADERS_IN_FLIGHT = 64;
export const BLOCKS_AHEAD = 16;
/** Headers of a branch fetched and checked together; the next window is fetched while one is validated. */
export const HEADERS_PER_WINDOW = 256;

/** What a peer validator uses of the node. */
export interface PeerValidatorContext {
  readonly chain: Chain;
  readonly validator: BlockValidator;
  readonly requester: Requester;
  /** One line for the operator (a peer greylisted, a branch dropped). */
  readonly log: (line: string) => void;
  /** A block from this peer was validated and stored; the head was `headBefore` before it. */
  readonly onValidated?: (peer: PeerLink, block: Block, headBefore: string) => void;
  /** The peer validator's record for `/workers` (each target reached is one of its requests). */
  readonly worker?: Worker<PeerValidatorRequest, PeerValidatorEvent>;
}

interface Target {
  readonly head: FetchedHeader;
  /** The locator's history (nearest first), or none for a bare head. */
  readonly history: readonly string[] | undefined;
}

/** Why a peer's data was refused: the peer is greylisted. */
class Misbehaviour extends Error {}

/** Keeps the node up with one peer's best head. */
export class PeerValidator {
  readonly peer: PeerLink;
  private readonly ctx: PeerValidatorContext;
  private target: Target | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  /** The last head the peer showed. */
  lastAdvertisedHead: string | undefined;
  /** Headers fetched and blocks whose operations are fetched, not validated yet (Octez's bootstrap pipeline). */
  readonly pipeline: { fetched_headers: number; fetched_blocks: number } = { fetched_headers: 0, fetched_blocks: 0 };

  constructor(peer: PeerLink, ctx: PeerValidatorContext) {
    this.peer = peer;
    this.ctx = ctx;
  }

  /** The peer showed its head (`Current_head`). */
  notifyHead(header: RawBlockHeader): void {
    this.want({ head: fetchedHeader(header), history: undefined });
  }

  /** The peer showed its branch (`Current_branch`). */
  notifyBranch(header: RawBlockHeader, history: readonly string[]): void {
    this.want({ head: fetchedHeader(header), history });
  }

  /** Resolves once the work under way is over. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Stops after the current step. */
  close(): void {
    this.closed = true;
    this.target = undefined;
  }

  private want(t: Target): void {
    if (this.closed) return;
    this.lastAdvertisedHead = t.head.hash;
    if (this.ctx.chain.block(t.head.hash) !== undefined) return;
    if (this.target !== undefined && compareFitness(t.head.header.fitness, this.target.head.header.fitness) < 0) return;
    this.target = t;
    this.running ??= this.loop().finally(() => (this.running = undefined));
  }

  private async loop(): Promise<void> {
    while (this.target !== undefined && !this.closed) {
      const t = this.target;
      this.target = undefined;
      try {
        const w = this.ctx.worker;
        if (w === undefined || !w.alive) await this.reach(t);
        else {
          const request: PeerValidatorRequest = t.history === undefined ? { kind: "new_head", block: t.head.hash } : { kind: "new_branch", block: t.head.hash, locators: t.history.length };
          await w.treat(w.pushed(request), () => this.reach(t));
        }
      } catch (e) {
        if (e instanceof Misbehaviour) {
          this.closed = true;
          this.ctx.log(`peer ${this.peer.peerId}: ${e.message}; greylisted`);
          await this.peer.greylist();
        } else if (!this.closed) {
          this.ctx.log(`peer ${this.peer.peerId}: could not fetch its head ${t.head.hash}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    }
  }

  private async reach(t: Target): Promise<void> {
    const { chain } = this.ctx;
    const head = t.head;
    if (chain.block(head.hash) !== undefined) return;
    if (chain.store.invalidBlock(head.hash) !== undefined) throw new Misbehaviour(`it advertised ${head.hash}, known invalid`);
    if (compareFitness(head.header.fitness, chain.head.header.fitness) <= 0) {
      this.peer.metadata.old_heads++; // Octez's `Old_heads`: a head no better than ours
      return;
    }
    if (chain.block(head.header.predecessor) !== undefined) return this.validate([head]);
    if (t.history === undefined) {
      // a head on an unknown predecessor: its branch tells where it joins ours
      await this.peer.send({ kind: "Get_current_branch", chain_id: chain.chainId }).catch(() => {});
      this.peer.metadata.requests.sent.branch++;
      return;
    }
    const anchor = t.history.map((h) => chain.block(h)).find((b) => b !== undefined);
    if (anchor === undefined) return; // nothing in common down to its caboose: another chain
    if (anchor.header.level >= head.header.level) throw new Misbehaviour(`its locator's history holds ${anchor.hash} at level ${anchor.header.level}, not below its head`);
    await this.validateBranch(head, anchor);
  }

  /**
   * Validates the blocks from the one above `anchor` up to `head`, a window of headers at a time
   * (oldest first), the next window fetched while one is validated. Each header must link to the
   * one below it (its predecessor's hash, the level above); the blocks of the windows below a
   * header that does not are kept, being valid.
   */
  private async validateBranch(head: FetchedHeader, anchor: Block): Promise<void> {
    const top = head.header.level - anchor.header.level - 1; // the offset of the oldest header below the head
    const window = (from: number) => {
      const w = this.window(head, from, Math.min(HEADERS_PER_WINDOW, from + 1));
      w.catch(() => {}); // awaited in turn below
      return w;
    };
    let below = { hash: anchor.hash, level: anchor.header.level };
    let next: Promise<FetchedHeader[]> | undefined = window(top);
    let left = top + 1; // headers still to fetch and validate, the head included
    while (next !== undefined && !this.closed) {
      const headers = await next;
      left -= headers.length;
      next = left > 0 ? window(left - 1) : undefined;
      for (const h of headers) {
        if (h.header.predecessor !== below.hash || h.header.level !== below.level + 1) {
          throw new Misbehaviour(`its header ${head.header.level - h.header.level} below ${head.hash} does not link to the one below it`);
        }
        below = { hash: h.hash, level: h.header.level };
      }
      await this.validate(headers);
    }
  }

  /** The headers at offsets `from` down to `from - count + 1` below `head` (offset 0: the head itself), oldest first. */
  private async window(head: FetchedHeader, from: number, count: number): Promise<FetchedHeader[]> {
    const out: FetchedHeader[] = new Array(count);
    let i = 0;
    const worker = async () => {
      while (i < count && !this.closed) {
        const at = i++;
        const offset = from - at;
        out[at] = offset === 0 ? head : await this.ctx.requester.predecessorHeader(this.peer, head.hash, offset);
      }
    };
    await Promise.all(Array.from({ length: Math.min(HEADERS_IN_FLIGHT, count) }, worker));
    return this.closed ? [] : out;
  }

  /** Validates `headers` in order (oldest first), fetching the operations of the next ones meanwhile. */
  private async validate(headers: readonly FetchedHeader[]): Promise<void> {
    const { chain, validator, requester } = this.ctx;
    const ops: (Promise<RawOperation[][]> | undefined)[] = new Array(headers.length);
    let fetching = 0;
    const fetch = (i: number) => {
      const h = headers[i];
      if (h === undefined || ops[i] !== undefined || chain.block(h.hash) !== undefined) return;
      const passes = h.header.validation_pass;
      ops[i] = passes === 0 ? Promise.resolve([]) : requester.blockOperations(this.peer, h.hash, passes);
      ops[i]!.catch(() => {}); // awaited in turn below
      fetching++;
    };
    for (let i = 0; i < headers.length && !this.closed; i++) {
      for (let j = i; j < Math.min(headers.length, i + BLOCKS_AHEAD); j++) fetch(j);
      const h = headers[i]!;
      this.pipeline.fetched_headers = headers.length - i - 1;
      if (chain.block(h.hash) !== undefined) {
        // known already (another peer's validator may have taken it meanwhile)
        if (ops[i] !== undefined) fetching--;
        ops[i] = undefined;
        continue;
      }
      const lists = (await ops[i]!).map((pass) => pass.map((op) => encodeBinary(rawOperation, op)));
      ops[i] = undefined;
      this.pipeline.fetched_blocks = --fetching;
      if (operationsHashOf(lists.map((pass) => pass.map(hashOperation))) !== h.header.operations_hash) {
        throw new Misbehaviour(`the operations it sent for ${h.hash} do not match its header`);
      }
      const headBefore = chain.head.hash;
      try {
        await validator.inject(h.bytes, lists, { force: true, peer: this.peer.peerId });
      } catch (e) {
        if (e instanceof TezosError) throw new Misbehaviour(`its block ${h.hash} is invalid (${e.trace[0]?.id ?? "error"})`);
        throw e;
      }
      const b = chain.block(h.hash);
      if (b === undefined) continue;
      this.peer.metadata.valid_blocks++;
      this.ctx.onValidated?.(this.peer, b, headBefore);
    }
  }
}
