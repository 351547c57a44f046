/**
 * The prevalidator of the main chain (Octez `prevalidator.ml`): keeps a validation state on the
 * head (a block under construction without protocol data, Octez's partial construction) and
 * classifies each operation it is given:
 *
 * - `applied`: the protocol applied it on the current state, which then includes it;
 * - `refused` (a permanent error), `branch_refused` (a branch error), `branch_delayed` (a
 *   temporary error), `outdated` (the filter found it too old): kept with their errors;
 * - `unprocessed`: waiting to be classified.
 *
 * Injection follows Octez's `on_inject`: an operation already known (classified, pending, banned,
 * or included in a live block) is answered with its hash and changes nothing; an unparsable one,
 * one branched on a block that is not live, and one the protocol does not apply are answered with
 * a `failure` and change nothing either. A forced (private) injection skips the branch check and
 * classifies the operation whatever the outcome.
 *
 * On each new head the validation state moves to it (Octez `on_flush`): operations included in the
 * new branch leave the mempool, those of blocks that left the main branch come back, those whose
 * branch is no longer live are dropped, applied and branch delayed ones (and branch refused ones
 * after a branch switch) go through the pre-filter and wait as pending, then are classified again
 * in arrival order, {@link OPERATIONS_BATCH_SIZE} per turn so that injections, RPCs and the baker
 * go on meanwhile; refused and outdated ones stay (at most `maxRefusedOperations` per class).
 * Every monitor stream ends then, as Octez's do (clients reconnect and get the new mempool).
 *
 * Each operation is applied on a fork of the validation state, kept only when the operation is
 * applied: a failure leaves the state as it was, and nothing is applied twice on one head. An
 * injection is classified after the operations already pending, which arrived before it.
 * All requests (injections, heads, bans, batches) run one at a time, as in Octez's worker; its
 * record (`worker`) shows them as Octez's requests: `flush` for a new head, `inject`, `arrived`
 * for an operation a peer sent, `leftover` for a batch of pending operations, `ban`. The reads
 * that wait their turn (the monitor's start, the baker's `pending`, `idle`, `synced`) are not
 * requests in Octez and are not shown.
 *
 * @example
 * ```ts
 * const pv = new Prevalidator({ chain, validator, protocols, plugins: (h) => plugins.get(h) });
 * await pv.start();
 * const hash = await pv.inject(bytes); // throws a TezosError when not applied
 * pv.view().applied; // [{ op, receipt }]
 * await pv.stop();
 * ```
 * @module
 */
import type { Block, Chain } from "./chain.ts";
import { DecodeError } from "../encoding/codec.ts";
import type { TraceItem } from "../errors/registry.ts";
import { traceOf } from "../errors/core.ts";
import { B58, b58decode } from "../encoding/base58.ts";
import { type AppliedEntry, type ErrorEntry, MempoolClasses, type MempoolOperation } from "./mempool-classification.ts";
import { classOfTrace, endorsementBranchNotLive, failWith, oversizedOperation, parseError, printTrace } from "./mempool-errors.ts";
import type { Classification, ErrorClass, MempoolPlugin, PluginLookup, Priority } from "./mempool-plugin.ts";
import { shellOperation } from "./operations.ts";
import type { Protocol, SignatureWaived, ValidationState } from "./protocol.ts";
import type { BlockValidator, ProtocolLookup } from "./validator.ts";
import { Watcher } from "./watcher.ts";
import { checkout } from "../store/context/mod.ts";
import { type Ticket, Worker } from "./worker.ts";
import type { PrevalidatorRequest } from "./worker-states.ts";

/** Octez's default `max_refused_operations`. */
export const DEFAULT_MAX_REFUSED_OPERATIONS = 1000;

/**
 * Octez's default `operations_batch_size`: pending operations classified in one turn of the
 * worker; between turns, injections, RPCs and the baker go on.
 */
export const OPERATIONS_BATCH_SIZE = 50;

