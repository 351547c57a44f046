/**
 * A worker record, as Octez's `lib_workers/worker.ml` keeps one and `/workers/*` shows it
 * (`Worker_types`): a status, the requests waiting in the order they were pushed (each with its
 * `pushed` time), the request being treated (`pushed` and `treated` times), and the backlog:
 * recent events by log level, each level a ring of at most `backlogSize` events (Octez v11's
 * `event_log`; v12 dropped it from the RPC, the specification keeps it).
 *
 * Status: `launching` from construction, `running` after {@link Worker.started}, then `closing`
 * and `closed` through {@link Worker.close}, or `crashed` with its errors through
 * {@link Worker.crash} (or an `onError` answering `"crash"`). A closed or crashed worker refuses
 * new requests and fails those still waiting with Octez's `worker.closed`.
 *
 * A component uses it as its request queue: `push(request, work)` runs each `work` after the
 * previous one, one at a time, and settles as `work` does. A component that keeps its own queue
 * uses the two hooks instead: `pushed(request)` when a request joins its queue, then
 * `treat(ticket, work)` when its turn comes. Times come from the injected clock (milliseconds
 * since the epoch); request statuses give `treated` (pushed → treated) and `completed`
 * (treated → done) as durations in milliseconds.
 *
 * @example
 * ```ts
 * const w = new Worker<string, string>({ name: { base: "example" }, now: Date.now, level: () => "notice" });
 * w.started();
 * await w.push("first", async () => 1);
 * w.record("something happened");
 * w.backlog(); // [{ level: "debug", events: [] }, …, { level: "notice", events: ["something happened"] }, …]
 * await w.close();
 * ```
 * @module
 */
import type { Json } from "../encoding/codec.ts";
import { string } from "../encoding/bytes.ts";
import { conv } from "../encoding/conv.ts";
import { obj, req } from "../encoding/object.ts";
import { tup } from "../encoding/tuple.ts";
import { traceOf } from "../errors/core.ts";
import { defineError, type ErrorDefinition } from "../errors/registry.ts";

/** Octez's log levels (`Internal_event.level`), lowest first. */
export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "fatal";

/** Every log level, lowest first: the order of a backlog. */
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "notice", "warning", "error", "fatal"];

/** Octez's default `worker_backlog_size`: events kept per level. */
export const DEFAULT_BACKLOG_SIZE = 300;

/** Octez's default `worker_backlog_level`: events below it are not kept. */
export const DEFAULT_BACKLOG_LEVEL: LogLevel = "info";

/** A worker's status (Octez's `worker_status`), times in milliseconds since the epoch. */
export type WorkerStatus =
  | { readonly phase: "launching"; readonly since: number }
  | { readonly phase: "running"; readonly since: number }
  | { readonly phase: "closing"; readonly birth: number; readonly since: number }
  | { readonly phase: "closed"; readonly birth: number; readonly since: number }
  | { readonly phase: "crashed"; readonly birth: number; readonly since: number; readonly errors: readonly Json[] };

/** How a request went (Octez's `request_status`): when it was pushed, then how long it waited and how long it ran (ms). */
export interface RequestStatus {
  readonly pushed: number;
  readonly treated: number;
  readonly completed: number;
}

/** A request waiting its turn, pushed at `pushed`. */
export interface PendingRequest<R> {
  readonly pushed: number;
  readonly request: R;
}

/** The request being treated: pushed at `pushed`, treated since `treated`. */
export interface CurrentRequest<R> {
  readonly pushed: number;
  readonly treated: number;
  readonly request: R;
}

/** The events kept at one level, oldest first. */
export interface BacklogLevel<E> {
  readonly level: LogLevel;
  readonly events: readonly E[];
}

/** Octez's `worker_information`: the status, the worker's table size and its queue's length. */
export interface WorkerInformation {
  readonly instances: number;
  readonly status: WorkerStatus;
  readonly queue_length: number;
}

/** Names the worker in `worker.closed` errors: Octez's base name (`validator-block`) and instance name. */
export interface WorkerName {
  readonly base: string;
  readonly name?: string;
}

