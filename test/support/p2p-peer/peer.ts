/**
 * A minimal Tezos P2P peer for tests, written from Octez v12's `p2p_socket.ml` without the
 * repository's `lib/p2p`: the handshake one step at a time (connection messages, channel key and
 * nonces, metadata, Ack), then messages cut into encrypted chunks. Each step is a method, so that
 * a test can stop anywhere or do a step wrong on purpose: garbage, a truncated or oversized
 * connection message, another chain name, a stamp under the target, a chunk that does not
 * decrypt, an unknown message tag, or nothing at all (a stall).
 *
 * @example
 * ```ts
 * const peer = await TestPeer.dial({ host: "127.0.0.1", port: 9732, identity: makeIdentity(0) });
 * const answer = await peer.handshake();            // { kind: "Ack" } from a node that accepts us
 * await peer.send({ kind: "Get_current_head", chainId: "NetXdQprcVkpaWU" });
 * const head = await peer.receive((m) => m.kind === "Current_head");
 * peer.close();
 * ```
 * @module
 */
import { blake2b } from "@noble/hashes/blake2.js";
import { concat, Cursor, uint } from "./bytes.ts";
import { channelKey, nextNonce, NONCE_BYTES, open, peerId, seal, sessionNonces, TAG_BYTES } from "./crypto.ts";
import {
  decodeAck,
  decodeConnectionBody,
  decodeMessage,
  decodeMetadata,
  encodeAck,
  encodeConnectionBody,
  encodeMessage,
  encodeMetadata,
  frameConnectionMessage,
  frameMessage,
  SANDBOX_VERSION,
  type AckMessage,
  type ConnectionMessage,
  type Metadata,
  type PeerMessage,
  type Version,
} from "./messages.ts";
import type { PeerIdentity } from "./pow.ts";
import { PeerSocket, type DialOptions } from "./socket.ts";

/** Largest chunk after its 2-byte length: tag and ciphertext (Octez's `bufsize`). */
export const MAX_CHUNK = 0xffff;
/** Largest chunk payload Octez writes: 65 535 - 2 - 16. */
export const MAX_CHUNK_PAYLOAD = MAX_CHUNK - 2 - TAG_BYTES;

/** A chunk that did not open under the channel key and the expected nonce. */
export class PeerCryptoError extends Error {
  override name = "PeerCryptoError";
}

/** How the peer presents itself. */
export interface PeerOptions {
  readonly identity: PeerIdentity;
  /** The listening port announced in the connection message (default 0: none). */
  readonly announcedPort?: number;
  /** The version announced (default: the sandbox's, Octez v12's highest versions). */
  readonly version?: Version;
  /** The metadata sent (default: mempool on, not private). */
  readonly metadata?: Metadata;
}

/** One end of a P2P connection, driven by a test. */
export class TestPeer {
  readonly socket: PeerSocket;
  /** Whether this side opened the TCP connection. */
  readonly initiator: boolean;
  readonly options: PeerOptions;
  /** Our connection message as sent (with its length). */
  sentConnectionMessage: Uint8Array | undefined;
  /** The other side's connection message as received (with its length). */
  receivedConnectionMessage: Uint8Array | undefined;
  /** The other side's connection message, decoded. */
  remote: ConnectionMessage | undefined;
  /** The other side's metadata. */
  remoteMetadata: Metadata | undefined;
  private key: Uint8Array | undefined;
  private sendNonce: Uint8Array | undefined;
  private receiveNonce: Uint8Array | undefined;
  private plain: Uint8Array = new Uint8Array(0);

  constructor(socket: PeerSocket, initiator: boolean, options: PeerOptions) {
    this.socket = socket;
    this.initiator = initiator;
    this.options = options;
  }

  /** Opens a TCP connection to a node (the handshake is the caller's to run). */
  static async dial(options: DialOptions & PeerOptions): Promise<TestPeer> {
    return new TestPeer(await PeerSocket.dial(options), true, options);
  }

  /** Our peer id. */
  get peerId(): string {
    return this.options.identity.peerId;
  }

  /** The other side's peer id, once its connection message was read. */
  get remotePeerId(): string | undefined {
    return this.remote === undefined ? undefined : peerId(this.remote.publicKey);
  }

  // --- step 1: connection messages ---------------------------------------------------------

  /** Our connection message's body, with any field replaced. */
  connectionMessageBody(overrides: Partial<ConnectionMessage> = {}): Uint8Array {
    const id = this.options.identity;
    return encodeConnectionBody({
      port: this.options.announcedPort ?? 0,
      publicKey: id.publicKey,
      stamp: id.stamp,
      nonce: crypto.getRandomValues(new Uint8Array(NONCE_BYTES)),
      version: this.options.version ?? SANDBOX_VERSION,
      ...overrides,
    });
  }

  /** Sends our connection message (fields replaceable); returns it as sent. */
  async sendConnectionMessage(overrides: Partial<ConnectionMessage> = {}): Promise<Uint8Array> {
    return this.sendRawConnectionMessage(frameConnectionMessage(this.connectionMessageBody(overrides)));
  }

  /** Sends `bytes` as our connection message (any bytes: it is what the nonces will hash). */
  async sendRawConnectionMessage(bytes: Uint8Array): Promise<Uint8Array> {
    this.sentConnectionMessage = bytes;
    await this.socket.write(bytes);
    return bytes;
  }

  /** Reads and decodes the other side's connection message. */
  async readConnectionMessage(): Promise<ConnectionMessage> {
    const header = await this.socket.read(2);
    const body = await this.socket.read((header[0]! << 8) | header[1]!);
    this.receivedConnectionMessage = concat(header, body);
    this.remote = decodeConnectionBody(body);
    return this.remote;
  }

