/**
 * Whether the node is in step with its peers, and whether it has bootstrapped: Octez v12's
 * synchronisation heuristic (`synchronisation_heuristic.ml`) and the bootstrapped flag its chain
 * validator keeps.
 *
 * The heuristic is told of candidates, `(timestamp, peer id)`: the timestamp of a block a peer
 * showed (its head, or the head of the branch it sent) once that block is known valid, and of each
 * block received from a peer once validated. It keeps the `threshold` most recent candidates, one
 * per peer, and answers:
 *
 * - `synced` when the oldest of them is at most `latency` seconds old (the node has `threshold`
 *   peers with recent heads); always with a threshold of 0;
 * - `stuck` when it is older, but all of them carry the same timestamp and the threshold is above
 *   1 (the peers agree on a head, the chain itself has stopped);
 * - `unsynced` otherwise, always with a negative threshold.
 *
 * The status is computed when a candidate arrives, not as time passes (as Octez). The node is
 * *bootstrapped* once the status is `synced` or `stuck`, and stays so (only
 * {@link SyncHeuristic.forceBootstrapped}, `PATCH /chains/<chain>`, clears it); a threshold of 0
 * makes the node bootstrapped from the start.
 *
 * @example
 * ```ts
 * const sync = createSyncHeuristic({ threshold: 2, latency: 150, now: Date.now });
 * sync.update({ timestamp: head.header.timestamp, peerId: "idt…" });
 * sync.status();         // "unsynced": one peer of two
 * sync.isBootstrapped(); // false
 * await sync.bootstrapped();
 * ```
 * @module
 */

/** Octez's default threshold (`--synchronisation-threshold`): peers to be in step with. */
export const DEFAULT_SYNC_THRESHOLD = 4;
/**
 * This node's default threshold: 0, a sandbox bootstrapped from the start, as Octez's sandbox
 * script runs its nodes (`--synchronisation-threshold 0`).
 */
export const SANDBOX_SYNC_THRESHOLD = 0;
/** Octez's default latency (`--sync-latency`), in seconds. */
export const DEFAULT_SYNC_LATENCY = 150;
/** The largest threshold Octez's configuration file holds (a uint8). */
export const MAX_SYNC_THRESHOLD = 255;
/** The largest latency Octez's configuration file holds, in seconds (a uint16). */
export const MAX_SYNC_LATENCY = 65_535;

/**
 * The limits a node runs with: `threshold` (default {@link SANDBOX_SYNC_THRESHOLD}) and `latency`
 * (default {@link DEFAULT_SYNC_LATENCY}), whole numbers within what Octez's configuration holds
 * (0 to {@link MAX_SYNC_THRESHOLD}, 0 to {@link MAX_SYNC_LATENCY} seconds). RangeError otherwise.
 */
export function syncLimits(threshold?: number, latency?: number): { threshold: number; latency: number } {
  const t = threshold ?? SANDBOX_SYNC_THRESHOLD;
  const l = latency ?? DEFAULT_SYNC_LATENCY;
  if (!Number.isInteger(t) || t < 0 || t > MAX_SYNC_THRESHOLD) {
    throw new RangeError(`synchronisationThreshold must be a whole number of peers from 0 to ${MAX_SYNC_THRESHOLD}, got ${String(threshold)}`);
  }
  if (!Number.isInteger(l) || l < 0 || l > MAX_SYNC_LATENCY) {
    throw new RangeError(`syncLatency must be a whole number of seconds from 0 to ${MAX_SYNC_LATENCY}, got ${String(latency)}`);
  }
  return { threshold: t, latency: l };
}

/** The heuristic's answer, as `/chains/<chain>/is_bootstrapped` names it (`sync_state`). */
export type SyncStatus = "synced" | "unsynced" | "stuck";

/** A block timestamp (seconds since the epoch) that a peer (its `id…` peer id) vouches for. */
export interface SyncCandidate {
  readonly timestamp: number;
  readonly peerId: string;
}

/** What {@link SyncHeuristic.onChange} listeners are told. */
export interface SyncState {
  readonly status: SyncStatus;
  readonly bootstrapped: boolean;
}

/** Options of {@link createSyncHeuristic}. */
export interface SyncHeuristicOptions {
  /** Peers to be in step with (0: bootstrapped at once; negative: never in step). */
  readonly threshold: number;
  /** How old, in seconds, the oldest of those peers' blocks may be. */
  readonly latency: number;
  /** Wall clock in milliseconds since the epoch (`Date.now` by default). */
  readonly now?: () => number;
  /** Errors thrown by `onChange` listeners (`console.error` by default); they never reach `update`. */
  readonly onError?: (error: unknown) => void;
}