/** Options of the {@link Prevalidator}. */
export interface PrevalidatorOptions {
  readonly chain: Chain;
  /** For the live blocks and live operations of a head. */
  readonly validator: Pick<BlockValidator, "liveBlocks" | "liveOperations">;
  /** The protocol implementations, by hash. */
  readonly protocols: ProtocolLookup;
  /** The mempool plugins, by protocol hash. */
  readonly plugins: PluginLookup;
  /** Wall clock in milliseconds (`Date.now` by default): the timestamp of the block under construction. */
  readonly now?: () => number;
  /** Size of each error class (Octez's `max_refused_operations`, 1000 by default). */
  readonly maxRefusedOperations?: number;
  /** Called each time an operation is classified as applied (the sandbox baker bakes on it). */
  readonly onApplied?: (op: MempoolOperation) => void;
  /**
   * Which operations the protocol applies with a wrong signature (the sandbox's impersonation,
   * asked at each application); none when absent. When its answers change, {@link Prevalidator.reclassify}.
   */
  readonly signatureWaived?: SignatureWaived;
}

/** One classification, as the monitor streams it. */
export interface MempoolEvent {
  readonly classification: Classification;
  readonly op: MempoolOperation;
  /** The errors, for every class but `applied`. */
  readonly trace?: readonly TraceItem[];
}

/** Which classes a monitor follows (the query of `monitor_operations`). */
export interface MonitorFilter {
  readonly applied: boolean;
  readonly refused: boolean;
  readonly outdated: boolean;
  readonly branch_refused: boolean;
  readonly branch_delayed: boolean;
}

/** The mempool's content at one moment (what `pending_operations` shows). */
export interface MempoolView {
  /** The protocol of the operations (the head's next protocol). */
  readonly protocol: string;
  /** Applied operations, in the order they were applied. */
  readonly applied: readonly AppliedEntry[];
  /** Error classes, each sorted by operation hash (Octez's maps). */
  readonly refused: readonly ErrorEntry[];
  readonly outdated: readonly ErrorEntry[];
  readonly branch_refused: readonly ErrorEntry[];
  readonly branch_delayed: readonly ErrorEntry[];
  /** Pending operations, sorted by hash. */
  readonly unprocessed: readonly MempoolOperation[];
}

/** Options of {@link Prevalidator.pending}. */
export interface PendingOptions {
  /** Delegates whose endorsements the caller makes itself (they are left out). */
  readonly excludeEndorsers?: ReadonlySet<string>;
}

interface Pending {
  readonly op: MempoolOperation;
  readonly priority: Priority;
}

/** The validation state on one head, with the protocol and plugin of its next block. */
interface HeadState {
  readonly head: Block;
  readonly timestamp: number;
  readonly liveBlocks: Set<string>;
  readonly liveOperations: Set<string>;
  readonly protocol: Protocol | undefined;
  readonly plugin: MempoolPlugin | undefined;
  /** The block under construction with every applied operation; replaced by each new application. */
  vs: ValidationState | undefined;
}

const PRIORITY_RANK: Record<Priority, number> = { high: 0, medium: 1, low: 2 };

const compareHash = (a: { hash: string }, b: { hash: string }) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0);

/** The main chain's prevalidator (see the module documentation). */
export class Prevalidator {
  private readonly chain: Chain;
  private readonly validator: PrevalidatorOptions["validator"];
  private readonly protocols: ProtocolLookup;
  private readonly plugins: PluginLookup;
  private readonly now: () => number;
  private readonly onApplied: ((op: MempoolOperation) => void) | undefined;
  private readonly signatureWaived: SignatureWaived | undefined;
  private readonly classes: MempoolClasses;
  private readonly pendingOps = new Map<string, Pending>();
  private readonly banned = new Set<string>();
  private stream = new Watcher<MempoolEvent>();
  private state: HeadState | undefined;
  private config: unknown;
  private configPlugin: MempoolPlugin | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private heads: AsyncIterableIterator<Block> | undefined;
  private following: Promise<void> | undefined;
  private drainTimer: ReturnType<typeof setTimeout> | undefined;
  private seq = 0;
  private stopped = false;
  /** The worker record of the requests (a new one at each start after a stop). */
  worker: Worker<PrevalidatorRequest, never>;

