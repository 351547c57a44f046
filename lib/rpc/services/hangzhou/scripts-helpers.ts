/**
 * What Hangzhou's script helpers share (Octez `plugin.ml`, `Scripts`): a script context over a
 * scratch copy of the block's protocol context with the RPC's gas (a limit in gas units, or
 * unlimited when none is given), the gas level they answer, the type checks of
 * `typecheck_data`/`pack_data`/`normalize_*` with Octez's error wrapping, and the code
 * normalisation of `normalize_script` (Octez `unparse_code`: global constants expanded, the data of
 * every `PUSH` re-read and printed in the requested mode).
 * @module
 */
import type { Gas } from "../../../encoding/hangzhou/basic.ts";
import type { Micheline, MichelinePrim } from "../../../encoding/micheline.ts";
import { TezosError } from "../../../errors/mod.ts";
import { illFormedType, illTypedData } from "../../../michelson/data/errors.ts";
import { parseData } from "../../../michelson/data/parse-data.ts";
import { parsePackableTy, parseParameterTy, unparseTy, withField } from "../../../michelson/data/parse-type.ts";
import { unparseData } from "../../../michelson/data/unparse-data.ts";
import type { Ty } from "../../../michelson/ty.ts";
import type { Value } from "../../../michelson/value.ts";
import { makeScriptContext, scriptLevel, scriptNow, type HangzhouScriptContext } from "../../../protocols/hangzhou/michelson/script-context.ts";
import type { ProtoContext } from "../../../protocols/hangzhou/storage/proto-context.ts";
import type { BlockCtx } from "../block-context.ts";
import { budgetedContext } from "./context.ts";
import type { EntrypointsListing, UnparsingMode } from "./scripts-codecs.ts";
import { canonicalLocations } from "../../../michelson/location.ts";
import { listEntrypointsDetailed } from "../../../michelson/script/entrypoints.ts";
import { parseToplevel } from "../../../michelson/script/script.ts";

/** The address run_code gives its dummy contract (origination nonce of the zero operation hash, index 0). */
export const DUMMY_CONTRACT = "KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi";

/**
 * A script context for a helper that does not run code: a copy of `{B}`'s protocol context with
 * `gas` gas units, or unlimited gas when `gas` is undefined (Octez `Gas.set_limit` /
 * `Gas.set_unlimited`).
 */
export function helperContext(ctx: BlockCtx, gas: bigint | undefined, legacy = false): HangzhouScriptContext {
  const pc = budgetedContext(ctx);
  if (gas === undefined) pc.setGasUnlimited();
  else pc.setGasLimit(gas);
  return helperContextOn(pc, ctx.chain.chainId, legacy);
}

/** A script context over `pc` as it is (its gas as set), for a helper that does not run code. */
export function helperContextOn(pc: ProtoContext, chainId: string, legacy = false): HangzhouScriptContext {
  return makeScriptContext(pc, {
    self: DUMMY_CONTRACT,
    sender: DUMMY_CONTRACT,
    source: DUMMY_CONTRACT,
    amount: 0n,
    now: scriptNow(pc),
    level: scriptLevel(pc),
    chainId,
    legacy,
  });
}

/** The gas level after a helper (`Gas.level`): milligas left, or `"unaccounted"` without a limit. */
export function gasLevel(pc: ProtoContext): Gas {
  return pc.unlimitedOperationGas ? "unaccounted" : pc.remainingOperationGas;
}

/** Runs `f`; a protocol error it raises gets `item` as outer context (Octez `record_trace`/`trace`). */
export function traced<T>(item: () => Parameters<TezosError["withContext"]>[0], f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(item());
    throw e;
  }
}

/** The type of `typecheck_data`: `Ill_formed_type (None, type, 0)` around a type error. */
export function parseTypeForData(type: Micheline, parse: () => Ty): Ty {
  return traced(() => illFormedType.create({ ill_formed_expression: type, location: 0 }), parse);
}

