/**
 * The sandbox baker and endorser: holds keys (the bootstrap keys in a sandbox), bakes Hangzhou
 * blocks with their endorsements and nonce revelations (./block.ts), one at a time, in one of
 * three modes (./mode.ts):
 *
 * - `auto`: on {@link Baker.start}, bakes what a fresh sandbox needs so that `head~2` is a live
 *   branch (up to level 3, also later if the activation arrives after the start); then one block
 *   each time {@link Baker.notify} says operations wait (a prevalidator calls it), as long as
 *   the block's timestamp stays within {@link AUTO_MAX_LEAD_SECONDS} of the clock (beyond, at
 *   the clock's pace); nothing while idle.
 * - `interval`: one block at each mark, every `seconds` from the start (heads that are not
 *   Hangzhou's yet are skipped); a long bake delays the next block, not the marks after it.
 * - `manual`: only {@link Baker.bake} / {@link Baker.bakeMany} (and the `/sandbox/bake` RPC).
 *
 * Every bake, whatever asked for it, goes through one queue: two blocks are never built at once.
 *
 * Each block is baked at the best priority of the held keys. In `auto` and `interval` modes (the
 * start-up blocks included), a block whose best priority is above 0 — the held keys are a subset
 * of the delegates, `--baker-keys` — waits for that priority's time (its minimal valid time), as
 * a real baker does, so that better-placed bakers elsewhere go first; the head is planned on
 * again when the time comes or a new head arrives. Priority-0 blocks never wait (they may run
 * ahead of the clock, see `docs/baker.md`), nor does anything in `manual` mode or asked for with
 * {@link Baker.bake} / {@link Baker.bakeMany}.
 *
 * @example
 * ```ts
 * const baker = createBaker({ chain, validator, keys: bootstrapSecretKeys(), mode: "manual" });
 * await baker.start();
 * const [h1, h2] = await baker.bakeMany(2);
 * await baker.stop();
 * ```
 * @module
 */
import type { SecretKey } from "../crypto/keys.ts";
import { type LogLevel, type Logger, SILENT_LOGGER } from "../log.ts";
import { B58, b58decode } from "../encoding/base58.ts";
import type { Block, Chain } from "../shell/chain.ts";
import type { BlockValidator } from "../shell/validator.ts";
import { Watcher } from "../shell/watcher.ts";
import { bakeBlock, HANGZHOU, planOnHead, type BakedBlock, type OperationPasses } from "./block.ts";
import { keyRing } from "./keys.ts";
import { checkBakerMode, type BakerMode } from "./mode.ts";
import { NonceStore } from "./nonces.ts";
import type { BlockPlan } from "./plan.ts";

/** The level a fresh sandbox bakes up to in `auto` mode, so that `head~2` is a live branch. */
export const AUTO_START_LEVEL = 3;

/**
 * How far ahead of the clock `auto` mode lets block timestamps go by default (10 minutes): a
 * burst of operations (a test suite) gets a block each at once, and only a steady stream of
 * them, minutes long, gets one block a second, the clock's pace, rather than timestamps drifting
 * into the future without bound.
 */
export const AUTO_MAX_LEAD_SECONDS = 600;

/** The most blocks one {@link Baker.bakeMany} call bakes. */
export const MAX_BAKE_COUNT = 10_000;