  constructor(options: PrevalidatorOptions) {
    if (options === null || typeof options !== "object") throw new TypeError("Prevalidator: options must be an object");
    if (options.chain === undefined || options.validator === undefined) throw new TypeError("Prevalidator: chain and validator are required");
    if (typeof options.protocols !== "function" || typeof options.plugins !== "function") {
      throw new TypeError("Prevalidator: protocols and plugins must be lookup functions");
    }
    const limit = options.maxRefusedOperations ?? DEFAULT_MAX_REFUSED_OPERATIONS;
    if (!Number.isInteger(limit) || limit <= 0) throw new RangeError(`Prevalidator: maxRefusedOperations must be a positive integer, got ${limit}`);
    this.chain = options.chain;
    this.validator = options.validator;
    this.protocols = options.protocols;
    this.plugins = options.plugins;
    this.now = options.now ?? Date.now;
    this.onApplied = options.onApplied;
    this.signatureWaived = options.signatureWaived;
    this.classes = new MempoolClasses(limit);
    this.worker = this.newWorker();
  }

  private newWorker(): Worker<PrevalidatorRequest, never> {
    return new Worker({ name: { base: "prevalidator", name: this.chain.chainId }, now: this.now });
  }

  /** Builds the validation state on the current head and follows the chain's heads. */
  async start(): Promise<void> {
    if (this.heads !== undefined) return;
    this.stopped = false;
    if (this.worker.status.phase !== "launching") this.worker = this.newWorker();
    this.heads = this.chain.heads.subscribe();
    await this.run(() => this.setHead(this.chain.head));
    this.worker.started();
    this.following = this.follow(this.heads);
  }

  /** Stops following heads, waits for the request in progress, and ends the monitor streams. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.drainTimer !== undefined) clearTimeout(this.drainTimer);
    this.drainTimer = undefined;
    await this.heads?.return?.();
    this.heads = undefined;
    await this.following;
    await this.queue.catch(() => {});
    await this.worker.close();
    this.stream.close();
  }

  private async follow(heads: AsyncIterableIterator<Block>): Promise<void> {
    let previous = this.state?.head.hash;
    for await (const head of heads) {
      if (this.stopped) break;
      // shown as the head announced; the flush moves to the chain's head of the moment
      const event = head.header.predecessor === previous ? "increment" : "branch";
      previous = head.hash;
      await this.run(async () => {
        if (this.state?.head.hash !== this.chain.head.hash) await this.flush(this.chain.head, true);
      }, { kind: "flush", block: head.hash, event }).catch(() => {});
    }
  }

  /**
   * Runs `job` after every earlier request; a failure does not block later ones. With `request`,
   * the job is that request of the worker record (pending until its turn, then current).
   */
  private run<T>(job: () => Promise<T>, request?: PrevalidatorRequest): Promise<T> {
    let ticket: Ticket<PrevalidatorRequest> | undefined;
    try {
      ticket = request === undefined ? undefined : this.worker.pushed(request);
    } catch (e) {
      return Promise.reject(e); // worker.closed
    }
    const worker = this.worker;
    const p = this.queue.then(() => (ticket === undefined ? job() : worker.treat(ticket, job)));
    this.queue = p.catch(() => {});
    return p;
  }

  /** The head the validation state is built on. */
  get head(): Block | undefined {
    return this.state?.head;
  }

  /** The plugin of the head's next protocol, if the node has one. */
  get plugin(): MempoolPlugin | undefined {
    return this.state?.plugin;
  }

  // ---- injection -------------------------------------------------------------------------

  /**
   * Injects an operation (its bytes: branch then protocol data) and resolves to its hash once it
   * is applied. Throws a TezosError (a `failure`, as Octez) when it cannot be parsed, is
   * branched on a block that is not live, or is not applied; the mempool is unchanged then.
   * With `force` (Octez's private injection), it is classified whatever the outcome.
   */
  inject(bytes: Uint8Array, options: { force?: boolean } = {}): Promise<string> {
    if (!(bytes instanceof Uint8Array)) return Promise.reject(new TypeError("inject: bytes must be a Uint8Array"));
    let shell: ReturnType<typeof shellOperation>;
    try {
      shell = shellOperation(bytes);
    } catch {
      return Promise.reject(failWith("Can't parse the operation"));
    }
    const copy = bytes.slice();
    // checked ahead, while earlier injections wait their turn (WebCrypto works beside them)
    const prepared = this.state?.vs?.prepare?.({ ...shell, proto: copy.subarray(32) });
    return this.run(
      async () => {
        await prepared;
        await this.onInject(copy, { ...shell, proto: copy.subarray(32) }, options.force === true);
        return shell.hash;
      },
      { kind: "inject", operation: { branch: shell.branch, data: copy.subarray(32) } },
    );
  }

