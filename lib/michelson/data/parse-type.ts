/**
 * Michelson types of protocol 011 (Octez `Script_ir_translator.parse_ty`, `parse_comparable_ty`,
 * `unparse_ty`, `merge_types`): reading a type from Micheline with Hangzhou's rules (arity,
 * annotations, where `operation`, `contract`, `big_map`/`sapling_state` and `ticket` may appear,
 * comparable positions, the type size limit), printing it back, type equality and merging, and
 * the type predicates (comparable, packable, duplicable…).
 * @module
 */
import type { Micheline, MichelinePrim } from "../../encoding/micheline.ts";
import { TezosError } from "../../errors/mod.ts";
import type { GasMeter } from "../context.ts";
import type { Ty, TyPrim } from "../ty.ts";
import * as TC from "../gas/typechecking.ts";
import * as UN from "../gas/unparsing.ts";
import { extractFieldAnnot, mergeFieldAnnot, mergeTypeAnnot, parseComposedTypeAnnot, parseTypeAnnot } from "./annot.ts";
import {
  comparableTypeExpected, inconsistentMemoSizes, inconsistentTypeSizes, inconsistentTypes, invalidArity, invalidSyntacticConstant,
  typeTooLarge, typecheckingTooManyRecursiveCalls, unexpectedContract, unparsingTooManyRecursiveCalls, unexpectedLazyStorage, unexpectedOperation, unexpectedTicket,
} from "./errors.ts";
import { asPrim, invalidKindError, isGasExhaustion, Locations, unexpectedNode } from "./node.ts";
import { guardStack } from "./stack-guard.ts";

/** How data is printed: Readable (strings, `Pair a b c`), Optimized (bytes, combs as sequences), Optimized_legacy (bytes, binary pairs). */
export type UnparsingMode = "Readable" | "Optimized" | "Optimized_legacy";

/** Hangzhou's `michelson_maximum_type_size`. */
export const MICHELSON_MAXIMUM_TYPE_SIZE = 2001;

const MAX_DEPTH = 10_000;

/** Options of {@link parseTy}: which types are allowed (all by default, as `parse_any_ty`), legacy mode, gas, locations. */
export interface ParseTyOptions {
  /** Scripts already on chain: legacy annotation rules. */
  readonly legacy?: boolean;
  /** `big_map` and `sapling_state` allowed (default true). */
  readonly allowLazyStorage?: boolean;
  /** `operation` allowed (default true). */
  readonly allowOperation?: boolean;
  /** `contract` allowed (default true). */
  readonly allowContract?: boolean;
  /** `ticket` allowed (default true). */
  readonly allowTicket?: boolean;
  /** Charged `parse_type_cycle` per node. */
  readonly gas?: GasMeter;
  /** Canonical locations of the nodes (default: the node is a root, numbered from 0). */
  readonly locations?: WeakMap<object, number>;
}

interface Flags {
  readonly lazy: boolean;
  readonly op: boolean;
  readonly contract: boolean;
  readonly ticket: boolean;
}

const LEAVES_0_ARITY = new Set<TyPrim>([
  "unit", "signature", "int", "nat", "string", "bytes", "mutez", "bool", "key", "key_hash", "timestamp", "address", "chain_id", "operation", "never",
]);
const SIMPLE = new Set<string>([
  "unit", "int", "nat", "string", "bytes", "mutez", "bool", "key", "key_hash", "chest_key", "chest", "timestamp", "address", "signature", "operation",
  "chain_id", "never", "bls12_381_g1", "bls12_381_g2", "bls12_381_fr",
]);
const ANY_TYPE_PRIMS = [
  "pair", "or", "set", "map", "list", "option", "lambda", "unit", "signature", "contract", "int", "nat", "operation", "string", "bytes", "mutez",
  "bool", "key", "key_hash", "timestamp", "chain_id", "never", "bls12_381_g1", "bls12_381_g2", "bls12_381_fr", "ticket",
];
const COMPARABLE_LEAVES = new Set<string>([
  "unit", "never", "int", "nat", "signature", "string", "bytes", "mutez", "bool", "key_hash", "key", "timestamp", "chain_id", "address",
]);
const COMPARABLE_PRIMS = [
  "unit", "never", "int", "nat", "string", "bytes", "mutez", "bool", "key_hash", "timestamp", "address", "pair", "or", "option", "chain_id",
  "signature", "key",
];