/** Timer functions (the web platform's by default; tests give fake ones). */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Options of {@link createBaker}. */
export interface BakerOptions {
  readonly chain: Chain;
  readonly validator: BlockValidator;
  /** The keys the baker bakes and endorses with. */
  readonly keys: readonly SecretKey[];
  /** Wall clock, milliseconds since the epoch (`Date.now` by default). */
  readonly now?: () => number;
  /** `auto` by default; a mode object or its text (`"interval:5"`). */
  readonly mode?: BakerMode | string;
  /** Where committed nonces are kept; the chain's store by default. */
  readonly nonces?: NonceStore;
  /** Operations waiting for a block (a prevalidator's), per validation pass. */
  readonly pending?: (head: Block) => OperationPasses | Promise<OperationPasses>;
  /** Timers for `interval` mode. */
  readonly timers?: Timers;
  /** How far ahead of the clock `auto` blocks may be timestamped, in seconds ({@link AUTO_MAX_LEAD_SECONDS} by default). */
  readonly maxLeadSeconds?: number;
  /** Errors of background bakes (auto and interval modes); `console.error` by default. */
  readonly onError?: (error: unknown) => void;
  /**
   * Whether the baker tops a fresh chain up to level 3 after the activation (true by default);
   * a follower on a network, which bakes nothing of its own at start, says false.
   */
  readonly topUp?: boolean;
  /** Where each baked block is told (`block_baked`: level, hash, operations, priority, ms); nowhere by default. */
  readonly log?: Logger;
}

/** Options of {@link Baker.bakeMany}. */
export interface BakeManyOptions {
  /** Stops the bake at the next block boundary (a client that went away). */
  readonly signal?: AbortSignal;
  /** Called after each block is stored, with the number baked so far. */
  readonly onBlock?: (block: BakedBlock, baked: number) => void;
}

/** A running sandbox baker. */
export interface Baker {
  /** Its mode. */
  readonly mode: BakerMode;
  /** Each block this baker baked, once stored. */
  readonly baked: Watcher<BakedBlock>;
  /** Bakes one block on the current head; resolves to its hash once stored. */
  bake(): Promise<string>;
  /** Bakes one block and describes it (priority, endorsing power, nonce…). */
  bakeBlock(): Promise<BakedBlock>;
  /**
   * Bakes `n` blocks in a row (1 ≤ n ≤ {@link MAX_BAKE_COUNT}); their hashes, oldest first. It
   * stops early, at a block boundary, when {@link stop} is called or `options.signal` aborts, and
   * answers the blocks baked until then (each stored whole; none half-baked).
   */
  bakeMany(n: number, options?: BakeManyOptions): Promise<string[]>;
  /** Operations wait: in `auto` mode (once started), bake a block soon. Other modes ignore it. */
  notify(): void;
  /** Starts the mode's background work; in `auto` mode resolves after the start-up blocks. */
  start(): Promise<void>;
  /** Stops background work and a {@link bakeMany} in progress, and waits for the block being baked, if any. */
  stop(): Promise<void>;
}

const defaultTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

class SandboxBaker implements Baker {
  readonly mode: BakerMode;
  readonly baked = new Watcher<BakedBlock>();
  private readonly chain: Chain;
  private readonly env: Parameters<typeof bakeBlock>[0];
  private readonly timers: Timers;
  private readonly maxLead: number;
  private readonly onError: (error: unknown) => void;
  private readonly log: Logger;
  /** How many times {@link stop} was called: a {@link bakeMany} stops when it changes. */
  private stops = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private started = false;
  private timer: unknown = undefined;
  /** The mark the timer was last armed for (`interval` mode), on the `now` clock. */
  private lastMark: number | undefined = undefined;
  private heads: AsyncIterableIterator<Block> | undefined;
  private topUpQueued = false;
  private readonly topUpAtStart: boolean;
  private notifyQueued = false;
  /** Armed while the held keys' next slot is later than the clock (`auto` and `interval` modes). */
  private slotTimer: unknown = undefined;
  /** A block is wanted when the slot comes (a notification or a mark came while waiting for it). */
  private slotWanted = false;

  constructor(o: BakerOptions) {
    if (o === null || typeof o !== "object") throw new TypeError("createBaker: options must be an object");
    if (o.chain === undefined || o.validator === undefined) throw new TypeError("createBaker: chain and validator are required");
    if (o.now !== undefined && typeof o.now !== "function") throw new TypeError("createBaker: now must be a function");
    this.mode = checkBakerMode(o.mode ?? { mode: "auto" });
    this.chain = o.chain;
    const keys = keyRing(o.keys);
    if (keys.size === 0) throw new RangeError("createBaker: at least one key is needed");
    this.env = {
      chain: o.chain,
      validator: o.validator,
      keys,
      nonces: o.nonces ?? new NonceStore(o.chain.store.kv, b58decode(B58.chainId, o.chain.chainId)),
      now: o.now ?? Date.now,
      ...(o.pending === undefined ? {} : { pending: o.pending }),
    };
    this.timers = o.timers ?? defaultTimers;
    this.maxLead = o.maxLeadSeconds ?? AUTO_MAX_LEAD_SECONDS;
    this.onError = o.onError ?? ((e) => console.error("baker:", e));
    this.topUpAtStart = o.topUp !== false;
    this.log = o.log ?? SILENT_LOGGER;
  }

