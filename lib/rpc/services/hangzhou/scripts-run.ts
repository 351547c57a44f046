/**
 * How Hangzhou's `run_code` and `trace_code` run a script (Octez `plugin.ml`, `Scripts.register`,
 * and `Script_interpreter.execute`), on a scratch copy of the block's protocol context so that
 * nothing the run does is kept:
 *
 * 1. a dummy contract is originated from the origination nonce of the zero operation hash (its
 *    address is `KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi`, index 0) with the given balance, code and
 *    storage; it is `SELF`;
 * 2. `SENDER` is `source`, `SOURCE` is `payer`; given only one of them, both take it; given
 *    neither, both are the dummy contract;
 * 3. the gas limit is `gas` (gas units), by default `hard_gas_limit_per_operation`;
 * 4. the script is parsed in legacy mode, the parameter checked against the entrypoint's type,
 *    the code run (with a tracer for `trace_code`);
 * 5. the operations it emits are written as internal operations (their values in optimized form,
 *    their big maps moved to temporary ids), then the new storage's big maps get their ids
 *    (fresh ones from the context's counter for new maps) and the storage is printed in the
 *    requested unparsing mode; the lazy storage diff is the operations' diffs then the storage's,
 *    absent when empty.
 * @module
 */
import { encodeBinary } from "../../../encoding/codec.ts";
import { internalOperation, type InternalOperation } from "../../../encoding/hangzhou/operation.ts";
import type { LazyStorageDiffItem } from "../../../encoding/hangzhou/receipts/lazy-storage-diff.ts";
import type { Micheline } from "../../../encoding/micheline.ts";
import { unparseData } from "../../../michelson/data/unparse-data.ts";
import { extractLazyStorageDiff, type LazyStorageEnv } from "../../../michelson/lazy-storage.ts";
import { executeSliced } from "../../../michelson/script/execute.ts";
import { cannotSerializeStorage } from "../../../michelson/script/errors.ts";
import { stripLocationsCost } from "../../../michelson/gas/script.ts";
import { TezosError } from "../../../errors/mod.ts";
import { TRACE_MAX_STEPS, traceTooLong, type WorkBudget } from "../../../errors/budget.ts";
import type { TraceItem } from "../../../michelson/script/machine.ts";
import { parseScript, storageSizeCost } from "../../../michelson/script/script.ts";
import type { Operation } from "../../../michelson/value.ts";
import type { GasMeter } from "../../../michelson/context.ts";
import { makeScriptContext, scriptLevel, scriptNow, type HangzhouScriptContext } from "../../../protocols/hangzhou/michelson/script-context.ts";
import { expandGlobalConstants } from "../../../protocols/hangzhou/apply/content.ts";
import { freshBigMapId } from "../../../protocols/hangzhou/storage/big-map.ts";
import { freshContractFromCurrentNonce, rawOriginate } from "../../../protocols/hangzhou/storage/contract.ts";
import type { ProtoContext } from "../../../protocols/hangzhou/storage/proto-context.ts";
import type { RunCodeInput, RunCodeOutput, TraceStep, UnparsingMode } from "./scripts-codecs.ts";

/** The origination nonce run_code uses: Octez's `Operation_hash.zero`. */
const ZERO_OPERATION_HASH = new Uint8Array(32);

/** A gas meter that never runs out (for printing traces, as Octez's `Gas.set_unlimited`). */
const UNLIMITED: GasMeter = { consume: () => {}, remaining: () => Number.MAX_SAFE_INTEGER };

/** The lazy storage environment of a script context: its gas and the context's big map counters. */
function lazyEnv(ctx: HangzhouScriptContext): LazyStorageEnv {
  return {
    gas: ctx.gas,
    freshBigMapId: (temporary) => (temporary ? ctx.freshTemporaryBigMapId() : freshBigMapId(ctx.pc)),
  };
}

/** The `parameters` of an internal transaction: omitted for `Unit` on the default entrypoint. */
function transactionParameters(entrypoint: string, value: Micheline): { entrypoint: string; value: Micheline } | undefined {
  const name = entrypoint === "" ? "default" : entrypoint;
  const unit = !Array.isArray(value) && (value as { prim?: string; args?: unknown[]; annots?: unknown[] }).prim === "Unit" &&
    ((value as { args?: unknown[] }).args ?? []).length === 0 && ((value as { annots?: unknown[] }).annots ?? []).length === 0;
  return name === "default" && unit ? undefined : { entrypoint: name, value };
}

