/**
 * Authenticated, encrypted P2P connections as Octez v12 makes them (`src/lib_p2p/p2p_socket.ml`
 * for the handshake and chunks, `p2p_connect_handler.ml` for the choice of versions, the Nack
 * and what is greylisted).
 *
 * The handshake, the same on both sides, in Octez's order:
 * 1. send our connection message (2-byte length, then port, public key, proof-of-work stamp,
 *    a random nonce, network version), then read the peer's;
 * 2. refuse a connection to ourselves (same peer id), then a peer whose stamp misses the target;
 * 3. derive the channel key (X25519 + HSalsa20) and the two nonces (from both messages);
 * 4. send our metadata in one encrypted chunk, read the peer's;
 * 5. ask `decide` (the pool's checks), choose the versions (chain name, distributed DB 0..2,
 *    P2P 0..1: the highest both speak), then either send a Nack (with points, or `Nack_v_0` to a
 *    P2P-version-0 peer) and close, or send an Ack and read the peer's answer.
 *
 * Then each message goes as a frame (4-byte size, uint16 tag, payload) cut into chunks: 2-byte
 * length ‖ 16-byte tag ‖ ciphertext, at most 65 535 bytes of tag and ciphertext (payload up to
 * 65 517 when writing, by default), each under the next nonce of its direction.
 *
 * What Octez greylists (the peer's address), and so what {@link Refusal.greylist} says: during
 * steps 1 to 4, a stamp under the target, a chunk that does not decrypt, and bytes that do not
 * decode; not a timeout, a closed connection, a chunk shorter than its tag, a connection to
 * ourselves, a Nack either way, nor anything in step 5's Ack exchange. Once connected, a message
 * that does not decode (unknown tag, bounds, garbage) greylists the peer; a chunk that does not
 * decrypt only closes the connection.
 *
 * @example
 * ```ts
 * const result = await authenticate({ connection, incoming: false, identity,
 *   chainName: "SANDBOXED_TEZOS", powTarget: 26, announcedPort: 9732 });
 * if (!result.ok) console.log(result.refusal.reason, result.refusal.greylist);
 * else {
 *   await result.channel.writeMessage({ kind: "Get_current_head", chain_id: "NetXdQprcVkpaWU" });
 *   const answer = await result.channel.readMessage();
 * }
 * ```
 * @module
 */
import { DecodeError, decodeBinary, encodeBinary, type Encoding } from "../encoding/codec.ts";
import { boxChunk, channelKey, generateNonces, incrementNonce, InvalidPublicKeyError, NONCE_SIZE, TAG_SIZE, unboxChunk } from "./crypto.ts";
import { ack, describeMotive, NACK_MAX_POINTS, type Ack, type RejectionMotiveCode } from "./encoding/ack.ts";
import {
  chainNameBytes,
  connectionMetadata,
  decodeConnectionMessage,
  DEFAULT_METADATA,
  encodeConnectionMessage,
  type ConnectionMessage,
  type ConnectionMetadata,
  type NetworkVersion,
} from "./encoding/connection.ts";
import { BODY_MAX_SIZE, FRAME_PREFIX, messageBodyLimit, p2pMessage, type P2pMessage } from "./encoding/p2p-message.ts";
import type { P2pPoint } from "./encoding/point.ts";
import { P2pError } from "./errors.ts";
import { checkProofOfWork, peerIdOf, powTarget as targetOfDifficulty, type Identity, type PowTarget } from "./identity.ts";
import type { Connection } from "./transport.ts";
import { announcedVersion, OCTEZ_V12_VERSIONS, selectVersion, type SupportedVersions } from "./version.ts";
import { Wire } from "./wire.ts";

/** Largest chunk on the wire after its 2-byte length: tag and ciphertext (`bufsize`, 2^16 - 1). */
export const CHUNK_MAX_SIZE = (1 << 16) - 1;
/** The 2-byte length of a chunk. */
export const CHUNK_HEADER_SIZE = 2;
/** Largest payload of a chunk we write (`max_content_length`): 65 535 - 2 - 16 = 65 517 bytes. */
export const CHUNK_MAX_PAYLOAD = CHUNK_MAX_SIZE - CHUNK_HEADER_SIZE - TAG_SIZE;
/** octez-node's `authentication_timeout` (5 s). */
export const DEFAULT_AUTHENTICATION_TIMEOUT_MS = 5000;

