/**
 * The P2P layer's errors as Octez v12 registers them (`src/lib_p2p_services/p2p_errors.ml`,
 * `src/lib_base/p2p_rejection.ml`): ids, kinds and fields as Octez prints them, so that
 * `PUT /network/points/<point>` and the other `/network/*` calls fail as octez-node does. Also
 * the text of a point as Octez parses it (`P2p_point.Id.of_string`) with its reasons.
 * @module
 */
import { string } from "../../encoding/bytes.ts";
import { conv } from "../../encoding/conv.ts";
import type { Codec } from "../../encoding/core.ts";
import { cryptoboxPublicKeyHash } from "../../encoding/hashes.ts";
import { int16, int31, uint16 } from "../../encoding/integers.ts";
import { list } from "../../encoding/list.ts";
import { obj, opt, req } from "../../encoding/object.ts";
import { failure, timeout, canceled } from "../../errors/core.ts";
import { defineError, type ErrorDefinition, TezosError } from "../../errors/registry.ts";
import { RejectionMotive } from "../encoding/ack.ts";
import { networkVersion, type NetworkVersion } from "../encoding/connection.ts";
import { canonicalHost, formatPoint, parseIpAddress, point, type P2pPoint } from "../encoding/point.ts";
import type { Refusal } from "../socket.ts";
import type { IdPoint } from "./api.ts";

/** An address as Octez's `P2p_addr.encoding` prints it: IPv6 text, `::ffff:a.b.c.d` for IPv4. */
export function ipv6Text(host: string): string {
  const c = canonicalHost(host);
  if (c === undefined) throw new TypeError(`not an IP address: ${JSON.stringify(host)}`);
  return c.includes(":") ? c : `::ffff:${c}`;
}

const p2pAddr: Codec<string> = conv<string, string>(ipv6Text, (text) => {
  const c = canonicalHost(text);
  if (c === undefined) throw new TypeError(`not an IP address: ${JSON.stringify(text)}`);
  return c;
}, string);

/** `P2p_connection.Id.encoding`: `{addr, port?}`. */
export const connectionId: Codec<IdPoint> = conv<IdPoint, { addr: string; port?: number }>(
  (p) => (p.port === undefined ? { addr: p.addr } : { addr: p.addr, port: p.port }),
  (o) => (o.port === undefined ? { addr: o.addr } : { addr: o.addr, port: o.port }),
  obj(req("addr", p2pAddr), opt("port", uint16)),
);

/** `node.p2p_io_scheduler.connection_closed`. */
export const connectionClosed: ErrorDefinition = defineError({
  id: "node.p2p_io_scheduler.connection_closed",
  kind: "permanent",
  title: "Connection closed",
  description: "IO error: connection with a peer is closed.",
});

/** `node.p2p_socket.decipher_error`. */
export const decipherError: ErrorDefinition = defineError({
  id: "node.p2p_socket.decipher_error",
  kind: "permanent",
  title: "Decipher error",
  description: "An error occurred while deciphering.",
});

/** `node.p2p_socket.invalid_message_size`. */
export const invalidMessageSize: ErrorDefinition = defineError({
  id: "node.p2p_socket.invalid_message_size",
  kind: "permanent",
  title: "Invalid message size",
  description: "The size of the message to be written is invalid.",
});

/** `node.p2p_socket.invalid_incoming_ciphertext_size`. */
export const invalidIncomingCiphertextSize: ErrorDefinition = defineError({
  id: "node.p2p_socket.invalid_incoming_ciphertext_size",
  kind: "permanent",
  title: "Invalid incoming ciphertext size",
  description: "The announced size for the incoming ciphertext is invalid.",
});

/** `node.p2p_socket.rejected_socket_connection`. */
export const rejectedSocketConnection: ErrorDefinition = defineError({
  id: "node.p2p_socket.rejected_socket_connection",
  kind: "permanent",
  title: "Rejected socket connection",
  description: "Rejected peer connection: rejected socket connection.",
});

