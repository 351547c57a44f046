/**
 * The protocol's deterministic random sequence (Octez `Seed_repr`): a cycle seed is mixed with
 * a use ("level baking:", "roll_snapshot", …) into a state, a state is split into numbered
 * sequences, and a sequence yields 32-byte blocks and bounded int32 draws. Every step is one
 * BLAKE2b-256, so rights computed here are the ones Octez computes.
 *
 * @example
 * ```ts
 * const t = initialize(seed, utf8("level endorsement:"), int32Bytes(0));
 * const draw = takeInt32(sequence(t, 0), 2500); // { value: 1425, next } on the sandbox
 * ```
 * @module
 */
import { blake2b256 } from "../../crypto/blake2b.ts";

/** Size in bytes of seeds, states and sequences. */
export const SEED_SIZE = 32;

const ZERO_32 = new Uint8Array(SEED_SIZE);
const INT32_MAX = 0x7fffffff;
const INT32_MIN = -0x80000000;

function check32(what: string, b: Uint8Array): Uint8Array {
  if (!(b instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
  if (b.length !== SEED_SIZE) throw new RangeError(`${what} must be ${SEED_SIZE} bytes, got ${b.length}`);
  return b;
}

function checkInt32(what: string, n: number): number {
  if (typeof n !== "number" || !Number.isInteger(n)) throw new TypeError(`${what} must be an integer, got ${String(n)}`);
  if (n < INT32_MIN || n > INT32_MAX) throw new RangeError(`${what} must fit in an int32, got ${n}`);
  return n;
}

/** The 4 big-endian bytes of an int32 (two's complement), as `TzEndian.set_int32` writes them. */
export function int32Bytes(n: number): Uint8Array {
  checkInt32("int32", n);
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, n);
  return out;
}

/**
 * A random state for one use of a seed (`Seed_repr.initialize_new`):
 * BLAKE2b-256(seed ‖ 32 zero bytes ‖ part1 ‖ part2 …).
 */
export function initialize(seed: Uint8Array, ...parts: Uint8Array[]): Uint8Array {
  check32("seed", seed);
  for (const p of parts) if (!(p instanceof Uint8Array)) throw new TypeError("initialize: parts must be Uint8Arrays");
  return blake2b256(seed, ZERO_32, ...parts);
}

/**
 * Sequence number `n` (int32) of a state (`Seed_repr.sequence`): the state with its first 4
 * bytes replaced by their big-endian int32 XOR `n`, hashed.
 */
export function sequence(state: Uint8Array, n: number): Uint8Array {
  check32("state", state);
  checkInt32("sequence number", n);
  const b = state.slice();
  const view = new DataView(b.buffer);
  view.setInt32(0, view.getInt32(0) ^ n);
  return blake2b256(b);
}

/** One step of a sequence (`Seed_repr.take`): the 32 output bytes, which are also the next sequence. */
export function take(seq: Uint8Array): Uint8Array {
  return blake2b256(check32("sequence", seq));
}

/** An int32 draw and the sequence that follows it. */
export interface Int32Draw {
  /** The drawn value, in [0, bound) except in the |−2^31| corner case (see {@link takeInt32}). */
  readonly value: number;
  /** The sequence to continue from. */
  readonly next: Uint8Array;
}

/**
 * One rejection-sampling step of {@link takeInt32} on a drawn int32 `x`: `undefined` when `x`
 * must be redrawn, else the value. |x| is taken with OCaml's semantics (|−2^31| stays −2^31),
 * values at or above `(2^31−1) − ((2^31−1) mod bound)` are redrawn, and the remainder keeps the
 * sign of the dividend: the −2^31 corner case gives a value ≤ 0, as in Octez.
 */
export function drawFromInt32(x: number, bound: number): number | undefined {
  checkInt32("x", x);
  checkInt32("bound", bound);
  if (bound <= 0) throw new RangeError(`bound must be positive, got ${bound}`);
  const r = x === INT32_MIN ? INT32_MIN : Math.abs(x);
  if (r >= INT32_MAX - (INT32_MAX % bound)) return undefined;
  return (r % bound) | 0;
}

/**
 * A draw in [0, bound) (`Seed_repr.take_int32`): take 32 bytes, read their first 4 as a signed
 * big-endian int32, and apply {@link drawFromInt32}, again until it gives a value (which is
 * negative only in the |−2^31| corner case). RangeError unless 0 < bound ≤ 2^31−1.
 */
export function takeInt32(seq: Uint8Array, bound: number): Int32Draw {
  check32("sequence", seq);
  checkInt32("bound", bound);
  if (bound <= 0) throw new RangeError(`takeInt32: bound must be positive, got ${bound}`);
  let s = seq;
  for (;;) {
    s = blake2b256(s);
    const value = drawFromInt32(((s[0]! << 24) | (s[1]! << 16) | (s[2]! << 8) | s[3]!) | 0, bound);
    if (value !== undefined) return { value, next: s };
  }
}