/** An emitted operation as an internal operation of `source`, with the lazy storage diff its values brought. */
export function internalOperationOf(source: string, op: Operation): { operation: InternalOperation; diff: readonly LazyStorageDiffItem[] | undefined } {
  switch (op.op) {
    case "transaction": {
      const parameters = transactionParameters(op.entrypoint, op.parameters);
      const operation: InternalOperation = { source, nonce: op.nonce, kind: "transaction", amount: op.amount, destination: op.destination };
      if (parameters !== undefined) (operation as { parameters?: unknown }).parameters = parameters;
      return { operation, diff: op.lazyStorageDiff };
    }
    case "origination": {
      const operation = { source, nonce: op.nonce, kind: "origination", balance: op.credit, script: { code: op.code, storage: op.storage } } as InternalOperation;
      if (op.delegate !== null) (operation as { delegate?: string }).delegate = op.delegate;
      return { operation, diff: op.lazyStorageDiff };
    }
    case "delegation": {
      const operation = { source, nonce: op.nonce, kind: "delegation" } as InternalOperation;
      if (op.delegate !== null) (operation as { delegate?: string }).delegate = op.delegate;
      return { operation, diff: undefined };
    }
  }
}

/** The binary form of an emitted operation, as an `operation` value prints (Octez's unparse of `Operation_t`). */
export function operationBytes(source: string, op: Operation): Uint8Array {
  return encodeBinary(internalOperation, internalOperationOf(source, op).operation);
}

/** The dummy contract of run_code and the step it runs with. */
function dummyRun(pc: ProtoContext, input: RunCodeInput, legacy: boolean): HangzhouScriptContext {
  pc.initOriginationNonce(ZERO_OPERATION_HASH);
  const self = freshContractFromCurrentNonce(pc);
  rawOriginate(pc, self, { balance: input.balance, script: { code: input.script, storage: input.storage } });
  const sender = input.source ?? input.payer ?? self;
  const source = input.payer ?? input.source ?? self;
  pc.setGasLimit(input.gas ?? pc.constants.hard_gas_limit_per_operation);
  return makeScriptContext(pc, {
    self,
    sender,
    source,
    amount: input.amount,
    balance: input.balance,
    now: scriptNow(pc),
    level: scriptLevel(pc),
    chainId: input.chain_id,
    legacy,
  });
}

/**
 * Runs `input.script` as `run_code` (or `trace_code` when `traced`) on a copy of `blockPc`:
 * the new storage in `input.unparsing_mode` (Readable by default), the emitted operations, the
 * lazy storage diff, and the trace. Errors are Hangzhou's (ill-typed script or parameter,
 * `script_rejected`, gas exhaustion…) as a `TezosError`. The code runs in slices of `budget`
 * (other calls and the baker go on between them) and stops past it; a trace keeps at most
 * {@link TRACE_MAX_STEPS} steps (`node.rpc.trace_too_long` beyond).
 */
export async function runCode(blockPc: ProtoContext, input: RunCodeInput, traced: boolean, budget: WorkBudget): Promise<RunCodeOutput> {
  const pc = blockPc.clone();
  pc.budget = budget;
  const mode: UnparsingMode = input.unparsing_mode ?? "Readable";
  const ctx = dummyRun(pc, input, true);
  // parse_code: global constants expanded (charged even when there are none), then checked
  const script = parseScript(ctx, expandGlobalConstants(pc, input.script), { legacy: true });

  const trace: TraceStep[] = [];
  const tracer = traced
    ? (loc: number, gasLeft: number, stack: readonly TraceItem[]) => {
        if (trace.length === TRACE_MAX_STEPS) throw traceTooLong.error({ max_steps: TRACE_MAX_STEPS });
        trace.push({
          location: loc,
          gas: BigInt(gasLeft),
          stack: stack.map((s) => {
            const item = unparseData(s.ty, s.value, mode, { gas: UNLIMITED, encodeOperation: (op) => operationBytes(ctx.self, op) });
            const annot = s.annot === undefined || s.annot === "" ? undefined : s.annot.startsWith("@") ? s.annot : `@${s.annot}`;
            return annot === undefined ? { item } : { item, annot };
          }),
        });
      }
    : undefined;

  const result = await executeSliced(ctx, script, { entrypoint: input.entrypoint, parameter: input.input, storage: input.storage }, tracer, budget);

  const env = lazyEnv(ctx);
  const operations: InternalOperation[] = [];
  const diffs: LazyStorageDiffItem[] = [];
  for (const op of result.operations) {
    const x = internalOperationOf(ctx.self, op);
    operations.push(x.operation);
    if (x.diff !== undefined) diffs.push(...x.diff);
  }
  const stored = extractLazyStorageDiff(env, script.storageTy, result.storage, {
    mode,
    temporary: false,
    toDuplicate: result.lazyIds.toDuplicate,
    toUpdate: result.lazyIds.toUpdate,
  });
  if (stored.diff !== undefined) diffs.push(...stored.diff);
  let storage: Micheline;
  try {
    storage = unparseData(script.storageTy, stored.value, mode, { gas: ctx.gas, encodeOperation: (op) => operationBytes(ctx.self, op) });
    ctx.gas.consume(stripLocationsCost(storage));
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(cannotSerializeStorage.create(undefined));
    throw e;
  }
  // `script_size`, charged after the fact
  ctx.gas.consume(storageSizeCost(ctx, script.storageTy, stored.value));
  const out: RunCodeOutput = { storage, operations };
  if (traced) out.trace = trace;
  if (diffs.length > 0) out.lazyStorageDiff = diffs;
  return out;
}
