/**
 * Global constants in the context (Octez `Storage.Global_constants.Map`, a carbonated indexed
 * map): under `global_constant/<expr hash hex>/`, `data` (the expression's Micheline binary, no
 * length prefix) and `len` (its byte length, int31). The key is the script expression hash of
 * that binary (BLAKE2b-256, no 0x05 prefix).
 *
 * Reads are charged as Octez's carbonated maps do: a membership test of path length 2, then a
 * read of the stored length.
 * @module
 */
import { decodeMicheline, encodeMicheline, type Micheline } from "../../../encoding/micheline.ts";
import { toHex } from "../../../encoding/hex.ts";
import { readAccessCost } from "../apply/gas.ts";
import { decodeInt32, encodeInt32 } from "./layout.ts";
import type { ProtoContext } from "./proto-context.ts";

/** `global_constant/<hex>/<leaf>`. */
export function globalConstantPath(hash: Uint8Array, leaf: "data" | "len"): string[] {
  if (!(hash instanceof Uint8Array) || hash.length !== 32) throw new RangeError("a global constant hash is 32 bytes");
  return ["global_constant", toHex(hash), leaf];
}

/**
 * The constant registered under `hash` (`Storage.Global_constants.Map.find`), charging the
 * carbonated read gas to the operation when `charge` is set (the default).
 */
export function findGlobalConstant(pc: ProtoContext, hash: Uint8Array, charge = true): Micheline | undefined {
  if (charge) pc.consumeGas(readAccessCost(2, 0));
  const data = pc.find(globalConstantPath(hash, "data"));
  if (data === undefined) return undefined;
  if (charge) pc.consumeGas(readAccessCost(2, decodeInt32(pc.get(globalConstantPath(hash, "len")))));
  return decodeMicheline(data);
}

/** Whether a constant is registered under `hash` (no gas). */
export function hasGlobalConstant(pc: ProtoContext, hash: Uint8Array): boolean {
  return pc.mem(globalConstantPath(hash, "data"));
}

/**
 * Stores a new constant (`Map.init`, charged: allocation `alloc_mbytes_cost` and
 * `write_access`); returns the bytes written. The caller checks it is not there yet.
 */
export function initGlobalConstant(pc: ProtoContext, hash: Uint8Array, value: Micheline): number {
  const bytes = encodeMicheline(value);
  pc.consumeGas(allocMbytesCost(bytes.length) + 200_000n + 4n * BigInt(bytes.length));
  pc.init(globalConstantPath(hash, "len"), encodeInt32(bytes.length));
  pc.init(globalConstantPath(hash, "data"), bytes);
  return bytes.length;
}

/** `Gas_limit_repr.alloc_mbytes_cost n`: `alloc_cost 12 + alloc_bytes_cost n`, milligas. */
export function allocMbytesCost(n: number): bigint {
  // alloc_cost k = 2000 * (k + 1); alloc_bytes_cost n = alloc_cost ((n + 7) / 8)
  return 2000n * 13n + 2000n * (BigInt(Math.floor((n + 7) / 8)) + 1n);
}
