/**
 * The node count of Hangzhou's typed-IR size model (Octez `Script_typed_ir_size`), which
 * `Script_ir_translator.parse_code` charges as `nodes_cost` (45 milligas per node, see
 * `script.ts` `nodesCost`) once a script's code is typechecked: the Micheline nodes of the code
 * (annotations included) and of the views, the stack types of the code's lambda, one node per
 * compiled instruction (`kinstr_size`) plus the types and constants it embeds, and the
 * "extra" nodes of `kinstr_extra_size` (one per instruction plus the join stacks of branches,
 * the element types of loops, the result types of CONS/UPDATE/GET_AND_UPDATE/tickets).
 *
 * The count is taken from the Micheline code and the stack types the type checker logged for
 * each instruction ({@link TypeLog}), following how Octez elaborates each instruction: a
 * sequence adds nothing, CAST and RENAME add nothing, every other instruction is one IR node;
 * every body (branch, loop, DIP, lambda) ends with an `IHalt` unless its last instruction drops
 * its continuation (FAILWITH, NEVER).
 * @module
 */
import type { Micheline, MichelinePrim } from "../../encoding/micheline.ts";
import type { Ty } from "../ty.ts";
import type { BigMap, Lambda, MList, MMap, OrValue, Some, Ticket, Value } from "../value.ts";
import { canonicalLocations } from "../location.ts";
import { michelineSize } from "./size.ts";

/** A typed stack as the type checker logs it: top item first, `null` when empty. */
export interface LoggedStack {
  readonly ty: Ty;
  readonly rest: LoggedStack | null;
}

/** Stacks before and after one instruction. */
export interface TypeMapEntry {
  readonly bef: LoggedStack | null;
  readonly aft: LoggedStack | null;
}

/**
 * The stack types a type checker logged, by location, in the order it logged them (a location
 * may come several times: the literal script of CREATE_CONTRACT has its own locations).
 */
export class TypeLog {
  private readonly entries = new Map<number, TypeMapEntry[]>();
  /** Entries that were asked for and missing (0 when the log matched the code). */
  misses = 0;

  /** The logger to give the type checker. */
  readonly logger = (loc: number, bef: LoggedStack | null, aft: LoggedStack | null): void => {
    const l = this.entries.get(loc);
    if (l === undefined) this.entries.set(loc, [{ bef, aft }]);
    else l.push({ bef, aft });
  };

  /** Takes the oldest entry of `loc`. */
  take(loc: number): TypeMapEntry | undefined {
    const l = this.entries.get(loc);
    const e = l?.shift();
    if (e === undefined) this.misses++;
    return e;
  }
}

/** What the count needs besides the log of the code. */
export interface IrSizeHooks {
  /** Location of a node of the script. */
  loc(node: Micheline): number;
  /**
   * The type map of a lambda constant (`PUSH (lambda a b) { … }` and lambdas nested in
   * constants), whose body the type checker does not log: check it again, without gas.
   */
  lambdaLog(argTy: Ty, retTy: Ty, code: Micheline): TypeLog;
}

/** A view of a script, as Micheline. */
export interface ViewNodes {
  readonly input: Micheline;
  readonly output: Micheline;
  readonly code: Micheline;
}

/** Type nodes of a parsed type (`ty_size`: every node, comparable ones included). */
export function tyNodes(t: Ty): number {
  let n = 1;
  for (const a of t.args) n += tyNodes(a);
  return n;
}

/** Type nodes of a type written in Micheline (`pair a b c` is two pair nodes). */
export function tyNodesOfMicheline(node: Micheline): number {
  if (typeof node !== "object" || node === null || Array.isArray(node) || !("prim" in node)) return 1;
  const p = node as MichelinePrim;
  const args = p.args ?? [];
  if (p.prim === "sapling_state" || p.prim === "sapling_transaction") return 1;
  let n = p.prim === "pair" && args.length > 2 ? args.length - 1 : 1;
  for (const a of args) n += tyNodesOfMicheline(a);
  return n;
}