/** What is known of a peer once its connection message and metadata are read. */
export interface PeerCandidate {
  /** The peer's id (`id…`), from its public key. */
  readonly peerId: string;
  /** The peer's X25519 public key. */
  readonly publicKey: Uint8Array;
  /** Whether the peer opened the connection. */
  readonly incoming: boolean;
  /** The peer's point: its address, and its listening port (the announced one if it connected to us, else the one we dialled). */
  readonly idPoint: { readonly host: string; readonly port?: number };
  /** The port the connection comes from on the peer's side. */
  readonly remoteSocketPort: number;
  /** The network version the peer announced. */
  readonly announcedVersion: NetworkVersion;
  /** Our metadata, as sent. */
  readonly localMetadata: ConnectionMetadata;
  /** The peer's metadata. */
  readonly remoteMetadata: ConnectionMetadata;
  /** Whether the peer says it is a private node. */
  readonly privateNode: boolean;
}

/** A peer we are connected to: {@link PeerCandidate} plus the versions both speak. */
export interface ConnectionInfo extends PeerCandidate {
  /** The chosen versions. */
  readonly negotiatedVersion: NetworkVersion;
}

/** What {@link AuthenticateOptions.decide} says of a peer (Octez's checks in the connection handler). */
export type Decision =
  /** Go on (versions permitting). */
  | { readonly kind: "accept" }
  /** Refuse with a Nack of this motive (Too_many_connections, Already_connected…), if the versions match. */
  | { readonly kind: "nack"; readonly motive: RejectionMotiveCode; readonly points?: readonly P2pPoint[] }
  /** Close at once, without Ack or Nack (a banned peer, an unexpected peer id, private mode). */
  | { readonly kind: "close"; readonly reason: string };

/** Options of {@link authenticate}. */
export interface AuthenticateOptions<M = P2pMessage> {
  /** The TCP connection, just opened (its streams unlocked). */
  readonly connection: Connection;
  /** Whether the peer opened it (we accepted it). */
  readonly incoming: boolean;
  /** Our identity. */
  readonly identity: Identity;
  /** The chain name to announce and require (`SANDBOXED_TEZOS` for the sandbox). */
  readonly chainName: string;
  /** The proof of work required of the peer: a target, or a difficulty as `--expected-pow`. */
  readonly powTarget: PowTarget;
  /** Our listening port, announced to the peer (none when absent or 0). */
  readonly announcedPort?: number;
  /** The versions we speak (default Octez v12's: distributed DB 0..2, P2P 0..1). */
  readonly versions?: SupportedVersions;
  /** Our metadata (default: mempool on, not private). */
  readonly metadata?: ConnectionMetadata;
  /** Gives up after this many milliseconds in all (default 5 000, octez-node's; `Infinity`: never). */
  readonly timeoutMs?: number;
  /** Stops the handshake (the refusal says `aborted`). */
  readonly signal?: AbortSignal;
  /** The pool's say on the peer, asked once its metadata is read. */
  readonly decide?: (peer: PeerCandidate) => Decision | undefined | Promise<Decision | undefined>;
  /** Points to send with a Nack (at most 100 are sent; Octez sends up to 50 known points). */
  readonly nackPoints?: readonly P2pPoint[];
  /** Total size of the chunks we write, 2-byte length included (19..65 535, default 65 535: Octez's `binary_chunks_size`). */
  readonly binaryChunksSize?: number;
  /** Codec of message bodies (default: {@link p2pMessage}, P2P and distributed DB messages). */
  readonly messageEncoding?: Encoding<M>;
  /**
   * The most bytes a body with this tag (its first 2 bytes) may have, `undefined` for an unknown
   * tag, so that a frame is refused from its size alone. Default: Octez's bounds with the
   * default encoding, none otherwise.
   */
  readonly messageBodyLimit?: (tag: number) => number | undefined;
}

