/**
 * The P2P layer's own messages (Octez `P2p_protocol`): a Bootstrap is answered with an Advertise
 * of known public points, an Advertise's points are registered, and swaps (a peer proposes one of
 * its peers in exchange for one of ours; each side connects to the point it got and drops the
 * peer it gave, at most once per `swap_linger`). A private node (`--private-mode`) answers none
 * of them.
 * @module
 */
import type { P2pPoint } from "../encoding/point.ts";
import type { PeerConnection } from "./connection.ts";
import type { KnownTables } from "./known.ts";

/** A P2P message other than Disconnect. */
export type PeerMessage =
  | { kind: "Bootstrap" }
  | { kind: "Advertise"; points: P2pPoint[] }
  | { kind: "Swap_request"; point: P2pPoint; peer_id: string }
  | { kind: "Swap_ack"; point: P2pPoint; peer_id: string };

/** Answers peers' P2P messages. */
export class Answerer {
  private readonly pool: KnownTables;
  private readonly privateMode: boolean;
  private readonly connect: (point: P2pPoint) => Promise<unknown>;
  private latestAcceptedSwap = 0;
  private latestSuccessfulSwap = 0;

  constructor(pool: KnownTables, privateMode: boolean, connect: (point: P2pPoint) => Promise<unknown>) {
    this.pool = pool;
    this.privateMode = privateMode;
    this.connect = connect;
  }

  /** Handles one message from `conn`; never rejects. */
  async handle(conn: PeerConnection, message: PeerMessage): Promise<void> {
    if (this.privateMode) return;
    switch (message.kind) {
      case "Bootstrap":
        return this.bootstrap(conn);
      case "Advertise":
        this.pool.emit({ event: "advertise_received", source: conn.peerId });
        for (const p of message.points) this.pool.registerNewPoint(p);
        return;
      case "Swap_request":
        return this.swapRequest(conn, message.point);
      case "Swap_ack":
        return this.swapAck(conn, message.point);
    }
  }

  private bootstrap(conn: PeerConnection): void {
    this.pool.emit({ event: "bootstrap_received", source: conn.peerId });
    if (conn.privateNode) return;
    const points = this.pool.listKnownPoints({ ignorePrivate: true });
    if (points.length === 0) return;
    if (conn.writeNow({ kind: "Advertise", points })) this.pool.emit({ event: "advertise_sent", source: conn.peerId });
  }

  /** Connects to `newPoint`; on success, drops the connection to `currentPeerId`. */
  private async swap(sourcePeerId: string, currentPeerId: string, newPoint: P2pPoint): Promise<void> {
    this.latestAcceptedSwap = this.pool.now();
    let ok: boolean;
    try {
      await this.connect(newPoint);
      ok = true;
    } catch {
      ok = false;
    }
    if (ok) {
      this.latestSuccessfulSwap = this.pool.now();
      this.pool.emit({ event: "swap_success", source: sourcePeerId });
      await this.pool.connectionOf(currentPeerId)?.disconnect();
    } else {
      this.latestAcceptedSwap = this.latestSuccessfulSwap;
      this.pool.emit({ event: "swap_failure", source: sourcePeerId });
    }
  }

  private async swapRequest(conn: PeerConnection, newPoint: P2pPoint): Promise<void> {
    const source = conn.peerId;
    this.pool.emit({ event: "swap_request_received", source });
    const sinceLastSwap = this.pool.now() - Math.max(this.latestSuccessfulSwap, this.latestAcceptedSwap);
    const record = this.pool.registerPoint(newPoint);
    if (sinceLastSwap < this.pool.tuning.swapLingerMs || !record.disconnected) {
      this.pool.emit({ event: "swap_request_ignored", source });
      return;
    }
    const proposed = this.pool.randomAddr({ noPrivate: true });
    if (proposed === undefined) return;
    if (!conn.writeNow({ kind: "Swap_ack", point: proposed[0], peer_id: proposed[1] })) return;
    this.pool.emit({ event: "swap_ack_sent", source });
    await this.swap(source, proposed[1], newPoint);
  }

  private async swapAck(conn: PeerConnection, newPoint: P2pPoint): Promise<void> {
    const source = conn.peerId;
    this.pool.emit({ event: "swap_ack_received", source });
    const sent = conn.lastSentSwapRequest;
    if (sent === undefined) return;
    if (this.pool.connectionOf(sent[1]) !== undefined) return;
    await this.swap(source, sent[1], newPoint);
  }
}
