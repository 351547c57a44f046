/**
 * Objects: ordered fields (`req`, `opt`, `dft`, `varopt`) laid out one after the other in binary
 * and as a JSON object, plus `mergeObjs` (data-encoding `obj1..objN` and `merge_objs`).
 * @module
 */
import { DecodeError, type BinarySize, type Json, type JsonSchema, type Reader, type Writer } from "./codec.ts";
import {
  checkVariableLayout,
  concatSize,
  getDefMeta,
  jsonTypeError,
  makeCodec,
  valueTypeError,
  withPath,
  type Codec,
  type FieldSpec,
  type SchemaContext,
} from "./core.ts";

/** A field of an object codec; `O` tells whether its key may be absent from the value. */
export interface Field<K extends string, T, O extends boolean> extends FieldSpec {
  readonly name: K;
  readonly codec: Codec<T>;
  readonly optional: O;
}

/** Any field. */
export type AnyField = Field<string, any, boolean>;

/** Required field: always present (JSON key required). */
export function req<K extends string, T>(name: K, codec: Codec<T>): Field<K, T, false> {
  return { name, kind: "req", codec, optional: false };
}

/**
 * Optional field: binary presence byte 0x00/0xff before the value (or, for a variable-size value in
 * last position, present iff bytes remain); JSON key absent when the value is absent.
 */
export function opt<K extends string, T>(name: K, codec: Codec<T>): Field<K, T, true> {
  return { name, kind: codec.size.kind === "variable" ? "varopt" : "opt", codec, optional: true };
}

/** Variable optional field (data-encoding `varopt`): present iff bytes remain before the limit. */
export function varopt<K extends string, T>(name: K, codec: Codec<T>): Field<K, T, true> {
  return { name, kind: "varopt", codec, optional: true };
}

/** Field with a default: always in binary; omitted from JSON output when equal to `dflt`, which fills it in on JSON input. */
export function dft<K extends string, T>(name: K, codec: Codec<T>, dflt: T): Field<K, T, false> {
  return { name, kind: "dft", codec, dflt, optional: false };
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The value type of an object with fields `F`. */
export type ObjValue<F extends readonly AnyField[]> = Simplify<
  { [E in F[number] as E["optional"] extends true ? never : E["name"]]: E["codec"] extends Codec<infer T> ? T : never } & {
    [E in F[number] as E["optional"] extends true ? E["name"] : never]?: E["codec"] extends Codec<infer T> ? T : never;
  }
>;

/** An object codec, which exposes its fields (for `mergeObjs`). */
export interface ObjCodec<T> extends Codec<T> {
  readonly fields: readonly FieldSpec[];
}

/**
 * Marks a codec whose value may be `undefined` in a required field (e.g. an operation's optional
 * signature, written as 64 zero bytes): the JSON key may then be absent on input.
 */
export function allowAbsent<T>(codec: Codec<T>): Codec<T> {
  absentOk.add(codec as Codec<unknown>);
  return codec;
}

const absentOk = new WeakSet<Codec<unknown>>();

function acceptsAbsent(c: Codec<unknown>): boolean {
  return absentOk.has(c);
}

function isPlainObject(j: unknown): j is { [k: string]: Json } {
  return typeof j === "object" && j !== null && !Array.isArray(j);
}

function sameJson(a: Json, b: Json): boolean {
  if (a === b) return true;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Object schema `{type, properties, required (reversed, as Octez prints it), additionalProperties}`. */
export function objectSchema(ctx: SchemaContext, fields: readonly FieldSpec[]): JsonSchema {
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const f of fields) {
    if (f.codec.desc.t === "zero" && f.kind !== "req") continue;
    properties[f.name] = f.codec.schema(ctx);
    if (f.kind === "req") required.push(f.name);
  }
  const out: JsonSchema = { type: "object" };
  if (fields.length > 0) out["properties"] = properties;
  if (required.length > 0) out["required"] = required.reverse();
  out["additionalProperties"] = false;
  return out;
}

/** Writes the fields of `value` in order. */
function writeFields(fields: readonly FieldSpec[], out: Writer, value: { [k: string]: unknown }): void {
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const v = value[f.name];
    try {
      switch (f.kind) {
        case "req":
          if (v === undefined && !acceptsAbsent(f.codec)) throw new TypeError(`Missing field "${f.name}"`);
          f.codec.write(out, v);
          break;
        case "dft":
          f.codec.write(out, v === undefined ? f.dflt : v);
          break;
        case "opt":
          if (v === undefined) out.u8(0x00);
          else {
            out.u8(0xff);
            f.codec.write(out, v);
          }
          break;
        case "varopt":
          if (v !== undefined) f.codec.write(out, v);
          break;
      }
    } catch (e) {
      if (e instanceof TypeError || e instanceof RangeError) {
        const err = new (e.constructor as typeof TypeError)(`${e.message} (in field "${f.name}")`);
        throw err;
      }
      throw e;
    }
  }
}