/** Why a handshake did not give a connection. */
export type RefusalReason =
  /** The peer is ourselves (same peer id). Octez `Myself`: the point is our own. */
  | "myself"
  /** The peer's stamp misses the target. Octez `Not_enough_proof_of_work`. */
  | "not-enough-proof-of-work"
  /** The peer's public key cannot key a channel (low order). Octez fails in HACL*'s `box_beforenm`. */
  | "invalid-public-key"
  /** We refused the peer with a Nack (`motive`; chain name, versions, or `decide`'s). Octez `Rejected`. */
  | "rejected"
  /** The peer refused us with a Nack (`motive`, `alternativePoints`; none from `Nack_v_0`). Octez `Rejected_by_nack`. */
  | "rejected-by-nack"
  /** `decide` said close. */
  | "refused"
  /** Bytes that did not decode. Octez `Decoding_error`. */
  | "decoding-error"
  /** A chunk that did not decrypt (metadata). Octez `Decipher_error`. */
  | "decipher-error"
  /** The peer's Ack did not decrypt. Octez `Invalid_auth`. */
  | "invalid-auth"
  /** A chunk shorter than its tag. Octez `Invalid_incoming_ciphertext_size`. */
  | "invalid-incoming-ciphertext-size"
  /** The connection ended during the handshake. Octez `Connection_closed`. */
  | "connection-closed"
  /** The connection ended while we waited for the peer's Ack. Octez `Rejected_socket_connection`. */
  | "rejected-socket-connection"
  /** No answer in time. Octez `Canceled`. */
  | "timeout"
  /** The caller's signal. */
  | "aborted"
  /** A failure of ours, not the peer's. Octez `Exn`: not greylisted. */
  | "unexpected-error";

/** A failed handshake; the connection is closed. */
export interface Refusal {
  /** Why. */
  readonly reason: RefusalReason;
  /** For people. */
  readonly message: string;
  /** Whether Octez would greylist the peer's address. */
  readonly greylist: boolean;
  /** The peer, when its connection message was read. */
  readonly peerId?: string;
  /** The peer's point (its address and listening port as known), when its connection message was read. */
  readonly idPoint?: { readonly host: string; readonly port?: number };
  /** The network version the peer announced, when read. */
  readonly announcedVersion?: NetworkVersion;
  /** The Nack's motive (`rejected`, `rejected-by-nack`). */
  readonly motive?: RejectionMotiveCode;
  /** Points the peer's Nack offered (`rejected-by-nack` with a Nack, not a `Nack_v_0`). */
  readonly alternativePoints?: readonly P2pPoint[];
}

/** The outcome of {@link authenticate}: a channel, or a refusal. It never rejects for the peer's doing. */
export type AuthenticateResult<M = P2pMessage> =
  | { readonly ok: true; readonly channel: AuthenticatedChannel<M>; readonly info: ConnectionInfo }
  | { readonly ok: false; readonly refusal: Refusal };

/** Bytes through a channel, handshake and chunk framing included (Octez's `P2p_stat` totals). */
export interface ChannelStats {
  readonly bytesSent: number;
  readonly bytesReceived: number;
}

/** An authenticated, encrypted connection to a peer. */
export interface AuthenticatedChannel<M = P2pMessage> {
  /** The peer and the versions spoken. */
  readonly info: ConnectionInfo;
  /**
   * The next message (whole, however many chunks it took). Rejects with a {@link P2pError}:
   * `decoding-error` (greylist), `decipher-error`, `invalid-incoming-ciphertext-size`,
   * `connection-closed`, `aborted`; each closes the channel. Calls queue up.
   */
  readMessage(signal?: AbortSignal): Promise<M>;
  /**
   * Sends a message, cut into chunks. Rejects with a {@link P2pError}: `encoding-error` (the
   * message breaks a bound; nothing sent, the channel stays open) or `connection-closed`.
   * Calls queue up; chunks of two messages never interleave.
   */
  writeMessage(message: M): Promise<void>;
  /** Bytes sent and received so far. */
  stats(): ChannelStats;
  /** Closes the connection; pending reads and writes fail with `connection-closed`. */
  close(): void;
  /** Whether it is closed (here, or by a failure seen here). */
  readonly isClosed: boolean;
  /** Resolves when the connection is gone, whoever closed it. */
  readonly closed: Promise<void>;
}

// ---------------------------------------------------------------------------------------------

/** Encrypted chunks over a wire: one key, one nonce per direction. */
class ChunkWire {
  readonly wire: Wire;
  private readonly key: Uint8Array;
  private localNonce: Uint8Array;
  private remoteNonce: Uint8Array;

