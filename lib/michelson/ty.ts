/**
 * Michelson types as the type checker and the interpreter share them (Octez `Script_typed_ir.ty`).
 * One node shape for every type: the primitive name and its type arguments, plus the annotations
 * Hangzhou keeps on types: the type annotation (`:name`) and, on a child of `pair`/`or`, its
 * field annotation (`%name`). Pairs are binary: `pair a b c` is stored as `pair a (pair b c)`.
 * Sapling types carry their memo size.
 * @module
 */

/** The primitive names of Michelson types in protocol 011. */
export type TyPrim =
  | "unit" | "int" | "nat" | "string" | "bytes" | "mutez" | "bool" | "key_hash" | "timestamp"
  | "address" | "key" | "signature" | "operation" | "chain_id" | "never"
  | "bls12_381_g1" | "bls12_381_g2" | "bls12_381_fr" | "chest" | "chest_key"
  | "pair" | "or" | "option" | "list" | "set" | "map" | "big_map" | "lambda" | "contract" | "ticket"
  | "sapling_state" | "sapling_transaction";

/** A Michelson type. `args`: pair/or/map/big_map/lambda 2, option/list/set/contract/ticket 1, others 0. */
export interface Ty {
  readonly prim: TyPrim;
  readonly args: readonly Ty[];
  /** Type annotation without its `:` (absent when none). */
  readonly tname?: string;
  /** Field annotation without its `%`, on a child of `pair` or `or` (absent when none). */
  readonly field?: string;
  /** Memo size of `sapling_state`/`sapling_transaction`. */
  readonly memoSize?: number;
}

/** A type without arguments or annotations, e.g. `ty("nat")`; with arguments, e.g. `ty("list", ty("int"))`. */
export function ty(prim: TyPrim, ...args: Ty[]): Ty {
  return { prim, args };
}
