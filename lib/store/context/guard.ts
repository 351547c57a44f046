/**
 * What `commit` and a context collection (`gc.ts`) tell each other, per store.
 *
 * `commit` skips a node the store already holds, trusting that its whole subtree is stored too.
 * A collection breaks that trust for the nodes it is deleting: it removes them one batch at a
 * time, in hash order, so an unkept node can sit in the store with part of its subtree gone
 * (between two steps, or for good after a crash). So:
 * - while a collection runs on the store, or while the store says one was interrupted (the
 *   `sweepMarkerKey` row, written with the first node deletes and removed with the last), a
 *   commit reuses a stored node only if the collection keeps it; it writes the others again;
 * - every commit records what it writes and the stored nodes it found and reused
 *   (`CommitProtection`); a running collection keeps them, and one that starts adopts the
 *   records of commits whose write had not landed yet (a block built earlier and stored later).
 * @module
 */
import type { KeyValueStore } from "../kv.ts";
import { key, Table } from "../tables.ts";

/** The nodes a commit relies on beyond the tree it was checked out from. */
export interface CommitProtection {
  /** The commit hash. */
  readonly commit: Uint8Array;
  /** Ids (`hashId`) of the nodes the commit writes. */
  readonly written: string[];
  /** Ids of stored nodes the commit found in the store and links to without rewriting them. */
  readonly found: string[];
}

/** The side of a running collection that `commit` consults. */
export interface RunningCollection {
  /** Whether the node `id` stays: reachable from a kept commit (once marked) or protected. */
  keeps(id: string): boolean;
  /** True once nodes are being deleted: an unkept stored node may have lost part of its subtree. */
  readonly sweeping: boolean;
  /** Keeps what a commit made during the collection writes and reuses. */
  protect(p: CommitProtection): void;
}

/** Store key of the row present while a collection deletes nodes (in the `config` table). */
export const sweepMarkerKey: Uint8Array = key(Table.config, "context_collection");

/** Unlanded commits remembered per store (a commit's write normally lands before the next). */
export const PENDING_COMMITS = 16;

/** The per-store state shared by `commit` and the collection. */
export class StoreGuard {
  /** The collection running on the store, if any. */
  collection: RunningCollection | undefined;
  /** Whether `sweepMarkerKey` is in the store (read once, then kept up to date by collections). */
  #interrupted: boolean | undefined;
  /** Protections of recent commits whose write had not landed when last looked at. */
  readonly pending: CommitProtection[] = [];
  readonly #store: KeyValueStore;

  constructor(store: KeyValueStore) {
    this.#store = store;
  }

  /** Whether deletes of a collection may have left unkept nodes with partial subtrees. */
  get interrupted(): boolean {
    return (this.#interrupted ??= this.#store.get(sweepMarkerKey) !== undefined);
  }
  set interrupted(value: boolean) {
    this.#interrupted = value;
  }

  /** Records the protection of a new commit (and hands it to the running collection). */
  record(p: CommitProtection): void {
    this.dropLanded();
    this.pending.push(p);
    if (this.pending.length > PENDING_COMMITS) this.pending.shift();
    this.collection?.protect(p);
  }

  /** Forgets the commits whose row is now in the store (their write landed, whole). */
  dropLanded(): void {
    for (let i = this.pending.length - 1; i >= 0; i--) {
      if (this.#store.get(key(Table.contextCommit, this.pending[i]!.commit)) !== undefined) this.pending.splice(i, 1);
    }
  }
}

const guards = new WeakMap<KeyValueStore, StoreGuard>();

/** The guard of `store`, created on first use. */
export function guardOf(store: KeyValueStore): StoreGuard {
  let g = guards.get(store);
  if (g === undefined) guards.set(store, (g = new StoreGuard(store)));
  return g;
}