// -- sizes --

const sizes = new WeakMap<Ty, number>();

/** Number of type nodes of `t` (Octez `Type_size`; sapling memo sizes do not count). */
export function tySize(t: Ty): number {
  const cached = sizes.get(t);
  if (cached !== undefined) return cached;
  let s = 1;
  for (const a of t.args) s += tySize(a);
  sizes.set(t, s);
  return s;
}

function mk(prim: TyPrim, args: Ty[], tname: string | undefined, loc: number, extra?: { memoSize?: number }): Ty {
  const t: { prim: TyPrim; args: Ty[]; tname?: string; memoSize?: number } = { prim, args };
  if (tname !== undefined) t.tname = tname;
  if (extra?.memoSize !== undefined) t.memoSize = extra.memoSize;
  const size = 1 + args.reduce((n, a) => n + tySize(a), 0);
  if (size > MICHELSON_MAXIMUM_TYPE_SIZE) throw typeTooLarge.error({ loc, maximum_type_size: MICHELSON_MAXIMUM_TYPE_SIZE });
  sizes.set(t, size);
  return t;
}

/** `t` with field annotation `field` (or none). */
export function withField(t: Ty, field: string | undefined): Ty {
  if (t.field === field) return t;
  const { field: _drop, ...rest } = t;
  const out: Ty = field === undefined ? rest : { ...rest, field };
  sizes.set(out, tySize(t));
  return out;
}

// -- parsing --

class TyParser {
  readonly legacy: boolean;
  readonly gas: GasMeter | undefined;
  readonly locs: Locations;
  constructor(legacy: boolean, gas: GasMeter | undefined, locs: Locations) {
    this.legacy = legacy;
    this.gas = gas;
    this.locs = locs;
  }

  private consume(c: number): void {
    if (this.gas !== undefined) this.gas.consume(c);
  }

  private field(n: Micheline): { node: Micheline; field: string | undefined } {
    const loc = this.locs.get(n);
    const r = extractFieldAnnot(n, loc);
    if (r.node !== n) this.locs.set(r.node, loc);
    return r;
  }

  private rightComb(n: MichelinePrim, rest: readonly Micheline[], loc: number): { node: Micheline; field: string | undefined } {
    if (rest.length === 1) return this.field(rest[0]!);
    return { node: this.locs.set({ prim: "pair", args: rest }, loc), field: undefined };
  }