  /** Runs `job` after every earlier one; its failure does not block later jobs. */
  private run<T>(job: () => Promise<T>): Promise<T> {
    const p = this.queue.then(job);
    this.queue = p.catch(() => {});
    return p;
  }

  /** Bakes a block and tells it (at `level`: a block of a many-block bake is a debug record). */
  private async bakeOne(head: Block = this.chain.head, plan?: BlockPlan, level: LogLevel = "info"): Promise<BakedBlock> {
    const started = performance.now();
    const b = await bakeBlock(this.env, head, plan);
    this.log[level]("block_baked", { block_level: b.level, hash: b.hash, operations: b.operations, priority: b.priority, ms: Math.round(performance.now() - started) });
    this.baked.notify(b);
    return b;
  }

  /**
   * Bakes on the current head if the held keys' slot has come: at once at priority 0 (and in
   * `manual` mode); at a later priority only from its time on. Otherwise arms the slot timer and
   * answers false (the caller says whether a block is wanted then).
   */
  private async bakeInTurn(): Promise<boolean> {
    const head = this.chain.head;
    const plan = planOnHead(this.env, head);
    const wait = plan.priority === 0 || this.mode.mode === "manual" ? 0 : plan.timestamp * 1000 - this.env.now();
    if (wait <= 0) {
      await this.bakeOne(head, plan);
      return true;
    }
    this.armSlot(wait);
    return false;
  }

  private armSlot(ms: number): void {
    if (this.slotTimer !== undefined) return;
    this.slotTimer = this.timers.setTimeout(() => {
      this.slotTimer = undefined;
      if (this.started) this.run(() => this.resumeAtSlot()).catch(this.onError);
    }, ms);
  }

  /** The slot's time came, or a new head arrived while waiting for it: the start-up blocks, then the wanted one. */
  private async resumeAtSlot(): Promise<void> {
    if (!this.started || !this.canBake(this.chain.head)) return;
    await this.topUpNow();
    if (this.slotTimer !== undefined || !this.slotWanted) return;
    this.slotWanted = false;
    if (!(await this.bakeInTurn())) this.slotWanted = true;
  }

  bakeBlock(): Promise<BakedBlock> {
    return this.run(() => this.bakeOne());
  }

  async bake(): Promise<string> {
    return (await this.bakeBlock()).hash;
  }

  bakeMany(n: number, options: BakeManyOptions = {}): Promise<string[]> {
    if (typeof n !== "number" || !Number.isInteger(n)) return Promise.reject(new TypeError(`bakeMany: n must be an integer, got ${String(n)}`));
    if (n < 1 || n > MAX_BAKE_COUNT) return Promise.reject(new RangeError(`bakeMany: n must be in [1, ${MAX_BAKE_COUNT}], got ${n}`));
    const stops = this.stops;
    return this.run(async () => {
      const out: string[] = [];
      const level: LogLevel = n === 1 ? "info" : "debug";
      while (out.length < n && this.stops === stops && options.signal?.aborted !== true) {
        const block = await this.bakeOne(undefined, undefined, level);
        out.push(block.hash);
        options.onBlock?.(block, out.length);
      }
      return out;
    });
  }