/** `stack_ty_size` nodes: one per item and its type, one for the bottom. */
export function stackNodes(s: LoggedStack | null): number {
  let n = 1;
  for (let c = s; c !== null; c = c.rest) n += 1 + tyNodes(c.ty);
  return n;
}

/** `node_size` nodes of a Micheline term: every node and annotation. */
export function michelineNodesWithAnnots(node: Micheline): number {
  return michelineSize(node).nodes;
}

function isPrim(n: Micheline): n is MichelinePrim {
  return typeof n === "object" && n !== null && !Array.isArray(n) && "prim" in n;
}

/** The result of walking an instruction or a sequence. */
interface Walked {
  /** The type checker found it always fails. */
  readonly failed: boolean;
  /** Its last IR node drops its continuation (FAILWITH, NEVER): no `IHalt` after it. */
  readonly dropsK: boolean;
  /** Stack after it (when not failed). */
  readonly aft: LoggedStack | null;
  /** Failed branches whose join stack is the stack the failure is given (counted by the caller). */
  readonly pending: number;
}

const TYPED = (aft: LoggedStack | null): Walked => ({ failed: false, dropsK: false, aft, pending: 0 });

/** Counts `kinstr_size` nodes (`k`) and `kinstr_extra_size` nodes (`x`) of code from its type map. */
class Walker {
  k = 0;
  x = 0;
  readonly log: TypeLog;
  readonly hooks: IrSizeHooks;
  constructor(log: TypeLog, hooks: IrSizeHooks) {
    this.log = log;
    this.hooks = hooks;
  }

  /** A body ending with its `IHalt` (unless it drops its continuation); failed joins left pending. */
  body(node: Micheline): Walked {
    const r = this.instr(node);
    if (!r.dropsK) this.node(0, 0);
    return r;
  }

  /** A body whose failure is given the stack `ret` (its pending joins are that stack). */
  bodyWith(node: Micheline, ret: () => LoggedStack | null): Walked {
    const r = this.body(node);
    if (r.failed && r.pending > 0) this.x += r.pending * stackNodes(ret());
    return r;
  }

  node(k: number, x: number): void {
    this.k += 1 + k;
    this.x += 1 + x;
  }