/** The synchronisation state of one chain (see the module documentation). */
export interface SyncHeuristic {
  readonly threshold: number;
  /** Seconds. */
  readonly latency: number;
  /**
   * A peer vouches for a valid block: call it when a peer shows a head (or a branch) whose block
   * is known valid, and when a block received from a peer has been validated. Never for the
   * node's own blocks. TypeError for a timestamp that is not a whole number of seconds or an
   * empty peer id.
   */
  update(candidate: SyncCandidate): void;
  /** The status as of the last candidate. */
  status(): SyncStatus;
  /** Whether the node has bootstrapped (the status was `synced` or `stuck` at least once, or forced). */
  isBootstrapped(): boolean;
  /** Resolves once bootstrapped (at once if it is); rejects with the signal's reason if `signal` aborts first. */
  bootstrapped(signal?: AbortSignal): Promise<void>;
  /** Sets the bootstrapped flag (`PATCH /chains/<chain>` `{"bootstrapped": b}`), whatever the status. */
  forceBootstrapped(bootstrapped: boolean): void;
  /** Calls `listener` after each change of the status or of the flag; returns the unsubscribe function. */
  onChange(listener: (state: SyncState) => void): () => void;
}

/** A candidate slot: empty (no peer yet) or a candidate. Empty is older than any candidate. */
type Slot = SyncCandidate | undefined;

/** `a` is older than candidate `b` (an empty slot is older than anything). */
function olderThan(a: Slot, b: SyncCandidate): boolean {
  return a === undefined || a.timestamp < b.timestamp;
}

/** `a` is older than `b` or as old, both slots (two empty slots are as old). */
function notYounger(a: Slot, b: Slot): boolean {
  if (a === undefined) return true;
  return b !== undefined && a.timestamp <= b.timestamp;
}

/**
 * The `threshold` most recent candidates, one per peer, with the index of one of the oldest and of
 * one of the youngest (Octez's `Core`). Only for thresholds of 1 and more.
 */
class Candidates {
  private readonly slots: Slot[];
  private oldest = 0;
  private youngest = 0;

  constructor(threshold: number) {
    this.slots = new Array<Slot>(threshold).fill(undefined);
  }

  /** Replaces slot `i` when `c` is younger. */
  private raise(i: number, c: SyncCandidate): void {
    if (olderThan(this.slots[i], c)) this.slots[i] = c;
  }

  add(c: SyncCandidate): void {
    if (this.slots.length === 1) return this.raise(0, c);
    const oldest = this.slots[this.oldest];
    if (oldest !== undefined && c.timestamp < oldest.timestamp) return; // older than all kept
    // The slot to raise: the peer's own if it has one, else the oldest. Meanwhile find the
    // second oldest slot, in case the oldest is the one raised.
    let target = this.oldest;
    let second = this.youngest;
    this.slots.forEach((s, i) => {
      if (s !== undefined && s.peerId === c.peerId) target = i;
      if (i !== this.oldest && notYounger(s, this.slots[second])) second = i;
    });
    this.raise(target, c);
    if (target === this.oldest && olderThan(this.slots[second], c)) this.oldest = second;
    if (olderThan(this.slots[this.youngest], c)) this.youngest = target;
  }

  /** The status at `nowSeconds`. */
  status(threshold: number, latency: number, nowSeconds: number): SyncStatus {
    const best = this.slots[this.youngest];
    const least = this.slots[this.oldest];
    if (best === undefined || least === undefined) return "unsynced";
    if (least.timestamp + latency >= nowSeconds) return "synced";
    // With a threshold of 1 a single old block would count as a stuck chain: not a conclusion
    // one peer allows (Octez leaves it unsynced).
    if (best.timestamp === least.timestamp && threshold !== 1) return "stuck";
    return "unsynced";
  }
}

class Heuristic implements SyncHeuristic {
  readonly threshold: number;
  readonly latency: number;
  private readonly now: () => number;
  private readonly onError: (error: unknown) => void;
  private readonly candidates: Candidates | undefined;
  private current: SyncStatus;
  private flag: boolean;
  private readonly listeners = new Set<(state: SyncState) => void>();
  private readonly waiters = new Set<() => void>();