  /**
   * An operation a peer sent (Octez `on_arrived`): unless already known, or branched on a block
   * that is not live, or unparsable (dropped, as Octez does), it goes through the pre-filter and
   * waits as pending, classified in the background; nothing is answered to the peer.
   */
  arrived(bytes: Uint8Array): void {
    let shell: ReturnType<typeof shellOperation>;
    try {
      shell = shellOperation(bytes);
    } catch {
      return;
    }
    const copy = bytes.slice();
    void this.run(async () => {
      const s = this.state;
      if (s?.plugin === undefined || this.alreadyHandled(shell.hash) || !s.liveBlocks.has(shell.branch)) return;
      let op: MempoolOperation;
      try {
        op = this.parse(copy, { ...shell, proto: copy.subarray(32) });
      } catch {
        return;
      }
      const pre = s.plugin.preFilter(this.config, { data: op.data, branch: op.shell.branch, size: op.size }, { predecessor: s.head.hash, level: s.head.header.level + 1 });
      if (pre.passed) this.pendingOps.set(op.hash, { op, priority: pre.priority });
      else this.record({ classification: pre.class, op, trace: pre.trace });
      this.drain();
    }, { kind: "arrived", operation_hash: shell.hash, operation: { branch: shell.branch, data: copy.subarray(32) } }).catch(() => {});
  }

  /** Whether the mempool knows an operation: classified, pending, banned, or in a live block. */
  knows(hash: string): boolean {
    return this.alreadyHandled(hash);
  }

  private alreadyHandled(hash: string): boolean {
    const s = this.state;
    return (
      this.banned.has(hash) ||
      this.pendingOps.has(hash) ||
      (s !== undefined && s.liveOperations.has(hash)) ||
      this.classes.classOf(hash) !== undefined
    );
  }

  private parse(bytes: Uint8Array, shell: MempoolOperation["shell"]): MempoolOperation {
    const s = this.state;
    const max = s?.protocol?.maxOperationDataLength;
    if (max !== undefined && bytes.length > max) throw oversizedOperation.error({ size: bytes.length, max_size: max });
    if (s?.plugin === undefined) throw parseError.error(undefined);
    let parsed;
    try {
      parsed = s.plugin.parse(bytes, shell);
    } catch {
      throw parseError.error(undefined);
    }
    return { hash: shell.hash, bytes, shell, data: parsed.data, size: parsed.size, seq: this.seq++ };
  }

  private async onInject(bytes: Uint8Array, shell: MempoolOperation["shell"], force: boolean): Promise<void> {
    if (this.alreadyHandled(shell.hash)) return;
    let op: MempoolOperation;
    try {
      op = this.parse(bytes, shell);
    } catch (e) {
      throw failWith(`Invalid operation ${shell.hash}: ${printTrace(traceOf(e))}.`, traceOf(e));
    }
    if (force) {
      await this.catchUp();
      this.record(await this.classify(op));
      return;
    }
    if (!this.state!.liveBlocks.has(shell.branch)) {
      throw failWith(`Operation ${shell.hash} is branched on a block ${shell.branch} which is too old`);
    }
    await this.catchUp();
    const outcome = await this.classify(op);
    if (outcome.classification !== "applied") {
      throw failWith(`Error while applying operation ${op.hash}:\n${printTrace(outcome.trace ?? [])}`, outcome.trace);
    }
    this.record(outcome);
  }

  // ---- classification --------------------------------------------------------------------

