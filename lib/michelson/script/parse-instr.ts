/**
 * The instruction type checker (Octez `Script_ir_translator.parse_instr`): checks a Micheline
 * instruction sequence against a typed stack and compiles it into {@link Instr} closures that the
 * machine runs without looking at Micheline again. Annotations follow Hangzhou's rules; gas is
 * charged as Octez does (`parse_instr_cycle` per node, `proof_argument`, `merge_cycle`).
 * @module
 */
import type { Micheline, MichelinePrim } from "../../encoding/micheline.ts";
import type { Ty } from "../ty.ts";
import type { Lambda, MList, MMap, BigMap, Value, Some, OrValue, Address, TypedContract, Ticket, Operation } from "../value.ts";
import { MList as MListClass } from "../value.ts";
import type { ScriptContext } from "../context.ts";
import { TezosError } from "../../errors/mod.ts";
import * as TC from "../gas/typechecking.ts";
import * as G from "../gas/interpreter.ts";
import {
  parseTy, parsePackableTy, parseComparableTy, parseBigMapValueTy, parseParameterTy, parseViewTy,
  checkComparable, checkPackable, checkDupable, isComparable, tySize, MICHELSON_MAXIMUM_TYPE_SIZE,
} from "../data/parse-type.ts";
import { typeTooLarge } from "../data/errors.ts";
import { unexpectedNode, invalidKindError } from "../data/node.ts";
import { compareValues } from "../data/compare.ts";
import { emptyMap } from "../data/map.ts";
import * as A from "./annot.ts";
import type { Annot } from "./annot.ts";
import {
  badStack, badReturn, badPairArgument, badUnpairArgument, badDupnArgument, badDupnStack, deprecatedInstruction,
  entrypointNameTooLong, failNotInTailPosition, invalidArity, invalidMapBlockFail, invalidMapBody, invalidIterBody,
  nonDupableType, selfInLambda, typecheckingTooManyRecursiveCalls, undefinedBinop, undefinedUnop, unmatchedBranches,
  unexpectedAnnotation, illTypedContract, badStackItem, inconsistentTypes, comparableTypeExpected,
} from "./errors.ts";
import { bare, child, fieldOf, mergeStacks, mergeTypes, named, orT, pairT, push, pushItems, splitStack, T, unparseStack, unparseTyAnnot, vannotOf, type SItem, type Stack } from "./types.ts";
import type { Instr, Machine } from "./machine.ts";
import { addr, isDefaultEntrypoint, left, right, some } from "./values.ts";
import * as R from "./runtime.ts";
import "./lambda.ts";

/** Where code is being checked (Octez `tc_context`): in a lambda, or at a script's toplevel. */
export type TcContext =
  | { readonly kind: "lambda" }
  | { readonly kind: "toplevel"; readonly paramTy: Ty; readonly rootName: string | undefined; readonly storageTy: Ty };

/** A type logger (type maps of `typecheck_code`): location, stack before and after. */
export type TypeLogger = (loc: number, before: Stack, after: Stack) => void;

/** Options of the type checker. */
export interface TcOptions {
  readonly legacy: boolean;
  readonly typeLogger?: TypeLogger;
  /** Canonical locations of the nodes being checked. */
  readonly locs: WeakMap<object, number>;
}

/** The result of checking a sequence: its code, and the stack after it (`undefined` when it always fails). */
export interface Judgement {
  readonly code: Instr[];
  readonly aft: Stack | undefined;
}

/** A lambda body checked by {@link parseReturning}. */
export interface CheckedLambda {
  readonly body: Instr[];
  readonly bef: Stack;
  readonly aft: Stack;
  readonly loc: number;
}

const MAX_DEPTH = 10000;

function isPrim(n: Micheline): n is MichelinePrim {
  return typeof n === "object" && n !== null && !Array.isArray(n) && "prim" in n;
}

/** A HALT instruction ending a body (costs `halt`, then pops the continuation). */
export function halt(loc: number, aft: Stack, kind: "static" | "branch" = "static"): Instr {
  return {
    loc, aft, logExit: false, halt: kind,
    run: (m) => {
      m.gas.consume(G.halt);
      m.next();
    },
  };
}

/**
 * Octez checks `michelson_maximum_type_size` whenever an instruction builds a compound type
 * (`Type_size.compound1/2`): instructions push what they build on top, so the new top type is
 * checked (`type_too_large` at the instruction).
 */
function checkTypeSize(loc: number, bef: Stack, aft: Stack): void {
  if (aft === null || aft.ty === bef?.ty || aft.ty.args.length === 0) return;
  if (tySize(aft.ty) > MICHELSON_MAXIMUM_TYPE_SIZE) throw typeTooLarge.error({ loc, maximum_type_size: MICHELSON_MAXIMUM_TYPE_SIZE });
}

function instr(loc: number, aft: Stack, run: (m: Machine) => void, logExit = true): Instr {
  return { loc, aft, logExit, run };
}

/** The type checker of one script (or lambda) under one context. */
export class Checker {
  readonly ctx: ScriptContext;
  readonly opts: TcOptions;
  constructor(ctx: ScriptContext, opts: TcOptions) {
    this.ctx = ctx;
    this.opts = opts;
  }

  loc(n: Micheline): number {
    return this.opts.locs.get(n as object) ?? -1;
  }

  /** `parse_any_ty`. */
  anyTy(n: Micheline): Ty {
    if (isPrim(n) && n.prim === "operation" && (n.args === undefined || n.args.length === 0)) {
      this.ctx.gas.consume(TC.parseTypeCycle); // parse_ty's cycle, as for any other type
      const tn = (n.annots ?? []).find((a) => a.startsWith(":"));
      return tn === undefined ? T.operation : named("operation", tn.slice(1));
    }
    return parseTy(n, this.tyOpts());
  }

  private tyOpts() {
    return { legacy: this.opts.legacy, gas: this.ctx.gas, locations: this.opts.locs };
  }

  /** `parse_returning`: checks `code` from `[arg]` and requires `[ret]` at the end. */
  parseReturning(tc: TcContext, argTy: Ty, argAnnot: Annot, retTy: Ty, code: Micheline, depth: number): CheckedLambda {
    const bef = push(argTy, null, argAnnot);
    const j = this.parseInstr(tc, code, bef, depth + 1);
    const loc = this.loc(code);
    if (j.aft === undefined) {
      const aft = push(retTy, null);
      return { body: [...j.code, halt(loc, aft)], bef, aft, loc };
    }
    const aft = j.aft;
    if (aft !== null && aft.rest === null) {
      try {
        mergeTypes(this.ctx.gas, this.opts.legacy, loc, aft.ty, retTy);
      } catch (e) {
        if (e instanceof TezosError) throw e.withContext(badReturn.create({ location: loc, expected_return_type: unparseTyAnnot(retTy), wrong_stack_type: unparseStack(aft) }));
        throw e;
      }
      return { body: [...j.code, halt(loc, aft)], bef, aft, loc };
    }
    throw badReturn.error({ location: loc, expected_return_type: unparseTyAnnot(retTy), wrong_stack_type: unparseStack(aft) });
  }

  /** Checks a sequence or an instruction (`parse_instr`). */
  parseInstr(tc: TcContext, node: Micheline, stack: Stack, depth: number): Judgement {
    // Octez checks the caller's depth before the call (`non_terminal_recursion`): depth - 1 > 10 000
    if (depth > MAX_DEPTH + 1) throw typecheckingTooManyRecursiveCalls.error();
    this.ctx.gas.consume(TC.parseInstrCycle);
    if (Array.isArray(node)) {
      const items = node as readonly Micheline[];
      if (items.length === 0) {
        this.log(this.loc(node), stack, stack);
        return { code: [], aft: stack };
      }
      const code: Instr[] = [];
      let cur: Stack = stack;
      for (let i = 0; i < items.length; i++) {
        if (i > 0) {
          if (depth + i > MAX_DEPTH) throw typecheckingTooManyRecursiveCalls.error();
          this.ctx.gas.consume(TC.parseInstrCycle);
        }
        const j = this.parseInstr(tc, items[i], cur, depth + i + 1);
        for (const c of j.code) code.push(c);
        if (j.aft === undefined) {
          if (i < items.length - 1) throw failNotInTailPosition.error({ location: this.loc(items[i]) });
          return { code, aft: undefined };
        }
        cur = j.aft;
      }
      return { code, aft: cur };
    }
    if (!isPrim(node)) throw unexpectedNode(node, this.loc(node), ["sequence"], "instruction", []);
    return this.parsePrim(tc, node, stack, depth);
  }

  private log(loc: number, bef: Stack, aft: Stack): void {
    this.opts.typeLogger?.(loc, bef, aft);
  }

  private typed(loc: number, bef: Stack, aft: Stack, i: Instr | undefined): Judgement {
    checkTypeSize(loc, bef, aft);
    this.log(loc, bef, aft);
    return { code: i === undefined ? [] : [i], aft };
  }

  private badStack(loc: number, name: string, n: number, stack: Stack): TezosError {
    return badStack.error({ location: loc, primitive_name: name, relevant_stack_portion: n, wrong_stack_type: unparseStack(stack) });
  }

  /** `check_item_ty`: merges an item's type with the expected one (errors: bad_stack ⊃ bad_stack_item ⊃ inconsistent_types). */
  private checkItem(exp: Ty, got: Ty, loc: number, name: string, n: number, m: number, stack: Stack): Ty {
    try {
      return mergeTypes(this.ctx.gas, this.opts.legacy, loc, exp, got);
    } catch (e) {
      if (e instanceof TezosError) {
        throw e.withContext(badStackItem.create({ item_level: n })).withContext(
          badStack.create({ location: loc, primitive_name: name, relevant_stack_portion: m, wrong_stack_type: unparseStack(stack) }),
        );
      }
      throw e;
    }
  }

  private uint(n: Micheline, bits: number): number {
    const loc = this.loc(n);
    if (typeof n === "object" && n !== null && "int" in n) {
      const v = BigInt((n as { int: string }).int);
      if (v >= 0n && v < 1n << BigInt(bits)) return Number(v);
    }
    throw invalidSyntacticConstant(loc, n, `a positive ${bits}-bit integer (between 0 and ${(1 << bits) - 1})`);
  }

  private branch(body: Micheline): void {
    if (!Array.isArray(body)) throw invalidKindError(body, this.loc(body), ["sequence"]);
  }

  /** `merge_branches`. */
  private mergeBranches(loc: number, bt: Judgement, bf: Judgement): Stack | undefined {
    if (bt.aft !== undefined && bf.aft !== undefined) {
      try {
        return mergeStacks(this.ctx.gas, this.opts.legacy, loc, bt.aft, bf.aft);
      } catch (e) {
        if (e instanceof TezosError) throw e.withContext(unmatchedBranches.create({ location: loc, first_stack_type: unparseStack(bt.aft), other_stack_type: unparseStack(bf.aft) }));
        throw e;
      }
    }
    return bt.aft !== undefined ? bt.aft : bf.aft;
  }

  private parseDataFor(ty: Ty, node: Micheline, depth: number): Value {
    return R.parseDataWith(this.ctx, ty, node, { legacy: this.opts.legacy, locations: this.opts.locs, stackDepth: depth });
  }

