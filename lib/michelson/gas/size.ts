/**
 * Sizes the Hangzhou cost models read from values: bytes of an integer (Octez
 * `Michelson_v1_gas.Cost_of.z_bytes` / `int_bytes`), lengths of strings and bytes, fixed sizes of
 * hashes, and the size of a Micheline term (`Script_repr.Micheline_size`, `micheline_nodes`).
 * @module
 */
import type { Micheline } from "../../encoding/micheline.ts";
import { sAdd } from "./arith.ts";

/** `Z.numbits`: bits of `|z|` (0 for 0). */
export function zNumbits(z: bigint): number {
  if (typeof z !== "bigint") throw new TypeError("zNumbits expects a bigint");
  if (z < 0n) z = -z;
  if (z === 0n) return 0;
  if (z < 0x100000000n) return 32 - Math.clz32(Number(z));
  return z.toString(16).length * 4 - (Math.clz32(parseInt(z.toString(16)[0], 16)) - 28);
}

/** `Cost_of.z_bytes`: bytes needed for the magnitude of `z` (`(numbits + 7) / 8`; 0 for 0). */
export function zBytes(z: bigint): number {
  return (zNumbits(z) + 7) >> 3;
}

/** `Cost_of.int_bytes`: {@link zBytes} of a Michelson `int`/`nat`/`timestamp` value. */
export const intBytes: (z: bigint) => number = zBytes;

/**
 * `Script_string.length`: length of a Michelson string. Michelson strings are printable ASCII,
 * so this is the number of UTF-16 units (= bytes); other characters count their UTF-8 bytes.
 */
export function stringLength(s: string): number {
  if (typeof s !== "string") throw new TypeError("stringLength expects a string");
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c < 0xdc00) n += 1; // surrogate pair: 4 bytes for 2 units
    else if (c >= 0xdc00 && c < 0xe000) n += 1;
    else n += 2;
  }
  return n;
}

/** `Bytes.length`. */
export function bytesLength(b: Uint8Array): number {
  if (!(b instanceof Uint8Array)) throw new TypeError("bytesLength expects a Uint8Array");
  return b.length;
}

/**
 * `Signature.Public_key_hash.size` as Hangzhou's cost models see it: 65. (Octez defines it as
 * 1 + `Ed25519.size`, and that `size` is the 64-byte signature size, not the 20-byte hash; the
 * recorded traces confirm COMPARE on key hashes costs 36, which needs 65.)
 */
export const PUBLIC_KEY_HASH_SIZE = 65;

/** `Script_expr_hash.size`: bytes of a script expression hash (big map key hashes). */
export const SCRIPT_EXPR_HASH_SIZE = 32;

/** `Cost_of.Interpreter.entrypoint_size`: the largest entrypoint name, in bytes. */
export const ENTRYPOINT_SIZE = 31;

/** Size of a Micheline term as the (de)serialization costs see it (`Script_repr.Micheline_size`). */
export interface MichelineSize {
  /** Nodes: every int, string, bytes, prim, seq and annotation. */
  readonly nodes: number;
  /** Bytes of strings, bytes literals and annotations. */
  readonly stringBytes: number;
  /** Bytes of the integers' magnitudes ({@link zBytes}). */
  readonly zBytes: number;
}

/** `Script_repr.Micheline_size.of_node`: annotations count as string nodes. */
export function michelineSize(node: Micheline): MichelineSize {
  let nodes = 0;
  let stringBytes = 0;
  let zb = 0;
  const todo: Micheline[] = [node];
  while (todo.length > 0) {
    const n = todo.pop() as Micheline;
    nodes++;
    if (Array.isArray(n)) {
      for (const c of n as readonly Micheline[]) todo.push(c);
    } else if ("int" in n) {
      zb = sAdd(zb, zBytes(BigInt(n.int)));
    } else if ("string" in n) {
      stringBytes = sAdd(stringBytes, stringLength(n.string));
    } else if ("bytes" in n) {
      stringBytes = sAdd(stringBytes, n.bytes.length >> 1);
    } else if ("prim" in n) {
      for (const a of n.annots ?? []) {
        nodes++;
        stringBytes = sAdd(stringBytes, stringLength(a));
      }
      for (const c of n.args ?? []) todo.push(c);
    } else {
      throw new TypeError("michelineSize: not a Micheline node");
    }
  }
  return { nodes, stringBytes, zBytes: zb };
}

/** `Script_repr.micheline_nodes`: nodes of a term (annotations not counted). */
export function michelineNodes(node: Micheline): number {
  let nodes = 0;
  const todo: Micheline[] = [node];
  while (todo.length > 0) {
    const n = todo.pop() as Micheline;
    nodes++;
    if (Array.isArray(n)) for (const c of n as readonly Micheline[]) todo.push(c);
    else if (typeof n === "object" && n !== null && "prim" in n) for (const c of n.args ?? []) todo.push(c);
  }
  return nodes;
}
