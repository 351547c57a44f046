/**
 * Input checks and byte order shared by every `KeyValueStore` implementation, so that the memory,
 * LMDB and IndexedDB stores accept and refuse exactly the same inputs.
 * @module
 */
import type { RangeOptions, WriteOp } from "./kv.ts";

/**
 * Longest key any store accepts, in bytes. LMDB's classic default (511) keeps the data portable
 * to any LMDB build; table keys are far shorter (a context node key is 33 bytes).
 */
export const MAX_KEY_LENGTH = 511;

/**
 * Bytewise comparison of two byte strings: negative, zero or positive, like `Array#sort` wants.
 * A proper prefix sorts first.
 * @example compareBytes(new Uint8Array([1]), new Uint8Array([1, 0])) // < 0
 */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Throws a TypeError unless `key` is a Uint8Array, a RangeError unless it has 1..511 bytes. */
export function checkKey(key: unknown, what = "key"): asserts key is Uint8Array {
  if (!(key instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array, got ${describe(key)}`);
  if (key.length === 0) throw new RangeError(`${what} must not be empty`);
  if (key.length > MAX_KEY_LENGTH) throw new RangeError(`${what} is ${key.length} bytes long, the maximum is ${MAX_KEY_LENGTH}`);
}

/**
 * Checks a whole batch before any of it is applied, so that a bad op leaves the store untouched:
 * `ops` must be an array of `{ key: Uint8Array, value?: Uint8Array }`.
 */
export function checkWriteOps(ops: unknown): asserts ops is readonly WriteOp[] {
  if (!Array.isArray(ops)) throw new TypeError(`write: ops must be an array, got ${describe(ops)}`);
  for (let i = 0; i < ops.length; i++) {
    const op: unknown = ops[i];
    if (typeof op !== "object" || op === null) throw new TypeError(`write: ops[${i}] must be an object, got ${describe(op)}`);
    const { key, value } = op as { key?: unknown; value?: unknown };
    checkKey(key, `write: ops[${i}].key`);
    if (value !== undefined && !(value instanceof Uint8Array)) {
      throw new TypeError(`write: ops[${i}].value must be a Uint8Array or undefined, got ${describe(value)}`);
    }
  }
}

/** Checks range options: `gte`/`lt` are Uint8Arrays when given, `limit` a non-negative integer. */
export function checkRangeOptions(options: unknown): asserts options is RangeOptions {
  if (typeof options !== "object" || options === null) throw new TypeError(`range: options must be an object, got ${describe(options)}`);
  const { gte, lt, limit } = options as RangeOptions;
  if (gte !== undefined && !(gte instanceof Uint8Array)) throw new TypeError(`range: gte must be a Uint8Array, got ${describe(gte)}`);
  if (lt !== undefined && !(lt instanceof Uint8Array)) throw new TypeError(`range: lt must be a Uint8Array, got ${describe(lt)}`);
  if (limit !== undefined && !(limit === Infinity || (Number.isInteger(limit) && limit >= 0))) {
    throw new RangeError(`range: limit must be a non-negative integer, got ${String(limit)}`);
  }
}

/** True when the bounds of `options` cannot hold any key (an empty range or a zero limit). */
export function isEmptyRange(options: RangeOptions): boolean {
  if (options.limit === 0) return true;
  return options.gte !== undefined && options.lt !== undefined && compareBytes(options.gte, options.lt) >= 0;
}

/** The error every store throws when used after `close()`. */
export function closedError(store: string): Error {
  return new Error(`${store} is closed`);
}

function describe(x: unknown): string {
  if (x === null) return "null";
  if (typeof x === "object") return (x as object).constructor?.name ?? "object";
  return typeof x;
}