  // eslint-disable-next-line complexity
  private parsePrim(tc: TcContext, node: MichelinePrim, stack: Stack, depth: number): Judgement {
    const loc = this.loc(node);
    const p = node.prim;
    const args = node.args ?? [];
    const annot = node.annots;
    const gas = this.ctx.gas;
    const legacy = this.opts.legacy;
    const s0 = stack;
    const t0 = s0?.ty;
    const t1 = s0?.rest?.ty;
    const t2 = s0?.rest?.rest?.ty;
    const arity = (n: number) => {
      if (args.length !== n) throw invalidArity.error({ location: loc, primitive_name: p, expected_arity: n, wrong_arity: args.length });
    };
    const typed = (aft: Stack, run: (m: Machine) => void) => this.typed(loc, s0, aft, instr(loc, aft, run));
    const noop = (aft: Stack) => this.typed(loc, s0, aft, undefined);
    const top = s0 as SItem;
    const rest1 = s0?.rest ?? null;
    const rest2 = s0?.rest?.rest ?? null;
    const rest3 = s0?.rest?.rest?.rest ?? null;

    switch (p) {
      // ------------------------------------------------------------------ stack
      case "DROP": {
        if (args.length === 0) {
          if (s0 === null) break;
          A.errorUnexpectedAnnot(loc, annot);
          return typed(rest1, (m) => {
            m.gas.consume(G.drop);
            m.stack.pop();
          });
        }
        if (args.length > 1) arity(1);
        const n = this.uint(args[0], 10);
        gas.consume(TC.proofArgument(n));
        let s: Stack = s0;
        for (let i = 0; i < n; i++) {
          if (s === null) throw this.badStack(loc, "DROP", n, s0);
          s = s.rest;
        }
        A.errorUnexpectedAnnot(loc, annot);
        const cost = G.dropn(n);
        return typed(s, (m) => {
          m.gas.consume(cost);
          m.stack.length -= n;
        });
      }
      case "DUP": {
        if (args.length === 0) {
          if (s0 === null) break;
          const a = A.parseVarAnnot(loc, annot, top.annot);
          this.checkDupable(top.ty, loc);
          return typed(push(top.ty, s0, a), (m) => {
            m.gas.consume(G.dup);
            m.stack.push(m.stack[m.stack.length - 1]);
          });
        }
        if (args.length > 1) arity(1);
        const a = A.parseVarAnnot(loc, annot);
        const n = this.uint(args[0], 10);
        gas.consume(TC.proofArgument(n));
        if (n <= 0) throw badDupnArgument.error({ loc });
        let s: Stack = s0;
        for (let i = 1; i < n && s !== null; i++) s = s.rest;
        if (s === null) throw this.badStack(loc, "DUP", 1, s0).withContext(badDupnStack.create({ loc }));
        this.checkDupable(s.ty, loc);
        const cost = G.dupn(n);
        return typed(push(s.ty, s0, a), (m) => {
          m.gas.consume(cost);
          m.stack.push(m.stack[m.stack.length - n]);
        });
      }
      case "DIG": {
        if (args.length !== 1) arity(1);
        const n = this.uint(args[0], 10);
        gas.consume(TC.proofArgument(n));
        A.errorUnexpectedAnnot(loc, annot);
        const split = splitStack(s0, n);
        if (split === undefined || split.rest === null) throw this.badStack(loc, "DIG", 3, s0);
        const x = split.rest;
        const aft = push(x.ty, pushItems(split.items, x.rest), x.annot);
        const cost = G.dign(n);
        return typed(aft, (m) => {
          m.gas.consume(cost);
          const st = m.stack;
          const i = st.length - 1 - n;
          const v = st[i];
          st.splice(i, 1);
          st.push(v);
        });
      }
      case "DUG": {
        if (args.length !== 1) arity(1);
        const n = this.uint(args[0], 10);
        gas.consume(TC.proofArgument(n));
        A.errorUnexpectedAnnot(loc, annot);
        if (s0 === null) throw this.badStack(loc, "DUG", 1, s0);
        const split = splitStack(s0.rest, n);
        if (split === undefined) throw this.badStack(loc, "DUG", n, s0.rest);
        const aft = pushItems(split.items, push(top.ty, split.rest, top.annot));
        const cost = G.dugn(n);
        return typed(aft, (m) => {
          m.gas.consume(cost);
          const st = m.stack;
          const v = st.pop() as Value;
          st.splice(st.length - n, 0, v);
        });
      }
      case "SWAP": {
        if (s0 === null || rest1 === null) break;
        A.errorUnexpectedAnnot(loc, annot);
        const aft = push(rest1.ty, push(top.ty, rest2, top.annot), rest1.annot);
        return typed(aft, (m) => {
          m.gas.consume(G.swap);
          const st = m.stack;
          const l = st.length;
          const x = st[l - 1];
          st[l - 1] = st[l - 2];
          st[l - 2] = x;
        });
      }
      case "PUSH": {
        arity(2);
        const a = A.parseVarAnnot(loc, annot);
        const t = parsePackableTy(args[0], this.tyOpts());
        const v = this.parseDataFor(t, args[1], depth + 1);
        return typed(push(t, s0, a), (m) => {
          m.gas.consume(G.const_);
          m.stack.push(v);
        });
      }
      case "UNIT": {
        arity(0);
        const [a, tn] = A.parseVarTypeAnnot(loc, annot);
        return typed(push(named("unit", tn), s0, a), (m) => {
          m.gas.consume(G.const_);
          m.stack.push(null);
        });
      }
      // ------------------------------------------------------------------ options
      case "SOME": {
        if (s0 === null) break;
        arity(0);
        const [a, tn] = A.parseVarTypeAnnot(loc, annot);
        return typed(push(named("option", tn, bare(top.ty)), rest1, a), (m) => {
          m.gas.consume(G.consSome);
          const st = m.stack;
          st[st.length - 1] = some(st[st.length - 1]);
        });
      }
      case "NONE": {
        arity(1);
        const t = this.anyTy(args[0]);
        const [a, tn] = A.parseVarTypeAnnot(loc, annot);
        return typed(push(named("option", tn, t), s0, a), (m) => {
          m.gas.consume(G.consNone);
          m.stack.push(null);
        });
      }
      case "IF_NONE": {
        arity(2);
        if (t0?.prim !== "option") break;
        this.branch(args[0]);
        this.branch(args[1]);
        A.errorUnexpectedAnnot(loc, annot);
        const a = A.genAccessAnnot(top.annot, "some");
        const bNoneBef = rest1;
        const bSomeBef = push(t0.args[0], rest1, a);
        const bt = this.parseInstr(tc, args[0], bNoneBef, depth + 1);
        const bf = this.parseInstr(tc, args[1], bSomeBef, depth + 1);
        const aft = this.mergeBranches(loc, bt, bf);
        const bNone = [...bt.code, halt(loc, aft ?? null, "branch")];
        const bSome = [...bf.code, halt(loc, aft ?? null, "branch")];
        return this.control(loc, s0, aft, (m, self) => {
          m.gas.consume(G.ifNone);
          const st = m.stack;
          const v = st.pop() as Value;
          if (v === null) R.enterBranch(m, bNone, self, bNoneBef);
          else {
            st.push((v as Some).some);
            R.enterBranch(m, bSome, self, bSomeBef);
          }
        });
      }
      // ------------------------------------------------------------------ pairs
      case "PAIR": {
        if (args.length === 0) {
          if (s0 === null || rest1 === null) break;
          const [a, tn, lf, rf] = A.parseConstrAnnot(loc, annot, { v: top.annot }, { v: rest1.annot });
          const t = pairT(top.ty, lf, top.annot, rest1.ty, rf, rest1.annot, tn);
          return typed(push(t, rest2, a), (m) => {
            m.gas.consume(G.consPair);
            const st = m.stack;
            const x = st.pop() as Value;
            st[st.length - 1] = [x, st[st.length - 1]];
          });
        }
        if (args.length > 1) arity(1);
        const a = A.parseVarAnnot(loc, annot);
        const n = this.uint(args[0], 10);
        gas.consume(TC.proofArgument(n));
        if (n <= 1) throw badPairArgument.error({ loc });
        const tys: Ty[] = [];
        let s: Stack = s0;
        for (let i = 0; i < n; i++) {
          if (s === null) throw this.badStack(loc, "PAIR", 1, s0);
          tys.push(s.ty);
          s = s.rest;
        }
        let t = tys[n - 1];
        for (let i = n - 2; i >= 0; i--) t = pairT(tys[i], undefined, undefined, t, undefined, undefined);
        const cost = G.comb(n);
        return typed(push(t, s, a), (m) => {
          m.gas.consume(cost);
          const st = m.stack;
          let v = st.pop() as Value;
          const vs: Value[] = [v];
          for (let i = 1; i < n; i++) vs.push(st.pop() as Value);
          v = vs[n - 1];
          for (let i = n - 2; i >= 0; i--) v = [vs[i], v];
          st.push(v);
        });
      }
      case "UNPAIR": {
        if (args.length === 0) {
          if (t0?.prim !== "pair") break;
          const [l, r] = t0.args;
          const [va, vb, fa, fb] = A.parseUnpairAnnot(loc, annot, fieldOf(l), fieldOf(r), top.annot, vannotOf(l), vannotOf(r));
          A.checkCorrectField(fa, fieldOf(l));
          A.checkCorrectField(fb, fieldOf(r));
          return typed(push(bare(l), push(bare(r), rest1, vb), va), (m) => {
            m.gas.consume(G.unpair);
            const st = m.stack;
            const [x, y] = st.pop() as readonly [Value, Value];
            st.push(y, x);
          });
        }
        if (args.length > 1) arity(1);
        A.errorUnexpectedAnnot(loc, annot);
        const n = this.uint(args[0], 10);
        gas.consume(TC.proofArgument(n));
        if (n <= 1) throw badUnpairArgument.error({ loc });
        if (s0 === null) throw this.badStack(loc, "UNPAIR", 1, s0);
        const items: { ty: Ty; annot: Annot }[] = [];
        let t = top.ty;
        let an: Annot = top.annot;
        for (let i = 1; i < n; i++) {
          if (t.prim !== "pair") throw this.badStack(loc, "UNPAIR", 1, s0);
          items.push({ ty: bare(t.args[0]), annot: fieldOf(t.args[0]) });
          an = fieldOf(t.args[1]);
          t = bare(t.args[1]);
        }
        items.push({ ty: t, annot: an });
        const aft = pushItems(items, rest1);
        const cost = G.uncomb(n);
        return typed(aft, (m) => {
          m.gas.consume(cost);
          const st = m.stack;
          let v = st.pop() as Value;
          const vs: Value[] = [];
          for (let i = 1; i < n; i++) {
            const [a, b] = v as readonly [Value, Value];
            vs.push(a);
            v = b;
          }
          st.push(v);
          for (let i = vs.length - 1; i >= 0; i--) st.push(vs[i]);
        });
      }
      case "CAR":
      case "CDR": {
        if (t0?.prim !== "pair") break;
        arity(0);
        const c = p === "CAR" ? t0.args[0] : t0.args[1];
        const [a, f] = A.parseDestrAnnot(loc, annot, p === "CAR" ? "car" : "cdr", fieldOf(c), top.annot, vannotOf(c));
        A.checkCorrectField(f, fieldOf(c));
        const idx = p === "CAR" ? 0 : 1;
        const cost = p === "CAR" ? G.car : G.cdr;
        return typed(push(bare(c), rest1, a), (m) => {
          m.gas.consume(cost);
          const st = m.stack;
          st[st.length - 1] = (st[st.length - 1] as readonly [Value, Value])[idx];
        });
      }
      case "GET": {
        if (args.length === 1) {
          if (s0 === null) throw this.badStack(loc, "GET", 1, s0);
          const a = A.parseVarAnnot(loc, annot);
          const n = this.uint(args[0], 11);
          gas.consume(TC.proofArgument(n));
          let t = top.ty;
          let k = n;
          while (k > 1) {
            if (t.prim !== "pair") throw this.badStack(loc, "GET", 1, s0);
            t = t.args[1];
            k -= 2;
          }
          if (k === 1) {
            if (t.prim !== "pair") throw this.badStack(loc, "GET", 1, s0);
            t = t.args[0];
          }
          const cost = G.combGet(n);
          return typed(push(bare(t), rest1, a), (m) => {
            m.gas.consume(cost);
            const st = m.stack;
            let v = st[st.length - 1];
            let j = n;
            while (j > 1) {
              v = (v as readonly [Value, Value])[1];
              j -= 2;
            }
            if (j === 1) v = (v as readonly [Value, Value])[0];
            st[st.length - 1] = v;
          });
        }
        arity(0);
        if (s0 === null || rest1 === null) break;
        const mt = rest1.ty;
        if (mt.prim === "map" || mt.prim === "big_map") {
          this.checkItem(top.ty, mt.args[0], loc, "GET", 1, 2, s0);
          const a = A.parseVarAnnot(loc, annot);
          const aft = push(named("option", undefined, mt.args[1]), rest2, a);
          const kty = mt.args[0];
          if (mt.prim === "map") {
            return typed(aft, (m) => {
              const st = m.stack;
              const k = st.pop() as Value;
              const map = st[st.length - 1] as MMap;
              m.gas.consume(G.mapGet(kty, k, map));
              const r = map.get(k);
              st[st.length - 1] = r === undefined ? null : some(r);
            });
          }
          return typed(aft, (m) => {
            const st = m.stack;
            const k = st.pop() as Value;
            const map = st[st.length - 1] as BigMap;
            m.gas.consume(G.bigMapGet(map.diff));
            const r = R.bigMapGet(m, map, k);
            st[st.length - 1] = r === undefined ? null : some(r);
          });
        }
        break;
      }
      case "UPDATE": {
        if (args.length === 1) {
          if (s0 === null || rest1 === null) throw this.badStack(loc, "UPDATE", 2, s0);
          const a = A.parseVarAnnot(loc, annot);
          const n = this.uint(args[0], 11);
          gas.consume(TC.proofArgument(n));
          const build = (vt: Ty, t: Ty, k: number): Ty => {
            if (k === 0) return vt;
            if (t.prim !== "pair") throw this.badStack(loc, "UPDATE", 2, s0);
            const [l, r] = t.args;
            if (k === 1) return pairT(vt, fieldOf(l), vannotOf(l), r, fieldOf(r), vannotOf(r), t.tname);
            return pairT(l, fieldOf(l), vannotOf(l), build(vt, bare(r), k - 2), fieldOf(r), vannotOf(r), t.tname);
          };
          const aftTy = build(top.ty, rest1.ty, n);
          const cost = G.combSet(n);
          return typed(push(aftTy, rest2, a), (m) => {
            m.gas.consume(cost);
            const st = m.stack;
            const v = st.pop() as Value;
            const set = (c: Value, k: number): Value => {
              if (k === 0) return v;
              const [x, y] = c as readonly [Value, Value];
              if (k === 1) return [v, y];
              return [x, set(y, k - 2)];
            };
            st[st.length - 1] = set(st[st.length - 1], n);
          });
        }
        arity(0);
        if (s0 === null || rest1 === null || rest2 === null) break;
        const ct = rest2.ty;
        if (ct.prim === "set" && rest1.ty.prim === "bool") {
          this.checkItem(ct.args[0], top.ty, loc, "UPDATE", 1, 3, s0);
          const a = A.parseVarAnnot(loc, annot, rest2.annot);
          const kty = ct.args[0];
          return typed(push(ct, rest3, a), (m) => {
            const st = m.stack;
            const k = st.pop() as Value;
            const b = st.pop() as boolean;
            const set = st[st.length - 1] as MMap;
            m.gas.consume(G.setUpdate(kty, k, set));
            st[st.length - 1] = b ? set.set(k, null) : set.delete(k);
          });
        }
        if ((ct.prim === "map" || ct.prim === "big_map") && rest1.ty.prim === "option") {
          this.checkItem(top.ty, ct.args[0], loc, "UPDATE", 1, 3, s0);
          const v = this.checkItem(rest1.ty.args[0], ct.args[1], loc, "UPDATE", 2, 3, s0);
          const a = A.parseVarAnnot(loc, annot, rest2.annot);
          const aftTy = named(ct.prim, ct.tname, ct.args[0], v);
          const kty = ct.args[0];
          if (ct.prim === "map") {
            return typed(push(aftTy, rest3, a), (m) => {
              const st = m.stack;
              const k = st.pop() as Value;
              const o = st.pop() as Value;
              const map = st[st.length - 1] as MMap;
              m.gas.consume(G.mapUpdate(kty, k, map));
              st[st.length - 1] = o === null ? map.delete(k) : map.set(k, (o as Some).some);
            });
          }
          return typed(push(aftTy, rest3, a), (m) => {
            const st = m.stack;
            const k = st.pop() as Value;
            const o = st.pop() as Value;
            const map = st[st.length - 1] as BigMap;
            m.gas.consume(G.bigMapUpdate(map.diff));
            st[st.length - 1] = R.bigMapUpdate(m, map, k, o as Some | null);
          });
        }
        break;
      }
      case "GET_AND_UPDATE": {
        arity(0);
        if (s0 === null || rest1 === null || rest2 === null) break;
        const ct = rest2.ty;
        if ((ct.prim === "map" || ct.prim === "big_map") && rest1.ty.prim === "option") {
          this.checkItem(top.ty, ct.args[0], loc, "GET_AND_UPDATE", 1, 3, s0);
          const v = this.checkItem(rest1.ty.args[0], ct.args[1], loc, "GET_AND_UPDATE", 2, 3, s0);
          const a = A.parseVarAnnot(loc, annot, rest2.annot);
          const aft = push(rest1.ty, push(named(ct.prim, ct.tname, ct.args[0], v), rest3, a), rest1.annot);
          const kty = ct.args[0];
          if (ct.prim === "map") {
            return typed(aft, (m) => {
              const st = m.stack;
              const k = st.pop() as Value;
              const o = st.pop() as Value;
              const map = st[st.length - 1] as MMap;
              m.gas.consume(G.mapGetAndUpdate(kty, k, map));
              const old = map.get(k);
              st[st.length - 1] = o === null ? map.delete(k) : map.set(k, (o as Some).some);
              st.push(old === undefined ? null : some(old));
            });
          }
          return typed(aft, (m) => {
            const st = m.stack;
            const k = st.pop() as Value;
            const o = st.pop() as Value;
            const map = st[st.length - 1] as BigMap;
            m.gas.consume(G.bigMapGetAndUpdate(map.diff));
            const [old, updated] = R.bigMapGetAndUpdate(m, map, k, o as Some | null);
            st[st.length - 1] = updated;
            st.push(old === undefined ? null : some(old));
          });
        }
        break;
      }
      // ------------------------------------------------------------------ unions
      case "LEFT":
      case "RIGHT": {
        arity(1);
        if (s0 === null) break;
        const other = this.anyTy(args[0]);
        const special = { v: top.annot };
        const [a, tn, lf, rf] =
          p === "LEFT" ? A.parseConstrAnnot(loc, annot, special, undefined) : A.parseConstrAnnot(loc, annot, undefined, special);
        const t = p === "LEFT" ? orT(top.ty, lf, other, rf, tn) : orT(other, lf, top.ty, rf, tn);
        const mk = p === "LEFT" ? left : right;
        const cost = p === "LEFT" ? G.consLeft : G.consRight;
        return typed(push(t, rest1, a), (m) => {
          m.gas.consume(cost);
          const st = m.stack;
          st[st.length - 1] = mk(st[st.length - 1]);
        });
      }
      case "IF_LEFT": {
        arity(2);
        if (t0?.prim !== "or") break;
        this.branch(args[0]);
        this.branch(args[1]);
        A.errorUnexpectedAnnot(loc, annot);
        const [l, r] = t0.args;
        const lBef = push(bare(l), rest1, A.genAccessAnnot(top.annot, fieldOf(l), "left"));
        const rBef = push(bare(r), rest1, A.genAccessAnnot(top.annot, fieldOf(r), "right"));
        const bt = this.parseInstr(tc, args[0], lBef, depth + 1);
        const bf = this.parseInstr(tc, args[1], rBef, depth + 1);
        const aft = this.mergeBranches(loc, bt, bf);
        const bl = [...bt.code, halt(loc, aft ?? null, "branch")];
        const br = [...bf.code, halt(loc, aft ?? null, "branch")];
        return this.control(loc, s0, aft, (m, self) => {
          m.gas.consume(G.ifLeft);
          const st = m.stack;
          const v = st[st.length - 1] as OrValue;
          st[st.length - 1] = v.value;
          if (v.or === "Left") R.enterBranch(m, bl, self, lBef);
          else R.enterBranch(m, br, self, rBef);
        });
      }
      // ------------------------------------------------------------------ lists
      case "NIL": {
        arity(1);
        const t = this.anyTy(args[0]);
        const [a, tn] = A.parseVarTypeAnnot(loc, annot);
        return typed(push(named("list", tn, t), s0, a), (m) => {
          m.gas.consume(G.nil);
          m.stack.push(MListClass.EMPTY);
        });
      }
      case "CONS": {
        arity(0);
        if (s0 === null || rest1 === null || rest1.ty.prim !== "list") break;
        const t = this.checkItem(top.ty, rest1.ty.args[0], loc, "CONS", 1, 2, s0);
        const a = A.parseVarAnnot(loc, annot);
        return typed(push(named("list", rest1.ty.tname, t), rest2, a), (m) => {
          m.gas.consume(G.consList);
          const st = m.stack;
          const x = st.pop() as Value;
          st[st.length - 1] = (st[st.length - 1] as MList).cons(x);
        });
      }
      case "IF_CONS": {
        arity(2);
        if (t0?.prim !== "list") break;
        this.branch(args[0]);
        this.branch(args[1]);
        A.errorUnexpectedAnnot(loc, annot);
        const consBef = push(t0.args[0], push(t0, rest1, A.genAccessAnnot(top.annot, "tl")), A.genAccessAnnot(top.annot, "hd"));
        const bt = this.parseInstr(tc, args[0], consBef, depth + 1);
        const bf = this.parseInstr(tc, args[1], rest1, depth + 1);
        const aft = this.mergeBranches(loc, bt, bf);
        const bc = [...bt.code, halt(loc, aft ?? null, "branch")];
        const bn = [...bf.code, halt(loc, aft ?? null, "branch")];
        return this.control(loc, s0, aft, (m, self) => {
          m.gas.consume(G.ifCons);
          const st = m.stack;
          const l = st.pop() as MList;
          if (l.size === 0) R.enterBranch(m, bn, self, rest1);
          else {
            st.push(l.tail as MList, l.head as Value);
            R.enterBranch(m, bc, self, consBef);
          }
        });
      }
      case "SIZE": {
        arity(0);
        if (s0 === null) break;
        const k = top.ty.prim;
        let cost: number;
        let a: Annot;
        let tn: Annot;
        if (k === "list") [a, tn] = A.parseVarTypeAnnot(loc, annot);
        else if (k === "set" || k === "map" || k === "string" || k === "bytes") a = A.parseVarAnnot(loc, annot);
        else break;
        if (k === "list") cost = G.listSize;
        else if (k === "set") cost = G.setSize;
        else if (k === "map") cost = G.mapSize;
        else if (k === "string") cost = G.stringSize;
        else cost = G.bytesSize;
        return typed(push(named("nat", tn), rest1, a), (m) => {
          m.gas.consume(cost);
          const st = m.stack;
          const v = st[st.length - 1];
          st[st.length - 1] = BigInt(k === "string" ? R.stringLength(v as string) : k === "bytes" ? (v as Uint8Array).length : (v as MList | MMap).size);
        });
      }
      case "MAP": {
        arity(1);
        if (t0?.prim === "list") {
          this.branch(args[0]);
          const [retAnnot, tn] = A.parseVarTypeAnnot(loc, annot);
          const bodyBef = push(t0.args[0], rest1, A.genAccessAnnot(top.annot, "elt"));
          const j = this.parseInstr(tc, args[0], bodyBef, depth + 1);
          if (j.aft === undefined) throw invalidMapBlockFail.error({ loc });
          if (j.aft === null) throw invalidMapBody.error({ loc, body_type: unparseStack(j.aft) });
          let rest: Stack;
          try {
            rest = mergeStacks(gas, legacy, loc, j.aft.rest, rest1);
          } catch (e) {
            if (e instanceof TezosError) throw e.withContext(invalidMapBody.create({ loc, body_type: unparseStack(j.aft) }));
            throw e;
          }
          const aft = push(named("list", tn, j.aft.ty), rest, retAnnot);
          const body = [...j.code, halt(loc, push(j.aft.ty, rest, retAnnot))];
          return this.control(loc, s0, aft, (m) => {
            const st = m.stack;
            const l = st.pop() as MList;
            if (!m.traced) m.gas.consume(G.listMap(l));
            R.startListMap(m, body, l, loc, bodyBef, aft);
          });
        }
        if (t0?.prim === "map") {
          this.branch(args[0]);
          const [retAnnot, tn] = A.parseVarTypeAnnot(loc, annot);
          const kty = t0.args[0];
          const bodyBef = push(pairT(kty, undefined, "key", t0.args[1], undefined, "elt"), rest1);
          const j = this.parseInstr(tc, args[0], bodyBef, depth + 1);
          if (j.aft === undefined) throw invalidMapBlockFail.error({ loc });
          if (j.aft === null) throw invalidMapBody.error({ loc, body_type: unparseStack(j.aft) });
          let rest: Stack;
          try {
            rest = mergeStacks(gas, legacy, loc, j.aft.rest, rest1);
          } catch (e) {
            if (e instanceof TezosError) throw e.withContext(invalidMapBody.create({ loc, body_type: unparseStack(j.aft) }));
            throw e;
          }
          const aft = push(named("map", tn, kty, j.aft.ty), rest, retAnnot);
          const body = [...j.code, halt(loc, push(j.aft.ty, rest, retAnnot))];
          return this.control(loc, s0, aft, (m) => {
            const st = m.stack;
            const map = st.pop() as MMap;
            if (!m.traced) m.gas.consume(G.mapMap(map));
            R.startMapMap(m, body, map, kty, loc, bodyBef, aft);
          });
        }
        break;
      }
      case "ITER": {
        arity(1);
        if (t0?.prim !== "list" && t0?.prim !== "set" && t0?.prim !== "map") break;
        this.branch(args[0]);
        A.errorUnexpectedAnnot(loc, annot);
        const bodyBef =
          t0.prim === "map"
            ? push(pairT(t0.args[0], undefined, "key", t0.args[1], undefined, "elt"), rest1)
            : push(t0.args[0], rest1, A.genAccessAnnot(top.annot, "elt"));
        const j = this.parseInstr(tc, args[0], bodyBef, depth + 1);
        let aft = rest1;
        if (j.aft !== undefined) {
          try {
            aft = mergeStacks(gas, legacy, loc, j.aft, rest1);
          } catch (e) {
            if (e instanceof TezosError) throw e.withContext(invalidIterBody.create({ loc, bef_stack: unparseStack(rest1), aft_stack: unparseStack(j.aft) }));
            throw e;
          }
        }
        const body = [...j.code, halt(loc, rest1)];
        const kind = t0.prim;
        return this.control(loc, s0, aft, (m) => {
          const st = m.stack;
          const c = st.pop() as MList | MMap;
          let items: Value[];
          if (kind === "list") {
            if (!m.traced) m.gas.consume(G.listIter(c));
            items = (c as MList).toArray();
          } else if (kind === "set") {
            if (!m.traced) m.gas.consume(G.setIter(c));
            items = [];
            for (const [k] of (c as MMap).entries()) items.push(k);
          } else {
            if (!m.traced) m.gas.consume(G.mapIter(c));
            items = [];
            for (const [k, v] of (c as MMap).entries()) items.push([k, v]);
          }
          R.startIter(m, body, items, loc, bodyBef, aft);
        });
      }
      case "MEM": {
        arity(0);
        if (s0 === null || rest1 === null) break;
        const ct = rest1.ty;
        if (ct.prim === "set") {
          const [a, tn] = A.parseVarTypeAnnot(loc, annot);
          this.checkItem(ct.args[0], top.ty, loc, "MEM", 1, 2, s0);
          const kty = ct.args[0];
          return typed(push(named("bool", tn), rest2, a), (m) => {
            const st = m.stack;
            const k = st.pop() as Value;
            const set = st[st.length - 1] as MMap;
            m.gas.consume(G.setMem(kty, k, set));
            st[st.length - 1] = set.has(k);
          });
        }
        if (ct.prim === "map" || ct.prim === "big_map") {
          this.checkItem(top.ty, ct.args[0], loc, "MEM", 1, 2, s0);
          const a = A.parseVarAnnot(loc, annot);
          const kty = ct.args[0];
          if (ct.prim === "map") {
            return typed(push(T.bool, rest2, a), (m) => {
              const st = m.stack;
              const k = st.pop() as Value;
              const map = st[st.length - 1] as MMap;
              m.gas.consume(G.mapMem(kty, k, map));
              st[st.length - 1] = map.has(k);
            });
          }
          return typed(push(T.bool, rest2, a), (m) => {
            const st = m.stack;
            const k = st.pop() as Value;
            const map = st[st.length - 1] as BigMap;
            m.gas.consume(G.bigMapMem(map.diff));
            st[st.length - 1] = R.bigMapMem(m, map, k);
          });
        }
        break;
      }
      case "EMPTY_SET": {
        arity(1);
        const t = parseComparableTy(args[0], this.tyOpts());
        const [a, tn] = A.parseVarTypeAnnot(loc, annot);
        return typed(push(named("set", tn, t), s0, a), (m) => {
          m.gas.consume(G.emptySet);
          m.stack.push(emptyMap(t));
        });
      }
      case "EMPTY_MAP": {
        arity(2);
        const k = parseComparableTy(args[0], this.tyOpts());
        const v = this.anyTy(args[1]);
        const [a, tn] = A.parseVarTypeAnnot(loc, annot);
        return typed(push(named("map", tn, k, v), s0, a), (m) => {
          m.gas.consume(G.emptyMap);
          m.stack.push(emptyMap(k));
        });
      }
      case "EMPTY_BIG_MAP": {
        arity(2);
        const k = parseComparableTy(args[0], this.tyOpts());
        const v = parseBigMapValueTy(args[1], this.tyOpts());
        const [a, tn] = A.parseVarTypeAnnot(loc, annot);
        return typed(push(named("big_map", tn, k, v), s0, a), (m) => {
          m.gas.consume(G.emptyBigMap);
          const bm: BigMap = { bigMap: true, id: undefined, diff: emptyMap(k), keyTy: k, valueTy: v };
          m.stack.push(bm);
        });
      }
      // ------------------------------------------------------------------ control
      case "IF": {
        arity(2);
        if (t0?.prim !== "bool") break;
        this.branch(args[0]);
        this.branch(args[1]);
        A.errorUnexpectedAnnot(loc, annot);
        const bt = this.parseInstr(tc, args[0], rest1, depth + 1);
        const bf = this.parseInstr(tc, args[1], rest1, depth + 1);
        const aft = this.mergeBranches(loc, bt, bf);
        const b1 = [...bt.code, halt(loc, aft ?? null, "branch")];
        const b2 = [...bf.code, halt(loc, aft ?? null, "branch")];
        return this.control(loc, s0, aft, (m, self) => {
          m.gas.consume(G.if_);
          const c = m.stack.pop() as boolean;
          R.enterBranch(m, c ? b1 : b2, self, rest1);
        });
      }
      case "LOOP": {
        arity(1);
        if (t0?.prim !== "bool") break;
        this.branch(args[0]);
        A.errorUnexpectedAnnot(loc, annot);
        const j = this.parseInstr(tc, args[0], rest1, depth + 1);
        if (j.aft !== undefined) {
          try {
            mergeStacks(gas, legacy, loc, j.aft, s0);
          } catch (e) {
            if (e instanceof TezosError) throw e.withContext(unmatchedBranches.create({ location: loc, first_stack_type: unparseStack(j.aft), other_stack_type: unparseStack(s0) }));
            throw e;
          }
        }
        const body = [...j.code, halt(loc, s0)];
        return this.control(loc, s0, rest1, (m) => {
          if (!m.traced) m.gas.consume(G.loop);
          R.startLoop(m, body, loc, rest1, false);
        });
      }
      case "LOOP_LEFT": {
        arity(1);
        if (t0?.prim !== "or") break;
        this.branch(args[0]);
        const a = A.parseVarAnnot(loc, annot);
        const [l, r] = t0.args;
        const bodyBef = push(bare(l), rest1, A.genAccessAnnot(top.annot, fieldOf(l), "left"));
        const j = this.parseInstr(tc, args[0], bodyBef, depth + 1);
        if (j.aft !== undefined) {
          try {
            mergeStacks(gas, legacy, loc, j.aft, s0);
          } catch (e) {
            if (e instanceof TezosError) throw e.withContext(unmatchedBranches.create({ location: loc, first_stack_type: unparseStack(j.aft), other_stack_type: unparseStack(s0) }));
            throw e;
          }
        }
        const aft = push(bare(r), rest1, a);
        const body = [...j.code, halt(loc, s0)];
        return this.control(loc, s0, aft, (m) => {
          if (!m.traced) m.gas.consume(G.loopLeft);
          R.startLoop(m, body, loc, bodyBef, true, aft);
        });
      }
      case "LAMBDA": {
        arity(3);
        const at = this.anyTy(args[0]);
        const rt = this.anyTy(args[1]);
        this.branch(args[2]);
        const a = A.parseVarAnnot(loc, annot);
        const lam = this.lambda(at, rt, args[2], depth + 1);
        return typed(push(named("lambda", undefined, at, rt), s0, a), (m) => {
          m.gas.consume(G.lambda);
          m.stack.push(lam);
        });
      }
      case "EXEC": {
        arity(0);
        if (s0 === null || rest1 === null || rest1.ty.prim !== "lambda") break;
        this.checkItem(top.ty, rest1.ty.args[0], loc, "EXEC", 1, 2, s0);
        const a = A.parseVarAnnot(loc, annot);
        const aft = push(rest1.ty.args[1], rest2, a);
        return this.control(loc, s0, aft, (m, self) => {
          if (!m.traced) m.gas.consume(G.exec);
          R.exec(m, self);
        });
      }
      case "APPLY": {
        arity(0);
        if (s0 === null || rest1 === null || rest1.ty.prim !== "lambda" || rest1.ty.args[0].prim !== "pair") break;
        const lt = rest1.ty;
        const [cap, arg] = lt.args[0].args;
        checkPackable(bare(cap), false, loc);
        const capTy = this.checkItem(top.ty, bare(cap), loc, "APPLY", 1, 2, s0);
        const a = A.parseVarAnnot(loc, annot);
        const aft = push(named("lambda", lt.args[0].tname, bare(arg), lt.args[1]), rest2, a);
        return typed(aft, (m) => {
          m.gas.consume(G.apply);
          const st = m.stack;
          const c = st.pop() as Value;
          const lam = st[st.length - 1] as Lambda;
          st[st.length - 1] = R.applyLambda(m, capTy, c, lam);
        });
      }
      case "DIP": {
        if (args.length === 1) {
          if (s0 === null) break;
          A.errorUnexpectedAnnot(loc, annot);
          this.branch(args[0]);
          const j = this.parseInstr(tc, args[0], rest1, depth + 1);
          if (j.aft === undefined) throw failNotInTailPosition.error({ location: loc });
          const aft = push(top.ty, j.aft, top.annot);
          const body = [...j.code, halt(loc, j.aft)];
          return this.control(loc, s0, aft, (m, self) => {
            m.gas.consume(G.dip);
            R.dip(m, self, body, rest1);
          });
        }
        if (args.length !== 2) throw invalidArity.error({ location: loc, primitive_name: p, expected_arity: 2, wrong_arity: args.length });
        const n = this.uint(args[0], 10);
        gas.consume(TC.proofArgument(n));
        A.errorUnexpectedAnnot(loc, annot);
        const split = splitStack(s0, n);
        if (split === undefined) throw this.badStack(loc, "DIP", 1, s0);
        const j = this.parseInstr(tc, args[1], split.rest, depth + 1);
        if (j.aft === undefined) throw failNotInTailPosition.error({ location: loc });
        const aft = pushItems(split.items, j.aft);
        const body = [...j.code, halt(loc, j.aft)];
        const inner = split.rest;
        const cost = G.dipn(n);
        return this.control(loc, s0, aft, (m, self) => {
          m.gas.consume(cost);
          R.dipn(m, self, body, n, inner);
        });
      }
      case "FAILWITH": {
        arity(0);
        if (s0 === null) break;
        A.errorUnexpectedAnnot(loc, annot);
        if (!legacy) checkPackable(top.ty, false, loc);
        const t = top.ty;
        this.log(loc, s0, null);
        return {
          code: [instr(loc, null, (m) => R.failwith(m, loc, t), false)],
          aft: undefined,
        };
      }
      case "NEVER": {
        arity(0);
        if (t0?.prim !== "never") break;
        A.errorUnexpectedAnnot(loc, annot);
        this.log(loc, s0, null);
        return { code: [instr(loc, null, () => { throw new TypeError("NEVER reached"); }, false)], aft: undefined };
      }
      case "CAST": {
        arity(1);
        if (s0 === null) break;
        const a = A.parseVarAnnot(loc, annot, top.annot);
        const t = this.anyTy(args[0]);
        mergeTypes(gas, legacy, loc, t, top.ty);
        return noop(push(t, rest1, a));
      }
      case "RENAME": {
        arity(0);
        if (s0 === null) break;
        const a = A.parseVarAnnot(loc, annot);
        return noop(push(top.ty, rest1, a));
      }
      // ------------------------------------------------------------------ comparison
      case "COMPARE": {
        arity(0);
        if (s0 === null || rest1 === null) break;
        const a = A.parseVarAnnot(loc, annot);
        const t = this.checkItem(top.ty, rest1.ty, loc, "COMPARE", 1, 2, s0);
        // comparable_ty_of_ty: one cycle per node visited (depth first, up to the first non-comparable one)
        try {
          checkComparable(t, loc, gas);
        } catch (e) {
          if (e instanceof TezosError) throw comparableTypeExpected.error({ location: loc, wrong_type: unparseTyAnnot(t) });
          throw e;
        }
        return typed(push(T.int, rest2, a), (m) => {
          const st = m.stack;
          const x = st.pop() as Value;
          const y = st[st.length - 1];
          m.gas.consume(G.compare(t, x, y));
          st[st.length - 1] = BigInt(compareValues(t, x, y));
        });
      }
      case "EQ":
      case "NEQ":
      case "LT":
      case "GT":
      case "LE":
      case "GE": {
        arity(0);
        if (t0?.prim !== "int") break;
        const a = A.parseVarAnnot(loc, annot);
        const cost = G[p.toLowerCase() as "eq"];
        const f =
          p === "EQ" ? (x: bigint) => x === 0n : p === "NEQ" ? (x: bigint) => x !== 0n : p === "LT" ? (x: bigint) => x < 0n
            : p === "GT" ? (x: bigint) => x > 0n : p === "LE" ? (x: bigint) => x <= 0n : (x: bigint) => x >= 0n;
        return typed(push(T.bool, rest1, a), (m) => {
          m.gas.consume(cost);
          const st = m.stack;
          st[st.length - 1] = f(st[st.length - 1] as bigint);
        });
      }
      case "CREATE_ACCOUNT":
      case "STEPS_TO_QUOTA":
        throw deprecatedInstruction.error({ prim: p });
      default:
        break;
    }
    const r = this.parseDomain(tc, node, s0, depth, loc, typed);
    if (r !== undefined) return r;
    throw this.stackError(node, loc, s0);
  }

