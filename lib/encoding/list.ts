/**
 * Sequences: `list` (4-byte length prefix, data-encoding `list`) and `variableList` (runs to the
 * end of its limit, data-encoding `Variable.list`); JSON arrays. Variable-size elements get a
 * length prefix each. `array`/`variableArray` are the same (data-encoding has both names).
 * @module
 */
import { DecodeError, type Json } from "./codec.ts";
import { jsonTypeError, makeCodec, valueTypeError, withPath, type Codec } from "./core.ts";
import { dynamicSize } from "./dynamic.ts";

/** Options of the list codecs. */
export interface ListOptions {
  /** Most elements accepted. */
  readonly maxLength?: number;
}

/**
 * Elements one after the other up to the end of the enclosing limit (data-encoding `Variable.list`).
 * @example variableList(operationContents) // an operation's contents
 */
export function variableList<T>(elem: Codec<T>, options: ListOptions = {}): Codec<T[]> {
  const e = elem.size.kind === "variable" ? dynamicSize(elem) : elem;
  const max = options.maxLength ?? Infinity;
  if (e.size.kind === "fixed" && e.size.size === 0) throw new TypeError("variableList: elements of size 0 cannot be decoded");
  return makeCodec<T[]>({
    size: { kind: "variable" },
    desc: { t: "list", elem: e },
    toJson(v) {
      if (!Array.isArray(v)) throw valueTypeError("an array", v);
      const out: Json[] = new Array(v.length);
      for (let i = 0; i < v.length; i++) out[i] = e.toJson(v[i]!);
      return out;
    },
    fromJson(j) {
      if (isEmptyObject(j)) return []; // BSON's empty array, as ocplib-json-typed reads it
      if (!Array.isArray(j)) throw jsonTypeError("an array", j);
      if (j.length > max) throw new DecodeError(`List longer than ${max} elements`);
      const out: T[] = new Array(j.length);
      for (let i = 0; i < j.length; i++) {
        try {
          out[i] = e.fromJson(j[i]!);
        } catch (err) {
          throw withPath(err, i);
        }
      }
      return out;
    },
    write(out, v) {
      if (!Array.isArray(v)) throw valueTypeError("an array", v);
      if (v.length > max) throw new RangeError(`List longer than ${max} elements`);
      for (let i = 0; i < v.length; i++) e.write(out, v[i]!);
    },
    read(r) {
      const out: T[] = [];
      while (r.pos < r.end) {
        if (out.length >= max) throw new DecodeError(`List longer than ${max} elements`);
        try {
          out.push(e.read(r));
        } catch (err) {
          throw withPath(err, out.length);
        }
      }
      return out;
    },
    schema: (ctx) => ({ type: "array", items: e.schema(ctx) }),
  });
}

/** List with a 4-byte byte-length prefix (data-encoding `list`). */
export function list<T>(elem: Codec<T>, options: ListOptions = {}): Codec<T[]> {
  return dynamicSize(variableList(elem, options));
}

/** Same as {@link list} (data-encoding `array`). */
export const array: typeof list = list;

/** Same as {@link variableList} (data-encoding `Variable.array`). */
export const variableArray: typeof variableList = variableList;

/** `{}`: how an empty array comes back from BSON (an empty document carries no type). */
export function isEmptyObject(j: Json): boolean {
  return typeof j === "object" && j !== null && !Array.isArray(j) && Object.keys(j).length === 0;
}