  notify(): void {
    if (this.mode.mode !== "auto" || !this.started || this.notifyQueued) return;
    this.notifyQueued = true;
    this.run(async () => {
      this.notifyQueued = false;
      if (!this.started || !this.canBake(this.chain.head)) return;
      // Blocks are at least a second apart: under a stream of operations the timestamps would
      // run ahead of the clock without bound. Past the lead allowed, wait for the clock (the
      // operations keep gathering in the mempool and go in the next block).
      const wait = (this.chain.head.header.timestamp + 1 - this.maxLead) * 1000 - this.env.now();
      if (wait > 0) {
        this.notifyQueued = true;
        this.timer = this.timers.setTimeout(() => {
          this.timer = undefined;
          this.notifyQueued = false;
          this.notify();
        }, wait);
        return;
      }
      if (!(await this.bakeInTurn())) this.slotWanted = true;
    }).catch(this.onError);
  }

  private canBake(head: Block): boolean {
    return head.info.next_protocol === HANGZHOU;
  }

  /** Bakes until level {@link AUTO_START_LEVEL} when the head is Hangzhou's (every mode, at start). */
  private topUp(): Promise<void> {
    if (!this.topUpAtStart) return Promise.resolve();
    if (this.topUpQueued) return this.queue.then(() => {});
    this.topUpQueued = true;
    return this.run(async () => {
      this.topUpQueued = false;
      await this.topUpNow();
    });
  }

  /** Bakes the start-up blocks still missing, each in turn (stops if a slot must be waited for). */
  private async topUpNow(): Promise<void> {
    while (this.topUpAtStart && this.started && this.canBake(this.chain.head) && this.chain.head.header.level < AUTO_START_LEVEL) {
      if (!(await this.bakeInTurn())) return;
    }
  }

  private async followHeads(heads: AsyncIterableIterator<Block>): Promise<void> {
    for await (const head of heads) {
      if (this.slotTimer !== undefined) {
        // Waiting for a slot and the head moved (another baker's block): plan on the new head.
        this.timers.clearTimeout(this.slotTimer);
        this.slotTimer = undefined;
        this.run(() => this.resumeAtSlot()).catch(this.onError);
      } else if (head.header.level < AUTO_START_LEVEL && this.canBake(head)) {
        await this.topUp().catch(this.onError);
      }
    }
  }

  /**
   * Arms the timer of the next mark (`interval` mode). Marks fall every `seconds` from the start:
   * a bake that runs past the next mark is followed at once by one bake for the latest missed
   * mark, and the marks after it stay where they were.
   */
  private schedule(): void {
    if (!this.started || this.mode.mode !== "interval") return;
    const interval = this.mode.seconds * 1000;
    const now = this.env.now();
    let mark = this.lastMark === undefined ? now + interval : this.lastMark + interval;
    if (mark < now) mark += Math.floor((now - mark) / interval) * interval;
    this.lastMark = mark;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      if (!this.started) return;
      this.run(async () => {
        if (this.started && this.canBake(this.chain.head) && !(await this.bakeInTurn())) this.slotWanted = true;
      })
        .catch(this.onError)
        .finally(() => this.schedule());
    }, Math.max(0, mark - now));
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.lastMark = undefined;
    this.notifyQueued = false;
    // Whatever the mode, a fresh sandbox is made usable at once: a client's operations need a
    // live branch two blocks back, so the baker tops the chain up to level 3 (and does so as
    // soon as an activation arrives later).
    this.heads = this.chain.heads.subscribe();
    void this.followHeads(this.heads);
    if (this.mode.mode === "interval") this.schedule();
    await this.topUp();
  }

  async stop(): Promise<void> {
    this.started = false;
    this.stops++;
    if (this.timer !== undefined) {
      this.timers.clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.slotTimer !== undefined) {
      this.timers.clearTimeout(this.slotTimer);
      this.slotTimer = undefined;
    }
    this.slotWanted = false;
    await this.heads?.return?.();
    this.heads = undefined;
    await this.queue;
  }
}

/**
 * A sandbox baker over a chain and its block validator (see the module documentation). It does
 * nothing until {@link Baker.start} except what is asked of it.
 */
export function createBaker(options: BakerOptions): Baker {
  return new SandboxBaker(options);
}
