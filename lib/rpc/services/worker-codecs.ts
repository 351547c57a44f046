/**
 * The JSON (and binary) forms of the `/workers/*` answers, as Octez writes them
 * (`src/lib_base/worker_types.ml`, `src/lib_shell_services/*_worker_state.ml`, v12.4, with v11's
 * `backlog` that `rpc-openapi.json` and the specification still list), over the records of
 * `lib/shell/worker.ts` and `lib/shell/worker-states.ts`:
 *
 * - times (`timestamp.system`) as the `/network/*` records print them; durations
 *   (`timespan.system`) as seconds, a float (Octez's `Ptime.Span.to_float_s`);
 * - a status is one of five cases told apart by `phase`;
 * - each request kind and each event is a case of its union, as `rpc-openapi.json`'s `oneOf`.
 *
 * The prevalidator's `inject` request is printed as `rpc-openapi.json` has it, without Octez
 * v12.4's `force` field (see `docs/protocol-differences.md`).
 * @module
 */
import { string } from "../../encoding/bytes.ts";
import type { Json } from "../../encoding/codec.ts";
import { constant, conv, def, stringEnum, unit } from "../../encoding/conv.ts";
import type { Codec } from "../../encoding/core.ts";
import { dynamicSize } from "../../encoding/dynamic.ts";
import { fitness } from "../../encoding/fitness.ts";
import { blockHash, chainId, operationHash } from "../../encoding/hashes.ts";
import { float, int16, int31, int32 } from "../../encoding/integers.ts";
import { list } from "../../encoding/list.ts";
import { obj, opt, req } from "../../encoding/object.ts";
import { rawOperation } from "../../encoding/operation.ts";
import { timestamp } from "../../encoding/time.ts";
import { type Case, tagged, union } from "../../encoding/union.ts";
import { bsonJson } from "../../encoding/bson.ts";
import { mempool } from "../../p2p/encoding/mempool.ts";
import type { BacklogLevel, CurrentRequest, LogLevel, PendingRequest, RequestStatus, WorkerInformation, WorkerStatus } from "../../shell/worker.ts";
import { LOG_LEVELS } from "../../shell/worker.ts";
import type {
  BlockValidatorEvent,
  BlockValidatorRequest,
  ChainUpdate,
  ChainValidatorEvent,
  ChainValidatorRequest,
  DdbState,
  PeerBlockEventKind,
  PeerPipeline,
  PeerValidatorEvent,
  PeerValidatorRequest,
  PreapplicationView,
  PrevalidatorRequest,
  SyncStatus,
  TableScheduler,
  ValidationView,
} from "../../shell/worker-states.ts";
import { peerId, systemTime } from "./network-codecs.ts";

// ---- common --------------------------------------------------------------------------------

/** `timespan.system`: milliseconds here, seconds (a float) in JSON and binary. */
export const systemSpan: Codec<number> = def(
  "timespan.system",
  conv<number, number>((ms) => ms / 1000, (s) => s * 1000, float),
  { description: "A span of time, as seen by the local computer." },
);

/** An error trace (`RPC_error.encoding`), any JSON. */
const errors: Codec<Json> = def("error", bsonJson(), {
  description: "The full list of error is available with the global RPC `GET errors`",
});
const errorList = conv<readonly Json[], Json>((e) => [...e], (j) => (Array.isArray(j) ? j : [j]), errors);

type Phase = WorkerStatus["phase"];

function statusCase<P extends Phase>(tag: number, title: string, phase: P, codec: Codec<any>): Case<WorkerStatus> {
  return tagged<WorkerStatus, any>(tag, title, codec, (s) => (s.phase === phase ? s : undefined), (v) => v as WorkerStatus);
}

/** Octez's `worker_status`. */
export const workerStatus: Codec<WorkerStatus> = union<WorkerStatus>([
  statusCase(0, "Launching", "launching", obj(req("phase", constant("launching")), req("since", systemTime))),
  statusCase(1, "Running", "running", obj(req("phase", constant("running")), req("since", systemTime))),
  statusCase(2, "Closing", "closing", obj(req("phase", constant("closing")), req("birth", systemTime), req("since", systemTime))),
  statusCase(3, "Closed", "closed", obj(req("phase", constant("closed")), req("birth", systemTime), req("since", systemTime))),
  statusCase(4, "Crashed", "crashed", obj(req("phase", constant("crashed")), req("birth", systemTime), req("since", systemTime), req("errors", errorList))),
]);

/** Octez's `worker_information`. */
export const workerInformation: Codec<WorkerInformation> = obj(req("instances", int31), req("status", workerStatus), req("queue_length", int31));

