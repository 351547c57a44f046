/**
 * Views (Hangzhou's on-chain views): running a script's named view on an input. The view is the
 * one checked with the script when its views were checked, else it is checked now, with gas
 * (`typecheckView`, as the VIEW instruction does in `runtime.ts`).
 * @module
 */
import type { Micheline } from "../../encoding/micheline.ts";
import type { Value } from "../value.ts";
import type { ScriptContext } from "../context.ts";
import { TezosError } from "../../errors/mod.ts";
import { parseData } from "../data/parse-data.ts";
import { runtimeError } from "./errors.ts";
import type { Tracer } from "./machine.ts";
import { runLambda } from "./runtime.ts";
import { type ParsedScript, typecheckView } from "./script.ts";


/**
 * Runs the view `name` of `script` on `input` (Micheline of the view's input type) with the
 * contract's `storage`; returns the view's result value and its type. `undefined` when the
 * script has no such view.
 */
export function runView(
  ctx: ScriptContext,
  script: ParsedScript,
  name: string,
  input: Micheline,
  storage: Micheline | Value,
  opts: { storageIsValue?: boolean; tracer?: Tracer } = {},
): { value: Value; ty: import("../ty.ts").Ty } | undefined {
  const v = script.views.get(name) ?? typecheckView(ctx, script, name);
  if (v === undefined) return undefined;
  const arg = parseData(ctx, v.inTy, input, { legacy: false });
  const st = opts.storageIsValue ? (storage as Value) : parseData(ctx, script.storageTy, storage as Micheline, { legacy: true, allowForgedTickets: true, allowForgedLazyStorageId: true });
  try {
    const value = runLambda(ctx, { self: ctx.self, source: ctx.source, sender: ctx.sender, amount: ctx.amount, chainId: ctx.chainId }, v.lambda, [arg, st], opts.tracer);
    return { value, ty: v.outTy };
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(runtimeError.create({ contract_handle: ctx.self, contract_code: script.codeNode }));
    throw e;
  }
}
