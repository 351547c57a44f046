/**
 * Protocol 011 Hangzhou's mempool plugin (Octez `proto_011_PtHangz2/lib_plugin/plugin.ml`,
 * module `Mempool`): the filter configuration (minimal fees in mutez, minimal nanotez per gas
 * unit and per byte as rationals, whether failed scripts are accepted), the pre-filter (fees of
 * manager operations, age of endorsements, refusal of `failing_noop` and bare endorsements) and
 * the post-filter (failed, skipped or backtracked manager operations when scripts may not fail).
 * Parsing accepts what clients inject (`decodeInjectedOperation`: also Taquito 24+'s extra byte
 * after a reveal).
 *
 * It lives beside the prevalidator because it is what the shell plugs in; it reads Hangzhou's
 * encodings and registers Hangzhou's plugin errors (`proto.011-PtHangz2.prefilter.*`).
 *
 * @example
 * ```ts
 * hangzhouMempoolPlugin.configToJson(hangzhouMempoolPlugin.defaultConfig, true);
 * // {"minimal_fees":"100","minimal_nanotez_per_gas_unit":["100","1"],"minimal_nanotez_per_byte":["1000","1"],"allow_script_failure":true}
 * ```
 * @module
 */
import { decodeBinary, type Json } from "../../encoding/codec.ts";
import { unit } from "../../encoding/conv.ts";
import { type OperationContents, operationProtocolData } from "../../encoding/hangzhou/operation.ts";
import { parseOperation } from "./apply/parse.ts";
import { type ContentsResult, operationMetadata } from "../../encoding/hangzhou/receipts/contents-results.ts";
import type { TraceItem } from "../../errors/registry.ts";
import { HANGZHOU } from "./protocol.ts";
import { protoError } from "./proto-error.ts";
import { JsonTraceItem } from "../../shell/mempool-errors.ts";
import type { FilterContext, MempoolPlugin, PostFilterResult, PreFilterResult } from "../../shell/mempool-plugin.ts";

/** A rational number as Octez's plugin keeps it (numerator and denominator, not reduced). */
export type Rational = readonly [bigint, bigint];

/** Hangzhou's filter configuration (Octez `Plugin.Mempool.config`). */
export interface HangzhouFilterConfig {
  /** Mutez. */
  readonly minimal_fees: bigint;
  readonly minimal_nanotez_per_gas_unit: Rational;
  readonly minimal_nanotez_per_byte: Rational;
  readonly allow_script_failure: boolean;
}

/** Hangzhou's protocol data of an operation. */
export interface HangzhouOperationData {
  readonly contents: readonly OperationContents[];
  readonly signature?: string;
}

/** The default configuration: 100 mutez, 100 nanotez per gas unit, 1000 nanotez per byte, scripts may fail. */
export const DEFAULT_FILTER_CONFIG: HangzhouFilterConfig = Object.freeze({
  minimal_fees: 100n,
  minimal_nanotez_per_gas_unit: Object.freeze([100n, 1n]) as Rational,
  minimal_nanotez_per_byte: Object.freeze([1000n, 1n]) as Rational,
  allow_script_failure: true,
});

/** `prefilter.fees_too_low`. */
export const feesTooLow = protoError({
  id: "prefilter.fees_too_low",
  kind: "permanent",
  title: "Operation fees are too low",
  description: "Operation fees are too low",
  fields: unit,
});

/** `prefilter.outdated_endorsement`. */
export const outdatedEndorsement = protoError({
  id: "prefilter.outdated_endorsement",
  kind: "temporary",
  title: "Endorsement is outdated",
  description: "Endorsement is outdated",
  fields: unit,
});

/** `prefilter.wrong_operation`. */
export const wrongOperation = protoError({
  id: "prefilter.wrong_operation",
  kind: "temporary",
  title: "Wrong operation",
  description: "Failing_noop and old endorsement format are not accepted.",
  fields: unit,
});

/** `postfilter.skipped_operation`. */
export const skippedOperation = protoError({
  id: "postfilter.skipped_operation",
  kind: "temporary",
  title: "The operation has been skipped by the protocol",
  description: "The operation has been skipped by the protocol",
  fields: unit,
});