/** Data read against `t`, with `Ill_typed_data (None, data, t)` around an error (forged values allowed, as the helpers do). */
export function parseDataForHelper(sc: HangzhouScriptContext, t: Ty, data: Micheline, legacy: boolean): Value {
  return traced(
    () => illTypedData.create({ expected_type: unparseTy(t), ill_typed_expression: data }),
    () => parseData(sc, t, data, { legacy, allowForgedTickets: true, allowForgedLazyStorageId: true }),
  );
}

/**
 * A type printed without folding right combs (the plugin's `Unparse_types`): `pair a b c` is
 * `pair a (pair b c)`, with `:type` and `%field` annotations.
 */
export function unparseTypeUnfolded(t: Ty): Micheline {
  const annots: string[] = [];
  if (t.tname !== undefined) annots.push(`:${t.tname}`);
  if (t.field !== undefined) annots.push(`%${t.field}`);
  const args: Micheline[] =
    t.prim === "sapling_state" || t.prim === "sapling_transaction" ? [{ int: String(t.memoSize ?? 0) }] : t.args.map(unparseTypeUnfolded);
  const out: { prim: string; args?: Micheline[]; annots?: string[] } = { prim: t.prim };
  if (args.length > 0) out.args = args;
  if (annots.length > 0) out.annots = annots;
  return out;
}

/** Replaces `constant "expr…"` by the registered global constants, recursively (`Global_constants_storage.expand`). */
export function expandGlobalConstants(sc: HangzhouScriptContext, node: Micheline): Micheline {
  if (Array.isArray(node)) return (node as readonly Micheline[]).map((n) => expandGlobalConstants(sc, n));
  const p = node as MichelinePrim;
  if (p.prim === undefined) return node;
  if (p.prim === "constant" && p.args?.length === 1 && (p.annots ?? []).length === 0) {
    const h = (p.args[0] as { string?: string }).string;
    if (h !== undefined) {
      const value = sc.globalConstant(h);
      if (value !== undefined) return expandGlobalConstants(sc, value);
    }
  }
  if (p.args === undefined) return node;
  return { ...p, args: p.args.map((n) => expandGlobalConstants(sc, n)) };
}

/**
 * `unparse_code`: the code with global constants expanded and every `PUSH t d` whose data is
 * re-read (legacy mode) and printed in `mode`; everything else as written.
 */
export function normalizeCode(sc: HangzhouScriptContext, code: Micheline, mode: UnparsingMode): Micheline {
  const walk = (n: Micheline): Micheline => {
    if (Array.isArray(n)) return (n as readonly Micheline[]).map(walk);
    const p = n as MichelinePrim;
    if (p.prim === undefined || p.args === undefined) return n;
    if (p.prim === "PUSH" && p.args.length === 2) {
      const t = parsePackableTy(p.args[0]!, { legacy: true, gas: sc.gas });
      const v = parseData(sc, t, p.args[1]!, { legacy: true });
      return { ...p, args: [p.args[0]!, unparseData(t, v, mode, { gas: sc.gas, ctx: sc })] };
    }
    return { ...p, args: p.args.map(walk) };
  };
  return walk(expandGlobalConstants(sc, code));
}

/** The parameter type of a script and its root name, as `parse_toplevel` and `parse_parameter_ty` read them. */
export function scriptParameterType(sc: HangzhouScriptContext, script: Micheline, legacy: boolean): Ty {
  const locs = canonicalLocations(script);
  const parts = parseToplevel(sc, script, locs, legacy);
  const t = parseParameterTy(parts.param, { legacy, gas: sc.gas, locations: locs });
  return parts.rootName !== undefined && t.field === undefined ? withField(t, parts.rootName) : t;
}

/** The entrypoints of a parameter type as the RPCs list them: names in decreasing order (Octez folds its map into a list). */
export function entrypointsOf(paramTy: Ty): EntrypointsListing {
  const l = listEntrypointsDetailed(paramTy);
  const names = [...l.entrypoints.keys()].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return {
    unreachable: l.unreachable.map((path) => ({ path: [...path] })),
    entrypoints: names.map((n) => [n, l.entrypoints.get(n)!] as [string, Micheline]),
  };
}

