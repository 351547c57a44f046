/**
 * Scripts (Octez `parse_toplevel`, `parse_code`, `typecheck_views`): the `parameter`, `storage`,
 * `code` and `view` fields of a script, its types, its checked code and views.
 * @module
 */
import type { Micheline, MichelinePrim } from "../../encoding/micheline.ts";
import type { Ty } from "../ty.ts";
import type { ScriptContext } from "../context.ts";
import { TezosError } from "../../errors/mod.ts";
import { canonicalLocations } from "../location.ts";
import { parseParameterTy, parseStorageTy, parseViewTy } from "../data/parse-type.ts";
import { invalidKindError } from "../data/node.ts";
import * as G from "../gas/interpreter.ts";
import { errorUnexpectedAnnot, parseFieldAnnot } from "./annot.ts";
import {
  duplicateScriptField, duplicatedViewName, illFormedType, illTypedContract, illTypedView, invalidArity, invalidPrimitive,
  missingScriptField, typecheckingTooManyRecursiveCalls,
} from "./errors.ts";
import { guardStack } from "../data/stack-guard.ts";
import { checkWellFormedEntrypoints } from "./entrypoints.ts";
import { Checker, type CheckedLambda, type TypeLogger } from "./parse-instr.ts";
import { parseViewName } from "./runtime.ts";
import { mergeTypes, pairT, push, T, named, unparseStack } from "./types.ts";

/** The raw fields of a script. */
export interface ToplevelParts {
  readonly param: Micheline;
  readonly storage: Micheline;
  readonly code: Micheline;
  readonly rootName: string | undefined;
  readonly views: Map<string, { input: Micheline; output: Micheline; code: Micheline }>;
}

/** A checked view. */
export interface View {
  readonly inTy: Ty;
  readonly outTy: Ty;
  readonly lambda: CheckedLambda;
}

/** A checked script. */
export interface ParsedScript {
  /** Parameter type; its `field` is the root entrypoint name when there is one. */
  readonly paramTy: Ty;
  readonly storageTy: Ty;
  readonly rootName: string | undefined;
  /** The checked code (a lambda from `pair parameter storage` to `pair (list operation) storage`). */
  readonly code: CheckedLambda;
  /** The views checked with the script ({@link typecheckViews}); empty when they were not (see {@link typecheckView}). */
  readonly views: Map<string, View>;
  /** The views as written, by name. */
  readonly viewNodes: Map<string, { input: Micheline; output: Micheline; code: Micheline }>;
  readonly parts: ToplevelParts;
  /** The script as given. */
  readonly codeNode: Micheline;
  /** Canonical locations of `codeNode`. */
  readonly locs: WeakMap<object, number>;
}

/** Options of {@link parseScript}. */
export interface ParseScriptOptions {
  readonly legacy?: boolean;
  readonly typeLogger?: TypeLogger;
  /**
   * Type-check the views too (Octez `typecheck_views`, with gas). Octez does it at origination,
   * for CREATE_CONTRACT literals and in `typecheck_code`, never when running or calling a
   * contract (`parse_script` leaves the views as Micheline; VIEW checks the one it runs).
   * Default of {@link parseScript}: `false` (an origination asks for it); default of
   * {@link parseScriptNode}: `true`.
   */
  readonly typecheckViews?: boolean;
}

function isPrim(n: Micheline): n is MichelinePrim {
  return typeof n === "object" && n !== null && !Array.isArray(n) && "prim" in n;
}

