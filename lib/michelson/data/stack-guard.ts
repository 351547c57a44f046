/**
 * The engine's own stack as a recursion limit. Octez stops type checking at 10 000 nested calls
 * (`typechecking_too_many_recursive_calls`) and unparsing likewise (`unparsing_stack_overflow`);
 * a JavaScript engine's call stack may end before that on deeply nested expressions. The entry
 * points of the parsers and printers run their body under {@link guardStack}, so such an input
 * is refused with the matching Octez error, never with the engine's `RangeError`.
 * @module
 */
import type { TezosError } from "../../errors/mod.ts";

/**
 * Whether `e` is the engine's call stack overflow: V8 and JavaScriptCore throw a `RangeError`
 * ("Maximum call stack size exceeded"), SpiderMonkey an `InternalError` ("too much recursion").
 */
export function isStackOverflow(e: unknown): boolean {
  if (e instanceof RangeError) return /call stack|stack size/i.test(e.message);
  return e instanceof Error && e.name === "InternalError" && /recursion/i.test(e.message);
}

/**
 * Runs `body`; if the engine's call stack overflows inside it, throws `refusal()` instead (an
 * Octez error such as `typechecking_too_many_recursive_calls`). Any other error goes through.
 * @example guardStack(() => parse(node), () => typecheckingTooManyRecursiveCalls.error(undefined))
 */
export function guardStack<T>(body: () => T, refusal: () => TezosError): T {
  try {
    return body();
  } catch (e) {
    if (isStackOverflow(e)) throw refusal();
    throw e;
  }
}
