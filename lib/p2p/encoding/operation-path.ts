/**
 * The Merkle path of one operation list in a block's `operations_hash` (Octez
 * `src/lib_crypto/blake2B.ml` `Make_merkle_tree`, for `Operation_list_list_hash`): how a peer
 * proves that the operations of one validation pass belong to a block header. Binary, recursive:
 * `Left` (tag 240) path ‖ right sibling (32 bytes), `Right` (tag 15) left sibling (32 bytes) ‖
 * path, `Op` (tag 0) the leaf itself; at most log2(8) × 33 + 1 = 100 bytes (8 passes at most).
 * @module
 */
import { conv, mu, unit } from "../../encoding/conv.ts";
import type { Codec } from "../../encoding/core.ts";
import { checkSize } from "../../encoding/dynamic.ts";
import { operationListListHash } from "../../encoding/hashes.ts";
import { obj, req } from "../../encoding/object.ts";
import { tagged, union } from "../../encoding/union.ts";
import { OPERATION_MAX_PASS } from "./bounds.ts";

/** A path from a leaf (one operation list) up to the root (`LLo…`). */
export type OperationListPath =
  | { kind: "Left"; path: OperationListPath; right: string }
  | { kind: "Right"; left: string; path: OperationListPath }
  | { kind: "Op" };

const leaf: Codec<null> = conv<null, undefined>(() => undefined, () => null, unit);

/** Codec of the path, unbounded (`path_encoding`; JSON `{path, right}`, `{left, path}`, `{}`). */
export const operationListPathUnbounded: Codec<OperationListPath> = mu<OperationListPath>("path", (self) =>
  union<OperationListPath>([
    tagged(
      240,
      "Left",
      obj(req("path", self), req("right", operationListListHash)),
      (v) => (v.kind === "Left" ? { path: v.path, right: v.right } : undefined),
      (p) => ({ kind: "Left", path: p.path, right: p.right }),
    ),
    tagged(
      15,
      "Right",
      obj(req("left", operationListListHash), req("path", self)),
      (v) => (v.kind === "Right" ? { left: v.left, path: v.path } : undefined),
      (p) => ({ kind: "Right", left: p.left, path: p.path }),
    ),
    tagged(0, "Op", leaf, (v) => (v.kind === "Op" ? null : undefined), () => ({ kind: "Op" })),
  ])
);

/** Octez's `log2`: 0 for 1 or less, else 1 + log2 ⌈x/2⌉. */
function log2(x: number): number {
  return x <= 1 ? 0 : 1 + log2(Math.floor((x + 1) / 2));
}

/** Most bytes of a path for `max` validation passes (`bounded_path_encoding`): log2(max) × 33 + 1. */
export function operationListPathMaxSize(max: number): number {
  return log2(max) * (32 + 1) + 1;
}

/** Codec of the path within Octez's bound (8 passes: 100 bytes). */
export const operationListPath: Codec<OperationListPath> = checkSize(operationListPathMaxSize(OPERATION_MAX_PASS), operationListPathUnbounded);
