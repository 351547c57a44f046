/**
 * An established connection (Octez `P2p_conn`): its read loop (P2P messages to the protocol's
 * answerer, chain messages to the shell's handler, `Disconnect` and failures end it; a message
 * that does not decode greylists the peer), writes, byte counters, and the shell's view of it
 * ({@link PeerLink}). Nothing the peer sends escapes as an exception.
 * @module
 */
import type { ChainMessage } from "../encoding/chain-messages.ts";
import type { ConnectionMetadata } from "../encoding/connection.ts";
import type { P2pMessage } from "../encoding/p2p-message.ts";
import type { P2pPoint } from "../encoding/point.ts";
import { P2pError } from "../errors.ts";
import type { AuthenticatedChannel } from "../socket.ts";
import type { ConnectionView, IdPoint, PeerLink, PeerMetadata } from "./api.ts";
import { Flows } from "./stat.ts";

/** What a connection asks of the pool. */
export interface ConnectionHooks {
  /** A P2P message (Bootstrap, Advertise, Swap_request, Swap_ack); the loop waits for it. */
  readonly onPeerMessage: (conn: PeerConnection, message: Exclude<P2pMessage, ChainMessage | { kind: "Disconnect" }>) => Promise<void>;
  /** A chain message, for the shell. */
  readonly onChainMessage: (conn: PeerConnection, message: ChainMessage) => void;
  /** The peer sent bytes that do not decode: greylist it (Octez's `greylister`). */
  readonly greylist: (conn: PeerConnection) => void;
  /** The connection ended (once): the pool's bookkeeping (and the last byte counts). */
  readonly onClose: (conn: PeerConnection) => void;
  readonly log: (line: string) => void;
}

const PEER_MESSAGES = new Set(["Bootstrap", "Advertise", "Swap_request", "Swap_ack"]);

/** An established connection to a peer. */
export class PeerConnection {
  readonly peerId: string;
  readonly incoming: boolean;
  /** Where the peer is: its address and listening port (the dialled one, or the announced one). */
  readonly idPoint: IdPoint;
  readonly channel: AuthenticatedChannel;
  /** Whether the peer or its point is trusted (at connection time, as Octez). */
  readonly trustedNode: boolean;
  readonly flows = new Flows();
  /** The last swap we proposed to this peer: when, and the peer proposed. */
  lastSentSwapRequest: [at: number, peerId: string] | undefined;
  readonly link: PeerLink;
  private readonly hooks: ConnectionHooks;
  private sampledSent = 0;
  private sampledReceived = 0;
  private lastWrite: Promise<unknown> = Promise.resolve();
  private ended = false;
  private readonly abort = new AbortController();
  /** Resolves once the connection is closed and the pool updated. */
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(options: {
    channel: AuthenticatedChannel;
    idPoint: IdPoint;
    trustedNode: boolean;
    metadata: PeerMetadata;
    hooks: ConnectionHooks;
  }) {
    this.channel = options.channel;
    this.peerId = options.channel.info.peerId;
    this.incoming = options.channel.info.incoming;
    this.idPoint = options.idPoint;
    this.trustedNode = options.trustedNode;
    this.hooks = options.hooks;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    const self = this;
    const metadata = options.metadata;
    this.link = Object.freeze({
      peerId: this.peerId,
      disableMempool: this.remoteMetadata.disable_mempool,
      metadata,
      send(message: ChainMessage): Promise<void> {
        if (typeof message !== "object" || message === null || PEER_MESSAGES.has(message.kind) || (message.kind as string) === "Disconnect") {
          return Promise.reject(new TypeError("PeerLink.send takes a chain message"));
        }
        return self.write(message);
      },
      greylist(): Promise<void> {
        self.hooks.greylist(self);
        return self.disconnect();
      },
    });
  }

  get remoteMetadata(): ConnectionMetadata {
    return this.channel.info.remoteMetadata;
  }

  get localMetadata(): ConnectionMetadata {
    return this.channel.info.localMetadata;
  }

