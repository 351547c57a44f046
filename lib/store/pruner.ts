/**
 * The background pruner of the history modes: once the savepoint or the caboose moved (the chain
 * writes them with the head that moved them), it deletes what lies below, a few levels per write,
 * yielding to other work between writes, so that RPCs and baking never wait for more than one
 * small batch. Below the caboose (rolling) a main-branch block goes whole: header, operations,
 * record and level row (the genesis block stays: the chain names it). Below the savepoint (full
 * and rolling) a block's metadata and receipts go; a summary keeps its protocols, TTL, fork level
 * and metadata hashes. Then the contexts of the pruned blocks go too, through the context
 * collector when one is given.
 *
 * Crash safety: the targets are durable before anything is deleted, and each batch writes its
 * progress marker (`pruned` in the chain data) in the same atomic write as its deletes. A store
 * killed at any point reopens with every block at or above the caboose whole and the levels
 * consistent; the pruner then resumes from its marker.
 * @module
 */
import type { BlockStore } from "./block-store.ts";
import type { KeyValueStore, WriteOp } from "./kv.ts";

/** A context collection in progress (see `lib/store/context/gc.ts`). */
export interface ContextCollection {
  /** One bounded step; resolves true once the collection is complete. */
  step(): Promise<boolean>;
  /** Stops the collection before its next step (a later one deletes what is left). */
  cancel?(): void;
}

/** Starts collecting every context node not reachable from `roots` (commit hashes to keep). */
export type StartContextCollection = (store: KeyValueStore, roots: Iterable<Uint8Array>) => ContextCollection;

/** What the pruner reads of the chain. */
export interface PrunerHost {
  readonly store: BlockStore;
  /** Current targets: levels below `caboose` are deleted, metadata below `savepoint` pruned; none in archive. */
  targets(): { readonly savepoint: number; readonly caboose: number; readonly archive: boolean };
  /** Hash of the main-branch block at `level`. */
  hashAt(level: number): string | undefined;
  /** Drops a block from the chain's caches after it was pruned or deleted. */
  forget(hash: string): void;
  /** Context hashes of every block kept with metadata (the collection's roots). */
  contextRoots(): Iterable<Uint8Array>;
  /**
   * The writes that drop one dead branch (a known head whose branch forks below the checkpoint:
   * it can never be the head) and the hashes of its blocks, or `undefined` when there is none.
   * The host already counts the branch as gone when it answers.
   */
  deadBranch?(): { readonly ops: WriteOp[]; readonly blocks: readonly string[] } | undefined;
}

/** Progress: levels below `blocks` are deleted, below `metadata` pruned; contexts collected for savepoint `contexts`. */
export interface PruneProgress {
  readonly blocks: number;
  readonly metadata: number;
  readonly contexts: number;
}

/** Options of the pruner. */
export interface PrunerOptions {
  /** Levels per write (32 by default). */
  readonly batchLevels?: number;
  /** The context collector; contexts are not collected without it. */
  readonly collectContexts?: StartContextCollection;
  /**
   * Called after each step with what it did and how long its synchronous part ran before its write
   * (`busyMs`: how long it held the event loop; the bench's pause figures).
   */
  readonly onStep?: (step: { kind: "branches" | "blocks" | "metadata" | "contexts"; levels: number; busyMs: number }) => void;
  /**
   * Told when a step fails (a write the store refused, a context collection that could not
   * start); the pruner stops that round and tries again at its next wake. Without it the error
   * goes to `console.error`.
   */
  readonly onError?: (error: unknown) => void;
}

const yieldToEvents = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Encodes the progress marker (three u32, big-endian). */
export function encodeProgress(p: PruneProgress): Uint8Array {
  const out = new Uint8Array(12);
  const v = new DataView(out.buffer);
  v.setUint32(0, p.blocks);
  v.setUint32(4, p.metadata);
  v.setUint32(8, p.contexts);
  return out;
}

/** Reads the progress marker; a new store starts above genesis with nothing done. */
export function decodeProgress(bytes: Uint8Array | undefined): PruneProgress {
  if (bytes === undefined) return { blocks: 1, metadata: 1, contexts: 0 };
  if (bytes.length !== 12) throw new Error("Corrupted store: pruning progress of a wrong length");
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { blocks: v.getUint32(0), metadata: v.getUint32(4), contexts: v.getUint32(8) };
}