  private control(loc: number, bef: Stack, aft: Stack | undefined, run: (m: Machine, self: Instr) => void): Judgement {
    if (aft !== undefined) checkTypeSize(loc, bef, aft);
    const i: Instr = { loc, aft: aft ?? null, logExit: false, run: (m) => run(m, i) };
    this.log(loc, bef, aft ?? null);
    return { code: [i], aft };
  }

  private checkDupable(t: Ty, loc: number): void {
    try {
      checkDupable(t, loc, this.ctx.gas);
    } catch (e) {
      if (e instanceof TezosError && !e.trace.some((x) => x.id.endsWith("non_dupable_type"))) {
        throw e.withContext(nonDupableType.create({ loc, type: unparseTyAnnot(t) }));
      }
      throw e;
    }
  }

  /** Checks a lambda's code (`parse_returning Lambda`) and builds the lambda value. */
  lambda(argTy: Ty, retTy: Ty, code: Micheline, depth: number): Lambda {
    const r = this.parseReturning({ kind: "lambda" }, argTy, "arg", retTy, code, depth);
    return { lambda: true, argTy, retTy, code, compiled: r };
  }

  private stackError(node: MichelinePrim, loc: number, s: Stack): TezosError {
    const p = node.prim;
    const n = node.args?.length ?? 0;
    const a0 = ["DUP", "SWAP", "SOME", "UNIT", "PAIR", "UNPAIR", "CAR", "CDR", "CONS", "CONCAT", "SLICE", "MEM", "UPDATE", "GET", "EXEC", "FAILWITH", "SIZE", "ADD", "SUB", "MUL", "EDIV", "OR", "AND", "XOR", "NOT", "ABS", "NEG", "LSL", "LSR", "COMPARE", "EQ", "NEQ", "LT", "GT", "LE", "GE", "TRANSFER_TOKENS", "SET_DELEGATE", "NOW", "IMPLICIT_ACCOUNT", "AMOUNT", "BALANCE", "LEVEL", "CHECK_SIGNATURE", "HASH_KEY", "SOURCE", "SENDER", "BLAKE2B", "SHA256", "SHA512", "ADDRESS", "RENAME", "PACK", "ISNAT", "INT", "SELF", "CHAIN_ID", "NEVER", "VOTING_POWER", "TOTAL_VOTING_POWER", "KECCAK", "SHA3", "PAIRING_CHECK", "TICKET", "READ_TICKET", "SPLIT_TICKET", "JOIN_TICKETS", "OPEN_CHEST"];
    const a1 = ["NONE", "LEFT", "RIGHT", "NIL", "MAP", "ITER", "EMPTY_SET", "LOOP", "LOOP_LEFT", "CONTRACT", "CAST", "UNPACK", "CREATE_CONTRACT"];
    const a2 = ["PUSH", "VIEW", "IF_NONE", "IF_LEFT", "IF_CONS", "EMPTY_MAP", "EMPTY_BIG_MAP", "IF"];
    if (a0.includes(p) && n > 0) return invalidArity.error({ location: loc, primitive_name: p, expected_arity: 0, wrong_arity: n });
    if (a1.includes(p) && n !== 1) return invalidArity.error({ location: loc, primitive_name: p, expected_arity: 1, wrong_arity: n });
    if (a2.includes(p) && n !== 2) return invalidArity.error({ location: loc, primitive_name: p, expected_arity: 2, wrong_arity: n });
    if (p === "LAMBDA" && n !== 3) return invalidArity.error({ location: loc, primitive_name: p, expected_arity: 3, wrong_arity: n });
    const binops = ["ADD", "SUB", "MUL", "EDIV", "AND", "OR", "XOR", "LSL", "LSR", "CONCAT", "PAIRING_CHECK"];
    if (binops.includes(p) && n === 0 && s !== null && s.rest !== null) {
      return undefinedBinop.error({ location: loc, operator_name: p, wrong_left_operand_type: unparseTyAnnot(s.ty), wrong_right_operand_type: unparseTyAnnot(s.rest.ty) });
    }
    const unops = ["NEG", "ABS", "NOT", "SIZE", "EQ", "NEQ", "LT", "GT", "LE", "GE", "CONCAT"];
    if (unops.includes(p) && n === 0 && s !== null) {
      return undefinedUnop.error({ location: loc, operator_name: p, wrong_operand_type: unparseTyAnnot(s.ty) });
    }
    if (["UPDATE", "SLICE", "OPEN_CHEST"].includes(p) && n === 0) return this.badStack(loc, p, 3, s);
    if (p === "CREATE_CONTRACT") return this.badStack(loc, p, 7, s);
    if (p === "TRANSFER_TOKENS" && n === 0) return this.badStack(loc, p, 4, s);
    const one = ["DROP", "DUP", "CAR", "CDR", "UNPAIR", "SOME", "BLAKE2B", "SHA256", "SHA512", "DIP", "IF_NONE", "LEFT", "RIGHT", "IF_LEFT", "IF", "LOOP", "IF_CONS", "IMPLICIT_ACCOUNT", "NEG", "ABS", "INT", "NOT", "HASH_KEY", "EQ", "NEQ", "LT", "GT", "LE", "GE", "SIZE", "FAILWITH", "RENAME", "PACK", "ISNAT", "ADDRESS", "SET_DELEGATE", "CAST", "MAP", "ITER", "LOOP_LEFT", "UNPACK", "CONTRACT", "NEVER", "KECCAK", "SHA3", "READ_TICKET", "JOIN_TICKETS"];
    if (one.includes(p)) return this.badStack(loc, p, 1, s);
    const two = ["SWAP", "PAIR", "CONS", "GET", "MEM", "EXEC", "CHECK_SIGNATURE", "ADD", "SUB", "MUL", "EDIV", "AND", "OR", "XOR", "LSL", "LSR", "COMPARE", "PAIRING_CHECK", "TICKET", "SPLIT_TICKET"];
    if (two.includes(p)) return this.badStack(loc, p, 2, s);
    return unexpectedNode(node, loc, ["sequence"], "instruction", INSTRUCTIONS);
  }

