/**
 * Saturating arithmetic of gas costs (Octez `Saturation_repr` and the `Gas_limit_repr` cost
 * builders), on milligas held in JS numbers.
 *
 * Octez saturates at `max_int` (2^62 - 1); here costs saturate at `Number.MAX_SAFE_INTEGER`
 * (2^53 - 1). Both are far above any operation gas limit (1 040 000 000 milligas), so a saturated
 * cost exhausts the gas in both cases: the difference cannot be observed.
 * @module
 */

/** Largest cost (saturation point). */
export const SATURATED = Number.MAX_SAFE_INTEGER;

/** `S.safe_int`: clamps to `[0, SATURATED]` (negative or not-a-number values saturate, as Octez does). */
export function safeInt(x: number): number {
  if (!(x >= 0)) return SATURATED;
  return x >= SATURATED ? SATURATED : Math.floor(x);
}

/** `S.add`: saturating sum. */
export function sAdd(...xs: number[]): number {
  let r = 0;
  for (const x of xs) {
    r += x;
    if (r >= SATURATED) return SATURATED;
  }
  return r;
}

/** `S.mul`: saturating product. */
export function sMul(x: number, y: number): number {
  const r = x * y;
  return r >= SATURATED ? SATURATED : r;
}

/** `S.shift_right` (`lsr`): `x` divided by `2^n`, rounded down. */
export function lsr(x: number, n: number): number {
  return Math.floor(x / 2 ** n);
}

/** `S.numbits`: number of significant bits of a non-negative integer (0 for 0). */
export function numbits(x: number): number {
  let n = 0;
  while (x >= 4294967296) {
    x = Math.floor(x / 4294967296);
    n += 32;
  }
  return x === 0 ? n : n + 32 - Math.clz32(x);
}

/** `log2` of the cost models: `1 + numbits x` (so `log2 0 = 1`). */
export function log2(x: number): number {
  return 1 + numbits(x);
}

/** Milligas per gas unit (`Gas_limit_repr.scaling_factor`). */
export const SCALING_FACTOR = 1000;

/** `Gas.free`: no cost. */
export const free = 0;

/** `Gas_limit_repr.step_cost n`: `n` gas units. */
export function stepCost(n: number): number {
  return sMul(SCALING_FACTOR, n);
}

/** `Gas_limit_repr.alloc_cost n`: 2 gas units per allocated word, for `n + 1` words. */
export function allocCost(n: number): number {
  return sMul(2 * SCALING_FACTOR, sAdd(n, 1));
}

/** `Gas_limit_repr.alloc_bytes_cost n`: allocation of `n` bytes (rounded up to 8-byte words). */
export function allocBytesCost(n: number): number {
  return allocCost(Math.floor((n + 7) / 8));
}

/** `Gas_limit_repr.alloc_mbytes_cost n`: allocation of an `n`-byte buffer (12-word header + words). */
export function allocMbytesCost(n: number): number {
  return sAdd(allocCost(12), allocBytesCost(n));
}

/** `Gas_limit_repr.read_bytes_cost n`: 100 gas units + 10 per byte read. */
export function readBytesCost(n: number): number {
  return sAdd(100 * SCALING_FACTOR, sMul(10 * SCALING_FACTOR, n));
}

/** `Gas_limit_repr.write_bytes_cost n`: 160 gas units + 15 per byte written. */
export function writeBytesCost(n: number): number {
  return sAdd(160 * SCALING_FACTOR, sMul(15 * SCALING_FACTOR, n));
}

/**
 * Formats milligas as Octez prints gas (`Gas.Arith.pp`): integer units, then `.` and three
 * digits when not a whole unit, e.g. `1039986369` → `"1039986.369"`, `5000` → `"5"`.
 */
export function formatMilligas(milligas: number): string {
  const q = Math.floor(milligas / SCALING_FACTOR);
  const r = milligas - q * SCALING_FACTOR;
  return r === 0 ? String(q) : `${q}.${String(r).padStart(3, "0")}`;
}

/** Parses Octez's printed gas (`"1039986.369"`, `"5"`) into milligas. */
export function parseMilligas(text: string): number {
  const m = /^([0-9]+)(?:\.([0-9]{1,3}))?$/.exec(text);
  if (m === null) throw new TypeError(`not a gas amount: ${JSON.stringify(text)}`);
  return Number(m[1]) * SCALING_FACTOR + Number((m[2] ?? "").padEnd(3, "0"));
}
