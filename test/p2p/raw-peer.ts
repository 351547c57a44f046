/**
 * One end of a P2P handshake driven step by step from the library's primitives (connection
 * message codec, channel key, nonces, chunk sealing), so that tests can make it misbehave at any
 * step: wrong bytes, a forged chunk, a stall. It is also a second, plain implementation of the
 * chunk framing that `authenticate` is checked against.
 */
import { encodeBinary } from "../../lib/encoding/codec.ts";
import { boxChunk, channelKey, generateNonces, incrementNonce, unboxChunk } from "../../lib/p2p/crypto.ts";
import { ack, type Ack } from "../../lib/p2p/encoding/ack.ts";
import {
  connectionMetadata,
  decodeConnectionMessage,
  encodeConnectionMessage,
  type ConnectionMessage,
  type ConnectionMetadata,
} from "../../lib/p2p/encoding/connection.ts";
import type { Identity } from "../../lib/p2p/identity.ts";
import type { Connection } from "../../lib/p2p/transport.ts";
import { Wire } from "../../lib/p2p/wire.ts";

export class RawPeer {
  readonly wire: Wire;
  readonly identity: Identity;
  readonly incoming: boolean;
  sent: Uint8Array | undefined;
  received: Uint8Array | undefined;
  remote: ConnectionMessage | undefined;
  key: Uint8Array | undefined;
  localNonce: Uint8Array | undefined;
  remoteNonce: Uint8Array | undefined;

  constructor(connection: Connection, identity: Identity, incoming: boolean) {
    this.wire = new Wire(connection);
    this.identity = identity;
    this.incoming = incoming;
  }

  /** Our connection message with its length prefix (fields overridable). */
  connectionMessage(overrides: Partial<ConnectionMessage> = {}): Uint8Array {
    return encodeConnectionMessage({
      port: 9999,
      public_key: this.identity.publicKey,
      proof_of_work_stamp: this.identity.proofOfWorkStamp,
      message_nonce: crypto.getRandomValues(new Uint8Array(24)),
      version: { chain_name: "SANDBOXED_TEZOS", distributed_db_version: 2, p2p_version: 1 },
      ...overrides,
    });
  }

  async send(bytes: Uint8Array): Promise<void> {
    await this.wire.write(bytes);
  }

  async sendConnectionMessage(overrides: Partial<ConnectionMessage> = {}): Promise<void> {
    this.sent = this.connectionMessage(overrides);
    await this.send(this.sent);
  }

  async readConnectionMessage(): Promise<ConnectionMessage> {
    const header = await this.wire.read(2);
    const body = await this.wire.read((header[0]! << 8) | header[1]!);
    this.received = Uint8Array.from([...header, ...body]);
    this.remote = decodeConnectionMessage(body);
    return this.remote;
  }

  /** Keys the channel from both connection messages. */
  keys(): void {
    this.key = channelKey(this.identity.secretKey, this.remote!.public_key);
    const n = generateNonces({ incoming: this.incoming, sentMessage: this.sent!, receivedMessage: this.received! });
    this.localNonce = n.local;
    this.remoteNonce = n.remote;
  }

  /** A chunk as sent (2-byte length, tag, ciphertext) under the next local nonce. */
  seal(payload: Uint8Array): Uint8Array {
    const sealed = boxChunk(this.key!, this.localNonce!, payload);
    this.localNonce = incrementNonce(this.localNonce!);
    return Uint8Array.from([sealed.length >> 8, sealed.length & 0xff, ...sealed]);
  }

  async writeChunk(payload: Uint8Array): Promise<void> {
    await this.send(this.seal(payload));
  }

  async readChunk(): Promise<Uint8Array> {
    const header = await this.wire.read(2);
    const sealed = await this.wire.read((header[0]! << 8) | header[1]!);
    const plain = unboxChunk(this.key!, this.remoteNonce!, sealed);
    this.remoteNonce = incrementNonce(this.remoteNonce!);
    if (plain === undefined) throw new Error("RawPeer: a chunk did not decrypt");
    return plain;
  }

  /** The whole handshake, well behaved, up to and including the Ack exchange. */
  async handshake(metadata: ConnectionMetadata = { disable_mempool: false, private_node: false }, answer: Ack = { kind: "Ack" }): Promise<Uint8Array> {
    await this.sendConnectionMessage();
    await this.readConnectionMessage();
    this.keys();
    await this.writeChunk(encodeBinary(connectionMetadata, metadata));
    await this.readChunk();
    await this.writeChunk(encodeBinary(ack, answer));
    return await this.readChunk();
  }

  close(): void {
    this.wire.close();
  }
}