/** Octez's `request_status`. */
export const requestStatus: Codec<RequestStatus> = obj(req("pushed", systemTime), req("treated", systemSpan), req("completed", systemSpan));

/** `Internal_event.Level`: Octez's order in binary, its hash-table order in the schema. */
export const logLevel: Codec<LogLevel> = stringEnum(LOG_LEVELS, { schemaOrder: ["info", "debug", "error", "fatal", "warning", "notice"] });

/** A worker's full status (Octez's `full_status`, with v11's `backlog`). */
export interface FullStatus<R, E> {
  readonly status: WorkerStatus;
  readonly pending_requests: readonly PendingRequest<R>[];
  readonly backlog: readonly BacklogLevel<E>[];
  readonly current_request?: CurrentRequest<R>;
}

/** Octez's `full_status_encoding` of a request and an event encoding. */
export function fullStatus<R, E>(request: Codec<R>, event: Codec<E>): Codec<FullStatus<R, E>> {
  return obj(
    req("status", workerStatus),
    req("pending_requests", list(obj(req("pushed", systemTime), req("request", dynamicSize(request))))),
    req("backlog", list(obj(req("level", logLevel), req("events", dynamicSize(list(dynamicSize(event))))))),
    opt("current_request", obj(req("pushed", systemTime), req("treated", systemTime), req("request", request))),
  ) as Codec<FullStatus<R, E>>;
}

/** One case of a union over values with a `kind`, the payload without it. */
function kindCase<T extends { kind: string }, K extends T["kind"]>(
  tag: number,
  title: string,
  kind: K,
  codec: Codec<any>,
): Case<T> {
  return tagged<T, any>(
    tag,
    title,
    codec,
    (v) => {
      if (v.kind !== kind) return undefined;
      const { kind: _, ...rest } = v as Record<string, unknown>;
      return rest;
    },
    (p) => ({ kind, ...(p as object) }) as unknown as T,
  );
}

/** A case whose payload is one field `key` holding the value without its `kind`. */
function wrappedCase<T extends { kind: string }>(tag: number, title: string, kind: T["kind"], key: string, codec: Codec<any>): Case<T> {
  return tagged<T, any>(
    tag,
    title,
    obj(req(key, codec)),
    (v) => {
      if (v.kind !== kind) return undefined;
      const { kind: _, ...rest } = v as Record<string, unknown>;
      return { [key]: rest };
    },
    (p) => ({ kind, ...(p as Record<string, object>)[key] }) as unknown as T,
  );
}

// ---- block validator -----------------------------------------------------------------------

const validationView: Codec<Omit<ValidationView, "kind">> = obj(req("block", blockHash), req("chain_id", chainId), opt("peer", peerId));
const preapplicationView: Codec<Omit<PreapplicationView, "kind">> = obj(req("chain_id", chainId), req("level", int32));

/** Octez's block validator `Request.encoding`. */
export const blockValidatorRequest: Codec<BlockValidatorRequest> = union<BlockValidatorRequest>([
  kindCase(0, "validation", "validation", validationView),
  kindCase(1, "preapplication", "preapplication", preapplicationView),
]);

const asValidation = (v: Omit<ValidationView, "kind">): ValidationView => ({ kind: "validation", ...v });
const asPreapplication = (v: Omit<PreapplicationView, "kind">): PreapplicationView => ({ kind: "preapplication", ...v });
const stripKind = <V extends { kind: string }>({ kind: _, ...rest }: V): Omit<V, "kind"> => rest;

/** A block validator event carrying a request, its status and (for failures) errors, under `key`. */
function requestEvent(tag: number, title: string, kind: BlockValidatorEvent["kind"], key: string, failed: boolean, preapplication = false): Case<BlockValidatorEvent> {
  const view: Codec<any> = preapplication ? preapplicationView : validationView;
  const codec = failed ? obj(req(key, view), req("status", requestStatus), req("errors", errorList)) : obj(req(key, view), req("status", requestStatus));
  return tagged<BlockValidatorEvent, any>(
    tag,
    title,
    codec,
    (e) => {
      if (e.kind !== kind) return undefined;
      const r = e as { request: ValidationView | PreapplicationView; status: RequestStatus; errors?: readonly Json[] };
      return failed ? { [key]: stripKind(r.request), status: r.status, errors: r.errors } : { [key]: stripKind(r.request), status: r.status };
    },
    (p: Record<string, any>) => {
      const request = preapplication ? asPreapplication(p[key]) : asValidation(p[key]);
      return (failed ? { kind, request, status: p["status"], errors: p["errors"] } : { kind, request, status: p["status"] }) as BlockValidatorEvent;
    },
  );
}

