/**
 * The state of one chain: its genesis, its current head chosen by fitness, the main-branch index,
 * checkpoint, savepoint and caboose, invalid blocks, and the watchers that monitors follow.
 * Storing a block writes the block, its context and (when it wins) the new head in one atomic
 * store write, and only then tells the watchers.
 * @module
 */
import { B58, b58decode, b58encode } from "../encoding/base58.ts";
import { rawBlockHeader, type RawBlockHeader } from "../encoding/block-header.ts";
import { decodeBinary, type Json } from "../encoding/codec.ts";
import { compareFitness } from "../encoding/fitness.ts";
import { BlockStore, type BlockInfo, type FullBlockInfo, decodeBlockLocator, encodeBlockLocator, type InvalidBlock } from "../store/block-store.ts";
import type { KeyValueStore, WriteOp } from "../store/kv.ts";
import { Pruner, type PrunerOptions } from "../store/pruner.ts";
import { canSwitchHistoryMode, DEFAULT_HISTORY_MODE, describeHistoryMode, type HistoryMode, type HistoryModeInput, parseHistoryMode, toHistoryMode, printHistoryMode, sameHistoryMode } from "./history-mode.ts";
import { type BranchReader, decodeHistoryLevels, encodeHistoryLevels, holdAtPin, type HistoryLevels, INITIAL_HISTORY_LEVELS, levelsAfterRevert, levelsAfterSwitch, mergeOnNewHead } from "./history-levels.ts";
import { hashOperation } from "./operations.ts";
import { Watcher } from "./watcher.ts";

/** A stored block as the shell sees it: hash, raw header bytes, decoded header, shell record. */
export interface Block {
  readonly hash: string;
  readonly bytes: Uint8Array;
  readonly header: RawBlockHeader;
  readonly info: BlockInfo;
}

/** Which block a path names, as parsed from a `block_id` argument. */
export type BlockRef =
  | { kind: "genesis" }
  | { kind: "head"; offset: number }
  | { kind: "alias"; alias: "checkpoint" | "savepoint" | "caboose"; offset: number }
  | { kind: "hash"; hash: string; offset: number }
  | { kind: "level"; level: number };

