/**
 * The two forms of Michelson's atomic values (Octez `parse_*`/`unparse_*` of keys, key hashes,
 * signatures, chain ids, addresses and timestamps): the Readable string form and the Optimized
 * bytes form. Readers return `undefined` on anything Octez rejects.
 * @module
 */
import { B58, b58encode, b58tryDecode, type Base58Kind } from "../../encoding/base58.ts";
import { contractIdBytes, genericSignature, parsePublicKey, parsePublicKeyHash, signatureBytes } from "../../encoding/keys.ts";
import { parseTimestamp } from "../../encoding/time.ts";
import { fromUtf8, utf8 } from "../../encoding/bytes.ts";
import type { Address } from "../value.ts";
import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";

/** Whether the 33 bytes are a compressed point of the curve (secp256k1 tag 1, p256 tag 2), as libsecp256k1 / uecc accept them. */
function validPoint(tag: number, point: Uint8Array): boolean {
  if (tag === 0) return true;
  try {
    (tag === 1 ? secp256k1 : p256).Point.fromBytes(point).assertValidity();
    return true;
  } catch {
    return false;
  }
}

const PKH_KINDS: readonly Base58Kind[] = [B58.ed25519PublicKeyHash, B58.secp256k1PublicKeyHash, B58.p256PublicKeyHash];
const PK_KINDS: readonly Base58Kind[] = [B58.ed25519PublicKey, B58.secp256k1PublicKey, B58.p256PublicKey];

/** Longest entrypoint name. */
export const MAX_ENTRYPOINT_LENGTH = 31;

// -- key hash --

/** A key hash string read from its 21 bytes (curve tag, hash), or undefined. */
export function keyHashOfBytes(b: Uint8Array): string | undefined {
  const k = PKH_KINDS[b[0] ?? 255];
  return k !== undefined && b.length === 21 ? b58encode(k, b.subarray(1)) : undefined;
}
/** The 21 bytes of a key hash string. */
export function keyHashToBytes(s: string): Uint8Array {
  const p = parsePublicKeyHash(s);
  if (p === undefined) throw new TypeError(`Invalid key hash ${JSON.stringify(s)}`);
  return Uint8Array.of(p[0], ...p[1]);
}
/** Whether `s` is a key hash string (tz1/tz2/tz3). */
export function isKeyHash(s: string): boolean {
  return parsePublicKeyHash(s) !== undefined;
}

// -- public key --

/** A public key string read from its bytes (curve tag, 32 or 33 bytes), or undefined. */
export function keyOfBytes(b: Uint8Array): string | undefined {
  const k = PK_KINDS[b[0] ?? 255];
  if (k === undefined || b.length !== 1 + k.size) return undefined;
  if (!validPoint(b[0]!, b.subarray(1))) return undefined;
  return b58encode(k, b.subarray(1));
}
/** The bytes (curve tag, key) of a public key string. */
export function keyToBytes(s: string): Uint8Array {
  const p = parsePublicKey(s);
  if (p === undefined) throw new TypeError(`Invalid public key ${JSON.stringify(s)}`);
  return Uint8Array.of(p[0], ...p[1]);
}
/** Whether `s` is a public key string (edpk/sppk/p2pk); secp256k1 and p256 keys must be points of their curve. */
export function isKey(s: string): boolean {
  const p = parsePublicKey(s);
  return p !== undefined && validPoint(p[0], p[1]);
}

// -- signature --

/** A signature (generic `sig…` form) read from its 64 bytes, or undefined. */
export function signatureOfBytes(b: Uint8Array): string | undefined {
  return b.length === 64 ? genericSignature(b) : undefined;
}
/** The 64 bytes of a signature string. */
export function signatureToBytes(s: string): Uint8Array {
  const b = signatureBytes(s);
  if (b === undefined) throw new TypeError(`Invalid signature ${JSON.stringify(s)}`);
  return b;
}
/** Whether `s` is a signature in one of its Base58Check forms (`Signature.of_b58check_opt`). */
export function isSignature(s: string): boolean {
  for (const k of [B58.ed25519Signature, B58.secp256k1Signature, B58.p256Signature, B58.genericSignature]) {
    if (b58tryDecode(k, s) !== undefined) return true;
  }
  return false;
}