  constructor(wire: Wire, key: Uint8Array, localNonce: Uint8Array, remoteNonce: Uint8Array) {
    this.wire = wire;
    this.key = key;
    this.localNonce = localNonce;
    this.remoteNonce = remoteNonce;
  }

  /** Reads one chunk: its length, then tag and ciphertext; opens it under the next remote nonce. */
  async readChunk(): Promise<Uint8Array> {
    const header = await this.wire.read(CHUNK_HEADER_SIZE);
    const length = (header[0]! << 8) | header[1]!;
    if (length < TAG_SIZE) {
      throw new P2pError("invalid-incoming-ciphertext-size", `chunk of ${length} bytes, shorter than its ${TAG_SIZE}-byte tag`);
    }
    const sealed = await this.wire.read(length);
    const nonce = this.remoteNonce;
    this.remoteNonce = incrementNonce(nonce);
    const plain = unboxChunk(this.key, nonce, sealed);
    if (plain === undefined) throw new P2pError("decipher-error", "a chunk did not decrypt", true);
    return plain;
  }

  /** Writes one chunk (payload at most {@link CHUNK_MAX_PAYLOAD} bytes) under the next local nonce. */
  async writeChunk(payload: Uint8Array): Promise<void> {
    await this.wire.write(this.seal(payload));
  }

  /** The chunk of `payload` as sent; advances the local nonce. */
  seal(payload: Uint8Array): Uint8Array {
    if (payload.length > CHUNK_MAX_PAYLOAD) throw new RangeError(`chunk payload of ${payload.length} bytes exceeds ${CHUNK_MAX_PAYLOAD}`);
    const nonce = this.localNonce;
    this.localNonce = incrementNonce(nonce);
    const sealed = boxChunk(this.key, nonce, payload);
    const out = new Uint8Array(CHUNK_HEADER_SIZE + sealed.length);
    out[0] = sealed.length >> 8;
    out[1] = sealed.length & 0xff;
    out.set(sealed, CHUNK_HEADER_SIZE);
    return out;
  }
}

/** Rejects every guarded promise once a timeout or an abort fires. */
class Deadline {
  private fail!: (e: P2pError) => void;
  private readonly failed: Promise<never>;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort = () => this.fail(new P2pError("aborted", "the handshake was aborted"));

  constructor(timeoutMs: number, signal: AbortSignal | undefined) {
    this.failed = new Promise<never>((_, reject) => {
      this.fail = reject;
    });
    this.failed.catch(() => {});
    if (Number.isFinite(timeoutMs)) {
      this.timer = setTimeout(() => this.fail(new P2pError("timeout", `no handshake within ${timeoutMs} ms`)), timeoutMs);
    }
    this.signal = signal;
    if (signal !== undefined) {
      if (signal.aborted) this.onAbort();
      else signal.addEventListener("abort", this.onAbort, { once: true });
    }
  }

  /** `p`, unless the deadline passes first. */
  guard<T>(p: Promise<T>): Promise<T> {
    p.catch(() => {});
    return Promise.race([p, this.failed]);
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.signal?.removeEventListener("abort", this.onAbort);
  }
}

/** Internal: a handshake step failed. */
class Refused extends Error {
  readonly refusal: Refusal;
  constructor(refusal: Refusal) {
    super(refusal.message);
    this.refusal = refusal;
  }
}

