/**
 * `{B}/helpers/scripts/…`, Hangzhou's Michelson helpers (Octez `plugin.ml`, module `Scripts`):
 * `run_code`, `trace_code`, `run_view` (TZIP-4 views), `typecheck_code`, `typecheck_data`,
 * `pack_data`, `normalize_data`, `normalize_script`, `normalize_type`, `entrypoint`,
 * `entrypoints`, `script_size`, and the early layout's `hash_data` (input `{data, type, gas?}`,
 * answer `{hash, gas}`: the `expr…` hash of the packed data, as Octez's `hash_data` helper
 * answered before it became `pack_data`).
 *
 * Every helper works on a scratch copy of the block's protocol context: nothing is kept. Gas:
 * `run_code`, `trace_code` and `run_view` run with the given limit or
 * `hard_gas_limit_per_operation`; the others without limit unless `gas` is given, and answer the
 * gas left (`"unaccounted"` without limit). Legacy mode: off unless `legacy` is true
 * (`pack_data` and `normalize_type` read in legacy mode, `entrypoint`/`entrypoints` never).
 *
 * Errors are Hangzhou's protocol errors (500 with the JSON trace); a body that does not decode
 * is a 400 from the RPC layer.
 * @module
 */
import { bytes, string } from "../../../encoding/bytes.ts";
import { gas, contractId, type Gas } from "../../../encoding/hangzhou/basic.ts";
import { toLegacyBigMapDiff } from "../../../encoding/hangzhou/receipts/lazy-storage-diff.ts";
import { expression } from "../../../encoding/hangzhou/script.ts";
import { chainId, scriptExprHash } from "../../../encoding/hashes.ts";
import { bool, int31 } from "../../../encoding/integers.ts";
import { list } from "../../../encoding/list.ts";
import type { Micheline } from "../../../encoding/micheline.ts";
import { dft, obj, opt, req } from "../../../encoding/object.ts";
import { tup } from "../../../encoding/tuple.ts";
import { packData, scriptExprHashOf } from "../../../michelson/data/pack.ts";
import { parseData } from "../../../michelson/data/parse-data.ts";
import { parsePackableTy, parseParameterTy, parseTy, unparseTy } from "../../../michelson/data/parse-type.ts";
import { unparseData } from "../../../michelson/data/unparse-data.ts";
import { findEntrypoint } from "../../../michelson/script/entrypoints.ts";
import { typecheckCode } from "../../../michelson/script/typecheck.ts";
import { Directory } from "../../directory.ts";
import { service } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import { protoContextOf, workBudget } from "./context.ts";
import {
  entrypointsListing,
  gasLimitInput,
  runCodeInput,
  runCodeOutput,
  traceCodeOutput,
  unparsingMode,
} from "./scripts-codecs.ts";
import {
  gasLevel,
  helperContext,
  normalizeCode,
  parseDataForHelper,
  entrypointsOf,
  parseTypeForData,
  scriptParameterType,
  unparseTypeUnfolded,
} from "./scripts-helpers.ts";
import { runCode } from "./scripts-run.ts";
import { runTzip4View } from "./scripts-view.ts";
import { scriptSize } from "./scripts-size.ts";

const S = ["helpers", "scripts"] as const;

/** A type map as `typecheck_code` answers it (`type_map_enc`): stacks as `[type, [annots]]` pairs. */
const typeMap = list(
  obj(
    req("location", int31),
    req("stack_before", list(tup(expression, list(string)))),
    req("stack_after", list(tup(expression, list(string)))),
  ),
);

