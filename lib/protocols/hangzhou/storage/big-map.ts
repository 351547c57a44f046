/**
 * Big maps in the context (Octez `Storage.Big_map`, `Lazy_storage_diff.Big_map`): `big_maps/next`
 * (next id, Z), and under `big_maps/index/<id>/`: `key_type`, `value_type` (Micheline binary,
 * annotations stripped), `total_bytes` (Z), `contents/<key hash hex>/data` (the value's Micheline
 * binary) with `contents/<key hash hex>/len` (its length, int31).
 *
 * Sizes follow Octez's storage accounting: an allocated big map counts 33 bytes, each key 65
 * bytes plus its value's binary length.
 * @module
 */
import { encodeMicheline, type Micheline } from "../../../encoding/micheline.ts";
import { toHex } from "../../../encoding/hex.ts";
import { scriptExprHash } from "../../../crypto/hashes.ts";
import { BIG_MAPS_NEXT_PATH, bigMapPath, decodeZ, encodeInt32, encodeZ } from "./layout.ts";
import type { ProtoContext } from "./proto-context.ts";

/** Bytes a big map counts for itself (`bytes_size_for_empty`). */
export const BIG_MAP_EMPTY_SIZE = 33n;
/** Bytes a big map counts per key besides its value (`bytes_size_for_big_map_key`). */
export const BIG_MAP_KEY_SIZE = 65n;

/** A type or value without its annotations (`Script_repr.strip_annotations`). */
export function stripAnnotations(m: Micheline): Micheline {
  if (Array.isArray(m)) return m.map(stripAnnotations);
  const p = m as { prim?: string; args?: readonly Micheline[] };
  if (p.prim === undefined) return m;
  return p.args === undefined || p.args.length === 0 ? { prim: p.prim } : { prim: p.prim, args: p.args.map(stripAnnotations) };
}

/** The script expression hash of a packed key: BLAKE2b-256(0x05 ‖ Micheline binary of the optimized key). */
export function packedKeyHash(key: Micheline): Uint8Array {
  const bin = encodeMicheline(key);
  const packed = new Uint8Array(1 + bin.length);
  packed[0] = 0x05;
  packed.set(bin, 1);
  return scriptExprHash(packed);
}

/** Takes the next big map id (`Big_map.Next.incr`). */
export function freshBigMapId(pc: ProtoContext): bigint {
  const id = decodeZ(pc.get(BIG_MAPS_NEXT_PATH));
  pc.update(BIG_MAPS_NEXT_PATH, encodeZ(id + 1n));
  return id;
}

/** One entry written into a new big map: the optimized key and value. */
export interface BigMapEntry {
  key: Micheline;
  value: Micheline;
}

/**
 * Allocates big map `id` with its types and entries (a lazy storage diff `Alloc` with updates
 * applied by `Lazy_storage_diff.apply`). Returns the bytes it adds to its contract's used space:
 * 33 + Σ (65 + value length).
 */
export function allocBigMap(pc: ProtoContext, id: bigint, keyType: Micheline, valueType: Micheline, entries: readonly BigMapEntry[]): bigint {
  return pc.atomically(() => {
    pc.init(bigMapPath(id, "total_bytes"), encodeZ(0n));
    pc.init(bigMapPath(id, "key_type"), encodeMicheline(stripAnnotations(keyType)));
    pc.init(bigMapPath(id, "value_type"), encodeMicheline(stripAnnotations(valueType)));
    let added = 0n;
    for (const e of entries) {
      const hash = toHex(packedKeyHash(e.key));
      const value = encodeMicheline(e.value);
      const existed = pc.mem(bigMapPath(id, "contents", hash, "data"));
      if (existed) throw new RangeError(`allocBigMap: duplicate key ${hash}`);
      pc.add(bigMapPath(id, "contents", hash, "len"), encodeInt32(value.length));
      pc.add(bigMapPath(id, "contents", hash, "data"), value);
      added += BigInt(value.length) + BIG_MAP_KEY_SIZE;
    }
    if (added !== 0n) pc.update(bigMapPath(id, "total_bytes"), encodeZ(added));
    return BIG_MAP_EMPTY_SIZE + added;
  });
}

/** The value bound to a key hash in a big map, as Micheline binary, or `undefined`. */
export function findBigMapValueBytes(pc: ProtoContext, id: bigint, keyHash: Uint8Array): Uint8Array | undefined {
  return pc.find(bigMapPath(id, "contents", toHex(keyHash), "data"));
}

/** A big map's `total_bytes`. */
export function bigMapTotalBytes(pc: ProtoContext, id: bigint): bigint {
  return decodeZ(pc.get(bigMapPath(id, "total_bytes")));
}