/** A block to store, with the context writes of its commit. */
export interface NewBlock {
  readonly hash: string;
  readonly bytes: Uint8Array;
  readonly operations: Uint8Array[][];
  readonly info: FullBlockInfo;
  /** Context writes of this block's commit (new nodes only). */
  readonly contextOps: readonly WriteOp[];
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * Raised when a data dir holds a chain of another history mode than the one asked for and the
 * switch is not forced or not allowed (Octez's `node_config_file.cannot_switch_history_mode`).
 */
export class HistoryModeMismatch extends Error {
  override name = "HistoryModeMismatch";
}

/** Options of `Chain.open`. */
export interface ChainOpenOptions {
  /** Switch a store of another mode to the one asked for, where Octez allows it (`--force-history-mode-switch`). */
  readonly forceHistoryModeSwitch?: boolean;
  /** Options of the background pruner (its context collector, its batch size). */
  readonly pruner?: PrunerOptions;
}

/** One chain's state over a block store. */
export class Chain {
  readonly store: BlockStore;
  readonly chainId: string;
  readonly genesis: Block;
  /** The history mode: what the pruner keeps. */
  readonly historyMode: HistoryMode;
  /** Deletes what the history mode no longer keeps, in the background. */
  readonly pruner: Pruner;
  /** Each new head, after its write is durable. */
  readonly heads = new Watcher<Block>();
  /** Each newly stored valid block, head or not. */
  readonly validBlocks = new Watcher<Block>();
  private headBlock: Block;
  /** Valid blocks without a stored successor (Octez `known_heads`), by hash. */
  private knownHeadSet: Set<string>;
  private readonly cache = new Map<string, Block>();
  private readonly opHashes = new Map<string, string[][]>();
  /**
   * Blocks a sandbox revert forgot ({@link revertTo}), by hash: no longer answered, nor built
   * on, until the pruner deletes them (kept in the chain data `forgotten`).
   */
  private forgottenSet: Set<string>;
  /** The write of the block being stored, while it is in flight ({@link revertTo} waits for it). */
  private storing: Promise<void> | undefined;
  /**
   * The lowest level the savepoint and caboose may reach (a sandbox snapshot's block, kept whole
   * with its metadata and context); `undefined`: none.
   */
  pinnedLevel: () => number | undefined = () => undefined;

  private historyLevels: HistoryLevels;

  private constructor(store: BlockStore, chainId: string, genesis: Block, head: Block, historyMode: HistoryMode, pruner: PrunerOptions | undefined) {
    this.store = store;
    const levels = store.chainData("history_levels");
    this.historyLevels = levels === undefined ? INITIAL_HISTORY_LEVELS : decodeHistoryLevels(levels);
    const heads = store.chainData("known_heads");
    this.knownHeadSet = heads === undefined ? new Set([head.hash]) : decodeHashes(heads);
    const forgotten = store.chainData("forgotten");
    this.forgottenSet = forgotten === undefined ? new Set() : decodeHashes(forgotten);
    this.chainId = chainId;
    this.genesis = genesis;
    this.headBlock = head;
    this.historyMode = historyMode;
    this.pruner = new Pruner(
      {
        store,
        targets: () => ({ savepoint: this.locator("savepoint").level, caboose: this.locator("caboose").level, archive: this.historyMode.mode === "archive" }),
        hashAt: (level) => store.hashAtLevel(level),
        forget: (hash) => {
          this.cache.delete(hash);
          this.opHashes.delete(hash);
          if (this.forgottenSet.has(hash)) {
            const forgotten = new Set(this.forgottenSet);
            forgotten.delete(hash);
            this.forgottenSet = forgotten;
          }
        },
        contextRoots: () => this.contextRoots(),
        deadBranch: () => this.forgottenBatch() ?? this.deadBranch(),
      },
      pruner,
    );
  }

  /**
   * Opens the chain stored in `kv`, writing `genesis` first if the store is new. The genesis
   * block's hash is given (it is a configured constant, not the hash of its header).
   */
  static async open(kv: KeyValueStore, chainId: Uint8Array, genesis: NewBlock, mode: HistoryModeInput | undefined, options: ChainOpenOptions = {}): Promise<Chain> {
    const store = new BlockStore(kv, chainId);
    let historyMode = mode === undefined ? DEFAULT_HISTORY_MODE : toHistoryMode(mode);
    const stored = store.chainData("history_mode");
    const read = (hash: string) => {
      const b = readBlock(store, hash);
      if (b === undefined) throw new Error(`Corrupted store: block ${hash} is missing`);
      return b;
    };
    if (stored === undefined) {
      const locator = encodeBlockLocator(genesis.hash, 0);
      await kv.write([
        store.startCompressedRows(),
        ...genesis.contextOps,
        ...store.putBlock(genesis.hash, genesis.bytes, genesis.operations, genesis.info),
        store.putLevel(0, genesis.hash),
        store.putChainData("head", locator),
        store.putChainData("checkpoint", locator),
        store.putChainData("savepoint", locator),
        store.putChainData("caboose", locator),
        store.putChainData("history_mode", utf8.encode(printHistoryMode(historyMode))),
      ]);
    } else {
      const text = fromUtf8.decode(stored);
      const storedMode = parseHistoryMode(text);
      if (storedMode === undefined) throw new Error(`Corrupted store: unknown history mode "${text}"`);
      // No mode asked for: the store's own, as Octez's `Store.init` without a history mode.
      if (mode === undefined) historyMode = storedMode;
      if (!sameHistoryMode(storedMode, historyMode)) {
        if (options.forceHistoryModeSwitch !== true || !canSwitchHistoryMode(storedMode, historyMode)) throw switchRefused(storedMode, historyMode, options.forceHistoryModeSwitch === true);
        await switchHistoryMode(store, storedMode, historyMode, read);
      } else if (printHistoryMode(storedMode) !== printHistoryMode(historyMode)) {
        // The same mode spelled otherwise (full and full:5): keep the caller's form, as Octez's config.
        await kv.write([store.putChainData("history_mode", utf8.encode(printHistoryMode(historyMode)))]);
      }
    }
    const head = decodeBlockLocator(store.chainData("head")!);
    const chain = new Chain(store, b58encode(B58.chainId, chainId), read(genesis.hash), read(head.hash), historyMode, options.pruner);
    chain.pruner.wake();
    return chain;
  }

  /** The current head. */
  get head(): Block {
    return this.headBlock;
  }

  /** Every valid block without a stored successor, by decreasing fitness (the head first). */
  knownHeads(): Block[] {
    const blocks = [...this.knownHeadSet].flatMap((h) => this.block(h) ?? []);
    return blocks.sort((a, b) => (a.hash === this.headBlock.hash ? -1 : b.hash === this.headBlock.hash ? 1 : compareFitness(b.header.fitness, a.header.fitness)));
  }

  /** A stored block by hash (blocks below the caboose are gone, whether or not the pruner deleted them yet). */
  block(hash: string): Block | undefined {
    if (this.forgottenSet.has(hash)) return undefined;
    const b = this.storedBlock(hash);
    if (b === undefined || b.hash === this.genesis.hash || b.header.level >= this.locator("caboose").level) return b;
    return undefined;
  }

  private storedBlock(hash: string): Block | undefined {
    const hit = this.cache.get(hash);
    if (hit) return hit;
    const b = readBlock(this.store, hash);
    if (b) this.remember(b);
    return b;
  }

  private remember(b: Block): void {
    if (this.cache.size >= 512) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(b.hash, b);
  }

  /** Hashes of a stored block's operations, per validation pass (cached). */
  operationHashes(hash: string): string[][] {
    const hit = this.opHashes.get(hash);
    if (hit) return hit;
    const ops = this.store.operations(hash) ?? [];
    const hashes = ops.map((pass) => pass.map(hashOperation));
    if (this.opHashes.size >= 512) this.opHashes.delete(this.opHashes.keys().next().value!);
    this.opHashes.set(hash, hashes);
    return hashes;
  }

  /** The main-branch block at `level`. */
  blockAtLevel(level: number): Block | undefined {
    if (level > this.headBlock.header.level) return undefined;
    if (level !== 0 && level < this.locator("caboose").level) return undefined;
    const hash = this.store.hashAtLevel(level);
    return hash === undefined ? undefined : this.block(hash);
  }

  /** Whether `b` is on the main branch (an ancestor of the head, or the head). */
  isOnMainBranch(b: Block): boolean {
    return this.store.hashAtLevel(b.header.level) === b.hash;
  }

  /**
   * The block `n` steps from `b`: its n-th predecessor for n > 0 (the genesis block is its own
   * predecessor), the main-branch block n levels above for n < 0 (only when `b` is on it).
   */
  offset(b: Block, n: number): Block | undefined {
    if (n === 0) return b;
    if (this.isOnMainBranch(b)) return this.blockAtLevel(Math.max(0, b.header.level - n));
    if (n < 0) return undefined;
    let cur: Block | undefined = b;
    for (let i = 0; i < n && cur !== undefined; i++) {
      if (cur.hash === this.genesis.hash) break;
      cur = this.block(cur.header.predecessor);
      if (cur && this.isOnMainBranch(cur)) return this.blockAtLevel(Math.max(0, cur.header.level - (n - i - 1)));
    }
    return cur;
  }

  /** The block a `block_id` names, or `undefined` (the RPC answers 404). */
  resolve(ref: BlockRef): Block | undefined {
    switch (ref.kind) {
      case "genesis":
        return this.genesis;
      case "head":
        return this.offset(this.headBlock, ref.offset);
      case "level":
        return this.blockAtLevel(ref.level);
      case "alias": {
        const b = this.block(this.locator(ref.alias).hash);
        return b && this.offset(b, ref.offset);
      }
      case "hash": {
        const b = this.block(ref.hash);
        return b && this.offset(b, ref.offset);
      }
    }
  }

  /** The checkpoint, savepoint or caboose as hash and level. */
  locator(name: "checkpoint" | "savepoint" | "caboose"): { hash: string; level: number } {
    return decodeBlockLocator(this.store.chainData(name)!);
  }

  /**
   * Stores a validated block with its context; makes it the head when its fitness is greater
   * than the head's (equal fitness keeps the current head). Resolves once durable.
   */
  async storeBlock(block: NewBlock): Promise<{ head: boolean }> {
    const b: Block = { hash: block.hash, bytes: block.bytes, header: decodeBinary(rawBlockHeader, block.bytes), info: block.info };
    // a block validated on a head that a sandbox revert forgot meanwhile
    if (this.forgottenSet.has(b.header.predecessor)) throw new Error(`Block ${b.hash} is built on ${b.header.predecessor}, a block forgotten by a sandbox revert`);
    const ops: WriteOp[] = [...block.contextOps, ...this.store.putBlock(b.hash, b.bytes, block.operations, block.info)];
    if (this.forgottenSet.has(b.hash)) {
      // the same block made again after a revert: it counts again
      const forgotten = new Set(this.forgottenSet);
      forgotten.delete(b.hash);
      this.forgottenSet = forgotten;
      ops.push(this.store.putChainData("forgotten", encodeHashes(forgotten)));
    }
    const wins = compareFitness(b.header.fitness, this.headBlock.header.fitness) > 0;
    if (wins) ops.push(...this.headMove(b));
    const heads = new Set(this.knownHeadSet);
    heads.delete(b.header.predecessor);
    heads.add(b.hash);
    ops.push(this.store.putChainData("known_heads", encodeHashes(heads)));
    this.knownHeadSet = heads;
    const levels = wins ? this.pendingLevels : undefined;
    this.pendingLevels = undefined;
    const write = this.store.kv.write(ops);
    this.storing = write;
    try {
      await write;
    } finally {
      if (this.storing === write) this.storing = undefined;
    }
    this.remember(b);
    if (levels !== undefined) this.historyLevels = levels;
    if (wins) this.headBlock = b;
    if (levels !== undefined) this.pruner.wake();
    this.validBlocks.notify(b);
    if (wins) this.heads.notify(b);
    return { head: wins };
  }

  /** Index writes that make `b` the head: its branch down to the main branch, and the old tail dropped. */
  private headMove(b: Block): WriteOp[] {
    const ops: WriteOp[] = [this.store.putChainData("head", encodeBlockLocator(b.hash, b.header.level))];
    if (b.header.level < this.headBlock.header.level) ops.push(...this.store.truncateLevels(b.header.level));
    const branch = new Map<number, string>();
    let cur: Block | undefined = b;
    while (cur !== undefined && !this.isOnMainBranch(cur)) {
      ops.push(this.store.putLevel(cur.header.level, cur.hash));
      branch.set(cur.header.level, cur.hash);
      cur = this.block(cur.header.predecessor);
    }
    // The checkpoint follows the head's last allowed fork level (Octez `may_update_checkpoint`).
    const target = b.info.last_allowed_fork_level;
    if (target > this.locator("checkpoint").level) {
      const hash = branch.get(target) ?? this.store.hashAtLevel(target);
      if (hash !== undefined) {
        ops.push(this.store.putChainData("checkpoint", encodeBlockLocator(hash, target)));
        // invalid blocks at or below the new checkpoint can no longer be offered: forgotten (Octez's set_head)
        for (const invalid of this.store.invalidBlocks()) if (invalid.level <= target) ops.push(this.store.putInvalidBlock(invalid.block));
      }
    }
    ops.push(...this.historyMove(b, branch));
    return ops;
  }

  /** Levels computed by `headMove`, adopted once its write is durable. */
  private pendingLevels: HistoryLevels | undefined;

  /**
   * Writes that move the savepoint and caboose when `b` as head passes a cycle end (Octez's merge
   * after a cycle); the pruner deletes below them once they are durable.
   */
  private historyMove(b: Block, branch: Map<number, string>): WriteOp[] {
    const reader: BranchReader = {
      hashAt: (level) => (level === b.header.level ? b.hash : (branch.get(level) ?? this.store.hashAtLevel(level))),
      record: (hash) => (hash === b.hash ? b.info : this.store.info(hash)),
    };
    const before = this.historyLevels;
    const { levels, merge: computed } = mergeOnNewHead(this.historyMode, before, b.header.level, b.info.last_allowed_fork_level, this.locator("savepoint"), this.locator("caboose"), reader);
    if (levels === before) return [];
    const pin = this.pinnedLevel();
    const pinHash = pin === undefined ? undefined : reader.hashAt(pin);
    const merge = computed && holdAtPin(computed, pin === undefined || pinHash === undefined ? undefined : { hash: pinHash, level: pin });
    this.pendingLevels = levels;
    const ops = [this.store.putChainData("history_levels", encodeHistoryLevels(levels))];
    if (merge !== undefined) {
      ops.push(this.store.putChainData("savepoint", encodeBlockLocator(merge.savepoint.hash, merge.savepoint.level)));
      ops.push(this.store.putChainData("caboose", encodeBlockLocator(merge.caboose.hash, merge.caboose.level)));
    }
    return ops;
  }

  /**
   * Context hashes of every block kept with its metadata: the main branch from the savepoint to
   * the head, and the known heads' branches down to it (the context collector's roots).
   */
  contextRoots(): Uint8Array[] {
    const savepoint = this.locator("savepoint").level;
    const roots = new Map<string, Uint8Array>();
    const add = (b: Block) => roots.set(b.header.context, b58decode(B58.contextHash, b.header.context));
    for (let level = Math.max(savepoint, 0); level <= this.headBlock.header.level; level++) {
      const b = this.blockAtLevel(level);
      if (b !== undefined) add(b);
    }
    for (const head of this.knownHeads()) {
      let cur: Block | undefined = head;
      while (cur !== undefined && cur.header.level >= savepoint && !this.isOnMainBranch(cur)) {
        add(cur);
        cur = this.block(cur.header.predecessor);
      }
    }
    return [...roots.values()];
  }

  /**
   * One dead branch: a known head off the main branch whose fork point is below the checkpoint
   * (Octez refuses such a branch, so it can never be the head). Answers the writes that delete
   * its blocks (those off the main branch) and drop it from the known heads, which it already
   * leaves out of {@link knownHeads}; `undefined` when there is none.
   */
  deadBranch(): { ops: WriteOp[]; blocks: string[] } | undefined {
    const checkpoint = this.locator("checkpoint").level;
    for (const hash of this.knownHeadSet) {
      if (hash === this.headBlock.hash) continue;
      const blocks: string[] = [];
      let cur = this.storedBlock(hash);
      // A head whose write has not landed yet (a block being stored: the head to be) is no branch to judge.
      if (cur === undefined) continue;
      while (cur !== undefined && !this.isOnMainBranch(cur)) {
        blocks.push(cur.hash);
        cur = this.storedBlock(cur.header.predecessor);
      }
      // The fork point: the main-branch block the branch grows on (gone when below the caboose).
      if (cur !== undefined && cur.header.level >= checkpoint) continue;
      const heads = new Set(this.knownHeadSet);
      heads.delete(hash);
      this.knownHeadSet = heads;
      return { ops: [...blocks.flatMap((h) => this.store.deleteBlock(h)), this.store.putChainData("known_heads", encodeHashes(heads))], blocks };
    }
    return undefined;
  }

  /**
   * Puts the head back to `target`, a main-branch block (a sandbox revert): the blocks above it
   * on the main branch and the branches forking above it are forgotten at once (no longer
   * answered, counted for fork choice, nor built on; the pruner deletes them in the background),
   * the level index ends at `target`, the checkpoint comes down to it when it was above (and the
   * merges' bookkeeping to its lafl, `levelsAfterRevert`), and
   * `extra` joins the same atomic write. The contexts are the store's own: nothing is replayed.
   * The heads' watchers are told of `target`. The work grows with the forgotten blocks, not with
   * the chain.
   */
  async revertTo(target: Block, extra: readonly WriteOp[] = []): Promise<void> {
    while (this.storing !== undefined) await this.storing.catch(() => {});
    if (this.block(target.hash) === undefined || !this.isOnMainBranch(target)) throw new RangeError(`Cannot revert to ${target.hash}: not a block of the main branch`);
    const head = this.headBlock;
    const level = target.header.level;
    const forgotten = new Set(this.forgottenSet);
    for (let l = level + 1; l <= head.header.level; l++) {
      const hash = this.store.hashAtLevel(l);
      if (hash !== undefined) forgotten.add(hash);
    }
    const heads = new Set<string>([target.hash]);
    for (const hash of this.knownHeadSet) {
      if (hash === head.hash || forgotten.has(hash)) continue;
      const branch: string[] = [];
      let cur = this.storedBlock(hash);
      while (cur !== undefined && !this.isOnMainBranch(cur)) {
        branch.push(cur.hash);
        cur = this.storedBlock(cur.header.predecessor);
      }
      if (cur !== undefined && cur.header.level > level) for (const h of branch) forgotten.add(h);
      else heads.add(hash);
    }
    const ops: WriteOp[] = [
      this.store.putChainData("head", encodeBlockLocator(target.hash, level)),
      ...this.store.truncateLevels(level),
      this.store.putChainData("known_heads", encodeHashes(heads)),
      this.store.putChainData("forgotten", encodeHashes(forgotten)),
      ...extra,
    ];
    const levels = levelsAfterRevert(this.historyLevels, target.info.last_allowed_fork_level, this.locator("savepoint").level);
    if (levels !== this.historyLevels) ops.push(this.store.putChainData("history_levels", encodeHistoryLevels(levels)));
    const checkpoint = this.locator("checkpoint");
    if (checkpoint.level > level) {
      const at = Math.min(level, Math.max(target.info.last_allowed_fork_level, this.locator("savepoint").level, 0));
      const hash = this.store.hashAtLevel(at);
      if (hash !== undefined) ops.push(this.store.putChainData("checkpoint", encodeBlockLocator(hash, at)));
    }
    // the new state counts from now: a block being validated on a forgotten one is refused
    this.headBlock = target;
    this.knownHeadSet = heads;
    this.forgottenSet = forgotten;
    this.historyLevels = levels;
    await this.store.kv.write(ops);
    this.pruner.wake();
    this.heads.notify(target);
  }

  /** The writes that delete a batch of forgotten blocks and drop them from the `forgotten` row; `undefined` when none. */
  private forgottenBatch(): { ops: WriteOp[]; blocks: string[] } | undefined {
    if (this.forgottenSet.size === 0) return undefined;
    const blocks = [...this.forgottenSet].slice(0, 64);
    const forgotten = new Set(this.forgottenSet);
    for (const h of blocks) forgotten.delete(h);
    // they stay forgotten in memory until their deletion is written (`forget` then drops them)
    return { ops: [...blocks.flatMap((h) => this.store.deleteBlock(h)), this.store.putChainData("forgotten", encodeHashes(forgotten))], blocks };
  }

  /** Every block recorded as invalid. */
  invalidBlocks(): InvalidBlock[] {
    return this.store.invalidBlocks();
  }

  /** Records a block as invalid with the errors that refused it. */
  async markInvalid(hash: string, level: number, errors: Json): Promise<void> {
    await this.store.kv.write([this.store.putInvalidBlock(hash, { block: hash, level, errors })]);
  }

  /** Forgets that a block was invalid; false if it was not recorded. */
  async unmarkInvalid(hash: string): Promise<boolean> {
    if (this.store.invalidBlock(hash) === undefined) return false;
    await this.store.kv.write([this.store.putInvalidBlock(hash)]);
    return true;
  }

  /** Ends every monitor stream and stops the pruner after its current step. */
  async close(): Promise<void> {
    this.heads.close();
    this.validBlocks.close();
    await this.pruner.stop();
  }
}

/** Octez's refusal of a history-mode switch, naming the switches it allows. */
function switchRefused(from: HistoryMode, to: HistoryMode, forced: boolean): HistoryModeMismatch {
  const allowed =
    "The allowed switches are archive to full or rolling, full to rolling, and another number of additional cycles in full or rolling mode (full:N, rolling:N).";
  if (forced) return new HistoryModeMismatch(`Cannot switch from history mode ${describeHistoryMode(from)} to ${describeHistoryMode(to)}. ${allowed}`);
  return new HistoryModeMismatch(
    `Cannot switch from history mode ${describeHistoryMode(from)} to ${describeHistoryMode(to)}. In order to change your history mode please refer to the Tezos node documentation. If you really want to change your history mode, run this command again with the \`--force-history-mode-switch\` option. ${allowed}`,
  );
}

/** Records a forced switch: the new mode, and the savepoint and caboose Octez infers for it (the pruner follows). */
async function switchHistoryMode(store: BlockStore, from: HistoryMode, to: HistoryMode, read: (hash: string) => Block): Promise<void> {
  const head = read(decodeBlockLocator(store.chainData("head")!).hash);
  const raw = store.chainData("history_levels");
  const state = raw === undefined ? INITIAL_HISTORY_LEVELS : decodeHistoryLevels(raw);
  const reader: BranchReader = { hashAt: (level) => store.hashAtLevel(level), record: (hash) => store.info(hash) };
  const r = levelsAfterSwitch(
    from,
    to,
    state,
    { level: head.header.level, lafl: head.info.last_allowed_fork_level, ttl: head.info.max_operations_ttl },
    decodeBlockLocator(store.chainData("savepoint")!),
    decodeBlockLocator(store.chainData("caboose")!),
    reader,
  );
  await store.kv.write([
    store.putChainData("history_mode", utf8.encode(printHistoryMode(to))),
    store.putChainData("history_levels", encodeHistoryLevels(r.levels)),
    store.putChainData("savepoint", encodeBlockLocator(r.savepoint.hash, r.savepoint.level)),
    store.putChainData("caboose", encodeBlockLocator(r.caboose.hash, r.caboose.level)),
  ]);
}

function encodeHashes(hashes: Set<string>): Uint8Array {
  const out = new Uint8Array(32 * hashes.size);
  let i = 0;
  for (const h of hashes) out.set(b58decode(B58.blockHash, h), 32 * i++);
  return out;
}

function decodeHashes(bytes: Uint8Array): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + 32 <= bytes.length; i += 32) out.add(b58encode(B58.blockHash, bytes.subarray(i, i + 32)));
  return out;
}

function readBlock(store: BlockStore, hash: string): Block | undefined {
  const bytes = store.header(hash);
  if (bytes === undefined) return undefined;
  const info = store.info(hash);
  if (info === undefined) return undefined;
  return { hash, bytes, header: decodeBinary(rawBlockHeader, bytes), info };
}
