/**
 * Protocol timestamps: int64 seconds since the epoch in binary; RFC 3339 (`"2018-06-30T16:07:32Z"`)
 * in JSON, and decimal seconds accepted on input as Octez does. Values are numbers of seconds.
 * @module
 */
import { DecodeError, type Json } from "./codec.ts";
import { jsonPreview, jsonTypeError, makeCodec, valueTypeError, type Codec } from "./core.ts";
import { unistringSchema } from "./bytes.ts";
import { readInt64, writeInt64 } from "./integers.ts";

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const MIN_RFC = -62167219200; // 0000-01-01T00:00:00Z
const MAX_RFC = 253402300799; // 9999-12-31T23:59:59Z

/**
 * RFC 3339 form of a timestamp in seconds (second precision, `Z`); decimal seconds outside years 0..9999.
 * @example toRfc3339(1587399600) // "2020-04-20T16:20:00Z"
 */
export function toRfc3339(seconds: number): string {
  if (!Number.isSafeInteger(seconds)) throw valueTypeError("an integer number of seconds", seconds);
  if (seconds < MIN_RFC || seconds > MAX_RFC) return String(seconds);
  const d = new Date(seconds * 1000);
  const y = d.getUTCFullYear();
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ for years 0..9999
  return (y < 0 ? iso : iso.slice(0, 19)) + "Z";
}

/** Seconds of an RFC 3339 timestamp or of a decimal string of seconds; undefined if neither. */
export function parseTimestamp(text: string): number | undefined {
  if (/^-?[0-9]+$/.test(text)) {
    const v = Number(text);
    return Number.isSafeInteger(v) ? v : undefined;
  }
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, , tz] = m;
  const month = Number(mo), day = Number(d), hour = Number(h), min = Number(mi), sec = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60) return undefined;
  const dt = new Date(0);
  dt.setUTCFullYear(Number(y), month - 1, day);
  dt.setUTCHours(hour, min, sec === 60 ? 59 : sec, 0);
  if (dt.getUTCDate() !== day || dt.getUTCMonth() !== month - 1) return undefined; // 31 February and friends
  let t = dt.getTime() / 1000 + (sec === 60 ? 1 : 0);
  if (tz !== "Z" && tz !== "z") {
    const sign = tz![0] === "-" ? -1 : 1;
    t -= sign * (Number(tz!.slice(1, 3)) * 3600 + Number(tz!.slice(4, 6)) * 60);
  }
  return t;
}

/** Protocol timestamp (`timestamp.protocol`): int64 seconds; JSON RFC 3339. */
export const timestamp: Codec<number> = makeCodec<number>({
  size: { kind: "fixed", size: 8 },
  desc: { t: "leaf", layout: { size: "Int64", kind: "Int" } },
  toJson: (v) => toRfc3339(v),
  fromJson(j: Json) {
    if (typeof j === "number" && Number.isSafeInteger(j)) return j;
    if (typeof j !== "string") throw jsonTypeError("an RFC 3339 timestamp", j);
    const t = parseTimestamp(j);
    if (t === undefined) throw new DecodeError(`Invalid timestamp ${jsonPreview(j, 200)}`);
    return t;
  },
  write(out, v) {
    if (!Number.isSafeInteger(v)) throw valueTypeError("an integer number of seconds", v);
    writeInt64(out, BigInt(v));
  },
  read(r) {
    const v = readInt64(r);
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new DecodeError(`Timestamp ${v} is out of the supported range`);
    }
    return Number(v);
  },
  schema(ctx) {
    if (!ctx.defs.has("timestamp.protocol")) {
      const inner = unistringSchema(ctx);
      ctx.defs.set("timestamp.protocol", {
        description: "A timestamp as seen by the protocol: second-level precision, epoch based.",
        ...inner,
      });
    }
    return { $ref: "#/definitions/timestamp.protocol" };
  },
});