  /**
   * Applies `op` on a fork of the validation state, which replaces the state only when the
   * operation is applied and passes the post-filter (Octez's `Prevalidation.apply_operation`): an
   * operation that fails leaves the state as it was, so nothing is ever applied again.
   */
  private async classify(op: MempoolOperation): Promise<MempoolEvent & { receipt?: Uint8Array }> {
    const s = this.state!;
    if (s.liveOperations.has(op.hash)) return { classification: "outdated", op, trace: [endorsementBranchNotLive.create(undefined)] };
    if (s.vs === undefined || s.plugin === undefined) return { classification: "branch_delayed", op, trace: traceOf(new Error("No validation state")) };
    const next = s.vs.fork();
    let receipt: Uint8Array;
    try {
      receipt = await next.applyOperation(op.shell);
    } catch (e) {
      if (e instanceof DecodeError) return { classification: "refused", op, trace: [parseError.create(undefined)] };
      const trace = traceOf(e);
      return { classification: classOfTrace(trace), op, trace };
    }
    const post = s.plugin.postFilter(this.config, op.data, receipt);
    if (!post.passed) return { classification: "refused", op, trace: post.trace };
    s.vs = next;
    return { classification: "applied", op, receipt };
  }

  /** Adds a classified operation to its class and tells the monitors (and the baker). */
  private record(e: MempoolEvent & { receipt?: Uint8Array }): void {
    if (e.classification === "applied") this.classes.addApplied(e.op, e.receipt!);
    else this.classes.addError(e.classification, e.op, e.trace ?? []);
    this.stream.notify(e.classification === "applied" ? { classification: "applied", op: e.op } : { classification: e.classification, op: e.op, trace: e.trace ?? [] });
    if (e.classification === "applied") this.onApplied?.(e.op);
  }

