/**
 * Points (an IP address and a port) and peer ids as text, the way Octez writes and reads them
 * (`src/lib_base/p2p_point.ml`, `p2p_addr.ml`, `point_parser.mll`): `a.b.c.d:port` for IPv4 (and
 * IPv4-mapped IPv6) addresses, `[v6]:port` otherwise (RFC 5952 form). Text only, with no codec,
 * so that the command line (`platform/cli.ts`) reads addresses without loading the encodings;
 * `./point.ts` is the wire codec over these.
 *
 * @example
 * ```ts
 * parsePoint("[::1]:9732");                   // { host: "::1", port: 9732 }
 * formatPoint({ host: "::ffff:127.0.0.1", port: 9732 }); // "127.0.0.1:9732"
 * ```
 * @module
 */
import { B58, b58tryDecode } from "../../encoding/base58.ts";

/** A point: an address (IPv4 dotted quad or IPv6 text, no brackets) and a port. */
export interface P2pPoint {
  readonly host: string;
  readonly port: number;
}

/** The largest binary point: 4 (length) + 8·4 + 7 (IPv6 groups) + 2 (brackets) + 1 + 5 (port). */
export const POINT_MAX_SIZE = 4 + 8 * 4 + 7 + 2 + 1 + 5;

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p)) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    out.push(v);
  }
  return out;
}

/**
 * The 16 bytes of an IP address text: IPv4 `a.b.c.d` (as the IPv4-mapped `::ffff:a.b.c.d`, as
 * Octez keeps every address) or IPv6 (with `::` and an IPv4 tail allowed); `undefined` otherwise.
 */
export function parseIpAddress(text: string): Uint8Array | undefined {
  if (typeof text !== "string" || text.length === 0 || text.length > 45) return undefined;
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4]);
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  const halves = text.split("::");
  if (halves.length > 2 || (halves.length === 2 && halves[0]!.includes("."))) return undefined;
  const groups = (s: string): number[] | undefined => {
    if (s === "") return [];
    const out: number[] = [];
    const parts = s.split(":");
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (i === parts.length - 1 && p.includes(".")) {
        const q = parseIpv4(p);
        if (q === undefined) return undefined;
        out.push((q[0]! << 8) | q[1]!, (q[2]! << 8) | q[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return undefined;
        out.push(parseInt(p, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (head === undefined || tail === undefined) return undefined;
  let all: number[];
  if (halves.length === 2) {
    if (head.length + tail.length > 7) return undefined;
    all = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    if (head.length !== 8) return undefined;
    all = head;
  }
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

/** Whether 16 address bytes are an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`). */
function isV4Mapped(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/**
 * The text of 16 address bytes as Octez prints it: `a.b.c.d` for an IPv4-mapped address, else
 * RFC 5952 (lower-case hexadecimal, the first longest run of two or more zero groups as `::`).
 */
export function formatIpAddress(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array) || bytes.length !== 16) throw new TypeError("formatIpAddress: expected 16 bytes");
  if (isV4Mapped(bytes)) return `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`;
  const g: number[] = [];
  for (let i = 0; i < 8; i++) g.push((bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  let bestAt = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      bestAt = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (xs: number[]) => xs.map((x) => x.toString(16)).join(":");
  if (bestAt < 0) return hex(g);
  return `${hex(g.slice(0, bestAt))}::${hex(g.slice(bestAt + bestLen))}`;
}

/** The canonical text of an address text (as {@link formatIpAddress}), or `undefined`. */
export function canonicalHost(host: string): string | undefined {
  const b = parseIpAddress(host);
  return b === undefined ? undefined : formatIpAddress(b);
}

/** A point's text as Octez prints it: `a.b.c.d:port` or `[v6]:port`. */
export function formatPoint(point: P2pPoint): string {
  if (typeof point !== "object" || point === null) throw new TypeError("a point must be an object {host, port}");
  const { host, port } = point;
  const b = typeof host === "string" ? parseIpAddress(host) : undefined;
  if (b === undefined) throw new TypeError(`not an IP address: ${JSON.stringify(host)}`);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`not a port: ${String(port)}`);
  return isV4Mapped(b) ? `${formatIpAddress(b)}:${port}` : `[${formatIpAddress(b)}]:${port}`;
}

/**
 * A point from its text, as Octez's `P2p_point.Id.of_string` (no default port): `<addr>:<port>`
 * with an IPv4 address or a bracketed IPv6 address, optionally followed by `#<peer id>` (checked,
 * then ignored); the host comes back in canonical form. `undefined` for anything else (host
 * names included: Octez resolves none here).
 */
export function parsePoint(text: string): P2pPoint | undefined {
  if (typeof text !== "string") return undefined;
  let rest = text;
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    const id = rest.slice(hash + 1);
    if (!/^[a-zA-Z0-9]+$/.test(id) || !isPeerId(id)) return undefined;
    rest = rest.slice(0, hash);
  }
  let addr: string;
  let portText: string;
  if (rest.startsWith("[")) {
    const close = rest.indexOf("]");
    if (close < 0) return undefined;
    addr = rest.slice(1, close);
    const after = rest.slice(close + 1);
    if (!after.startsWith(":")) return undefined;
    portText = after.slice(1);
  } else {
    const colon = rest.indexOf(":");
    if (colon < 0) return undefined;
    addr = rest.slice(0, colon);
    portText = rest.slice(colon + 1);
  }
  if (!/^[0-9]{1,9}$/.test(portText)) return undefined;
  const port = Number(portText);
  if (port > 65535) return undefined;
  const host = canonicalHost(addr);
  if (host === undefined) return undefined;
  return { host, port };
}

/** Whether `text` is a well-formed peer id (`id…`: Base58Check of a 16-byte key hash). */
export function isPeerId(text: string): boolean {
  return typeof text === "string" && b58tryDecode(B58.cryptoboxPublicKeyHash, text) !== undefined;
}
