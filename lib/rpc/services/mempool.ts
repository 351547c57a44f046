/**
 * The mempool services under `/chains/<chain_id>/mempool` (Octez `block_services.ml`, module
 * `Mempool`, served by the prevalidator): `pending_operations` (versions 0 and 1),
 * `monitor_operations` (a stream of arrays; it ends at each new head, as Octez's), the filter
 * (`GET` with `include_default`, `POST`), `ban_operation`, `unban_operation`,
 * `unban_all_operations`, and `request_operations` (the node has no peers: it answers `{}` and
 * does nothing). `GET /chains/<chain_id>/mempool`, the specification's path, answers as
 * `pending_operations`.
 * @module
 */
import type { Json, JsonSchema } from "../../encoding/codec.ts";
import { constant, def } from "../../encoding/conv.ts";
import { type Codec, makeCodec, type SchemaContext } from "../../encoding/core.ts";
import { blockHash, operationHash } from "../../encoding/hashes.ts";
import { dynamicSize } from "../../encoding/dynamic.ts";
import { list } from "../../encoding/list.ts";
import { mergeObjs, obj, req } from "../../encoding/object.ts";
import { tup } from "../../encoding/tuple.ts";
import { B58 } from "../../encoding/base58.ts";
import { failure } from "../../errors/core.ts";
import type { TraceItem } from "../../errors/registry.ts";
import { badVersion } from "../../shell/mempool-errors.ts";
import type { MempoolOperation } from "../../shell/mempool-classification.ts";
import type { MempoolEvent, MempoolView, Prevalidator } from "../../shell/prevalidator.ts";
import { base58Arg, boolArg, chainArg, intArg } from "../arg.ts";
import { Directory } from "../directory.ts";
import { anyJson } from "../json_any.ts";
import { optional, query, single } from "../query.ts";
import { service, streamService } from "../service.ts";
import { chainOf, type ShellView } from "./context.ts";

/** The protocol whose operations the services show (its hash and the codec of its protocol data). */
export interface MempoolProtocolRpc {
  readonly hash: string;
  /** JSON of an operation's protocol data (`contents`, `signature`). */
  readonly dataCodec: Codec<any>;
}

/** Octez's `peer_id` argument. */
export const peerIdArg = base58Arg(B58.cryptoboxPublicKeyHash, "peer_id", "A cryptographic node identity (Base58Check-encoded)");

const SUPPORTED_VERSIONS = [0, 1];

const JSON_ONLY_UNION_BINARY_SCHEMA = {
  toplevel: { fields: [{ layout: { name: "X_0", kind: "Ref" }, kind: "anon", data_kind: { kind: "Dynamic" } }] },
  fields: [{ description: { title: "X_0" }, encoding: { tag_size: "Uint8", kind: { kind: "Dynamic" }, cases: [] } }],
};

/**
 * A JSON-only codec whose values are already JSON, described by `schema`. These answers have no
 * binary form (Octez's are `Json_only` too); its layout is declared empty so that it may follow
 * variable-size fields in the schemas it is part of. Asked for in binary
 * (`Accept: application/octet-stream`), the answer is a 500 `failure` saying so.
 */
function jsonShaped(schema: (ctx: SchemaContext) => JsonSchema): Codec<Json> {
  return makeCodec<Json>({
    size: { kind: "fixed", size: 0 },
    desc: { t: "leaf", layout: { kind: "String" } },
    toJson: (v) => v,
    fromJson: (j) => j,
    write() {
      throw failure.error({ msg: "The mempool's answers have no binary form: ask for application/json" });
    },
    read() {
      throw new TypeError("The mempool's answers have no binary form");
    },
    schema,
  });
}

/** Octez `unit`: JSON `{}`, no bytes, an empty schema. */
const unitCodec: Codec<undefined> = makeCodec<undefined>({
  size: { kind: "fixed", size: 0 },
  desc: { t: "zero" },
  toJson: () => ({}),
  fromJson: () => undefined,
  write() {},
  read: () => undefined,
  schema: () => ({}),
});

/** Octez `Data_encoding.empty`: JSON `{}` and nothing else. */
const emptyCodec: Codec<undefined> = makeCodec<undefined>({
  size: { kind: "fixed", size: 0 },
  desc: { t: "zero" },
  toJson: () => ({}),
  fromJson(j) {
    if (j === null || typeof j !== "object" || Array.isArray(j) || Object.keys(j).length > 0) throw new TypeError("expected {}");
    return undefined;
  },
  write() {},
  read: () => undefined,
  schema: () => ({ type: "object", additionalProperties: false }),
});

const errorTrace = def("error", jsonShaped(() => ({})), {
  description: "The full list of errors is available with the global RPC `GET errors`",
});
const errorOpt = def("error_opt", jsonShaped(() => ({})), {
  description: "An optional error-trace (None indicates no error). The full list of errors is available with the global RPC `GET errors`",
});