  parse(node: Micheline, flags: Flags, depth: number): Ty {
    this.consume(TC.parseTypeCycle);
    if (depth > MAX_DEPTH) throw typecheckingTooManyRecursiveCalls.error(undefined);
    const loc = this.locs.get(node);
    const p = asPrim(node);
    if (p === undefined) throw unexpectedNode(node, loc, [], "type", ANY_TYPE_PRIMS);
    const args = p.args ?? [];
    const annots = p.annots ?? [];
    const name = p.prim;
    const sub = (n: Micheline, f: Flags = flags): Ty => this.parse(n, f, depth + 1);
    if (args.length === 0 && SIMPLE.has(name)) {
      if (name === "operation" && !flags.op) throw unexpectedOperation.error({ loc });
      return mk(name as TyPrim, [], parseTypeAnnot(loc, annots), loc);
    }
    switch (name) {
      case "contract":
        if (args.length !== 1) break;
        if (!flags.contract) throw unexpectedContract.error({ loc });
        {
          const arg = sub(args[0]!, PARAMETER_FLAGS);
          return mk("contract", [arg], parseTypeAnnot(loc, annots), loc);
        }
      case "pair": {
        if (args.length === 0) break;
        const l = this.field(args[0]!);
        const tl = withField(sub(l.node), l.field);
        const r = this.rightComb(p, args.slice(1), loc);
        const tr = withField(sub(r.node), r.field);
        return mk("pair", [tl, tr], parseTypeAnnot(loc, annots), loc);
      }
      case "or": {
        if (args.length !== 2) break;
        const l = this.field(args[0]!);
        const r = this.field(args[1]!);
        const tl = withField(sub(l.node), l.field);
        const tr = withField(sub(r.node), r.field);
        return mk("or", [tl, tr], parseTypeAnnot(loc, annots), loc);
      }
      case "lambda": {
        if (args.length !== 2) break;
        const ta = sub(args[0]!, ANY_FLAGS);
        const tr = sub(args[1]!, ANY_FLAGS);
        return mk("lambda", [ta, tr], parseTypeAnnot(loc, annots), loc);
      }
      case "option": {
        if (args.length !== 1) break;
        let inner = args[0]!;
        let tname: string | undefined;
        if (this.legacy) {
          inner = this.field(inner).node;
          tname = parseComposedTypeAnnot(loc, annots).type;
        } else tname = parseTypeAnnot(loc, annots);
        return mk("option", [sub(inner)], tname, loc);
      }
      case "list": {
        if (args.length !== 1) break;
        const t = sub(args[0]!);
        return mk("list", [t], parseTypeAnnot(loc, annots), loc);
      }
      case "ticket": {
        if (args.length !== 1) break;
        if (!flags.ticket) throw unexpectedTicket.error({ loc });
        const t = this.comparable(args[0]!, depth + 1);
        return mk("ticket", [t], parseTypeAnnot(loc, annots), loc);
      }
      case "set": {
        if (args.length !== 1) break;
        const t = this.comparable(args[0]!, depth + 1);
        return mk("set", [t], parseTypeAnnot(loc, annots), loc);
      }
      case "map": {
        if (args.length !== 2) break;
        const k = this.comparable(args[0]!, depth + 1);
        const v = sub(args[1]!);
        return mk("map", [k, v], parseTypeAnnot(loc, annots), loc);
      }
      case "sapling_transaction": {
        if (args.length !== 1) break;
        const tname = parseTypeAnnot(loc, annots);
        return mk("sapling_transaction", [], tname, loc, { memoSize: this.memoSize(args[0]!) });
      }
      case "big_map":
        if (!flags.lazy) throw unexpectedLazyStorage.error({ loc });
        return this.bigMap(p, loc, depth);
      case "sapling_state": {
        if (!flags.lazy || args.length !== 1) throw unexpectedLazyStorage.error({ loc });
        const tname = parseTypeAnnot(loc, annots);
        return mk("sapling_state", [], tname, loc, { memoSize: this.memoSize(args[0]!) });
      }
    }
    if (LEAVES_0_ARITY.has(name as TyPrim)) throw invalidArity.error({ location: loc, primitive_name: name, expected_arity: 0, wrong_arity: args.length });
    if (name === "set" || name === "list" || name === "option" || name === "contract" || name === "ticket") {
      throw invalidArity.error({ location: loc, primitive_name: name, expected_arity: 1, wrong_arity: args.length });
    }
    if (name === "pair" || name === "or" || name === "map" || name === "lambda") {
      throw invalidArity.error({ location: loc, primitive_name: name, expected_arity: 2, wrong_arity: args.length });
    }
    throw unexpectedNode(node, loc, [], "type", ANY_TYPE_PRIMS);
  }

  bigMap(p: MichelinePrim, loc: number, depth: number, annotsOverride?: readonly string[]): Ty {
    this.consume(TC.parseTypeCycle);
    const args = p.args ?? [];
    if (args.length !== 2) throw invalidArity.error({ location: loc, primitive_name: "big_map", expected_arity: 2, wrong_arity: args.length });
    const k = this.comparable(args[0]!, depth + 1);
    const v = this.parse(args[1]!, { lazy: false, op: false, contract: this.legacy, ticket: true }, depth + 1);
    return mk("big_map", [k, v], parseTypeAnnot(loc, annotsOverride ?? p.annots ?? []), loc);
  }

  private memoSize(n: Micheline): number {
    const loc = this.locs.get(n);
    if (Array.isArray(n) || !("int" in (n as object))) throw invalidKindError(n, loc, ["integer"]);
    const v = BigInt((n as { int: string }).int);
    if (v < 0n || v > 0xffffn) {
      throw invalidSyntacticConstant.error({ location: loc, expected_form: "a positive 16-bit integer (between 0 and 65535)", wrong_expression: n });
    }
    return Number(v);
  }

