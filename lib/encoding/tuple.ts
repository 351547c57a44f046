/**
 * Tuples (data-encoding `tup1..tupN`): elements one after the other in binary, a JSON array.
 * @module
 */
import { DecodeError, type Json } from "./codec.ts";
import { checkVariableLayout, concatSize, jsonTypeError, makeCodec, valueTypeError, withPath, type Codec, type ValueOf } from "./core.ts";

/** Value type of a tuple of codecs. */
export type TupValue<C extends readonly Codec<any>[]> = { -readonly [I in keyof C]: ValueOf<C[I]> };

/**
 * A tuple codec.
 * @example tup(int32, string) // [5, "a"] <-> 00000005 00000001 61
 */
export function tup<const C extends readonly Codec<any>[]>(...elems: C): Codec<TupValue<C>> {
  const sizes = elems.map((e) => e.size);
  checkVariableLayout("tup", sizes, elems.map((_, i) => `element ${i}`));
  const fixedAfter: number[] = new Array(elems.length).fill(0);
  let acc = 0;
  for (let i = elems.length - 1; i >= 0; i--) {
    fixedAfter[i] = acc;
    const s = sizes[i]!;
    acc += s.kind === "fixed" ? s.size : 0;
  }
  return makeCodec<TupValue<C>>({
    size: concatSize(sizes),
    desc: { t: "tup", elems },
    toJson(v) {
      if (!Array.isArray(v) || v.length !== elems.length) throw valueTypeError(`an array of ${elems.length}`, v);
      return elems.map((e, i) => e.toJson(v[i])) as Json[];
    },
    fromJson(j) {
      if (!Array.isArray(j)) throw jsonTypeError("an array", j);
      if (j.length !== elems.length) throw new DecodeError(`Expected an array of ${elems.length} elements, got ${j.length}`);
      return elems.map((e, i) => {
        try {
          return e.fromJson(j[i]!);
        } catch (err) {
          throw withPath(err, i);
        }
      }) as TupValue<C>;
    },
    write(out, v) {
      if (!Array.isArray(v) || v.length !== elems.length) throw valueTypeError(`an array of ${elems.length}`, v);
      for (let i = 0; i < elems.length; i++) elems[i]!.write(out, v[i]);
    },
    read(r) {
      const out: unknown[] = new Array(elems.length);
      for (let i = 0; i < elems.length; i++) {
        try {
          if (sizes[i]!.kind === "variable") {
            const saved = r.end;
            r.end = saved - fixedAfter[i]!;
            if (r.end < r.pos) throw new DecodeError("Not enough data");
            try {
              out[i] = elems[i]!.read(r);
            } finally {
              r.end = saved;
            }
          } else out[i] = elems[i]!.read(r);
        } catch (err) {
          throw withPath(err, i);
        }
      }
      return out as TupValue<C>;
    },
    schema: (ctx) => ({ type: "array", items: elems.map((e) => e.schema(ctx)), additionalItems: false }),
  });
}
