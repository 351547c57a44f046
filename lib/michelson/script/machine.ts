/**
 * The compiled form of Michelson code and the abstract machine that runs it (Octez
 * `Script_typed_ir.kinstr` / `continuation` and the `step`/`next` loop of `Script_interpreter`).
 *
 * The type checker turns each instruction into an {@link Instr}: a closure over its resolved
 * operands, its location and the stack type after it. A sequence is a flat `Instr[]`; the body of
 * a branch, loop, DIP or lambda ends with a HALT instruction. The machine keeps the value stack in
 * an array (top last) and the continuations in an explicit stack (Octez's `KCons`, `KUndip`,
 * `KLoop_in`, `KIter`, `KReturn`...), so no JS recursion happens however long or nested the code
 * and however many loop iterations: each step consumes the same gas as Octez's, at the same
 * points, so traces show the same remaining gas.
 * @module
 */
import type { Ty } from "../ty.ts";
import type { Value } from "../value.ts";
import type { GasMeter, ScriptContext } from "../context.ts";
import type { Stack } from "./types.ts";

/** One stack item as a tracer sees it. */
export interface TraceItem {
  readonly value: Value;
  readonly ty: Ty;
  readonly annot?: string;
}

/**
 * A tracer: called with the initial stack and after each instruction (Octez's trace logger), with
 * the instruction's location, the milligas left and the stack (top first).
 */
export type Tracer = (loc: number, gasRemainingMilligas: number, stack: readonly TraceItem[]) => void;

/** A compiled instruction. */
export interface Instr {
  /** Location of the instruction in its script. */
  readonly loc: number;
  /** Stack type after the instruction (for traces). */
  readonly aft: Stack;
  /** Whether the machine logs the instruction's exit itself (control instructions log their own). */
  readonly logExit: boolean;
  /**
   * Set on the HALT ending a body: `"static"` when its stack type (`aft`) is the one Octez's
   * `IHalt` carries (loops, iterations, DIP, lambdas), `"branch"` when it ends a branch of a
   * conditional, whose `IHalt` carries the stack type of the conditional's continuation.
   */
  readonly halt?: "static" | "branch";
  /** Runs the instruction on the machine (gas included). */
  readonly run: (m: Machine) => void;
}

/** Values the execution step sees (`step_constants`). */
export interface StepConstants {
  readonly self: string;
  readonly source: string;
  readonly sender: string;
  readonly amount: bigint;
  readonly chainId: string;
}

/** Continuation kinds. */
export const K = {
  CONS: 0,
  UNDIP: 1,
  UNDIPN: 2,
  LOOP_IN: 3,
  LOOP_IN_LEFT: 4,
  ITER: 5,
  LIST_MAP: 6,
  MAP_MAP: 7,
  RETURN: 8,
  VIEW_EXIT: 9,
  VIEW_SOME: 10,
} as const;

/** A continuation (what to do once the current body reaches its HALT). */
export type Cont =
  | { readonly k: 0; readonly code: readonly Instr[]; readonly pc: number; readonly log?: { loc: number; aft: Stack } }
  | { readonly k: 1; readonly value: Value }
  | { readonly k: 2; readonly values: Value[]; readonly loc: number; readonly aft: Stack; readonly n: number }
  | { readonly k: 3 | 4; readonly body: readonly Instr[]; readonly loc: number; readonly bodyBef: Stack }
  | { readonly k: 5; readonly body: readonly Instr[]; readonly items: readonly Value[]; i: number; readonly loc: number; readonly bodyBef: Stack }
  | { readonly k: 6; readonly body: readonly Instr[]; readonly items: readonly Value[]; i: number; readonly ys: Value[]; inBody: boolean; readonly loc: number; readonly bodyBef: Stack }
  | { readonly k: 7; readonly body: readonly Instr[]; readonly items: readonly (readonly [Value, Value])[]; i: number; ys: import("../value.ts").MMap; inBody: boolean; readonly keyTy: Ty; readonly loc: number; readonly bodyBef: Stack }
  | { readonly k: 8; readonly saved: Value[] }
  | { readonly k: 9; readonly sc: StepConstants; readonly traced: boolean }
  | { readonly k: 10; readonly loc: number; readonly aft: Stack; readonly traced: boolean; readonly code: readonly Instr[]; readonly pc: number };

/** The machine state. */
export interface Machine {
  stack: Value[];
  code: readonly Instr[];
  pc: number;
  readonly ks: Cont[];
  readonly gas: GasMeter;
  readonly ctx: ScriptContext;
  sc: StepConstants;
  /** A tracer is installed and the current code is instrumented. */
  traced: boolean;
  readonly tracer: Tracer | undefined;
  done: boolean;
  /** Pops continuations until one gives code to run (or the run ends). */
  next(): void;
  /** Reports the current stack to the tracer (when instrumented). */
  log(loc: number, aft: Stack): void;
  /**
   * Reports the current stack with the annotations Octez's trace shows before running
   * `code[pc]`: its stack type (`fallback`), or, when it is a HALT, the stack type the HALT carries.
   */
  logBefore(loc: number, code: readonly Instr[], pc: number, fallback: Stack): void;
}