  comparable(node: Micheline, depth: number): Ty {
    this.consume(TC.parseTypeCycle);
    if (depth > MAX_DEPTH) throw typecheckingTooManyRecursiveCalls.error(undefined);
    const loc = this.locs.get(node);
    const p = asPrim(node);
    if (p === undefined) throw unexpectedNode(node, loc, [], "type", COMPARABLE_PRIMS);
    const args = p.args ?? [];
    const annots = p.annots ?? [];
    const name = p.prim;
    if (COMPARABLE_LEAVES.has(name)) {
      if (args.length !== 0) throw invalidArity.error({ location: loc, primitive_name: name, expected_arity: 0, wrong_arity: args.length });
      return mk(name as TyPrim, [], parseTypeAnnot(loc, annots), loc);
    }
    switch (name) {
      case "pair":
      case "or": {
        if (name === "pair" ? args.length === 0 : args.length !== 2) {
          throw invalidArity.error({ location: loc, primitive_name: name, expected_arity: 2, wrong_arity: args.length });
        }
        const tname = parseTypeAnnot(loc, annots);
        const l = this.field(args[0]!);
        const r = name === "pair" ? this.rightComb(p, args.slice(1), loc) : this.field(args[1]!);
        const tr = withField(this.comparable(r.node, depth + 1), r.field);
        const tl = withField(this.comparable(l.node, depth + 1), l.field);
        return mk(name, [tl, tr], tname, loc);
      }
      case "option": {
        if (args.length !== 1) throw invalidArity.error({ location: loc, primitive_name: name, expected_arity: 1, wrong_arity: args.length });
        const tname = parseTypeAnnot(loc, annots);
        return mk("option", [this.comparable(args[0]!, depth + 1)], tname, loc);
      }
      case "set":
      case "map":
      case "list":
      case "lambda":
      case "contract":
      case "operation":
        throw comparableTypeExpected.error({ location: loc, wrong_type: node });
    }
    throw unexpectedNode(node, loc, [], "type", COMPARABLE_PRIMS);
  }
}

const ANY_FLAGS: Flags = { lazy: true, op: true, contract: true, ticket: true };
const PARAMETER_FLAGS: Flags = { lazy: true, op: false, contract: true, ticket: true };

/** Runs a type parse; an engine stack overflow is Octez's `typechecking_too_many_recursive_calls`. */
function guarded(body: () => Ty): Ty {
  return guardStack(body, () => typecheckingTooManyRecursiveCalls.error(undefined));
}

function parser(node: Micheline, opts: ParseTyOptions): TyParser {
  const locs = opts.locations !== undefined ? new Locations(opts.locations) : Locations.of(node);
  return new TyParser(opts.legacy ?? false, opts.gas, locs);
}

/**
 * Reads a type (`parse_ty`); by default every type is allowed (`parse_any_ty`). Throws the
 * Octez error (invalid_arity, unexpected_annotation, comparable_type_expected, type_too_large…).
 * @example parseTy({ prim: "list", args: [{ prim: "nat" }] }) // { prim: "list", args: [{ prim: "nat", args: [] }] }
 */
export function parseTy(node: Micheline, opts: ParseTyOptions = {}): Ty {
  const flags: Flags = {
    lazy: opts.allowLazyStorage ?? true,
    op: opts.allowOperation ?? true,
    contract: opts.allowContract ?? true,
    ticket: opts.allowTicket ?? true,
  };
  return guarded(() => parser(node, opts).parse(node, flags, 0));
}

/** Reads a parameter type (`parse_parameter_ty`: no `operation`); a root `%field` annotation is kept as the root's `field`. */
export function parseParameterTy(node: Micheline, opts: Omit<ParseTyOptions, "allowLazyStorage" | "allowOperation" | "allowContract" | "allowTicket"> = {}): Ty {
  const p = parser(node, opts);
  const r = extractFieldAnnot(node, p.locs.get(node));
  if (r.node !== node) p.locs.set(r.node, p.locs.get(node));
  return withField(guarded(() => p.parse(r.node, PARAMETER_FLAGS, 0)), r.field);
}

/**
 * Reads a storage type (`parse_storage_ty`): no `operation`, `contract` only in legacy mode; in
 * legacy mode `pair (big_map k v) t` with annotations reads them the old way.
 */
