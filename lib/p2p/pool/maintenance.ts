/**
 * The maintenance (Octez `P2p_maintenance`): keeps the number of connections between its
 * thresholds. Below the low one it dials known points (never-missed first, then the oldest
 * misses; skipping banned, greylisted, waiting and, in private mode, untrusted points), one at a
 * time, until the low target is reached; short of points, it asks its peers for more (Bootstrap)
 * and waits for new points or peers. Above the high one it closes random connections down to the
 * high target. In between it proposes a swap, then sleeps until the idle time passes or the pool
 * signals too few or too many connections.
 * @module
 */
import type { P2pPoint } from "../encoding/point.ts";
import type { ConnectHandler } from "./connect-handler.ts";
import type { PeerConnection } from "./connection.ts";
import type { KnownTables } from "./known.ts";
import type { Bounds } from "./limits.ts";
import type { PointRecord } from "./points.ts";
import { sleep } from "./triggers.ts";

/** Keeps the pool's connections within bounds. */
export class Maintenance {
  private readonly pool: KnownTables;
  private readonly handler: ConnectHandler;
  private readonly bounds: Bounds;
  private readonly privateMode: boolean;
  private readonly stop = new AbortController();
  private worker: Promise<void> | undefined;

  constructor(pool: KnownTables, handler: ConnectHandler, bounds: Bounds, privateMode: boolean) {
    this.pool = pool;
    this.handler = handler;
    this.bounds = bounds;
    this.privateMode = privateMode;
  }

  /** Starts the worker. */
  activate(): void {
    if (this.worker !== undefined) return;
    this.worker = this.loop().catch((e) => this.pool.log(`p2p: the maintenance stopped on a failure: ${e instanceof Error ? e.message : String(e)}`));
  }

  /** Stops the worker; resolves once it has. */
  async shutdown(): Promise<void> {
    this.stop.abort();
    await this.worker;
  }

  private get stopped(): boolean {
    return this.stop.signal.aborted;
  }

  private async loop(): Promise<void> {
    const signal = this.stop.signal;
    const t = this.pool.triggers;
    while (!this.stopped) {
      const n = this.pool.activeConnections;
      if (n < this.bounds.minThreshold || this.bounds.maxThreshold < n) {
        await this.maintain();
        continue;
      }
      if (!this.privateMode) this.sendSwapRequest();
      const wake = new AbortController();
      const onStop = () => wake.abort();
      signal.addEventListener("abort", onStop, { once: true });
      await Promise.race([
        sleep(this.pool.tuning.maintenanceIdleTimeMs, wake.signal),
        t.tooFewConnections.wait(wake.signal),
        t.tooManyConnections.wait(wake.signal),
      ]);
      wake.abort();
      signal.removeEventListener("abort", onStop);
    }
  }

  /** Brings the connections within the thresholds (Octez `do_maintain`). */
  private async maintain(): Promise<void> {
    while (!this.stopped) {
      const n = this.pool.activeConnections;
      if (n < this.bounds.minThreshold) {
        const ok = await this.tryToContact(this.bounds.minTarget - n, this.bounds.maxTarget - n);
        if (!ok && !this.stopped) await this.askForMoreContacts();
      } else if (this.bounds.maxThreshold < n) {
        await Promise.all(this.randomConnections(n - this.bounds.maxTarget).map((c) => c.disconnect()));
      } else return;
    }
  }

  /** Whether a point may be dialled now: a candidate (with its last miss), seen, or ignored. */
  private classify(record: PointRecord, startTime: number, seen: Set<string>): { kind: "ignore" | "seen" } | { kind: "candidate"; lastMiss: number | undefined } {
    if (seen.has(record.key) || this.pool.pointBanned(record.point) || (this.privateMode && !record.trusted)) return { kind: "ignore" };
    if (!record.disconnected) return { kind: "seen" };
    const last = record.lastMiss();
    if ((last !== undefined && startTime < last) || record.waitingToReconnect(this.pool.now())) return { kind: "seen" };
    return { kind: "candidate", lastMiss: last };
  }

  /** At most `max` points to dial, never-missed first then the oldest misses. */
  private connectable(startTime: number, max: number, seen: Set<string>): P2pPoint[] {
    const candidates: [number | undefined, P2pPoint][] = [];
    for (const record of [...this.pool.points.values()]) {
      const c = this.classify(record, startTime, seen);
      if (c.kind === "ignore") continue;
      seen.add(record.key);
      if (c.kind === "candidate") candidates.push([c.lastMiss, record.point]);
    }
    candidates.sort(([a], [b]) => (a === undefined ? (b === undefined ? 0 : -1) : b === undefined ? 1 : a - b));
    return candidates.slice(0, Math.max(0, max)).map(([, p]) => p);
  }

  /** Dials known points until `minToContact` connections are made (Octez `try_to_contact`). */
  private async tryToContact(minToContact: number, maxToContact: number): Promise<boolean> {
    const startTime = this.pool.now();
    const seen = new Set<string>();
    while (minToContact > 0) {
      if (this.stopped) return false;
      const candidates = this.connectable(startTime, maxToContact, seen);
      if (candidates.length === 0) {
        await Promise.resolve();
        return false;
      }
      let established = 0;
      for (const point of candidates) {
        if (this.stopped) return false;
        try {
          await this.handler.connect(point);
          established++;
        } catch {
          // a failure is in the point's record
        }
      }
      minToContact -= established;
      maxToContact -= established;
    }
    return true;
  }

  /** Asks peers for points (Bootstrap), then waits for a new point or peer, or the lookup delay (Octez `ask_for_more_contacts`). */
  private async askForMoreContacts(): Promise<void> {
    const wake = new AbortController();
    const onStop = () => wake.abort();
    this.stop.signal.addEventListener("abort", onStop, { once: true });
    try {
      if (this.privateMode) {
        await sleep(this.pool.tuning.timeBetweenLookingForPeersMs, wake.signal);
        return;
      }
      this.broadcastBootstrap();
      const t = this.pool.triggers;
      await Promise.race([t.newPeer.wait(wake.signal), t.newPoint.wait(wake.signal), sleep(this.pool.tuning.timeBetweenLookingForPeersMs, wake.signal)]);
    } finally {
      wake.abort();
      this.stop.signal.removeEventListener("abort", onStop);
    }
  }

  /** Sends a Bootstrap to every connected peer that is not private. */
  private broadcastBootstrap(): void {
    for (const conn of this.pool.connections()) {
      if (conn.privateNode) continue;
      conn.writeNow({ kind: "Bootstrap" });
      this.pool.emit({ event: "bootstrap_sent", source: conn.peerId });
    }
  }

  /** Proposes one connected peer to another (Octez `send_swap_request`). */
  private sendSwapRequest(): void {
    const proposal = this.pool.proposeSwapRequest();
    if (proposal === undefined) return;
    this.pool.emit({ event: "swap_request_sent", source: proposal.recipient.peerId });
    proposal.recipient.writeSwapRequest(proposal.point, proposal.peerId, this.pool.now());
  }

  /** `n` random connections, not to nodes both private and trusted. */
  private randomConnections(n: number): PeerConnection[] {
    const candidates = this.pool.connections().filter((c) => !(c.privateNode && c.trustedNode));
    for (let i = candidates.length - 1; i > 0; i--) {
      const j = this.pool.randomInt(i + 1);
      [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
    }
    return candidates.slice(0, Math.max(0, n));
  }
}
