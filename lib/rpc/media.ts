/**
 * Media types of the RPC server (Octez `lib_rpc_http/media_type.ml`): JSON (minified, with a
 * trailing newline; the default) and `application/octet-stream` (data-encoding binary behind a
 * 4-byte big-endian length, v12's `dynamic_size`). Negotiation follows resto: `Accept` ranges
 * sorted by q-value, the first one matching a supported type wins; `Content-Type` must name a
 * supported type. BSON, which Octez also offers, is not supported.
 * @module
 */
import { stringifyJson } from "../encoding/json-text.ts";
import { DecodeError, type Encoding, Reader, Writer } from "../encoding/codec.ts";
import type { TraceItem } from "../errors/registry.ts";

/** The supported media types. */
export type MediaType = "application/json" | "application/octet-stream";

/** JSON. */
export const JSON_MEDIA: MediaType = "application/json";
/** Binary. */
export const BINARY_MEDIA: MediaType = "application/octet-stream";

/** In preference order (Octez: json q=1000, octet-stream q=200). */
const PROVIDED: readonly MediaType[] = [JSON_MEDIA, BINARY_MEDIA];

/** The body of a 406 answer: the supported types, comma-separated. */
export const ACCEPTABLE = PROVIDED.join(", ");

const UTF8 = new TextEncoder();

function matches(range: string, media: MediaType): boolean {
  if (range === "*/*") return true;
  if (range.endsWith("/*")) return media.startsWith(range.slice(0, range.length - 1));
  return range === media;
}

/** The response type for an `Accept` header value, or undefined (406). */
export function negotiateOutput(accept: string): MediaType | undefined {
  if (accept === JSON_MEDIA || accept === "*/*" || accept === "") return JSON_MEDIA;
  const ranges: { range: string; q: number; i: number }[] = [];
  let i = 0;
  for (const part of accept.split(",")) {
    const params = part.split(";");
    const range = params[0]!.trim().toLowerCase();
    if (range === "" || !range.includes("/")) continue;
    let q = 1000;
    for (let k = 1; k < params.length; k++) {
      const p = params[k]!.trim();
      if (p.startsWith("q=") || p.startsWith("Q=")) {
        const v = Number(p.slice(2));
        if (Number.isFinite(v)) q = Math.max(0, Math.min(1000, Math.round(v * 1000)));
      }
    }
    ranges.push({ range, q, i: i++ });
  }
  ranges.sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranges) {
    for (const m of PROVIDED) if (matches(r.range, m)) return m;
  }
  return undefined;
}

/** The request body type for a `Content-Type` header value, or undefined (415). Parameters (`; charset=…`) are ignored. */
export function negotiateInput(contentType: string): MediaType | undefined {
  const semi = contentType.indexOf(";");
  const t = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  if (t === JSON_MEDIA) return JSON_MEDIA;
  if (t === BINARY_MEDIA) return BINARY_MEDIA;
  return undefined;
}

/** Minified JSON text of a value, with a trailing newline. */
export function jsonText<T>(enc: Encoding<T>, value: T): string {
  return stringifyJson(enc.toJson(value)) + "\n";
}

/** Binary form behind a 4-byte big-endian length (v12's `dynamic_size` around every binary RPC answer). */
export function binaryBody<T>(enc: Encoding<T>, value: T): Uint8Array {
  const w = new Writer();
  const at = w.reserve(4);
  enc.write(w, value);
  w.patchU32(at, w.length - 4);
  return w.bytes();
}

/** Serialises a value in a media type. */
export function encodeBody<T>(media: MediaType, enc: Encoding<T>, value: T): string | Uint8Array {
  return media === JSON_MEDIA ? jsonText(enc, value) : binaryBody(enc, value);
}

/** Raised when a request body does not decode; the message is the reason shown after `Failed to parse the request body: `. */
export class BodyError extends Error {
  override name = "BodyError";
}

/** Decodes a request body from its media type; throws a BodyError. */
export async function decodeBody<T>(media: MediaType, enc: Encoding<T>, request: Request, limit = DEFAULT_MAX_BODY_SIZE): Promise<T> {
  const raw = await readBody(request, limit);
  if (media === JSON_MEDIA) {
    let text: string;
    try {
      text = STRICT_UTF8.decode(raw);
    } catch {
      throw new BodyError("invalid UTF-8");
    }
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      throw new BodyError("invalid JSON text");
    }
    try {
      return enc.fromJson(json);
    } catch (e) {
      // a value nested deeper than a reader's recursion goes: the engine's stack overflow, by name
      if (e instanceof RangeError && /call stack/i.test(e.message)) throw new BodyError("JSON value nested too deeply");
      throw new BodyError(e instanceof Error ? e.message : String(e));
    }
  }
  const bytes = raw;
  try {
    const r = new Reader(bytes);
    const len = r.take(4);
    const n = ((len[0]! << 24) | (len[1]! << 16) | (len[2]! << 8) | len[3]!) >>> 0;
    const v = r.within(n, () => enc.read(r));
    if (r.remaining !== 0) throw new DecodeError("Extra bytes");
    return v;
  } catch (e) {
    const reason = e instanceof RangeError && /call stack/i.test(e.message) ? "value nested too deeply" : e instanceof Error ? e.message : String(e);
    throw new BodyError(`Failed to parse binary data: ${reason}.`);
  }
}

/** The largest request body read by default: 8 MiB (a protocol of 2 MiB, Octez's bound, fits in JSON). */
export const DEFAULT_MAX_BODY_SIZE = 8 * 1024 * 1024;

/** A request body over the limit: answered 413 at once, and not read further. */
export class BodyTooLarge extends Error {
  override name = "BodyTooLarge";
  readonly limit: number;
  constructor(limit: number) {
    super(`Request body too large: at most ${limit} bytes`);
    this.limit = limit;
  }
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The request's body, at most `limit` bytes: refused from its `Content-Length` before reading
 * anything, else while reading (the rest is not read).
 */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw new BodyTooLarge(limit);
  const body = request.body;
  if (body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** The body of a failed call: the JSON list of errors, or in binary the length-prefixed JSON text behind the media's own length. */
export function errorBody(media: MediaType, trace: readonly TraceItem[]): string | Uint8Array {
  const text = stringifyJson(trace.map((t) => t.toJson()));
  if (media === JSON_MEDIA) return text + "\n";
  const bytes = UTF8.encode(text);
  const out = new Uint8Array(bytes.length + 8);
  const view = new DataView(out.buffer);
  view.setUint32(0, bytes.length + 4);
  view.setUint32(4, bytes.length);
  out.set(bytes, 8);
  return out;
}