function checkOptions<M>(o: AuthenticateOptions<M>): void {
  if (typeof o !== "object" || o === null) throw new TypeError("authenticate: options must be an object");
  if (typeof o.connection !== "object" || o.connection === null) throw new TypeError("authenticate: connection is required");
  if (typeof o.incoming !== "boolean") throw new TypeError("authenticate: incoming must be a boolean");
  const id = o.identity;
  if (
    typeof id !== "object" || id === null || !(id.publicKey instanceof Uint8Array) || id.publicKey.length !== 32 ||
    !(id.secretKey instanceof Uint8Array) || id.secretKey.length !== 32 || !(id.proofOfWorkStamp instanceof Uint8Array) ||
    id.proofOfWorkStamp.length !== NONCE_SIZE || typeof id.peerId !== "string"
  ) {
    throw new TypeError("authenticate: identity must be an Identity (32-byte keys, 24-byte stamp, peer id)");
  }
  if (typeof o.chainName !== "string") throw new TypeError("authenticate: chainName must be a string");
  if (o.announcedPort !== undefined && (!Number.isInteger(o.announcedPort) || o.announcedPort < 0 || o.announcedPort > 65535)) {
    throw new RangeError(`authenticate: announcedPort must be a port, got ${String(o.announcedPort)}`);
  }
  if (o.timeoutMs !== undefined && !(typeof o.timeoutMs === "number" && o.timeoutMs >= 0)) {
    throw new RangeError("authenticate: timeoutMs must be a non-negative number");
  }
  const size = o.binaryChunksSize;
  if (size !== undefined && (!Number.isInteger(size) || size - CHUNK_HEADER_SIZE - TAG_SIZE <= 0 || size > CHUNK_MAX_SIZE)) {
    throw new RangeError(`authenticate: binaryChunksSize must be in ${CHUNK_HEADER_SIZE + TAG_SIZE + 1}..${CHUNK_MAX_SIZE}, got ${String(size)}`);
  }
}

/**
 * Runs Octez's handshake on a fresh connection, as the side that opened it (`incoming: false`)
 * or accepted it (`incoming: true`). Resolves to an authenticated channel, or to a refusal saying
 * why (the connection then closed); it does not reject for anything the peer sends or fails to
 * send. It throws (rejects) only for bad options, after closing the connection.
 */
