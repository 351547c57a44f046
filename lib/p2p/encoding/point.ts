/**
 * Points (an IP address and a port) as Octez writes them on the wire (`src/lib_base/p2p_point.ml`,
 * `p2p_addr.ml`, `point_parser.mll`): the text `a.b.c.d:port` for IPv4 (and IPv4-mapped IPv6)
 * addresses, `[v6]:port` otherwise (RFC 5952 form, as the `ipaddr` library prints it), as a
 * `string` (4-byte length then the text) of at most 51 bytes in all (`check_size`).
 *
 * @example
 * ```ts
 * encodeBinary(point, { host: "127.0.0.1", port: 9732 }); // 0000000e "127.0.0.1:9732"
 * parsePoint("[::1]:9732");                                // { host: "::1", port: 9732 }
 * ```
 * @module
 */
import { DecodeError } from "../../encoding/codec.ts";
import { checkSize } from "../../encoding/dynamic.ts";
import { string } from "../../encoding/bytes.ts";
import { conv, def } from "../../encoding/conv.ts";
import type { Codec } from "../../encoding/core.ts";
import { formatPoint, type P2pPoint, parsePoint, POINT_MAX_SIZE } from "./point-text.ts";

export { canonicalHost, formatIpAddress, formatPoint, type P2pPoint, parseIpAddress, parsePoint, POINT_MAX_SIZE } from "./point-text.ts";

/** Codec of a point (`p2p_point.id`): its text as a string, at most 51 bytes in binary. */
export const point: Codec<P2pPoint> = checkSize(
  POINT_MAX_SIZE,
  def(
    "p2p_point.id",
    conv<P2pPoint, string>(
      (p) => formatPoint(p),
      (text) => {
        const p = parsePoint(text);
        if (p === undefined) throw new DecodeError(`Invalid point ${JSON.stringify(text.length > 60 ? text.slice(0, 57) + "..." : text)}`);
        return p;
      },
      string,
    ),
    { description: "Identifier for a peer point" },
  ),
);
