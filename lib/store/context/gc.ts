/**
 * Context garbage collection: deletes the context nodes and commits that no kept commit needs.
 *
 * A collection first marks every node reachable from the kept commits' roots (parents are not
 * followed: a kept commit's `parents` may name deleted commits, `checkout` never reads them),
 * then sweeps the `contextCommit` table and then the `contextNode` table, deleting what is
 * neither kept nor protected. It runs in steps: each step does a bounded amount of synchronous
 * work (`stepNodes` store reads or rows) and at most one `store.write` of deletes, so the node can
 * interleave it with block validation and RPCs.
 *
 * Safety:
 * - Nothing is deleted before marking is complete, and commits are deleted before nodes: killed
 *   at any point, the store holds the kept commits whole, and any other commit left is whole too.
 * - Commits made while it runs keep everything they write or reuse (see `guard.ts`): `commit`
 *   tells the collection, and reuses a stored node only if the collection keeps it. The same
 *   holds for a commit computed before the collection started whose write lands during it.
 *   This relies on the store applying writes in the order they are issued (a delete batch in
 *   flight lands before a commit's later put of the same node).
 * - While nodes are being deleted, and after a crash until a later collection completes, the
 *   store holds a marker row (`sweepMarkerKey`) that makes `commit` rewrite unkept nodes rather
 *   than trust them.
 * - `commit`'s "already stored" check reads the store, never the node cache (`loader.ts`); the
 *   cache may still hold deleted nodes for contexts checked out earlier, with their right bytes.
 * - A context checked out from a commit the collection does not keep must not be used after it:
 *   its reads may meet deleted nodes (`ContextCorruptionError`), and `commit` on it fails once
 *   the sweep has started.
 *
 * Memory: one entry (a 32-char string in a `Set`) per kept node, plus the ids of nodes written by
 * commits during the collection.
 * @module
 */
import { B58, b58encode } from "../../encoding/base58.ts";
import type { KeyValueStore, WriteOp } from "../kv.ts";
import { Table, tableRange } from "../tables.ts";
import { readCommit } from "./commit.ts";
import { type CommitProtection, guardOf, type RunningCollection, type StoreGuard, sweepMarkerKey } from "./guard.ts";
import { hex, nodeKey } from "./loader.ts";
import { ContextCorruptionError, hashId, linkedHashes } from "./node.ts";

/** Options of `startContextCollection`. */
export interface ContextCollectionOptions {
  /**
   * Work per step: nodes read while marking, rows scanned (and at most as many deletes in one
   * write) while sweeping. Default {@link DEFAULT_STEP_NODES}.
   */
  readonly stepNodes?: number;
}

/** Default `stepNodes`: a few milliseconds of work on LMDB. */
export const DEFAULT_STEP_NODES = 200;

/** Where a collection is: marking, deleting commits, deleting nodes, finished (or cancelled). */
export type ContextCollectionPhase = "mark" | "commits" | "nodes" | "done";

/** What a collection has done so far. */
export interface ContextCollectionStats {
  phase: ContextCollectionPhase;
  /** Distinct kept commits (the roots). */
  keptCommits: number;
  /** Nodes found reachable from the kept commits. */
  marked: number;
  /** Nodes written by commits made during the collection (kept too). */
  protectedNodes: number;
  deletedCommits: number;
  deletedNodes: number;
  /** Steps taken (calls of `step` that did work). */
  steps: number;
}

/** A running collection, as `startContextCollection` returns it. */
export interface ContextCollection {
  /**
   * Does one step; resolves to `true` once the collection is finished. Call it again only after
   * the previous call has resolved.
   * @throws ContextCorruptionError when a kept commit's tree is missing a node (found while
   * marking: nothing has been deleted, and the collection stops).
   */
  step(): Promise<boolean>;
  /** Progress so far (updated in place). */
  readonly stats: Readonly<ContextCollectionStats>;
  /**
   * Stops the collection (before its next step). The store stays consistent; the nodes left to
   * delete are deleted by a later collection.
   */
  cancel(): void;
}

/**
 * Starts a collection of `store`'s context, keeping the commits `roots` (context hashes, 32
 * bytes each) and every node their trees use; everything else in the context tables goes.
 * Nothing is read beyond the roots' commits nor deleted until `step` is called.
 * @throws TypeError / RangeError for a root that is not 32 bytes, Error for a root that is not a
 * commit of the store or when a collection already runs on it (before anything is deleted).
 * @example
 * const gc = startContextCollection(store, keptContextHashes);
 * while (!(await gc.step())) await new Promise((r) => setTimeout(r, 0)); // let other work run
 */