const blockOnly = obj(req("block", blockHash));

/** Octez's block validator `Event.encoding`. */
export const blockValidatorEvent: Codec<BlockValidatorEvent> = union<BlockValidatorEvent>([
  requestEvent(0, "validation_success", "validation_success", "successful_validation", false),
  requestEvent(1, "validation_failure", "validation_failure", "failed_validation", true),
  requestEvent(2, "validation_failure_after_precheck", "validation_failure_after_precheck", "failed_validation_after_precheck", true),
  requestEvent(3, "precheck_failure", "precheck_failure", "failed_precheck", true),
  kindCase(4, "could_not_find_context", "could_not_find_context", blockOnly),
  kindCase(5, "previously_validated", "previously_validated", blockOnly),
  kindCase(6, "validating_block", "validating_block", blockOnly),
  requestEvent(7, "preapplication_success", "preapplication_success", "preapplication_success", false, true),
  requestEvent(8, "preapplication_failure", "preapplication_failure", "preapplication_failure", true, true),
  kindCase(9, "prechecking_block", "prechecking_block", blockOnly),
  tagged<BlockValidatorEvent, { kind: string; block: string }>(
    10,
    "prechecked_block",
    obj(req("kind", string), req("block", blockHash)),
    (e) => (e.kind === "prechecked_block" ? { kind: "prechecked", block: e.block } : undefined),
    (p) => ({ kind: "prechecked_block", block: p.block }),
  ),
]);

// ---- chain validator -----------------------------------------------------------------------

/** Octez's chain validator `Request.encoding`. */
export const chainValidatorRequest: Codec<ChainValidatorRequest> = union<ChainValidatorRequest>([
  kindCase(0, "Hash", "hash", obj(req("hash", blockHash))),
  kindCase(1, "Peer_id", "peer_id", obj(req("peer_id", peerId))),
]);

/** Octez's `chain_update`. */
export const chainUpdate: Codec<ChainUpdate> = def("chain_update", stringEnum<ChainUpdate>(["ignored", "branch", "increment"], { schemaOrder: ["branch", "ignored", "increment"] }), {
  description:
    "If 'ignored', the new validated block is ignored since the current head fitness is better. If 'branch', we have set our head to a new validated block which is not the direct successor of the previous head. If 'increment', the new validated head is the direct successor of the previous head.",
});

const syncStatus: Codec<SyncStatus> = def("chain_status", stringEnum<SyncStatus>(["synced", "unsynced", "stuck"], { schemaOrder: ["stuck", "synced", "unsynced"] }), {
  description:
    "If 'unsynced', the node is not currently synchronized with of its peers (it is probably still bootstrapping and its head is lagging behind the chain's).\nIf 'synced', the node considers itself synchronized with its peers and the current head timestamp is recent.\nIf 'stuck', the node considers itself synchronized with its peers but the chain seems to be halted from its viewpoint.",
});

