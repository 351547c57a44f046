/**
 * `helpers/scripts/run_view`: a TZIP-4 view (Octez `plugin.ml`, `View_helpers` and the
 * `run_view` service). The view is an entrypoint of type `pair 'input (contract 'output)`; a
 * callback contract `{ parameter 'output ; storage unit ; code FAILWITH }` is originated (from
 * the zero operation hash's origination nonce), the contract is called on that entrypoint with
 * `Pair input <callback address as bytes>` and amount 0, and the answer is the parameter of the
 * one transaction it must emit to the callback (in optimized form, as emitted).
 *
 * Errors as Octez: `viewedContractHasNoScript`, `viewCallbackOriginationFailed`,
 * `illformedViewType`, `viewNeverReturns`, `viewUnexpectedReturn`, and the protocol's own
 * (no such entrypoint, ill-typed input, script failures).
 * @module
 */
import { encodeBinary } from "../../../encoding/codec.ts";
import { contractId } from "../../../encoding/hangzhou/basic.ts";
import { expression } from "../../../encoding/hangzhou/script.ts";
import { toHex } from "../../../encoding/hex.ts";
import type { Micheline, MichelinePrim } from "../../../encoding/micheline.ts";
import { obj, req } from "../../../encoding/object.ts";
import { string } from "../../../encoding/bytes.ts";
import type { ErrorDefinition } from "../../../errors/mod.ts";
import { TezosError } from "../../../errors/mod.ts";
import { unparseTy } from "../../../michelson/data/parse-type.ts";
import { findEntrypoint } from "../../../michelson/script/entrypoints.ts";
import { executeSliced } from "../../../michelson/script/execute.ts";
import type { WorkBudget } from "../../../errors/budget.ts";
import { parseScript } from "../../../michelson/script/script.ts";
import { makeScriptContext, scriptLevel, scriptNow } from "../../../protocols/hangzhou/michelson/script-context.ts";
import { expandGlobalConstants } from "../../../protocols/hangzhou/apply/content.ts";
import { protoError } from "../../../protocols/hangzhou/proto-error.ts";
import { freshContractFromCurrentNonce, getScript, rawOriginate } from "../../../protocols/hangzhou/storage/contract.ts";
import type { ProtoContext } from "../../../protocols/hangzhou/storage/proto-context.ts";
import type { UnparsingMode } from "./scripts-codecs.ts";
import { internalOperationOf } from "./scripts-run.ts";
import { helperContextOn, scriptParameterType } from "./scripts-helpers.ts";

/** `viewedContractHasNoScript`. */
export const viewedContractHasNoScript: ErrorDefinition = protoError({
  id: "viewedContractHasNoScript",
  kind: "permanent",
  title: "Viewed contract has no script",
  description: "A view was called on a contract with no script.",
});
/** `viewCallbackOriginationFailed`. */
export const viewCallbackOriginationFailed: ErrorDefinition = protoError({
  id: "viewCallbackOriginationFailed",
  kind: "permanent",
  title: "View callback origination failed",
  description: "View callback origination failed",
});
/** `illformedViewType` {entrypoint, type}. */
export const illformedViewType: ErrorDefinition<{ entrypoint: string; type: Micheline }> = protoError({
  id: "illformedViewType",
  kind: "permanent",
  title: "An entrypoint type is incompatible with TZIP-4 view type.",
  description: "An entrypoint type is incompatible with TZIP-4 view type.",
  fields: obj(req("entrypoint", string), req("type", expression)),
});
/** `viewNeverReturns` {entrypoint, callback}. */
export const viewNeverReturns: ErrorDefinition<{ entrypoint: string; callback: string }> = protoError({
  id: "viewNeverReturns",
  kind: "permanent",
  title: "A view never returned a transaction to the given callback contract",
  description: "A view never initiated a transaction to the given callback contract.",
  fields: obj(req("entrypoint", string), req("callback", contractId)),
});
/** `viewUnexpectedReturn` {entrypoint, callback}. */
export const viewUnexpectedReturn: ErrorDefinition<{ entrypoint: string; callback: string }> = protoError({
  id: "viewUnexpectedReturn",
  kind: "permanent",
  title: "A view returned an unexpected list of operations",
  description:
    "A view initiated a list of operations while the TZIP-4 standard expects only a transaction to the given callback contract.",
  fields: obj(req("entrypoint", string), req("callback", contractId)),
});

