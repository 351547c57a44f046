/**
 * The sandbox's queue of state changes (docs/sandbox.md, State): Anvil's `anvil_setBalance`,
 * `anvil_setStorageAt`, `anvil_setCode`, `anvil_setNonce`, for a chain whose every block is
 * checked against its context hash. A change is not written into the head's context (that would
 * change a stored block); it waits for the next block the node builds, and is written into that
 * block's predecessor context before its operations are applied, so the block's context hash
 * holds it:
 *
 * 1. {@link SandboxChanges.queue} checks the change on the head (with the changes still pending
 *    before it) and stores it as `pending`;
 * 2. when the validator builds a block on the head ({@link SandboxChanges.prepareContext},
 *    `build`), the pending changes are bound to that predecessor (stored with it, and with each
 *    change's outcome): from then on every block built or applied on that predecessor gets the
 *    same changes, so the node's own validation, a second application (`apply`), and one after a
 *    restart, agree with the block it built;
 * 3. once a block on that predecessor is the head's ancestor or the head, the changes are
 *    `applied` at its level and hash (or `skipped` with the error of a change that no longer
 *    held when it was written);
 * 4. if that block leaves the chain (a revert to a snapshot below it), they are `reverted`,
 *    unbound from their predecessor: a block built on it again does not carry them.
 *
 * The records live in the store (`sandboxChanges`, one row per change: chain id + u32 id ->
 * JSON), so `GET /sandbox/changes` lists pending and applied changes after a restart too.
 *
 * @example
 * ```ts
 * const changes = await SandboxChanges.open({ chain, writers: (p) => (p === HANGZHOU ? writeSandboxChanges : undefined) });
 * const validator = new BlockValidator(chain, protocols, { prepareContext: changes.prepareContext });
 * await changes.queue({ kind: "balance", address: "tz1…", balance: 10_000_000n });
 * ```
 * @module
 */
import { B58, b58decode } from "../encoding/base58.ts";
import type { Json } from "../encoding/codec.ts";
import { TezosError } from "../errors/registry.ts";
import type { Block, Chain } from "../shell/chain.ts";
import { checkout, type Context } from "../store/context/mod.ts";
import { key, prefixRange, Table, u32 } from "../store/tables.ts";
import { changeOf, changeTarget, changeValue, type SandboxChange, type SandboxChangeKind } from "./change.ts";
import { unsupportedProtocol } from "./state-errors.ts";

/**
 * Writes changes into the context of a block of one protocol (`writeSandboxChanges` of
 * `lib/protocols/hangzhou/sandbox-changes.ts`): the new context, and per change `undefined` or
 * the error that skipped it. It must be deterministic.
 */
export type ChangeWriter = (
  context: Context,
  block: { readonly level: number; readonly timestamp: number; readonly chainId: string },
  changes: readonly SandboxChange[],
) => { readonly context: Context; readonly errors: readonly (TezosError | undefined)[] };

/** A change as `GET /sandbox/changes` lists it. */
export interface ChangeRecord {
  /** Its number, from 1, in the order changes were queued. */
  readonly id: number;
  readonly kind: SandboxChangeKind;
  readonly target: string;
  readonly value: Json;
  /**
   * `pending` until a block holds it; then `applied`, or `skipped` when it no longer held; and
   * `reverted` once that block has left the chain (a `/sandbox/revert` below it): the change is
   * undone with it, as Anvil's revert undoes its `anvil_set*` calls, and never written again.
   */
  readonly status: "pending" | "applied" | "skipped" | "reverted";
  /** The level and hash of the block that holds it (applied or skipped). */
  readonly level?: number;
  readonly block?: string;
  /** Why it was skipped (an error list, Octez's JSON). */
  readonly error?: Json;
}

/** A stored change: its record, and the predecessor it was bound to with its outcome. */
interface Row {
  id: number;
  kind: SandboxChangeKind;
  target: string;
  value: Json;
  status: ChangeRecord["status"];
  level?: number;
  block?: string;
  error?: Json;
  /** The block the change is written on top of (bound when a block was built on it). */
  predecessor?: string;
  /** What writing it there gave. */
  outcome?: "applied" | "skipped";
}

