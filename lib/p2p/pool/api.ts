/**
 * The P2P pool as the rest of the node sees it: what `/network/*` reads and changes, what
 * `createNode` and `platform/` give it, Octez v12's `P2p_pool` / `P2p_point` / `P2p_peer` /
 * `P2p_connection` models. The pool (`pool.ts`) implements {@link P2pNetwork}; the RPC services
 * (`lib/rpc/services/network.ts`) only use this interface.
 *
 * Values are plain data: times in milliseconds since the epoch (the RPC layer prints Octez's
 * `timestamp.system`), counters as numbers, names as in Octez's JSON where it has one.
 *
 * @module
 */
import type { ChainMessage } from "../encoding/chain-messages.ts";
import type { ConnectionMetadata, NetworkVersion } from "../encoding/connection.ts";
import type { Identity } from "../identity.ts";
import type { Endpoint, Transport } from "../transport.ts";

/** An address and an optional port (Octez `P2p_connection.Id`: `{addr, port?}`). */
export interface IdPoint {
  /** IPv4 dotted quad or IPv6 text, as Octez prints it (`::ffff:` form for IPv4 in JSON is the RPC layer's business). */
  readonly addr: string;
  readonly port?: number;
}

/** A point's state (Octez `P2p_point.State`). */
export type PointState =
  | { readonly kind: "requested" }
  | { readonly kind: "accepted"; readonly peerId: string }
  | { readonly kind: "running"; readonly peerId: string }
  | { readonly kind: "disconnected" };

/** What the point and peer filters of `/network/points` and `/network/peers` name. */
export type StateFilter = "requested" | "accepted" | "running" | "disconnected";

/** A point's record (Octez `P2p_point.Info`). */
export interface PointInfo {
  readonly trusted: boolean;
  readonly greylistedUntil?: number;
  readonly state: PointState;
  /** The peer last seen at this point. */
  readonly peerId?: string;
  readonly lastFailedConnection?: number;
  readonly lastRejectedConnection?: readonly [peerId: string, at: number];
  readonly lastEstablishedConnection?: readonly [peerId: string, at: number];
  readonly lastDisconnection?: readonly [peerId: string, at: number];
  readonly lastSeen?: readonly [peerId: string, at: number];
  readonly lastMiss?: number;
  readonly expectedPeerId?: string;
}

/** Byte counters and rates (Octez `P2p_stat`): totals in bytes, flows in bytes per second. */
export interface Stat {
  readonly totalSent: number;
  readonly totalRecv: number;
  readonly currentInflow: number;
  readonly currentOutflow: number;
}

/** Counters per request kind (Octez `Peer_metadata` `requests_kind`, the v1 record). */
export interface RequestCounts {
  branch: number;
  head: number;
  block_header: number;
  operations: number;
  protocols: number;
  operation_hashes_for_block: number;
  operations_for_block: number;
  checkpoint: number;
  protocol_branch: number;
  predecessor_header: number;
  other: number;
}

/**
 * What the distributed DB counts of a peer (Octez `lib_shell/peer_metadata.ml`), in Octez's JSON
 * field names; the shell (issue 13) increments them, the pool creates them at zero.
 */
export interface PeerMetadata {
  responses: { sent: RequestCounts; failed: RequestCounts; received: RequestCounts; unexpected: number; outdated: number };
  requests: { sent: RequestCounts; received: RequestCounts; failed: RequestCounts; scheduled: RequestCounts };
  valid_blocks: number;
  old_heads: number;
  prevalidator_results: {
    cannot_download: number;
    cannot_parse: number;
    refused_by_prefilter: number;
    refused_by_postfilter: number;
    applied: number;
    branch_delayed: number;
    branch_refused: number;
    refused: number;
    duplicate: number;
    outdated: number;
  };
  unactivated_chains: number;
  inactive_chains: number;
  future_blocks_advertised: number;
  unadvertised: { block: number; operations: number; protocol: number };
  advertisements: { sent: { head: number; branch: number }; received: { head: number; branch: number } };
}

/** A peer's record (Octez `P2p_peer.Info`). */
export interface PeerInfo {
  readonly score: number;
  readonly trusted: boolean;
  readonly connMetadata?: ConnectionMetadata;
  readonly peerMetadata: PeerMetadata;
  readonly state: "accepted" | "running" | "disconnected";
  readonly reachableAt?: IdPoint;
  readonly stat: Stat;
  readonly lastFailedConnection?: readonly [IdPoint, number];
  readonly lastRejectedConnection?: readonly [IdPoint, number];
  readonly lastEstablishedConnection?: readonly [IdPoint, number];
  readonly lastDisconnection?: readonly [IdPoint, number];
  readonly lastSeen?: readonly [IdPoint, number];
  readonly lastMiss?: readonly [IdPoint, number];
}