  instr(node: Micheline): Walked {
    if (Array.isArray(node)) {
      const items = node as readonly Micheline[];
      if (items.length === 0) {
        const e = this.log.take(this.hooks.loc(node));
        return TYPED(e?.aft ?? null);
      }
      let last: Walked = TYPED(null);
      for (const item of items) {
        last = this.instr(item);
        if (last.failed) return last;
      }
      return last;
    }
    if (!isPrim(node)) return TYPED(null);
    const e = this.log.take(this.hooks.loc(node));
    if (e === undefined) return TYPED(null);
    const args = node.args ?? [];
    const top = e.bef?.ty;
    const aftTop = e.aft?.ty;
    switch (node.prim) {
      case "CAST":
      case "RENAME":
        return TYPED(e.aft);
      case "FAILWITH":
        this.node(top === undefined ? 0 : tyNodes(top), 0);
        return { failed: true, dropsK: true, aft: null, pending: 0 };
      case "NEVER":
        this.node(0, 0);
        return { failed: true, dropsK: true, aft: null, pending: 0 };
      case "PUSH":
        this.node(aftTop === undefined ? 1 : this.valueNodes(aftTop, args[1]!), 0);
        return TYPED(e.aft);
      case "UNIT":
        this.node(1, 0);
        return TYPED(e.aft);
      case "EMPTY_SET":
      case "EMPTY_MAP":
        this.node(aftTop === undefined ? 0 : tyNodes(aftTop.args[0]!), 0);
        return TYPED(e.aft);
      case "EMPTY_BIG_MAP":
        this.node(aftTop === undefined ? 0 : tyNodes(aftTop.args[0]!) + tyNodes(aftTop.args[1]!), 0);
        return TYPED(e.aft);
      case "APPLY":
      case "COMPARE": {
        const n = top === undefined ? 0 : tyNodes(top);
        this.node(n, n);
        return TYPED(e.aft);
      }
      case "CONTRACT":
        this.node(aftTop === undefined ? 0 : tyNodes(aftTop.args[0]!.args[0]!), 0);
        return TYPED(e.aft);
      case "VIEW":
        this.node((top === undefined ? 0 : tyNodes(top)) + (aftTop === undefined ? 0 : tyNodes(aftTop.args[0]!)), 0);
        return TYPED(e.aft);
      case "PACK":
        this.node(top === undefined ? 0 : tyNodes(top), 0);
        return TYPED(e.aft);
      case "UNPACK":
      case "SELF":
        this.node(aftTop === undefined ? 0 : tyNodes(aftTop.args[0]!), 0);
        return TYPED(e.aft);
      case "JOIN_TICKETS":
        this.node(top === undefined ? 0 : tyNodes(top.args[0]!.args[0]!), aftTop === undefined ? 0 : tyNodes(aftTop));
        return TYPED(e.aft);
      case "TICKET":
      case "READ_TICKET":
      case "CONS":
        this.node(0, aftTop === undefined ? 0 : tyNodes(aftTop));
        return TYPED(e.aft);
      case "UPDATE":
      case "GET_AND_UPDATE": {
        const coll = e.bef?.rest?.rest?.ty.prim;
        const extra = args.length === 0 && aftTop !== undefined &&
          (coll === "map" || (node.prim === "GET_AND_UPDATE" && coll === "big_map"));
        this.node(0, extra ? tyNodes(aftTop) : 0);
        return TYPED(e.aft);
      }
      case "IF":
      case "IF_NONE":
      case "IF_LEFT":
      case "IF_CONS": {
        // each branch gets the join stack: the other branch's result (= the IF's), or the caller's
        const bt = this.body(args[0]!);
        const bf = this.body(args[1]!);
        if (bt.failed && bf.failed) {
          this.node(0, 0);
          return { failed: true, dropsK: false, aft: null, pending: bt.pending + bf.pending + 1 };
        }
        const join = stackNodes(e.aft);
        if (bt.failed) this.x += bt.pending * join;
        if (bf.failed) this.x += bf.pending * join;
        this.node(0, join);
        return TYPED(e.aft);
      }
      case "LOOP":
      case "LOOP_LEFT":
        this.bodyWith(args[0]!, () => e.bef);
        this.node(0, 0);
        return TYPED(e.aft);
      case "ITER":
      case "MAP": {
        const elt = top === undefined ? undefined : top.prim === "map" ? { prim: "pair" as const, args: [top.args[0]!, top.args[1]!] } : top.args[0];
        this.bodyWith(args[0]!, () => e.bef?.rest ?? null);
        this.node(0, elt === undefined ? 0 : tyNodes(elt));
        return TYPED(e.aft);
      }
      case "DIP":
        this.body(args[args.length - 1]!);
        this.node(0, 0);
        return TYPED(e.aft);
      case "LAMBDA": {
        const at = aftTop?.args[0];
        const rt = aftTop?.args[1];
        const retStack = rt === undefined ? null : { ty: rt, rest: null };
        const k0 = this.k;
        const x0 = this.x;
        this.bodyWith(args[2]!, () => retStack);
        const bk = this.k - k0;
        const bx = this.x - x0;
        this.k = k0;
        this.x = x0;
        this.node(bk + stackNodes(at === undefined ? null : { ty: at, rest: null }) + stackNodes(retStack), bx);
        return TYPED(e.aft);
      }
      case "CREATE_CONTRACT": {
        this.createContract(args[0]!);
        return TYPED(e.aft);
      }
      default:
        this.node(0, 0);
        return TYPED(e.aft);
    }
  }

