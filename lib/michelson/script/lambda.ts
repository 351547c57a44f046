/**
 * Lambda constants (`{ ... }` data of type `lambda a b`): checked and compiled once, as Octez's
 * `parse_data` does with `parse_returning Lambda`.
 * @module
 */
import type { Micheline } from "../../encoding/micheline.ts";
import type { Ty } from "../ty.ts";
import type { Lambda } from "../value.ts";
import type { ScriptContext } from "../context.ts";
import { canonicalLocations } from "../location.ts";
import { Checker, type TypeLogger } from "./parse-instr.ts";
import { setLambdaTypechecker } from "../data/parse-data.ts";
import { guardStack } from "../data/stack-guard.ts";
import { typecheckingTooManyRecursiveCalls } from "./errors.ts";

/** Options of {@link typecheckLambda}. */
export interface LambdaOptions {
  readonly legacy?: boolean;
  /** Canonical locations of the enclosing expression (default: `code` is a root). */
  readonly locations?: WeakMap<object, number>;
  readonly typeLogger?: TypeLogger;
  /** Nesting depth of the enclosing parse (Octez `stack_depth`). */
  readonly stackDepth?: number;
}

/**
 * Checks `code` as a lambda from `argTy` to `retTy` and compiles it. Throws the type checker's
 * errors (`bad_return`, `bad_stack`, …).
 */
export function typecheckLambda(ctx: ScriptContext, argTy: Ty, retTy: Ty, code: Micheline, opts: LambdaOptions = {}): Lambda {
  const checker = new Checker(ctx, { legacy: opts.legacy ?? ctx.legacy, typeLogger: opts.typeLogger, locs: opts.locations ?? canonicalLocations(code) });
  return guardStack(() => checker.lambda(argTy, retTy, code, opts.stackDepth ?? 0), () => typecheckingTooManyRecursiveCalls.error(undefined));
}

setLambdaTypechecker((ctx, argTy, retTy, code, opts) => typecheckLambda(ctx, argTy, retTy, code, { legacy: opts.legacy, locations: opts.locations }));
