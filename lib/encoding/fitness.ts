/**
 * Block fitness: a list of byte strings, compared by length then lexicographically. Binary: a
 * 4-byte total length, then each element with its own 4-byte length; JSON: hex strings.
 * @module
 */
import type { Codec } from "./core.ts";
import { bytes } from "./bytes.ts";
import { binaryName, def } from "./conv.ts";
import { list } from "./list.ts";

/** Fitness codec (`fitness`). */
export const fitness: Codec<Uint8Array[]> = def("fitness", list(binaryName("fitness.elem", bytes)), {
  title: "Block fitness",
  description:
    "The fitness, or score, of a block, that allow the Tezos to decide which chain is the best. A fitness value is a list of byte sequences. They are compared as follows: shortest lists are smaller; lists of the same length are compared according to the lexicographical order.",
});

/** Compares two fitnesses as Octez does: shorter lists are smaller, then element by element (shorter bytes smaller, then lexicographic). */
export function compareFitness(a: readonly Uint8Array[], b: readonly Uint8Array[]): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!, y = b[i]!;
    if (x.length !== y.length) return x.length < y.length ? -1 : 1;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return x[j]! < y[j]! ? -1 : 1;
  }
  return 0;
}
