/**
 * A known point and its life (Octez `P2p_point_state`): requested (we dial it), accepted (its
 * handshake passed our checks), running (connected), disconnected; the times of its last
 * failure, rejection, connection and disconnection; whether it is trusted, known public, the
 * peer id expected there; the delay before it may be tried again; its last 100 events.
 * @module
 */
import { formatPoint, type P2pPoint } from "../encoding/point.ts";
import type { PointInfo, PointLogItem, PointState } from "./api.ts";
import type { ReconnectionConfig } from "./limits.ts";
import { BoundedLog } from "./watch.ts";
import type { PeerConnection } from "./connection.ts";

/** Events kept per point (Octez `log_size`). */
export const POINT_LOG_SIZE = 100;

/** A point's state, with what Octez keeps in it (the handshake's canceller, the connection). */
export type PointStateData =
  | { readonly kind: "requested"; readonly cancel: AbortController }
  | { readonly kind: "accepted"; readonly peerId: string; readonly cancel: AbortController }
  | { readonly kind: "running"; readonly peerId: string; readonly conn: PeerConnection }
  | { readonly kind: "disconnected" };

type Stamped = readonly [peerId: string, at: number];

/** The most recent of two stamped values, the first on a tie (Octez `Time.System.recent`). */
export function recent<T extends readonly [unknown, number]>(a: T | undefined, b: T | undefined): T | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a[1] < b[1] ? b : a;
}

/** A known point. */
export class PointRecord {
  readonly point: P2pPoint;
  /** Its text, `addr:port` (the pool's key). */
  readonly key: string;
  trusted: boolean;
  state: PointStateData = { kind: "disconnected" };
  lastFailedConnection: number | undefined;
  lastRejectedConnection: Stamped | undefined;
  lastEstablishedConnection: Stamped | undefined;
  lastDisconnection: Stamped | undefined;
  /** Whether a handshake said the node there is not private. */
  knownPublic = false;
  reconnection: { delayMs: number; endTime: number } | undefined;
  expectedPeerId: string | undefined;
  readonly log = new BoundedLog<PointLogItem>(POINT_LOG_SIZE);

  constructor(point: P2pPoint, trusted = false, expectedPeerId?: string) {
    this.point = point;
    this.key = formatPoint(point);
    this.trusted = trusted;
    this.expectedPeerId = expectedPeerId;
  }

  get disconnected(): boolean {
    return this.state.kind === "disconnected";
  }

  /** When a point was last seen: its last rejection, connection or disconnection. */
  lastSeen(): Stamped | undefined {
    return recent(this.lastRejectedConnection, recent(this.lastEstablishedConnection, this.lastDisconnection));
  }

  /** When it last failed us: a failure, a rejection or a disconnection. */
  lastMiss(): number | undefined {
    const other = recent(this.lastRejectedConnection, this.lastDisconnection)?.[1];
    if (this.lastFailedConnection === undefined) return other;
    if (other === undefined) return this.lastFailedConnection;
    return Math.max(this.lastFailedConnection, other);
  }

  /** Whether it is still inside its reconnection delay (Octez's `can_reconnect`, whose name says the opposite). */
  waitingToReconnect(now: number): boolean {
    return this.reconnection !== undefined && now <= this.reconnection.endTime;
  }

  private add(at: number, kind: PointLogItem["kind"]): void {
    this.log.add({ at, kind });
  }

  /** We dial it. */
  setRequested(at: number, cancel: AbortController): void {
    this.state = { kind: "requested", cancel };
    this.add(at, { event: "outgoing_request" });
  }

  /** Its handshake passed our checks. */
  setAccepted(at: number, peerId: string, cancel: AbortController): void {
    this.state = { kind: "accepted", peerId, cancel };
    this.add(at, { event: "accepting_request", peerId });
  }

  /** Connected. */
  setRunning(at: number, peerId: string, conn: PeerConnection): void {
    this.state = { kind: "running", peerId, conn };
    this.lastEstablishedConnection = [peerId, at];
    this.add(at, { event: "connection_established", peerId });
  }

  private setReconnectionDelay(config: ReconnectionConfig, at: number): void {
    const delay = this.reconnection === undefined ? config.initialDelayMs : this.reconnection.delayMs;
    const next = Math.min(delay * config.factor, config.increaseCapMs);
    this.reconnection = { delayMs: next, endTime: at + delay };
  }

  /** Back to disconnected (`requested`: we ended it), with Octez's reconnection delay. */
  setDisconnected(at: number, config: ReconnectionConfig, requested = false): void {
    const s = this.state;
    switch (s.kind) {
      case "requested":
        this.setReconnectionDelay(config, at);
        this.lastFailedConnection = at;
        this.add(at, { event: "request_rejected" });
        break;
      case "accepted":
        this.setReconnectionDelay(config, at);
        this.lastRejectedConnection = [s.peerId, at];
        this.add(at, { event: "request_rejected", peerId: s.peerId });
        break;
      case "running":
        this.reconnection = { delayMs: config.initialDelayMs, endTime: at + config.disconnectionDelayMs };
        this.lastDisconnection = [s.peerId, at];
        this.add(at, { event: requested ? "disconnection" : "external_disconnection", peerId: s.peerId });
        break;
      case "disconnected":
        return;
    }
    this.state = { kind: "disconnected" };
  }

  /** The record as `/network/points` shows it. */
  info(): PointInfo {
    const s = this.state;
    const state: PointState = s.kind === "requested" || s.kind === "disconnected" ? { kind: s.kind } : { kind: s.kind, peerId: s.peerId };
    const out: {
      -readonly [K in keyof PointInfo]: PointInfo[K];
    } = { trusted: this.trusted, state };
    if (this.reconnection !== undefined) out.greylistedUntil = this.reconnection.endTime;
    if (s.kind === "accepted" || s.kind === "running") out.peerId = s.peerId;
    if (this.lastFailedConnection !== undefined) out.lastFailedConnection = this.lastFailedConnection;
    if (this.lastRejectedConnection !== undefined) out.lastRejectedConnection = this.lastRejectedConnection;
    if (this.lastEstablishedConnection !== undefined) out.lastEstablishedConnection = this.lastEstablishedConnection;
    if (this.lastDisconnection !== undefined) out.lastDisconnection = this.lastDisconnection;
    const seen = this.lastSeen();
    if (seen !== undefined) out.lastSeen = seen;
    const miss = this.lastMiss();
    if (miss !== undefined) out.lastMiss = miss;
    if (this.expectedPeerId !== undefined) out.expectedPeerId = this.expectedPeerId;
    return out;
  }
}
