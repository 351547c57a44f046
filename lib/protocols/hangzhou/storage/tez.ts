/**
 * Tez arithmetic with Octez's checks (`Tez_repr`): amounts are mutez bigints in [0, 2^63 − 1];
 * an overflow or underflow is the protocol's `tez.*` error.
 * @module
 */
import { tezAdditionOverflow, tezMultiplicationOverflow, tezSubtractionUnderflow } from "./errors.ts";

/** The largest amount, 2^63 − 1 mutez. */
export const MAX_TEZ = (1n << 63n) - 1n;

function check(what: string, v: bigint): bigint {
  if (typeof v !== "bigint") throw new TypeError(`${what} must be a bigint (mutez), got ${typeof v}`);
  if (v < 0n || v > MAX_TEZ) throw new RangeError(`${what} out of the tez range: ${v}`);
  return v;
}

/** a + b (`Tez_repr.( +? )`); `tez.addition_overflow` beyond 2^63 − 1. */
export function tezAdd(a: bigint, b: bigint): bigint {
  const s = check("a", a) + check("b", b);
  if (s > MAX_TEZ) throw tezAdditionOverflow.error({ amounts: [a, b] });
  return s;
}

/** a − b (`Tez_repr.( -? )`); `tez.subtraction_underflow` below 0. */
export function tezSub(a: bigint, b: bigint): bigint {
  if (check("a", a) < check("b", b)) throw tezSubtractionUnderflow.error({ amounts: [a, b] });
  return a - b;
}

/** a × n (`Tez_repr.( *? )`), n ≥ 0; `tez.multiplication_overflow` beyond 2^63 − 1. */
export function tezMul(a: bigint, n: bigint): bigint {
  check("a", a);
  if (typeof n !== "bigint" || n < 0n) throw new RangeError(`multiplicator must be a non-negative bigint, got ${String(n)}`);
  const p = a * n;
  if (p > MAX_TEZ) throw tezMultiplicationOverflow.error({ amount: a, multiplicator: n });
  return p;
}
