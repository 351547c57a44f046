/**
 * The work budget of one RPC call (this node's own bound: Octez has none and relies on its ACL):
 * time, checked where the work is (Michelson's gas points, loops over user-given bounds), past
 * which the call answers `node.rpc.work_budget_exceeded` instead of holding the node.
 *
 * @example
 * ```ts
 * const budget = new WorkBudget(5000);
 * for (const x of many) await budget.step(); // yields now and then; throws past 5 s
 * ```
 * @module
 */
import { int31 } from "../encoding/integers.ts";
import { obj, req } from "../encoding/object.ts";
import { defineError, type ErrorDefinition } from "./registry.ts";

/** `node.rpc.work_budget_exceeded`: an RPC call took more than its budget. */
export const workBudgetExceeded: ErrorDefinition<{ budget_ms: number }> = defineError({
  id: "node.rpc.work_budget_exceeded",
  kind: "temporary",
  title: "RPC work budget exceeded",
  description: "The RPC call took more work than this node gives one call (its work budget); it was stopped and changed nothing",
  fields: obj(req("budget_ms", int31)),
});

/** `node.rpc.trace_too_long`: a trace (`trace_code`) went past the steps this node keeps. */
export const traceTooLong: ErrorDefinition<{ max_steps: number }> = defineError({
  id: "node.rpc.trace_too_long",
  kind: "temporary",
  title: "Trace too long",
  description: "The traced run went past the number of steps this node keeps in one trace; it was stopped and changed nothing",
  fields: obj(req("max_steps", int31)),
});

/** The most steps one trace keeps (each holds a copy of the stack: memory is the bound). */
export const TRACE_MAX_STEPS = 100_000;

/** The default budget of a call, in milliseconds: far beyond what a normal call takes. */
export const DEFAULT_WORK_BUDGET_MS = 5000;

/** How long a loop runs before it lets other work go on, in milliseconds. */
const SLICE_MS = 10;

/** A call's budget: a deadline, and the slices of a loop that lets the event loop turn. */
export class WorkBudget {
  readonly ms: number;
  readonly deadline: number;
  #sliceEnd: number;
  #count = 0;

  constructor(ms: number = DEFAULT_WORK_BUDGET_MS, now: number = Date.now()) {
    if (!(ms > 0)) throw new RangeError(`work budget must be positive, got ${ms}`);
    this.ms = ms;
    this.deadline = now + ms;
    this.#sliceEnd = now + SLICE_MS;
  }

  /**
   * Called by {@link check} once the current slice is over, while a run that can pause listens
   * (a Michelson run of an RPC: it pauses after its current instruction, then calls {@link pause}).
   */
  onSlice: (() => void) | undefined = undefined;

  /**
   * Throws {@link workBudgetExceeded} once the deadline is past; past the slice, calls
   * {@link onSlice} (both looked at every 256 calls).
   */
  check(): void {
    if ((++this.#count & 0xff) !== 0) return;
    const now = Date.now();
    if (now > this.deadline) throw workBudgetExceeded.error({ budget_ms: this.ms });
    if (now >= this.#sliceEnd) this.onSlice?.();
  }

  /** Lets other work go on (timers, I/O, other calls), then starts a new slice. */
  async pause(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#sliceEnd = Date.now() + SLICE_MS;
  }

  /** One step of a long loop: checks the deadline, and every slice lets other work go on. */
  async step(): Promise<void> {
    if ((++this.#count & 0x3f) !== 0) return;
    const now = Date.now();
    if (now > this.deadline) throw workBudgetExceeded.error({ budget_ms: this.ms });
    if (now >= this.#sliceEnd) await this.pause();
  }
}