export function startContextCollection(
  store: KeyValueStore,
  roots: Iterable<Uint8Array>,
  options: ContextCollectionOptions = {},
): ContextCollection {
  const stepNodes = options.stepNodes ?? DEFAULT_STEP_NODES;
  if (!Number.isSafeInteger(stepNodes) || stepNodes < 1) {
    throw new RangeError(`startContextCollection: stepNodes must be a positive integer, got ${String(stepNodes)}`);
  }
  const guard = guardOf(store);
  const kept = new Map<string, Uint8Array>(); // commit id -> root node hash
  let i = 0;
  for (const root of roots) {
    if (!(root instanceof Uint8Array)) throw new TypeError(`startContextCollection: roots[${i}] must be a Uint8Array`);
    if (root.length !== 32) throw new RangeError(`startContextCollection: roots[${i}] must be 32 bytes, got ${root.length}`);
    const c = readCommit(store, root);
    if (c === undefined && isPending(guard, root)) {
      // Computed, its write not landed yet (a block being stored): the collection adopts it
      // with the pending commits, so it is kept whole once it lands.
      i++;
      continue;
    }
    if (c === undefined) throw new Error(`startContextCollection: context ${b58encode(B58.contextHash, root)} is not a commit of the store`);
    kept.set(hashId(root), c.root);
    i++;
  }
  if (guard.collection !== undefined) throw new Error("startContextCollection: a context collection is already running on this store");
  return new Collection(store, guard, kept, stepNodes);
}

/** Whether `commit` is a commit of `guard`'s store computed but not written yet. */
function isPending(guard: StoreGuard, commit: Uint8Array): boolean {
  guard.dropLanded();
  return guard.pending.some((p) => p.commit.length === commit.length && p.commit.every((b, j) => b === commit[j]));
}

/** Runs a whole collection (see `startContextCollection`), yielding to other work between steps. */
export async function collectContext(
  store: KeyValueStore,
  roots: Iterable<Uint8Array>,
  options: ContextCollectionOptions = {},
): Promise<ContextCollectionStats> {
  const gc = startContextCollection(store, roots, options);
  while (!(await gc.step())) await new Promise((resolve) => setTimeout(resolve, 0));
  return { ...gc.stats };
}

class Collection implements ContextCollection, RunningCollection {
  readonly stats: ContextCollectionStats;
  readonly #store: KeyValueStore;
  readonly #guard: StoreGuard;
  readonly #stepNodes: number;
  /** Kept commits (roots), by id. */
  readonly #keptCommits: Set<string>;
  /** Commits made during the collection (or pending when it started), by id. */
  readonly #protectedCommits = new Set<string>();
  /** Nodes reachable from the kept commits (complete once the phase leaves "mark"). */
  readonly #marked = new Set<string>();
  /** Nodes written by commits made during the collection. */
  readonly #protected = new Set<string>();
  /** Nodes to visit from the kept commits (a missing one is corruption). */
  readonly #toVisit: Uint8Array[] = [];
  /** Nodes to visit that commits reused (a missing one is skipped). */
  readonly #toVisitReused: Uint8Array[] = [];
  /** Key after which the sweep of the current table resumes. */
  #cursor: Uint8Array | undefined;
  #busy = false;

  constructor(store: KeyValueStore, guard: StoreGuard, kept: Map<string, Uint8Array>, stepNodes: number) {
    this.#store = store;
    this.#guard = guard;
    this.#stepNodes = stepNodes;
    this.#keptCommits = new Set(kept.keys());
    for (const root of kept.values()) this.#toVisit.push(root);
    this.stats = { phase: "mark", keptCommits: kept.size, marked: 0, protectedNodes: 0, deletedCommits: 0, deletedNodes: 0, steps: 0 };
    guard.collection = this;
    guard.dropLanded();
    for (const p of guard.pending) this.protect(p); // computed earlier, their write may land now
  }

  get sweeping(): boolean {
    return this.stats.phase !== "mark";
  }

  keeps(id: string): boolean {
    return this.#marked.has(id) || this.#protected.has(id);
  }

