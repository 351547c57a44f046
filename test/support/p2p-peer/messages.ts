/**
 * The wire formats the test peer speaks, written from Octez v12's sources (`p2p_socket.ml`,
 * `network_version.ml`, `connection_metadata.ml`, `p2p_rejection.ml`, `p2p_message.ml`,
 * `distributed_db_message.ml`, `block_locator.ml`, `mempool.ml`), for the handful of messages it
 * needs. Octez's layouts, big-endian:
 *
 * - connection message: uint16 port (0: none), public key (32), proof-of-work stamp (24),
 *   message nonce (24), chain name (4-byte length + bytes), uint16 distributed DB version, uint16
 *   P2P version; on the wire after a uint16 length;
 * - metadata: two bools (`disable_mempool`, `private_node`), written 0x00 or 0xff, read as not zero;
 * - Ack: tag 0x00; Nack_v_0: 0xff; Nack: 0x01, int16 motive, then a list of points (4-byte size,
 *   then each point as a 4-byte-length string);
 * - a message: 4-byte size, then uint16 tag and body. Disconnect 0x01, Bootstrap 0x02, Advertise
 *   0x03 (points), Get_current_branch 0x10 (chain id), Current_branch 0x11 (chain id, locator:
 *   4-byte-sized head header, then block hashes to the end), Get_current_head 0x13 (chain id),
 *   Current_head 0x14 (chain id, 4-byte-sized header, mempool: two 4-byte-sized lists of
 *   operation hashes, the second sized twice), Get_block_headers 0x20 (4-byte-sized list of
 *   block hashes), Block_header 0x21 (the header's bytes to the end), Get_operations_for_blocks
 *   0x60 (4-byte-sized list of block hash and int8 validation pass), Operations_for_blocks 0x61
 *   (block hash, int8 pass, the pass's Merkle path as `merkle.ts` encodes it, then each
 *   operation 4-byte-sized to the end), Get_predecessor_header 0x90 (block hash, int32 offset),
 *   Predecessor_header 0x91 (block hash, int32 offset, the header's bytes to the end).
 * @module
 */
import bs58check from "bs58check";
import { concat, Cursor, PeerDecodeError, sized, uint } from "./bytes.ts";

/** What a node announces: its chain name and its highest versions. */
export interface Version {
  readonly chainName: string;
  readonly distributedDbVersion: number;
  readonly p2pVersion: number;
}

/** Octez v12's announcement on the sandbox. */
export const SANDBOX_VERSION: Version = { chainName: "SANDBOXED_TEZOS", distributedDbVersion: 2, p2pVersion: 1 };

/** A connection message. */
export interface ConnectionMessage {
  /** The listening port announced (none: 0). */
  readonly port: number;
  readonly publicKey: Uint8Array;
  readonly stamp: Uint8Array;
  readonly nonce: Uint8Array;
  readonly version: Version;
}

/** The connection message's body (without its length). */
export function encodeConnectionBody(m: ConnectionMessage): Uint8Array {
  const name = new TextEncoder().encode(m.version.chainName);
  return concat(
    uint(m.port, 2),
    m.publicKey,
    m.stamp,
    m.nonce,
    sized(name),
    uint(m.version.distributedDbVersion, 2),
    uint(m.version.p2pVersion, 2),
  );
}

/** The connection message as sent: uint16 length, then the body. */
export function frameConnectionMessage(body: Uint8Array): Uint8Array {
  return concat(uint(body.length, 2), body);
}

/** Decodes a connection message's body (every byte must be used). */
export function decodeConnectionBody(body: Uint8Array): ConnectionMessage {
  const c = new Cursor(body);
  const port = c.uint16();
  const publicKey = c.take(32);
  const stamp = c.take(24);
  const nonce = c.take(24);
  const chainName = new TextDecoder("utf-8", { fatal: true }).decode(c.sized());
  const distributedDbVersion = c.uint16();
  const p2pVersion = c.uint16();
  c.end();
  return { port, publicKey, stamp, nonce, version: { chainName, distributedDbVersion, p2pVersion } };
}

/** Connection metadata. */
export interface Metadata {
  readonly disableMempool: boolean;
  readonly privateNode: boolean;
}