/** The codecs of one protocol's mempool answers (used for their JSON schemas). */
function mempoolCodecs(p: MempoolProtocolRpc) {
  const described = (codec: Codec<any>) => def("operation.shell_header", codec, { description: "An operation's shell header." });
  const shellHeader = obj(req("branch", blockHash));
  const withHash = (codec: Codec<any>) => mergeObjs(described(obj(req("hash", operationHash))), codec);
  const nextOperation = def(
    "next_operation",
    mergeObjs(described(obj(req("protocol", constant(p.hash)))), mergeObjs(shellHeader, p.dataCodec)),
    { description: "An operation's shell header." },
  );
  const withError = (codec: Codec<any>, error: Codec<any>) => mergeObjs(codec, obj(req("error", error)));
  const applied = list(dynamicSize(withHash(mergeObjs(shellHeader, p.dataCodec))));
  const v0Errors = list(dynamicSize(tup(operationHash, withError(nextOperation, errorTrace))));
  const v1Errors = list(dynamicSize(withHash(withError(nextOperation, errorTrace))));
  const v0 = obj(
    req("applied", applied),
    req("refused", v0Errors),
    req("outdated", v0Errors),
    req("branch_refused", v0Errors),
    req("branch_delayed", v0Errors),
    req("unprocessed", list(dynamicSize(tup(operationHash, nextOperation)))),
  );
  const v1 = obj(
    req("applied", applied),
    req("refused", v1Errors),
    req("outdated", v1Errors),
    req("branch_refused", v1Errors),
    req("branch_delayed", v1Errors),
    req("unprocessed", list(dynamicSize(withHash(nextOperation)))),
  );
  const pendingJson = jsonShaped((ctx) => ({
    oneOf: [
      { title: "new_encoding_pending_operations", ...v1.schema(ctx) },
      { title: "old_encoding_pending_operations", ...v0.schema(ctx) },
    ],
  }));
  // A union of JSON-only cases: data-encoding describes its binary form as a union with no case.
  const pending: Codec<Json> = { ...pendingJson, binarySchema: () => JSON_ONLY_UNION_BINARY_SCHEMA };
  const processed = withHash(mergeObjs(nextOperation, obj(req("error", errorOpt))));
  const monitor = jsonShaped((ctx) => {
    const s = list(dynamicSize(processed)).schema(ctx);
    // `error` is a defaulted field: not required
    const items = s["items"] as { required?: string[] };
    if (Array.isArray(items.required)) items.required = items.required.filter((k) => k !== "error");
    return s;
  });
  return { pending, monitor };
}

function opJson(p: MempoolProtocolRpc, op: MempoolOperation): { [k: string]: Json } {
  return p.dataCodec.toJson(op.data) as { [k: string]: Json };
}

function nextOperationJson(p: MempoolProtocolRpc, protocol: string, op: MempoolOperation): { [k: string]: Json } {
  return { protocol, branch: op.shell.branch, ...opJson(p, op) };
}

const traceJson = (trace: readonly TraceItem[]): Json => trace.map((i) => i.toJson());

/** `pending_operations` in version 0 (Octez's default) or 1. */
export function pendingOperationsJson(p: MempoolProtocolRpc, view: MempoolView, version: number): Json {
  const applied = view.applied.map(({ op }) => ({ hash: op.hash, branch: op.shell.branch, ...opJson(p, op) }));
  const errors = (entries: MempoolView["refused"]): Json =>
    entries.map(({ op, trace }) => {
      const value = { ...nextOperationJson(p, view.protocol, op), error: traceJson(trace) };
      return version === 0 ? [op.hash, value] : { hash: op.hash, ...value };
    });
  const unprocessed = view.unprocessed.map((op) =>
    version === 0 ? [op.hash, nextOperationJson(p, view.protocol, op)] : { hash: op.hash, ...nextOperationJson(p, view.protocol, op) },
  );
  return {
    applied,
    refused: errors(view.refused),
    outdated: errors(view.outdated),
    branch_refused: errors(view.branch_refused),
    branch_delayed: errors(view.branch_delayed),
    unprocessed,
  };
}

/** One `monitor_operations` element. */
export function processedOperationJson(p: MempoolProtocolRpc, protocol: string, e: MempoolEvent): Json {
  const out: { [k: string]: Json } = { hash: e.op.hash, ...nextOperationJson(p, protocol, e.op) };
  if (e.classification !== "applied") out["error"] = traceJson(e.trace ?? []);
  return out;
}

const pendingQuery = query({ version: single(intArg, 0) });

/**
 * `RPC_error.bad_version` for a version the mempool does not serve; its `given` is an int8, so a
 * version past -128..127 (which that error cannot carry) is a `failure` saying the same.
 */
function unsupportedVersion(given: number): Error {
  if (given >= -128 && given <= 127) return badVersion.error({ given, supported: SUPPORTED_VERSIONS });
  return failure.error({ msg: `Unsupported RPC version ${given}; supported versions: ${SUPPORTED_VERSIONS.join(", ")}` });
}

