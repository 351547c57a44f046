/**
 * Lazy storage diffs of Hangzhou receipts (`lazy_storage_diff.ml`, `lazy_storage_kind.ml`): what a
 * contract call or origination did to big maps and Sapling states, and the conversion to the
 * legacy `big_map_diff` form (`contract_storage.ml`'s `Legacy_big_map_diff`) that receipts still
 * carry beside it.
 * @module
 */
import type { Codec } from "../../core.ts";
import { bytes, fixedBytes } from "../../bytes.ts";
import { constant, def } from "../../conv.ts";
import { uint16 } from "../../integers.ts";
import { list } from "../../list.ts";
import type { Micheline } from "../../micheline.ts";
import { mergeObjs, obj, opt, req } from "../../object.ts";
import { tup } from "../../tuple.ts";
import { tagged, union } from "../../union.ts";
import { z } from "../../zarith.ts";
import { scriptExprHash } from "../../hashes.ts";
import type { BigMapDiffItem } from "../basic.ts";
import { expression } from "../script.ts";

/** One big-map update: the key, its hash, and the new value (absent = removal). */
export interface BigMapUpdate {
  key_hash: string;
  key: Micheline;
  value?: Micheline;
}

/** How a lazy storage diff starts, and the updates applied after. */
export type LazyStorageDiffAction<Alloc, Updates> =
  | { action: "update"; updates: Updates }
  | { action: "remove" }
  | { action: "copy"; source: bigint; updates: Updates }
  | ({ action: "alloc"; updates: Updates } & Alloc);

/** Big-map allocation: key and value types. */
export interface BigMapAlloc {
  key_type: Micheline;
  value_type: Micheline;
}

/** A Sapling ciphertext (`sapling.transaction.ciphertext`). */
export interface SaplingCiphertext {
  cv: Uint8Array;
  epk: Uint8Array;
  payload_enc: Uint8Array;
  nonce_enc: Uint8Array;
  payload_out: Uint8Array;
  nonce_out: Uint8Array;
}

/** Updates of a Sapling state: new commitments with their ciphertexts, and spent nullifiers. */
export interface SaplingUpdates {
  commitments_and_ciphertexts: [Uint8Array, SaplingCiphertext][];
  nullifiers: Uint8Array[];
}

/** Sapling state allocation: the memo size. */
export interface SaplingAlloc {
  memo_size: number;
}

/** One item of a lazy storage diff. */
export type LazyStorageDiffItem =
  | { kind: "big_map"; id: bigint; diff: LazyStorageDiffAction<BigMapAlloc, BigMapUpdate[]> }
  | { kind: "sapling_state"; id: bigint; diff: LazyStorageDiffAction<SaplingAlloc, SaplingUpdates> };

/** A lazy storage diff: changes to big maps and Sapling states, in order. */
export type LazyStorageDiff = LazyStorageDiffItem[];

/** Big map identifier (`011-PtHangz2.big_map_id`): Zarith Z; negative ids are temporary. */
export const bigMapId: Codec<bigint> = def("011-PtHangz2.big_map_id", z, { title: "Big map identifier", description: "A big map identifier" });

/** Sapling state identifier (`011-PtHangz2.sapling_state_id`): Zarith Z. */
export const saplingStateId: Codec<bigint> = def("011-PtHangz2.sapling_state_id", z, {
  title: "Sapling state identifier",
  description: "A sapling state identifier",
});

const bigMapUpdate: Codec<BigMapUpdate> = obj(req("key_hash", scriptExprHash), req("key", expression), opt("value", expression));
const bigMapUpdates: Codec<BigMapUpdate[]> = list(bigMapUpdate);
const bigMapAllocFields = [req("key_type", expression), req("value_type", expression)] as const;

const bytes32 = (name: string) => def(name, fixedBytes(32));

/** Sapling ciphertext codec (`sapling.transaction.ciphertext`). */
export const saplingCiphertext: Codec<SaplingCiphertext> = def(
  "sapling.transaction.ciphertext",
  obj(
    req("cv", bytes32("sapling.transaction.commitment_value")),
    req("epk", bytes32("sapling.DH.epk")),
    req("payload_enc", bytes),
    req("nonce_enc", fixedBytes(24)),
    req("payload_out", fixedBytes(80)),
    req("nonce_out", fixedBytes(24)),
  ),
);