/** Runs the pruning of one chain in the background. */
export class Pruner {
  private readonly host: PrunerHost;
  private readonly batch: number;
  private readonly options: PrunerOptions;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private collection: { savepoint: number; run: ContextCollection } | undefined;

  constructor(host: PrunerHost, options: PrunerOptions = {}) {
    this.host = host;
    this.options = options;
    this.batch = options.batchLevels ?? 32;
  }

  /** What is done so far. */
  progress(): PruneProgress {
    return decodeProgress(this.host.store.chainData("pruned"));
  }

  /** Starts (or continues) pruning towards the current targets. */
  wake(): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = this.loop()
      .catch((error: unknown) => {
        // A failed round changes nothing that is not durable yet; the next wake starts over
        // from the progress marker (and a new context collection).
        this.collection?.run.cancel?.();
        this.collection = undefined;
        if (this.options.onError !== undefined) this.options.onError(error);
        else console.error(error);
      })
      .finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Resolves once the pruning has caught up with the targets (or stopped). */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** Stops after the current step; resolves once it is written. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
    this.collection?.run.cancel?.();
    this.collection = undefined;
  }

  private async loop(): Promise<void> {
    this.again = false;
    while (!this.stopped && (await this.step())) await yieldToEvents();
  }

  /** One bounded step; false when there is nothing left to do. */
  private async step(): Promise<boolean> {
    const { store } = this.host;
    const started = performance.now();
    const t = this.host.targets();
    const dead = this.host.deadBranch?.();
    if (dead !== undefined) {
      // Every mode drops dead branches, as Octez's store trims the alternative branches below its checkpoint.
      const busyMs = performance.now() - started;
      await store.kv.write(dead.ops);
      for (const h of dead.blocks) this.host.forget(h);
      this.options.onStep?.({ kind: "branches", levels: dead.blocks.length, busyMs });
      return true;
    }
    if (t.archive) return false;
    const p = this.progress();
    if (p.blocks < t.caboose) {
      const end = Math.min(t.caboose, p.blocks + this.batch);
      const ops: WriteOp[] = [];
      const gone: string[] = [];
      for (let level = p.blocks; level < end; level++) {
        const hash = this.host.hashAt(level);
        if (hash === undefined) continue;
        ops.push(...store.deleteBlock(hash), store.deleteLevel(level));
        gone.push(hash);
      }
      const next = { ...p, blocks: end, metadata: Math.max(p.metadata, end) };
      const busyMs = performance.now() - started;
      await store.kv.write([...ops, store.putChainData("pruned", encodeProgress(next))]);
      for (const h of gone) this.host.forget(h);
      this.options.onStep?.({ kind: "blocks", levels: end - p.blocks, busyMs });
      return true;
    }
    if (p.metadata < t.savepoint) {
      const start = Math.max(p.metadata, p.blocks);
      const end = Math.min(t.savepoint, start + this.batch);
      const ops: WriteOp[] = [];
      const pruned: string[] = [];
      for (let level = start; level < end; level++) {
        const hash = this.host.hashAt(level);
        if (hash === undefined) continue;
        const more = store.pruneMetadata(hash);
        if (more.length > 0) pruned.push(hash);
        ops.push(...more);
      }
      const busyMs = performance.now() - started;
      await store.kv.write([...ops, store.putChainData("pruned", encodeProgress({ ...p, metadata: end }))]);
      for (const h of pruned) this.host.forget(h);
      this.options.onStep?.({ kind: "metadata", levels: end - start, busyMs });
      return true;
    }
    const collect = this.options.collectContexts;
    if (collect !== undefined && p.contexts < t.savepoint) {
      if (this.collection === undefined || this.collection.savepoint !== t.savepoint) {
        // The savepoint moved: the roots changed, start again (what is left goes in the new run).
        this.collection?.run.cancel?.();
        this.collection = undefined;
        this.collection = { savepoint: t.savepoint, run: collect(store.kv, this.host.contextRoots()) };
      }
      const stepping = this.collection.run.step();
      const busyMs = performance.now() - started;
      const done = await stepping;
      if (done) {
        this.collection = undefined;
        await store.kv.write([store.putChainData("pruned", encodeProgress({ ...p, contexts: t.savepoint }))]);
      }
      this.options.onStep?.({ kind: "contexts", levels: 0, busyMs });
      return true;
    }
    return false;
  }
}