  /** Classifies at most `limit` pending operations, by priority then arrival. */
  private async processPending(limit: number): Promise<void> {
    if (this.pendingOps.size === 0) return;
    const todo = [...this.pendingOps.values()].sort(
      (a, b) => PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] || a.op.seq - b.op.seq,
    );
    for (const { op } of todo.slice(0, limit)) {
      if (!this.pendingOps.delete(op.hash)) continue;
      this.record(await this.classify(op));
    }
  }

  /**
   * Classifies every pending operation before a new one, since they arrived first (a client's
   * next counter waits for its previous operation, classified again after a new head): a batch at
   * a time, the event loop turning between batches so that RPCs go on.
   */
  private async catchUp(): Promise<void> {
    while (this.pendingOps.size > 0 && !this.stopped) {
      await this.processPending(OPERATIONS_BATCH_SIZE);
      if (this.pendingOps.size > 0) await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  /**
   * Classifies the pending operations in the background, {@link OPERATIONS_BATCH_SIZE} at a
   * time, each batch a request of its own after a turn of the event loop (Octez's worker goes
   * through its pending operations the same way).
   */
  private drain(): void {
    if (this.drainTimer !== undefined || this.stopped || this.pendingOps.size === 0) return;
    this.drainTimer = setTimeout(() => {
      this.drainTimer = undefined;
      this.run(
        async () => {
          await this.processPending(OPERATIONS_BATCH_SIZE);
          this.drain();
        },
        { kind: "leftover" },
      ).catch(() => {});
    }, 0);
  }

  private async begin(s: HeadState): Promise<ValidationState | undefined> {
    if (s.protocol === undefined) return undefined;
    const context = checkout(this.chain.store.kv, b58decode(B58.contextHash, s.head.header.context));
    if (context === undefined) return undefined;
    return s.protocol.beginConstruction({
      chainId: b58decode(B58.chainId, this.chain.chainId),
      predecessor: { hash: s.head.hash, header: s.head.header, context },
      timestamp: s.timestamp,
      ...(this.signatureWaived === undefined ? {} : { signatureWaived: this.signatureWaived }),
    });
  }

  // ---- heads -----------------------------------------------------------------------------

  /** A fresh validation state on `head`. */
  private async setHead(head: Block): Promise<void> {
    const protocol = this.protocols(head.info.next_protocol);
    const plugin = this.plugins(head.info.next_protocol);
    if (plugin !== this.configPlugin) {
      this.configPlugin = plugin;
      this.config = plugin?.defaultConfig;
    }
    const s: HeadState = {
      head,
      timestamp: Math.max(Math.floor(this.now() / 1000), head.header.timestamp + 1),
      liveBlocks: this.validator.liveBlocks(head),
      liveOperations: this.validator.liveOperations(head),
      protocol,
      plugin,
      vs: undefined,
    };
    this.state = s;
    try {
      s.vs = await this.begin(s);
    } catch {
      s.vs = undefined; // Octez: every operation is then branch delayed
    }
  }

  /**
   * Moves the mempool to `head` (Octez `on_flush` then the classification of pending operations).
   * `handleBranchRefused` when the head switched branch (also reclassify branch refused ones).
   */
  private async flush(head: Block, reclassify: boolean, handleBranchRefused?: boolean): Promise<void> {
    const old = this.state?.head;
    const switched = handleBranchRefused ?? (old !== undefined && head.header.predecessor !== old.hash && head.hash !== old.hash);
    this.stream.close();
    this.stream = new Watcher<MempoolEvent>();
    // Operations to look at again: applied, branch delayed (and branch refused), pending.
    const candidates = new Map<string, MempoolOperation>();
    for (const e of this.classes.applied) candidates.set(e.op.hash, e.op);
    for (const e of this.classes.branchDelayed.values()) candidates.set(e.op.hash, e.op);
    if (switched) for (const e of this.classes.branchRefused.values()) candidates.set(e.op.hash, e.op);
    for (const p of this.pendingOps.values()) candidates.set(p.op.hash, p.op);
    this.pendingOps.clear();
    this.classes.flush(switched);
    await this.setHead(head);
    const s = this.state!;
    if (old !== undefined && old.hash !== head.hash) this.moveBranch(old, head, candidates);
    if (!reclassify) return;
    const ctx = { predecessor: head.hash, level: head.header.level + 1 };
    const ordered = [...candidates.values()].sort((a, b) => a.seq - b.seq);
    for (const op of ordered) {
      if (!s.liveBlocks.has(op.shell.branch) || s.liveOperations.has(op.hash) || this.banned.has(op.hash)) continue;
      if (s.plugin === undefined) continue;
      const pre = s.plugin.preFilter(this.config, { data: op.data, branch: op.shell.branch, size: op.size }, ctx);
      if (pre.passed) this.pendingOps.set(op.hash, { op, priority: pre.priority });
      else this.record({ classification: pre.class, op, trace: pre.trace });
    }
    this.drain();
  }

  /**
   * Octez `handle_live_operations`: the operations of blocks that left the main branch come back,
   * those of the blocks that joined it leave.
   */
  private moveBranch(from: Block, to: Block, candidates: Map<string, MempoolOperation>): void {
    const oldPath: Block[] = [];
    const newPath: Block[] = [];
    let a: Block | undefined = from;
    let b: Block | undefined = to;
    while (a !== undefined && b !== undefined && a.hash !== b.hash) {
      if (a.header.level >= b.header.level) {
        oldPath.push(a);
        a = a.hash === this.chain.genesis.hash ? undefined : this.chain.block(a.header.predecessor);
      } else {
        newPath.push(b);
        b = b.hash === this.chain.genesis.hash ? undefined : this.chain.block(b.header.predecessor);
      }
    }
    for (const block of oldPath) {
      for (const pass of this.chain.store.operations(block.hash) ?? []) {
        for (const bytes of pass) {
          let shell;
          try {
            shell = shellOperation(bytes);
          } catch {
            continue;
          }
          if (candidates.has(shell.hash)) continue;
          try {
            candidates.set(shell.hash, this.parse(bytes, shell));
          } catch {
            // unparsable operations of an old branch are dropped (Octez adds them to `unparsable`)
          }
        }
      }
    }
    for (const block of newPath) for (const pass of this.chain.operationHashes(block.hash)) for (const h of pass) candidates.delete(h);
  }

  // ---- ban -------------------------------------------------------------------------------

  /**
   * Bans an operation (Octez `on_ban`): it leaves the mempool and is ignored from then on. When
   * it was applied, the mempool is classified again on the same head without it.
   */
  ban(hash: string): Promise<void> {
    return this.run(async () => {
      this.banned.add(hash);
      const removed = this.classes.remove(hash);
      if (removed?.class === "applied" && this.state !== undefined) {
        // Put it back so that the flush gathers the others, then leave it out.
        await this.flush(this.state.head, true, false);
      }
      this.pendingOps.delete(hash);
    }, { kind: "ban", operation_hash: hash });
  }

  /**
   * Classifies every applied, branch delayed and pending operation again on a fresh state of the
   * same head, and waits until they are (Octez's flush without a new head): after a change of
   * what {@link PrevalidatorOptions.signatureWaived} answers, an operation applied under a
   * waiver that no longer holds is refused.
   */
  reclassify(): Promise<void> {
    return this.run(async () => {
      if (this.state !== undefined) await this.flush(this.chain.head, true, false);
      await this.processPending(Infinity);
    });
  }

  /** Lifts a ban (nothing happens if the operation was not banned). */
  unban(hash: string): void {
    this.banned.delete(hash);
  }

  /** Lifts every ban. */
  unbanAll(): void {
    this.banned.clear();
  }

  /** Whether an operation is banned. */
  isBanned(hash: string): boolean {
    return this.banned.has(hash);
  }

  // ---- filter ----------------------------------------------------------------------------

  /** The filter configuration as JSON (`include_default`: show fields equal to their default). */
  filterJson(includeDefault = true): unknown {
    const p = this.configPlugin;
    return p === undefined ? {} : p.configToJson(this.config, includeDefault);
  }

  /**
   * Sets the filter configuration from JSON (absent fields take their default); an invalid one
   * leaves it unchanged, as Octez. Answers the configuration in force.
   */
  setFilter(json: unknown): unknown {
    const p = this.configPlugin;
    if (p !== undefined) {
      try {
        this.config = p.configFromJson(json as never);
      } catch {
        // Octez logs `invalid_mempool_filter_configuration` and keeps the configuration
      }
    }
    return this.filterJson(true);
  }

  // ---- views -----------------------------------------------------------------------------

  /** The mempool's content now. */
  view(): MempoolView {
    const sorted = (c: ErrorClass) => [...this.classes.errors(c).values()].sort((a, b) => compareHash(a.op, b.op));
    return {
      protocol: this.state?.head.info.next_protocol ?? "",
      applied: [...this.classes.applied],
      refused: sorted("refused"),
      outdated: sorted("outdated"),
      branch_refused: sorted("branch_refused"),
      branch_delayed: sorted("branch_delayed"),
      unprocessed: [...this.pendingOps.values()].map((p) => p.op).sort(compareHash),
    };
  }

  /**
   * A monitor of classifications (Octez `monitor_operations`): first the current mempool of the
   * followed classes (applied newest first, then refused, branch refused, branch delayed and
   * outdated, each by decreasing hash), then one array per new classification. It ends at the
   * next head, when `signal` aborts, or when the prevalidator stops.
   */
  async monitor(filter: MonitorFilter, signal?: AbortSignal): Promise<AsyncIterableIterator<MempoolEvent[]>> {
    return await this.run(async () => {
      if (this.state !== undefined && this.state.head.hash !== this.chain.head.hash) await this.flush(this.chain.head, true);
      const first: MempoolEvent[] = [];
      if (filter.applied) for (const e of [...this.classes.applied].reverse()) first.push({ classification: "applied", op: e.op });
      const add = (c: ErrorClass) => {
        const entries = [...this.classes.errors(c).values()].sort((a, b) => compareHash(b.op, a.op));
        for (const e of entries) first.push({ classification: c, op: e.op, trace: e.trace });
      };
      if (filter.refused) add("refused");
      if (filter.branch_refused) add("branch_refused");
      if (filter.branch_delayed) add("branch_delayed");
      if (filter.outdated) add("outdated");
      const sub = this.stream.subscribe([], signal);
      return monitorIterator(first, sub, (e) => filter[e.classification]);
    });
  }

  /**
   * The applied operations to put in a block on `head`, per validation pass, in the order they
   * were applied (the sandbox baker's `pending`), each pass within its quota (size and number of
   * operations): the rest waits for the next block. Moves the mempool to `head` first if needed.
   * Leaves out operations whose branch is not live or that a live block includes, and the
   * endorsements of `excludeEndorsers`.
   */
  async pending(head: Block, options: PendingOptions = {}): Promise<Uint8Array[][]> {
    return await this.run(async () => {
      // a head a sandbox revert forgot meanwhile: nothing to build on it
      if (this.chain.block(head.hash) === undefined) return [];
      if (this.state?.head.hash !== head.hash) await this.flush(head, true);
      const s = this.state!;
      const quotas = s.protocol?.operationListQuota ?? [];
      const passes: Uint8Array[][] = quotas.map(() => []);
      if (s.protocol === undefined || s.plugin === undefined) return passes;
      const sizes = quotas.map(() => 0);
      const full = quotas.map(() => false);
      for (const { op, receipt } of this.classes.applied) {
        if (!s.liveBlocks.has(op.shell.branch) || s.liveOperations.has(op.hash)) continue;
        let allowed: readonly number[];
        try {
          allowed = s.protocol.acceptablePasses(op.shell);
        } catch {
          continue;
        }
        const pass = allowed[0];
        if (pass === undefined || pass >= passes.length || full[pass]) continue;
        const endorser = s.plugin.endorser(op.data, receipt);
        if (endorser !== undefined && options.excludeEndorsers?.has(endorser)) continue;
        // A pass takes operations in the order they were applied while they fit its quota; the
        // first that does not closes it (the later ones may depend on it: counters).
        const quota = quotas[pass]!;
        if (sizes[pass]! + op.bytes.length > quota.max_size || (quota.max_op !== undefined && passes[pass]!.length >= quota.max_op)) {
          full[pass] = true;
          continue;
        }
        sizes[pass]! += op.bytes.length;
        passes[pass]!.push(op.bytes);
      }
      return passes;
    });
  }

  /**
   * Runs `move` (a sandbox revert moving the chain's head back) after every earlier request,
   * then empties the mempool (every class, pending operations; bans stay) and builds the
   * validation state on the chain's head: nothing of the forgotten blocks comes back, as it
   * would with a branch switch's flush. Requests made meanwhile wait; a monitor stream ends.
   */
  reset(move: () => Promise<void>): Promise<void> {
    return this.run(async () => {
      await move();
      this.pendingOps.clear();
      this.classes.flush(true);
      for (const map of [this.classes.refused, this.classes.outdated]) for (const e of [...map.values()]) this.classes.remove(e.op.hash);
      this.stream.close();
      this.stream = new Watcher<MempoolEvent>();
      await this.setHead(this.chain.head);
    });
  }

  /** Waits until every request made so far is done and every pending operation is classified (for tests and shutdown). */
  async idle(): Promise<void> {
    await this.run(() => this.processPending(Infinity));
  }

  /**
   * Waits until every request made so far is done and the mempool is on the chain's current
   * head (a head stored a moment ago may not have reached the prevalidator yet).
   */
  async synced(): Promise<void> {
    await this.run(async () => {
      if (this.state !== undefined && this.state.head.hash !== this.chain.head.hash) await this.flush(this.chain.head, true);
    });
  }
}

/** First `first`, then each event of `sub` that `keep` accepts, one array each; `return()` ends `sub`. */
function monitorIterator(
  first: MempoolEvent[],
  sub: AsyncIterableIterator<MempoolEvent>,
  keep: (e: MempoolEvent) => boolean,
): AsyncIterableIterator<MempoolEvent[]> {
  let sentFirst = false;
  const it: AsyncIterableIterator<MempoolEvent[]> = {
    async next(): Promise<IteratorResult<MempoolEvent[]>> {
      if (!sentFirst) {
        sentFirst = true;
        return { value: first, done: false };
      }
      for (;;) {
        const r = await sub.next();
        if (r.done === true) return { value: undefined, done: true };
        if (keep(r.value)) return { value: [r.value], done: false };
      }
    },
    async return(): Promise<IteratorResult<MempoolEvent[]>> {
      await sub.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}

export type { AppliedEntry, ErrorEntry, MempoolOperation } from "./mempool-classification.ts";