/** `parse_toplevel`: the fields of a script. */
export function parseToplevel(ctx: ScriptContext, root: Micheline, locs: WeakMap<object, number>, legacy: boolean): ToplevelParts {
  const loc = (n: Micheline) => locs.get(n as object) ?? -1;
  if (!Array.isArray(root)) throw invalidKindError(root, loc(root), ["sequence"]).withContext(illTypedContract.create({ ill_typed_code: root, type_map: [] }));
  try {
    let p: MichelinePrim | undefined;
    let s: MichelinePrim | undefined;
    let c: MichelinePrim | undefined;
    const views = new Map<string, { input: Micheline; output: Micheline; code: Micheline }>();
    for (const f of root as readonly Micheline[]) {
      if (!isPrim(f)) throw invalidKindError(f, loc(f), ["primitiveApplication"]);
      const args = f.args ?? [];
      const name = f.prim;
      if (name === "parameter" || name === "storage" || name === "code") {
        if (args.length !== 1) throw invalidArity.error({ location: loc(f), primitive_name: name, expected_arity: 1, wrong_arity: args.length });
        const cur = name === "parameter" ? p : name === "storage" ? s : c;
        if (cur !== undefined) throw duplicateScriptField.error({ loc: loc(f), prim: name });
        if (name === "parameter") p = f;
        else if (name === "storage") s = f;
        else c = f;
      } else if (name === "view") {
        if (args.length !== 4) throw invalidArity.error({ location: loc(f), primitive_name: "view", expected_arity: 4, wrong_arity: args.length });
        const fakeChecker = { loc: (n: Micheline) => loc(n), ctx } as unknown as Checker;
        const vname = parseViewName(fakeChecker, args[0]);
        ctx.gas.consume(G.viewUpdate(vname, views.size));
        if (views.has(vname)) throw duplicatedViewName.error({ location: loc(f) });
        views.set(vname, { input: args[1], output: args[2], code: args[3] });
      } else {
        throw invalidPrimitive.error({ location: loc(f), expected_primitive_names: ["parameter", "storage", "code", "view"], wrong_primitive_name: name });
      }
    }
    if (p === undefined) throw missingScriptField.error({ prim: "parameter" });
    if (s === undefined) throw missingScriptField.error({ prim: "storage" });
    if (c === undefined) throw missingScriptField.error({ prim: "code" });
    let param = p.args![0];
    let rootName: string | undefined;
    // root name on the parameter type or on the `parameter` keyword
    if (isPrim(param) && param.annots !== undefined && param.annots.some((a) => a.startsWith("%"))) {
      rootName = undefined; // kept on the type itself, read by parseParameterTy
    } else if (p.annots !== undefined && p.annots.length === 1 && p.annots[0].startsWith("%")) {
      rootName = legacy ? p.annots[0].slice(1) || undefined : parseFieldAnnot(loc(p), p.annots);
      if (isPrim(param)) {
        const np: MichelinePrim = { ...param, annots: [...(param.annots ?? []), "%" + (rootName ?? "")] };
        locs.set(np, loc(param));
        param = np;
      }
    } else if (!legacy) {
      errorUnexpectedAnnot(loc(p), p.annots);
    }
    if (!legacy) {
      errorUnexpectedAnnot(loc(c), c.annots);
      errorUnexpectedAnnot(loc(s), s.annots);
    }
    return { param, storage: s.args![0], code: c.args![0], rootName, views };
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(illTypedContract.create({ ill_typed_code: root, type_map: [] }));
    throw e;
  }
}

/** Internal options of {@link parseScriptNode}. */
export interface ParseScriptNodeOptions extends ParseScriptOptions {
  readonly depth?: number;
  readonly inner?: boolean;
  readonly locs?: WeakMap<object, number>;
}