  // ------------------------------------------------------------------ domain instructions
  private parseDomain(
    tc: TcContext,
    node: MichelinePrim,
    s0: Stack,
    depth: number,
    loc: number,
    typed: (aft: Stack, run: (m: Machine) => void) => Judgement,
  ): Judgement | undefined {
    const p = node.prim;
    const args = node.args ?? [];
    const annot = node.annots;
    const legacy = this.opts.legacy;
    const t0 = s0?.ty;
    const t1 = s0?.rest?.ty;
    const t2 = s0?.rest?.rest?.ty;
    const top = s0 as SItem;
    const rest1 = s0?.rest ?? null;
    const rest2 = s0?.rest?.rest ?? null;
    const rest3 = s0?.rest?.rest?.rest ?? null;
    if (p === "SELF" && args.length > 0) return undefined;
    const a0 = args.length === 0;
    const un = (res: Ty, cost: number | ((v: Value) => number), f: (v: Value, m: Machine) => Value, a: Annot = A.parseVarAnnot(loc, annot)): Judgement =>
      typed(push(res, rest1, a), (m) => {
        const st = m.stack;
        const v = st[st.length - 1];
        m.gas.consume(typeof cost === "number" ? cost : cost(v));
        st[st.length - 1] = f(v, m);
      });
    const bin = (res: Ty, cost: number | ((x: Value, y: Value) => number), f: (x: Value, y: Value, m: Machine) => Value, a: Annot = A.parseVarAnnot(loc, annot), freeWhenTraced = false): Judgement =>
      typed(push(res, rest2, a), (m) => {
        const st = m.stack;
        const x = st[st.length - 1];
        const y = st[st.length - 2];
        // Octez's logging wrapper runs MUL on mutez and LSL/LSR without charging their step
        if (!(freeWhenTraced && m.traced)) m.gas.consume(typeof cost === "number" ? cost : cost(x, y));
        st.length -= 1;
        st[st.length - 1] = f(x, y, m);
      });
    const nullary = (res: Ty, cost: number, f: (m: Machine) => Value, a: Annot): Judgement =>
      typed(push(res, s0, a), (m) => {
        m.gas.consume(cost);
        m.stack.push(f(m));
      });
    const k0 = t0?.prim;
    const k1 = t1?.prim;
    const mtn = (x: Ty | undefined, y: Ty | undefined) => A.mergeTypeAnnot(legacy, x?.tname, y?.tname);
    switch (p) {
      case "ADD": {
        if (!a0 || t1 === undefined) return undefined;
        if (k0 === "timestamp" && k1 === "int") return bin(named("timestamp", t0!.tname), (x, y) => G.addTimestampSeconds(x as bigint, y as bigint), (x, y) => (x as bigint) + (y as bigint));
        if (k0 === "int" && k1 === "timestamp") return bin(named("timestamp", t1.tname), (x, y) => G.addSecondsTimestamp(x as bigint, y as bigint), (x, y) => (x as bigint) + (y as bigint));
        if (k0 === "mutez" && k1 === "mutez") return bin(named("mutez", mtn(t0, t1)), G.addTez, (x, y) => R.tezAdd(x as bigint, y as bigint));
        if (k0 === "int" && k1 === "int") return bin(named("int", mtn(t0, t1)), (x, y) => G.addIntint(x as bigint, y as bigint), (x, y) => (x as bigint) + (y as bigint));
        if (k0 === "int" && k1 === "nat") return bin(named("int", t0!.tname), (x, y) => G.addIntnat(x as bigint, y as bigint), (x, y) => (x as bigint) + (y as bigint));
        if (k0 === "nat" && k1 === "int") return bin(named("int", t1.tname), (x, y) => G.addNatint(x as bigint, y as bigint), (x, y) => (x as bigint) + (y as bigint));
        if (k0 === "nat" && k1 === "nat") return bin(named("nat", mtn(t0, t1)), (x, y) => G.addNatnat(x as bigint, y as bigint), (x, y) => (x as bigint) + (y as bigint));
        if (k0 === "bls12_381_g1" && k1 === k0) return bin(named(k0, mtn(t0, t1)), G.addBls12381G1, (x, y) => R.bls.g1Add(x as Uint8Array, y as Uint8Array));
        if (k0 === "bls12_381_g2" && k1 === k0) return bin(named(k0, mtn(t0, t1)), G.addBls12381G2, (x, y) => R.bls.g2Add(x as Uint8Array, y as Uint8Array));
        if (k0 === "bls12_381_fr" && k1 === k0) return bin(named(k0, mtn(t0, t1)), G.addBls12381Fr, (x, y) => R.bls.frAdd(x as bigint, y as bigint));
        return undefined;
      }
      case "SUB": {
        if (!a0 || t1 === undefined) return undefined;
        if (k0 === "timestamp" && k1 === "int") return bin(named("timestamp", t0!.tname), (x, y) => G.subTimestampSeconds(x as bigint, y as bigint), (x, y) => (x as bigint) - (y as bigint));
        if (k0 === "timestamp" && k1 === "timestamp") return bin(named("int", mtn(t0, t1)), (x, y) => G.diffTimestamps(x as bigint, y as bigint), (x, y) => (x as bigint) - (y as bigint));
        if (k0 === "mutez" && k1 === "mutez") return bin(named("mutez", mtn(t0, t1)), G.subTez, (x, y) => R.tezSub(x as bigint, y as bigint));
        const sub = (x: Value, y: Value) => (x as bigint) - (y as bigint);
        const c = (x: Value, y: Value) => G.subInt(x as bigint, y as bigint);
        if (k0 === "int" && k1 === "int") return bin(named("int", mtn(t0, t1)), c, sub);
        if (k0 === "int" && k1 === "nat") return bin(named("int", t0!.tname), c, sub);
        if (k0 === "nat" && k1 === "int") return bin(named("int", t1.tname), c, sub);
        if (k0 === "nat" && k1 === "nat") {
          mtn(t0, t1);
          return bin(T.int, c, sub);
        }
        return undefined;
      }
      case "MUL": {
        if (!a0 || t1 === undefined) return undefined;
        const mul = (x: Value, y: Value) => (x as bigint) * (y as bigint);
        if (k0 === "mutez" && k1 === "nat") return bin(named("mutez", t0!.tname), G.mulTeznat, (x, y) => R.tezMulNat(x as bigint, y as bigint, loc), A.parseVarAnnot(loc, annot), true);
        if (k0 === "nat" && k1 === "mutez") return bin(named("mutez", t1.tname), G.mulNattez, (x, y) => R.tezMulNat(y as bigint, x as bigint, loc), A.parseVarAnnot(loc, annot), true);
        if (k0 === "int" && k1 === "int") return bin(named("int", mtn(t0, t1)), (x, y) => G.mulIntint(x as bigint, y as bigint), mul);
        if (k0 === "int" && k1 === "nat") return bin(named("int", t0!.tname), (x, y) => G.mulIntnat(x as bigint, y as bigint), mul);
        if (k0 === "nat" && k1 === "int") return bin(named("int", t1.tname), (x, y) => G.mulNatint(x as bigint, y as bigint), mul);
        if (k0 === "nat" && k1 === "nat") return bin(named("nat", mtn(t0, t1)), (x, y) => G.mulNatnat(x as bigint, y as bigint), mul);
        if (k0 === "bls12_381_g1" && k1 === "bls12_381_fr") return bin(named(k0, t0!.tname), G.mulBls12381G1, (x, y) => R.bls.g1Mul(x as Uint8Array, y as bigint));
        if (k0 === "bls12_381_g2" && k1 === "bls12_381_fr") return bin(named(k0, t0!.tname), G.mulBls12381G2, (x, y) => R.bls.g2Mul(x as Uint8Array, y as bigint));
        if (k0 === "bls12_381_fr" && k1 === "bls12_381_fr") return bin(named(k0, t0!.tname), G.mulBls12381Fr, (x, y) => R.bls.frMul(x as bigint, y as bigint));
        if ((k0 === "nat" || k0 === "int") && k1 === "bls12_381_fr") return bin(named("bls12_381_fr", t0!.tname), (x) => G.mulBls12381FrZ(x as bigint), (x, y) => R.bls.frMul(R.bls.frFromInt(x as bigint), y as bigint));
        if (k0 === "bls12_381_fr" && (k1 === "nat" || k1 === "int")) return bin(named("bls12_381_fr", t0!.tname), (_x, y) => G.mulBls12381ZFr(y as bigint), (x, y) => R.bls.frMul(R.bls.frFromInt(y as bigint), x as bigint));
        return undefined;
      }
      case "EDIV": {
        if (!a0 || t1 === undefined) return undefined;
        const opt = (q: Ty, r: Ty) => named("option", undefined, pairT(q, undefined, undefined, r, undefined, undefined));
        if (k0 === "mutez" && k1 === "nat") return bin(opt(named("mutez", t0!.tname), named("mutez", t0!.tname)), (x, y) => G.edivTeznat(x as bigint, y as bigint), (x, y) => R.ediv(x as bigint, y as bigint));
        if (k0 === "mutez" && k1 === "mutez") { const tn = mtn(t0, t1); return bin(opt(T.nat, named("mutez", tn)), G.edivTez, (x, y) => R.ediv(x as bigint, y as bigint)); }
        if (k0 === "int" && k1 === "int") { const tn = mtn(t0, t1); return bin(opt(named("int", tn), T.nat), (x, y) => G.edivIntint(x as bigint, y as bigint), (x, y) => R.ediv(x as bigint, y as bigint)); }
        if (k0 === "int" && k1 === "nat") return bin(opt(named("int", t0!.tname), T.nat), (x, y) => G.edivIntnat(x as bigint, y as bigint), (x, y) => R.ediv(x as bigint, y as bigint));
        if (k0 === "nat" && k1 === "int") return bin(opt(T.int, named("nat", t0!.tname)), (x, y) => G.edivNatint(x as bigint, y as bigint), (x, y) => R.ediv(x as bigint, y as bigint));
        if (k0 === "nat" && k1 === "nat") { const tn = mtn(t0, t1); return bin(opt(named("nat", tn), named("nat", tn)), (x, y) => G.edivNatnat(x as bigint, y as bigint), (x, y) => R.ediv(x as bigint, y as bigint)); }
        return undefined;
      }
      case "LSL":
      case "LSR": {
        if (!a0 || k0 !== "nat" || k1 !== "nat") return undefined;
        const tn = mtn(t0, t1);
        if (p === "LSL") return bin(named("nat", tn), (x) => G.lslNat(x as bigint), (x, y) => R.lsl(x as bigint, y as bigint, loc), A.parseVarAnnot(loc, annot), true);
        return bin(named("nat", tn), (x) => G.lsrNat(x as bigint), (x, y) => R.lsr(x as bigint, y as bigint, loc), A.parseVarAnnot(loc, annot), true);
      }
      case "OR":
      case "AND":
      case "XOR": {
        if (!a0 || t1 === undefined) return undefined;
        if (k0 === "bool" && k1 === "bool") {
          const tn = mtn(t0, t1);
          const cost = p === "OR" ? G.boolOr : p === "AND" ? G.boolAnd : G.boolXor;
          return bin(named("bool", tn), cost, p === "OR" ? (x, y) => (x as boolean) || (y as boolean) : p === "AND" ? (x, y) => (x as boolean) && (y as boolean) : (x, y) => x !== y);
        }
        if (k0 === "nat" && k1 === "nat") {
          const tn = mtn(t0, t1);
          if (p === "OR") return bin(named("nat", tn), (x, y) => G.orNat(x as bigint, y as bigint), (x, y) => (x as bigint) | (y as bigint));
          if (p === "AND") return bin(named("nat", tn), (x, y) => G.andNat(x as bigint, y as bigint), (x, y) => (x as bigint) & (y as bigint));
          return bin(named("nat", tn), (x, y) => G.xorNat(x as bigint, y as bigint), (x, y) => (x as bigint) ^ (y as bigint));
        }
        if (p === "AND" && k0 === "int" && k1 === "nat") return bin(named("nat", t1.tname), (x, y) => G.andIntNat(x as bigint, y as bigint), (x, y) => (x as bigint) & (y as bigint));
        return undefined;
      }
      case "NOT": {
        if (!a0 || t0 === undefined) return undefined;
        if (k0 === "bool") return un(named("bool", t0.tname), G.boolNot, (x) => !(x as boolean));
        if (k0 === "int") return un(named("int", t0.tname), (x) => G.notInt(x as bigint), (x) => ~(x as bigint));
        if (k0 === "nat") return un(T.int, (x) => G.notNat(x as bigint), (x) => ~(x as bigint));
        return undefined;
      }
      case "ABS":
        if (!a0 || k0 !== "int") return undefined;
        return un(T.nat, (x) => G.absInt(x as bigint), (x) => ((x as bigint) < 0n ? -(x as bigint) : x));
      case "ISNAT":
        if (!a0 || k0 !== "int") return undefined;
        return un(named("option", undefined, T.nat), G.isNat, (x) => ((x as bigint) < 0n ? null : some(x)), A.parseVarAnnot(loc, annot, top.annot));
      case "INT":
        if (!a0) return undefined;
        if (k0 === "nat") return un(T.int, G.intNat, (x) => x);
        if (k0 === "bls12_381_fr") return un(T.int, G.intBls12381Fr, (x) => R.bls.frToInt(x as bigint));
        return undefined;
      case "NEG":
        if (!a0 || t0 === undefined) return undefined;
        if (k0 === "int") return un(named("int", t0.tname), (x) => G.negInt(x as bigint), (x) => -(x as bigint));
        if (k0 === "nat") return un(T.int, (x) => G.negNat(x as bigint), (x) => -(x as bigint));
        if (k0 === "bls12_381_g1") return un(named(k0, t0.tname), G.negBls12381G1, (x) => R.bls.g1Neg(x as Uint8Array));
        if (k0 === "bls12_381_g2") return un(named(k0, t0.tname), G.negBls12381G2, (x) => R.bls.g2Neg(x as Uint8Array));
        if (k0 === "bls12_381_fr") return un(named(k0, t0.tname), G.negBls12381Fr, (x) => R.bls.frNeg(x as bigint));
        return undefined;
      // -- strings and bytes
      case "CONCAT": {
        if (!a0 || t0 === undefined) return undefined;
        if ((k0 === "string" || k0 === "bytes") && k1 === k0) {
          const tn = mtn(t0, t1);
          if (k0 === "string") return bin(named("string", tn), (x, y) => G.concatStringPair(x as string, y as string), (x, y) => (x as string) + (y as string));
          return bin(named("bytes", tn), (x, y) => G.concatBytesPair(x as Uint8Array, y as Uint8Array), (x, y) => R.concatBytes([x as Uint8Array, y as Uint8Array]));
        }
        if (k0 === "list" && (t0.args[0].prim === "string" || t0.args[0].prim === "bytes")) {
          const a = A.parseVarAnnot(loc, annot, top.annot);
          const isStr = t0.args[0].prim === "string";
          return typed(push(t0.args[0], rest1, a), (m) => {
            const st = m.stack;
            const l = st[st.length - 1] as MList;
            m.gas.consume(G.concatStringPrecheck(l));
            const items = l.toArray();
            let total = 0;
            for (const x of items) total += isStr ? R.stringLength(x as string) : (x as Uint8Array).length;
            m.gas.consume(isStr ? G.concatString(total) : G.concatBytes(total));
            st[st.length - 1] = isStr ? (items as string[]).join("") : R.concatBytes(items as Uint8Array[]);
          });
        }
        return undefined;
      }
      case "SLICE": {
        if (!a0 || k0 !== "nat" || k1 !== "nat" || (t2?.prim !== "string" && t2?.prim !== "bytes")) return undefined;
        const s2 = rest2 as SItem;
        const a = A.parseVarAnnot(loc, annot, A.genAccessAnnot(s2.annot, "slice"));
        const isStr = t2.prim === "string";
        return typed(push(named("option", undefined, t2), rest3, a), (m) => {
          const st = m.stack;
          const off = st.pop() as bigint;
          const len = st.pop() as bigint;
          const s = st[st.length - 1] as string | Uint8Array;
          m.gas.consume(isStr ? G.sliceString(s as string) : G.sliceBytes(s as Uint8Array));
          st[st.length - 1] = R.slice(s, off, len);
        });
      }
      case "PACK": {
        if (!a0 || t0 === undefined) return undefined;
        checkPackable(t0, true, loc);
        const a = A.parseVarAnnot(loc, annot, A.genAccessAnnot(top.annot, "packed"));
        return typed(push(T.bytes, rest1, a), (m) => {
          const st = m.stack;
          st[st.length - 1] = R.pack(m, t0, st[st.length - 1]);
        });
      }
      case "UNPACK": {
        if (args.length !== 1) return undefined;
        if (k0 !== "bytes") return undefined;
        const t = parsePackableTy(args[0], { legacy, gas: this.ctx.gas, locations: this.opts.locs });
        const [va, tn] = A.parseVarTypeAnnot(loc, annot);
        const a = va !== undefined ? va : A.genAccessAnnot(top.annot, "unpacked");
        return typed(push(named("option", tn, t), rest1, a), (m) => {
          const st = m.stack;
          const b = st[st.length - 1] as Uint8Array;
          m.gas.consume(G.unpack(b));
          st[st.length - 1] = R.unpack(m, t, b);
        });
      }
      // -- hashes and signatures
      case "BLAKE2B":
      case "SHA256":
      case "SHA512":
      case "KECCAK":
      case "SHA3": {
        if (!a0 || k0 !== "bytes") return undefined;
        const cost = p === "BLAKE2B" ? G.blake2b : p === "SHA256" ? G.sha256 : p === "SHA512" ? G.sha512 : p === "KECCAK" ? G.keccak : G.sha3;
        const f = R.hashFn(p);
        return un(T.bytes, (v) => cost(v as Uint8Array), (v) => f(v as Uint8Array));
      }
      case "HASH_KEY":
        if (!a0 || k0 !== "key") return undefined;
        return un(T.keyHash, (v) => G.hashKey(v as string), (v) => R.hashKey(v as string));
      case "CHECK_SIGNATURE": {
        if (!a0 || k0 !== "key" || k1 !== "signature" || t2?.prim !== "bytes") return undefined;
        const a = A.parseVarAnnot(loc, annot);
        return typed(push(T.bool, rest3, a), (m) => {
          const st = m.stack;
          const k = st.pop() as string;
          const sig = st.pop() as string;
          const msg = st[st.length - 1] as Uint8Array;
          m.gas.consume(G.checkSignature(k, msg));
          st[st.length - 1] = R.checkSignature(k, sig, msg);
        });
      }
      case "PAIRING_CHECK": {
        if (!a0 || k0 !== "list") return undefined;
        const e = t0!.args[0];
        if (e.prim !== "pair" || e.args[0].prim !== "bls12_381_g1" || e.args[1].prim !== "bls12_381_g2") return undefined;
        return un(T.bool, (v) => G.pairingCheckBls12381(v as MList), (v) => R.bls.pairingCheck((v as MList).toArray() as unknown as [Uint8Array, Uint8Array][]));
      }
      // -- chain
      case "NOW":
        if (!a0) return undefined;
        return nullary(T.timestamp, G.now, (m) => m.ctx.now, A.parseVarAnnot(loc, annot, "now"));
      case "AMOUNT":
        if (!a0) return undefined;
        return nullary(T.mutez, G.amount, (m) => m.sc.amount, A.parseVarAnnot(loc, annot, "amount"));
      case "BALANCE":
        if (!a0) return undefined;
        // the context charges the carbonated read of the balance (read_access(4, 8))
        return nullary(T.mutez, G.balance, (m) => m.ctx.balanceOf(m.sc.self), A.parseVarAnnot(loc, annot, "balance"));
      case "LEVEL":
        if (!a0) return undefined;
        return nullary(T.nat, G.level, (m) => m.ctx.level, A.parseVarAnnot(loc, annot, "level"));
      case "CHAIN_ID":
        if (!a0) return undefined;
        return nullary(T.chainId, G.chainId, (m) => m.sc.chainId, A.parseVarAnnot(loc, annot));
      case "SOURCE":
        if (!a0) return undefined;
        return nullary(T.address, G.source, (m) => addr(m.sc.source), A.parseVarAnnot(loc, annot, "source"));
      case "SENDER":
        if (!a0) return undefined;
        return nullary(T.address, G.sender, (m) => addr(m.sc.sender), A.parseVarAnnot(loc, annot, "sender"));
      case "SELF_ADDRESS":
        if (!a0) return undefined;
        return nullary(T.address, G.selfAddress, (m) => addr(m.sc.self), A.parseVarAnnot(loc, annot, "self"));
      case "SELF": {
        const [a, f] = A.parseEntrypointAnnot(loc, annot, "self");
        const ep = f === undefined ? "default" : f;
        if (tc.kind === "lambda") throw selfInLambda.error({ location: loc });
        const { ty } = R.findEntrypoint(tc.paramTy, tc.rootName, ep);
        const pt = bare(ty);
        const epName = ep === "default" ? "" : ep;
        return nullary(named("contract", undefined, pt), G.self, (m) => ({ address: m.sc.self, entrypoint: epName, paramTy: pt }) as TypedContract, a);
      }
      case "VOTING_POWER":
        if (!a0 || k0 !== "key_hash") return undefined;
        return typed(push(T.nat, rest1, A.parseVarAnnot(loc, annot)), (m) => {
          m.gas.consume(G.votingPower); // the context charges the read (read_access(4, 4))
          const st = m.stack;
          st[st.length - 1] = m.ctx.votingPower(st[st.length - 1] as string);
        });
      case "TOTAL_VOTING_POWER":
        if (!a0) return undefined;
        return nullary(T.nat, G.totalVotingPower, (m) => m.ctx.totalVotingPower(), A.parseVarAnnot(loc, annot)); // the context charges read_access(2, 4)
      case "ADDRESS":
        if (!a0 || k0 !== "contract") return undefined;
        return un(T.address, G.address, (v) => addr((v as TypedContract).address, (v as TypedContract).entrypoint), A.parseVarAnnot(loc, annot, A.genAccessAnnot(top.annot, "address")));
      case "IMPLICIT_ACCOUNT":
        if (!a0 || k0 !== "key_hash") return undefined;
        return un(named("contract", undefined, T.unit), G.implicitAccount, (v) => ({ address: v as string, entrypoint: "", paramTy: T.unit }) as TypedContract);
      case "CONTRACT": {
        if (args.length !== 1 || k0 !== "address") return undefined;
        const t = parseParameterTy(args[0], { legacy, gas: this.ctx.gas, locations: this.opts.locs });
        const pt = bare(t);
        const [a, f] = A.parseEntrypointAnnot(loc, annot, A.genAccessAnnot(top.annot, "contract"));
        let ep = "default";
        if (f !== undefined) {
          if (f === "default") throw unexpectedAnnotation.error({ location: loc });
          if (f.length > 31) throw entrypointNameTooLong.error({ name: f });
          ep = f;
        }
        return typed(push(named("option", undefined, named("contract", undefined, pt)), rest1, a), (m) => {
          m.gas.consume(G.contract);
          const st = m.stack;
          st[st.length - 1] = R.contract(m, pt, st[st.length - 1] as Address, ep);
        });
      }
      case "TRANSFER_TOKENS": {
        if (!a0 || t1?.prim !== "mutez" || t2?.prim !== "contract") return undefined;
        this.checkItem(t0!, t2.args[0], loc, "TRANSFER_TOKENS", 1, 4, s0);
        const a = A.parseVarAnnot(loc, annot);
        return typed(push(T.operation, rest3, a), (m) => {
          m.gas.consume(G.transferTokens);
          const st = m.stack;
          const v = st.pop() as Value;
          const amount = st.pop() as bigint;
          const c = st[st.length - 1] as TypedContract;
          st[st.length - 1] = R.transfer(m, amount, c, v);
        });
      }
      case "SET_DELEGATE":
        if (!a0 || k0 !== "option" || t0!.args[0].prim !== "key_hash") return undefined;
        return un(T.operation, G.setDelegate, (v, m) => ({ op: "delegation", nonce: m.ctx.freshInternalNonce(), delegate: v === null ? null : ((v as Some).some as string) }) as Operation);
      case "CREATE_CONTRACT": {
        if (args.length !== 1 || !Array.isArray(args[0])) return undefined;
        if (k0 !== "option" || t0!.args[0].prim !== "key_hash" || k1 !== "mutez" || t2 === undefined) return undefined;
        const [opA, addrA] = A.parseTwoVarAnnot(loc, annot);
        const inner = R.checkInnerScript(this, args[0], depth + 1);
        // Octez checks the code's lambda against `pair parameter storage` and `pair (list operation) storage`
        const argFull = pairT(inner.paramTy, undefined, undefined, inner.storageTy, undefined, undefined);
        const retFull = pairT(named("list", undefined, T.operation), undefined, undefined, inner.storageTy, undefined, undefined);
        mergeTypes(this.ctx.gas, legacy, loc, argFull, argFull);
        mergeTypes(this.ctx.gas, legacy, loc, retFull, retFull);
        mergeTypes(this.ctx.gas, legacy, loc, inner.storageTy, t2);
        return typed(push(T.operation, push(T.address, rest3, addrA), opA), (m) => {
          m.gas.consume(G.createContract);
          const st = m.stack;
          const d = st.pop() as Value;
          const credit = st.pop() as bigint;
          const init = st.pop() as Value;
          const [op, address] = R.createContract(m, inner, d === null ? null : ((d as Some).some as string), credit, init);
          st.push(addr(address), op);
        });
      }
      case "VIEW": {
        if (args.length !== 2) return undefined;
        if (s0 === null || k1 !== "address") return undefined;
        const name = R.parseViewName(this, args[0]);
        const out = parseViewTy(args[1], { legacy, gas: this.ctx.gas, locations: this.opts.locs });
        const a = A.parseVarAnnot(loc, annot, A.genAccessAnnot(s0.rest!.annot, "contract"));
        const inTy = t0!;
        const aft = push(named("option", undefined, out), rest2, a);
        return this.control(loc, s0, aft, (m, self) => {
          m.gas.consume(G.view);
          R.view(m, self, name, inTy, out);
        });
      }
      // -- tickets
      case "TICKET": {
        if (!a0 || t0 === undefined || k1 !== "nat") return undefined;
        const a = A.parseVarAnnot(loc, annot);
        checkComparable(t0, loc, this.ctx.gas); // comparable_ty_of_ty charges its cycles
        return bin(named("ticket", undefined, t0), G.ticket, (x, y, m) => ({ ticketer: m.sc.self, contents: x, amount: y as bigint }) as Ticket, a);
      }
      case "READ_TICKET": {
        if (!a0 || k0 !== "ticket") return undefined;
        const a = A.parseVarAnnot(loc, annot);
        const ct = t0!.args[0];
        const res = pairT(T.address, undefined, undefined, pairT(ct, undefined, undefined, T.nat, undefined, undefined), undefined, undefined);
        return typed(push(res, s0, a), (m) => {
          m.gas.consume(G.readTicket);
          const t = m.stack[m.stack.length - 1] as Ticket;
          m.stack.push([addr(t.ticketer), [t.contents, t.amount]]);
        });
      }
      case "SPLIT_TICKET": {
        if (!a0 || k0 !== "ticket" || k1 !== "pair" || t1!.args[0].prim !== "nat" || t1!.args[1].prim !== "nat") return undefined;
        const a = A.parseVarAnnot(loc, annot);
        const [pa, pb] = t1!.args;
        const res = named("option", undefined, pairT(t0!, fieldOf(pa), vannotOf(pa), t0!, fieldOf(pb), vannotOf(pb)));
        return bin(res, (x, y) => G.splitTicket((x as Ticket).amount, (y as readonly [bigint, bigint])[0], (y as readonly [bigint, bigint])[1]), (x, y) => {
          const t = x as Ticket;
          const [na, nb] = y as readonly [bigint, bigint];
          if (na + nb !== t.amount) return null;
          return some([{ ...t, amount: na }, { ...t, amount: nb }]);
        }, a);
      }
      case "JOIN_TICKETS": {
        if (!a0 || k0 !== "pair" || t0!.args[0].prim !== "ticket" || t0!.args[1].prim !== "ticket") return undefined;
        const a = A.parseVarAnnot(loc, annot);
        const tt = mergeTypes(this.ctx.gas, legacy, loc, bare(t0!.args[0]), bare(t0!.args[1]));
        const ct = tt.args[0];
        return un(named("option", undefined, tt), (v) => G.joinTickets(ct, (v as readonly [Ticket, Ticket])[0], (v as readonly [Ticket, Ticket])[1]), (v) => {
          const [x, y] = v as readonly [Ticket, Ticket];
          if (x.ticketer !== y.ticketer || compareValues(ct, x.contents, y.contents) !== 0) return null;
          return some({ ticketer: x.ticketer, contents: x.contents, amount: x.amount + y.amount } as Ticket);
        }, a);
      }
      case "OPEN_CHEST": {
        if (!a0 || k0 !== "chest_key" || k1 !== "chest" || t2?.prim !== "nat") return undefined;
        const res = orT(T.bytes, undefined, T.bool, undefined);
        return typed(push(res, rest3, undefined), (m) => {
          const st = m.stack;
          const key = st.pop() as Uint8Array;
          const chest = st.pop() as Uint8Array;
          const time = st[st.length - 1] as bigint;
          m.gas.consume(G.openChest(R.chestPlaintextSize(chest), time));
          st[st.length - 1] = R.openChest(key, chest, time);
        });
      }
      case "SAPLING_EMPTY_STATE": {
        if (args.length !== 1) return undefined;
        const ms = Number((args[0] as { int?: string }).int ?? "0");
        const a = A.parseVarAnnot(loc, annot, "sapling");
        const t: Ty = { prim: "sapling_state", args: [], memoSize: ms };
        return typed(push(t, s0, a), () => {
          throw R.unsupported(loc, p);
        });
      }
      case "SAPLING_VERIFY_UPDATE": {
        if (!a0 || k0 !== "sapling_transaction" || k1 !== "sapling_state") return undefined;
        const res = named("option", undefined, pairT(T.int, undefined, "sapling_balance", t1!, undefined, undefined));
        return typed(push(res, rest2, rest1?.annot), () => {
          throw R.unsupported(loc, p);
        });
      }
      default:
        return undefined;
    }
  }
}