/** The input of `run_view`. */
export interface RunViewInput {
  contract: string;
  entrypoint: string;
  input: Micheline;
  chain_id: string;
  source?: string;
  payer?: string;
  gas?: bigint;
  unparsing_mode: UnparsingMode;
}

/** The result type of a TZIP-4 view type `pair _ (contract t)`, or `illformedViewType`. */
function viewOutputType(entrypoint: string, ty: Micheline): Micheline {
  const p = ty as MichelinePrim;
  const c = p.prim === "pair" && p.args?.length === 2 ? (p.args[1] as MichelinePrim) : undefined;
  if (c !== undefined && c.prim === "contract" && c.args?.length === 1) return c.args[0]!;
  throw illformedViewType.error({ entrypoint, type: ty });
}

/**
 * Runs a TZIP-4 view on a copy of `blockPc` and returns the value it sends to the callback; the
 * code runs in slices of `budget` and stops past it (as `run_code`).
 */
export async function runTzip4View(blockPc: ProtoContext, input: RunViewInput, budget: WorkBudget): Promise<Micheline> {
  const pc = blockPc.clone();
  pc.budget = budget;
  const script = getScript(pc, input.contract);
  if (script === undefined) throw viewedContractHasNoScript.error(undefined);
  const viewTy = unparseTy(findEntrypoint(scriptParameterType(helperContextOn(pc, input.chain_id), script.code, false), input.entrypoint).ty);
  const outTy = viewOutputType(input.entrypoint, viewTy);
  let viewer: string;
  try {
    pc.initOriginationNonce(new Uint8Array(32));
    viewer = freshContractFromCurrentNonce(pc);
    const code: Micheline = [
      { prim: "parameter", args: [outTy] },
      { prim: "storage", args: [{ prim: "unit" }] },
      { prim: "code", args: [{ prim: "FAILWITH" }] },
    ];
    rawOriginate(pc, viewer, { balance: 0n, script: { code, storage: { prim: "Unit" } } });
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(viewCallbackOriginationFailed.create(undefined));
    throw e;
  }
  const sender = input.source ?? input.payer ?? input.contract;
  const source = input.payer ?? input.source ?? input.contract;
  pc.setGasLimit(input.gas ?? pc.constants.hard_gas_limit_per_operation);
  const sc = makeScriptContext(pc, {
    self: input.contract,
    sender,
    source,
    amount: 0n,
    now: scriptNow(pc),
    level: scriptLevel(pc),
    chainId: input.chain_id,
    legacy: true,
  });
  // Script_interpreter.execute → parse_script: global constants expanded (charged), views left unchecked
  const parsed = parseScript(sc, expandGlobalConstants(pc, script.code), { legacy: true });
  const parameter: Micheline = { prim: "Pair", args: [input.input, { bytes: toHex(encodeBinary(contractId, viewer)) }] };
  const result = await executeSliced(sc, parsed, { entrypoint: input.entrypoint, parameter, storage: script.storage, internal: true }, undefined, budget);
  const ops = result.operations;
  if (ops.length === 0) throw viewNeverReturns.error({ entrypoint: input.entrypoint, callback: viewer });
  const op = ops[0]!;
  if (ops.length !== 1 || op.op !== "transaction" || op.destination !== viewer) {
    throw viewUnexpectedReturn.error({ entrypoint: input.entrypoint, callback: viewer });
  }
  const internal = internalOperationOf(input.contract, op).operation as { parameters?: { value: Micheline } };
  return internal.parameters?.value ?? { prim: "Unit" };
}