/** Checks a script: parameter and storage types, code, and views unless `opts.typecheckViews === false` (no IR size charge: Octez `typecheck_code`). */
export function parseScriptNode(ctx: ScriptContext, node: Micheline, opts: ParseScriptNodeOptions = {}): ParsedScript {
  const legacy = opts.legacy ?? false;
  const locs = opts.locs ?? canonicalLocations(node);
  const parts = parseToplevel(ctx, node, locs, legacy);
  const tyOpts = { legacy, gas: ctx.gas, locations: locs };
  const loc = (n: Micheline) => locs.get(n as object) ?? -1;
  let paramTy: Ty;
  try {
    paramTy = parseParameterTy(parts.param, tyOpts);
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(illFormedType.create({ identifier: "parameter", ill_formed_expression: node, location: loc(parts.param) }));
    throw e;
  }
  const rootName = paramTy.field !== undefined && paramTy.field !== "" ? paramTy.field : undefined;
  if (!legacy) checkWellFormedEntrypoints(paramTy);
  let storageTy: Ty;
  try {
    storageTy = parseStorageTy(parts.storage, tyOpts);
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(illFormedType.create({ identifier: "storage", ill_formed_expression: node, location: loc(parts.storage) }));
    throw e;
  }
  const bareParam: Ty = paramTy.field === undefined ? paramTy : { ...paramTy, field: undefined };
  const argAnnot = bareParam.tname ?? "parameter";
  const stAnnot = storageTy.tname ?? "storage";
  const argFull = pairT(bareParam, undefined, argAnnot, storageTy, undefined, stAnnot);
  const retFull = pairT(named("list", undefined, T.operation), undefined, undefined, storageTy, undefined, undefined);
  const checker = new Checker(ctx, { legacy, typeLogger: opts.typeLogger, locs });
  let code: CheckedLambda;
  try {
    code = guardStack(
      () => checker.parseReturning({ kind: "toplevel", paramTy: bareParam, rootName, storageTy }, argFull, undefined, retFull, parts.code, opts.depth ?? 0),
      () => typecheckingTooManyRecursiveCalls.error(undefined),
    );
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(illTypedContract.create({ ill_typed_code: node, type_map: [] }));
    throw e;
  }
  const parsed: ParsedScript = { paramTy, storageTy, rootName, code, views: new Map<string, View>(), viewNodes: parts.views, parts, codeNode: node, locs };
  if (opts.typecheckViews ?? true) typecheckViews(ctx, parsed, { legacy, typeLogger: opts.typeLogger });
  return parsed;
}

/**
 * `typecheck_views`: checks every view of `script` in name order (with gas), keeping them in
 * `script.views`; an error comes as Octez's, under `ill_typed_contract` of the whole script.
 */
export function typecheckViews(ctx: ScriptContext, script: ParsedScript, opts: { legacy: boolean; typeLogger?: TypeLogger }): void {
  const checker = new Checker(ctx, { legacy: opts.legacy, typeLogger: opts.typeLogger, locs: script.locs });
  const views = script.views as Map<string, View>;
  for (const name of [...script.viewNodes.keys()].sort(compareViewNames)) {
    try {
      views.set(name, guardStack(() => parseView(checker, script.storageTy, script.viewNodes.get(name)!, opts.legacy), () => typecheckingTooManyRecursiveCalls.error(undefined)));
    } catch (e) {
      if (e instanceof TezosError) throw e.withContext(illTypedContract.create({ ill_typed_code: script.codeNode, type_map: [] }));
      throw e;
    }
  }
}

/**
 * Octez `parse_view_returning ~legacy:true` for the VIEW instruction: checks the view `name` of
 * `script` (its input and output types, its code), charging the gas; `undefined` when the script
 * has no such view. Errors come under `ill_typed_contract` of the view's code.
 */
export function typecheckView(ctx: ScriptContext, script: ParsedScript, name: string): View | undefined {
  const v = script.viewNodes.get(name);
  if (v === undefined) return undefined;
  const checker = new Checker(ctx, { legacy: true, locs: script.locs });
  try {
    return guardStack(() => parseView(checker, script.storageTy, v, true), () => typecheckingTooManyRecursiveCalls.error(undefined));
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(illTypedContract.create({ ill_typed_code: v.code, type_map: [] }));
    throw e;
  }
}

