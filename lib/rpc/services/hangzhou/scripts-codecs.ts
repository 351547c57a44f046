/**
 * The encodings of Hangzhou's Michelson RPCs (Octez `plugin.ml`, modules `Scripts`, `Contract`
 * and `Big_map`, and `contract_services.ml`): the unparsing mode, the gas of the inputs (whole gas
 * units), the trace of `trace_code`, the answers of `run_code`/`trace_code` (the lazy storage
 * diff given twice: in its own form and as the legacy `big_map_diff`), and the entrypoint
 * listings.
 * @module
 */
import { string } from "../../../encoding/bytes.ts";
import { DecodeError, type Json } from "../../../encoding/codec.ts";
import { constant, conv, def, splitted, stringEnum } from "../../../encoding/conv.ts";
import type { Codec } from "../../../encoding/core.ts";
import { bigMapDiff, gas, mutez, contractId, type BigMapDiffItem, type Gas } from "../../../encoding/hangzhou/basic.ts";
import { internalOperation, type InternalOperation } from "../../../encoding/hangzhou/operation.ts";
import { lazyStorageDiff, type LazyStorageDiff } from "../../../encoding/hangzhou/receipts/lazy-storage-diff.ts";
import { expression } from "../../../encoding/hangzhou/script.ts";
import { chainId } from "../../../encoding/hashes.ts";
import { int31 } from "../../../encoding/integers.ts";
import { list } from "../../../encoding/list.ts";
import type { Micheline } from "../../../encoding/micheline.ts";
import { HANGZHOU_PRIMITIVES, HANGZHOU_PRIMITIVES_SCHEMA_ORDER } from "../../../encoding/michelson-primitives.ts";
import { dft, mergeObjs, obj, opt, req } from "../../../encoding/object.ts";
import { tup } from "../../../encoding/tuple.ts";
import { tagged, union } from "../../../encoding/union.ts";
import { z } from "../../../encoding/zarith.ts";

/** How values are printed back (Octez `Script_ir_translator.unparsing_mode`). */
export type UnparsingMode = "Readable" | "Optimized" | "Optimized_legacy";

const mode = (tag: number, name: UnparsingMode) =>
  tagged<UnparsingMode, UnparsingMode>(tag, name, constant(name), (v) => (v === name ? v : undefined), (v) => v);

/** `unparsing_mode`: a union of the constants `Readable`, `Optimized`, `Optimized_legacy` (uint8 tags 0–2). */
export const unparsingMode: Codec<UnparsingMode> = union<UnparsingMode>([mode(0, "Readable"), mode(1, "Optimized"), mode(2, "Optimized_legacy")]);

/** The largest gas limit Hangzhou reads: its milligas must stay below OCaml's `max_int` (2^62 - 1). */
const MAX_INTEGRAL_GAS = (2n ** 62n - 2n) / 1000n;

/**
 * A gas limit given to an RPC, in gas units (`Gas.Arith.z_integral_encoding`): a negative limit,
 * or one whose milligas saturates, does not decode (Octez's `integral_exn` fails on it).
 */
export const gasLimitInput: Codec<bigint> = conv(
  (g: bigint) => g,
  (g: bigint) => {
    if (g < 0n || g > MAX_INTEGRAL_GAS) throw new RangeError(`${g} should not be saturated.`);
    return g;
  },
  z,
);

/** One element of the Michelson stack in a trace: the value, and its variable annotation if any. */
export interface TraceStackItem {
  item: Micheline;
  annot?: string;
}

/** One step of a trace: the instruction's location, the gas left (milligas), the stack after it. */
export interface TraceStep {
  location: number;
  gas: Gas;
  stack: TraceStackItem[];
}

/** `011-PtHangz2.scripted.trace`. */
export const scriptTrace: Codec<TraceStep[]> = def(
  "011-PtHangz2.scripted.trace",
  list(obj(req("location", int31), req("gas", gas), req("stack", list(obj(req("item", expression), opt("annot", string)))))),
);

/** The input of `run_code` and `trace_code`. */
export interface RunCodeInput {
  script: Micheline;
  storage: Micheline;
  input: Micheline;
  amount: bigint;
  balance: bigint;
  chain_id: string;
  source?: string;
  payer?: string;
  gas?: bigint;
  entrypoint: string;
  unparsing_mode?: UnparsingMode;
}

/** `run_code`/`trace_code` input: ten fields then the optional unparsing mode (`merge_objs`). */
export const runCodeInput: Codec<RunCodeInput> = mergeObjs(
  obj(
    req("script", expression),
    req("storage", expression),
    req("input", expression),
    req("amount", mutez),
    req("balance", mutez),
    req("chain_id", chainId),
    opt("source", contractId),
    opt("payer", contractId),
    opt("gas", gasLimitInput),
    dft("entrypoint", string, "default"),
  ),
  obj(opt("unparsing_mode", unparsingMode)),
) as Codec<RunCodeInput>;