/**
 * An object codec from ordered fields.
 * @example
 * const level = obj(req("level", int32), opt("nonce", fixedBytes(32)));
 * encodeBinary(level, { level: 5 }) // 00000005 00
 */
export function obj<const F extends readonly AnyField[]>(...fields: F): ObjCodec<ObjValue<F>> {
  return objOf<ObjValue<F>>(fields);
}

/** An object codec from a field list (untyped form of {@link obj}). */
export function objOf<T>(fields: readonly FieldSpec[]): ObjCodec<T> {
  const sizes: BinarySize[] = fields.map((f) =>
    f.kind === "opt" ? concatSize([{ kind: "fixed", size: 1 }, f.codec.size]) : f.kind === "varopt" ? { kind: "variable" } : f.codec.size,
  );
  checkVariableLayout("obj", sizes, fields.map((f) => `field "${f.name}"`));
  // Bytes of fixed-size fields after each field (what a variable-size field must leave unread).
  const fixedAfter: number[] = new Array(fields.length).fill(0);
  let acc = 0;
  for (let i = fields.length - 1; i >= 0; i--) {
    fixedAfter[i] = acc;
    const s = sizes[i]!;
    acc += s.kind === "fixed" ? s.size : 0;
  }
  const variable = sizes.map((s) => s.kind === "variable");
  const size = concatSize(sizes);
  const codec = makeCodec<T>({
    size,
    desc: { t: "obj", fields },
    toJson(value) {
      if (!isPlainObject(value)) throw valueTypeError("an object", value);
      const v = value as unknown as { [k: string]: unknown };
      const out: { [k: string]: Json } = {};
      for (const f of fields) {
        const x = v[f.name];
        if (x === undefined) {
          if (f.kind === "req") {
            if (!acceptsAbsent(f.codec)) throw new TypeError(`Missing field "${f.name}"`);
            out[f.name] = f.codec.toJson(x);
          }
          continue;
        }
        const j = f.codec.toJson(x);
        if (f.kind === "dft" && sameJson(j, f.codec.toJson(f.dflt))) continue;
        if (f.codec.desc.t === "zero" && f.kind !== "req") continue;
        out[f.name] = j;
      }
      return out;
    },
    fromJson(json) {
      if (!isPlainObject(json)) throw jsonTypeError("an object", json);
      const out: { [k: string]: unknown } = {};
      for (const f of fields) {
        const x = json[f.name];
        if (x === undefined) {
          if (f.kind === "req") {
            if (f.codec.desc.t === "zero") {
              out[f.name] = f.codec.fromJson(null);
              continue;
            }
            if (acceptsAbsent(f.codec)) continue;
            throw new DecodeError(`Missing field "${f.name}"`, [f.name]);
          }
          if (f.kind === "dft") out[f.name] = f.dflt;
          continue;
        }
        try {
          out[f.name] = f.codec.fromJson(x);
        } catch (e) {
          throw withPath(e, f.name);
        }
      }
      return out as T;
    },
    write(out, value) {
      if (!isPlainObject(value)) throw valueTypeError("an object", value);
      writeFields(fields, out, value as unknown as { [k: string]: unknown });
    },
    read(r: Reader) {
      const out: { [k: string]: unknown } = {};
      for (let i = 0; i < fields.length; i++) {
        const f = fields[i]!;
        try {
          if (variable[i]) {
            const saved = r.end;
            const limit = saved - fixedAfter[i]!;
            if (limit < r.pos) throw new DecodeError(`Not enough data: need ${fixedAfter[i]} more bytes`);
            r.end = limit;
            try {
              if (f.kind === "varopt" || f.kind === "opt") {
                if (r.pos < r.end) out[f.name] = f.codec.read(r);
              } else out[f.name] = f.codec.read(r);
              if (r.pos !== r.end) throw new DecodeError(`${r.end - r.pos} unexpected trailing bytes`);
            } finally {
              r.end = saved;
            }
          } else if (f.kind === "opt") {
            const flag = r.u8();
            if (flag === 0xff) out[f.name] = f.codec.read(r);
            else if (flag !== 0x00) throw new DecodeError(`Invalid presence byte 0x${flag.toString(16).padStart(2, "0")}`);
          } else if (f.kind === "varopt") {
            if (r.pos < r.end) out[f.name] = f.codec.read(r);
          } else out[f.name] = f.codec.read(r);
        } catch (e) {
          throw withPath(e, f.name);
        }
      }
      return out as T;
    },
    schema: (ctx) => objectSchema(ctx, fields),
  });
  return Object.assign(codec, { fields });
}

