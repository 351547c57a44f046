/**
 * Hand-written encodings and helpers for the RPC tests (independent of lib/encoding's
 * combinators, which are written in parallel).
 */
import { B58, b58decode, b58encode } from "../../lib/encoding/base58.ts";
import { DecodeError, type Encoding, type Json } from "../../lib/encoding/codec.ts";

const ZERO_WIDTH = {
  toplevel: { fields: [{ layout: { kind: "Zero_width" }, kind: "anon", data_kind: { size: 0, kind: "Float" } }] },
  fields: [],
};

/** data-encoding's `empty`: `{}` in JSON, nothing in binary. */
export const emptyEnc: Encoding<{}> = {
  size: { kind: "fixed", size: 0 },
  toJson: () => ({}),
  fromJson(j) {
    if (j === null || typeof j !== "object" || Array.isArray(j) || Object.keys(j).length > 0) throw new DecodeError("expected {}");
    return {};
  },
  write() {},
  read: () => ({}),
  jsonSchema: () => ({ type: "object", additionalProperties: false }),
  binarySchema: () => ZERO_WIDTH,
};

/** data-encoding's `unit` (as an output): any JSON, nothing in binary. */
export const unitEnc: Encoding<void> = {
  size: { kind: "fixed", size: 0 },
  toJson: () => ({}),
  fromJson: () => undefined,
  write() {},
  read: () => undefined,
  jsonSchema: () => ({}),
  binarySchema: () => ZERO_WIDTH,
};

/** A block hash: Base58Check string in JSON, 32 bytes in binary. */
export const blockHashEnc: Encoding<string> = {
  title: "block_hash",
  size: { kind: "fixed", size: 32 },
  toJson: (v) => v,
  fromJson(j) {
    if (typeof j !== "string") throw new DecodeError("expected a string");
    b58decode(B58.blockHash, j);
    return j;
  },
  write: (w, v) => w.raw(b58decode(B58.blockHash, v)),
  read: (r) => b58encode(B58.blockHash, r.take(32)),
  jsonSchema: () => ({ title: "A block identifier (Base58Check-encoded)", type: "string" }),
  binarySchema: () => ({
    toplevel: { fields: [{ name: "block_hash", layout: { kind: "Bytes" }, data_kind: { size: 32, kind: "Float" }, kind: "named" }] },
    fields: [],
  }),
};

/** A UTF-8 string: JSON string, 4-byte length then bytes in binary. */
export const stringEnc: Encoding<string> = {
  size: { kind: "dynamic" },
  toJson: (v) => v,
  fromJson(j) {
    if (typeof j !== "string") throw new DecodeError("expected a string");
    return j;
  },
  write(w, v) {
    const b = new TextEncoder().encode(v);
    const at = w.reserve(4);
    w.patchU32(at, b.length);
    w.raw(b);
  },
  read(r) {
    const l = r.take(4);
    const n = ((l[0]! << 24) | (l[1]! << 16) | (l[2]! << 8) | l[3]!) >>> 0;
    return new TextDecoder().decode(r.take(n));
  },
  jsonSchema: () => ({ type: "string" }),
  binarySchema: () => ({ toplevel: { fields: [] }, fields: [] }),
};

/** `{ "pkh": string }`, an error's fields. */
export const pkhFields: Encoding<{ pkh: string }> = {
  size: { kind: "dynamic" },
  toJson: (v) => ({ pkh: v.pkh }),
  fromJson(j) {
    if (j === null || typeof j !== "object" || Array.isArray(j) || typeof j["pkh"] !== "string") throw new DecodeError("expected { pkh }");
    return { pkh: j["pkh"] };
  },
  write() {
    throw new TypeError("JSON only");
  },
  read() {
    throw new DecodeError("JSON only");
  },
  jsonSchema: () => ({
    type: "object",
    properties: { pkh: { $ref: "#/definitions/Signature.Public_key_hash" } },
    required: ["pkh"],
    additionalProperties: false,
    definitions: { "Signature.Public_key_hash": { title: "A Ed25519, Secp256k1, or P256 public key hash (Base58Check-encoded)", type: "string" } },
  }),
  binarySchema: () => ({ toplevel: { fields: [] }, fields: [] }),
};

/** `{ "a": int, "b"?: string }`: an object input with a mandatory number. */
export const pairEnc: Encoding<{ a: number; b?: string }> = {
  size: { kind: "dynamic" },
  toJson: (v): Json => (v.b === undefined ? { a: v.a } : { a: v.a, b: v.b }),
  fromJson(j) {
    if (j === null || typeof j !== "object" || Array.isArray(j)) throw new DecodeError("Expected an object");
    if (typeof j["a"] !== "number") throw new DecodeError("Missing object field a");
    const b = j["b"];
    if (b !== undefined && typeof b !== "string") throw new DecodeError("Expected a string", ["b"]);
    return b === undefined ? { a: j["a"] } : { a: j["a"], b };
  },
  write(w, v) {
    w.u8(v.a);
  },
  read: (r) => ({ a: r.u8() }),
  jsonSchema: () => ({ type: "object", properties: { a: { type: "integer" }, b: { type: "string" } }, required: ["a"], additionalProperties: false }),
  binarySchema: () => ({ toplevel: { fields: [] }, fields: [] }),
};

/** Sends a request through a handler. */
export function call(
  handler: (r: Request) => Promise<Response>,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string | Uint8Array; signal?: AbortSignal } = {},
): Promise<Response> {
  const req: RequestInit = { method };
  if (init.headers !== undefined) req.headers = init.headers;
  // A string body would get `Content-Type: text/plain` from the Request constructor: send bytes,
  // so that a request without a Content-Type header is what the server sees.
  if (init.body !== undefined) req.body = (typeof init.body === "string" ? new TextEncoder().encode(init.body) : init.body) as BodyInit;
  if (init.signal !== undefined) req.signal = init.signal;
  return handler(new Request("http://localhost:8732" + path, req));
}

/** Hex of bytes. */
export function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** Bytes of hex. */
export function unhex(h: string): Uint8Array {
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The real values the tests use. */
export const GENESIS_HASH = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";
/** Bytes of the genesis hash, from the tezt capture `binary_rpc.out` (predecessor field of the genesis shell header). */
export const GENESIS_HASH_HEX = "8fcf233671b6a04fcf679d2a381c2544ea6c1ea29ba6157776ed8424c7ccd00b";
/** Sandbox chain id. */
export const SANDBOX_CHAIN_ID = "NetXdQprcVkpaWU";
/** Hangzhou. */
export const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";

/** A JSON value read from a response. */
export async function jsonOf(res: Response): Promise<Json> {
  return (await res.json()) as Json;
}