/** What a run of a script gives back (the trace only for `trace_code`). */
export interface RunCodeOutput {
  storage: Micheline;
  operations: InternalOperation[];
  trace?: TraceStep[];
  /** `undefined` when the run changed no lazy storage. */
  lazyStorageDiff?: LazyStorageDiff;
}

/** The legacy `big_map_diff` of a lazy storage diff (`Contract.Legacy_big_map_diff.of_lazy_storage_diff`). */
export type LegacyOf = (diff: LazyStorageDiff) => BigMapDiffItem[];

interface RunCodeJson {
  storage: Micheline;
  operations: InternalOperation[];
  trace?: TraceStep[];
  big_map_diff?: BigMapDiffItem[];
  lazy_storage_diff?: LazyStorageDiff;
}

function runOutput(traced: boolean, legacyOf: LegacyOf): Codec<RunCodeOutput> {
  const fields = traced
    ? obj(
        req("storage", expression),
        req("operations", list(internalOperation)),
        req("trace", scriptTrace),
        opt("big_map_diff", bigMapDiff),
        opt("lazy_storage_diff", lazyStorageDiff),
      )
    : obj(req("storage", expression), req("operations", list(internalOperation)), opt("big_map_diff", bigMapDiff), opt("lazy_storage_diff", lazyStorageDiff));
  const inner = fields as unknown as Codec<RunCodeJson>;
  const toWire = (v: RunCodeOutput): RunCodeJson => {
    const out: RunCodeJson = { storage: v.storage, operations: v.operations };
    if (traced) out.trace = v.trace ?? [];
    if (v.lazyStorageDiff !== undefined) {
      out.big_map_diff = legacyOf(v.lazyStorageDiff);
      out.lazy_storage_diff = v.lazyStorageDiff;
    }
    return out;
  };
  const fromWire = (j: RunCodeJson): RunCodeOutput => {
    const out: RunCodeOutput = { storage: j.storage, operations: j.operations };
    if (traced) out.trace = j.trace;
    if (j.lazy_storage_diff !== undefined) out.lazyStorageDiff = j.lazy_storage_diff;
    return out;
  };
  return {
    ...inner,
    toJson: (v: RunCodeOutput) => inner.toJson(toWire(v)),
    fromJson: (j: Json) => fromWire(inner.fromJson(j)),
    write: (w, v: RunCodeOutput) => inner.write(w, toWire(v)),
    read: (r) => fromWire(inner.read(r)),
  } as Codec<RunCodeOutput>;
}

/** `run_code` output: storage, operations, then `big_map_diff` and `lazy_storage_diff` when the run changed lazy storage. */
export function runCodeOutput(legacyOf: LegacyOf): Codec<RunCodeOutput> {
  return runOutput(false, legacyOf);
}

/** `trace_code` output: as `run_code`, with the trace after the operations. */
export function traceCodeOutput(legacyOf: LegacyOf): Codec<RunCodeOutput> {
  return runOutput(true, legacyOf);
}

/**
 * data-encoding's `assoc`: a JSON object, in binary a list of (name, value) pairs. Keeps the
 * order of the pairs.
 */
export function assoc<T>(codec: Codec<T>): Codec<[string, T][]> {
  const binary = list(tup(string, codec)) as unknown as Codec<[string, T][]>;
  return splitted<[string, T][]>(
    {
      toJson: (v) => {
        const o: { [k: string]: Json } = {};
        for (const [k, x] of v) o[k] = codec.toJson(x);
        return o;
      },
      fromJson: (j) => {
        if (typeof j !== "object" || j === null || Array.isArray(j)) throw new DecodeError("Expected an object");
        return Object.entries(j).map(([k, x]) => [k, codec.fromJson(x as Json)] as [string, T]);
      },
      schema: (ctx) => ({ type: "object", properties: {}, additionalProperties: codec.schema(ctx) }),
    },
    binary,
  );
}

/** The primitive names of a path to an unreachable entrypoint (`Left`/`Right`). */
const primName: Codec<string> = def(
  "011-PtHangz2.michelson.v1.primitives",
  stringEnum(HANGZHOU_PRIMITIVES as readonly string[], { schemaOrder: HANGZHOU_PRIMITIVES_SCHEMA_ORDER }),
);

/** An entrypoint listing: unreachable paths (`[]` by default) and the entrypoints with their types. */
export interface EntrypointsListing {
  unreachable: { path: string[] }[];
  entrypoints: [string, Micheline][];
}

/** The answer of `entrypoints` (helpers and contracts): `unreachable` (default `[]`, omitted when empty) and `entrypoints`. */
export const entrypointsListing: Codec<EntrypointsListing> = obj(
  dft("unreachable", list(obj(req("path", list(primName)))), []),
  req("entrypoints", assoc(expression)),
) as Codec<EntrypointsListing>;