/** An established connection (Octez `P2p_connection.Info`). */
export interface ConnectionView {
  readonly incoming: boolean;
  readonly peerId: string;
  readonly idPoint: IdPoint;
  readonly remoteSocketPort: number;
  readonly announcedVersion: NetworkVersion;
  readonly private: boolean;
  readonly localMetadata: ConnectionMetadata;
  readonly remoteMetadata: ConnectionMetadata;
}

/** One entry of a point's log (Octez `P2p_point.Pool_event`). */
export interface PointLogItem {
  readonly at: number;
  readonly kind:
    | { readonly event: "outgoing_request" }
    | { readonly event: "accepting_request" | "rejecting_request" | "connection_established" | "disconnection" | "external_disconnection"; readonly peerId: string }
    | { readonly event: "request_rejected"; readonly peerId?: string };
}

/** One entry of a peer's log (Octez `P2p_peer.Pool_event`). */
export interface PeerLogItem {
  readonly at: number;
  readonly kind: "rejecting_request" | "incoming_request" | "disconnection" | "external_disconnection" | "connection_established" | "request_rejected";
  readonly point: IdPoint;
}

/** An event of the pool (Octez `P2p_connection.P2p_event`, streamed by `/network/log`). */
export type P2pEvent =
  | { readonly event: "too_few_connections" | "too_many_connections" | "gc_points" | "gc_peer_ids" }
  | { readonly event: "new_point" | "incoming_connection" | "outgoing_connection" | "authentication_failed"; readonly point: string }
  | { readonly event: "new_peer" | "disconnection" | "external_disconnection"; readonly peerId: string }
  | { readonly event: "accepting_request" | "rejecting_request"; readonly point: string; readonly idPoint: IdPoint; readonly peerId: string }
  | { readonly event: "request_rejected"; readonly point: string; readonly identity?: readonly [IdPoint, string] }
  | { readonly event: "connection_established"; readonly idPoint: IdPoint; readonly peerId: string }
  | {
    readonly event:
      | "swap_request_received"
      | "swap_ack_received"
      | "swap_request_sent"
      | "swap_ack_sent"
      | "swap_request_ignored"
      | "swap_success"
      | "swap_failure"
      | "bootstrap_sent"
      | "bootstrap_received"
      | "advertise_sent"
      | "advertise_received";
    readonly source: string;
  };

/** The access rule a PATCH sets on a point or a peer (`{acl: open | trust | ban}`). */
export type Acl = "open" | "trust" | "ban";

/**
 * A change of a point's or a peer's rule, as Octez's RPCs make them (`p2p_directory.ml`): PATCH's
 * `ban` (untrust, then ban), `trust` (unban, then trust), `open` (unban and untrust), and the
 * deprecated GET `/unban` and `/untrust`, which undo one half only (a trusted point stays trusted
 * after `/unban`, a banned one stays banned after `/untrust`). Only `trust` registers an unknown
 * point or peer.
 */
export type AclChange = Acl | "unban" | "untrust";

/**
 * The P2P layer as `/network/*` uses it. Methods that name an unknown point or peer answer
 * `undefined` (the RPC's 404) where Octez answers 404; points are given as text (`addr:port`,
 * `[v6]:port`) and parsed by the pool, which throws a `TezosError` with Octez's error for a
 * malformed one. Changes apply at once and are logged; none touches the chain.
 */
export interface P2pNetwork {
  /** Our peer id (`/network/self`). */
  readonly peerId: string;
  /** What we announce (`/network/version`). */
  readonly announcedVersion: NetworkVersion;
  /** Every version we speak (`/network/versions`). */
  readonly supportedVersions: readonly NetworkVersion[];

  /** Totals and current flows of every connection (`/network/stat`). */
  stat(): Stat;

  /** The established connections (`/network/connections`). */
  connections(): ConnectionView[];
  connection(peerId: string): ConnectionView | undefined;
  /** Closes the connection to `peerId` (`wait`: once it is closed); false when there is none. */
  disconnect(peerId: string, options?: { wait?: boolean }): Promise<boolean>;

  /** Known points, with their records, filtered by state when `filter` is not empty. */
  points(filter?: readonly StateFilter[]): [point: string, info: PointInfo][];
  point(point: string): PointInfo | undefined;
  /** Connects to `point` (PUT `/network/points/<point>`); rejects with Octez's error when it fails or times out. */
  connect(point: string, options?: { timeoutMs?: number }): Promise<void>;
  /** Sets a point's rule (and its expected peer id), as PATCH does; the new record, `undefined` when the point stays unknown (Octez's 404: `ban` and `open` register no point). */
  patchPoint(point: string, change: { acl?: AclChange; peerId?: string }): PointInfo | undefined;
  /** Whether the point's address is banned. */
  pointBanned(point: string): boolean;
  /** The point's log; with `signal`, a stream of the entries to come as well, until it aborts. */
  pointLog(point: string): PointLogItem[] | undefined;
  watchPoint(point: string, signal: AbortSignal): AsyncIterable<PointLogItem>;