export function encodeMetadata(m: Metadata): Uint8Array {
  return Uint8Array.of(m.disableMempool ? 0xff : 0, m.privateNode ? 0xff : 0);
}

export function decodeMetadata(bytes: Uint8Array): Metadata {
  const c = new Cursor(bytes);
  const m = { disableMempool: c.bool(), privateNode: c.bool() };
  c.end();
  return m;
}

/** Octez's rejection motives (`P2p_rejection`). */
export const Motive = {
  NoMotive: 0,
  TooManyConnections: 1,
  UnknownChainName: 2,
  DeprecatedP2pVersion: 3,
  DeprecatedDistributedDbVersion: 4,
  AlreadyConnected: 5,
} as const;

/** The answer that ends a handshake. */
export type AckMessage = { readonly kind: "Ack" } | { readonly kind: "Nack_v_0" } | { readonly kind: "Nack"; readonly motive: number; readonly points: readonly string[] };

function encodePoints(points: readonly string[]): Uint8Array {
  return concat(...points.map((p) => sized(new TextEncoder().encode(p))));
}

function decodePoints(c: Cursor): string[] {
  const points: string[] = [];
  while (c.remaining > 0) points.push(new TextDecoder("utf-8", { fatal: true }).decode(c.sized()));
  return points;
}

export function encodeAck(a: AckMessage): Uint8Array {
  switch (a.kind) {
    case "Ack":
      return Uint8Array.of(0x00);
    case "Nack_v_0":
      return Uint8Array.of(0xff);
    case "Nack":
      return concat(Uint8Array.of(0x01), uint(a.motive & 0xffff, 2), sized(encodePoints(a.points)));
  }
}

export function decodeAck(bytes: Uint8Array): AckMessage {
  const c = new Cursor(bytes);
  const tag = c.uint8();
  let out: AckMessage;
  if (tag === 0x00) out = { kind: "Ack" };
  else if (tag === 0xff) out = { kind: "Nack_v_0" };
  else if (tag === 0x01) {
    const motive = c.int16();
    const points = decodePoints(new Cursor(c.sized()));
    out = { kind: "Nack", motive, points };
  } else throw new PeerDecodeError(`unknown Ack tag 0x${tag.toString(16)}`);
  c.end();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Base58Check of the hashes the messages carry

const CHAIN_ID_PREFIX = Uint8Array.of(87, 82, 0);
const BLOCK_HASH_PREFIX = Uint8Array.of(1, 52);
const OPERATION_HASH_PREFIX = Uint8Array.of(5, 116);

function b58(prefix: Uint8Array, bytes: Uint8Array): string {
  return bs58check.encode(concat(prefix, bytes));
}

function unb58(prefix: Uint8Array, size: number, text: string): Uint8Array {
  const raw = bs58check.decode(text);
  if (raw.length !== prefix.length + size || prefix.some((b, i) => raw[i] !== b)) throw new RangeError(`not the expected kind of hash: ${text}`);
  return Uint8Array.from(raw.subarray(prefix.length));
}

/** `Net…` of a 4-byte chain id, and back. */
export const chainId = {
  encode: (bytes: Uint8Array) => b58(CHAIN_ID_PREFIX, bytes),
  decode: (text: string) => unb58(CHAIN_ID_PREFIX, 4, text),
};

/** `B…` of a 32-byte block hash, and back. */
export const blockHash = {
  encode: (bytes: Uint8Array) => b58(BLOCK_HASH_PREFIX, bytes),
  decode: (text: string) => unb58(BLOCK_HASH_PREFIX, 32, text),
};

/** `o…` of a 32-byte operation hash. */
export const operationHash = {
  encode: (bytes: Uint8Array) => b58(OPERATION_HASH_PREFIX, bytes),
};

// ---------------------------------------------------------------------------------------------
// Messages

/** Message tags (`p2p_message.ml`, `distributed_db_message.ml`). */
export const Tag = {
  Disconnect: 0x01,
  Bootstrap: 0x02,
  Advertise: 0x03,
  Get_current_branch: 0x10,
  Current_branch: 0x11,
  Get_current_head: 0x13,
  Current_head: 0x14,
  Get_block_headers: 0x20,
  Block_header: 0x21,
  Get_operations_for_blocks: 0x60,
  Operations_for_blocks: 0x61,
  Get_predecessor_header: 0x90,
  Predecessor_header: 0x91,
} as const;

/** The messages the test peer knows; any other arrives as `Other` with its tag and body. */
export type PeerMessage =
  | { readonly kind: "Disconnect" }
  | { readonly kind: "Bootstrap" }
  | { readonly kind: "Advertise"; readonly points: readonly string[] }
  | { readonly kind: "Get_current_branch"; readonly chainId: string }
  | { readonly kind: "Current_branch"; readonly chainId: string; readonly head: Uint8Array; readonly history: readonly string[] }
  | { readonly kind: "Get_current_head"; readonly chainId: string }
  | {
    readonly kind: "Current_head";
    readonly chainId: string;
    readonly head: Uint8Array;
    readonly knownValid: readonly string[];
    readonly pending: readonly string[];
  }
  | { readonly kind: "Get_block_headers"; readonly hashes: readonly string[] }
  | { readonly kind: "Block_header"; readonly header: Uint8Array }
  | { readonly kind: "Get_operations_for_blocks"; readonly blocks: readonly { readonly hash: string; readonly validationPass: number }[] }
  | {
    readonly kind: "Operations_for_blocks";
    readonly hash: string;
    readonly validationPass: number;
    /** The pass's Merkle path, encoded (`encodeOperationListPath` of `merkle.ts`). */
    readonly path: Uint8Array;
    readonly operations: readonly Uint8Array[];
  }
  | { readonly kind: "Get_predecessor_header"; readonly hash: string; readonly offset: number }
  | { readonly kind: "Predecessor_header"; readonly hash: string; readonly offset: number; readonly header: Uint8Array }
  | { readonly kind: "Other"; readonly tag: number; readonly body: Uint8Array };

/** An int8 validation pass, and back. */
function int8(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < -128 || value > 127) throw new RangeError(`${value} is not an int8`);
  return Uint8Array.of(value & 0xff);
}