export function parseStorageTy(node: Micheline, opts: Omit<ParseTyOptions, "allowLazyStorage" | "allowOperation" | "allowContract" | "allowTicket"> = {}): Ty {
  const p = parser(node, opts);
  const flags: Flags = { lazy: true, op: false, contract: p.legacy, ticket: true };
  const top = asPrim(node);
  const bm = top !== undefined && top.prim === "pair" && top.args?.length === 2 ? asPrim(top.args[0]!) : undefined;
  if (p.legacy && top !== undefined && bm !== undefined && bm.prim === "big_map") {
    const annots = top.annots ?? [];
    const single = annots.length === 1 && annots[0]!.length > 0 && annots[0]![0] === "%";
    if (annots.length > 0 && !single) {
      const loc = p.locs.get(node);
      opts.gas?.consume(TC.parseTypeCycle);
      const bigMap = guarded(() => p.bigMap(bm, p.locs.get(top.args![0]!), 1));
      const rest = guarded(() => p.parse(top.args![1]!, flags, 1));
      const a = parseComposedTypeAnnot(loc, annots);
      return mk("pair", [withField(bigMap, a.field1), withField(rest, a.field2)], a.type, loc);
    }
  }
  return guarded(() => p.parse(node, flags, 0));
}

/** Reads a packable type (`parse_packable_ty`, PUSH/UNPACK): no lazy storage, operation or ticket; `contract` only in legacy mode. */
export function parsePackableTy(node: Micheline, opts: Omit<ParseTyOptions, "allowLazyStorage" | "allowOperation" | "allowContract" | "allowTicket"> = {}): Ty {
  const p = parser(node, opts);
  return guarded(() => p.parse(node, { lazy: false, op: false, contract: p.legacy, ticket: false }, 0));
}

/** Reads a view's input or output type (`parse_view_input_ty`/`parse_view_output_ty`): no lazy storage, operation or ticket. */
export function parseViewTy(node: Micheline, opts: Omit<ParseTyOptions, "allowLazyStorage" | "allowOperation" | "allowContract" | "allowTicket"> = {}): Ty {
  return guarded(() => parser(node, opts).parse(node, { lazy: false, op: false, contract: true, ticket: false }, 0));
}

/** Reads a big map value type (`parse_big_map_value_ty`): no lazy storage or operation, `contract` only in legacy mode. */
export function parseBigMapValueTy(node: Micheline, opts: Omit<ParseTyOptions, "allowLazyStorage" | "allowOperation" | "allowContract" | "allowTicket"> = {}): Ty {
  const p = parser(node, opts);
  return guarded(() => p.parse(node, { lazy: false, op: false, contract: p.legacy, ticket: true }, 0));
}

/** Reads a comparable type (`parse_comparable_ty`). */
export function parseComparableTy(node: Micheline, opts: Omit<ParseTyOptions, "allowLazyStorage" | "allowOperation" | "allowContract" | "allowTicket"> = {}): Ty {
  return guarded(() => parser(node, opts).comparable(node, 0));
}

// -- unparsing --

/**
 * Micheline of a type (`unparse_ty`): `:name` annotations, `%field` on children of pairs and
 * unions, right combs folded (`pair a b c`) unless the right child carries an annotation.
 * Types print the same in every mode. Charges `unparse_type_cycle` per node when `gas` is given.
 */
export function unparseTy(t: Ty, _mode: UnparsingMode = "Readable", gas?: GasMeter): Micheline {
  return guardStack(() => unparse(t, gas, false, true), () => unparsingTooManyRecursiveCalls.error(undefined));
}

/**
 * Micheline of a type with every pair binary, `pair a (pair b c)` (the RPC `normalize_type`'s
 * form, Octez plugin `Unparse_types`); no gas.
 */
export function normalizeTy(t: Ty): Micheline {
  return guardStack(() => unparse(t, undefined, false, false), () => unparsingTooManyRecursiveCalls.error(undefined));
}