  // --- step 2: the channel -----------------------------------------------------------------

  /** Keys the channel from both connection messages (both must have been exchanged). */
  keyChannel(): void {
    if (this.sentConnectionMessage === undefined || this.remote === undefined) throw new Error("keyChannel: exchange connection messages first");
    this.key = channelKey(this.options.identity.secretKey, this.remote.publicKey);
    const n = sessionNonces(this.initiator, this.sentConnectionMessage, this.receivedConnectionMessage!);
    this.sendNonce = n.send;
    this.receiveNonce = n.receive;
  }

  /** A chunk as sent (2-byte length, tag, ciphertext) under our next nonce. */
  sealChunk(payload: Uint8Array): Uint8Array {
    if (this.key === undefined) throw new Error("sealChunk: key the channel first");
    if (payload.length > MAX_CHUNK - TAG_BYTES) throw new RangeError(`a chunk payload of ${payload.length} bytes does not fit`);
    const sealed = seal(this.key, this.sendNonce!, payload);
    this.sendNonce = nextNonce(this.sendNonce!);
    return concat(uint(sealed.length, 2), sealed);
  }

  async writeChunk(payload: Uint8Array): Promise<void> {
    await this.socket.write(this.sealChunk(payload));
  }

  /** A chunk whose tag is wrong: it uses up a nonce on both sides, and does not open. */
  async writeForgedChunk(payload: Uint8Array): Promise<void> {
    const chunk = this.sealChunk(payload);
    chunk[2] = chunk[2]! ^ 0x01;
    await this.socket.write(chunk);
  }

  /** Reads one chunk and opens it; {@link PeerCryptoError} when it does not open. */
  async readChunk(): Promise<Uint8Array> {
    if (this.key === undefined) throw new Error("readChunk: key the channel first");
    const header = await this.socket.read(2);
    const sealed = await this.socket.read((header[0]! << 8) | header[1]!);
    const nonce = this.receiveNonce!;
    this.receiveNonce = nextNonce(nonce);
    const plain = open(this.key, nonce, sealed);
    if (plain === undefined) throw new PeerCryptoError(`a chunk of ${sealed.length} bytes did not open`);
    return plain;
  }

  // --- steps 3 and 4: metadata and Ack -----------------------------------------------------

  async sendMetadata(metadata: Metadata = this.options.metadata ?? { disableMempool: false, privateNode: false }): Promise<void> {
    await this.writeChunk(encodeMetadata(metadata));
  }

  async readMetadata(): Promise<Metadata> {
    this.remoteMetadata = decodeMetadata(await this.readChunk());
    return this.remoteMetadata;
  }

  async sendAck(answer: AckMessage = { kind: "Ack" }): Promise<void> {
    await this.writeChunk(encodeAck(answer));
  }

  async readAck(): Promise<AckMessage> {
    return decodeAck(await this.readChunk());
  }

  /**
   * The whole handshake, well behaved, the same on both sides (only the nonces depend on who
   * dialled): connection messages, keys, metadata, then our Ack and the other side's answer,
   * which is returned (an Ack, or the Nack that refused us).
   */
  async handshake(overrides: Partial<ConnectionMessage> = {}): Promise<AckMessage> {
    await this.sendConnectionMessage(overrides);
    await this.readConnectionMessage();
    this.keyChannel();
    await this.sendMetadata();
    await this.readMetadata();
    await this.sendAck();
    return this.readAck();
  }

  // --- messages ----------------------------------------------------------------------------

  /** Sends a message (cut into chunks of at most `chunkPayload` bytes). */
  async send(message: PeerMessage, chunkPayload = MAX_CHUNK_PAYLOAD): Promise<void> {
    await this.sendFrame(encodeMessage(message), chunkPayload);
  }

  /** Sends any tag-and-body bytes as a message (its 4-byte size first), cut into chunks. */
  async sendFrame(tagAndBody: Uint8Array, chunkPayload = MAX_CHUNK_PAYLOAD): Promise<void> {
    const frame = frameMessage(tagAndBody);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < frame.length; at += chunkPayload) chunks.push(this.sealChunk(frame.subarray(at, at + chunkPayload)));
    await this.socket.write(concat(...chunks));
  }

  private async takePlain(n: number): Promise<Uint8Array> {
    while (this.plain.length < n) this.plain = concat(this.plain, await this.readChunk());
    const out = this.plain.subarray(0, n);
    this.plain = this.plain.subarray(n);
    return out;
  }

  /** The next message's tag and body, whole. */
  async receiveFrame(): Promise<Uint8Array> {
    const size = new Cursor(await this.takePlain(4)).uint32();
    return Uint8Array.from(await this.takePlain(size));
  }

  /**
   * The next message; with `wanted`, the next one it accepts, the others being skipped (a node
   * may send its own requests, Get_current_branch or Current_head, as soon as it is connected).
   */
  async receive(wanted?: (m: PeerMessage) => boolean): Promise<PeerMessage> {
    for (;;) {
      const m = decodeMessage(await this.receiveFrame());
      if (wanted === undefined || wanted(m)) return m;
    }
  }

  /** Waits until the other side closes the connection; returns whatever it still sent. */
  async closedByRemote(): Promise<Uint8Array> {
    return this.socket.readToEnd();
  }

  /** Closes the connection. */
  close(): void {
    this.socket.destroy();
  }
}

/** The hash of a block header's bytes (BLAKE2b-256), as `B…`. */
export function headerHashBytes(header: Uint8Array): Uint8Array {
  return blake2b(header, { dkLen: 32 });
}
