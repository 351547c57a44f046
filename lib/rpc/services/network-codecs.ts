/**
 * The JSON (and binary) forms of the `/network/*` answers, as Octez v12 writes them
 * (`src/lib_base/p2p_point.ml`, `p2p_peer.ml`, `p2p_connection.ml`, `p2p_addr.ml`, `p2p_stat.ml`,
 * `time.ml`, `src/lib_p2p_services/peer_metadata.ml`), over the plain records of
 * `lib/p2p/pool/api.ts`:
 *
 * - times (`timestamp.system`) are RFC 3339 with milliseconds and the "unknown offset" `-00:00`,
 *   as Ptime prints them (`1970-01-01T00:00:00.000-00:00`); int64 seconds in binary;
 * - addresses (`p2p_address`) are Octez's IPv6 addresses as `ipaddr` prints them: an IPv4 peer is
 *   `::ffff:a.b.c.d` (Octez keeps every address IPv4-mapped), others RFC 5952 text;
 * - points (`p2p_point.id`) are `a.b.c.d:port` or `[v6]:port`;
 * - counters of the peer metadata are decimal strings (`bignum`), byte totals int64 strings;
 * - a point's log entries are `[time, {event_kind…}]` pairs, and, as in Octez v12 (whose encoding
 *   reuses one name), `connection_established`, `disconnection` and `external_disconnection`
 *   entries all print `"event_kind": "rejecting_request"`.
 * @module
 */
import { bytes, string } from "../../encoding/bytes.ts";
import { DecodeError, type Json, type JsonSchema } from "../../encoding/codec.ts";
import { constant, conv, def, splitted, stringEnum } from "../../encoding/conv.ts";
import { jsonPreview, jsonTypeError, type Codec, type SchemaContext } from "../../encoding/core.ts";
import { cryptoboxPublicKeyHash } from "../../encoding/hashes.ts";
import { bool, float, int31, int64, int64Schema, uint16 } from "../../encoding/integers.ts";
import { list } from "../../encoding/list.ts";
import { mergeObjs, obj, opt, req } from "../../encoding/object.ts";
import { parseTimestamp } from "../../encoding/time.ts";
import { tup } from "../../encoding/tuple.ts";
import { option, tagged, union } from "../../encoding/union.ts";
import { z } from "../../encoding/zarith.ts";
import { connectionMetadata, networkVersion } from "../../p2p/encoding/connection.ts";
import { formatIpAddress, formatPoint, parseIpAddress, parsePoint } from "../../p2p/encoding/point.ts";
import type {
  Acl,
  ConnectionView,
  IdPoint,
  P2pEvent,
  PeerInfo,
  PeerLogItem,
  PeerMetadata,
  PointInfo,
  PointLogItem,
  PointState,
  RequestCounts,
  Stat,
} from "../../p2p/pool/api.ts";

// ---- times -------------------------------------------------------------------------------

/** Ptime's `to_rfc3339 ~frac_s:3` without an offset: milliseconds (truncated) and `-00:00`. */
export function systemTimeText(ms: number): string {
  if (typeof ms !== "number" || !Number.isFinite(ms)) throw new TypeError(`not a time: ${String(ms)}`);
  const iso = new Date(Math.floor(ms)).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  return `${iso.slice(0, -1)}-00:00`;
}

const rfcTime = def("timestamp.rfc", string, { title: "RFC 3339 formatted timestamp", description: "A date in RFC 3339 notation." });

/** `timestamp.system`: milliseconds since the epoch; JSON RFC 3339 (or int64 seconds on input), binary int64 seconds. */
export const systemTime: Codec<number> = def(
  "timestamp.system",
  splitted<number>(
    {
      toJson: systemTimeText,
      fromJson(j: Json) {
        if (typeof j !== "string") throw jsonTypeError("an RFC 3339 date or a number of seconds", j);
        const s = parseTimestamp(j);
        if (s === undefined) throw new DecodeError(`Invalid date ${jsonPreview(j, 200)}`);
        const frac = /\.(\d+)/.exec(j);
        return s * 1000 + (frac === null || /^-?\d+$/.test(j) ? 0 : Math.floor(Number(`0.${frac[1]}`) * 1000));
      },
      schema: (ctx: SchemaContext): JsonSchema => ({
        oneOf: [
          { title: "RFC encoding", oneOf: [rfcTime.schema(ctx)] },
          { title: "Second since epoch", oneOf: [int64Schema(ctx)] },
        ],
      }),
    },
    conv<number, bigint>((ms) => BigInt(Math.floor(ms / 1000)), (s) => Number(s) * 1000, int64),
  ),
  { description: "A timestamp as seen by the underlying, local computer: subsecond-level precision, epoch or rfc3339 based." },
);

