/**
 * Small helpers on runtime values shared by the type checker and the interpreter.
 * @module
 */
import type { Address, OrValue, Some, Value } from "../value.ts";

/** `Some v`. */
export function some(v: Value): Some {
  return { some: v };
}
/** `Left v`. */
export function left(v: Value): OrValue {
  return { or: "Left", value: v };
}
/** `Right v`. */
export function right(v: Value): OrValue {
  return { or: "Right", value: v };
}
/** `Pair a b`. */
export function pair(a: Value, b: Value): readonly [Value, Value] {
  return [a, b];
}
/** An address on its default entrypoint. */
export function addr(address: string, entrypoint = ""): Address {
  return { address, entrypoint: entrypoint === "default" ? "" : entrypoint };
}
/** `""` and `"default"` both name the default entrypoint. */
export function isDefaultEntrypoint(e: string): boolean {
  return e === "" || e === "default";
}
