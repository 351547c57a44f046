/**
 * The mempool as peers gossip it (Octez `src/lib_base/mempool.ml`): the operations the sender
 * found valid, in its order, then the pending ones as a set. Binary: `known_valid` (4-byte length
 * ‖ 32-byte operation hashes) ‖ `pending` (4-byte length ‖ (4-byte length ‖ hashes), a set: in
 * byte order, without repeats); at most 8 + 4000 × 32 bytes in all.
 * @module
 */
import { DecodeError } from "../../encoding/codec.ts";
import { B58, b58tryDecode } from "../../encoding/base58.ts";
import { conv, def } from "../../encoding/conv.ts";
import type { Codec } from "../../encoding/core.ts";
import { checkSize, dynamicSize } from "../../encoding/dynamic.ts";
import { operationHash } from "../../encoding/hashes.ts";
import { list } from "../../encoding/list.ts";
import { obj, req } from "../../encoding/object.ts";
import { MEMPOOL_MAX_OPERATIONS } from "./bounds.ts";

/** A gossiped mempool. */
export interface Mempool {
  /** Operation hashes (`o…`) the sender applied, in its order. */
  known_valid: string[];
  /** Operation hashes (`o…`) the sender has not classified yet (a set). */
  pending: string[];
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Hashes in byte order without repeats (`Operation_hash.Set.elements`). */
export function operationHashSet(hashes: readonly string[]): string[] {
  const keyed = hashes.map((h) => {
    const b = b58tryDecode(B58.operationHash, h);
    if (b === undefined) throw new TypeError(`Invalid operation_hash ${JSON.stringify(h)}`);
    return { h, b };
  });
  keyed.sort((x, y) => compareBytes(x.b, y.b));
  const out: string[] = [];
  for (let i = 0; i < keyed.length; i++) if (i === 0 || compareBytes(keyed[i - 1]!.b, keyed[i]!.b) !== 0) out.push(keyed[i]!.h);
  return out;
}

/** `Operation_hash.Set.encoding`: a list written in byte order; read back as a set. */
const operationHashSetCodec: Codec<string[]> = conv<string[], string[]>(
  (v) => {
    if (!Array.isArray(v)) throw new TypeError("pending must be an array of operation hashes");
    return operationHashSet(v);
  },
  (v) => {
    try {
      return operationHashSet(v);
    } catch (e) {
      throw new DecodeError((e as Error).message);
    }
  },
  list(operationHash),
);

/** Codec of the mempool (`mempool`), unbounded. */
export const mempoolUnbounded: Codec<Mempool> = def(
  "mempool",
  obj(req("known_valid", list(operationHash)), req("pending", dynamicSize(operationHashSetCodec))),
  { description: "A batch of operation. This format is used to gossip operations between peers." },
);

/** Codec of the mempool within Octez's bound: at most 8 + 4000 × 32 bytes (`Mempool.bounded_encoding`). */
export const mempool: Codec<Mempool> = checkSize(8 + MEMPOOL_MAX_OPERATIONS * 32, mempoolUnbounded);

/** The empty mempool. */
export function emptyMempool(): Mempool {
  return { known_valid: [], pending: [] };
}