function unparse(t: Ty, gas: GasMeter | undefined, comparable: boolean, fold: boolean): Micheline {
  if (gas !== undefined && !comparable) gas.consume(UN.unparseTypeCycle);
  const annots = t.tname !== undefined ? [":" + t.tname] : [];
  const child = (c: Ty, cmp = comparable): Micheline => {
    const n = unparse(c, gas, cmp, fold);
    if (c.field === undefined) return n;
    const p = n as MichelinePrim;
    return { ...p, annots: [...(p.annots ?? []), "%" + c.field] };
  };
  let args: Micheline[];
  switch (t.prim) {
    case "pair": {
      const l = child(t.args[0]!);
      const r = child(t.args[1]!) as MichelinePrim;
      args = fold && r.prim === "pair" && (r.annots === undefined || r.annots.length === 0) ? [l, ...(r.args ?? [])] : [l, r];
      break;
    }
    case "set":
    case "ticket":
      args = [unparse(t.args[0]!, gas, true, fold)];
      break;
    case "map":
    case "big_map":
      args = [unparse(t.args[0]!, gas, true, fold), child(t.args[1]!, comparable)];
      break;
    case "sapling_state":
    case "sapling_transaction":
      args = [{ int: String(t.memoSize ?? 0) }];
      break;
    default:
      args = [];
      for (const a of t.args) args.push(child(a)); // a loop, not map: one frame less per level of deep types
  }
  const out: { prim: string; args?: Micheline[]; annots?: string[] } = { prim: t.prim };
  if (args.length > 0) out.args = args;
  if (annots.length > 0) out.annots = annots;
  return out;
}

// -- equality and merging --

/** Whether two types are the same type, annotations aside (Octez `ty_eq`, legacy mode). */
export function tyEquals(a: Ty, b: Ty): boolean {
  if (a === b) return true;
  if (a.prim !== b.prim || a.args.length !== b.args.length) return false;
  if ((a.prim === "sapling_state" || a.prim === "sapling_transaction") && a.memoSize !== b.memoSize) return false;
  for (let i = 0; i < a.args.length; i++) if (!tyEquals(a.args[i]!, b.args[i]!)) return false;
  return true;
}

/** Throws Octez's `inconsistent_types` trace (located at `loc` when given) unless `a` and `b` are equal (`ty_eq`, legacy mode). */
export function assertTyEquals(a: Ty, b: Ty, loc?: number, gas?: GasMeter): void {
  mergeTypes(a, b, { legacy: true, loc: loc ?? -1, gas });
}

/** Options of {@link mergeTypes}. */
export interface MergeOptions {
  /** Legacy mode: differing annotations are not an error. */
  readonly legacy: boolean;
  /** Location reported by annotation and size errors. */
  readonly loc?: number;
  readonly gas?: GasMeter | undefined;
}

/**
 * Merges two types (`merge_types`): they must have the same shape and, outside legacy mode,
 * compatible annotations; the result keeps the annotations they share. Throws Octez's error trace
 * (`inconsistent_types` around the precise clash, `inconsistent_annotations`,
 * `inconsistent_type_sizes`, `inconsistent_memo_sizes`).
 */
export function mergeTypes(a: Ty, b: Ty, opts: MergeOptions): Ty {
  return merger(a, b, opts).help(a, b);
}

/** Merges two comparable types (`merge_comparable_types`): no per-level `inconsistent_types` context. */
export function mergeComparableTypes(a: Ty, b: Ty, opts: MergeOptions): Ty {
  return merger(a, b, opts).comparable(a, b);
}