// ---- addresses, points, peers ------------------------------------------------------------

/** The 16 bytes of an address text; a TypeError for anything else. */
function addressBytes(text: string): Uint8Array {
  const b = typeof text === "string" ? parseIpAddress(text) : undefined;
  if (b === undefined) throw new TypeError(`not an IP address: ${JSON.stringify(text)}`);
  return b;
}

function isV4Mapped(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/**
 * An address as Octez's JSON prints it (`Ipaddr.V6.to_string`): `::ffff:a.b.c.d` for an IPv4
 * (IPv4-mapped) address, RFC 5952 text otherwise.
 */
export function p2pAddressText(address: string): string {
  const b = addressBytes(address);
  return isV4Mapped(b) ? `::ffff:${formatIpAddress(b)}` : formatIpAddress(b);
}

/** `p2p_address`: JSON the IPv6 text, binary the 16 bytes as a string. */
export const p2pAddress: Codec<string> = def(
  "p2p_address",
  splitted<string>(
    {
      toJson: p2pAddressText,
      fromJson(j: Json) {
        if (typeof j !== "string" || parseIpAddress(j) === undefined) throw new DecodeError("P2p_addr.of_string");
        return formatIpAddress(parseIpAddress(j)!);
      },
      schema: (ctx) => string.schema(ctx),
    },
    conv<string, Uint8Array>(
      addressBytes,
      (b) => {
        if (b.length !== 16) throw new DecodeError("P2p_addr: 16 bytes expected");
        return formatIpAddress(b);
      },
      bytes,
    ),
  ),
  { description: "An address for locating peers." },
);

/** `p2p_connection.id`: `{addr, port?}`. */
export const connectionId: Codec<IdPoint> = def(
  "p2p_connection.id",
  conv<IdPoint, { addr: string; port?: number }>(
    (p) => (p.port === undefined ? { addr: p.addr } : { addr: p.addr, port: p.port }),
    (o) => (o.port === undefined ? { addr: o.addr } : { addr: o.addr, port: o.port }),
    obj(req("addr", p2pAddress), opt("port", uint16)),
  ),
  { description: "The identifier for a p2p connection. It includes an address and a port number." },
);

/** `p2p_point.id`: a point's text (`a.b.c.d:port`, `[v6]:port`), given and answered in canonical form. */
export const pointId: Codec<string> = def(
  "p2p_point.id",
  conv<string, string>(
    (text) => {
      const p = parsePoint(text);
      if (p === undefined) throw new TypeError(`not a point: ${JSON.stringify(text)}`);
      return formatPoint(p);
    },
    (text) => {
      const p = parsePoint(text);
      if (p === undefined) throw new DecodeError(`Invalid point ${jsonPreview(text, 200)}`);
      return formatPoint(p);
    },
    string,
  ),
  { description: "Identifier for a peer point" },
);

/** A peer id (`Crypto_box.Public_key_hash`, `id…`). */
export const peerId: Codec<string> = cryptoboxPublicKeyHash;

// ---- versions, stat ----------------------------------------------------------------------

export { networkVersion };

/** `p2p_stat`: totals as int64 (JSON strings), flows as int31. */
export const stat: Codec<Stat> = def(
  "p2p_stat",
  conv<Stat, { total_sent: bigint; total_recv: bigint; current_inflow: number; current_outflow: number }>(
    (s) => ({
      total_sent: BigInt(Math.floor(s.totalSent)),
      total_recv: BigInt(Math.floor(s.totalRecv)),
      current_inflow: Math.floor(s.currentInflow),
      current_outflow: Math.floor(s.currentOutflow),
    }),
    (o) => ({ totalSent: Number(o.total_sent), totalRecv: Number(o.total_recv), currentInflow: o.current_inflow, currentOutflow: o.current_outflow }),
    obj(req("total_sent", int64), req("total_recv", int64), req("current_inflow", int31), req("current_outflow", int31)),
  ),
  { description: "Statistics about the p2p network." },
);

// ---- points ------------------------------------------------------------------------------

/** `p2p_point.state`: `{event_kind: requested | accepted | running | disconnected, p2p_peer_id?}`. */
export const pointState: Codec<PointState> = def(
  "p2p_point.state",
  union<PointState>([
    tagged(0, "Requested", obj(req("event_kind", constant("requested"))), (s) => (s.kind === "requested" ? { event_kind: "requested" as const } : undefined), () => ({ kind: "requested" })),
    tagged(
      1,
      "Accepted",
      obj(req("event_kind", constant("accepted")), req("p2p_peer_id", peerId)),
      (s) => (s.kind === "accepted" ? { event_kind: "accepted" as const, p2p_peer_id: s.peerId } : undefined),
      (o) => ({ kind: "accepted", peerId: o.p2p_peer_id }),
    ),
    tagged(
      2,
      "Running",
      obj(req("event_kind", constant("running")), req("p2p_peer_id", peerId)),
      (s) => (s.kind === "running" ? { event_kind: "running" as const, p2p_peer_id: s.peerId } : undefined),
      (o) => ({ kind: "running", peerId: o.p2p_peer_id }),
    ),
    tagged(3, "Disconnected", obj(req("event_kind", constant("disconnected"))), (s) => (s.kind === "disconnected" ? { event_kind: "disconnected" as const } : undefined), () => ({ kind: "disconnected" })),
  ]),
  {
    description:
      "The state a connection to a peer point can be in: requested (connection open from here), accepted (handshake), running (connection already established), disconnected (no connection).",
  },
);

const stampedPeer = tup(peerId, systemTime);

type PointInfoJson = {
  trusted: boolean;
  greylisted_until?: number;
  state: PointState;
  p2p_peer_id?: string;
  last_failed_connection?: number;
  last_rejected_connection?: [string, number];
  last_established_connection?: [string, number];
  last_disconnection?: [string, number];
  last_seen?: [string, number];
  last_miss?: number;
  expected_peer_id?: string;
};

const pair = (p: readonly [string, number] | undefined): [string, number] | undefined => (p === undefined ? undefined : [p[0], p[1]]);

/** The peer of a point's state (Octez `P2p_point.State.of_p2p_peer_id`), which `p2p_peer_id` prints. */
function statePeer(s: PointState): string | undefined {
  return s.kind === "accepted" || s.kind === "running" ? s.peerId : undefined;
}

/** Drops the keys whose value is `undefined` (absent optional fields). */
function defined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/**
 * `p2p_point.info`. Its `p2p_peer_id` is the peer of the state (accepted or running), as Octez
 * derives it; the record's own `peerId` is not printed.
 */
export const pointInfo: Codec<PointInfo> = def(
  "p2p_point.info",
  conv<PointInfo, PointInfoJson>(
    (i) =>
      defined({
        trusted: i.trusted,
        greylisted_until: i.greylistedUntil,
        state: i.state,
        p2p_peer_id: statePeer(i.state),
        last_failed_connection: i.lastFailedConnection,
        last_rejected_connection: pair(i.lastRejectedConnection),
        last_established_connection: pair(i.lastEstablishedConnection),
        last_disconnection: pair(i.lastDisconnection),
        last_seen: pair(i.lastSeen),
        last_miss: i.lastMiss,
        expected_peer_id: i.expectedPeerId,
      }),
    (o) =>
      defined({
        trusted: o.trusted,
        greylistedUntil: o.greylisted_until,
        state: o.state,
        peerId: o.p2p_peer_id,
        lastFailedConnection: o.last_failed_connection,
        lastRejectedConnection: o.last_rejected_connection,
        lastEstablishedConnection: o.last_established_connection,
        lastDisconnection: o.last_disconnection,
        lastSeen: o.last_seen,
        lastMiss: o.last_miss,
        expectedPeerId: o.expected_peer_id,
      }),
    obj(
      req("trusted", bool),
      opt("greylisted_until", systemTime),
      req("state", pointState),
      opt("p2p_peer_id", peerId),
      opt("last_failed_connection", systemTime),
      opt("last_rejected_connection", stampedPeer),
      opt("last_established_connection", stampedPeer),
      opt("last_disconnection", stampedPeer),
      opt("last_seen", stampedPeer),
      opt("last_miss", systemTime),
      opt("expected_peer_id", peerId),
    ) as unknown as Codec<PointInfoJson>,
  ),
  { description: "Information about a peer point. Includes flags, state, and records about past events." },
);

type PointEventKind = PointLogItem["kind"];

/** One case of a point's log entry kind, printed with `name` (Octez's, bug included). */
function pointEventCase(tag: number, title: string, event: PointEventKind["event"], name: string, peer: "none" | "req" | "opt") {
  const codec =
    peer === "none"
      ? obj(req("event_kind", constant(name)))
      : peer === "req"
        ? obj(req("event_kind", constant(name)), req("p2p_peer_id", peerId))
        : obj(req("event_kind", constant(name)), opt("p2p_peer_id", peerId));
  return tagged<PointEventKind, { event_kind: string; p2p_peer_id?: string }>(
    tag,
    title,
    codec as unknown as Codec<{ event_kind: string; p2p_peer_id?: string }>,
    (k) => (k.event !== event ? undefined : "peerId" in k && k.peerId !== undefined ? { event_kind: name, p2p_peer_id: k.peerId } : { event_kind: name }),
    (o) => (o.p2p_peer_id === undefined ? { event } : { event, peerId: o.p2p_peer_id }) as PointEventKind,
  );
}

const pointEventKind: Codec<PointEventKind> = union<PointEventKind>([
  pointEventCase(0, "Outgoing_request", "outgoing_request", "outgoing_request", "none"),
  pointEventCase(1, "Accepting_request", "accepting_request", "accepting_request", "req"),
  pointEventCase(2, "Rejecting_request", "rejecting_request", "rejecting_request", "req"),
  pointEventCase(3, "Rejecting_rejected", "request_rejected", "request_rejected", "opt"),
  pointEventCase(4, "Connection_established", "connection_established", "rejecting_request", "req"),
  pointEventCase(5, "Disconnection", "disconnection", "rejecting_request", "req"),
  pointEventCase(6, "External_disconnection", "external_disconnection", "rejecting_request", "req"),
]);

/** `p2p_point.pool_event`: `[time, {event_kind, p2p_peer_id?}]`. */
export const pointLogItem: Codec<PointLogItem> = def(
  "p2p_point.pool_event",
  conv<PointLogItem, [number, PointEventKind]>((e) => [e.at, e.kind], ([at, kind]) => ({ at, kind }), tup(systemTime, pointEventKind)),
  { description: "Events happening during maintenance of and operations on a peer point pool (such as connections, disconnections, connection requests)." },
);

// ---- peers -------------------------------------------------------------------------------

const counter: Codec<number> = conv<number, bigint>((n) => BigInt(Math.floor(n)), (b) => Number(b), z);

const COUNT_NAMES = [
  "branch",
  "head",
  "block_header",
  "operations",
  "protocols",
  "operation_hashes_for_block",
  "operations_for_block",
  "checkpoint",
  "protocol_branch",
  "predecessor_header",
  "other",
] as const;

const countsV1 = obj(...COUNT_NAMES.map((n) => req(n, counter))) as unknown as Codec<RequestCounts>;
const countsV0 = obj(...COUNT_NAMES.filter((n) => !["checkpoint", "protocol_branch", "predecessor_header"].includes(n)).map((n) => req(n, counter))) as unknown as Codec<
  Omit<RequestCounts, "checkpoint" | "protocol_branch" | "predecessor_header">
>;

/** Counters per request kind (`peer_metadata.v1`; the `legacy_v0` form, without the last three, is read too). */
const requestCounts: Codec<RequestCounts> = union<RequestCounts>([
  tagged(0, "peer_metadata.v1", countsV1, (c) => c, (c) => c),
  tagged(1, "peer_metadata.legacy_v0", countsV0, () => undefined, (c) => ({ ...c, checkpoint: 0, protocol_branch: 0, predecessor_header: 0 })),
]);

/** Octez's `Peer_metadata.encoding`: what the distributed DB counted of a peer. */
export const peerMetadata: Codec<PeerMetadata> = obj(
  req(
    "responses",
    obj(req("sent", requestCounts), req("failed", requestCounts), req("received", requestCounts), req("unexpected", counter), req("outdated", counter)),
  ),
  req("requests", obj(req("sent", requestCounts), req("received", requestCounts), req("failed", requestCounts), req("scheduled", requestCounts))),
  req("valid_blocks", counter),
  req("old_heads", counter),
  req(
    "prevalidator_results",
    obj(
      req("cannot_download", counter),
      req("cannot_parse", counter),
      req("refused_by_prefilter", counter),
      req("refused_by_postfilter", counter),
      req("applied", counter),
      req("branch_delayed", counter),
      req("branch_refused", counter),
      req("refused", counter),
      req("duplicate", counter),
      req("outdated", counter),
    ),
  ),
  req("unactivated_chains", counter),
  req("inactive_chains", counter),
  req("future_blocks_advertised", counter),
  req("unadvertised", obj(req("block", counter), req("operations", counter), req("protocol", counter))),
  req("advertisements", obj(req("sent", obj(req("head", counter), req("branch", counter))), req("received", obj(req("head", counter), req("branch", counter))))),
) as unknown as Codec<PeerMetadata>;

/** `p2p_peer.state`. */
export const peerState: Codec<PeerInfo["state"]> = def("p2p_peer.state", stringEnum(["accepted", "running", "disconnected"], { schemaOrder: ["running", "accepted", "disconnected"] }), {
  description:
    "The state a peer connection can be in: accepted (when the connection is being established), running (when the connection is already established), disconnected (otherwise).",
});

const stampedPoint = tup(connectionId, systemTime);

/** `P2p_peer.Info.encoding Peer_metadata.encoding Connection_metadata.encoding`. */
export const peerInfo: Codec<PeerInfo> = conv<PeerInfo, Record<string, unknown>>(
  (i) =>
    defined({
      score: i.score,
      trusted: i.trusted,
      conn_metadata: i.connMetadata,
      peer_metadata: i.peerMetadata,
      state: i.state,
      reachable_at: i.reachableAt,
      stat: i.stat,
      last_failed_connection: i.lastFailedConnection,
      last_rejected_connection: i.lastRejectedConnection,
      last_established_connection: i.lastEstablishedConnection,
      last_disconnection: i.lastDisconnection,
      last_seen: i.lastSeen,
      last_miss: i.lastMiss,
    }),
  (o) =>
    defined({
      score: o["score"],
      trusted: o["trusted"],
      connMetadata: o["conn_metadata"],
      peerMetadata: o["peer_metadata"],
      state: o["state"],
      reachableAt: o["reachable_at"],
      stat: o["stat"],
      lastFailedConnection: o["last_failed_connection"],
      lastRejectedConnection: o["last_rejected_connection"],
      lastEstablishedConnection: o["last_established_connection"],
      lastDisconnection: o["last_disconnection"],
      lastSeen: o["last_seen"],
      lastMiss: o["last_miss"],
    }) as unknown as PeerInfo,
  obj(
    req("score", float),
    req("trusted", bool),
    opt("conn_metadata", connectionMetadata),
    req("peer_metadata", peerMetadata),
    req("state", peerState),
    opt("reachable_at", connectionId),
    req("stat", stat),
    opt("last_failed_connection", stampedPoint),
    opt("last_rejected_connection", stampedPoint),
    opt("last_established_connection", stampedPoint),
    opt("last_disconnection", stampedPoint),
    opt("last_seen", stampedPoint),
    opt("last_miss", stampedPoint),
  ) as unknown as Codec<Record<string, unknown>>,
);

/** `p2p_peer.pool_event`: `{kind, timestamp, addr, port?}`. */
export const peerLogItem: Codec<PeerLogItem> = def(
  "p2p_peer.pool_event",
  conv<PeerLogItem, { kind: PeerLogItem["kind"]; timestamp: number; addr: string; port?: number }>(
    (e) => defined({ kind: e.kind, timestamp: e.at, addr: e.point.addr, port: e.point.port }),
    (o) => ({ kind: o.kind, at: o.timestamp, point: defined({ addr: o.addr, port: o.port }) }),
    obj(
      req(
        "kind",
        stringEnum(["incoming_request", "rejecting_request", "request_rejected", "connection_established", "disconnection", "external_disconnection"], {
          schemaOrder: ["rejecting_request", "incoming_request", "disconnection", "external_disconnection", "connection_established", "request_rejected"],
        }),
      ),
      req("timestamp", systemTime),
      req("addr", p2pAddress),
      opt("port", uint16),
    ) as unknown as Codec<{ kind: PeerLogItem["kind"]; timestamp: number; addr: string; port?: number }>,
  ),
  { description: "An event that may happen during maintenance of and other operations on the connection to a specific peer." },
);

// ---- connections, events, greylist --------------------------------------------------------

/** `P2p_connection.Info.encoding Connection_metadata.encoding`. */
export const connectionInfo: Codec<ConnectionView> = conv<ConnectionView, Record<string, unknown>>(
  (c) => ({
    incoming: c.incoming,
    peer_id: c.peerId,
    id_point: c.idPoint,
    remote_socket_port: c.remoteSocketPort,
    announced_version: c.announcedVersion,
    private: c.private,
    local_metadata: c.localMetadata,
    remote_metadata: c.remoteMetadata,
  }),
  (o) =>
    ({
      incoming: o["incoming"],
      peerId: o["peer_id"],
      idPoint: o["id_point"],
      remoteSocketPort: o["remote_socket_port"],
      announcedVersion: o["announced_version"],
      private: o["private"],
      localMetadata: o["local_metadata"],
      remoteMetadata: o["remote_metadata"],
    }) as unknown as ConnectionView,
  obj(
    req("incoming", bool),
    req("peer_id", peerId),
    req("id_point", connectionId),
    req("remote_socket_port", uint16),
    req("announced_version", networkVersion),
    req("private", bool),
    req("local_metadata", connectionMetadata),
    req("remote_metadata", connectionMetadata),
  ) as unknown as Codec<Record<string, unknown>>,
);

type EventName = P2pEvent["event"];

/** One case of the pool events: `{event: <name>, …fields}` (Octez's `merge_objs` of the name and the fields). */
function eventCase<F extends object>(tag: number, title: string, name: EventName, fields: Codec<F>, to: (e: P2pEvent) => F, from: (f: F) => P2pEvent) {
  return tagged<P2pEvent, { event: string } & F>(
    tag,
    title,
    mergeObjs(obj(req("event", constant(name))) as Codec<{ event: string }>, fields),
    (e) => (e.event === name ? { event: name, ...to(e) } : undefined),
    from,
  );
}

const empty = obj();
const withPoint = obj(req("point", pointId));
const withPeer = obj(req("peer_id", peerId));
const withSource = obj(req("source", peerId));

type Ev<N extends EventName> = Extract<P2pEvent, { event: N }>;

const simple = (tag: number, title: string, name: Ev<"too_few_connections" | "too_many_connections" | "gc_points" | "gc_peer_ids">["event"]) =>
  eventCase(tag, title, name, empty, () => ({}), () => ({ event: name }) as P2pEvent);
const onPoint = (tag: number, title: string, name: Ev<"new_point" | "incoming_connection" | "outgoing_connection" | "authentication_failed">["event"]) =>
  eventCase(tag, title, name, withPoint, (e) => ({ point: (e as Ev<typeof name>).point }), (f) => ({ event: name, point: f.point }) as P2pEvent);
const onPeer = (tag: number, title: string, name: Ev<"new_peer" | "disconnection" | "external_disconnection">["event"]) =>
  eventCase(tag, title, name, withPeer, (e) => ({ peer_id: (e as Ev<typeof name>).peerId }), (f) => ({ event: name, peerId: f.peer_id }) as P2pEvent);
const onSource = (tag: number, title: string, name: Ev<"swap_request_received">["event"] | Extract<P2pEvent, { source: string }>["event"]) =>
  eventCase(tag, title, name, withSource, (e) => ({ source: (e as Extract<P2pEvent, { source: string }>).source }), (f) => ({ event: name, source: f.source }) as P2pEvent);
const request = (tag: number, title: string, name: "accepting_request" | "rejecting_request") =>
  eventCase(
    tag,
    title,
    name,
    obj(req("point", pointId), req("id_point", connectionId), req("peer_id", peerId)),
    (e) => {
      const r = e as { point: string; idPoint: IdPoint; peerId: string };
      return { point: r.point, id_point: r.idPoint, peer_id: r.peerId };
    },
    (f) => ({ event: name, point: f.point, idPoint: f.id_point, peerId: f.peer_id }),
  );

/** `p2p_connection.pool_event`: what `/network/log` streams. */
export const p2pEvent: Codec<P2pEvent> = def(
  "p2p_connection.pool_event",
  union<P2pEvent>([
    simple(0, "Too_few_connections", "too_few_connections"),
    simple(1, "Too_many_connections", "too_many_connections"),
    onPoint(2, "New_point", "new_point"),
    onPeer(3, "New_peer", "new_peer"),
    onPoint(4, "Incoming_connection", "incoming_connection"),
    onPoint(5, "Outgoing_connection", "outgoing_connection"),
    onPoint(6, "Authentication_failed", "authentication_failed"),
    request(7, "Accepting_request", "accepting_request"),
    request(8, "Rejecting_request", "rejecting_request"),
    eventCase(
      9,
      "Request_rejected",
      "request_rejected",
      obj(req("point", pointId), opt("identity", tup(connectionId, peerId))),
      (e) => {
        const r = e as Ev<"request_rejected">;
        return r.identity === undefined ? { point: r.point } : { point: r.point, identity: [r.identity[0], r.identity[1]] as [IdPoint, string] };
      },
      (f) => (f.identity === undefined ? { event: "request_rejected", point: f.point } : { event: "request_rejected", point: f.point, identity: f.identity }),
    ),
    eventCase(
      10,
      "Connection_established",
      "connection_established",
      obj(req("id_point", connectionId), req("peer_id", peerId)),
      (e) => {
        const r = e as Ev<"connection_established">;
        return { id_point: r.idPoint, peer_id: r.peerId };
      },
      (f) => ({ event: "connection_established", idPoint: f.id_point, peerId: f.peer_id }),
    ),
    onPeer(11, "Disconnection", "disconnection"),
    onPeer(12, "External_disconnection", "external_disconnection"),
    simple(13, "Gc_points", "gc_points"),
    simple(14, "Gc_peer_ids", "gc_peer_ids"),
    onSource(15, "Swap_request_received", "swap_request_received"),
    onSource(16, "Swap_ack_received", "swap_ack_received"),
    onSource(17, "Swap_request_sent", "swap_request_sent"),
    onSource(18, "Swap_ack_sent", "swap_ack_sent"),
    onSource(19, "Swap_request_ignored", "swap_request_ignored"),
    onSource(20, "Swap_success", "swap_success"),
    onSource(21, "Swap_failure", "swap_failure"),
    onSource(22, "Bootstrap_sent", "bootstrap_sent"),
    onSource(23, "Bootstrap_received", "bootstrap_received"),
    onSource(24, "Advertise_sent", "advertise_sent"),
    onSource(25, "Advertise_received", "advertise_received"),
  ]),
  {
    description:
      "An event that may happen during maintenance of and other operations on the p2p connection pool. Typically, it includes connection errors, peer swaps, etc.",
  },
);

/** A time or JSON `null` (data-encoding `option` as a required field). */
const optionalTime: Codec<number | null> = conv<number | null, number | undefined>((v) => v ?? undefined, (v) => v ?? null, option(systemTime));

/** `/network/greylist/ips`: `{ips, not_reliable_since}` (null while the list is exact). */
export const greylistedIps: Codec<{ ips: string[]; notReliableSince?: number }> = conv<
  { ips: string[]; notReliableSince?: number },
  { ips: string[]; not_reliable_since: number | null }
>(
  (g) => ({ ips: g.ips, not_reliable_since: g.notReliableSince ?? null }),
  (o) => defined({ ips: o.ips, notReliableSince: o.not_reliable_since ?? undefined }),
  obj(req("ips", list(p2pAddress)), req("not_reliable_since", optionalTime)),
);

/**
 * `codec` refusing JSON objects with fields it does not know, as Octez's JSON decoding does
 * ("Unexpected object field").
 */
function closed<T>(codec: Codec<T>, names: readonly string[]): Codec<T> {
  return { ...codec, fromJson(j: Json) {
    if (j !== null && typeof j === "object" && !Array.isArray(j)) {
      for (const k of Object.keys(j)) if (!names.includes(k)) throw new DecodeError(`Unexpected object field ${k}`);
    }
    return codec.fromJson(j);
  } };
}

const aclEnum: Codec<Acl> = stringEnum(["ban", "trust", "open"]);

/** The body of `PATCH /network/points/<point>`: `{acl?, peer_id?}`. */
export const pointPatch: Codec<{ acl?: Acl; peer_id?: string }> = closed(obj(opt("acl", aclEnum), opt("peer_id", peerId)), ["acl", "peer_id"]);

/** The body of `PATCH /network/peers/<peer_id>`: `{acl?}`. */
export const peerPatch: Codec<{ acl?: Acl }> = closed(obj(opt("acl", aclEnum)), ["acl"]);

/** Octez's `Data_encoding.empty`: JSON `{}` only, no bytes (the body and answer of PUT, the answers of DELETE and the deprecated GETs). */
export const emptyObject: Codec<undefined> = closed(conv<undefined, {}>(() => ({}), () => undefined, obj()), []);
