/**
 * Opening and accepting connections (Octez `P2p_connect_handler`): the checks before dialling
 * (banned point, too many connections, private mode, a connection already pending or running),
 * the handshake with the pool's say on the peer (banned peer, expected peer id, versions, a free
 * slot, already connected, private mode) answered by Ack, Nack with points, or a plain close, the
 * greylisting of what Octez greylists, and the states, logs and events on each path.
 * @module
 */
import { timeout as timeoutError, failure } from "../../errors/core.ts";
import { TezosError } from "../../errors/registry.ts";
import { RejectionMotive, type RejectionMotiveCode } from "../encoding/ack.ts";
import type { ChainMessage } from "../encoding/chain-messages.ts";
import type { ConnectionMetadata } from "../encoding/connection.ts";
import { canonicalHost, formatPoint, type P2pPoint } from "../encoding/point.ts";
import type { Identity } from "../identity.ts";
import { authenticate, type AuthenticatedChannel, type Decision, type PeerCandidate, type Refusal } from "../socket.ts";
import type { Connection, Transport } from "../transport.ts";
import { OCTEZ_V12_VERSIONS, selectVersion } from "../version.ts";
import type { ConnectionLimits, IdPoint, P2pEvent } from "./api.ts";
import { PeerConnection } from "./connection.ts";
import {
  connected,
  connectionRefused,
  identityCheckFailure,
  peerBanned,
  pendingConnection,
  pointBanned,
  privateMode as privateModeError,
  refusalError,
  tooManyConnections,
} from "./errors.ts";
import type { KnownTables } from "./known.ts";
import type { PeerRecord } from "./peers.ts";
import type { PointRecord } from "./points.ts";
import type { PeerMessage } from "./protocol.ts";

/** What the connect handler needs from the rest of the pool. */
export interface HandlerOptions {
  readonly transport: Transport;
  readonly identity: Identity;
  readonly chainName: string;
  readonly expectedPow: number;
  readonly privateMode: boolean;
  readonly limits: ConnectionLimits;
  /** Our listening port, once listening. */
  readonly announcedPort: () => number | undefined;
  /** The address to dial `host` from, where the transport can choose it. */
  readonly localHost: (host: string) => string | undefined;
  readonly metadata: ConnectionMetadata;
  /** A P2P message from a peer (the answerer). */
  readonly onPeerMessage: (conn: PeerConnection, message: PeerMessage) => Promise<void>;
  /** A chain message from a peer (the shell). */
  readonly onChainMessage: (conn: PeerConnection, message: ChainMessage) => void;
  /** A connection was established. */
  readonly onConnected: (conn: PeerConnection) => void;
  /** A connection ended (after the pool's tables were updated). */
  readonly onDisconnected: (conn: PeerConnection) => void;
}

function idPointOf(p: { host: string; port?: number }): IdPoint {
  const addr = canonicalHost(p.host) ?? p.host;
  return p.port === undefined ? { addr } : { addr, port: p.port };
}

function describe(e: unknown): string {
  return e instanceof TezosError ? e.trace.map((i) => JSON.stringify(i.toJson())).join(", ") : e instanceof Error ? e.message : String(e);
}

/** Opens and accepts connections for the pool. */
export class ConnectHandler {
  private readonly pool: KnownTables;
  private readonly o: HandlerOptions;
  /** Incoming handshakes under way, by the remote socket's point. */
  private readonly incoming = new Map<string, AbortController>();
  /** Every handshake under way (incoming and outgoing), to cancel on close. */
  private readonly pending = new Set<AbortController>();
  private readonly handshakes = new Set<Promise<unknown>>();
  private closing = false;

  constructor(pool: KnownTables, options: HandlerOptions) {
    this.pool = pool;
    this.o = options;
  }

  private emit(e: P2pEvent): void {
    this.pool.emit(e);
  }