/** Options of {@link SandboxChanges.open}. */
export interface SandboxChangesOptions {
  readonly chain: Chain;
  /** The writer of the protocol whose blocks follow a block (its `next_protocol`), if it takes changes. */
  readonly writers: (protocol: string) => ChangeWriter | undefined;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The sandbox's state changes of one chain (see the module documentation). */
export class SandboxChanges {
  private readonly chain: Chain;
  private readonly writers: SandboxChangesOptions["writers"];
  private readonly chainIdBytes: Uint8Array;
  private readonly rows: Row[];
  private readonly waiting = new Map<number, { resolve: (r: ChangeRecord) => void; reject: (e: unknown) => void }[]>();
  private heads: AsyncIterableIterator<Block> | undefined;
  /** The store writes under way, which {@link close} waits for. */
  private writes: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(options: SandboxChangesOptions, rows: Row[]) {
    this.chain = options.chain;
    this.writers = options.writers;
    this.chainIdBytes = b58decode(B58.chainId, options.chain.chainId);
    this.rows = rows;
  }

  /** The changes of `options.chain` as its store holds them, settled against its blocks; follows its heads until {@link close}. */
  static async open(options: SandboxChangesOptions): Promise<SandboxChanges> {
    const chainId = b58decode(B58.chainId, options.chain.chainId);
    const rows: Row[] = [];
    for (const [, v] of options.chain.store.kv.range(prefixRange(key(Table.sandboxChanges, chainId)))) rows.push(JSON.parse(decoder.decode(v)) as Row);
    rows.sort((a, b) => a.id - b.id);
    const changes = new SandboxChanges(options, rows);
    await changes.settle();
    changes.follow();
    return changes;
  }

  /** Every change, oldest first. */
  list(): ChangeRecord[] {
    void this.settle();
    return this.rows.map(recordOf);
  }

  /**
   * Checks `change` on the head (after the changes still pending) and queues it; its record.
   * Throws the change's error (a TezosError) and queues nothing when it does not hold.
   */
  async queue(change: SandboxChange): Promise<ChangeRecord> {
    await this.settle();
    const head = this.chain.head;
    const writer = this.writers(head.info.next_protocol);
    if (writer === undefined) throw unsupportedProtocol.error({ protocol: head.info.next_protocol });
    const pending = this.rows.filter((r) => r.status === "pending");
    const { errors } = writer(this.contextOf(head), this.blockOf(head), [...pending.map(changeOfRow), change]);
    const error = errors[errors.length - 1];
    if (error !== undefined) throw error;
    const row: Row = {
      id: (this.rows[this.rows.length - 1]?.id ?? 0) + 1,
      kind: change.kind,
      target: changeTarget(change),
      value: changeValue(change),
      status: "pending",
    };
    this.rows.push(row);
    await this.write([row]);
    return recordOf(row);
  }

