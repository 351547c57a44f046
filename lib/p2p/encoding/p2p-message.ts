/**
 * P2P messages (Octez `src/lib_p2p/p2p_message.ml`) with the distributed DB messages as their
 * application messages: one union with uint16 tags, in a frame of a 4-byte size then the tag and
 * payload, 100 MiB at most in all. The frame travels split into chunks (see `../socket.ts`).
 *
 * | tag | message | payload |
 * |---|---|---|
 * | 0x01 | Disconnect | none |
 * | 0x02 | Bootstrap | none |
 * | 0x03 | Advertise | points, up to the end (≤ 100) |
 * | 0x04 | Swap_request | point ‖ peer id (16) |
 * | 0x05 | Swap_ack | point ‖ peer id (16) |
 * | 0x10… | distributed DB messages | see `./chain-messages.ts` |
 *
 * @example
 * ```ts
 * encodeMessage({ kind: "Bootstrap" });                            // 00000002 0002
 * decodeMessage(Uint8Array.from([0, 0, 0, 2, 0, 1]));              // { kind: "Disconnect" }
 * ```
 * @module
 */
import { DecodeError, decodeBinary, encodeBinary } from "../../encoding/codec.ts";
import { constant } from "../../encoding/conv.ts";
import type { Codec } from "../../encoding/core.ts";
import { cryptoboxPublicKeyHash } from "../../encoding/hashes.ts";
import { variableList } from "../../encoding/list.ts";
import { obj, req } from "../../encoding/object.ts";
import { tagged, union, type Case } from "../../encoding/union.ts";
import {
  ADVERTISE_MAX_POINTS,
  BLOCK_HEADER_MAX_SIZE,
  BLOCK_LOCATOR_MAX_LENGTH,
  MAX_HASHES_PER_REQUEST,
  MEMPOOL_MAX_OPERATIONS,
  MESSAGE_MAX_SIZE,
  OPERATION_LIST_MAX_SIZE,
  OPERATION_MAX_PASS,
  OPERATION_MAX_SIZE,
  PROTOCOL_MAX_SIZE,
} from "./bounds.ts";
import { chainMessageCases, type ChainMessage } from "./chain-messages.ts";
import { operationListPathMaxSize } from "./operation-path.ts";
import { POINT_MAX_SIZE, point, type P2pPoint } from "./point.ts";

/** The messages of the P2P layer itself. */
export type PeerMessage =
  | { kind: "Disconnect" }
  | { kind: "Bootstrap" }
  | { kind: "Advertise"; points: P2pPoint[] }
  | { kind: "Swap_request"; point: P2pPoint; peer_id: string }
  | { kind: "Swap_ack"; point: P2pPoint; peer_id: string };

/** A message between two connected peers: the P2P layer's own, or a distributed DB message. */
export type P2pMessage = PeerMessage | ChainMessage;

/** The cases of the P2P layer's own messages (tags 0x01..0x05). */
export const peerMessageCases: readonly Case<P2pMessage>[] = [
  tagged(0x01, "Disconnect", obj(req("kind", constant("Disconnect"))), (m: P2pMessage) => (m.kind === "Disconnect" ? { kind: "Disconnect" as const } : undefined), () => ({
    kind: "Disconnect",
  })),
  tagged(0x02, "Bootstrap", obj(req("kind", constant("Bootstrap"))), (m: P2pMessage) => (m.kind === "Bootstrap" ? { kind: "Bootstrap" as const } : undefined), () => ({
    kind: "Bootstrap",
  })),
  tagged(
    0x03,
    "Advertise",
    obj(req("id", variableList(point, { maxLength: ADVERTISE_MAX_POINTS })), req("kind", constant("Advertise"))),
    (m: P2pMessage) => (m.kind === "Advertise" ? { id: m.points, kind: "Advertise" as const } : undefined),
    (p) => ({ kind: "Advertise", points: p.id }),
  ),
  tagged(
    0x04,
    "Swap_request",
    obj(req("point", point), req("peer_id", cryptoboxPublicKeyHash), req("kind", constant("Swap_request"))),
    (m: P2pMessage) => (m.kind === "Swap_request" ? { point: m.point, peer_id: m.peer_id, kind: "Swap_request" as const } : undefined),
    (p) => ({ kind: "Swap_request", point: p.point, peer_id: p.peer_id }),
  ),
  tagged(
    0x05,
    "Swap_ack",
    obj(req("point", point), req("peer_id", cryptoboxPublicKeyHash), req("kind", constant("Swap_ack"))),
    (m: P2pMessage) => (m.kind === "Swap_ack" ? { point: m.point, peer_id: m.peer_id, kind: "Swap_ack" as const } : undefined),
    (p) => ({ kind: "Swap_ack", point: p.point, peer_id: p.peer_id }),
  ),
];