  /** Whether the peer says it is a private node. */
  get privateNode(): boolean {
    return this.channel.info.privateNode;
  }

  get closed(): boolean {
    return this.ended;
  }

  /** The connection as `/network/connections` shows it. */
  view(): ConnectionView {
    const i = this.channel.info;
    return {
      incoming: this.incoming,
      peerId: this.peerId,
      idPoint: this.idPoint,
      remoteSocketPort: i.remoteSocketPort,
      announcedVersion: i.announcedVersion,
      private: i.privateNode,
      localMetadata: i.localMetadata,
      remoteMetadata: i.remoteMetadata,
    };
  }

  /** Moves the channel's byte counts into this connection's meters; the new bytes, for the global meters. */
  sample(): { sent: number; received: number } {
    const s = this.channel.stats();
    const sent = s.bytesSent - this.sampledSent;
    const received = s.bytesReceived - this.sampledReceived;
    this.sampledSent = s.bytesSent;
    this.sampledReceived = s.bytesReceived;
    this.flows.sent.add(sent);
    this.flows.received.add(received);
    return { sent, received };
  }

  /** Sends a message; rejects when the connection is gone or the message breaks a bound. */
  write(message: P2pMessage): Promise<void> {
    if (this.ended) return Promise.reject(new P2pError("connection-closed", "the connection is closed"));
    const p = this.channel.writeMessage(message);
    this.lastWrite = p.catch(() => {});
    return p;
  }

  /** Sends without waiting (Octez `write_now`); failures end in the read loop or are dropped. */
  writeNow(message: P2pMessage): boolean {
    if (this.ended) return false;
    this.write(message).catch(() => {});
    return true;
  }

  /** Proposes a swap (Octez `write_swap_request`): remembers what was proposed. */
  writeSwapRequest(point: P2pPoint, peerId: string, now: number): boolean {
    this.lastSentSwapRequest = [now, peerId];
    return this.writeNow({ kind: "Swap_request", point, peer_id: peerId });
  }

  /** Runs the read loop until the connection ends. */
  async run(): Promise<void> {
    try {
      for (;;) {
        const message = await this.channel.readMessage(this.abort.signal);
        if (message.kind === "Disconnect") break;
        if (PEER_MESSAGES.has(message.kind)) {
          await this.hooks.onPeerMessage(this, message as Exclude<P2pMessage, ChainMessage | { kind: "Disconnect" }>);
        } else {
          try {
            this.hooks.onChainMessage(this, message as ChainMessage);
          } catch (e) {
            this.hooks.log(`p2p: the chain message handler failed on ${message.kind} from ${this.peerId}: ${e instanceof Error ? e.message : String(e)}`);
          }
        }
      }
    } catch (e) {
      if (e instanceof P2pError) {
        if (e.kind === "decoding-error") {
          this.hooks.log(`p2p: peer ${this.peerId} at ${this.idPoint.addr} sent a message that does not decode (${e.message}): greylisted`);
          this.hooks.greylist(this);
        } else if (e.kind !== "connection-closed" && e.kind !== "aborted") {
          this.hooks.log(`p2p: connection to ${this.peerId} ended: ${e.message}`);
        }
      } else {
        this.hooks.log(`p2p: connection to ${this.peerId} ended on an unexpected failure: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    await this.end();
  }

  private async end(): Promise<void> {
    if (this.ended) return this.done;
    this.ended = true;
    this.abort.abort();
    this.channel.close();
    await this.channel.closed;
    try {
      this.hooks.onClose(this);
    } catch (e) {
      this.hooks.log(`p2p: the pool's bookkeeping of the end of ${this.peerId} failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.resolveDone();
    }
  }

  /** Closes the connection (`wait`: once the writes under way are sent); resolves once it is closed and the pool updated. */
  async disconnect(wait = false): Promise<void> {
    if (wait && !this.ended) await this.lastWrite;
    await this.end();
  }
}