export async function authenticate<M = P2pMessage>(options: AuthenticateOptions<M>): Promise<AuthenticateResult<M>> {
  let wire: Wire;
  let versions: SupportedVersions;
  let ourTarget: bigint;
  let announced: NetworkVersion;
  let sent: Uint8Array;
  try {
    checkOptions(options);
    versions = options.versions ?? OCTEZ_V12_VERSIONS;
    announced = announcedVersion(options.chainName, versions);
    ourTarget = typeof options.powTarget === "number" ? targetOfDifficulty(options.powTarget) : options.powTarget;
    if (typeof ourTarget !== "bigint") throw new TypeError("authenticate: powTarget must be a bigint or a number");
    const message: ConnectionMessage = {
      public_key: options.identity.publicKey,
      proof_of_work_stamp: options.identity.proofOfWorkStamp,
      message_nonce: crypto.getRandomValues(new Uint8Array(NONCE_SIZE)),
      version: announced,
    };
    if (options.announcedPort !== undefined && options.announcedPort !== 0) message.port = options.announcedPort;
    sent = encodeConnectionMessage(message);
    wire = new Wire(options.connection);
  } catch (e) {
    try {
      options?.connection?.close();
    } catch {
      // already closed
    }
    throw e;
  }
  const deadline = new Deadline(options.timeoutMs ?? DEFAULT_AUTHENTICATION_TIMEOUT_MS, options.signal);
  const remoteEndpoint = options.connection.remote;
  let known: { peerId?: string; idPoint?: { host: string; port?: number }; announcedVersion?: NetworkVersion } = {};
  const refuse = (reason: RefusalReason, message: string, greylist: boolean, extra: Partial<Refusal> = {}): Refused =>
    new Refused({ reason, message, greylist, ...known, ...extra });
  // Step 1 to 4 (Octez's `P2p_socket.authenticate`): failures there are greylisted as Octez lists them.
  const authError = (e: unknown): Refused => {
    if (e instanceof Refused) return e;
    if (e instanceof P2pError) {
      switch (e.kind) {
        case "decipher-error":
          return refuse("decipher-error", e.message, true);
        case "invalid-incoming-ciphertext-size":
          return refuse("invalid-incoming-ciphertext-size", e.message, false);
        case "timeout":
          return refuse("timeout", e.message, false);
        case "aborted":
          return refuse("aborted", e.message, false);
        case "decoding-error":
          return refuse("decoding-error", e.message, true);
        case "connection-closed":
          return refuse("connection-closed", e.message, false);
        default:
          return refuse("unexpected-error", e.message, false);
      }
    }
    if (e instanceof DecodeError) return refuse("decoding-error", e.message, true);
    return refuse("unexpected-error", `unexpected failure: ${e instanceof Error ? e.message : String(e)}`, false);
  };
  try {
    let chunks: ChunkWire;
    let candidate: PeerCandidate;
    let received: ConnectionMessage;
    let receivedBody: Uint8Array;
    try {
      await deadline.guard(wire.write(sent));
      const header = await deadline.guard(wire.read(2));
      const length = (header[0]! << 8) | header[1]!;
      receivedBody = await deadline.guard(wire.read(length));
      const receivedFramed = new Uint8Array(2 + length);
      receivedFramed.set(header, 0);
      receivedFramed.set(receivedBody, 2);
      try {
        received = decodeConnectionMessage(receivedBody);
      } catch (e) {
        throw refuse("decoding-error", `connection message: ${(e as Error).message}`, true);
      }
      const peerId = peerIdOf(received.public_key);
      const idPoint = options.incoming
        ? (received.port !== undefined ? { host: remoteEndpoint.host, port: received.port } : { host: remoteEndpoint.host })
        : { host: remoteEndpoint.host, port: remoteEndpoint.port };
      known = { peerId, idPoint, announcedVersion: received.version };
      if (peerId === options.identity.peerId) throw refuse("myself", "the peer is this node itself", false);
      if (!checkProofOfWork(received.public_key, received.proof_of_work_stamp, ourTarget)) {
        throw refuse("not-enough-proof-of-work", `peer ${peerId} does not have enough proof of work`, true);
      }
      let key: Uint8Array;
      try {
        key = channelKey(options.identity.secretKey, received.public_key);
      } catch (e) {
        if (e instanceof InvalidPublicKeyError) throw refuse("invalid-public-key", e.message, false);
        throw e;
      }
      const nonces = generateNonces({ incoming: options.incoming, sentMessage: sent, receivedMessage: receivedFramed });
      chunks = new ChunkWire(wire, key, nonces.local, nonces.remote);
      const localMetadata = options.metadata ?? DEFAULT_METADATA;
      await deadline.guard(chunks.writeChunk(encodeBinary(connectionMetadata, localMetadata)));
      const metadataBytes = await deadline.guard(chunks.readChunk());
      let remoteMetadata: ConnectionMetadata;
      try {
        remoteMetadata = decodeBinary(connectionMetadata, metadataBytes);
      } catch (e) {
        throw refuse("decoding-error", `metadata: ${(e as Error).message}`, true);
      }
      candidate = {
        peerId,
        publicKey: received.public_key,
        incoming: options.incoming,
        idPoint,
        remoteSocketPort: remoteEndpoint.port,
        announcedVersion: received.version,
        localMetadata,
        remoteMetadata,
        privateNode: remoteMetadata.private_node,
      };
    } catch (e) {
      throw authError(e);
    }
    // Step 5 (Octez's connection handler, then `P2p_socket.accept` / `nack`): nothing greylisted.
    let decision: Decision | undefined;
    try {
      decision = options.decide === undefined ? undefined : await deadline.guard(Promise.resolve(options.decide(candidate)));
    } catch (e) {
      if (e instanceof P2pError) throw refuse(e.kind === "aborted" ? "aborted" : "timeout", e.message, false);
      throw refuse("refused", `decide failed: ${e instanceof Error ? e.message : String(e)}`, false);
    }
    if (decision?.kind === "close") throw refuse("refused", decision.reason, false);
    const selection = selectVersion(options.chainName, versions, received.version, chainNameBytes(receivedBody));
    const motive = !selection.ok ? selection.motive : decision?.kind === "nack" ? decision.motive : undefined;
    if (motive !== undefined || !selection.ok) {
      const m = motive!;
      const points = (decision?.kind === "nack" && decision.points !== undefined ? decision.points : options.nackPoints ?? []).slice(0, NACK_MAX_POINTS);
      const nack: Ack = received.version.p2p_version > 0 ? { kind: "Nack", motive: m, points: [...points] } : { kind: "Nack_v_0" };
      let payload: Uint8Array;
      try {
        payload = encodeBinary(ack, nack);
      } catch {
        payload = encodeBinary(ack, { kind: "Nack", motive: m, points: [] });
      }
      try {
        await deadline.guard(chunks.writeChunk(payload));
      } catch {
        // Octez ignores the outcome of the Nack's write
      }
      throw refuse("rejected", `rejected peer ${candidate.peerId}: ${describeMotive(m)}`, false, { motive: m });
    }
    let answer: Ack;
    try {
      await deadline.guard(chunks.writeChunk(encodeBinary(ack, { kind: "Ack" })));
      const bytes = await deadline.guard(chunks.readChunk());
      answer = decodeBinary(ack, bytes);
    } catch (e) {
      if (e instanceof P2pError) {
        switch (e.kind) {
          case "connection-closed":
            throw refuse("rejected-socket-connection", `peer ${candidate.peerId} closed the connection before its Ack`, false);
          case "decipher-error":
            throw refuse("invalid-auth", `the Ack of peer ${candidate.peerId} did not decrypt`, false);
          case "invalid-incoming-ciphertext-size":
          case "timeout":
          case "aborted":
          case "decoding-error":
            throw refuse(e.kind, e.message, false);
          default:
            throw refuse("unexpected-error", e.message, false);
        }
      }
      if (e instanceof DecodeError) throw refuse("decoding-error", `Ack: ${e.message}`, false);
      throw refuse("unexpected-error", `Ack: ${e instanceof Error ? e.message : String(e)}`, false);
    }
    if (answer.kind === "Nack_v_0") {
      throw refuse("rejected-by-nack", `peer ${candidate.peerId} refused the connection (no motive)`, false, { motive: 0 });
    }
    if (answer.kind === "Nack") {
      throw refuse("rejected-by-nack", `peer ${candidate.peerId} refused the connection: ${describeMotive(answer.motive)}`, false, {
        motive: answer.motive,
        alternativePoints: answer.points,
      });
    }
    const info: ConnectionInfo = { ...candidate, negotiatedVersion: selection.version };
    const encoding = (options.messageEncoding ?? p2pMessage) as Encoding<M>;
    const limit = options.messageBodyLimit ?? (options.messageEncoding === undefined ? messageBodyLimit : undefined);
    const payload = (options.binaryChunksSize ?? CHUNK_MAX_SIZE) - CHUNK_HEADER_SIZE - TAG_SIZE;
    const channel = new Channel<M>(chunks, info, encoding, payload, limit);
    return { ok: true, channel, info };
  } catch (e) {
    wire.close();
    const refusal = e instanceof Refused ? e.refusal : authError(e).refusal;
    return { ok: false, refusal };
  } finally {
    deadline.dispose();
  }
}