/** Codec of a message's body: uint16 tag then payload (the frame's size is not part of it). */
export const p2pMessage: Codec<P2pMessage> = union<P2pMessage>([...peerMessageCases, ...chainMessageCases as readonly Case<P2pMessage>[]], {
  tagSize: "Uint16",
});

/** Size of the frame's size prefix. */
export const FRAME_PREFIX = 4;

/** The most bytes a body may have: 100 MiB less the 4-byte size (`check_size` covers the size too). */
export const BODY_MAX_SIZE = MESSAGE_MAX_SIZE - FRAME_PREFIX;

/**
 * A frame: the body's size (4 bytes, big-endian) then the body.
 * @throws RangeError when the frame would exceed 100 MiB.
 */
export function frameBody(body: Uint8Array): Uint8Array {
  if (body.length > BODY_MAX_SIZE) throw new RangeError(`message of ${body.length + FRAME_PREFIX} bytes exceeds ${MESSAGE_MAX_SIZE}`);
  const out = new Uint8Array(FRAME_PREFIX + body.length);
  new DataView(out.buffer).setUint32(0, body.length);
  out.set(body, FRAME_PREFIX);
  return out;
}

/**
 * The framed binary form of a message, as sent (before chunking).
 * @throws TypeError or RangeError when the message breaks Octez's bounds (e.g. 11 hashes).
 */
export function encodeMessage(message: P2pMessage): Uint8Array {
  return frameBody(encodeBinary(p2pMessage, message));
}

/** A message from its whole frame; throws a DecodeError on anything else. */
export function decodeMessage(frame: Uint8Array): P2pMessage {
  if (frame.length < FRAME_PREFIX) throw new DecodeError("Not enough data: a frame starts with its 4-byte size");
  const size = new DataView(frame.buffer, frame.byteOffset, frame.length).getUint32(0);
  if (size > BODY_MAX_SIZE) throw new DecodeError(`Message of ${size + FRAME_PREFIX} bytes exceeds ${MESSAGE_MAX_SIZE}`);
  if (frame.length !== FRAME_PREFIX + size) throw new DecodeError(`Frame of ${frame.length} bytes announces ${size + FRAME_PREFIX}`);
  return decodeBinary(p2pMessage, frame.subarray(FRAME_PREFIX));
}

const header = 4 + BLOCK_HEADER_MAX_SIZE; // a length-prefixed header
const locator = header + BLOCK_LOCATOR_MAX_LENGTH * 32;
const hashList = 4 + MAX_HASHES_PER_REQUEST * 32;

/**
 * An upper bound of the body size (tag included) of each message, from Octez's bounds; the codec
 * checks the exact bounds, this lets a reader refuse a frame from its size alone.
 */
const BODY_LIMITS: ReadonlyMap<number, number> = new Map([
  [0x01, 2],
  [0x02, 2],
  [0x03, 2 + ADVERTISE_MAX_POINTS * POINT_MAX_SIZE],
  [0x04, 2 + POINT_MAX_SIZE + 16],
  [0x05, 2 + POINT_MAX_SIZE + 16],
  [0x10, 2 + 4],
  [0x11, 2 + 4 + locator],
  [0x12, 2 + 4],
  [0x13, 2 + 4],
  [0x14, 2 + 4 + header + 8 + MEMPOOL_MAX_OPERATIONS * 32],
  [0x20, 2 + hashList],
  [0x21, 2 + BLOCK_HEADER_MAX_SIZE],
  [0x30, 2 + hashList],
  [0x31, 2 + OPERATION_MAX_SIZE],
  [0x40, 2 + hashList],
  [0x41, 2 + PROTOCOL_MAX_SIZE],
  [0x60, 2 + 4 + MAX_HASHES_PER_REQUEST * 33],
  [0x61, 2 + 33 + operationListPathMaxSize(OPERATION_MAX_PASS) + OPERATION_LIST_MAX_SIZE],
  [0x70, 2 + 4],
  [0x71, 2 + 4 + BLOCK_HEADER_MAX_SIZE],
  [0x80, 2 + 5],
  [0x81, 2 + 5 + locator],
  [0x90, 2 + 36],
  [0x91, 2 + 36 + BLOCK_HEADER_MAX_SIZE],
]);

/**
 * The most bytes the body of a message with this tag may take (tag included), or `undefined` for
 * a tag Octez v12 does not know. A frame over it cannot decode.
 */
export function messageBodyLimit(tag: number): number | undefined {
  return BODY_LIMITS.get(tag);
}