function merger(a: Ty, b: Ty, opts: MergeOptions): { help(t1: Ty, t2: Ty): Ty; comparable(t1: Ty, t2: Ty): Ty } {
  const { legacy, gas } = opts;
  const loc = opts.loc ?? -1;
  const consume = (c: number): void => gas?.consume(c);
  const meta = (t1: Ty, t2: Ty, wrapTop: boolean): string | undefined => {
    try {
      const s1 = tySize(t1), s2 = tySize(t2);
      if (s1 !== s2) throw inconsistentTypeSizes.error({ first_type_size: s1, other_type_size: s2 });
      return mergeTypeAnnot(legacy, t1.tname, t2.tname);
    } catch (e) {
      if (!wrapTop || !(e instanceof TezosError)) throw e;
      throw e.withContext(inconsistentTypes.create({ loc, first_type: unparseTy(a), other_type: unparseTy(b) }));
    }
  };
  const build = (prim: TyPrim, args: Ty[], tname: string | undefined, src: Ty): Ty => {
    const t: { prim: TyPrim; args: Ty[]; tname?: string; memoSize?: number } = { prim, args };
    if (tname !== undefined) t.tname = tname;
    if (src.memoSize !== undefined) t.memoSize = src.memoSize;
    return t;
  };
  const comparable = (t1: Ty, t2: Ty): Ty => {
    consume(TC.mergeCycle);
    if (t1.prim !== t2.prim) {
      throw inconsistentTypes.error({ first_type: unparseTy(t1), other_type: unparseTy(t2) });
    }
    const tname = meta(t1, t2, false);
    if (t1.prim === "pair" || t1.prim === "or") {
      const fl = mergeFieldAnnot(legacy, t1.args[0]!.field, t2.args[0]!.field);
      const fr = mergeFieldAnnot(legacy, t1.args[1]!.field, t2.args[1]!.field);
      const l = comparable(t1.args[0]!, t2.args[0]!);
      const r = comparable(t1.args[1]!, t2.args[1]!);
      return build(t1.prim, [withField(l, fl), withField(r, fr)], tname, t1);
    }
    if (t1.prim === "option") return build("option", [comparable(t1.args[0]!, t2.args[0]!)], tname, t1);
    return build(t1.prim, [], tname, t1);
  };
  const help = (t1: Ty, t2: Ty): Ty => {
    try {
      return help0(t1, t2);
    } catch (e) {
      if (!(e instanceof TezosError) || isGasExhaustion(e)) throw e;
      throw e.withContext(inconsistentTypes.create({ first_type: unparseTy(t1), other_type: unparseTy(t2) }));
    }
  };
  const help0 = (t1: Ty, t2: Ty): Ty => {
    consume(TC.mergeCycle);
    if (t1.prim !== t2.prim) throw inconsistentTypes.error({ first_type: unparseTy(t1), other_type: unparseTy(t2) });
    const tname = meta(t1, t2, true);
    switch (t1.prim) {
      case "map":
      case "big_map": {
        const v = help(t1.args[1]!, t2.args[1]!);
        const k = comparable(t1.args[0]!, t2.args[0]!);
        return build(t1.prim, [k, v], tname, t1);
      }
      case "set":
      case "ticket":
        return build(t1.prim, [comparable(t1.args[0]!, t2.args[0]!)], tname, t1);
      case "pair":
      case "or": {
        const fl = mergeFieldAnnot(legacy, t1.args[0]!.field, t2.args[0]!.field);
        const fr = mergeFieldAnnot(legacy, t1.args[1]!.field, t2.args[1]!.field);
        const l = help(t1.args[0]!, t2.args[0]!);
        const r = help(t1.args[1]!, t2.args[1]!);
        return build(t1.prim, [withField(l, fl), withField(r, fr)], tname, t1);
      }
      case "lambda":
      case "contract":
      case "option":
      case "list":
        return build(t1.prim, t1.args.map((x, i) => help(x, t2.args[i]!)), tname, t1);
      case "sapling_state":
      case "sapling_transaction":
        if (t1.memoSize !== t2.memoSize) throw inconsistentMemoSizes.error({ first_memo_size: t1.memoSize ?? 0, other_memo_size: t2.memoSize ?? 0 });
        return build(t1.prim, [], tname, t1);
      default:
        return build(t1.prim, [], tname, t1);
    }
  };
  return { help, comparable };
}

// -- predicates --

/** Whether `t` is comparable (`comparable_ty_of_ty` succeeds). */
export function isComparable(t: Ty): boolean {
  if (COMPARABLE_LEAVES.has(t.prim)) return true;
  if (t.prim === "pair" || t.prim === "or" || t.prim === "option") return t.args.every(isComparable);
  return false;
}

/** Throws `comparable_type_expected` at `loc` unless `t` is comparable (`comparable_ty_of_ty`). */
export function checkComparable(t: Ty, loc: number, gas?: GasMeter): void {
  const walk = (x: Ty): boolean => {
    gas?.consume(TC.comparableTyOfTyCycle);
    if (COMPARABLE_LEAVES.has(x.prim)) return true;
    if (x.prim === "pair" || x.prim === "or" || x.prim === "option") return x.args.every(walk);
    return false;
  };
  if (!walk(t)) throw comparableTypeExpected.error({ location: loc, wrong_type: unparseTy(t) });
}

