/**
 * Types as the instruction type checker sees them: {@link Ty} plus the variable annotations
 * Hangzhou keeps on the two sides of a `pair` built by instructions (`vannot` on a child of a
 * pair, e.g. `pair (int @parameter) (nat @storage)`), typed stacks, type merging at branch joins
 * (`merge_types`) and the Micheline form of types and stacks for errors and type maps.
 * @module
 */
import type { Micheline, MichelinePrim } from "../../encoding/micheline.ts";
import type { Ty, TyPrim } from "../ty.ts";
import type { GasMeter } from "../context.ts";
import { mergeCycle } from "../gas/typechecking.ts";
import { mergeFieldAnnot, mergeTypeAnnot, mergeVarAnnot, type Annot } from "./annot.ts";
import { badStackItem, inconsistentStackLengths, inconsistentTypes, type StackSlot } from "./errors.ts";

/** A type that may carry a variable annotation as the child of a pair. */
export type ATy = Ty & { readonly vannot?: string };

/** One item of a typed stack (top first), with its variable annotation. */
export interface SItem {
  readonly ty: Ty;
  readonly annot: Annot;
  readonly rest: Stack;
}
/** A typed stack: its top item, or `null` for the empty stack. */
export type Stack = SItem | null;

/** The stack `ty : rest`. */
export function push(ty: Ty, rest: Stack, annot?: Annot): SItem {
  return { ty, annot, rest };
}

/** The `n` top items of `s` (top first) and the stack below them; `undefined` when `s` is shorter than `n`. */
export function splitStack(s: Stack, n: number): { items: SItem[]; rest: Stack } | undefined {
  const items: SItem[] = [];
  for (let i = 0; i < n; i++) {
    if (s === null) return undefined;
    items.push(s);
    s = s.rest;
  }
  return { items, rest: s };
}

/** `items` (top first) pushed back onto `rest`, annotations kept. */
export function pushItems(items: readonly { readonly ty: Ty; readonly annot: Annot }[], rest: Stack): Stack {
  for (let i = items.length - 1; i >= 0; i--) rest = push(items[i]!.ty, rest, items[i]!.annot);
  return rest;
}

/** The type without the annotations it carries as a child (`%field`, `@var`). */
export function bare(t: Ty): Ty {
  const a = t as ATy;
  if (a.field === undefined && a.vannot === undefined) return t;
  const out: { prim: TyPrim; args: readonly Ty[]; tname?: string; memoSize?: number } = { prim: t.prim, args: t.args };
  if (t.tname !== undefined) out.tname = t.tname;
  if (t.memoSize !== undefined) out.memoSize = t.memoSize;
  return out;
}

/** `t` as a child with this field and variable annotation. */
export function child(t: Ty, field: Annot, vannot: Annot): Ty {
  const out: { prim: TyPrim; args: readonly Ty[]; tname?: string; memoSize?: number; field?: string; vannot?: string } = { prim: t.prim, args: t.args };
  if (t.tname !== undefined) out.tname = t.tname;
  if (t.memoSize !== undefined) out.memoSize = t.memoSize;
  if (field !== undefined) out.field = field;
  if (vannot !== undefined) out.vannot = vannot;
  return out;
}

/** A type with a type annotation (or none). */
export function named(prim: TyPrim, tname: Annot, ...args: Ty[]): Ty {
  return tname === undefined ? { prim, args } : { prim, args, tname };
}

/** `pair l r` with the children's field and variable annotations. */
export function pairT(l: Ty, lf: Annot, lv: Annot, r: Ty, rf: Annot, rv: Annot, tname?: Annot): Ty {
  return named("pair", tname, child(l, lf, lv), child(r, rf, rv));
}

/** `or l r` with the children's field annotations. */
export function orT(l: Ty, lf: Annot, r: Ty, rf: Annot, tname?: Annot): Ty {
  return named("or", tname, child(l, lf, undefined), child(r, rf, undefined));
}

/** Field annotation of a child. */
export function fieldOf(t: Ty): Annot {
  return t.field;
}
/** Variable annotation of a pair child. */
export function vannotOf(t: Ty): Annot {
  return (t as ATy).vannot;
}