/** Octez's chain validator `Event.encoding`. */
export const chainValidatorEvent: Codec<ChainValidatorEvent> = union<ChainValidatorEvent>([
  wrappedCase(
    0,
    "Processed_block",
    "processed_block",
    "processed_block",
    obj(
      req("request", chainValidatorRequest),
      req("status", requestStatus),
      req("outcome", chainUpdate),
      req("fitness", fitness),
      req("level", int32),
      req("timestamp", timestamp),
    ),
  ),
  tagged<ChainValidatorEvent, Json>(
    1,
    "Could_not_switch_testchain",
    obj(req("could_not_switch_testchain", errors)) as Codec<any>,
    (e) => (e.kind === "could_not_switch_testchain" ? { could_not_switch_testchain: [...e.errors] } : undefined),
    (p) => ({ kind: "could_not_switch_testchain", errors: (p as { could_not_switch_testchain: Json[] }).could_not_switch_testchain }),
  ),
  tagged<ChainValidatorEvent, { bootstrapped: Record<string, never> }>(
    2,
    "Bootstrapped",
    // Octez's `{"bootstrapped": {}}`: the unit as a present value (an absent one is a missing field)
    obj(req("bootstrapped", conv((_: Record<string, never>) => undefined, () => ({}), unit))),
    (e) => (e.kind === "bootstrapped" ? { bootstrapped: {} } : undefined),
    () => ({ kind: "bootstrapped" }),
  ),
  tagged<ChainValidatorEvent, SyncStatus>(3, "Sync_status", syncStatus, (e) => (e.kind === "sync_status" ? e.sync_status : undefined), (s) => ({ kind: "sync_status", sync_status: s })),
  wrappedCase(4, "Bootstrap_active_peers", "bootstrap_active_peers", "bootstrap_active_peers", obj(req("active", int31), req("needed", int31))),
  wrappedCase(
    5,
    "Bootstrap_active_peers_heads_time",
    "bootstrap_active_peers_heads_time",
    "bootstrap_active_peers_head_time",
    obj(req("min_head_time", timestamp), req("max_head_time", timestamp), req("most_recent_validation", timestamp)),
  ),
  wrappedCase(6, "notify_branch", "notify_branch", "notify_branch", obj(req("peer_id", peerId))),
  wrappedCase(7, "notify_head", "notify_head", "notify_head", obj(req("peer_id", peerId))),
  tagged<ChainValidatorEvent, { disconnection: { kind: string; peer_id: string } }>(
    8,
    "disconnection",
    obj(req("disconnection", obj(req("kind", string), req("peer_id", peerId)))),
    (e) => (e.kind === "disconnection" ? { disconnection: { kind: "disconnection", peer_id: e.peer_id } } : undefined),
    (p) => ({ kind: "disconnection", peer_id: p.disconnection.peer_id }),
  ),
  tagged<ChainValidatorEvent, { request_failure: { failed_validation: ChainValidatorRequest; status: RequestStatus; errors: readonly Json[] } }>(
    9,
    "request_failure",
    obj(req("request_failure", obj(req("failed_validation", chainValidatorRequest), req("status", requestStatus), req("errors", errorList)))),
    (e) => {
      if (e.kind !== "request_failure") return undefined;
      return { request_failure: { failed_validation: e.request, status: e.status, errors: e.errors } };
    },
    (p) => ({ kind: "request_failure", request: p.request_failure.failed_validation, status: p.request_failure.status, errors: p.request_failure.errors }),
  ),
  tagged<ChainValidatorEvent, { kind: string; peer_id: string }>(
    10,
    "connection",
    obj(req("kind", string), req("peer_id", peerId)),
    (e) => (e.kind === "connection" ? { kind: "connection", peer_id: e.peer_id } : undefined),
    (p) => ({ kind: "connection", peer_id: p.peer_id }),
  ),
]);

const tableScheduler: Codec<TableScheduler> = obj(req("table_length", int31), req("scheduler_length", int31));

/** Octez's `Distributed_db_state.encoding`. */
export const ddbState: Codec<DdbState> = obj(
  req("p2p_readers", int31),
  req("active_chains", int31),
  req("operation_db", tableScheduler),
  req("operations_db", tableScheduler),
  req("block_header_db", tableScheduler),
  req("active_connections", int31),
  req("active_peers", int31),
);

// ---- peer validator ------------------------------------------------------------------------

/** Octez's peer validator `Request.encoding`. */
export const peerValidatorRequest: Codec<PeerValidatorRequest> = union<PeerValidatorRequest>([
  tagged<PeerValidatorRequest, { request: "new_head"; block: string }>(
    0,
    "New_head",
    obj(req("request", constant("new_head")), req("block", blockHash)),
    (r) => (r.kind === "new_head" ? { request: "new_head", block: r.block } : undefined),
    (p) => ({ kind: "new_head", block: p.block }),
  ),
  tagged<PeerValidatorRequest, { request: "new_branch"; block: string; locators: number }>(
    1,
    "New_branch",
    obj(req("request", constant("new_branch")), req("block", blockHash), req("locators", int31)),
    (r) => (r.kind === "new_branch" ? { request: "new_branch", block: r.block, locators: r.locators } : undefined),
    (p) => ({ kind: "new_branch", block: p.block, locators: p.locators }),
  ),
]);

const PEER_BLOCK_EVENTS: readonly [number, string, PeerBlockEventKind][] = [
  [3, "new_branch_validated", "new_branch_validated"],
  [4, "fetching_operations_for_head", "fetching_operations_for_head"],
  [5, "Requesting_new_head_validation", "requesting_new_head_validation"],
  [6, "new_head_validation_end", "new_head_validation_end"],
  [7, "ignoring_head", "ignoring_head"],
  [8, "ignoring_previously_validated_block", "ignoring_previously_validated_block"],
  [9, "ignoring_prechecked_block", "ignoring_prechecked_block"],
  [10, "ignoring_invalid_block", "ignoring_invalid_block"],
  [11, "missing_new_head_predecessor", "missing_new_head_predecessor"],
  [12, "ignoring_invalid_locator_branch", "ignoring_invalid_locator_branch"],
  [13, "ignore_branch_without_common_ancestor", "ignore_branch_without_common_ancestor"],
  [15, "processing_new_head", "processing_new_head"],
  [16, "processing_new_branch", "processing_new_branch"],
  [18, "ignoring_prechecked_invalid_block", "ignoring_prechecked_invalid_block"],
];