  /** Known peers, with their records, filtered by state when `filter` is not empty. */
  peers(filter?: readonly StateFilter[]): [peerId: string, info: PeerInfo][];
  peer(peerId: string): PeerInfo | undefined;
  patchPeer(peerId: string, change: { acl?: AclChange }): PeerInfo | undefined;
  peerBanned(peerId: string): boolean;
  peerLog(peerId: string): PeerLogItem[] | undefined;
  watchPeer(peerId: string, signal: AbortSignal): AsyncIterable<PeerLogItem>;

  /** Forgets every greylisted address and peer (`DELETE /network/greylist`, `GET /network/greylist/clear`). */
  clearGreylist(): void;
  /** Greylisted addresses (`/network/greylist/ips`); `notReliableSince` once the list overflowed. */
  greylistedIps(): { ips: string[]; notReliableSince?: number };
  /** The last greylisted peers (`/network/greylist/peers`). */
  greylistedPeers(): string[];

  /** The pool's events from now on, until `signal` aborts (`/network/log`). */
  events(signal: AbortSignal): AsyncIterable<P2pEvent>;
}

/** A connected peer as the shell sees it. */
export interface PeerLink {
  readonly peerId: string;
  /** Whether the peer asked not to get our mempool (its metadata's `disable_mempool`). */
  readonly disableMempool: boolean;
  /** Sends a chain message; rejects when the connection is gone or the message breaks a bound. */
  send(message: ChainMessage): Promise<void>;
  /** The peer's counters, which the shell increments (Octez's `peer_metadata`). */
  readonly metadata: PeerMetadata;
  /**
   * Greylists the peer and its address, and closes the connection (Octez's `P2p.greylist_peer`
   * then `disconnect`: the shell's answer to a peer that sent an invalid block or branch).
   */
  greylist(): Promise<void>;
}

/** What the shell does with a chain message a peer sent (Octez's distributed DB callback). */
export type ChainMessageHandler = (from: PeerLink, message: ChainMessage) => void;

/** The pool as the node owns it: {@link P2pNetwork}, plus the shell's link to peers and its life. */
export interface P2pPool extends P2pNetwork {
  /** Who gets the chain messages peers send (the node's distributed DB); until set, they are dropped. */
  setChainMessageHandler(handler: ChainMessageHandler | undefined): void;
  /** Called with each newly established connection, and with each that ends. */
  onPeerChange(listener: (link: PeerLink, change: "connected" | "disconnected") => void): () => void;
  /** The peers connected now. */
  links(): PeerLink[];
  /** Starts listening (when `listen` is set) and the maintenance (bootstrap peers first). */
  start(): Promise<void>;
  /** Stops: closes the listener and every connection; pending calls end. */
  close(): Promise<void>;
}

/** Connection limits (Octez `P2p.limits`, the part an operator sets with `--connections`). */
export interface ConnectionLimits {
  readonly minConnections: number;
  readonly expectedConnections: number;
  readonly maxConnections: number;
  /** Octez's `max_incoming_connections` (default 20). */
  readonly maxIncomingConnections: number;
  /** Octez's `connection_timeout` (default 10 s). */
  readonly connectionTimeoutMs: number;
  /** Octez's `authentication_timeout` (default 5 s). */
  readonly authenticationTimeoutMs: number;
}

/** How the platform starts the pool. */
export interface PoolOptions {
  readonly transport: Transport;
  readonly identity: Identity;
  /** `SANDBOXED_TEZOS` for the sandbox. */
  readonly chainName: string;
  /** Where to listen (`--net-addr`); none: outgoing connections only. */
  readonly listen?: Endpoint;
  /** The proof of work asked of peers (`--expected-pow`, a difficulty). */
  readonly expectedPow: number;
  /** Points to connect to (`--peer`, `addr:port[#peer_id]`), trusted as Octez trusts them. */
  readonly bootstrapPeers: readonly string[];
  /** `--private-mode`: only trusted points, and our address is not advertised. */
  readonly privateMode: boolean;
  readonly limits: ConnectionLimits;
  /** The clock (tests). */
  readonly now?: () => number;
  /** One line per notable thing (a refused peer, a greylisting); none: silent. */
  readonly log?: (line: string) => void;
}
