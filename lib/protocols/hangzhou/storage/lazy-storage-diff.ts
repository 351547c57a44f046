/**
 * Applying lazy storage diffs to the context (Octez `Lazy_storage_diff.apply`,
 * `cleanup_temporaries`) for big maps: allocation (`total_bytes` 0, types without annotations),
 * deep copy and deep removal of a map's directory, and key updates through the carbonated
 * `contents` map. Each item returns the bytes it adds to its contract's used space:
 *
 * | item | bytes |
 * |---|---|
 * | alloc | 33 + updates |
 * | copy (to a non-temporary id) | 33 + source's `total_bytes` + updates |
 * | update | updates |
 * | remove (non-temporary) | −(33 + `total_bytes`) |
 * | a key added / changed / removed | 65 + value length / length difference / −(65 + old length) |
 *
 * Items on temporary (negative) ids count 0 in the total. Gas: an added or changed key costs
 * `alloc_mbytes_cost(len) + write_access(len)`, a removal `write_access(0)`.
 * @module
 */
import { decodeMicheline, encodeMicheline } from "../../../encoding/micheline.ts";
import { b58decode, B58 } from "../../../encoding/base58.ts";
import { toHex } from "../../../encoding/hex.ts";
import type { LazyStorageDiffItem } from "../../../encoding/hangzhou/receipts/lazy-storage-diff.ts";
import { failure } from "../../../errors/mod.ts";
import { BIG_MAP_EMPTY_SIZE, BIG_MAP_KEY_SIZE, stripAnnotations } from "./big-map.ts";
import { allocMbytesCost } from "./global-constants.ts";
import { bigMapPath, decodeInt32, decodeZ, encodeInt32, encodeZ } from "./layout.ts";
import type { ProtoContext } from "./proto-context.ts";
import { storageError } from "./errors.ts";

function writeAccessCost(bytes: number): bigint {
  return 200_000n + 4n * BigInt(bytes);
}

function totalBytes(pc: ProtoContext, id: bigint): bigint {
  return decodeZ(pc.get(bigMapPath(id, "total_bytes")));
}

/** Applies one key update of big map `id`; the bytes it adds (negative when freed). */
function applyUpdate(pc: ProtoContext, id: bigint, keyHash: Uint8Array, value: import("../../../encoding/micheline.ts").Micheline | undefined): bigint {
  const hex = toHex(keyHash);
  const lenPath = bigMapPath(id, "contents", hex, "len");
  const dataPath = bigMapPath(id, "contents", hex, "data");
  const prev = pc.find(lenPath);
  const prevSize = prev === undefined ? 0 : decodeInt32(prev);
  if (value === undefined) {
    pc.consumeGas(writeAccessCost(0));
    pc.remove(lenPath);
    pc.remove(dataPath);
    pc.remove(bigMapPath(id, "contents", hex)); // the key's directory
    return prev === undefined ? 0n : -BigInt(prevSize) - BIG_MAP_KEY_SIZE;
  }
  const bytes = encodeMicheline(value);
  pc.consumeGas(allocMbytesCost(bytes.length) + writeAccessCost(bytes.length));
  pc.add(lenPath, encodeInt32(bytes.length));
  pc.add(dataPath, bytes);
  const diff = BigInt(bytes.length - prevSize);
  return prev === undefined ? diff + BIG_MAP_KEY_SIZE : diff;
}

/** Applies one diff item (`apply_diff`); the bytes it adds. */
function applyItem(pc: ProtoContext, item: LazyStorageDiffItem): bigint {
  if (item.kind !== "big_map") throw failure.error({ msg: "Sapling states are not supported by this node yet" });
  const { id, diff } = item;
  const temp = id < 0n;
  if (diff.action === "remove") {
    const size = temp ? 0n : totalBytes(pc, id);
    pc.remove(bigMapPath(id));
    return temp ? 0n : -(size + BIG_MAP_EMPTY_SIZE);
  }
  let size = 0n;
  if (diff.action === "alloc") {
    pc.init(bigMapPath(id, "total_bytes"), encodeZ(0n));
    pc.init(bigMapPath(id, "key_type"), encodeMicheline(stripAnnotations(diff.key_type)));
    pc.init(bigMapPath(id, "value_type"), encodeMicheline(stripAnnotations(diff.value_type)));
    size = BIG_MAP_EMPTY_SIZE;
  } else if (diff.action === "copy") {
    const next = pc.context.copy(bigMapPath(diff.source), bigMapPath(id));
    if (next === undefined) throw storageError.error({ missing_key: bigMapPath(diff.source), function: "copy" });
    pc.context = next;
    if (!temp) size = totalBytes(pc, diff.source) + BIG_MAP_EMPTY_SIZE;
  }
  let updatesSize = 0n;
  for (const u of diff.updates) updatesSize += applyUpdate(pc, id, b58decode(B58.scriptExprHash, u.key_hash), u.value);
  if (updatesSize !== 0n) pc.update(bigMapPath(id, "total_bytes"), encodeZ(totalBytes(pc, id) + updatesSize));
  return size + updatesSize;
}

/**
 * Applies a lazy storage diff in order (`Lazy_storage_diff.apply`); returns the bytes it adds
 * to the owner's used space (temporary ids count 0).
 */
export function applyLazyStorageDiff(pc: ProtoContext, diff: readonly LazyStorageDiffItem[] | undefined): bigint {
  if (diff === undefined) return 0n;
  return pc.atomically(() => {
    let total = 0n;
    for (const item of diff) {
      const added = applyItem(pc, item);
      if (item.id >= 0n) total += added;
    }
    return total;
  });
}

/**
 * Removes the temporary big maps (ids −1 down to the last one given) and resets the temporary
 * counter (`Lazy_storage.cleanup_temporaries`, at the end of each manager operation).
 */
export function cleanupTemporaries(pc: ProtoContext): void {
  for (let id = -1n; id > pc.temporaryBigMapId; id--) pc.remove(bigMapPath(id));
  pc.temporaryBigMapId = -1n;
}

/** A big map's key and value types as stored (annotations stripped), or `undefined`. */
export function bigMapStoredTypes(pc: ProtoContext, id: bigint): { keyType: import("../../../encoding/micheline.ts").Micheline; valueType: import("../../../encoding/micheline.ts").Micheline } | undefined {
  const k = pc.find(bigMapPath(id, "key_type"));
  if (k === undefined) return undefined;
  return { keyType: decodeMicheline(k), valueType: decodeMicheline(pc.get(bigMapPath(id, "value_type"))) };
}
