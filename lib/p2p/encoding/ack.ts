/**
 * The last word of a handshake (Octez `src/lib_p2p/p2p_socket.ml` `Ack`, and
 * `src/lib_base/p2p_rejection.ml`), one encrypted chunk each way: `Ack` (tag 0, nothing else),
 * `Nack` (tag 1: a motive, int16, then a list of at most 100 points to try instead, with a 4-byte
 * length; sent only to peers that announce P2P version 1 or more) or `Nack_v_0` (tag 255,
 * nothing else, for P2P version 0).
 *
 * @example
 * ```ts
 * encodeBinary(ack, { kind: "Ack" });                                        // 00
 * encodeBinary(ack, { kind: "Nack", motive: 2, points: [] });                // 01 0002 00000000
 * ```
 * @module
 */
import { conv } from "../../encoding/conv.ts";
import type { Codec } from "../../encoding/core.ts";
import { int16 } from "../../encoding/integers.ts";
import { list } from "../../encoding/list.ts";
import { allowAbsent, obj, req } from "../../encoding/object.ts";
import { tagged, union } from "../../encoding/union.ts";
import { unit } from "../../encoding/conv.ts";
import { point, type P2pPoint } from "./point.ts";

/**
 * Why a connection is refused, as Octez numbers it (`P2p_rejection.t`, an int16 on the wire);
 * any other number is an unknown motive, kept as is.
 */
export const RejectionMotive = Object.freeze({
  NoMotive: 0,
  TooManyConnections: 1,
  UnknownChainName: 2,
  DeprecatedP2pVersion: 3,
  DeprecatedDistributedDbVersion: 4,
  AlreadyConnected: 5,
} as const);

/** A rejection motive: one of {@link RejectionMotive}, or another int16 (unknown motive). */
export type RejectionMotiveCode = number;

/** Octez's text of a motive (`P2p_rejection.pp`). */
export function describeMotive(motive: RejectionMotiveCode): string {
  switch (motive) {
    case 0:
      return "No motive";
    case 1:
      return "Too many connections";
    case 2:
      return "Unknown chain name";
    case 3:
      return "Running a deprecated p2p layer version";
    case 4:
      return "Running a deprecated distributed db version";
    case 5:
      return "Already connected/connecting";
    default:
      return `Rejected for unknown reason, code (${motive})`;
  }
}

/** The most points a Nack may carry (`list ~max_length:100`). */
export const NACK_MAX_POINTS = 100;

/** The answer that ends a handshake. */
export type Ack =
  | { kind: "Ack" }
  | { kind: "Nack_v_0" }
  | {
    kind: "Nack";
    /** Why (see {@link RejectionMotive}). */
    motive: RejectionMotiveCode;
    /** Points the refused peer may try instead (at most 100). */
    points: P2pPoint[];
  };

/** data-encoding's `empty` as a required field: no bytes, `{}` in JSON. */
const empty: Codec<undefined> = allowAbsent(conv<undefined, undefined>((x) => x, (x) => x, unit));

/** Codec of {@link Ack} (a uint8-tagged union; JSON as Octez's: `{ack:{}}`, `{nack_v_0:{}}`, `{nack_motive, nack_list}`). */
export const ack: Codec<Ack> = union<Ack>([
  tagged(0, "Ack", obj(req("ack", empty)), (v) => (v.kind === "Ack" ? { ack: undefined } : undefined), () => ({ kind: "Ack" })),
  tagged(255, "Nack_v_0", obj(req("nack_v_0", empty)), (v) => (v.kind === "Nack_v_0" ? { nack_v_0: undefined } : undefined), () => ({
    kind: "Nack_v_0",
  })),
  tagged(
    1,
    "Nack",
    obj(
      req("nack_motive", int16),
      req("nack_list", list(point, { maxLength: NACK_MAX_POINTS })),
    ),
    (v) => (v.kind === "Nack" ? { nack_motive: v.motive, nack_list: v.points } : undefined),
    (p) => ({ kind: "Nack", motive: p.nack_motive, points: p.nack_list }),
  ),
]);