  private createContract(script: Micheline): void {
    const fields = Array.isArray(script) ? (script as readonly Micheline[]).filter(isPrim) : [];
    const field = (name: string) => fields.find((f) => f.prim === name)?.args?.[0];
    const p = field("parameter");
    const s = field("storage");
    const code = field("code");
    const pn = p === undefined ? 0 : tyNodesOfMicheline(p);
    const sn = s === undefined ? 0 : tyNodesOfMicheline(s);
    let viewNodes = 0;
    const views: Micheline[] = [];
    for (const f of fields) {
      if (f.prim !== "view" || (f.args ?? []).length !== 4) continue;
      const [, input, output, vcode] = f.args!;
      viewNodes += michelineNodesWithAnnots(input!) + michelineNodesWithAnnots(output!) + michelineNodesWithAnnots(vcode!);
      views.push(vcode!);
    }
    // the literal is checked as a script of its own: its type map has its own canonical locations
    const locs = canonicalLocations(script);
    const inner = new Walker(this.log, { ...this.hooks, loc: (n) => locs.get(n as object) ?? -1 });
    const retNodes = 5 + sn; // [pair (list operation) storage]
    if (code !== undefined) {
      const r = inner.instr(code);
      if (!r.dropsK) inner.node(0, 0);
      if (r.failed) inner.x += r.pending * retNodes;
    }
    // the literal's views are checked too: take their entries off the log
    for (const v of views) new Walker(this.log, inner.hooks).instr(v);
    this.node(inner.k + sn + pn + viewNodes + (3 + pn + sn) + retNodes, inner.x);
  }

  /** `value_size` nodes of a constant of type `t` written as `data`. */
  valueNodes(t: Ty, data: Micheline): number {
    const p = isPrim(data) ? data : undefined;
    const seq = Array.isArray(data) ? (data as readonly Micheline[]) : undefined;
    switch (t.prim) {
      case "pair": {
        let l: Micheline | undefined;
        let r: Micheline | undefined;
        if (p !== undefined && p.prim === "Pair" && (p.args ?? []).length >= 2) {
          const a = p.args!;
          l = a[0];
          r = a.length === 2 ? a[1] : { prim: "Pair", args: a.slice(1) };
        } else if (seq !== undefined && seq.length >= 2) {
          l = seq[0];
          r = seq.length === 2 ? seq[1] : seq.slice(1);
        }
        if (l === undefined || r === undefined) return 1;
        return 1 + this.valueNodes(t.args[0]!, l) + this.valueNodes(t.args[1]!, r);
      }
      case "or":
        if (p === undefined || (p.args ?? []).length !== 1) return 1;
        return 1 + this.valueNodes(t.args[p.prim === "Left" ? 0 : 1]!, p.args![0]!);
      case "option":
        if (p === undefined || p.prim !== "Some" || (p.args ?? []).length !== 1) return 1;
        return 1 + this.valueNodes(t.args[0]!, p.args![0]!);
      case "list":
      case "set": {
        let n = 1;
        for (const item of seq ?? []) n += this.valueNodes(t.args[0]!, item);
        return n;
      }
      case "map":
      case "big_map": {
        let n = t.prim === "big_map" ? 1 + tyNodes(t.args[0]!) + tyNodes(t.args[1]!) : 1;
        for (const elt of seq ?? []) {
          if (!isPrim(elt) || (elt.args ?? []).length !== 2) continue;
          n += (t.prim === "big_map" ? 1 : 0) + this.valueNodes(t.args[0]!, elt.args![0]!) + this.valueNodes(t.args[1]!, elt.args![1]!);
        }
        return n;
      }
      case "lambda":
        return 1 + lambdaConstantNodes(this.hooks, t.args[0]!, t.args[1]!, data);
      case "contract":
        return 1 + tyNodes(t.args[0]!);
      case "ticket":
        return 1 + this.valueNodes(t.args[0]!, data);
      default:
        return 1;
    }
  }
}

/** `lambda_size ~count_lambda_nodes:false` nodes of a lambda constant (no extra nodes). */
function lambdaConstantNodes(hooks: IrSizeHooks, argTy: Ty, retTy: Ty, code: Micheline): number {
  const w = new Walker(hooks.lambdaLog(argTy, retTy, code), hooks);
  const retStack = { ty: retTy, rest: null };
  w.bodyWith(code, () => retStack);
  return stackNodes({ ty: argTy, rest: null }) + stackNodes(retStack) + w.k;
}

/** A script as {@link scriptIrNodes} reads it. */
export interface IrSizeScript {
  /** The `code` field. */
  readonly code: Micheline;
  readonly paramTy: Ty;
  readonly storageTy: Ty;
  readonly views: Iterable<ViewNodes>;
}