export const T = {
  unit: { prim: "unit", args: [] } as Ty,
  int: { prim: "int", args: [] } as Ty,
  nat: { prim: "nat", args: [] } as Ty,
  bool: { prim: "bool", args: [] } as Ty,
  bytes: { prim: "bytes", args: [] } as Ty,
  string: { prim: "string", args: [] } as Ty,
  mutez: { prim: "mutez", args: [] } as Ty,
  timestamp: { prim: "timestamp", args: [] } as Ty,
  address: { prim: "address", args: [] } as Ty,
  keyHash: { prim: "key_hash", args: [] } as Ty,
  operation: { prim: "operation", args: [] } as Ty,
  chainId: { prim: "chain_id", args: [] } as Ty,
  bls12_381_fr: { prim: "bls12_381_fr", args: [] } as Ty,
};

// ---------------------------------------------------------------- Micheline forms

function prim(p: string, args: Micheline[], annots: string[]): MichelinePrim {
  const out: { prim: string; args?: Micheline[]; annots?: string[] } = { prim: p };
  if (args.length > 0) out.args = args;
  if (annots.length > 0) out.annots = annots;
  return out;
}

/**
 * The Micheline form of a type as Octez's `unparse_ty` prints it in errors and type maps: type
 * annotations, field and variable annotations on pair children, field annotations on or
 * children, right combs of pairs folded when the inner pair has no annotation.
 */
export function unparseTyAnnot(t: Ty): Micheline {
  // explicit stack: post-order construction
  type Frame = { t: Ty; done: Micheline[]; i: number };
  const root: Frame = { t, done: [], i: 0 };
  const stack: Frame[] = [root];
  let result: Micheline = { prim: "unit" };
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    const args = argsForUnparse(f.t);
    if (f.i < args.length) {
      stack.push({ t: args[f.i++], done: [], i: 0 });
      continue;
    }
    stack.pop();
    const m = finish(f.t, f.done);
    if (stack.length === 0) result = m;
    else stack[stack.length - 1].done.push(m);
  }
  return result;
}

function argsForUnparse(t: Ty): readonly Ty[] {
  return t.args;
}

function finish(t: Ty, done: Micheline[]): Micheline {
  const annots = t.tname !== undefined ? [":" + t.tname] : [];
  const comparableChildren = t.prim === "set" || t.prim === "map" || t.prim === "big_map" || t.prim === "ticket";
  if (t.prim === "pair" || t.prim === "or") {
    const withChild = (m: Micheline, c: Ty): Micheline => {
      const extra: string[] = [];
      if (c.field !== undefined) extra.push("%" + c.field);
      if (t.prim === "pair" && (c as ATy).vannot !== undefined) extra.push("@" + (c as ATy).vannot);
      if (extra.length === 0) return m;
      const p = m as MichelinePrim;
      return prim(p.prim, (p.args ?? []) as Micheline[], [...(p.annots ?? []), ...extra]);
    };
    const l = withChild(done[0], t.args[0]);
    const r = withChild(done[1], t.args[1]);
    if (t.prim === "pair") {
      const rp = r as MichelinePrim;
      if (rp.prim === "pair" && (rp.annots === undefined || rp.annots.length === 0)) {
        return prim("pair", [l, ...((rp.args ?? []) as Micheline[])], annots);
      }
    }
    return prim(t.prim, [l, r], annots);
  }
  if (t.prim === "sapling_state" || t.prim === "sapling_transaction") {
    return prim(t.prim, [{ int: String(t.memoSize ?? 0) }], annots);
  }
  void comparableChildren;
  return prim(t.prim, done, annots);
}

/** The `{type, annots}` list of a stack, top first. */
export function unparseStack(s: Stack): StackSlot[] {
  const out: StackSlot[] = [];
  for (let i = s; i !== null; i = i.rest) out.push({ type: unparseTyAnnot(i.ty), annots: i.annot === undefined ? [] : ["@" + i.annot] });
  return out;
}

/** Number of items of a stack. */
export function stackLength(s: Stack): number {
  let n = 0;
  for (let i = s; i !== null; i = i.rest) n++;
  return n;
}

// ---------------------------------------------------------------- merging

/**
 * `merge_types`: the two types must be equal up to annotations; type and field annotations must
 * agree (unless `legacy`), variable annotations are kept when equal. Charges `merge_cycle` per
 * node. Throws `inconsistent_types` (with the annotation error under it when that is the cause).
 */
export function mergeTypes(gas: GasMeter | undefined, legacy: boolean, loc: number | undefined, a: Ty, b: Ty): Ty {
  return mergeRec(gas, legacy, loc, a, b);
}

