/**
 * `createNode(options)`: wires the layers into one node and returns its `fetch` handler.
 * @module
 */
import type { KeyValueStore } from "./store/kv.ts";

/** How the sandbox baker produces blocks. */
export type BakeMode = { mode: "auto" } | { mode: "manual" } | { mode: "interval"; seconds: number };

/** History mode, as Octez's `--history-mode`. */
export type HistoryMode = "archive" | "full" | "rolling";

/** Options of `createNode`; every field has a default. */
export interface NodeOptions {
  /** Where blocks and contexts live; an in-memory store when absent. */
  store?: KeyValueStore;
  /** Recorded in the checkpoint; `full` when absent, as Octez. */
  historyMode?: HistoryMode;
  /** Sandbox baker mode; `auto` when absent. */
  bake?: BakeMode;
  /** Activate the protocol at first start (default true); false waits for an injected activation block. */
  activate?: boolean;
  /** CORS: allowed origins (`*` allowed) and extra allowed headers. */
  cors?: { origins: readonly string[]; headers: readonly string[] };
  /** Wall clock in milliseconds since the epoch; `Date.now` when absent. */
  now?: () => number;
}

/** A running node: one fetch handler and a close. */
export interface TezosNode {
  /** Serves one RPC request. */
  fetch(request: Request): Promise<Response>;
  /** Stops background work and closes the store. */
  close(): Promise<void>;
}
