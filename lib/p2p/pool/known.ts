/**
 * The pool's tables (Octez `P2p_pool`): known points and peers with their bounds and GC, the
 * points that are this node itself, the connected ones, the access lists, the event stream, and
 * the queries the other parts make (points to advertise, a random connection for a swap).
 * @module
 */
import { formatPoint, type P2pPoint } from "../encoding/point.ts";
import type { P2pEvent } from "./api.ts";
import { AccessControl } from "./acl.ts";
import type { PeerConnection } from "./connection.ts";
import type { PoolTuning } from "./limits.ts";
import { PeerRecord, PEER_SCORE } from "./peers.ts";
import { PointRecord } from "./points.ts";
import { Triggers } from "./triggers.ts";
import { Watchers } from "./watch.ts";

/** How many points a Bootstrap's answer or a Nack offers (Octez's `list_known_points` default). */
export const KNOWN_POINTS_SAMPLE = 50;

/** Options of {@link KnownTables}. */
export interface KnownOptions {
  readonly tuning: PoolTuning;
  readonly now: () => number;
  readonly log: (line: string) => void;
}

/** The pool's shared state. */
export class KnownTables {
  readonly tuning: PoolTuning;
  readonly now: () => number;
  readonly log: (line: string) => void;
  readonly acl: AccessControl;
  readonly triggers = new Triggers();
  readonly events = new Watchers<P2pEvent>();
  /** Known points by text. */
  readonly points = new Map<string, PointRecord>();
  /** Known peers by id. */
  readonly peers = new Map<string, PeerRecord>();
  /** Points found to be this node (a handshake met ourselves there). */
  readonly myIdPoints = new Set<string>();
  readonly connectedPoints = new Map<string, PointRecord>();
  readonly connectedPeers = new Map<string, PeerRecord>();

  constructor(o: KnownOptions) {
    this.tuning = o.tuning;
    this.now = o.now;
    this.log = o.log;
    this.acl = new AccessControl({
      peerGreylistSize: o.tuning.peerGreylistSize,
      ipGreylistSize: o.tuning.ipGreylistSize,
      ipGreylistCleanupDelayMs: o.tuning.ipGreylistCleanupDelayMs,
      now: o.now,
    });
  }

  /** Records an event of the pool (`/network/log`). */
  emit(event: P2pEvent): void {
    this.events.notify(event);
  }

  /** The number of established connections. */
  get activeConnections(): number {
    return this.connectedPeers.size;
  }

  /** A random integer in [0, n). */
  randomInt(n: number): number {
    return Math.min(n - 1, Math.floor(this.tuning.random() * n));
  }

  // -- points ---------------------------------------------------------------------------------

  /** Drops disconnected, untrusted points, oldest miss first, down to the GC's target. */
  private gcPoints(): void {
    const [, target] = this.tuning.maxKnownPoints;
    const excess = this.points.size - target;
    if (excess <= 0) return;
    const now = this.now();
    const candidates: [number, string][] = [];
    for (const [key, p] of this.points) if (p.disconnected && !p.trusted) candidates.push([p.lastMiss() ?? now, key]);
    candidates.sort((a, b) => a[0] - b[0]);
    for (const [, key] of candidates.slice(0, excess)) this.points.delete(key);
    this.emit({ event: "gc_points" });
  }

  /**
   * The record of a point, registered if new (`new_point`); `trusted` and `expectedPeerId`
   * update a known one (Octez `register_point`).
   */
  registerPoint(point: P2pPoint, options: { trusted?: boolean; expectedPeerId?: string } = {}): PointRecord {
    const key = formatPoint(point);
    const known = this.points.get(key);
    if (known === undefined) {
      const record = new PointRecord(point, options.trusted ?? false, options.expectedPeerId);
      if (this.points.size >= this.tuning.maxKnownPoints[0]) this.gcPoints();
      this.points.set(key, record);
      this.triggers.newPoint.broadcast();
      this.emit({ event: "new_point", point: key });
      return record;
    }
    if (options.expectedPeerId !== undefined) this.setExpectedPeerId(known, options.expectedPeerId);
    if (options.trusted === true) known.trusted = true;
    else if (options.trusted === false) known.trusted = false;
    return known;
  }

  /** A point learnt from a peer or a Nack: registered unless it is this node. */
  registerNewPoint(point: P2pPoint): PointRecord | undefined {
    if (this.myIdPoints.has(formatPoint(point))) return undefined;
    return this.registerPoint(point);
  }

  /**
   * Sets the peer id expected at a point; a connection there with another peer greylists the
   * address (and a running one is closed), as Octez `set_expected_peer_id`.
   */
  setExpectedPeerId(record: PointRecord, peerId: string): void {
    record.expectedPeerId = peerId;
    const s = record.state;
    if ((s.kind === "running" || s.kind === "accepted") && s.peerId !== peerId) {
      this.acl.greylistAddr(record.point.host);
      if (s.kind === "running") void s.conn.disconnect();
    }
  }

  /** Marks a point as this node, and forgets it. */
  addMyIdPoint(point: P2pPoint): void {
    const key = formatPoint(point);
    this.myIdPoints.add(key);
    this.points.delete(key);
  }

  // -- peers ----------------------------------------------------------------------------------