/** An int32, big-endian. */
function int32(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31) throw new RangeError(`${value} is not an int32`);
  return uint(value >>> 0, 4);
}

/** Reads a Merkle path (`Left` 0xf0 path right, `Right` 0x0f left path, `Op` 0x00) and returns its bytes. */
function readPath(c: Cursor, depth = 0): Uint8Array {
  if (depth > 32) throw new PeerDecodeError("a Merkle path deeper than 32 levels");
  const tag = c.uint8();
  switch (tag) {
    case 0x00:
      return Uint8Array.of(0x00);
    case 0xf0: {
      const below = readPath(c, depth + 1);
      return concat(Uint8Array.of(0xf0), below, c.take(32));
    }
    case 0x0f: {
      const left = Uint8Array.from(c.take(32));
      return concat(Uint8Array.of(0x0f), left, readPath(c, depth + 1));
    }
    default:
      throw new PeerDecodeError(`Merkle path tag ${tag}`);
  }
}

function hashList(c: Cursor, encode: (b: Uint8Array) => string): string[] {
  if (c.remaining % 32 !== 0) throw new PeerDecodeError(`a list of hashes of ${c.remaining} bytes`);
  const out: string[] = [];
  while (c.remaining > 0) out.push(encode(c.take(32)));
  return out;
}

/** A message's tag and body (no size prefix). */
export function encodeMessage(m: PeerMessage): Uint8Array {
  switch (m.kind) {
    case "Disconnect":
    case "Bootstrap":
      return uint(Tag[m.kind], 2);
    case "Advertise":
      return concat(uint(Tag.Advertise, 2), encodePoints(m.points));
    case "Get_current_branch":
    case "Get_current_head":
      return concat(uint(Tag[m.kind], 2), chainId.decode(m.chainId));
    case "Current_branch":
      return concat(uint(Tag.Current_branch, 2), chainId.decode(m.chainId), sized(m.head), ...m.history.map(blockHash.decode));
    case "Current_head":
      return concat(
        uint(Tag.Current_head, 2),
        chainId.decode(m.chainId),
        sized(m.head),
        sized(concat(...m.knownValid.map((h) => unb58(OPERATION_HASH_PREFIX, 32, h)))),
        sized(sized(concat(...m.pending.map((h) => unb58(OPERATION_HASH_PREFIX, 32, h))))),
      );
    case "Get_block_headers":
      return concat(uint(Tag.Get_block_headers, 2), sized(concat(...m.hashes.map(blockHash.decode))));
    case "Block_header":
      return concat(uint(Tag.Block_header, 2), m.header);
    case "Get_operations_for_blocks":
      return concat(uint(Tag.Get_operations_for_blocks, 2), sized(concat(...m.blocks.map((b) => concat(blockHash.decode(b.hash), int8(b.validationPass))))));
    case "Operations_for_blocks":
      return concat(uint(Tag.Operations_for_blocks, 2), blockHash.decode(m.hash), int8(m.validationPass), m.path, ...m.operations.map(sized));
    case "Get_predecessor_header":
      return concat(uint(Tag.Get_predecessor_header, 2), blockHash.decode(m.hash), int32(m.offset));
    case "Predecessor_header":
      return concat(uint(Tag.Predecessor_header, 2), blockHash.decode(m.hash), int32(m.offset), m.header);
    case "Other":
      return concat(uint(m.tag, 2), m.body);
  }
}

