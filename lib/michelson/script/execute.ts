/**
 * Running a script (Octez `Script_interpreter.execute`): the parameter is read at the given
 * entrypoint and wrapped into the full parameter type, the storage is read, and the code runs on
 * `Pair parameter storage`. Failures are wrapped as Octez does: `runtime_error` around
 * `script_rejected`/`script_overflow`/…, `bad_contract_parameter` around a parameter that does not
 * typecheck.
 * @module
 */
import type { Micheline } from "../../encoding/micheline.ts";
import type { Operation, Value, MList } from "../value.ts";
import type { ScriptContext } from "../context.ts";
import { TezosError } from "../../errors/mod.ts";
import { parseData } from "../data/parse-data.ts";
import { unparseData, type UnparsingMode } from "../data/unparse-data.ts";
import { badContractParameter, cannotSerializeStorage, runtimeError } from "./errors.ts";
import { findEntrypoint } from "./runtime.ts";
import type { StepConstants, Tracer } from "./machine.ts";
import { type RunSlices, runLambda, runLambdaSliced } from "./runtime.ts";
import type { ParsedScript } from "./script.ts";
import { bare } from "./types.ts";
import { collectLazyStorage } from "../lazy-storage.ts";
import { parseDataCycle } from "../gas/typechecking.ts";

export type { Tracer, TraceItem } from "./machine.ts";

/** What a run gives: the new storage and the operations emitted (in order). */
export interface ExecutionResult {
  readonly storage: Value;
  readonly operations: Operation[];
  /** The storage unparsed, when `unparseStorage` was asked. */
  readonly storageNode?: Micheline;
  /**
   * Big map ids held by the parameter (`toDuplicate`) and by the storage before the run
   * (`toUpdate`), collected with gas before the run as Octez's `collect_lazy_storage`.
   */
  readonly lazyIds: { readonly toDuplicate: Set<bigint>; readonly toUpdate: Set<bigint> };
}

/** Arguments of {@link execute}. */
export interface ExecuteArgs {
  /** Entrypoint (`""` or `"default"` for the default one). */
  readonly entrypoint: string;
  /** Parameter for that entrypoint (Micheline). */
  readonly parameter: Micheline;
  /** Storage (Micheline), or an already parsed value via `storageValue`. */
  readonly storage: Micheline;
  /** Parsed storage (skips reading `storage`). */
  readonly storageValue?: Value;
  /** The call comes from a contract: forged tickets/big map ids allowed in the parameter (Octez `internal`). */
  readonly internal?: boolean;
  /**
   * Unparse the new storage in this mode, charging gas (Octez does it at the end of `execute`,
   * after extracting lazy storage); a failure is `cannot_serialize_storage`. Absent: not done.
   */
  readonly unparseStorage?: UnparsingMode;
}

/** What a run starts from: the parameter wrapped into the full parameter type, and the storage. */
interface Start {
  readonly arg: Value;
  readonly storage: Value;
  readonly lazyIds: ExecutionResult["lazyIds"];
  readonly sc: StepConstants;
}

/** Reads the parameter and storage, as `execute` does before running the code. */
function start(ctx: ScriptContext, script: ParsedScript, args: ExecuteArgs): Start {
  let ep;
  try {
    ep = findEntrypoint(script.paramTy, script.rootName, args.entrypoint);
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(badContractParameter.create({ contract: ctx.self }));
    throw e;
  }
  let arg: Value;
  try {
    arg = parseData(ctx, bare(ep.ty), args.parameter, { legacy: false, allowForgedTickets: args.internal ?? false, allowForgedLazyStorageId: args.internal ?? false });
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(badContractParameter.create({ contract: ctx.self }));
    throw e;
  }
  for (let i = ep.path.length - 1; i >= 0; i--) arg = { or: ep.path[i], value: arg };
  // Octez parses the parameter boxed into its Left/Right path: one more data cycle per level
  ctx.gas.consume(ep.path.length * parseDataCycle);
  const storage = args.storageValue !== undefined
    ? args.storageValue
    : parseData(ctx, script.storageTy, args.storage, { legacy: true, allowForgedTickets: true, allowForgedLazyStorageId: true });
  // Octez: force_decode of the code (free: already decoded), then collect_lazy_storage of both
  const lazyIds = { toDuplicate: collectLazyStorage(script.paramTy, arg, ctx.gas), toUpdate: collectLazyStorage(script.storageTy, storage, ctx.gas) };
  const sc: StepConstants = { self: ctx.self, source: ctx.source, sender: ctx.sender, amount: ctx.amount, chainId: ctx.chainId };
  return { arg, storage, lazyIds, sc };
}

/** Wraps a failure of the code as Octez does (`runtime_error`). */
function runtimeFailure(ctx: ScriptContext, script: ParsedScript, e: unknown): unknown {
  return e instanceof TezosError ? e.withContext(runtimeError.create({ contract_handle: ctx.self, contract_code: script.codeNode })) : e;
}

/** The result from the code's output (and the storage unparsed, when asked). */
function finish(ctx: ScriptContext, script: ParsedScript, args: ExecuteArgs, out: Value, lazyIds: ExecutionResult["lazyIds"]): ExecutionResult {
  const [ops, st] = out as readonly [Value, Value];
  let storageNode: Micheline | undefined;
  if (args.unparseStorage !== undefined) {
    try {
      storageNode = unparseData(script.storageTy, st, args.unparseStorage, { gas: ctx.gas });
    } catch (e) {
      if (e instanceof TezosError) throw e.withContext(cannotSerializeStorage.create(undefined));
      throw e;
    }
  }
  const operations = (ops as MList).toArray() as Operation[];
  return storageNode === undefined ? { storage: st, operations, lazyIds } : { storage: st, operations, storageNode, lazyIds };
}

/**
 * Runs `script` with a parameter and storage; `tracer` receives the initial stack and the stack
 * after every instruction (trace_code).
 */
export function execute(ctx: ScriptContext, script: ParsedScript, args: ExecuteArgs, tracer?: Tracer): ExecutionResult {
  const s = start(ctx, script, args);
  let out: Value;
  try {
    out = runLambda(ctx, s.sc, script.code, [s.arg, s.storage], tracer);
  } catch (e) {
    throw runtimeFailure(ctx, script, e);
  }
  return finish(ctx, script, args, out, s.lazyIds);
}

/**
 * {@link execute} in slices (an RPC's run): the code pauses whenever `slices` says a slice of work
 * is over, letting other work go on; the result is {@link execute}'s.
 */
export async function executeSliced(ctx: ScriptContext, script: ParsedScript, args: ExecuteArgs, tracer: Tracer | undefined, slices: RunSlices): Promise<ExecutionResult> {
  const s = start(ctx, script, args);
  let out: Value;
  try {
    out = await runLambdaSliced(ctx, s.sc, script.code, [s.arg, s.storage], tracer, slices);
  } catch (e) {
    throw runtimeFailure(ctx, script, e);
  }
  return finish(ctx, script, args, out, s.lazyIds);
}
