/**
 * Canonical locations of Micheline nodes (Octez `Micheline.strip_locations`): nodes numbered 0, 1,
 * 2… in prefix order (a primitive before its arguments, a sequence before its items; annotations
 * are not nodes). Errors and traces name instructions by this number.
 * @module
 */
import type { Micheline } from "../encoding/micheline.ts";

/** The canonical location of every node object of `root`, counted from `start`. */
export function canonicalLocations(root: Micheline, start = 0): WeakMap<object, number> {
  const locs = new WeakMap<object, number>();
  let next = start;
  const visit = (n: Micheline): void => {
    locs.set(n as object, next++);
    if (Array.isArray(n)) for (const c of n as readonly Micheline[]) visit(c);
    else {
      const args = (n as { args?: readonly Micheline[] }).args;
      if (args !== undefined) for (const c of args) visit(c);
    }
  };
  visit(root);
  return locs;
}
