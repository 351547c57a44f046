/**
 * The mempool's classes (Octez `Prevalidator_classification`): applied operations in the order
 * they were applied, and one bounded map per error class (refused, outdated, branch refused,
 * branch delayed) that forgets its oldest entry when full. An operation is in one class at most;
 * `inMempool` answers which, in constant time.
 * @module
 */
import type { TraceItem } from "../errors/registry.ts";
import type { Classification, ErrorClass } from "./mempool-plugin.ts";
import type { ShellOperation } from "./protocol.ts";

/** An operation the mempool knows: its bytes as received, the shell's view and its parsed data. */
export interface MempoolOperation<P = unknown> {
  readonly hash: string;
  /** The bytes as received (hashed and signed as such). */
  readonly bytes: Uint8Array;
  readonly shell: ShellOperation;
  /** The protocol data, as the protocol's plugin parsed it. */
  readonly data: P;
  /** Size as the protocol measures it (for the byte price of the filter). */
  readonly size: number;
  /** Arrival number: operations are reclassified in arrival order. */
  readonly seq: number;
}

/** An applied operation with its receipt. */
export interface AppliedEntry<P = unknown> {
  readonly op: MempoolOperation<P>;
  readonly receipt: Uint8Array;
}

/** An operation classified with errors. */
export interface ErrorEntry<P = unknown> {
  readonly op: MempoolOperation<P>;
  readonly trace: readonly TraceItem[];
}

/** A map that keeps its `capacity` latest entries (Octez's ring plus map). */
export class BoundedMap<V> {
  readonly capacity: number;
  private readonly map = new Map<string, V>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new RangeError(`BoundedMap: capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
  }

  /** Adds an entry; the key that had to go to make room, if any. */
  add(key: string, value: V): string | undefined {
    this.map.delete(key);
    let erased: string | undefined;
    if (this.map.size >= this.capacity) {
      erased = this.map.keys().next().value!;
      this.map.delete(erased);
    }
    this.map.set(key, value);
    return erased;
  }

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  delete(key: string): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }

  /** Entries, oldest first. */
  values(): IterableIterator<V> {
    return this.map.values();
  }
}

/** The mempool's classified operations. */
export class MempoolClasses<P = unknown> {
  /** Applied operations, in the order they were applied. */
  applied: AppliedEntry<P>[] = [];
  readonly refused: BoundedMap<ErrorEntry<P>>;
  readonly outdated: BoundedMap<ErrorEntry<P>>;
  readonly branchRefused: BoundedMap<ErrorEntry<P>>;
  readonly branchDelayed: BoundedMap<ErrorEntry<P>>;
  private readonly index = new Map<string, Classification>();

  /** `limit`: the size of each error class (Octez `max_refused_operations`, 1000). */
  constructor(limit: number) {
    this.refused = new BoundedMap(limit);
    this.outdated = new BoundedMap(limit);
    this.branchRefused = new BoundedMap(limit);
    this.branchDelayed = new BoundedMap(limit);
  }

  /** The class an operation is in, if any. */
  classOf(hash: string): Classification | undefined {
    return this.index.get(hash);
  }

  /** The map of an error class. */
  errors(c: ErrorClass): BoundedMap<ErrorEntry<P>> {
    switch (c) {
      case "refused":
        return this.refused;
      case "outdated":
        return this.outdated;
      case "branch_refused":
        return this.branchRefused;
      case "branch_delayed":
        return this.branchDelayed;
    }
  }

  /** Records an applied operation. */
  addApplied(op: MempoolOperation<P>, receipt: Uint8Array): void {
    this.applied.push({ op, receipt });
    this.index.set(op.hash, "applied");
  }

  /** Records an operation with errors; an entry pushed out of a full class leaves the mempool. */
  addError(c: ErrorClass, op: MempoolOperation<P>, trace: readonly TraceItem[]): void {
    const erased = this.errors(c).add(op.hash, { op, trace });
    if (erased !== undefined) this.index.delete(erased);
    this.index.set(op.hash, c);
  }

  /** Removes an operation from its class; its former class and entry. */
  remove(hash: string): { class: Classification; op: MempoolOperation<P> } | undefined {
    const c = this.index.get(hash);
    if (c === undefined) return undefined;
    this.index.delete(hash);
    if (c === "applied") {
      const i = this.applied.findIndex((e) => e.op.hash === hash);
      const [entry] = this.applied.splice(i, 1);
      return { class: c, op: entry!.op };
    }
    const map = this.errors(c);
    const entry = map.get(hash)!;
    map.delete(hash);
    return { class: c, op: entry.op };
  }

  /**
   * Forgets the classes that a new head invalidates (Octez `flush`): applied and branch delayed
   * operations, and branch refused ones when the head switched branch. Refused and outdated stay.
   */
  flush(handleBranchRefused: boolean): void {
    for (const e of this.applied) this.index.delete(e.op.hash);
    this.applied = [];
    const maps = handleBranchRefused ? [this.branchDelayed, this.branchRefused] : [this.branchDelayed];
    for (const m of maps) {
      for (const e of m.values()) this.index.delete(e.op.hash);
      m.clear();
    }
  }
}