/** Octez's `SMap` order of view names (byte-wise string comparison). */
function compareViewNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function parseView(checker: Checker, storageTy: Ty, v: { input: Micheline; output: Micheline; code: Micheline }, legacy: boolean): View {
  const ctx = checker.ctx;
  const locs = checker.opts.locs;
  const tyOpts = { legacy, gas: ctx.gas, locations: locs };
  let inTy: Ty;
  let outTy: Ty;
  try {
    inTy = parseViewTy(v.input, tyOpts);
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(illFormedType.create({ identifier: "arg of view", ill_formed_expression: v.input, location: checker.loc(v.input) }));
    throw e;
  }
  try {
    outTy = parseViewTy(v.output, tyOpts);
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(illFormedType.create({ identifier: "return of view", ill_formed_expression: v.output, location: checker.loc(v.output) }));
    throw e;
  }
  const bef = push(pairT(inTy, undefined, undefined, storageTy, undefined, undefined), null);
  const j = checker.parseInstr({ kind: "lambda" }, v.code, bef, 0);
  const loc = checker.loc(v.code);
  const expected = push(outTy, null);
  if (j.aft === undefined) {
    return { inTy, outTy, lambda: { body: [...j.code, haltOf(loc, expected)], bef, aft: expected, loc } };
  }
  const fail = () => illTypedView.error({ loc, resulted_view_stack: unparseStack(j.aft as never), expected_view_stack: unparseStack(expected) });
  if (j.aft === null || j.aft.rest !== null) throw fail();
  try {
    mergeTypes(ctx.gas, legacy, loc, j.aft.ty, outTy);
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(illTypedView.create({ loc, resulted_view_stack: unparseStack(j.aft), expected_view_stack: unparseStack(expected) }));
    throw e;
  }
  return { inTy, outTy, lambda: { body: [...j.code, haltOf(loc, j.aft)], bef, aft: j.aft, loc } };
}

import { halt as haltOf } from "./parse-instr.ts";

/**
 * Checks a script (Octez `parse_code`): its fields, parameter and storage types, entrypoints and
 * code, then charges the typed IR's size (views counted as Micheline nodes); the views are
 * checked afterwards only when `opts.typecheckViews` (default `!legacy`, see
 * {@link ParseScriptOptions}). Throws the Octez errors (`ill_typed_contract` around the precise ones).
 */
export function parseScript(ctx: ScriptContext, code: Micheline, opts: ParseScriptOptions = {}): ParsedScript {
  // parse_code charges the typed IR's size model once the code is checked (GASX, gas/ir-size.ts)
  const log = new TypeLog();
  const outer = opts.typeLogger;
  const typeLogger: TypeLogger = outer === undefined ? log.logger : (loc, b, a) => {
    log.logger(loc, b, a);
    outer(loc, b, a);
  };
  const legacy = opts.legacy ?? false;
  const parsed = parseScriptNode(ctx, code, { ...opts, typeLogger, typecheckViews: false });
  const free = freeOfGas(ctx);
  const nodes = scriptIrNodes({ code: parsed.parts.code, paramTy: parsed.paramTy, storageTy: parsed.storageTy, views: parsed.viewNodes.values() }, log, {
    loc: (n) => parsed.locs.get(n as object) ?? -1,
    lambdaLog: (argTy, retTy, body) => {
      const l = new TypeLog();
      typecheckLambda(free, argTy, retTy, body, { legacy, locations: parsed.locs, typeLogger: l.logger });
      return l;
    },
  });
  ctx.gas.consume(nodesCost(nodes));
  // at origination Octez checks the views after `parse_code` (apply.ml: `typecheck_views`)
  if (opts.typecheckViews === true) typecheckViews(ctx, parsed, { legacy, typeLogger: opts.typeLogger });
  return parsed;
}

/** The context with a gas meter that does not count (checking again what was already charged). */
function freeOfGas(ctx: ScriptContext): ScriptContext {
  return Object.create(ctx, { gas: { value: { consume: () => {}, remaining: () => Number.MAX_SAFE_INTEGER } } }) as ScriptContext;
}

/**
 * The gas Octez's `Script_interpreter.execute` charges last, after unparsing the new storage
 * (`script_size`): 45 milligas per node of the storage value (`Script_typed_ir_size.value_size`),
 * `storage` being the value with its big maps extracted (ids only). Charge it with `ctx.gas.consume`.
 */
export function storageSizeCost(ctx: ScriptContext, storageTy: Ty, storage: Value): number {
  const free = freeOfGas(ctx);
  return nodesCost(valueSizeNodes(storageTy, storage, (argTy, retTy, body, locations) => {
    const l = new TypeLog();
    typecheckLambda(free, argTy, retTy, body, { legacy: true, locations, typeLogger: l.logger });
    return l;
  }));
}

import type { Value } from "../value.ts";
import { scriptIrNodes, TypeLog, valueSizeNodes } from "../gas/ir-size.ts";
import { nodesCost } from "../gas/script.ts";
import { typecheckLambda } from "./lambda.ts";