/** `postfilter.backtracked_operation`. */
export const backtrackedOperation = protoError({
  id: "postfilter.backtracked_operation",
  kind: "temporary",
  title: "The operation has been backtracked by the protocol",
  description: "The operation has been backtracked by the protocol",
  fields: unit,
});

const FIELDS = ["minimal_fees", "minimal_nanotez_per_gas_unit", "minimal_nanotez_per_byte", "allow_script_failure"] as const;
const INT = /^-?[0-9]+$/;

function readZ(j: Json, what: string): bigint {
  if (typeof j !== "string" || !INT.test(j)) throw new TypeError(`${what}: expected a decimal integer string`);
  return BigInt(j);
}

function readRational(j: Json | undefined, what: string, dflt: Rational): Rational {
  if (j === undefined) return dflt;
  if (!Array.isArray(j) || j.length !== 2) throw new TypeError(`${what}: expected [numerator, denominator]`);
  const r: Rational = [readZ(j[0]!, what), readZ(j[1]!, what)];
  if (r[1] <= 0n) throw new RangeError(`${what}: the denominator must be positive`);
  return r;
}

/** Reads a filter configuration as Octez's `config_encoding` does (absent fields: default; unknown fields: error). */
export function filterConfigFromJson(json: Json): HangzhouFilterConfig {
  if (json === null || typeof json !== "object" || Array.isArray(json)) throw new TypeError("filter configuration: expected an object");
  for (const k of Object.keys(json)) if (!(FIELDS as readonly string[]).includes(k)) throw new TypeError(`filter configuration: unexpected field ${k}`);
  let minimal_fees = DEFAULT_FILTER_CONFIG.minimal_fees;
  if (json["minimal_fees"] !== undefined) {
    minimal_fees = readZ(json["minimal_fees"], "minimal_fees");
    if (minimal_fees < 0n || minimal_fees > 0x7fffffffffffffffn) throw new RangeError("minimal_fees: out of the mutez range");
  }
  const asf = json["allow_script_failure"];
  if (asf !== undefined && typeof asf !== "boolean") throw new TypeError("allow_script_failure: expected a boolean");
  return {
    minimal_fees,
    minimal_nanotez_per_gas_unit: readRational(json["minimal_nanotez_per_gas_unit"], "minimal_nanotez_per_gas_unit", DEFAULT_FILTER_CONFIG.minimal_nanotez_per_gas_unit),
    minimal_nanotez_per_byte: readRational(json["minimal_nanotez_per_byte"], "minimal_nanotez_per_byte", DEFAULT_FILTER_CONFIG.minimal_nanotez_per_byte),
    allow_script_failure: asf ?? DEFAULT_FILTER_CONFIG.allow_script_failure,
  };
}

const sameRational = (a: Rational, b: Rational) => a[0] === b[0] && a[1] === b[1];

/** JSON of a filter configuration; without `includeDefault`, fields equal to their default are left out. */
export function filterConfigToJson(c: HangzhouFilterConfig, includeDefault: boolean): Json {
  const d = DEFAULT_FILTER_CONFIG;
  const out: { [k: string]: Json } = {};
  if (includeDefault || c.minimal_fees !== d.minimal_fees) out["minimal_fees"] = String(c.minimal_fees);
  if (includeDefault || !sameRational(c.minimal_nanotez_per_gas_unit, d.minimal_nanotez_per_gas_unit)) {
    out["minimal_nanotez_per_gas_unit"] = c.minimal_nanotez_per_gas_unit.map(String);
  }
  if (includeDefault || !sameRational(c.minimal_nanotez_per_byte, d.minimal_nanotez_per_byte)) {
    out["minimal_nanotez_per_byte"] = c.minimal_nanotez_per_byte.map(String);
  }
  if (includeDefault || c.allow_script_failure !== d.allow_script_failure) out["allow_script_failure"] = c.allow_script_failure;
  return out;
}

/**
 * Octez `pre_filter_manager`: the fees of a batch must cover `minimal_fees` plus the gas price
 * times its total gas limit plus the byte price times its size, all in nanotez.
 */