const saplingUpdates: Codec<SaplingUpdates> = obj(
  req("commitments_and_ciphertexts", list(tup(bytes32("sapling.transaction.commitment"), saplingCiphertext))),
  req("nullifiers", list(bytes32("sapling.transaction.nullifier"))),
) as Codec<SaplingUpdates>;

function diffCodec<A extends object, U>(idCodec: Codec<bigint>, updates: Codec<U>, alloc: Codec<A>): Codec<LazyStorageDiffAction<A, U>> {
  type D = LazyStorageDiffAction<A, U>;
  return union<D>([
    tagged<D, D>(0, "update", obj(req("action", constant("update")), req("updates", updates)) as Codec<D>, (v) => (v.action === "update" ? v : undefined), (v) => v),
    tagged<D, D>(1, "remove", obj(req("action", constant("remove"))) as Codec<D>, (v) => (v.action === "remove" ? v : undefined), (v) => v),
    tagged<D, D>(
      2,
      "copy",
      obj(req("action", constant("copy")), req("source", idCodec), req("updates", updates)) as Codec<D>,
      (v) => (v.action === "copy" ? v : undefined),
      (v) => v,
    ),
    tagged<D, D>(
      3,
      "alloc",
      mergeObjs(obj(req("action", constant("alloc")), req("updates", updates)), alloc) as unknown as Codec<D>,
      (v) => (v.action === "alloc" ? v : undefined),
      (v) => v,
    ),
  ]);
}

/** Lazy storage diff codec (`011-PtHangz2.lazy_storage_diff`). */
export const lazyStorageDiff: Codec<LazyStorageDiff> = def(
  "011-PtHangz2.lazy_storage_diff",
  list(
    union<LazyStorageDiffItem>([
      tagged<LazyStorageDiffItem, LazyStorageDiffItem>(
        0,
        "big_map",
        obj(req("kind", constant("big_map")), req("id", bigMapId), req("diff", diffCodec(bigMapId, bigMapUpdates, obj(...bigMapAllocFields)))) as Codec<LazyStorageDiffItem>,
        (v) => (v.kind === "big_map" ? v : undefined),
        (v) => v,
      ),
      tagged<LazyStorageDiffItem, LazyStorageDiffItem>(
        1,
        "sapling_state",
        obj(
          req("kind", constant("sapling_state")),
          req("id", saplingStateId),
          req("diff", diffCodec(saplingStateId, saplingUpdates, obj(req("memo_size", uint16)))),
        ) as Codec<LazyStorageDiffItem>,
        (v) => (v.kind === "sapling_state" ? v : undefined),
        (v) => v,
      ),
    ]),
  ),
);

/**
 * The legacy `big_map_diff` of a lazy storage diff, as Octez derives it for receipts: Sapling
 * items are dropped; a big map's `copy`/`alloc` comes first, then its updates in reverse order
 * (Octez builds them with `List.rev_map`); `remove` becomes one `remove`.
 */
export function toLegacyBigMapDiff(diff: readonly LazyStorageDiffItem[]): BigMapDiffItem[] {
  const out: BigMapDiffItem[] = [];
  for (const item of diff) {
    if (item.kind !== "big_map") continue;
    const id = item.id;
    const d = item.diff;
    if (d.action === "remove") {
      out.push({ action: "remove", big_map: id });
      continue;
    }
    if (d.action === "copy") out.push({ action: "copy", source_big_map: d.source, destination_big_map: id });
    else if (d.action === "alloc") out.push({ action: "alloc", big_map: id, key_type: d.key_type, value_type: d.value_type });
    for (let i = d.updates.length - 1; i >= 0; i--) {
      const u = d.updates[i]!;
      const entry: BigMapDiffItem = { action: "update", big_map: id, key_hash: u.key_hash, key: u.key };
      if (u.value !== undefined) entry.value = u.value;
      out.push(entry);
    }
  }
  return out;
}