function mismatch(loc: number | undefined, a: Ty, b: Ty) {
  return inconsistentTypes.error({ loc, first_type: unparseTyAnnot(a), other_type: unparseTyAnnot(b) });
}

function mergeRec(gas: GasMeter | undefined, legacy: boolean, loc: number | undefined, a: Ty, b: Ty): Ty {
  gas?.consume(mergeCycle);
  if (a.prim !== b.prim || a.args.length !== b.args.length) throw mismatch(undefined, a, b);
  let tname: Annot;
  try {
    tname = mergeTypeAnnot(legacy, a.tname, b.tname);
  } catch (e) {
    if (e instanceof Error && "trace" in e) throw (e as import("../../errors/mod.ts").TezosError).withContext(inconsistentTypes.create({ loc, first_type: unparseTyAnnot(a), other_type: unparseTyAnnot(b) }));
    throw e;
  }
  if ((a.prim === "sapling_state" || a.prim === "sapling_transaction") && a.memoSize !== b.memoSize) throw mismatch(undefined, a, b);
  if (a.args.length === 0) return tname === a.tname ? bare(a) : named(a.prim, tname);
  const args: Ty[] = [];
  try {
    if (a.prim === "pair" || a.prim === "or") {
      const lf = mergeFieldAnnot(legacy, a.args[0].field, b.args[0].field);
      const rf = mergeFieldAnnot(legacy, a.args[1].field, b.args[1].field);
      const lv = a.prim === "pair" ? mergeVarAnnot(vannotOf(a.args[0]), vannotOf(b.args[0])) : undefined;
      const rv = a.prim === "pair" ? mergeVarAnnot(vannotOf(a.args[1]), vannotOf(b.args[1])) : undefined;
      const l = mergeRec(gas, legacy, loc, a.args[0], b.args[0]);
      const r = mergeRec(gas, legacy, loc, a.args[1], b.args[1]);
      args.push(child(l, lf, lv), child(r, rf, rv));
    } else if (a.prim === "map" || a.prim === "big_map") {
      const v = mergeRec(gas, legacy, loc, a.args[1], b.args[1]);
      const k = mergeRec(gas, legacy, loc, a.args[0], b.args[0]);
      args.push(k, v);
    } else {
      for (let i = 0; i < a.args.length; i++) args.push(mergeRec(gas, legacy, loc, a.args[i], b.args[i]));
    }
  } catch (e) {
    const te = e as import("../../errors/mod.ts").TezosError;
    if (te && Array.isArray(te.trace)) throw te.withContext(inconsistentTypes.create({ loc: undefined, first_type: unparseTyAnnot(a), other_type: unparseTyAnnot(b) }));
    throw e;
  }
  const out: { prim: TyPrim; args: readonly Ty[]; tname?: string; memoSize?: number } = { prim: a.prim, args };
  if (tname !== undefined) out.tname = tname;
  if (a.memoSize !== undefined) out.memoSize = a.memoSize;
  return out;
}

/** Whether two types are equal up to annotations (no gas, no error). */
export function sameType(a: Ty, b: Ty): boolean {
  if (a.prim !== b.prim || a.args.length !== b.args.length || a.memoSize !== b.memoSize) return false;
  for (let i = 0; i < a.args.length; i++) if (!sameType(a.args[i], b.args[i])) return false;
  return true;
}

/** `merge_stacks`: item by item; throws `inconsistent_stack_lengths` or `bad_stack_item` traces. */
export function mergeStacks(gas: GasMeter | undefined, legacy: boolean, loc: number, s1: Stack, s2: Stack): Stack {
  const items: SItem[] = [];
  let a = s1;
  let b = s2;
  let lvl = 1;
  while (a !== null && b !== null) {
    let ty: Ty;
    try {
      ty = mergeTypes(gas, legacy, loc, a.ty, b.ty);
    } catch (e) {
      const te = e as import("../../errors/mod.ts").TezosError;
      if (te && Array.isArray(te.trace)) throw te.withContext(badStackItem.create({ item_level: lvl }));
      throw e;
    }
    items.push({ ty, annot: mergeVarAnnot(a.annot, b.annot), rest: null });
    a = a.rest;
    b = b.rest;
    lvl++;
  }
  if (a !== null || b !== null) throw inconsistentStackLengths.error();
  let out: Stack = null;
  for (let i = items.length - 1; i >= 0; i--) out = { ty: items[i].ty, annot: items[i].annot, rest: out };
  return out;
}