  protect(p: CommitProtection): void {
    if (this.stats.phase === "done") return;
    this.#protectedCommits.add(hashId(p.commit));
    for (const id of p.written) {
      if (!this.#protected.has(id)) {
        this.#protected.add(id);
        this.stats.protectedNodes++;
      }
    }
    // Once sweeping, `commit` reuses only nodes this collection keeps: nothing to add.
    if (this.stats.phase === "mark") for (const id of p.found) if (!this.#marked.has(id)) this.#toVisitReused.push(idBytes(id));
  }

  cancel(): void {
    this.#finish();
  }

  async step(): Promise<boolean> {
    if (this.#busy) throw new Error("ContextCollection.step: the previous step has not finished");
    if (this.stats.phase === "done") return true;
    this.#busy = true;
    try {
      this.stats.steps++;
      if (this.stats.phase === "mark") {
        if (this.#mark()) this.stats.phase = "commits";
        return false;
      }
      const table = this.stats.phase === "commits" ? Table.contextCommit : Table.contextNode;
      const { ops, next } = this.#sweep(table);
      if (table === Table.contextNode) {
        if (next === undefined) {
          ops.push({ key: sweepMarkerKey }); // the last batch: every unkept node is gone
        } else if (ops.length > 0) {
          this.#guard.interrupted = true; // before the deletes can land
          ops.push({ key: sweepMarkerKey, value: new Uint8Array([1]) });
        }
      }
      if (ops.length > 0) await this.#store.write(ops);
      const deleted = ops.filter((op) => op.value === undefined && op.key[0] === table).length;
      if (table === Table.contextCommit) this.stats.deletedCommits += deleted;
      else this.stats.deletedNodes += deleted;
      this.#cursor = next;
      if (next === undefined) {
        if (table === Table.contextCommit) this.stats.phase = "nodes";
        else {
          this.#guard.interrupted = false;
          this.#finish();
          return true;
        }
      }
      return false;
    } finally {
      this.#busy = false;
    }
  }

  #finish(): void {
    this.stats.phase = "done";
    if (this.#guard.collection === this) this.#guard.collection = undefined;
  }

  /** Visits up to `stepNodes` nodes; true when nothing is left to visit. */
  #mark(): boolean {
    const children: Uint8Array[] = [];
    let budget = this.#stepNodes;
    while (budget > 0) {
      const strict = this.#toVisit.length > 0;
      const hash = strict ? this.#toVisit.pop() : this.#toVisitReused.pop();
      if (hash === undefined) return true;
      const id = hashId(hash);
      if (this.#marked.has(id)) continue;
      budget--;
      const bytes = this.#store.get(nodeKey(hash));
      if (bytes === undefined) {
        if (!strict) continue; // a commit reused it but it is gone: that commit was made on a pruned context
        this.#finish();
        throw new ContextCorruptionError(`context collection: node ${hex(hash)} of a kept commit is missing from the store; nothing was deleted`);
      }
      this.#marked.add(id);
      this.stats.marked++;
      children.length = 0;
      childHashes(bytes, children);
      for (const c of children) {
        if (!this.#marked.has(hashId(c))) (strict ? this.#toVisit : this.#toVisitReused).push(c);
      }
    }
    return this.#toVisit.length === 0 && this.#toVisitReused.length === 0;
  }

  /** Deletes for the next `stepNodes` rows of `table`, and where to resume (none at its end). */
  #sweep(table: number): { ops: WriteOp[]; next: Uint8Array | undefined } {
    const range = tableRange(table);
    const gte = this.#cursor ?? range.gte;
    const kept = table === Table.contextCommit
      ? (id: string) => this.#keptCommits.has(id) || this.#protectedCommits.has(id)
      : (id: string) => this.keeps(id);
    const ops: WriteOp[] = [];
    let last: Uint8Array | undefined;
    let rows = 0;
    for (const [k] of this.#store.range({ gte, lt: range.lt, limit: this.#stepNodes })) {
      rows++;
      last = k;
      if (!kept(hashId(k.subarray(1)))) ops.push({ key: k });
    }
    if (rows < this.#stepNodes || last === undefined) return { ops, next: undefined };
    const next = new Uint8Array(last.length + 1); // the smallest key after `last`
    next.set(last);
    return { ops, next };
  }
}

/** The hashes of the nodes a stored node links to. */
function childHashes(bytes: Uint8Array, out: Uint8Array[]): void {
  linkedHashes(bytes, out); // every stored encoding, packed inline subdirectories included (node.ts)
}

/** The hash behind an id (`hashId`). */
function idBytes(id: string): Uint8Array {
  const out = new Uint8Array(id.length);
  for (let i = 0; i < id.length; i++) out[i] = id.charCodeAt(i);
  return out;
}