  /** Takes a connection a peer opened (Octez `accept`): refused at once past the limit or from a banned or greylisted address. */
  accept(connection: Connection): void {
    const addr = canonicalHost(connection.remote.host) ?? connection.remote.host;
    const point: P2pPoint = { host: addr, port: connection.remote.port };
    const key = formatPoint(point);
    this.emit({ event: "incoming_connection", point: key });
    if (this.closing || this.incoming.size >= this.o.limits.maxIncomingConnections || this.pool.pointBanned(point)) {
      if (!this.closing && this.pool.pointBanned(point)) this.pool.log(`p2p: closed a connection from ${key}: the address is banned or greylisted`);
      connection.close();
      return;
    }
    const cancel = new AbortController();
    this.incoming.set(key, cancel);
    const run = this.handshake(connection, point, undefined, cancel, this.o.limits.authenticationTimeoutMs)
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        this.incoming.delete(key);
      });
    this.track(run);
  }

  private track(p: Promise<unknown>): void {
    this.handshakes.add(p);
    p.finally(() => this.handshakes.delete(p)).catch(() => {});
  }

  /**
   * Dials a point and runs the handshake (Octez `connect`), within `timeoutMs` (default the
   * connection timeout). Rejects with Octez's error.
   */
  connect(point: P2pPoint, timeoutMs?: number): Promise<PeerConnection> {
    const p = this.connectInner(point, timeoutMs ?? this.o.limits.connectionTimeoutMs);
    this.track(p);
    return p;
  }

  private async connectInner(point: P2pPoint, timeoutMs: number): Promise<PeerConnection> {
    if (this.closing) throw failure.error({ msg: "The P2P layer is shutting down" });
    if (this.pool.pointBanned(point)) throw pointBanned.error({ point });
    if (!(this.pool.activeConnections <= this.o.limits.maxConnections)) throw tooManyConnections.error();
    const deadline = Date.now() + timeoutMs;
    const record = this.pool.registerPoint(point);
    if (this.o.privateMode && !record.trusted) throw privateModeError.error();
    switch (record.state.kind) {
      case "requested":
      case "accepted":
        throw pendingConnection.error();
      case "running":
        throw connected.error();
    }
    const cancel = new AbortController();
    this.pending.add(cancel);
    try {
      record.setRequested(this.pool.now(), cancel);
      const key = record.key;
      this.emit({ event: "outgoing_connection", point: key });
      let connection: Connection;
      try {
        const localHost = this.o.localHost(point.host);
        connection = await this.o.transport.connect({
          host: point.host,
          port: point.port,
          timeoutMs: Math.max(1, deadline - Date.now()),
          ...(localHost !== undefined ? { localHost } : {}),
        });
      } catch (e) {
        record.setDisconnected(this.pool.now(), this.pool.tuning.reconnection);
        const code = (e as { code?: unknown } | null)?.code;
        if (code === "ECONNREFUSED") throw connectionRefused.error();
        if (code === "ETIMEDOUT") throw timeoutError.error();
        throw failure.error({ msg: e instanceof Error ? e.message : String(e) });
      }
      if (cancel.signal.aborted || this.closing) {
        connection.close();
        record.setDisconnected(this.pool.now(), this.pool.tuning.reconnection);
        throw failure.error({ msg: "The P2P layer is shutting down" });
      }
      return await this.handshake(connection, point, record, cancel, Math.max(1, deadline - Date.now()));
    } finally {
      this.pending.delete(cancel);
    }
  }

  /**
   * The handshake on a fresh connection (Octez `raw_authenticate`): `record` is the dialled
   * point (none for an incoming connection, whose `point` is the remote socket's).
   */
  private async handshake(
    connection: Connection,
    point: P2pPoint,
    record: PointRecord | undefined,
    cancel: AbortController,
    timeoutMs: number,
  ): Promise<PeerConnection> {
    const incoming = record === undefined;
    const pointKey = formatPoint(point);
    const pool = this.pool;
    const reconnection = pool.tuning.reconnection;
    this.pending.add(cancel);
    let decided: TezosError | undefined;
    let reachedDecide = false;
    let verdict: { kind: "accept" | "nack"; connPoint: PointRecord | undefined; peer: PeerRecord; idPoint: IdPoint } | undefined;

    const decide = (candidate: PeerCandidate): Decision => {
      reachedDecide = true;
      const peerId = candidate.peerId;
      const idPoint = idPointOf(candidate.idPoint);
      if (pool.acl.bannedPeer(peerId)) {
        decided = peerBanned.error({ peer: peerId });
        return { kind: "close", reason: `peer ${peerId} is banned` };
      }
      const remotePoint = idPoint.port !== undefined ? pool.registerNewPoint({ host: idPoint.addr, port: idPoint.port }) : undefined;
      const connPoint = record ?? remotePoint;
      if (connPoint?.expectedPeerId !== undefined && connPoint.expectedPeerId !== peerId) {
        decided = identityCheckFailure.error({ point: connPoint.point, expected_peer_id: connPoint.expectedPeerId, received_peer_id: peerId });
        return { kind: "close", reason: `expected peer ${connPoint.expectedPeerId} at ${connPoint.key}, got ${peerId}` };
      }
      const peer = pool.registerPeer(peerId);
      let motive: RejectionMotiveCode | undefined;
      const selection = selectVersion(this.o.chainName, OCTEZ_V12_VERSIONS, candidate.announcedVersion);
      if (!selection.ok) motive = selection.motive;
      else if (!(this.o.limits.maxConnections + pool.randomInt(2) > pool.activeConnections)) motive = RejectionMotive.TooManyConnections;
      else if (this.o.privateMode && !(connPoint?.trusted ?? false) && !peer.trusted) {
        decided = privateModeError.error();
      } else {
        const ps = connPoint?.state.kind;
        if (ps === "accepted" || ps === "running" || (ps === "requested" && incoming)) motive = RejectionMotive.AlreadyConnected;
        else if (peer.state.kind !== "disconnected") motive = RejectionMotive.AlreadyConnected;
      }
      if (connPoint !== undefined) connPoint.knownPublic = !candidate.privateNode;
      if (decided !== undefined) return { kind: "close", reason: "private mode: the peer is not trusted" };
      const now = pool.now();
      if (motive !== undefined) {
        this.emit({ event: "rejecting_request", point: pointKey, idPoint, peerId });
        const points = pool.listKnownPoints({ ignorePrivate: true });
        if (record !== undefined) record.setDisconnected(now, reconnection, true);
        verdict = { kind: "nack", connPoint, peer, idPoint };
        return { kind: "nack", motive, points };
      }
      this.emit({ event: "accepting_request", point: pointKey, idPoint, peerId });
      connPoint?.setAccepted(now, peerId, cancel);
      peer.setAccepted(now, idPoint, cancel);
      verdict = { kind: "accept", connPoint, peer, idPoint };
      return { kind: "accept" };
    };

    const result = await authenticate({
      connection,
      incoming,
      identity: this.o.identity,
      chainName: this.o.chainName,
      powTarget: this.o.expectedPow,
      announcedPort: this.o.announcedPort(),
      metadata: this.o.metadata,
      timeoutMs,
      signal: cancel.signal,
      decide,
    }).catch((e: unknown): { ok: false; refusal: Refusal } => ({
      ok: false,
      refusal: { reason: "unexpected-error", message: e instanceof Error ? e.message : String(e), greylist: false },
    }));
    this.pending.delete(cancel);
    const v = verdict as typeof verdict;
    if (result.ok && v?.kind === "accept" && !this.closing && !cancel.signal.aborted) {
      return this.establish(result.channel, v.connPoint, v.peer, record !== undefined ? { addr: v.idPoint.addr, port: record.point.port } : v.idPoint);
    }
    const now = pool.now();
    const refusal: Refusal = result.ok ? { reason: "aborted", message: "the pool is closing", greylist: false } : result.refusal;
    if (result.ok) result.channel.close();
    let error: TezosError;
    if (!reachedDecide) {
      if (refusal.greylist) {
        pool.acl.greylistAddr(point.host);
        pool.log(`p2p: greylisted ${point.host}: ${refusal.message}`);
      }
      if (refusal.reason === "myself" && refusal.idPoint?.port !== undefined) {
        pool.addMyIdPoint({ host: canonicalHost(refusal.idPoint.host) ?? refusal.idPoint.host, port: refusal.idPoint.port });
      }
      this.emit({ event: "authentication_failed", point: pointKey });
      record?.setDisconnected(now, reconnection);
      error = refusalError(refusal);
    } else if (v === undefined) {
      // closed by the pool's checks (banned peer, unexpected peer id, private mode)
      record?.setDisconnected(now, reconnection);
      error = refusalError(refusal, decided);
    } else if (v.kind === "nack") {
      if (refusal.motive === RejectionMotive.UnknownChainName && record !== undefined) pool.points.delete(record.key);
      error = refusalError(refusal);
    } else {
      if (incoming) this.emit({ event: "request_rejected", point: pointKey, identity: [v.idPoint, v.peer.peerId] });
      if (refusal.reason === "rejected-by-nack" && refusal.alternativePoints !== undefined) {
        for (const p of refusal.alternativePoints) pool.registerNewPoint(p);
      }
      v.connPoint?.setDisconnected(now, reconnection);
      v.peer.setDisconnected(now);
      error = refusalError(refusal);
    }
    if (incoming && refusal.reason !== "aborted" && refusal.reason !== "myself") pool.log(`p2p: refused the connection from ${pointKey}: ${describe(error)}`);
    throw error;
  }

  /** Makes an authenticated channel a connection of the pool (Octez `create_connection`). */
  private establish(channel: AuthenticatedChannel, connPoint: PointRecord | undefined, peer: PeerRecord, idPoint: IdPoint): PeerConnection {
    const pool = this.pool;
    const peerId = peer.peerId;
    const conn: PeerConnection = new PeerConnection({
      channel,
      idPoint,
      trustedNode: peer.trusted || (connPoint?.trusted ?? false),
      metadata: peer.metadata,
      hooks: {
        onPeerMessage: (c, m) => this.o.onPeerMessage(c, m),
        onChainMessage: (c, m) => this.o.onChainMessage(c, m),
        greylist: (c) => pool.greylistPeer(c.peerId),
        log: pool.log,
        onClose: (c) => {
          const now = pool.now();
          connPoint?.setDisconnected(now, pool.tuning.reconnection);
          this.emit({ event: "disconnection", peerId });
          peer.setDisconnected(now);
          if (connPoint !== undefined) pool.connectedPoints.delete(connPoint.key);
          pool.connectedPeers.delete(peerId);
          if (this.o.limits.maxConnections <= pool.activeConnections) {
            pool.triggers.tooManyConnections.broadcast();
            this.emit({ event: "too_many_connections" });
          }
          this.o.onDisconnected(c);
        },
      },
    });
    const now = pool.now();
    if (connPoint !== undefined) {
      connPoint.setRunning(now, peerId, conn);
      pool.connectedPoints.set(connPoint.key, connPoint);
    }
    this.emit({ event: "connection_established", idPoint, peerId });
    peer.setRunning(now, idPoint, conn);
    pool.connectedPeers.set(peerId, peer);
    pool.triggers.newConnection.broadcast();
    this.o.onConnected(conn);
    if (pool.activeConnections < this.o.limits.minConnections) {
      pool.triggers.tooFewConnections.broadcast();
      this.emit({ event: "too_few_connections" });
    }
    void conn.run();
    return conn;
  }

  /** Cancels every handshake under way and refuses new ones; resolves once they are over. */
  async close(): Promise<void> {
    this.closing = true;
    for (const c of this.pending) c.abort();
    for (const c of this.incoming.values()) c.abort();
    while (this.handshakes.size > 0) await Promise.allSettled([...this.handshakes]);
  }
}