/** `node.p2p_socket.rejected_by_nack`: the peer refused us, maybe with other points to try. */
export const rejectedByNack: ErrorDefinition<{ motive: number; alternative_points?: P2pPoint[] }> = defineError({
  id: "node.p2p_socket.rejected_by_nack",
  kind: "permanent",
  title: "Rejected socket connection by Nack",
  description: "Rejected peer connection: The peer rejected the socket connection by Nack with a list of alternative peers.",
  fields: obj(req("motive", int16), opt("alternative_points", list(point))),
});

/** `node.p2p_socket.rejected_no_common_protocol`: we refused a peer of another chain or versions. */
export const rejectedNoCommonProtocol: ErrorDefinition<{ announced_version: NetworkVersion }> = defineError({
  id: "node.p2p_socket.rejected_no_common_protocol",
  kind: "permanent",
  title: "Rejected socket connection - no common network protocol",
  description: "Rejected peer connection: rejected socket connection as we have no common network protocol with the peer.",
  fields: obj(req("announced_version", networkVersion)),
});

/**
 * `node.p2p_socket.decoding_error`. Octez's `read_error` is data-encoding's own record of the
 * failure; here it carries our decoder's message.
 */
export const decodingError: ErrorDefinition<{ read_error: string }> = defineError({
  id: "node.p2p_socket.decoding_error",
  kind: "permanent",
  title: "Decoding error",
  description: "An error occurred while decoding.",
  fields: obj(req("read_error", string)),
});

/** `node.p2p_socket.myself`: the point is this node. */
export const myself: ErrorDefinition<{ connection_id: IdPoint }> = defineError({
  id: "node.p2p_socket.myself",
  kind: "permanent",
  title: "Myself",
  description: "Remote peer is actually yourself.",
  fields: obj(req("connection_id", connectionId)),
});

/** `node.p2p_socket.not_enough_proof_of_work`. */
export const notEnoughProofOfWork: ErrorDefinition<{ peer_id: string }> = defineError({
  id: "node.p2p_socket.not_enough_proof_of_work",
  kind: "permanent",
  title: "Not enough proof of work",
  description: "Remote peer cannot be authenticated: not enough proof of work.",
  fields: obj(req("peer_id", cryptoboxPublicKeyHash)),
});

/** `node.p2p_socket.invalid_auth`. */
export const invalidAuth: ErrorDefinition = defineError({
  id: "node.p2p_socket.invalid_auth",
  kind: "permanent",
  title: "Invalid authentication",
  description: "Rejected peer connection: invalid authentication.",
});

/** `node.p2p_socket.invalid_chunks_size`. */
export const invalidChunksSize: ErrorDefinition<{ value: number; min: number; max: number }> = defineError({
  id: "node.p2p_socket.invalid_chunks_size",
  kind: "permanent",
  title: "Invalid chunks size",
  description: "Size of chunks is not valid.",
  fields: obj(req("value", int31), req("min", int31), req("max", int31)),
});

/** `node.p2p_socket.rejecting_incoming` (`P2p_rejection.Rejecting`). */
export const rejectingIncoming: ErrorDefinition<{ motive: number }> = defineError({
  id: "node.p2p_socket.rejecting_incoming",
  kind: "permanent",
  title: "Rejecting socket connection",
  description: "Rejecting peer connection with motive.",
  fields: obj(req("motive", int16)),
});

/** `node.p2p_pool.pending_connection`. */
export const pendingConnection: ErrorDefinition = defineError({
  id: "node.p2p_pool.pending_connection",
  kind: "permanent",
  title: "Pending connection",
  description: "Fail to connect with a peer: a connection is already pending.",
});

/** `node.p2p_pool.connected`. */
export const connected: ErrorDefinition = defineError({
  id: "node.p2p_pool.connected",
  kind: "permanent",
  title: "Connected",
  description: "Fail to connect with a peer: a connection is already established.",
});