type PeerRequestEvent = Extract<PeerValidatorEvent, { kind: "request" }>;

/** Octez's peer validator `Event.encoding`. */
export const peerValidatorEvent: Codec<PeerValidatorEvent> = union<PeerValidatorEvent>([
  tagged<PeerValidatorEvent, { request: PeerValidatorRequest; status: RequestStatus }>(
    0,
    "Request",
    obj(req("request", peerValidatorRequest), req("status", requestStatus)),
    (e) => (e.kind === "request" && e.errors === undefined ? { request: e.request, status: e.status } : undefined),
    (p) => ({ kind: "request", request: p.request, status: p.status }),
  ),
  tagged<PeerValidatorEvent, { error: readonly Json[]; failed_request: PeerValidatorRequest; status: RequestStatus }>(
    1,
    "Failed request",
    obj(req("error", errorList), req("failed_request", peerValidatorRequest), req("status", requestStatus)),
    (e) => (e.kind === "request" && e.errors !== undefined ? { error: e.errors, failed_request: e.request, status: e.status } : undefined),
    (p): PeerRequestEvent => ({ kind: "request", request: p.failed_request, status: p.status, errors: p.error }),
  ),
  kindCase(2, "validating_new_branch", "validating_new_branch", obj(req("peer", peerId), req("nb_blocks", int31))),
  ...PEER_BLOCK_EVENTS.map(([tag, title, kind]) => kindCase<PeerValidatorEvent, PeerBlockEventKind>(tag, title, kind, obj(req("peer", peerId), req("block", blockHash)))),
  kindCase(14, "no_new_head_from_peer", "no_new_head_from_peer", obj(req("peer", peerId), req("timespan", float))),
  kindCase(17, "terminating_worker", "terminating_worker", obj(req("peer", peerId), req("reason", string))),
]);

/** Octez's `pipeline_length_encoding`. */
export const peerPipeline: Codec<PeerPipeline> = obj(req("fetched_headers", int31), req("fetched_blocks", int31));

// ---- prevalidator --------------------------------------------------------------------------

function prevalidatorCase<K extends PrevalidatorRequest["kind"]>(tag: number, title: string, kind: K, fields: Codec<any>): Case<PrevalidatorRequest> {
  return tagged<PrevalidatorRequest, any>(
    tag,
    title,
    fields,
    (r) => {
      if (r.kind !== kind) return undefined;
      const { kind: _, ...rest } = r as Record<string, unknown>;
      return { request: kind, ...rest };
    },
    (p: Record<string, unknown>) => {
      const { request: _, ...rest } = p;
      return { kind, ...rest } as PrevalidatorRequest;
    },
  );
}

/** Octez's prevalidator `Request.encoding`, as `rpc-openapi.json` has it (`inject` without `force`). */
export const prevalidatorRequest: Codec<PrevalidatorRequest> = union<PrevalidatorRequest>([
  prevalidatorCase(0, "Flush", "flush", obj(req("request", constant("flush")), req("block", blockHash), req("event", chainUpdate))),
  prevalidatorCase(1, "Notify", "notify", obj(req("request", constant("notify")), req("peer", peerId), req("mempool", mempool))),
  prevalidatorCase(2, "Inject", "inject", obj(req("request", constant("inject")), req("operation", rawOperation))),
  prevalidatorCase(3, "Arrived", "arrived", obj(req("request", constant("arrived")), req("operation_hash", operationHash), req("operation", rawOperation))),
  prevalidatorCase(4, "Advertise", "advertise", obj(req("request", constant("advertise")))),
  prevalidatorCase(5, "Leftover", "leftover", obj(req("request", constant("leftover")))),
  prevalidatorCase(6, "Ban", "ban", obj(req("request", constant("ban")), req("operation_hash", operationHash))),
]);

/** The prevalidator's events: Octez's are `unit`, and it records none. */
export const prevalidatorEvent: Codec<never> = unit as unknown as Codec<never>;

/** The list entries of `/workers/prevalidators` and `/workers/chain_validators`. */
export const chainWorkerEntry = obj(req("chain_id", chainId), req("status", workerStatus), req("information", workerInformation), req("pipelines", int16));

/** The list entries of `/workers/chain_validators/<chain_id>/peers_validators`. */
export const peerWorkerEntry = obj(req("peer_id", peerId), req("status", workerStatus), req("information", workerInformation), req("pipelines", peerPipeline));