  /** Resolves with the record of change `id` once a block holds it (at once if one does). */
  settled(id: number): Promise<ChangeRecord> {
    const row = this.rows.find((r) => r.id === id);
    if (row === undefined) return Promise.reject(new RangeError(`No sandbox change ${id}`));
    if (row.status !== "pending") return Promise.resolve(recordOf(row));
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(id) ?? [];
      list.push({ resolve, reject });
      this.waiting.set(id, list);
    });
  }

  /** Whether the next block built on `head` writes changes (then it takes no mempool operation). */
  carriesChanges(head: Block): boolean {
    if (this.writers(head.info.next_protocol) === undefined) return false;
    return this.rows.some((r) => r.status === "pending" && (r.predecessor === undefined || r.predecessor === head.hash || !this.alive(r.predecessor)));
  }

  /**
   * The validator's hook (`PrepareContext` of `lib/shell/validator.ts`): `context` (of `pred`)
   * with the changes bound to `pred` written in; for a block built on the head, the pending
   * changes are bound to it first when none are.
   */
  readonly prepareContext = async (pred: Block, context: Context, purpose: "build" | "apply"): Promise<Context> => {
    const writer = this.writers(pred.info.next_protocol);
    if (writer === undefined) return context;
    await this.settle();
    // bound to this predecessor: pending, or already in a block on it (applied again)
    let bound = this.rows.filter((r) => r.predecessor === pred.hash);
    if (bound.length > 0) return writer(context, this.blockOf(pred), bound.map(changeOfRow)).context;
    if (purpose !== "build" || pred.hash !== this.chain.head.hash) return context;
    // the changes not bound yet, or bound to a block that has left the chain (nothing was built on it)
    bound = this.rows.filter((r) => r.status === "pending" && (r.predecessor === undefined || !this.alive(r.predecessor)));
    if (bound.length === 0) return context;
    const written = writer(context, this.blockOf(pred), bound.map(changeOfRow));
    bound.forEach((row, i) => {
      const error = written.errors[i];
      row.predecessor = pred.hash;
      row.outcome = error === undefined ? "applied" : "skipped";
      if (error === undefined) delete row.error;
      else row.error = error.toJson() as Json;
    });
    await this.write(bound);
    return written.context;
  };

  /** Stops following the chain's heads; those waiting for a change are told the node closed. */
  async close(): Promise<void> {
    this.closed = true;
    await this.heads?.return?.();
    this.heads = undefined;
    for (const list of this.waiting.values()) for (const w of list) w.reject(new Error("The node closed before the sandbox change was in a block"));
    this.waiting.clear();
    await this.writes;
  }

  /**
   * Marks the changes whose predecessor now has a successor on the main branch as applied (or
   * skipped) there, and those whose block left the chain as reverted.
   */
  private async settle(): Promise<void> {
    const done: Row[] = [];
    for (const row of this.rows) {
      if ((row.status === "applied" || row.status === "skipped") && this.leftChain(row)) {
        row.status = "reverted";
        delete row.predecessor;
        delete row.outcome;
        done.push(row);
        continue;
      }
      if (row.status !== "pending" || row.predecessor === undefined) continue;
      const pred = this.chain.block(row.predecessor);
      if (pred === undefined || !this.chain.isOnMainBranch(pred)) continue;
      const next = this.chain.blockAtLevel(pred.header.level + 1);
      if (next === undefined || next.header.predecessor !== pred.hash) continue;
      row.status = row.outcome ?? "applied";
      row.level = next.header.level;
      row.block = next.hash;
      done.push(row);
    }
    if (done.length === 0) return;
    for (const row of done) {
      const list = this.waiting.get(row.id);
      this.waiting.delete(row.id);
      for (const w of list ?? []) w.resolve(recordOf(row));
    }
    await this.write(done);
  }

  /** Settles at each new head. */
  private follow(): void {
    const heads = this.chain.heads.subscribe();
    this.heads = heads;
    void (async () => {
      for await (const _ of heads) await this.settle();
    })();
  }

  /**
   * Whether the block holding an applied change is no longer the chain's at its level: above the
   * head, or another block there. A level pruned away (rolling mode) answers no block: kept.
   */
  private leftChain(row: Row): boolean {
    if (row.level === undefined) return false;
    if (row.level > this.chain.head.header.level) return true;
    const there = this.chain.blockAtLevel(row.level);
    return there !== undefined && there.hash !== row.block;
  }

  /** Whether a block is still on the main branch (a binding to a block that left it is dead). */
  private alive(hash: string): boolean {
    const b = this.chain.block(hash);
    return b !== undefined && this.chain.isOnMainBranch(b);
  }

  private blockOf(b: Block): { level: number; timestamp: number; chainId: string } {
    return { level: b.header.level, timestamp: b.header.timestamp, chainId: this.chain.chainId };
  }

  private contextOf(b: Block): Context {
    const ctx = checkout(this.chain.store.kv, b58decode(B58.contextHash, b.header.context));
    if (ctx === undefined) throw new Error(`The context of block ${b.hash} is missing from the store`);
    return ctx;
  }

  private write(rows: readonly Row[]): Promise<void> {
    if (this.closed) return Promise.resolve();
    const done = this.chain.store.kv.write(rows.map((r) => ({ key: key(Table.sandboxChanges, this.chainIdBytes, u32(r.id)), value: encoder.encode(JSON.stringify(r)) })));
    this.writes = Promise.all([this.writes, done.catch(() => {})]);
    return done;
  }
}

function changeOfRow(row: Row): SandboxChange {
  return changeOf(row.kind, row.target, row.value);
}

function recordOf(row: Row): ChangeRecord {
  return {
    id: row.id,
    kind: row.kind,
    target: row.target,
    value: row.value,
    status: row.status,
    ...(row.level === undefined ? {} : { level: row.level }),
    ...(row.block === undefined ? {} : { block: row.block }),
    ...(row.error === undefined ? {} : { error: row.error }),
  };
}