  constructor(o: SyncHeuristicOptions) {
    if (o === null || typeof o !== "object") throw new TypeError("createSyncHeuristic: options must be an object");
    if (!Number.isSafeInteger(o.threshold)) throw new TypeError(`synchronisation threshold must be an integer, got ${String(o.threshold)}`);
    if (!Number.isSafeInteger(o.latency)) throw new TypeError(`synchronisation latency must be an integer number of seconds, got ${String(o.latency)}`);
    if (o.now !== undefined && typeof o.now !== "function") throw new TypeError("createSyncHeuristic: now must be a function");
    this.threshold = o.threshold;
    this.latency = o.latency;
    this.now = o.now ?? Date.now;
    this.onError = o.onError ?? ((e) => console.error("synchronisation heuristic listener:", e));
    this.candidates = o.threshold > 0 ? new Candidates(o.threshold) : undefined;
    this.current = o.threshold === 0 ? "synced" : "unsynced";
    this.flag = this.current === "synced";
  }

  update(c: SyncCandidate): void {
    if (c === null || typeof c !== "object") throw new TypeError("a synchronisation candidate must be an object");
    if (!Number.isSafeInteger(c.timestamp)) throw new TypeError(`candidate timestamp must be a whole number of seconds, got ${String(c.timestamp)}`);
    if (typeof c.peerId !== "string" || c.peerId === "") throw new TypeError("candidate peer id must be a non-empty string");
    if (this.candidates === undefined) return; // threshold ≤ 0: the status never changes
    this.candidates.add({ timestamp: c.timestamp, peerId: c.peerId });
    const before = this.current;
    this.current = this.candidates.status(this.threshold, this.latency, Math.floor(this.now() / 1000));
    const bootstrapsNow = !this.flag && this.current !== "unsynced";
    if (bootstrapsNow) this.setFlag(true);
    if (before !== this.current || bootstrapsNow) this.tell();
  }

  status(): SyncStatus {
    return this.current;
  }

  isBootstrapped(): boolean {
    return this.flag;
  }

  bootstrapped(signal?: AbortSignal): Promise<void> {
    if (this.flag) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(done);
        reject(signal!.reason);
      };
      const done = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  forceBootstrapped(bootstrapped: boolean): void {
    if (typeof bootstrapped !== "boolean") throw new TypeError("forceBootstrapped takes true or false");
    if (bootstrapped === this.flag) return;
    this.setFlag(bootstrapped);
    this.tell();
  }

  onChange(listener: (state: SyncState) => void): () => void {
    if (typeof listener !== "function") throw new TypeError("onChange takes a function");
    const own = (state: SyncState) => listener(state); // a listener added twice is called twice
    this.listeners.add(own);
    return () => void this.listeners.delete(own);
  }

  private setFlag(value: boolean): void {
    this.flag = value;
    if (!value) return;
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const w of waiting) w();
  }

  private tell(): void {
    const state: SyncState = { status: this.current, bootstrapped: this.flag };
    for (const l of [...this.listeners]) {
      try {
        l(state);
      } catch (e) {
        this.onError(e);
      }
    }
  }
}

/** What Octez's chain validator logs of its heuristic (`Chain_validator_worker_state.Event`). */
export type SyncEvent = { readonly kind: "bootstrapped" } | { readonly kind: "sync_status"; readonly sync_status: SyncStatus };

/**
 * Tells `record` what Octez's chain validator logs of `sync`: at once, `bootstrapped` if it is, then
 * the status (as Octez's activation does); then `sync_status` at each change of the status and
 * `bootstrapped` each time the flag is set, in that order. Returns the function that stops it.
 */
export function reportSyncEvents(sync: SyncHeuristic, record: (event: SyncEvent) => void): () => void {
  let status = sync.status();
  let bootstrapped = sync.isBootstrapped();
  if (bootstrapped) record({ kind: "bootstrapped" });
  record({ kind: "sync_status", sync_status: status });
  return sync.onChange((state) => {
    // as Octez's update: the status change first, then the flag
    if (state.status !== status) record({ kind: "sync_status", sync_status: state.status });
    if (state.bootstrapped && !bootstrapped) record({ kind: "bootstrapped" });
    status = state.status;
    bootstrapped = state.bootstrapped;
  });
}

/** A synchronisation heuristic, activated: with a threshold of 0 it is bootstrapped at once. */
export function createSyncHeuristic(options: SyncHeuristicOptions): SyncHeuristic {
  return new Heuristic(options);
}