/** The mempool services of the node's chain, served by `prevalidator`. */
export function mempoolServices(shell: ShellView, prevalidator: Prevalidator, protocol: MempoolProtocolRpc): Directory<void> {
  const codecs = mempoolCodecs(protocol);
  const pendingHandler = async ({ query: q }: { query: { version: number } }) => {
    if (!SUPPORTED_VERSIONS.includes(q.version)) throw unsupportedVersion(q.version);
    await prevalidator.synced();
    return pendingOperationsJson(protocol, prevalidator.view(), q.version);
  };
  const mempool = new Directory().register(
    service({
      method: "GET",
      path: [],
      description: "List the prevalidated operations (as `pending_operations`).",
      query: pendingQuery,
      output: codecs.pending,
      handler: pendingHandler,
    }),
    service({
      method: "GET",
      path: ["pending_operations"],
      description: "List the prevalidated operations.",
      query: pendingQuery,
      output: codecs.pending,
      handler: pendingHandler,
    }),
    streamService({
      method: "GET",
      path: ["monitor_operations"],
      description: "Monitor the mempool operations.",
      query: query({
        applied: single(boolArg, true, "Include applied operations (set by default)"),
        refused: single(boolArg, false, "Include refused operations"),
        outdated: single(boolArg, false, "Include outdated operations"),
        branch_refused: single(boolArg, false, "Include branch refused operations"),
        branch_delayed: single(boolArg, true, "Include branch delayed operations (set by default)"),
      }),
      output: codecs.monitor,
      handler: async ({ query: q, signal }) => {
        const events = await prevalidator.monitor(q, signal);
        const proto = prevalidator.head?.info.next_protocol ?? protocol.hash;
        return mapAsync(events, (batch) => batch.map((e) => processedOperationJson(protocol, proto, e)) as Json);
      },
    }),
    service({
      method: "GET",
      path: ["filter"],
      description:
        'Get the configuration of the mempool filter. The minimal_fees are in mutez. Each field minimal_nanotez_per_xxx is a rational number given as a numerator and a denominator, e.g. "minimal_nanotez_per_gas_unit": [ "100", "1" ].',
      query: query({ include_default: single(boolArg, true, "Show fields equal to their default value (set by default)") }),
      output: anyJson(),
      handler: ({ query: q }) => {
        return prevalidator.filterJson(q.include_default) as Json;
      },
    }),
    service({
      method: "POST",
      path: ["filter"],
      description:
        "Set the configuration of the mempool filter. **If any of the fields is absent from the input JSON, then it is set to the default value for this field (i.e. its value in the default configuration), even if it previously had a different value.** If the input JSON does not describe a valid configuration, then the configuration is left unchanged. Also return the new configuration (which may differ from the input if it had omitted fields or was invalid). You may call [./tezos-client rpc get '/chains/main/mempool/filter?include_default=true'] to see an example of JSON describing a valid configuration.",
      input: anyJson(),
      output: anyJson(),
      handler: ({ body }) => {
        return prevalidator.setFilter(body) as Json;
      },
    }),
    service({
      method: "POST",
      path: ["ban_operation"],
      description:
        "Remove an operation from the mempool if present, reverting its effect if it was applied. Add it to the set of banned operations to prevent it from being fetched/processed/injected in the future. Note: If the baker has already received the operation, then it's necessary to restart it to flush the operation from it.",
      input: operationHash,
      output: unitCodec,
      handler: async ({ body }) => {
        await prevalidator.ban(body);
        return undefined;
      },
    }),
    service({
      method: "POST",
      path: ["unban_operation"],
      description: "Remove an operation from the set of banned operations (nothing happens if it was not banned).",
      input: operationHash,
      output: unitCodec,
      handler: ({ body }) => {
        prevalidator.unban(body);
        return undefined;
      },
    }),
    service({
      method: "POST",
      path: ["unban_all_operations"],
      description: "Clear the set of banned operations.",
      input: emptyCodec,
      output: unitCodec,
      handler: () => {
        prevalidator.unbanAll();
        return undefined;
      },
    }),
    service({
      method: "POST",
      path: ["request_operations"],
      description: "Request the operations of our peers or a specific peer if specified via a query parameter.",
      query: query({ peer_id: optional(peerIdArg) }),
      input: emptyCodec,
      output: emptyCodec,
      // The node runs no P2P layer: there is no peer to ask, so nothing is requested.
      handler: () => {
        return undefined;
      },
    }),
  );
  // As in Octez, the mempool is a dynamic directory of the chain (the prevalidator's own).
  return new Directory().dynamic(["chains", chainArg, "mempool"], ([c]) => {
    chainOf(shell, c);
    return mempool;
  });
}

/** `source` with each value mapped; `return()` is passed on. */
function mapAsync<A, B>(source: AsyncIterableIterator<A>, f: (a: A) => B): AsyncIterableIterator<B> {
  const it: AsyncIterableIterator<B> = {
    async next() {
      const r = await source.next();
      return r.done === true ? { value: undefined, done: true } : { value: f(r.value), done: false };
    },
    async return() {
      await source.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}