// ---------------------------------------------------------------------------------------------

class Channel<M> implements AuthenticatedChannel<M> {
  readonly info: ConnectionInfo;
  private readonly chunks: ChunkWire;
  private readonly encoding: Encoding<M>;
  private readonly chunkPayload: number;
  private readonly bodyLimit: ((tag: number) => number | undefined) | undefined;
  private readTail: Promise<unknown> = Promise.resolve();
  private writeTail: Promise<unknown> = Promise.resolve();
  private failure: P2pError | undefined;
  /** Decrypted bytes not yet consumed (a chunk may carry the end of a message and the start of the next). */
  private plain: Uint8Array[] = [];
  private plainOffset = 0;
  private plainBuffered = 0;
  readonly closed: Promise<void>;

  constructor(
    chunks: ChunkWire,
    info: ConnectionInfo,
    encoding: Encoding<M>,
    chunkPayload: number,
    bodyLimit: ((tag: number) => number | undefined) | undefined,
  ) {
    this.chunks = chunks;
    this.info = info;
    this.encoding = encoding;
    this.chunkPayload = chunkPayload;
    this.bodyLimit = bodyLimit;
    this.closed = chunks.wire.connection.closed.then(
      () => {},
      () => {},
    );
  }

  get isClosed(): boolean {
    return this.chunks.wire.isClosed;
  }

  stats(): ChannelStats {
    return { bytesSent: this.chunks.wire.bytesSent, bytesReceived: this.chunks.wire.bytesReceived };
  }

  close(): void {
    this.fail(new P2pError("connection-closed", "the connection was closed here"));
  }

  private fail(e: P2pError): P2pError {
    if (this.failure === undefined) this.failure = e;
    this.chunks.wire.close(e.message);
    return this.failure;
  }

  readMessage(signal?: AbortSignal): Promise<M> {
    const p = this.readTail.then(() => this.readOne(signal));
    this.readTail = p.catch(() => {});
    return p;
  }

