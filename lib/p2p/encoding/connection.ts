/**
 * What two peers exchange in clear and just after (Octez `src/lib_p2p/p2p_socket.ml`,
 * `src/lib_base/network_version.ml`, `distributed_db_version.ml`, `p2p_version.ml`,
 * `src/lib_p2p_services/connection_metadata.ml`):
 *
 * - the connection message, sent first, in clear, behind a 2-byte big-endian length: port
 *   (uint16, 0 = none) ‖ public key (32) ‖ proof-of-work stamp (24) ‖ message nonce (24) ‖
 *   network version = chain name (4-byte length ‖ bytes) ‖ distributed_db_version (uint16) ‖
 *   p2p_version (uint16);
 * - the connection metadata, the first encrypted chunk each way: disable_mempool (bool) ‖
 *   private_node (bool), one byte each.
 *
 * @example
 * ```ts
 * const framed = encodeConnectionMessage({ port: 9732, public_key, proof_of_work_stamp,
 *   message_nonce, version: { chain_name: "SANDBOXED_TEZOS", distributed_db_version: 2, p2p_version: 1 } });
 * decodeConnectionMessage(framed.subarray(2));
 * ```
 * @module
 */
import { decodeBinary, encodeBinary, type Reader, type Writer } from "../../encoding/codec.ts";
import { fixedBytes, unistringSchema, utf8 } from "../../encoding/bytes.ts";
import { conv, def } from "../../encoding/conv.ts";
import { makeCodec, valueTypeError, jsonTypeError, type Codec } from "../../encoding/core.ts";
import { dynamicSize } from "../../encoding/dynamic.ts";
import { booleanCodec, uint16 } from "../../encoding/integers.ts";
import { obj, req } from "../../encoding/object.ts";

/** A network version: what a node announces, and what two nodes agree on. */
export interface NetworkVersion {
  /** The chain name (`SANDBOXED_TEZOS`, `TEZOS_MAINNET`, …). */
  chain_name: string;
  /** Version of the distributed DB messages (0, 1, 2 in Octez v12). */
  distributed_db_version: number;
  /** Version of the P2P layer (0, 1 in Octez v12). */
  p2p_version: number;
}

const lenientUtf8 = new TextDecoder("utf-8");

/**
 * Text whose bytes are not checked for UTF-8 (OCaml strings are bytes): invalid sequences read as
 * U+FFFD. Chain names are compared on their bytes ({@link chainNameBytes}), never on this text.
 */
const bytesAsText: Codec<string> = makeCodec<string>({
  size: { kind: "variable" },
  desc: { t: "leaf", layout: { kind: "String" } },
  toJson(v) {
    if (typeof v !== "string") throw valueTypeError("a string", v);
    return v;
  },
  fromJson(j) {
    if (typeof j !== "string") throw jsonTypeError("a string", j);
    return j;
  },
  write(out: Writer, v: string) {
    if (typeof v !== "string") throw valueTypeError("a string", v);
    out.raw(utf8(v));
  },
  read: (r: Reader) => lenientUtf8.decode(r.take(r.remaining)),
  schema: unistringSchema,
});

/** `distributed_db_version.name`: the chain name, a string (4-byte length then bytes). */
export const chainName: Codec<string> = def("distributed_db_version.name", dynamicSize(bytesAsText), {
  description: "A name for the distributed DB protocol",
});

/** `distributed_db_version`: uint16. */
export const distributedDbVersion: Codec<number> = def("distributed_db_version", uint16, {
  description: "A version number for the distributed DB protocol",
});

/** `p2p_version`: uint16. */
export const p2pVersion: Codec<number> = def("p2p_version", uint16, { description: "A version number for the p2p layer." });

/** `network_version`: chain name ‖ distributed_db_version ‖ p2p_version. */
export const networkVersion: Codec<NetworkVersion> = def(
  "network_version",
  obj(req("chain_name", chainName), req("distributed_db_version", distributedDbVersion), req("p2p_version", p2pVersion)),
  { description: "A version number for the network protocol (includes distributed DB version and p2p version)" },
);

