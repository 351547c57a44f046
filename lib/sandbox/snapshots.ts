/**
 * The sandbox's snapshots (`POST /sandbox/snapshot`, `POST /sandbox/revert`), as Anvil's
 * `evm_snapshot` and `evm_revert`: a snapshot names the head of the moment; reverting to it puts
 * the head back there (`Chain.revertTo`: the later blocks are forgotten at once, the Merkle
 * store's contexts are the state, nothing is replayed), empties the mempool, forgets the
 * validator's built blocks, and sets the sandbox clock back to the time it showed when the
 * snapshot was taken (as Hardhat's `evm_revert`; not before the head's timestamp), from which it
 * runs on: a test that reverts starts again from the same time. Reverting consumes the snapshot and every one taken after it; an
 * unknown id is refused and changes nothing.
 *
 * The snapshots are kept in the chain data (`sandbox_snapshots`), written with the head in one
 * atomic write, so they outlive a restart. Each pins its block: the savepoint and the caboose
 * never pass the lowest snapshot's level (`Chain.pinnedLevel`), so its block, metadata and
 * context stay whatever the history mode.
 *
 * @example
 * ```ts
 * const snapshots = SandboxSnapshots.open({ chain, mempool: prevalidator, validator, clock });
 * const { id } = await snapshots.take(); // "0x1"
 * // … blocks …
 * await snapshots.revert(id);            // the head is back, the mempool empty
 * ```
 * @module
 */
import { int31, int32 } from "../encoding/integers.ts";
import { string } from "../encoding/bytes.ts";
import { decodeBinary, encodeBinary } from "../encoding/codec.ts";
import { blockHash } from "../encoding/hashes.ts";
import { timestamp } from "../encoding/time.ts";
import { list } from "../encoding/list.ts";
import { obj, req } from "../encoding/object.ts";
import { defineError, TezosError } from "../errors/registry.ts";
import type { Chain } from "../shell/chain.ts";
import type { WriteOp } from "../store/kv.ts";

/** `sandbox.unknown_snapshot`: a revert to an id that names no snapshot (never taken, or consumed). */
export const unknownSnapshot = defineError<{ snapshot: string }>({
  id: "sandbox.unknown_snapshot",
  kind: "permanent",
  title: "Unknown sandbox snapshot",
  description: "No snapshot has this id: it was never taken, or a revert consumed it (reverting consumes the snapshot and the ones taken after it).",
  fields: obj(req("snapshot", string)),
});

/** A snapshot: its id and the head it names. */
export interface SandboxSnapshot {
  /** `0x` and the snapshot's number in hexadecimal, as Anvil's ids. */
  readonly id: string;
  readonly block: string;
  readonly level: number;
}

/** What the snapshots act on besides the chain. */
export interface SnapshotsOptions {
  readonly chain: Chain;
  /** The mempool: emptied around the head's move (`Prevalidator.reset`). */
  readonly mempool: { reset(move: () => Promise<void>): Promise<void> };
  /** The block validator: its built blocks are forgotten. */
  readonly validator: { forgetBuilt(): void };
  /** The sandbox clock (`lib/sandbox/clock.ts`): read at a snapshot, set back at its revert. */
  readonly clock: { now(): number; set(seconds: number): Promise<unknown> };
}

interface Entry {
  readonly n: number;
  readonly block: string;
  readonly level: number;
  /** The sandbox clock when it was taken, seconds. */
  readonly time: number;
}

const rowCodec = obj(req("next", int31), req("snapshots", list(obj(req("n", int31), req("block", blockHash), req("level", int32), req("time", timestamp)))));

const idOf = (n: number) => `0x${n.toString(16)}`;

/** The number an id names (`0x` then hexadecimal digits, any case), or `undefined`. */
function numberOf(id: string): number | undefined {
  if (!/^0x[0-9a-fA-F]{1,7}$/.test(id)) return undefined;
  return Number.parseInt(id.slice(2), 16);
}

