/**
 * Runtime values of the Michelson interpreter, by type (Octez `Script_typed_ir`):
 *
 * | type | value |
 * |---|---|
 * | unit | `null` |
 * | int, nat, mutez, timestamp (seconds) | `bigint` |
 * | string | `string` |
 * | bytes, chest, chest_key | `Uint8Array` |
 * | bool | `boolean` |
 * | key_hash, key, chain_id | `string` (Base58Check: tz1/tz2/tz3, edpk/sppk/p2pk, Net…) |
 * | signature | `string` (Base58Check as read: edsig/spsig1/p2sig, or generic `sig…` when read from bytes) |
 * | address | {@link Address} |
 * | pair | `readonly [Value, Value]` |
 * | or | {@link OrValue} |
 * | option | `null` (None) or {@link Some} |
 * | list | {@link MList} |
 * | set | {@link MSet} (a {@link MMap} whose values are `null`) |
 * | map | {@link MMap} |
 * | big_map | {@link BigMap} |
 * | lambda | {@link Lambda} |
 * | contract | {@link TypedContract} |
 * | operation | {@link Operation} |
 * | ticket | {@link Ticket} |
 * | bls12_381_fr | `bigint` (reduced modulo the group order) |
 * | bls12_381_g1, bls12_381_g2 | `Uint8Array` (uncompressed Zcash form, 96 / 192 bytes) |
 * | never | (no value) |
 *
 * Values are immutable: every instruction returns new values and never changes its inputs.
 * @module
 */
import type { Micheline } from "../encoding/micheline.ts";
import type { LazyStorageDiffItem } from "../encoding/hangzhou/receipts/lazy-storage-diff.ts";
import type { Ty } from "./ty.ts";

/** A Michelson value (see the module table for which form each type uses). */
export type Value =
  | null | bigint | string | boolean | Uint8Array
  | readonly [Value, Value]
  | OrValue | Some | MList | MMap | BigMap | Lambda | Address | TypedContract | Operation | Ticket;

/** `Some v`. */
export interface Some {
  readonly some: Value;
}

/** `Left v` or `Right v`. */
export interface OrValue {
  readonly or: "Left" | "Right";
  readonly value: Value;
}

/** An address with its entrypoint (`""` = default, printed without `%`). */
export interface Address {
  readonly address: string;
  readonly entrypoint: string;
}

/** A `contract t` value: the destination, its entrypoint and the parameter type `t`. */
export interface TypedContract {
  readonly address: string;
  readonly entrypoint: string;
  readonly paramTy: Ty;
}

/** A ticket: who issued it, its contents and amount. */
export interface Ticket {
  readonly ticketer: string;
  readonly contents: Value;
  readonly amount: bigint;
}

/**
 * A lambda: its code as written (for `PACK` and unparsing) and the compiled form the interpreter
 * runs (opaque here; the type checker fills it).
 */
export interface Lambda {
  readonly lambda: true;
  readonly argTy: Ty;
  readonly retTy: Ty;
  readonly code: Micheline;
  readonly compiled: unknown;
}

/**
 * An immutable list with O(1) `cons` and `uncons` (Octez `boxed_list`): `head` is the first
 * element, `tail` the rest, `size` the length. The empty list is {@link MList.EMPTY}.
 */
export class MList {
  /** The empty list. */
  static readonly EMPTY: MList = new MList(undefined, undefined, 0);
  readonly head: Value | undefined;
  readonly tail: MList | undefined;
  readonly size: number;
  private constructor(head: Value | undefined, tail: MList | undefined, size: number) {
    this.head = head;
    this.tail = tail;
    this.size = size;
  }
  /** The list `v :: this`. */
  cons(v: Value): MList {
    return new MList(v, this, this.size + 1);
  }
  /** The list of `items`, first element first. */
  static of(items: readonly Value[]): MList {
    let l = MList.EMPTY;
    for (let i = items.length - 1; i >= 0; i--) l = l.cons(items[i]);
    return l;
  }
  /** The elements, first element first. */
  toArray(): Value[] {
    const out: Value[] = [];
    for (let l: MList = this; l.size > 0; l = l.tail as MList) out.push(l.head as Value);
    return out;
  }
}

/**
 * An immutable ordered map of Michelson values (keys compared by Michelson's `COMPARE` on the key
 * type). Implemented in `data/map.ts`; every update returns a new map and shares structure.
 */
export interface MMap {
  readonly mmap: true;
  readonly size: number;
  get(key: Value): Value | undefined;
  has(key: Value): boolean;
  /** A map with `key` bound to `value`. */
  set(key: Value, value: Value): MMap;
  /** A map without `key`. */
  delete(key: Value): MMap;
  /** Bindings in increasing key order. */
  entries(): Iterable<readonly [Value, Value]>;
}

/** A set: an {@link MMap} whose values are `null`. */
export type MSet = MMap;

/**
 * A big map value (Octez `big_map`): an id in the context (or none for a map built in this run),
 * the changes not yet written and its key and value types.
 */
export interface BigMap {
  readonly bigMap: true;
  /** Id in the context (may be a negative temporary id), or `undefined` for a fresh map. */
  readonly id: bigint | undefined;
  /** Pending changes by key: `{ some: v }` binds `v`, `null` removes the key (values are {@link Some} so a `unit` or `None` value is not a removal). */
  readonly diff: MMap;
  readonly keyTy: Ty;
  readonly valueTy: Ty;
}

/**
 * An operation emitted by a contract (Octez `packed_internal_operation` with its lazy storage
 * diff), as the instruction made it: the internal nonce, the parameter or initial storage already
 * unparsed (Optimized) with the big maps it carries moved to temporary ids, and the lazy storage
 * diff of that move, to apply before the operation.
 */
export type Operation =
  | { readonly op: "transaction"; readonly nonce: number; readonly amount: bigint; readonly destination: string; readonly entrypoint: string; readonly parameters: Micheline; readonly lazyStorageDiff: readonly LazyStorageDiffItem[] | undefined }
  | { readonly op: "origination"; readonly nonce: number; readonly credit: bigint; readonly delegate: string | null; readonly address: string; readonly code: Micheline; readonly storage: Micheline; readonly lazyStorageDiff: readonly LazyStorageDiffItem[] | undefined }
  | { readonly op: "delegation"; readonly nonce: number; readonly delegate: string | null };
