/**
 * Context paths: lists of string segments, like Octez's `string list` keys
 * (`["contracts", "index", "<id>", "balance"]`).
 * @module
 */

/** A path in the context tree: its segments from the root. */
export type ContextPath = readonly string[];

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Checks that `path` is an array of well-formed strings (a lone UTF-16 surrogate has no UTF-8
 * form, so two different names would store alike). Empty segments are allowed.
 * @throws TypeError for a non-array or a non-string segment, RangeError for a malformed string.
 */
export function checkPath(path: unknown, what: string): asserts path is ContextPath {
  if (!Array.isArray(path)) throw new TypeError(`${what}: path must be an array of strings, got ${typeof path}`);
  for (let i = 0; i < path.length; i++) {
    const s: unknown = path[i];
    if (typeof s !== "string") throw new TypeError(`${what}: path[${i}] must be a string, got ${s === null ? "null" : typeof s}`);
    if (LONE_SURROGATE.test(s)) throw new RangeError(`${what}: path[${i}] is not well-formed Unicode (lone surrogate)`);
  }
}