/** Decodes a message's tag and body; an unknown tag gives `Other`. */
export function decodeMessage(bytes: Uint8Array): PeerMessage {
  const c = new Cursor(bytes);
  const tag = c.uint16();
  let m: PeerMessage;
  switch (tag) {
    case Tag.Disconnect:
      m = { kind: "Disconnect" };
      break;
    case Tag.Bootstrap:
      m = { kind: "Bootstrap" };
      break;
    case Tag.Advertise:
      m = { kind: "Advertise", points: decodePoints(c) };
      break;
    case Tag.Get_current_branch:
    case Tag.Get_current_head:
      m = { kind: tag === Tag.Get_current_head ? "Get_current_head" : "Get_current_branch", chainId: chainId.encode(c.take(4)) };
      break;
    case Tag.Current_branch: {
      const id = chainId.encode(c.take(4));
      const head = Uint8Array.from(c.sized());
      m = { kind: "Current_branch", chainId: id, head, history: hashList(c, blockHash.encode) };
      break;
    }
    case Tag.Current_head: {
      const id = chainId.encode(c.take(4));
      const head = Uint8Array.from(c.sized());
      const knownValid = hashList(new Cursor(c.sized()), operationHash.encode);
      const pendingOuter = new Cursor(c.sized());
      const pending = hashList(new Cursor(pendingOuter.sized()), operationHash.encode);
      pendingOuter.end();
      m = { kind: "Current_head", chainId: id, head, knownValid, pending };
      break;
    }
    case Tag.Get_block_headers:
      m = { kind: "Get_block_headers", hashes: hashList(new Cursor(c.sized()), blockHash.encode) };
      break;
    case Tag.Block_header:
      m = { kind: "Block_header", header: Uint8Array.from(c.take(c.remaining)) };
      break;
    case Tag.Get_operations_for_blocks: {
      const list = new Cursor(c.sized());
      const blocks: { hash: string; validationPass: number }[] = [];
      while (list.remaining > 0) blocks.push({ hash: blockHash.encode(list.take(32)), validationPass: (list.uint8() << 24) >> 24 });
      m = { kind: "Get_operations_for_blocks", blocks };
      break;
    }
    case Tag.Operations_for_blocks: {
      const hash = blockHash.encode(c.take(32));
      const validationPass = (c.uint8() << 24) >> 24;
      const path = readPath(c);
      const operations: Uint8Array[] = [];
      while (c.remaining > 0) operations.push(Uint8Array.from(c.sized()));
      m = { kind: "Operations_for_blocks", hash, validationPass, path, operations };
      break;
    }
    case Tag.Get_predecessor_header:
    case Tag.Predecessor_header: {
      const hash = blockHash.encode(c.take(32));
      const offset = c.int32();
      m = tag === Tag.Get_predecessor_header ? { kind: "Get_predecessor_header", hash, offset } : { kind: "Predecessor_header", hash, offset, header: Uint8Array.from(c.take(c.remaining)) };
      break;
    }
    default:
      return { kind: "Other", tag, body: Uint8Array.from(c.take(c.remaining)) };
  }
  c.end();
  return m;
}

/** A message as framed before chunking: 4-byte size, then tag and body. */
export function frameMessage(tagAndBody: Uint8Array): Uint8Array {
  return sized(tagAndBody);
}