/**
 * Throws unless values of `t` can be packed (`check_packable`): no big_map/sapling_state
 * (`unexpected_lazy_storage`), operation, ticket, and `contract` only in legacy mode.
 */
export function checkPackable(t: Ty, legacy: boolean, loc: number): void {
  const walk = (x: Ty): void => {
    switch (x.prim) {
      case "big_map":
      case "sapling_state":
        throw unexpectedLazyStorage.error({ loc });
      case "operation":
        throw unexpectedOperation.error({ loc });
      case "ticket":
        throw unexpectedTicket.error({ loc });
      case "contract":
        if (!legacy) throw unexpectedContract.error({ loc });
        return;
      case "set":
      case "lambda":
        return;
      case "map":
        walk(x.args[1]!);
        return;
      default:
        for (const a of x.args) walk(a);
    }
  };
  walk(t);
}

/** Whether values of `t` can be packed (outside legacy mode: no contract). */
export function isPackable(t: Ty, legacy = false): boolean {
  try {
    checkPackable(t, legacy, -1);
    return true;
  } catch {
    return false;
  }
}

/** Throws `unexpected_ticket` at `loc` when `t` holds tickets (`check_dupable_ty`). */
export function checkDupable(t: Ty, loc: number, gas?: GasMeter): void {
  const walk = (x: Ty): void => {
    gas?.consume(TC.checkDupableCycle);
    switch (x.prim) {
      case "ticket":
        throw unexpectedTicket.error({ loc });
      case "lambda":
      case "contract":
      case "set":
        return;
      case "map":
      case "big_map":
        walk(x.args[1]!);
        return;
      default:
        for (const a of x.args) walk(a);
    }
  };
  walk(t);
}

/** Whether `t` can be duplicated (`DUP`): no ticket inside. */
export function isDuplicable(t: Ty): boolean {
  try {
    checkDupable(t, -1);
    return true;
  } catch {
    return false;
  }
}

function contains(t: Ty, pred: (x: Ty) => boolean, stopAt: (x: Ty) => boolean = () => false): boolean {
  if (pred(t)) return true;
  if (stopAt(t)) return false;
  return t.args.some((a) => contains(a, pred, stopAt));
}

/** Whether `t` may be a contract parameter (`parse_parameter_ty`): no `operation` (outside lambdas). */
export function isPassable(t: Ty): boolean {
  return !contains(t, (x) => x.prim === "operation", (x) => x.prim === "lambda");
}

/** Whether `t` may be a storage type (`parse_normal_storage_ty`): no `operation`, `contract` only in legacy mode. */
export function isStorable(t: Ty, legacy = false): boolean {
  return !contains(t, (x) => x.prim === "operation" || (!legacy && x.prim === "contract"), (x) => x.prim === "lambda");
}

/** Whether `t` may be `PUSH`ed (`parse_packable_ty`): no lazy storage, operation, ticket; `contract` only in legacy mode. */
export function isPushable(t: Ty, legacy = false): boolean {
  return !contains(
    t,
    (x) => x.prim === "big_map" || x.prim === "sapling_state" || x.prim === "operation" || x.prim === "ticket" || (!legacy && x.prim === "contract"),
    (x) => x.prim === "lambda",
  );
}

/** Whether `t` holds a big map or sapling state (Octez `has_lazy_storage`). */
export function hasLazyStorage(t: Ty): boolean {
  return contains(t, (x) => x.prim === "big_map" || x.prim === "sapling_state", (x) => x.prim === "lambda" || x.prim === "contract");
}

/** Whether `t` holds a ticket (outside lambdas and contracts). */
export function hasTickets(t: Ty): boolean {
  return contains(t, (x) => x.prim === "ticket", (x) => x.prim === "lambda" || x.prim === "contract");
}

/** Marker export so callers can tell a node is a type primitive. */
export function isTypePrim(name: string): name is TyPrim {
  return SIMPLE.has(name) || ANY_TYPE_PRIMS.includes(name) || name === "big_map" || name === "sapling_state" || name === "sapling_transaction";
}
