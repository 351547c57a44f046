/**
 * What each of the shell's workers shows of its requests and events, as Octez's
 * `src/lib_shell_services/*_worker_state.ml` (v12.4, with v11's backlog events) describe them:
 * the request kinds, the events with the level each is logged at (Octez's `Event.level`), the
 * distributed DB's counts and a peer validator's pipeline. Field names are Octez's JSON names.
 * The JSON forms are in `lib/rpc/services/worker-codecs.ts`.
 * @module
 */
import type { Json } from "../encoding/codec.ts";
import type { RawOperation } from "../encoding/operation.ts";
import type { Mempool } from "../p2p/encoding/mempool.ts";
import type { LogLevel, RequestStatus } from "./worker.ts";

// ---- block validator (block_validator_worker_state.ml) ------------------------------------

/** A block to validate: its hash, its chain and the peer it came from, if any. */
export interface ValidationView {
  readonly kind: "validation";
  readonly block: string;
  readonly chain_id: string;
  readonly peer?: string;
}

/** A block to build (pre-apply) at `level` on `chain_id`. */
export interface PreapplicationView {
  readonly kind: "preapplication";
  readonly chain_id: string;
  readonly level: number;
}

/** A request of the block validator. */
export type BlockValidatorRequest = ValidationView | PreapplicationView;

/** An event of the block validator; `errors` are error traces (JSON). */
export type BlockValidatorEvent =
  | { readonly kind: "validation_success"; readonly request: ValidationView; readonly status: RequestStatus }
  | { readonly kind: "validation_failure"; readonly request: ValidationView; readonly status: RequestStatus; readonly errors: readonly Json[] }
  | { readonly kind: "validation_failure_after_precheck"; readonly request: ValidationView; readonly status: RequestStatus; readonly errors: readonly Json[] }
  | { readonly kind: "precheck_failure"; readonly request: ValidationView; readonly status: RequestStatus; readonly errors: readonly Json[] }
  | { readonly kind: "could_not_find_context" | "previously_validated" | "validating_block" | "prechecking_block" | "prechecked_block"; readonly block: string }
  | { readonly kind: "preapplication_success"; readonly request: PreapplicationView; readonly status: RequestStatus }
  | { readonly kind: "preapplication_failure"; readonly request: PreapplicationView; readonly status: RequestStatus; readonly errors: readonly Json[] };

/** Octez's level of a block validator event. */
export function blockValidatorEventLevel(e: BlockValidatorEvent): LogLevel {
  switch (e.kind) {
    case "validation_failure_after_precheck":
    case "prechecked_block":
      return "info";
    case "could_not_find_context":
    case "previously_validated":
    case "validating_block":
    case "prechecking_block":
      return "debug";
    default:
      return "notice";
  }
}

// ---- chain validator (chain_validator_worker_state.ml) ------------------------------------

/** A request of the chain validator: a validated block (`Hash`), or a peer's message (`Peer_id`). */
export type ChainValidatorRequest = { readonly kind: "hash"; readonly hash: string } | { readonly kind: "peer_id"; readonly peer_id: string };

/** What a validated block did to the head: ignored (not better), a branch switch, an increment. */
export type ChainUpdate = "ignored" | "branch" | "increment";

/** The chain's synchronisation status. */
export type SyncStatus = "synced" | "unsynced" | "stuck";

/** An event of the chain validator; times of the protocol in seconds, fitness as its byte strings. */
export type ChainValidatorEvent =
  | {
      readonly kind: "processed_block";
      readonly request: ChainValidatorRequest;
      readonly status: RequestStatus;
      readonly outcome: ChainUpdate;
      readonly fitness: readonly Uint8Array[];
      readonly level: number;
      readonly timestamp: number;
    }
  | { readonly kind: "could_not_switch_testchain"; readonly errors: readonly Json[] }
  | { readonly kind: "bootstrapped" }
  | { readonly kind: "sync_status"; readonly sync_status: SyncStatus }
  | { readonly kind: "bootstrap_active_peers"; readonly active: number; readonly needed: number }
  | { readonly kind: "bootstrap_active_peers_heads_time"; readonly min_head_time: number; readonly max_head_time: number; readonly most_recent_validation: number }
  | { readonly kind: "notify_branch" | "notify_head" | "connection" | "disconnection"; readonly peer_id: string }
  | { readonly kind: "request_failure"; readonly request: ChainValidatorRequest; readonly status: RequestStatus; readonly errors: readonly Json[] };