/** The fields of an object codec, looking through `conv`, `def` and `lazy`; undefined if not an object. */
export function objectFields(codec: Codec<unknown>): readonly FieldSpec[] | undefined {
  let c: Codec<unknown> = codec;
  for (;;) {
    const d = c.desc;
    if (d.t === "obj") return d.fields;
    if (d.t === "def") c = d.codec;
    else if (d.t === "wrap") c = d.codec();
    else return undefined;
  }
}

/** Annotations (title/description) of the outermost `def` of `codec`, if any. */
function outerMeta(codec: Codec<unknown>): { title?: string; description?: string } {
  let c: Codec<unknown> = codec;
  for (;;) {
    const m = getDefMeta(c);
    if (m !== undefined && (m.title !== undefined || m.description !== undefined)) return m;
    const d = c.desc;
    if (d.t === "def") c = d.codec;
    else if (d.t === "wrap") c = d.codec();
    else return {};
  }
}

/**
 * Two object-shaped codecs side by side: binary concatenation, one merged JSON object
 * (data-encoding `merge_objs`). The right side may be any codec whose JSON is an object
 * (a union of objects, for instance); both sides see the whole value.
 */
export function mergeObjs<A extends object, B extends object>(left: Codec<A>, right: Codec<B>): Codec<A & B> {
  const lf = objectFields(left);
  const rf = objectFields(right);
  if (lf !== undefined && rf !== undefined) {
    const merged = objOf<A & B>([...lf, ...rf]);
    const meta = outerMeta(left);
    return makeCodec<A & B>({
      size: merged.size,
      desc: merged.desc,
      toJson: merged.toJson,
      fromJson: merged.fromJson,
      write: merged.write,
      read: merged.read,
      schema(ctx) {
        const s = merged.schema(ctx);
        const out: JsonSchema = {};
        if (meta.title !== undefined) out["title"] = meta.title;
        if (meta.description !== undefined) out["description"] = meta.description;
        return Object.assign(out, s);
      },
    });
  }
  if (lf === undefined) throw new TypeError("mergeObjs: the left codec must be an object");
  checkVariableLayout("mergeObjs", [left.size, right.size], ["left", "right"]);
  const fixedRight = right.size.kind === "fixed" ? right.size.size : 0;
  const leftVariable = left.size.kind === "variable";
  return makeCodec<A & B>({
    size: concatSize([left.size, right.size]),
    desc: { t: "merge", parts: [left, right] },
    toJson(v) {
      const a = left.toJson(v) as { [k: string]: Json };
      const b = right.toJson(v);
      if (!isPlainObject(b)) throw new TypeError("mergeObjs: right side did not give a JSON object");
      return { ...a, ...b };
    },
    fromJson(j) {
      const a = left.fromJson(j);
      const b = right.fromJson(j);
      return { ...a, ...b };
    },
    write(out, v) {
      left.write(out, v);
      right.write(out, v);
    },
    read(r) {
      let a: A;
      if (leftVariable) {
        const saved = r.end;
        r.end = saved - fixedRight;
        try {
          a = left.read(r);
        } finally {
          r.end = saved;
        }
      } else a = left.read(r);
      const b = right.read(r);
      return { ...a, ...b };
    },
    schema(ctx) {
      const ls = left.schema(ctx);
      const rs = right.schema(ctx);
      return mergeSchemas(ls, rs);
    },
  });
}

/** JSON schema of two merged objects (distributing over a `oneOf` on the right). */
export function mergeSchemas(a: JsonSchema, b: JsonSchema): JsonSchema {
  if (Array.isArray(b["oneOf"])) {
    return { oneOf: (b["oneOf"] as JsonSchema[]).map((c) => {
      const m = mergeSchemas(a, c);
      return c["title"] !== undefined ? { title: c["title"], ...m } : m;
    }) };
  }
  const pa = (a["properties"] ?? {}) as JsonSchema;
  const pb = (b["properties"] ?? {}) as JsonSchema;
  const ra = (a["required"] ?? []) as string[];
  const rb = (b["required"] ?? []) as string[];
  const out: JsonSchema = {};
  if (a["title"] !== undefined) out["title"] = a["title"];
  if (a["description"] !== undefined) out["description"] = a["description"];
  out["type"] = "object";
  out["properties"] = { ...pa, ...pb };
  out["required"] = [...rb, ...ra];
  out["additionalProperties"] = false;
  return out;
}
