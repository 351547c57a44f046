/**
 * How Hangzhou charges gas differently when a run is traced (trace_code RPC, `--trace-stack`),
 * checked against the recorded traces of tests_011. Octez's logging wrapper
 * (`Script_interpreter.log` / `klog`) dispatches some instructions and continuations itself,
 * outside the `step`/`next` functions that charge `cost_of_instr`/`cost_of_control`; those are
 * then free. Untraced runs (run_code, operations) charge everything.
 *
 * Traced run, per trace line: the line after an instruction shows the remaining gas after
 * that instruction's cost; the end of a block (the `IHalt` of a DIP, IF-like, ITER, MAP, LOOP or lambda
 * body) is logged with the enclosing instruction's location and costs `halt` (15) plus, for a
 * DIP body, `control.undip` (15), for a lambda body, `control.return` (15); DIP n's end logs
 * one line per restored element (each `const_`, 10; the first line also carries the `halt`).
 * @module
 */

/**
 * Instructions not charged when traced (Octez IR names `IList_map`, `IList_iter`, `ISet_iter`,
 * `IMap_map`, `IMap_iter`, `ILoop`, `ILoop_left`, `IMul_teznat`, `IMul_nattez`, `ILsl_nat`,
 * `ILsr_nat`, `IExec`; `IFailwith` is free anyway). As Michelson: ITER and MAP (all kinds),
 * LOOP, LOOP_LEFT, LSL, LSR, EXEC, FAILWITH, and MUL only on mutez × nat / nat × mutez.
 */
export const TRACED_FREE_INSTRUCTIONS: ReadonlySet<string> = new Set([
  "ITER", "MAP", "LOOP", "LOOP_LEFT", "LSL", "LSR", "EXEC", "FAILWITH",
]);

/** MUL is free when traced only on mutez operands (`IMul_teznat`, `IMul_nattez`). */
export function tracedFreeMul(leftTy: string, rightTy: string): boolean {
  return (leftTy === "mutez" && rightTy === "nat") || (leftTy === "nat" && rightTy === "mutez");
}

/**
 * Continuations not charged when traced: `KCons` (going on after a body), `KLoop_in`,
 * `KLoop_in_left`, `KIter`, `KList_enter_body`, `KList_exit_body`, `KMap_enter_body`,
 * `KMap_exit_body`, `KView_exit`. Still charged: `KReturn` (lambda end), `KUndip` (DIP end),
 * `KNil` (end of the run, after the last trace line). Keys are `control` member names.
 */
export const TRACED_FREE_CONTROLS: ReadonlySet<string> = new Set([
  "cons", "loopIn", "loopInLeft", "iter", "listEnterBody", "listExitBody", "mapEnterBody", "mapExitBody", "viewExit",
]);