/** The snapshots of one sandbox chain (see the module documentation). */
export class SandboxSnapshots {
  readonly #options: SnapshotsOptions;
  #next: number;
  #entries: readonly Entry[];
  /** Levels held while a state export is read (`hold`), with their counts. */
  readonly #holds = new Map<number, number>();

  private constructor(options: SnapshotsOptions, next: number, entries: readonly Entry[]) {
    this.#options = options;
    this.#next = next;
    this.#entries = entries;
    options.chain.pinnedLevel = () => this.lowestLevel();
  }

  /** The snapshots stored with `options.chain`; they pin their blocks from now on. */
  static open(options: SnapshotsOptions): SandboxSnapshots {
    const row = options.chain.store.chainData("sandbox_snapshots");
    if (row === undefined) return new SandboxSnapshots(options, 1, []);
    const { next, snapshots } = decodeBinary(rowCodec, row);
    return new SandboxSnapshots(options, next, snapshots);
  }

  /** Every snapshot, oldest first. */
  list(): SandboxSnapshot[] {
    return this.#entries.map((e) => ({ id: idOf(e.n), block: e.block, level: e.level }));
  }

  /** The lowest level a snapshot (or a state export being read) pins; `undefined`: none. */
  lowestLevel(): number | undefined {
    let low: number | undefined;
    for (const e of this.#entries) if (low === undefined || e.level < low) low = e.level;
    for (const level of this.#holds.keys()) if (low === undefined || level < low) low = level;
    return low;
  }

  /** Takes a snapshot of the current head; resolves once it is durable. */
  async take(): Promise<SandboxSnapshot> {
    const head = this.#options.chain.head;
    const entry: Entry = { n: this.#next, block: head.hash, level: head.header.level, time: Math.floor(this.#options.clock.now() / 1000) };
    const entries = [...this.#entries, entry];
    // counted at once, so that a merge written meanwhile already holds at it
    this.#entries = entries;
    this.#next++;
    await this.#options.chain.store.kv.write([this.#row(this.#next, entries)]);
    return { id: idOf(entry.n), block: entry.block, level: entry.level };
  }

  /**
   * Puts the chain back to snapshot `id` and consumes it and the later ones; answers it.
   * @throws TezosError `sandbox.unknown_snapshot` (nothing changed).
   */
  async revert(id: string): Promise<SandboxSnapshot> {
    const { chain, mempool, validator, clock } = this.#options;
    let reverted: SandboxSnapshot | undefined;
    let time = 0;
    await mempool.reset(async () => {
      // looked up in the mempool's turn: a revert just before may have consumed it
      const n = numberOf(id);
      const entry = this.#entries.find((e) => e.n === n);
      const target = entry === undefined ? undefined : chain.block(entry.block);
      if (entry === undefined || target === undefined) throw new TezosError(unknownSnapshot.create({ snapshot: id }));
      const kept = this.#entries.filter((e) => e.n < entry.n);
      await chain.revertTo(target, [this.#row(this.#next, kept)]);
      this.#entries = kept;
      reverted = { id: idOf(entry.n), block: entry.block, level: entry.level };
      time = Math.max(entry.time, target.header.timestamp);
    });
    validator.forgetBuilt();
    await clock.set(time);
    return reverted!;
  }

  /**
   * Runs `read` with `level` pinned as a snapshot's (a state export reads the block at `level`
   * while blocks may be baked); the pin goes when it settles.
   */
  async hold<T>(level: number, read: () => Promise<T>): Promise<T> {
    this.#holds.set(level, (this.#holds.get(level) ?? 0) + 1);
    try {
      return await read();
    } finally {
      const left = this.#holds.get(level)! - 1;
      if (left === 0) this.#holds.delete(level);
      else this.#holds.set(level, left);
    }
  }

  #row(next: number, entries: readonly Entry[]): WriteOp {
    return this.#options.chain.store.putChainData("sandbox_snapshots", encodeBinary(rowCodec, { next, snapshots: [...entries] }));
  }
}
