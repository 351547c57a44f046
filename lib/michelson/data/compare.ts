/**
 * Michelson's `COMPARE` on comparable values (Octez `Script_comparable.compare_comparable`):
 * numbers by value, strings and bytes lexicographically, booleans `False < True`, keys and key
 * hashes by curve then bytes, signatures and chain ids by bytes, addresses by contract (implicit
 * before originated) then entrypoint, pairs lexicographically, `Left < Right`, `None < Some`.
 * @module
 */
import type { Ty } from "../ty.ts";
import type { Address, OrValue, Some, Value } from "../value.ts";
import { contractIdBytes, parsePublicKey, parsePublicKeyHash, signatureBytes } from "../../encoding/keys.ts";
import { B58, b58tryDecode } from "../../encoding/base58.ts";

/** Lexicographic comparison of byte strings (a proper prefix comes first). */
export function compareBytes(a: Uint8Array, b: Uint8Array): -1 | 0 | 1 {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!, y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

const CACHE_LIMIT = 4096;
function cached(cache: Map<string, Uint8Array>, s: string, f: (s: string) => Uint8Array | undefined): Uint8Array {
  let b = cache.get(s);
  if (b === undefined) {
    b = f(s);
    if (b === undefined) throw new TypeError(`Not a valid value for comparison: ${JSON.stringify(s)}`);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(s, b);
  }
  return b;
}
const keyCache = new Map<string, Uint8Array>();
const keyHashCache = new Map<string, Uint8Array>();
const sigCache = new Map<string, Uint8Array>();
const contractCache = new Map<string, Uint8Array>();
const chainCache = new Map<string, Uint8Array>();

function tagged(p: [number, Uint8Array] | undefined): Uint8Array | undefined {
  if (p === undefined) return undefined;
  const out = new Uint8Array(1 + p[1].length);
  out[0] = p[0];
  out.set(p[1], 1);
  return out;
}

/** Binary form (curve tag, bytes) of a public key string, as compared. */
export const keyBytes = (s: string): Uint8Array => cached(keyCache, s, (x) => tagged(parsePublicKey(x)));
/** Binary form (curve tag, 20 bytes) of a key hash string. */
export const keyHashBytes = (s: string): Uint8Array => cached(keyHashCache, s, (x) => tagged(parsePublicKeyHash(x)));
/** The 64 bytes of a signature string. */
export const sigBytes = (s: string): Uint8Array => cached(sigCache, s, signatureBytes);
/** The 22-byte contract id of an address string. */
export const contractBytes = (s: string): Uint8Array => cached(contractCache, s, contractIdBytes);
/** The 4 bytes of a chain id string. */
export const chainIdBytes = (s: string): Uint8Array => cached(chainCache, s, (x) => b58tryDecode(B58.chainId, x));

function cmp<T extends bigint | string | boolean>(a: T, b: T): -1 | 0 | 1 {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `a` compared with `b`, both values of the comparable type `t`. */
export function compareValues(t: Ty, a: Value, b: Value): -1 | 0 | 1 {
  // Iterative over pairs (right combs can be long), recursive elsewhere (bounded by type depth).
  for (;;) {
    switch (t.prim) {
      case "unit":
        return 0;
      case "int":
      case "nat":
      case "mutez":
      case "timestamp":
        return cmp(a as bigint, b as bigint);
      case "string":
        return cmp(a as string, b as string);
      case "bool":
        return cmp(a as boolean, b as boolean);
      case "bytes":
        return compareBytes(a as Uint8Array, b as Uint8Array);
      case "key_hash":
        return a === b ? 0 : compareBytes(keyHashBytes(a as string), keyHashBytes(b as string));
      case "key":
        return a === b ? 0 : compareBytes(keyBytes(a as string), keyBytes(b as string));
      case "signature":
        return a === b ? 0 : compareBytes(sigBytes(a as string), sigBytes(b as string));
      case "chain_id":
        return a === b ? 0 : compareBytes(chainIdBytes(a as string), chainIdBytes(b as string));
      case "address": {
        const x = a as Address, y = b as Address;
        const c = x.address === y.address ? 0 : compareBytes(contractBytes(x.address), contractBytes(y.address));
        if (c !== 0) return c;
        return cmp(x.entrypoint === "" ? "default" : x.entrypoint, y.entrypoint === "" ? "default" : y.entrypoint);
      }
      case "pair": {
        const x = a as readonly [Value, Value], y = b as readonly [Value, Value];
        const c = compareValues(t.args[0]!, x[0], y[0]);
        if (c !== 0) return c;
        t = t.args[1]!;
        a = x[1];
        b = y[1];
        continue;
      }
      case "or": {
        const x = a as OrValue, y = b as OrValue;
        if (x.or !== y.or) return x.or === "Left" ? -1 : 1;
        t = t.args[x.or === "Left" ? 0 : 1]!;
        a = x.value;
        b = y.value;
        continue;
      }
      case "option": {
        if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
        t = t.args[0]!;
        a = (a as Some).some;
        b = (b as Some).some;
        continue;
      }
      default:
        throw new TypeError(`compareValues: type ${t.prim} is not comparable`);
    }
  }
}