/** Hangzhou's `helpers/scripts` services. */
export function scriptsServices(): Directory<BlockCtx> {
  return new Directory<BlockCtx>().register(
    service({
      method: "POST",
      path: [...S, "run_code"],
      description: "Run a piece of code in the current context",
      input: runCodeInput,
      output: runCodeOutput(toLegacyBigMapDiff),
      handler: ({ ctx, body }) => runCode(protoContextOf(ctx), body, false, workBudget(ctx)),
    }),
    service({
      method: "POST",
      path: [...S, "trace_code"],
      description: "Run a piece of code in the current context, keeping a trace",
      input: runCodeInput,
      output: traceCodeOutput(toLegacyBigMapDiff),
      handler: ({ ctx, body }) => runCode(protoContextOf(ctx), body, true, workBudget(ctx)),
    }),
    service({
      method: "POST",
      path: [...S, "run_view"],
      description:
        "Simulate a call to a view following the TZIP-4 standard. See https://gitlab.com/tzip/tzip/-/blob/master/proposals/tzip-4/tzip-4.md#view-entrypoints.",
      input: obj(
        req("contract", contractId),
        req("entrypoint", string),
        req("input", expression),
        req("chain_id", chainId),
        opt("source", contractId),
        opt("payer", contractId),
        opt("gas", gasLimitInput),
        req("unparsing_mode", unparsingMode),
      ),
      output: obj(req("data", expression)),
      handler: async ({ ctx, body }) => ({ data: await runTzip4View(protoContextOf(ctx), body, workBudget(ctx)) }),
    }),
    service({
      method: "POST",
      path: [...S, "typecheck_code"],
      description: "Typecheck a piece of code in the current context",
      input: obj(req("program", expression), opt("gas", gasLimitInput), opt("legacy", bool)),
      output: obj(req("type_map", typeMap), req("gas", gas)),
      handler: ({ ctx, body }) => {
        const legacy = body.legacy ?? false;
        const sc = helperContext(ctx, body.gas, legacy);
        const map = typecheckCode(sc, body.program, { legacy });
        return {
          type_map: map.map((e) => ({
            location: e.location,
            stack_before: e.stack_before.map((s) => [s.type, s.annots] as [Micheline, string[]]),
            stack_after: e.stack_after.map((s) => [s.type, s.annots] as [Micheline, string[]]),
          })),
          gas: gasLevel(sc.pc),
        };
      },
    }),
    service({
      method: "POST",
      path: [...S, "script_size"],
      description: "Compute the size of a script in the current context",
      input: obj(req("program", expression), req("storage", expression), opt("gas", gasLimitInput), opt("legacy", bool)),
      output: obj(req("script_size", int31)),
      handler: ({ ctx, body }) => {
        const legacy = body.legacy ?? false;
        const sc = helperContext(ctx, body.gas, legacy);
        return { script_size: scriptSize(sc, body.program, body.storage, legacy) };
      },
    }),
    service({
      method: "POST",
      path: [...S, "typecheck_data"],
      description: "Check that some data expression is well formed and of a given type in the current context",
      input: obj(req("data", expression), req("type", expression), opt("gas", gasLimitInput), opt("legacy", bool)),
      output: obj(req("gas", gas)),
      handler: ({ ctx, body }) => {
        const legacy = body.legacy ?? false;
        const sc = helperContext(ctx, body.gas, legacy);
        const t = parseTypeForData(body.type, () => parseParameterTy(body.type, { legacy, gas: sc.gas }));
        parseDataForHelper(sc, t, body.data, legacy);
        return { gas: gasLevel(sc.pc) };
      },
    }),
    service({
      method: "POST",
      path: [...S, "pack_data"],
      description: "Computes the serialized version of some data expression using the same algorithm as script instruction PACK",
      input: obj(req("data", expression), req("type", expression), opt("gas", gasLimitInput)),
      output: obj(req("packed", bytes), req("gas", gas)),
      handler: ({ ctx, body }) => {
        const r = packed(ctx, body.data, body.type, body.gas);
        return { packed: r.packed, gas: r.gas };
      },
    }),
    service({
      method: "POST",
      path: [...S, "hash_data"],
      description: "Computes the hash of some data expression using the same algorithm as script instruction H (early layout)",
      input: obj(req("data", expression), req("type", expression), opt("gas", gasLimitInput)),
      output: obj(req("hash", scriptExprHash), req("gas", gas)),
      handler: ({ ctx, body }) => {
        const r = packed(ctx, body.data, body.type, body.gas);
        return { hash: scriptExprHashOf(r.packed), gas: r.gas };
      },
    }),
    service({
      method: "POST",
      path: [...S, "normalize_data"],
      description: "Normalizes some data expression using the requested unparsing mode",
      input: obj(req("data", expression), req("type", expression), req("unparsing_mode", unparsingMode), opt("legacy", bool)),
      output: obj(req("normalized", expression)),
      handler: ({ ctx, body }) => {
        const legacy = body.legacy ?? false;
        const sc = helperContext(ctx, undefined, legacy);
        const t = parseTy(body.type, { legacy, gas: sc.gas });
        const v = parseData(sc, t, body.data, { legacy, allowForgedTickets: true, allowForgedLazyStorageId: true });
        return { normalized: unparseData(t, v, body.unparsing_mode, { gas: sc.gas, ctx: sc }) };
      },
    }),
    service({
      method: "POST",
      path: [...S, "normalize_script"],
      description: "Normalizes a Michelson script using the requested unparsing mode",
      input: obj(req("script", expression), req("unparsing_mode", unparsingMode)),
      output: obj(req("normalized", expression)),
      handler: ({ ctx, body }) => ({ normalized: normalizeCode(helperContext(ctx, undefined, true), body.script, body.unparsing_mode) }),
    }),
    service({
      method: "POST",
      path: [...S, "normalize_type"],
      description: "Normalizes some Michelson type by expanding `pair a b c` as `pair a (pair b c)",
      input: obj(req("type", expression)),
      output: obj(req("normalized", expression)),
      handler: ({ body }) => ({ normalized: unparseTypeUnfolded(parseTy(body.type, { legacy: true })) }),
    }),
    service({
      method: "POST",
      path: [...S, "entrypoint"],
      description: "Return the type of the given entrypoint",
      input: obj(req("script", expression), dft("entrypoint", string, "default")),
      output: obj(req("entrypoint_type", expression)),
      handler: ({ ctx, body }) => {
        const sc = helperContext(ctx, undefined, false);
        const paramTy = scriptParameterType(sc, body.script, false);
        return { entrypoint_type: unparseTy(findEntrypoint(paramTy, body.entrypoint).ty) };
      },
    }),
    service({
      method: "POST",
      path: [...S, "entrypoints"],
      description: "Return the list of entrypoints of the given script",
      input: obj(req("script", expression)),
      output: entrypointsListing,
      handler: ({ ctx, body }) => entrypointsOf(scriptParameterType(helperContext(ctx, undefined, false), body.script, false)),
    }),
  );
}

/** `pack_data`: the packable type (legacy), the data (legacy, forged values allowed), its packed bytes and the gas left. */
function packed(ctx: BlockCtx, data: Micheline, type: Micheline, gasLimit: bigint | undefined): { packed: Uint8Array; gas: Gas } {
  const sc = helperContext(ctx, gasLimit, true);
  const t = parsePackableTy(type, { legacy: true, gas: sc.gas });
  const v = parseData(sc, t, data, { legacy: true, allowForgedTickets: true, allowForgedLazyStorageId: true });
  const b = packData(t, v, { gas: sc.gas });
  return { packed: b, gas: gasLevel(sc.pc) };
}