// -- chain id --

/** A chain id string read from its 4 bytes, or undefined. */
export function chainIdOfBytes(b: Uint8Array): string | undefined {
  return b.length === 4 ? b58encode(B58.chainId, b) : undefined;
}
/** The 4 bytes of a chain id string. */
export function chainIdToBytes(s: string): Uint8Array {
  const b = b58tryDecode(B58.chainId, s);
  if (b === undefined) throw new TypeError(`Invalid chain id ${JSON.stringify(s)}`);
  return b;
}

// -- contracts and addresses --

/** A contract string (tz…/KT1…) read from its 22 bytes, or undefined. */
export function contractOfBytes(b: Uint8Array): string | undefined {
  if (b.length !== 22) return undefined;
  if (b[0] === 0) return keyHashOfBytes(b.subarray(1));
  if (b[0] === 1 && b[21] === 0) return b58encode(B58.contractHash, b.subarray(1, 21));
  return undefined;
}
/** The 22 bytes of a contract string. */
export function contractToBytes(s: string): Uint8Array {
  const b = contractIdBytes(s);
  if (b === undefined) throw new TypeError(`Invalid contract ${JSON.stringify(s)}`);
  return b;
}
/** Whether `s` is a contract notation (`Contract.of_b58check`). */
export function isContract(s: string): boolean {
  return contractIdBytes(s) !== undefined;
}
/** Whether `s` is an implicit account (tz1/tz2/tz3). */
export function isImplicit(s: string): boolean {
  return !s.startsWith("KT1");
}

/** Optimized form of an address: contract bytes then the entrypoint (none for the default one). */
export function addressToBytes(a: Address): Uint8Array {
  const c = contractToBytes(a.address);
  const e = a.entrypoint === "default" ? new Uint8Array(0) : utf8(a.entrypoint);
  const out = new Uint8Array(22 + e.length);
  out.set(c, 0);
  out.set(e, 22);
  return out;
}
/** Readable form of an address: `KT1…` or `KT1…%entrypoint`. */
export function addressToString(a: Address): string {
  return a.entrypoint === "" || a.entrypoint === "default" ? a.address : `${a.address}%${a.entrypoint}`;
}
/** The contract and raw entrypoint bytes of an Optimized address, or undefined. */
export function splitAddressBytes(b: Uint8Array): { contract: string; entrypoint: string } | undefined {
  if (b.length < 22) return undefined;
  const contract = contractOfBytes(b.subarray(0, 22));
  if (contract === undefined) return undefined;
  let entrypoint: string;
  try {
    entrypoint = fromUtf8(b.subarray(22));
  } catch {
    return undefined;
  }
  return { contract, entrypoint };
}

// -- timestamps --

const MIN_RFC = -62167219200n; // 0000-01-01T00:00:00Z
const MAX_RFC = 253402300799n; // 9999-12-31T23:59:59Z

/** Seconds of a timestamp string: RFC 3339, else an integer (`Script_timestamp.of_string`); undefined otherwise. */
export function timestampOfString(s: string): bigint | undefined {
  if (/^[+-]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[0-9]+)$/.test(s)) {
    const neg = s[0] === "-";
    const body = s[0] === "-" || s[0] === "+" ? s.slice(1) : s;
    const v = BigInt(body.length > 2 && /^0[xXoObB]/.test(body) ? "0" + body[1]!.toLowerCase() + body.slice(2) : body);
    return neg ? -v : v;
  }
  const t = parseTimestamp(s);
  return t === undefined ? undefined : BigInt(t);
}

/** RFC 3339 form of a timestamp when Octez prints one (years 0 to 9999), else undefined. */
export function timestampToNotation(t: bigint): string | undefined {
  if (t < MIN_RFC || t > MAX_RFC) return undefined;
  const d = new Date(Number(t) * 1000);
  const iso = d.toISOString();
  return iso.slice(0, 19) + "Z";
}

/** Whether `s` contains only Michelson string characters (newline and ASCII 32–126); the position of the first other one, else -1. */
export function firstNonPrintable(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 10 && (c < 32 || c > 126)) return i;
  }
  return -1;
}