  writeMessage(message: M): Promise<void> {
    let frame: Uint8Array;
    try {
      const body = encodeBinary(this.encoding, message);
      if (body.length > BODY_MAX_SIZE) throw new RangeError(`message of ${body.length + FRAME_PREFIX} bytes exceeds 100 MiB`);
      frame = new Uint8Array(FRAME_PREFIX + body.length);
      new DataView(frame.buffer).setUint32(0, body.length);
      frame.set(body, FRAME_PREFIX);
    } catch (e) {
      return Promise.reject(new P2pError("encoding-error", `message not sent: ${e instanceof Error ? e.message : String(e)}`));
    }
    const p = this.writeTail.then(() => this.writeFrame(frame));
    this.writeTail = p.catch(() => {});
    return p;
  }

  private async writeFrame(frame: Uint8Array): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    try {
      for (let at = 0; at < frame.length; at += this.chunkPayload) {
        await this.chunks.writeChunk(frame.subarray(at, Math.min(frame.length, at + this.chunkPayload)));
      }
    } catch (e) {
      throw this.fail(e instanceof P2pError ? e : new P2pError("connection-closed", String(e)));
    }
  }

  /** The next `n` decrypted bytes, reading chunks as needed. */
  private async takePlain(n: number): Promise<Uint8Array> {
    while (this.plainBuffered < n) {
      const chunk = await this.chunks.readChunk();
      if (chunk.length === 0) continue;
      this.plain.push(chunk);
      this.plainBuffered += chunk.length;
    }
    const first = this.plain[0];
    if (first !== undefined && first.length - this.plainOffset >= n) {
      const out = first.subarray(this.plainOffset, this.plainOffset + n);
      this.plainOffset += n;
      if (this.plainOffset === first.length) {
        this.plain.shift();
        this.plainOffset = 0;
      }
      this.plainBuffered -= n;
      return out;
    }
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const p = this.plain[0]!;
      const k = Math.min(p.length - this.plainOffset, n - at);
      out.set(p.subarray(this.plainOffset, this.plainOffset + k), at);
      at += k;
      this.plainOffset += k;
      if (this.plainOffset === p.length) {
        this.plain.shift();
        this.plainOffset = 0;
      }
    }
    this.plainBuffered -= n;
    return out;
  }

  private async readOne(signal: AbortSignal | undefined): Promise<M> {
    if (this.failure !== undefined) throw this.failure;
    let onAbort: (() => void) | undefined;
    if (signal !== undefined) {
      onAbort = () => this.fail(new P2pError("aborted", "a read was aborted: the connection is closed"));
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    }
    try {
      if (this.failure !== undefined) throw this.failure;
      const sizeBytes = await this.takePlain(FRAME_PREFIX);
      const size = ((sizeBytes[0]! << 24) | (sizeBytes[1]! << 16) | (sizeBytes[2]! << 8) | sizeBytes[3]!) >>> 0;
      if (size > BODY_MAX_SIZE) throw new P2pError("decoding-error", `message of ${size + FRAME_PREFIX} bytes exceeds 100 MiB`, true);
      let body: Uint8Array;
      if (this.bodyLimit !== undefined && size >= 2) {
        const tagBytes = await this.takePlain(2);
        const tag = (tagBytes[0]! << 8) | tagBytes[1]!;
        const limit = this.bodyLimit(tag);
        if (limit === undefined) throw new P2pError("decoding-error", `unknown message tag ${tag} (0x${tag.toString(16).padStart(4, "0")})`, true);
        if (size > limit) throw new P2pError("decoding-error", `message ${tag} of ${size} bytes exceeds its bound of ${limit}`, true);
        const rest = await this.takePlain(size - 2);
        body = new Uint8Array(size);
        body.set(tagBytes, 0);
        body.set(rest, 2);
      } else body = await this.takePlain(size);
      try {
        return decodeBinary(this.encoding, body);
      } catch (e) {
        throw new P2pError("decoding-error", `message did not decode: ${e instanceof Error ? e.message : String(e)}`, true);
      }
    } catch (e) {
      const err = this.failure ?? (e instanceof P2pError ? e : new P2pError("unexpected-error", e instanceof Error ? e.message : String(e)));
      throw this.fail(err.kind === "decipher-error" ? new P2pError("decipher-error", err.message, false) : err);
    } finally {
      if (onAbort !== undefined) signal!.removeEventListener("abort", onAbort);
    }
  }
}