  /** Drops disconnected peers, lowest score then newest first, down to the GC's target. */
  private gcPeers(): void {
    const [, target] = this.tuning.maxKnownPeerIds;
    const excess = this.peers.size - target;
    if (excess <= 0) return;
    const candidates: [number, number, string][] = [];
    for (const [id, p] of this.peers) if (p.disconnected && !p.trusted) candidates.push([PEER_SCORE, p.created, id]);
    candidates.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    for (const [, , id] of candidates.slice(0, excess)) this.peers.delete(id);
    this.emit({ event: "gc_peer_ids" });
  }

  /** The record of a peer, registered if new (`new_peer`). */
  registerPeer(peerId: string): PeerRecord {
    const known = this.peers.get(peerId);
    if (known !== undefined) return known;
    this.triggers.newPeer.broadcast();
    const record = new PeerRecord(peerId, this.now());
    if (this.peers.size >= this.tuning.maxKnownPeerIds[0]) this.gcPeers();
    this.peers.set(peerId, record);
    this.emit({ event: "new_peer", peerId });
    return record;
  }

  // -- access ---------------------------------------------------------------------------------

  /** Greylists the address of a connected peer, and the peer (Octez `greylist_peer`). */
  greylistPeer(peerId: string): void {
    const conn = this.connectionOf(peerId);
    if (conn === undefined) return;
    this.acl.greylistAddr(conn.idPoint.addr);
    this.acl.greylistPeer(peerId);
  }

  /** Whether a point's address is banned or greylisted. */
  pointBanned(point: P2pPoint): boolean {
    return this.acl.bannedAddr(point.host);
  }

  // -- connections ----------------------------------------------------------------------------

  /** The connection to a peer, if running. */
  connectionOf(peerId: string): PeerConnection | undefined {
    const s = this.peers.get(peerId)?.state;
    return s?.kind === "running" ? s.conn : undefined;
  }

  /** Every running connection. */
  connections(): PeerConnection[] {
    const out: PeerConnection[] = [];
    for (const p of this.connectedPeers.values()) if (p.state.kind === "running") out.push(p.state.conn);
    return out;
  }

  /** The running connections at an address. */
  connectionsOfAddr(addr: string): PeerConnection[] {
    const out: PeerConnection[] = [];
    for (const p of this.connectedPoints.values()) if (p.point.host === addr && p.state.kind === "running") out.push(p.state.conn);
    return out;
  }

  private randomElement<T>(xs: readonly T[]): T | undefined {
    return xs.length === 0 ? undefined : xs[this.randomInt(xs.length)];
  }

  /** The listening point and id of a random connected peer (not private; not `except`). */
  randomAddr(options: { except?: PeerConnection; noPrivate: boolean }): [P2pPoint, string] | undefined {
    const candidates: [P2pPoint, string][] = [];
    for (const c of this.connections()) {
      if (options.noPrivate && c.privateNode) continue;
      if (c === options.except || c.idPoint.port === undefined) continue;
      candidates.push([{ host: c.idPoint.addr, port: c.idPoint.port }, c.peerId]);
    }
    return this.randomElement(candidates);
  }

  /** A random connection (not private; not `except`). */
  randomConnection(options: { except?: PeerConnection; noPrivate: boolean }): PeerConnection | undefined {
    return this.randomElement(this.connections().filter((c) => !(options.noPrivate && c.privateNode) && c !== options.except));
  }

  /** Who to propose to whom for a swap (Octez `propose_swap_request`). */
  proposeSwapRequest(): { point: P2pPoint; peerId: string; recipient: PeerConnection } | undefined {
    const recipient = this.randomConnection({ noPrivate: true });
    if (recipient === undefined) return undefined;
    const proposed = this.randomAddr({ except: recipient, noPrivate: true });
    if (proposed === undefined) return undefined;
    return { point: proposed[0], peerId: proposed[1], recipient };
  }

  /**
   * Points worth giving to a peer (Octez `list_known_points`): not banned nor greylisted, known
   * public when `ignorePrivate`; connected ones first (longest-standing first), then the most
   * recently seen; the best 60% then a random 40% of the rest.
   */
  listKnownPoints(options: { ignorePrivate: boolean; size?: number }): P2pPoint[] {
    const size = options.size ?? KNOWN_POINTS_SAMPLE;
    const other = Math.floor((size * 2) / 5);
    const best = size - other;
    const infos: [PointRecord, number][] = [];
    for (const p of this.points.values()) {
      if ((options.ignorePrivate && !p.knownPublic) || this.pointBanned(p.point)) continue;
      infos.push([p, this.tuning.random()]);
    }
    infos.sort(([a, ra], [b, rb]) => {
      const da = a.disconnected;
      const db = b.disconnected;
      if (da !== db) return da ? 1 : -1;
      const sa = a.lastSeen()?.[1];
      const sb = b.lastSeen()?.[1];
      let c: number;
      if (sa === undefined && sb === undefined) c = 0;
      else if (sa === undefined) c = -1;
      else if (sb === undefined) c = 1;
      else c = sa - sb;
      if (da) c = -c;
      return c !== 0 ? c : ra - rb;
    });
    const points = infos.map(([p]) => p.point);
    if (points.length <= best + other) return points;
    const indexes = [...Array.from({ length: best }, (_, i) => i), ...Array.from({ length: other }, () => best + this.randomInt(points.length - best)).sort((a, b) => a - b)];
    const out: P2pPoint[] = [];
    let k = 0;
    for (let i = 0; i < points.length && k < indexes.length; i++) {
      if (i >= indexes[k]!) {
        out.push(points[i]!);
        k++;
      }
    }
    return out;
  }
}
