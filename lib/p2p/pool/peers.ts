/**
 * A known peer and its life (Octez `P2p_peer_state`): accepted (its handshake passed our
 * checks), running (connected), disconnected; its metadata (the distributed DB's counters,
 * Octez `Peer_metadata`), whether it is trusted, the times of its last connection, rejection and
 * disconnection with the point they were at, and its last 100 events.
 * @module
 */
import type { IdPoint, PeerInfo, PeerLogItem, PeerMetadata, RequestCounts, Stat } from "./api.ts";
import type { PeerConnection } from "./connection.ts";
import { recent } from "./points.ts";
import { EMPTY_STAT } from "./stat.ts";
import { BoundedLog } from "./watch.ts";

/** Events kept per peer (Octez `log_size`). */
export const PEER_LOG_SIZE = 100;

/** Every peer's score (Octez v12's `Peer_metadata.score` is the constant 1.0). */
export const PEER_SCORE = 1;

function zeroRequests(): RequestCounts {
  return {
    branch: 0,
    head: 0,
    block_header: 0,
    operations: 0,
    protocols: 0,
    operation_hashes_for_block: 0,
    operations_for_block: 0,
    checkpoint: 0,
    protocol_branch: 0,
    predecessor_header: 0,
    other: 0,
  };
}

/** Fresh counters (Octez `Peer_metadata.empty`). */
export function emptyPeerMetadata(): PeerMetadata {
  return {
    responses: { sent: zeroRequests(), failed: zeroRequests(), received: zeroRequests(), unexpected: 0, outdated: 0 },
    requests: { sent: zeroRequests(), received: zeroRequests(), failed: zeroRequests(), scheduled: zeroRequests() },
    valid_blocks: 0,
    old_heads: 0,
    prevalidator_results: {
      cannot_download: 0,
      cannot_parse: 0,
      refused_by_prefilter: 0,
      refused_by_postfilter: 0,
      applied: 0,
      branch_delayed: 0,
      branch_refused: 0,
      refused: 0,
      duplicate: 0,
      outdated: 0,
    },
    unactivated_chains: 0,
    inactive_chains: 0,
    future_blocks_advertised: 0,
    unadvertised: { block: 0, operations: 0, protocol: 0 },
    advertisements: { sent: { head: 0, branch: 0 }, received: { head: 0, branch: 0 } },
  };
}

/** A peer's state, with what Octez keeps in it. */
export type PeerStateData =
  | { readonly kind: "accepted"; readonly point: IdPoint; readonly cancel: AbortController }
  | { readonly kind: "running"; readonly point: IdPoint; readonly conn: PeerConnection }
  | { readonly kind: "disconnected" };

type Stamped = readonly [IdPoint, number];

/** A known peer. */
export class PeerRecord {
  readonly peerId: string;
  /** When it became known (the GC drops the newest of the lowest scores first). */
  readonly created: number;
  state: PeerStateData = { kind: "disconnected" };
  readonly metadata: PeerMetadata = emptyPeerMetadata();
  trusted = false;
  lastFailedConnection: Stamped | undefined;
  lastRejectedConnection: Stamped | undefined;
  lastEstablishedConnection: Stamped | undefined;
  lastDisconnection: Stamped | undefined;
  readonly log = new BoundedLog<PeerLogItem>(PEER_LOG_SIZE);

  constructor(peerId: string, created: number) {
    this.peerId = peerId;
    this.created = created;
  }

  get disconnected(): boolean {
    return this.state.kind === "disconnected";
  }

  lastSeen(): Stamped | undefined {
    return recent(this.lastEstablishedConnection, recent(this.lastRejectedConnection, this.lastDisconnection));
  }

  lastMiss(): Stamped | undefined {
    return recent(this.lastFailedConnection, recent(this.lastRejectedConnection, this.lastDisconnection));
  }

  /** Its handshake passed our checks. */
  setAccepted(at: number, point: IdPoint, cancel: AbortController): void {
    this.state = { kind: "accepted", point, cancel };
    this.log.add({ at, kind: "incoming_request", point });
  }

  /** Connected. */
  setRunning(at: number, point: IdPoint, conn: PeerConnection): void {
    this.state = { kind: "running", point, conn };
    this.lastEstablishedConnection = [point, at];
    this.log.add({ at, kind: "connection_established", point });
  }

  /** Back to disconnected (`requested`: we ended it). */
  setDisconnected(at: number, requested = false): void {
    const s = this.state;
    if (s.kind === "disconnected") return;
    if (s.kind === "accepted") {
      this.lastRejectedConnection = [s.point, at];
      this.log.add({ at, kind: "request_rejected", point: s.point });
    } else {
      this.lastDisconnection = [s.point, at];
      this.log.add({ at, kind: requested ? "disconnection" : "external_disconnection", point: s.point });
    }
    this.state = { kind: "disconnected" };
  }

  /** The record as `/network/peers` shows it. */
  info(stat: Stat = EMPTY_STAT): PeerInfo {
    const s = this.state;
    const out: { -readonly [K in keyof PeerInfo]: PeerInfo[K] } = {
      score: PEER_SCORE,
      trusted: this.trusted,
      peerMetadata: this.metadata,
      state: s.kind,
      stat,
    };
    if (s.kind === "running") out.connMetadata = s.conn.remoteMetadata;
    if (s.kind !== "disconnected") out.reachableAt = s.point;
    if (this.lastFailedConnection !== undefined) out.lastFailedConnection = this.lastFailedConnection;
    if (this.lastRejectedConnection !== undefined) out.lastRejectedConnection = this.lastRejectedConnection;
    if (this.lastEstablishedConnection !== undefined) out.lastEstablishedConnection = this.lastEstablishedConnection;
    if (this.lastDisconnection !== undefined) out.lastDisconnection = this.lastDisconnection;
    const seen = this.lastSeen();
    if (seen !== undefined) out.lastSeen = seen;
    const miss = this.lastMiss();
    if (miss !== undefined) out.lastMiss = miss;
    return out;
  }
}