/** Options of a {@link Worker}. */
export interface WorkerOptions<R, E> {
  readonly name: WorkerName;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The level of an event (Octez's `Event.level`); every event is `info` when absent. */
  readonly level?: (event: E) => LogLevel;
  /** Events kept per level (300 by default, Octez's). */
  readonly backlogSize?: number;
  /** Events below this level are not kept (`info` by default, Octez's). */
  readonly backlogLevel?: LogLevel;
  /** Called when a request succeeded (Octez's `on_completion`), with its work's result, to record its events. */
  readonly onCompletion?: (request: R, status: RequestStatus, result: unknown) => void;
  /**
   * Called when a request failed (Octez's `on_error`); the push rejects with the error either way.
   * `"crash"` crashes the worker with it; `"continue"` (also when absent) keeps it running.
   */
  readonly onError?: (request: R, status: RequestStatus, error: unknown) => "continue" | "crash";
}

/** The handlers of a worker's outcomes (see {@link WorkerOptions}). */
export type WorkerHandlers<R> = Pick<WorkerOptions<R, never>, "onCompletion" | "onError">;

/** A request a component pushed on its own queue, for {@link Worker.treat}. */
export interface Ticket<R> {
  readonly pushed: number;
  readonly request: R;
}

/** Octez's `worker.closed`: a request on a worker that was shut down. */
export const workerClosed: ErrorDefinition<{ base: string; name: string }> = defineError({
  id: "worker.closed",
  kind: "permanent",
  title: "Worker closed",
  description: "An operation on a worker could not complete before it was shut down.",
  // Octez's JSON: {"worker": [base, name]}
  fields: conv<{ base: string; name: string }, { worker: [string, string] }>(
    (w) => ({ worker: [w.base, w.name] }),
    (o) => ({ base: o.worker[0], name: o.worker[1] }),
    obj(req("worker", tup(string, string))),
  ),
});

/** The JSON error trace of any thrown value (Octez's `RPC_error` encoding of it). */
export function errorsOf(e: unknown): Json[] {
  return traceOf(e).map((item) => item.toJson());
}

/** A worker record and, optionally, its request queue (see the module documentation). */
export class Worker<R, E = never> {
  readonly name: WorkerName;
  private readonly now: () => number;
  private readonly options: WorkerOptions<R, E>;
  private handlers: WorkerHandlers<R>;
  private readonly size: number;
  private readonly minLevel: number;
  private readonly rings = new Map<LogLevel, E[]>(LOG_LEVELS.map((l) => [l, []]));
  private readonly waiting: Ticket<R>[] = [];
  /** How to fail the pushes still waiting when the worker closes or crashes. */
  private readonly drops = new Map<Ticket<R>, (e: unknown) => void>();
  private current: CurrentRequest<R> | undefined;
  private state: WorkerStatus;
  private tail: Promise<unknown> = Promise.resolve();
  private treating: Promise<unknown> = Promise.resolve();

  constructor(options: WorkerOptions<R, E>) {
    if (options === null || typeof options !== "object" || typeof options.now !== "function") throw new TypeError("Worker: options.now must be a clock");
    if (typeof options.name?.base !== "string") throw new TypeError("Worker: options.name.base must be a string");
    const size = options.backlogSize ?? DEFAULT_BACKLOG_SIZE;
    if (!Number.isInteger(size) || size <= 0) throw new RangeError(`Worker: backlogSize must be a positive integer, got ${size}`);
    const min = LOG_LEVELS.indexOf(options.backlogLevel ?? DEFAULT_BACKLOG_LEVEL);
    if (min < 0) throw new RangeError(`Worker: unknown backlogLevel ${String(options.backlogLevel)}`);
    this.name = options.name;
    this.now = options.now;
    this.options = options;
    this.handlers = { onCompletion: options.onCompletion, onError: options.onError };
    this.size = size;
    this.minLevel = min;
    this.state = { phase: "launching", since: this.now() };
  }

  /** The status now. */
  get status(): WorkerStatus {
    return this.state;
  }

  /**
   * Replaces the outcome handlers: for the component that drives a worker made elsewhere (the
   * chain validator's and the peer validators' records come from `NodeWorkers`).
   */
  setHandlers(handlers: WorkerHandlers<R>): void {
    this.handlers = { onCompletion: handlers.onCompletion, onError: handlers.onError };
  }

  /** Launched: `launching` becomes `running` (Octez, once `on_launch` returned). */
  started(): void {
    if (this.state.phase !== "launching") throw new Error(`Worker ${this.label}: started while ${this.state.phase}`);
    this.state = { phase: "running", since: this.now() };
  }

  /** Whether the worker takes requests (launching or running). */
  get alive(): boolean {
    return this.state.phase === "launching" || this.state.phase === "running";
  }

  // ---- requests ------------------------------------------------------------------------------