export function enoughFees(config: HangzhouFilterConfig, contents: readonly OperationContents[], size: number): boolean {
  let fee = 0n;
  let gas = 0n;
  for (const c of contents) {
    if ("fee" in c) {
      fee += c.fee;
      gas += c.gas_limit;
    }
  }
  const [gn, gd] = config.minimal_nanotez_per_gas_unit;
  const [bn, bd] = config.minimal_nanotez_per_byte;
  // fee·1000 ≥ minimal_fees·1000 + gn/gd·gas + bn/bd·size, multiplied by gd·bd > 0
  return fee * 1000n * gd * bd >= config.minimal_fees * 1000n * gd * bd + gn * gas * bd + bn * BigInt(size) * gd;
}

/** Octez `pre_filter`. */
export function preFilter(
  config: HangzhouFilterConfig,
  op: { readonly data: HangzhouOperationData; readonly branch: string; readonly size: number },
  ctx: FilterContext,
): PreFilterResult {
  const contents = op.data.contents;
  const first = contents[0];
  if (first === undefined) return { passed: false, class: "refused", trace: [wrongOperation.create(undefined)] };
  if ("fee" in first) {
    return enoughFees(config, contents, op.size)
      ? { passed: true, priority: "low" }
      : { passed: false, class: "refused", trace: [feesTooLow.create(undefined)] };
  }
  if (contents.length > 1) return { passed: true, priority: "low" }; // the protocol refuses it
  switch (first.kind) {
    case "endorsement":
    case "failing_noop":
      return { passed: false, class: "refused", trace: [wrongOperation.create(undefined)] };
    case "endorsement_with_slot": {
      const e = first.endorsement;
      if (e.branch === ctx.predecessor) return { passed: true, priority: "high" };
      const delta = ctx.level - e.operations.level;
      return delta > 2
        ? { passed: false, class: "outdated", trace: [outdatedEndorsement.create(undefined)] }
        : { passed: false, class: "branch_delayed", trace: [outdatedEndorsement.create(undefined)] };
    }
    default:
      return { passed: true, priority: "low" };
  }
}

function resultsOf(receipt: Uint8Array): ContentsResult[] {
  return decodeBinary(operationMetadata, receipt) ?? [];
}

/** Octez `post_filter`: with `allow_script_failure` false, a manager operation that did not apply is refused. */
export function postFilter(config: HangzhouFilterConfig, receipt: Uint8Array): PostFilterResult {
  if (config.allow_script_failure) return { passed: true };
  for (const r of resultsOf(receipt)) {
    if (!("operation_result" in r)) continue;
    const res = r.operation_result;
    if (res.status === "applied") continue;
    let trace: TraceItem[];
    if (res.status === "skipped") trace = [skippedOperation.create(undefined)];
    else if (res.status === "failed") trace = jsonTrace(res.errors);
    else trace = res.errors === undefined ? [backtrackedOperation.create(undefined)] : jsonTrace(res.errors);
    return { passed: false, trace };
  }
  return { passed: true };
}

function jsonTrace(errors: readonly unknown[]): TraceItem[] {
  return errors.map((e) => new JsonTraceItem(e as { [k: string]: Json }));
}

/** Hangzhou's mempool plugin. */
export const hangzhouMempoolPlugin: MempoolPlugin<HangzhouOperationData, HangzhouFilterConfig> = {
  protocol: HANGZHOU,
  dataCodec: operationProtocolData as MempoolPlugin<HangzhouOperationData>["dataCodec"],
  parse(bytes, op) {
    const { contents, signature, extraRevealBytes } = parseOperation(op);
    const data: HangzhouOperationData = signature === undefined ? { contents } : { contents, signature };
    return { data, size: bytes.length - extraRevealBytes };
  },
  defaultConfig: DEFAULT_FILTER_CONFIG,
  configToJson: filterConfigToJson,
  configFromJson: filterConfigFromJson,
  preFilter,
  postFilter: (config, _data, receipt) => postFilter(config, receipt),
  endorser(data, receipt) {
    if (data.contents[0]?.kind !== "endorsement_with_slot") return undefined;
    const r = resultsOf(receipt)[0];
    return r !== undefined && r.kind === "endorsement_with_slot" ? r.delegate : undefined;
  },
};