/** `node.p2p_pool.connection_refused`: the TCP connection was refused. */
export const connectionRefused: ErrorDefinition = defineError({
  id: "node.p2p_pool.connection_refused",
  kind: "permanent",
  title: "Connection refused",
  description: "Connection was refused.",
});

/** `node.p2p_pool.rejected`: we refused the peer (with a Nack of this motive). */
export const rejected: ErrorDefinition<{ peer_id: string; motive: number }> = defineError({
  id: "node.p2p_pool.rejected",
  kind: "permanent",
  title: "Rejected peer",
  description: "Connection to peer was rejected by us.",
  fields: obj(req("peer_id", cryptoboxPublicKeyHash), req("motive", int16)),
});

/** `node.p2p_pool.too_many_connections`. */
export const tooManyConnections: ErrorDefinition = defineError({
  id: "node.p2p_pool.too_many_connections",
  kind: "permanent",
  title: "Too many connections",
  description: "Too many connections.",
});

/** `node.p2p_pool.private_mode`. */
export const privateMode: ErrorDefinition = defineError({
  id: "node.p2p_pool.private_mode",
  kind: "permanent",
  title: "Private mode",
  description: "Node is in private mode.",
});

/** `node.p2p_pool.point_banned`. */
export const pointBanned: ErrorDefinition<{ point: P2pPoint }> = defineError({
  id: "node.p2p_pool.point_banned",
  kind: "permanent",
  title: "Point Banned",
  description: "The address you tried to connect is banned.",
  fields: obj(req("point", point)),
});

/** `node.p2p_pool.peer_banned`. */
export const peerBanned: ErrorDefinition<{ peer: string }> = defineError({
  id: "node.p2p_pool.peer_banned",
  kind: "permanent",
  title: "Peer Banned",
  description: "The peer identity you tried to connect is banned.",
  fields: obj(req("peer", cryptoboxPublicKeyHash)),
});

/** `node.p2p_pool.disabled`. */
export const p2pLayerDisabled: ErrorDefinition = defineError({
  id: "node.p2p_pool.disabled",
  kind: "permanent",
  title: "P2P layer disabled",
  description: "The P2P layer on this node is not active.",
});

/** `node.p2p_connect_handler.identity_check_failure`: the peer is not the one expected at the point. */
export const identityCheckFailure: ErrorDefinition<{ point: P2pPoint; expected_peer_id: string; received_peer_id: string }> = defineError({
  id: "node.p2p_connect_handler.identity_check_failure",
  kind: "permanent",
  title: "Unexpected peer identity",
  description: "Peer announced an identity which does not match the one specified on the command-line.",
  fields: obj(req("point", point), req("expected_peer_id", cryptoboxPublicKeyHash), req("received_peer_id", cryptoboxPublicKeyHash)),
});