  /**
   * Queues `request`: `work` runs after every request pushed before it, and the promise settles
   * as `work` does. Rejects with `worker.closed` when the worker is closed or crashed, at once
   * if it was still waiting then.
   */
  push<T>(request: R, work: () => Promise<T>): Promise<T> {
    let ticket: Ticket<R>;
    try {
      ticket = this.pushed(request);
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise<T>((resolve, reject) => {
      this.drops.set(ticket, reject);
      this.tail = this.tail.then(() => this.treat(ticket, work).then(resolve, reject));
    });
  }

  /**
   * Hook for a component with its own queue: `request` joins the pending requests now. Throws
   * `worker.closed` when the worker no longer takes requests.
   */
  pushed(request: R): Ticket<R> {
    if (!this.alive) throw this.closedError();
    const ticket: Ticket<R> = { pushed: this.now(), request };
    this.waiting.push(ticket);
    return ticket;
  }

  /**
   * Hook for a component with its own queue: the turn of `ticket` came; it becomes the current
   * request while `work` runs, then its completion (or error) is recorded. One request at a time:
   * a second `treat` while one runs throws. Rejects with `worker.closed`, without running `work`,
   * when the worker was closed or crashed while the request waited.
   */
  async treat<T>(ticket: Ticket<R>, work: () => Promise<T>): Promise<T> {
    const i = this.waiting.indexOf(ticket);
    if (i < 0) throw this.closedError(); // dropped by close or crash
    if (this.current !== undefined) throw new Error(`Worker ${this.label}: a request is already being treated`);
    this.waiting.splice(i, 1);
    this.drops.delete(ticket);
    const treated = this.now();
    this.current = { pushed: ticket.pushed, treated, request: ticket.request };
    let result: T;
    try {
      const running = work();
      this.treating = running.catch(() => {});
      result = await running;
    } catch (e) {
      const status = this.finish(ticket.pushed, treated);
      if (this.handlers.onError?.(ticket.request, status, e) === "crash") this.crash(e);
      throw e;
    }
    const status = this.finish(ticket.pushed, treated);
    this.handlers.onCompletion?.(ticket.request, status, result);
    return result;
  }

  private finish(pushed: number, treated: number): RequestStatus {
    this.current = undefined;
    return { pushed, treated: treated - pushed, completed: this.now() - treated };
  }

  /** The requests waiting, oldest first. */
  pendingRequests(): PendingRequest<R>[] {
    return this.waiting.map((t) => ({ pushed: t.pushed, request: t.request }));
  }

  /** The request being treated, if any. */
  currentRequest(): CurrentRequest<R> | undefined {
    return this.current;
  }

  /** Octez's `information`, given the number of workers of this kind. */
  information(instances: number): WorkerInformation {
    return { instances, status: this.state, queue_length: this.waiting.length };
  }

  // ---- events --------------------------------------------------------------------------------

  /** Records an event in the backlog at its level, unless the level is below the backlog's. */
  record(event: E): void {
    const level = this.options.level?.(event) ?? "info";
    if (LOG_LEVELS.indexOf(level) < this.minLevel) return;
    const ring = this.rings.get(level)!;
    ring.push(event);
    if (ring.length > this.size) ring.splice(0, ring.length - this.size);
  }

  /** The backlog: every level, lowest first, each with its events oldest first. */
  backlog(): BacklogLevel<E>[] {
    return LOG_LEVELS.map((level) => ({ level, events: [...this.rings.get(level)!] }));
  }

  // ---- shutdown ------------------------------------------------------------------------------

  /**
   * Shuts the worker down (Octez's `shutdown`): `closing`, the waiting requests fail with
   * `worker.closed`, the current one finishes, then `closed`. Nothing for a worker already
   * closed or crashed.
   */
  async close(): Promise<void> {
    const s = this.state;
    if (s.phase === "closing" || s.phase === "closed" || s.phase === "crashed") {
      await this.treating;
      return;
    }
    const birth = s.since;
    this.state = { phase: "closing", birth, since: this.now() };
    this.dropWaiting();
    await this.treating;
    if (this.state.phase === "closing") this.state = { phase: "closed", birth, since: this.now() };
  }

  /**
   * Crashes the worker with `error` (Octez's worker loop on an error its `on_error` did not
   * absorb): `crashed` with the error's trace, and the waiting requests fail with
   * `worker.closed`. Nothing for a worker already closed or crashed.
   */
  crash(error: unknown): void {
    const s = this.state;
    if (s.phase === "closed" || s.phase === "crashed") return;
    const birth = s.phase === "closing" ? s.birth : s.since;
    this.state = { phase: "crashed", birth, since: this.now(), errors: errorsOf(error) };
    this.dropWaiting();
  }

  /** The waiting requests fail with `worker.closed`: pushes at once, a component's `treat` when it comes. */
  private dropWaiting(): void {
    const error = this.closedError();
    for (const ticket of this.waiting) this.drops.get(ticket)?.(error);
    this.waiting.length = 0;
    this.drops.clear();
  }

  private closedError() {
    return workerClosed.error({ base: this.name.base, name: this.name.name ?? "" });
  }

  private get label(): string {
    return this.name.name === undefined || this.name.name === "" ? this.name.base : `${this.name.base}[${this.name.name}]`;
  }
}