/**
 * The nodes `parse_code` charges for (`Script_typed_ir_size.lambda_size` of the code plus the
 * views' Micheline nodes), from the type map `log` of the code as checked. Multiply by 45
 * (`nodesCost`) for the gas.
 */
export function scriptIrNodes(script: IrSizeScript, log: TypeLog, hooks: IrSizeHooks): number {
  const w = new Walker(log, hooks);
  const sn = tyNodes(script.storageTy);
  const retStack = 5 + sn;
  const r = w.instr(script.code);
  if (!r.dropsK) {
    w.k++;
    w.x++;
  }
  if (r.failed) w.x += r.pending * retStack;
  let views = 0;
  for (const v of script.views) {
    views += michelineNodesWithAnnots(v.input) + michelineNodesWithAnnots(v.output) + michelineNodesWithAnnots(v.code);
  }
  return michelineNodesWithAnnots(script.code) + (3 + tyNodes(script.paramTy) + sn) + retStack + w.k + w.x + views;
}

/** Checks a lambda value's code again (without gas) and logs its types, with `locs` as its locations. */
export type LambdaLogger = (argTy: Ty, retTy: Ty, code: Micheline, locs: WeakMap<object, number>) => TypeLog;

/**
 * `Script_typed_ir_size.value_size` nodes of a value of type `t` (what `script_size` charges for
 * the storage at the end of a run, 45 milligas per node): one per value node, the types a big map
 * or contract carries, a big map's pending changes, and for a lambda its Micheline nodes, stack
 * types and compiled instructions.
 */
export function valueSizeNodes(t: Ty, v: Value, lambdaLog: LambdaLogger): number {
  switch (t.prim) {
    case "pair": {
      const [l, r] = v as readonly [Value, Value];
      return 1 + valueSizeNodes(t.args[0]!, l, lambdaLog) + valueSizeNodes(t.args[1]!, r, lambdaLog);
    }
    case "or": {
      const o = v as OrValue;
      return 1 + valueSizeNodes(t.args[o.or === "Left" ? 0 : 1]!, o.value, lambdaLog);
    }
    case "option":
      return v === null ? 1 : 1 + valueSizeNodes(t.args[0]!, (v as Some).some, lambdaLog);
    case "list": {
      let n = 1;
      for (const x of (v as MList).toArray()) n += valueSizeNodes(t.args[0]!, x, lambdaLog);
      return n;
    }
    case "set": {
      let n = 1;
      for (const [k] of (v as MMap).entries()) n += valueSizeNodes(t.args[0]!, k, lambdaLog);
      return n;
    }
    case "map": {
      let n = 1;
      for (const [k, x] of (v as MMap).entries()) n += valueSizeNodes(t.args[0]!, k, lambdaLog) + valueSizeNodes(t.args[1]!, x, lambdaLog);
      return n;
    }
    case "big_map": {
      const m = v as BigMap;
      let n = 1 + tyNodes(t.args[0]!) + tyNodes(t.args[1]!);
      for (const [k, x] of m.diff.entries()) {
        n += 1 + valueSizeNodes(t.args[0]!, k, lambdaLog);
        if (x !== null) n += valueSizeNodes(t.args[1]!, (x as Some).some, lambdaLog);
      }
      return n;
    }
    case "lambda": {
      const lam = v as Lambda;
      const locs = canonicalLocations(lam.code);
      const hooks: IrSizeHooks = { loc: (n) => locs.get(n as object) ?? -1, lambdaLog: (a, r, c) => lambdaLog(a, r, c, locs) };
      const w = new Walker(lambdaLog(lam.argTy, lam.retTy, lam.code, locs), hooks);
      const retStack = { ty: lam.retTy, rest: null };
      w.bodyWith(lam.code, () => retStack);
      return 1 + michelineNodesWithAnnots(lam.code) + stackNodes({ ty: lam.argTy, rest: null }) + stackNodes(retStack) + w.k;
    }
    case "contract":
      return 1 + tyNodes(t.args[0]!);
    case "ticket":
      return 1 + valueSizeNodes(t.args[0]!, (v as Ticket).contents, lambdaLog);
    default:
      return 1;
  }
}