/** The error Octez gives for a failed handshake; `decided` is the pool's own reason for closing (`refused`). */
export function refusalError(refusal: Refusal, decided?: TezosError): TezosError {
  const idPoint: IdPoint | undefined = refusal.idPoint === undefined
    ? undefined
    : refusal.idPoint.port === undefined ? { addr: refusal.idPoint.host } : { addr: refusal.idPoint.host, port: refusal.idPoint.port };
  switch (refusal.reason) {
    case "myself":
      return myself.error({ connection_id: idPoint ?? { addr: "::" } });
    case "not-enough-proof-of-work":
      return notEnoughProofOfWork.error({ peer_id: refusal.peerId! });
    case "rejected": {
      const m = refusal.motive ?? RejectionMotive.NoMotive;
      if (
        (m === RejectionMotive.UnknownChainName || m === RejectionMotive.DeprecatedDistributedDbVersion ||
          m === RejectionMotive.DeprecatedP2pVersion) && refusal.announcedVersion !== undefined
      ) return rejectedNoCommonProtocol.error({ announced_version: refusal.announcedVersion });
      return rejected.error({ peer_id: refusal.peerId!, motive: m });
    }
    case "rejected-by-nack": {
      const fields: { motive: number; alternative_points?: P2pPoint[] } = { motive: refusal.motive ?? 0 };
      if (refusal.alternativePoints !== undefined) fields.alternative_points = [...refusal.alternativePoints];
      return rejectedByNack.error(fields);
    }
    case "refused":
      return decided ?? failure.error({ msg: refusal.message });
    case "decoding-error":
      return decodingError.error({ read_error: refusal.message });
    case "decipher-error":
      return decipherError.error();
    case "invalid-auth":
      return invalidAuth.error();
    case "invalid-incoming-ciphertext-size":
      return invalidIncomingCiphertextSize.error();
    case "connection-closed":
      return connectionClosed.error();
    case "rejected-socket-connection":
      return rejectedSocketConnection.error();
    case "timeout":
      return timeout.error();
    case "aborted":
      return canceled.error();
    case "invalid-public-key":
    case "unexpected-error":
      return failure.error({ msg: refusal.message });
  }
}

/**
 * Why a point's text is not one, in Octez's words (`P2p_point.Id.of_string` and its lexer
 * `point_parser.mll`), or `undefined` when it is a point.
 */
export function pointTextProblem(text: string): string | undefined {
  if (typeof text !== "string") return "P2p_point.of_string";
  const m = /^(\[[0-9a-fA-F:.]+\]|[a-zA-Z0-9.-]+|_?)(?::([0-9]+))?(?:#([a-zA-Z0-9]+))?$/.exec(text);
  if (m === null) return `Parsing of '${text}' failed: expected <addr>[:<port>][#<peer_id>].\n`;
  const [, addr, port, peerId] = m;
  if (port !== undefined && (port.length > 6 || Number(port) > 65535)) {
    return `Parsing of '${text}' failed: port '${port.length > 18 ? port : Number(port)}' not in range [0-65535].\n`;
  }
  if (peerId !== undefined && !/^id[1-9A-HJ-NP-Za-km-z]+$/.test(peerId)) {
    return `Parsing of '${text}' failed: peer id '${peerId}' is not valid (b58 format expected).\n`;
  }
  if (port === undefined) return "P2p_point.of_string_exn: no port";
  const host = addr!.startsWith("[") ? addr!.slice(1, -1) : addr!;
  if (parseIpAddress(host) === undefined) return "P2p_point.of_string";
  return undefined;
}

/** A point and the peer id its text names (`addr:port[#peer_id]`); throws Octez's failure for anything else. */
export function parsePointText(text: string): { point: P2pPoint; key: string; peerId?: string } {
  const problem = pointTextProblem(text);
  const hash = typeof text === "string" ? text.indexOf("#") : -1;
  const body = hash >= 0 ? text.slice(0, hash) : text;
  const host = problem === undefined ? (body.startsWith("[") ? body.slice(1, body.lastIndexOf("]")) : body.slice(0, body.lastIndexOf(":"))) : "";
  const canonical = problem === undefined ? canonicalHost(host) : undefined;
  if (problem !== undefined || canonical === undefined) throw failure.error({ msg: problem ?? "P2p_point.of_string" });
  const p: P2pPoint = { host: canonical, port: Number(body.slice(body.lastIndexOf(":") + 1)) };
  const out: { point: P2pPoint; key: string; peerId?: string } = { point: p, key: formatPoint(p) };
  if (hash >= 0) {
    const id = text.slice(hash + 1);
    try {
      cryptoboxPublicKeyHash.fromJson(id);
    } catch {
      throw failure.error({ msg: `Parsing of '${text}' failed: peer id '${id}' is not valid (b58 format expected).\n` });
    }
    out.peerId = id;
  }
  return out;
}