/** The first message of a handshake, in clear. */
export interface ConnectionMessage {
  /** The port the sender listens on, if it announces one (0 on the wire when not). */
  port?: number;
  /** The sender's X25519 public key (32 bytes). */
  public_key: Uint8Array;
  /** The sender's proof-of-work stamp (24 bytes). */
  proof_of_work_stamp: Uint8Array;
  /** 24 random bytes, which make the nonces of the connection unique. */
  message_nonce: Uint8Array;
  /** The network version the sender announces (its highest versions). */
  version: NetworkVersion;
}

/** Codec of the connection message (without its 2-byte length prefix); JSON as Octez's (`pubkey`). */
export const connectionMessage: Codec<ConnectionMessage> = conv(
  (m: ConnectionMessage) => ({
    port: m.port ?? 0,
    pubkey: m.public_key,
    proof_of_work_stamp: m.proof_of_work_stamp,
    message_nonce: m.message_nonce,
    version: m.version,
  }),
  (w) => {
    const m: ConnectionMessage = {
      public_key: w.pubkey,
      proof_of_work_stamp: w.proof_of_work_stamp,
      message_nonce: w.message_nonce,
      version: w.version,
    };
    if (w.port !== 0) m.port = w.port;
    return m;
  },
  obj(
    req("port", uint16),
    req("pubkey", fixedBytes(32)),
    req("proof_of_work_stamp", fixedBytes(24)),
    req("message_nonce", fixedBytes(24)),
    req("version", networkVersion),
  ),
);

/** Size of the length prefix of the connection message. */
export const CONNECTION_MESSAGE_PREFIX = 2;

/**
 * The connection message as sent: 2-byte big-endian length, then the message. These bytes, as
 * sent and as received, seed the nonces.
 * @throws RangeError when the message does not fit the 2-byte length (a chain name over 65 KB).
 */
export function encodeConnectionMessage(message: ConnectionMessage): Uint8Array {
  const body = encodeBinary(connectionMessage, message);
  if (body.length >= 1 << 16) throw new RangeError(`connection message of ${body.length} bytes does not fit a 2-byte length`);
  const out = new Uint8Array(CONNECTION_MESSAGE_PREFIX + body.length);
  out[0] = body.length >> 8;
  out[1] = body.length & 0xff;
  out.set(body, CONNECTION_MESSAGE_PREFIX);
  return out;
}

/** A connection message from its bytes after the length prefix; all of them must be used. */
export function decodeConnectionMessage(body: Uint8Array): ConnectionMessage {
  return decodeBinary(connectionMessage, body);
}

/** Where the chain name's length sits in a connection message (after port, key, stamp, nonce). */
const CHAIN_NAME_AT = 2 + 32 + 24 + 24;

/**
 * The raw bytes of the chain name of a connection message (after the length prefix), which Octez
 * compares byte for byte with its own; `undefined` if the message is too short to hold them.
 */
export function chainNameBytes(body: Uint8Array): Uint8Array | undefined {
  if (body.length < CHAIN_NAME_AT + 4) return undefined;
  const v = new DataView(body.buffer, body.byteOffset, body.length);
  const len = v.getUint32(CHAIN_NAME_AT);
  if (CHAIN_NAME_AT + 4 + len > body.length) return undefined;
  return body.subarray(CHAIN_NAME_AT + 4, CHAIN_NAME_AT + 4 + len);
}

/** What each side says of itself right after the connection message, encrypted. */
export interface ConnectionMetadata {
  /** The sender does not want mempool traffic. */
  disable_mempool: boolean;
  /** The sender is a private node: its address must not be advertised. */
  private_node: boolean;
}

/**
 * A boolean as data-encoding reads it: 0x00 is false, any other byte true (`int8 <> 0`); written
 * as 0x00 / 0xff. (The shared `bool` codec refuses other bytes; Octez does not, here.)
 */
const laxBool: Codec<boolean> = booleanCodec((r) => r.u8() !== 0);

/** Codec of the connection metadata: two booleans, 2 bytes. */
export const connectionMetadata: Codec<ConnectionMetadata> = obj(req("disable_mempool", laxBool), req("private_node", laxBool));

/** Metadata of a node that takes mempool traffic and is not private. */
export const DEFAULT_METADATA: Readonly<ConnectionMetadata> = Object.freeze({ disable_mempool: false, private_node: false });