function invalidSyntacticConstant(loc: number, n: Micheline, form: string): TezosError {
  return R.invalidSyntacticConstantError(loc, n, form);
}

/** Instruction names (for `invalid_primitive`). */
export const INSTRUCTIONS: readonly string[] = [
  "DROP", "DUP", "DIG", "DUG", "VIEW", "SWAP", "SOME", "UNIT", "PAIR", "UNPAIR", "CAR", "CDR", "CONS", "MEM", "UPDATE", "MAP", "ITER", "GET",
  "GET_AND_UPDATE", "EXEC", "FAILWITH", "SIZE", "CONCAT", "ADD", "SUB", "MUL", "EDIV", "OR", "AND", "XOR", "NOT", "ABS", "INT", "NEG", "LSL",
  "LSR", "COMPARE", "EQ", "NEQ", "LT", "GT", "LE", "GE", "TRANSFER_TOKENS", "CREATE_CONTRACT", "NOW", "AMOUNT", "BALANCE", "LEVEL",
  "IMPLICIT_ACCOUNT", "CHECK_SIGNATURE", "BLAKE2B", "SHA256", "SHA512", "HASH_KEY", "PUSH", "NONE", "LEFT", "RIGHT", "NIL", "EMPTY_SET",
  "DIP", "LOOP", "IF_NONE", "IF_LEFT", "IF_CONS", "EMPTY_MAP", "EMPTY_BIG_MAP", "IF", "SOURCE", "SENDER", "SELF", "SELF_ADDRESS", "LAMBDA",
  "NEVER", "VOTING_POWER", "TOTAL_VOTING_POWER", "KECCAK", "SHA3", "PAIRING_CHECK", "SAPLING_EMPTY_STATE", "SAPLING_VERIFY_UPDATE",
  "TICKET", "READ_TICKET", "SPLIT_TICKET", "JOIN_TICKETS", "OPEN_CHEST",
];

export { child, illTypedContract, inconsistentTypes };