/** Octez's level of a chain validator event. */
export function chainValidatorEventLevel(e: ChainValidatorEvent): LogLevel {
  switch (e.kind) {
    case "processed_block":
      return e.outcome === "ignored" ? "info" : "notice";
    case "could_not_switch_testchain":
      return "error";
    case "notify_head":
    case "bootstrap_active_peers":
    case "bootstrap_active_peers_heads_time":
      return "debug";
    case "notify_branch":
    case "connection":
    case "disconnection":
      return "info";
    case "sync_status":
      return e.sync_status === "stuck" ? "error" : e.sync_status === "synced" ? "notice" : "warning";
    default:
      return "notice";
  }
}

/** The distributed DB's counts (Octez's `Distributed_db_state.view`, its JSON names). */
export interface DdbState {
  readonly p2p_readers: number;
  readonly active_chains: number;
  readonly operation_db: TableScheduler;
  readonly operations_db: TableScheduler;
  readonly block_header_db: TableScheduler;
  readonly active_connections: number;
  readonly active_peers: number;
}

/** One requester of the distributed DB: entries in its table, requests in its scheduler. */
export interface TableScheduler {
  readonly table_length: number;
  readonly scheduler_length: number;
}

// ---- peer validator (peer_validator_worker_state.ml) ---------------------------------------

/** A request of a peer validator: a new head, or a new branch with its locator's length. */
export type PeerValidatorRequest = { readonly kind: "new_head"; readonly block: string } | { readonly kind: "new_branch"; readonly block: string; readonly locators: number };

/** The peer-and-block events of a peer validator. */
export type PeerBlockEventKind =
  | "new_branch_validated"
  | "fetching_operations_for_head"
  | "requesting_new_head_validation"
  | "new_head_validation_end"
  | "ignoring_head"
  | "ignoring_previously_validated_block"
  | "ignoring_prechecked_block"
  | "ignoring_invalid_block"
  | "missing_new_head_predecessor"
  | "ignoring_invalid_locator_branch"
  | "ignore_branch_without_common_ancestor"
  | "processing_new_head"
  | "processing_new_branch"
  | "ignoring_prechecked_invalid_block";

/** An event of a peer validator; `timespan` in seconds. */
export type PeerValidatorEvent =
  | { readonly kind: "request"; readonly request: PeerValidatorRequest; readonly status: RequestStatus; readonly errors?: readonly Json[] }
  | { readonly kind: "validating_new_branch"; readonly peer: string; readonly nb_blocks: number }
  | { readonly kind: PeerBlockEventKind; readonly peer: string; readonly block: string }
  | { readonly kind: "no_new_head_from_peer"; readonly peer: string; readonly timespan: number }
  | { readonly kind: "terminating_worker"; readonly peer: string; readonly reason: string };

/** Octez's level of a peer validator event: its requests above debug, everything else debug. */
export function peerValidatorEventLevel(e: PeerValidatorEvent): LogLevel {
  if (e.kind !== "request") return "debug";
  if (e.errors !== undefined) return "notice";
  return e.request.kind === "new_branch" ? "info" : "debug";
}

/** A peer validator's bootstrap pipeline: headers and blocks fetched, not validated yet. */
export interface PeerPipeline {
  readonly fetched_headers: number;
  readonly fetched_blocks: number;
}

// ---- prevalidator (prevalidator_worker_state.ml) -------------------------------------------

/**
 * A request of the prevalidator: move to a new head (`flush`), a peer's mempool (`notify`), an
 * injection, an operation a peer sent (`arrived`), advertising the mempool, the next batch of
 * pending operations (`leftover`), a ban. The prevalidator records no events (Octez's are `unit`).
 */
export type PrevalidatorRequest =
  | { readonly kind: "flush"; readonly block: string; readonly event: ChainUpdate }
  | { readonly kind: "notify"; readonly peer: string; readonly mempool: Mempool }
  | { readonly kind: "inject"; readonly operation: RawOperation }
  | { readonly kind: "arrived"; readonly operation_hash: string; readonly operation: RawOperation }
  | { readonly kind: "advertise" }
  | { readonly kind: "leftover" }
  | { readonly kind: "ban"; readonly operation_hash: string };
