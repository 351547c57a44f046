/**
 * Combinators that shape other codecs: `conv` (map the value type), `def` (a named type, which
 * becomes a JSON-schema definition and a binary-schema reference), `mu` (recursive types),
 * `lazy`, `constant`, `stringEnum`, `padded`, `splitted` and the empty `unit`.
 * @module
 */
import { DecodeError, type Json, type JsonSchema } from "./codec.ts";
import { defBody, jsonPreview, jsonTypeError, makeCodec, setDefMeta, valueTypeError, type Codec } from "./core.ts";

/**
 * Maps the value type of a codec (data-encoding `conv proj inj`): `proj` goes from the new value
 * to the codec's, `inj` back. Binary and JSON forms are those of `codec`.
 * @example conv((d: Date) => BigInt(d.getTime() / 1000), (s) => new Date(Number(s) * 1000), int64)
 */
export function conv<A, B>(proj: (a: A) => B, inj: (b: B) => A, codec: Codec<B>): Codec<A> {
  return makeCodec<A>({
    title: codec.title,
    size: codec.size,
    desc: { t: "wrap", codec: () => codec },
    toJson: (v) => codec.toJson(proj(v)),
    fromJson(j) {
      const b = codec.fromJson(j);
      try {
        return inj(b);
      } catch (e) {
        if (e instanceof TypeError || e instanceof RangeError) throw new DecodeError(e.message);
        throw e;
      }
    },
    write: (out, v) => codec.write(out, proj(v)),
    read(r) {
      const b = codec.read(r);
      try {
        return inj(b);
      } catch (e) {
        if (e instanceof TypeError || e instanceof RangeError) throw new DecodeError(e.message);
        throw e;
      }
    },
    schema: (ctx) => codec.schema(ctx),
  });
}

/** Annotations of {@link def}. */
export interface DefOptions {
  readonly title?: string;
  readonly description?: string;
}

/**
 * A named type (data-encoding `def`): `$ref: #/definitions/<name>` in JSON schemas, a named
 * reference in binary schemas. Same binary and JSON forms as `codec`.
 */
export function def<T>(name: string, codec: Codec<T>, options: DefOptions = {}): Codec<T> {
  const c: Codec<T> = makeCodec<T>({
    title: name,
    size: codec.size,
    desc: { t: "def", name, codec },
    toJson: codec.toJson,
    fromJson: codec.fromJson,
    write: codec.write,
    read: codec.read,
    schema(ctx) {
      if (!ctx.defs.has(name)) {
        ctx.defs.set(name, {}); // placeholder against cycles
        ctx.defs.set(name, defBody(ctx, name, codec as Codec<unknown>, c as Codec<unknown>));
      }
      return { $ref: `#/definitions/${name}` };
    },
  });
  setDefMeta(c as Codec<unknown>, options);
  return c;
}

/**
 * A recursive type (data-encoding `mu`): `f` receives the codec itself. Its JSON schema is
 * inlined where used, with inner recursive uses pointing at `#/definitions/<name>`.
 * @example const tree = mu("tree", (self) => union([...list(self)...]))
 */
export function mu<T>(name: string, f: (self: Codec<T>) => Codec<T>, options: DefOptions & { size?: Codec<T>["size"] } = {}): Codec<T> {
  let body: Codec<T> | undefined;
  const get = (): Codec<T> => (body ??= f(self));
  const self: Codec<T> = makeCodec<T>({
    title: name,
    size: options.size ?? { kind: "dynamic" },
    desc: { t: "mu", name, codec: get },
    toJson: (v) => get().toJson(v),
    fromJson: (j) => get().fromJson(j),
    write: (out, v) => get().write(out, v),
    read: (r) => get().read(r),
    schema(ctx) {
      if (ctx.open.has(name)) return { $ref: `#/definitions/${name}` };
      ctx.open.add(name);
      try {
        const s = get().schema(ctx);
        const out: JsonSchema = {};
        if (options.title !== undefined) out["title"] = options.title;
        if (options.description !== undefined) out["description"] = options.description;
        Object.assign(out, s);
        ctx.defs.set(name, out);
        return out;
      } finally {
        ctx.open.delete(name);
      }
    },
  });
  return self;
}

/** A codec built on first use (data-encoding `delayed`), for definitions that refer to each other. */
export function lazy<T>(f: () => Codec<T>, size: Codec<T>["size"]): Codec<T> {
  let c: Codec<T> | undefined;
  const get = (): Codec<T> => (c ??= f());
  return makeCodec<T>({
    size,
    desc: { t: "wrap", codec: get },
    toJson: (v) => get().toJson(v),
    fromJson: (j) => get().fromJson(j),
    write: (out, v) => get().write(out, v),
    read: (r) => get().read(r),
    schema: (ctx) => get().schema(ctx),
  });
}

/** A constant string (data-encoding `constant`): no bytes in binary, the string in JSON. */
export function constant<const S extends string>(value: S): Codec<S> & { readonly constant: S } {
  const c = makeCodec<S>({
    size: { kind: "fixed", size: 0 },
    desc: { t: "zero" },
    toJson: () => value,
    fromJson(j) {
      if (j !== value) throw new DecodeError(`Expected ${JSON.stringify(value)}, got ${jsonPreview(j, 200)}`);
      return value;
    },
    write() {},
    read: () => value,
    schema: () => ({ type: "string", enum: [value] }),
  });
  return Object.assign(c, { constant: value });
}

/** Nothing at all (data-encoding `empty`): zero bytes, JSON `{}`. */
export const unit: Codec<undefined> = makeCodec<undefined>({
  size: { kind: "fixed", size: 0 },
  desc: { t: "zero" },
  toJson: () => ({}),
  fromJson(j) {
    if (typeof j !== "object" || j === null || Array.isArray(j)) throw jsonTypeError("an empty object", j);
    return undefined;
  },
  write() {},
  read: () => undefined,
  schema: () => ({ type: "object", additionalProperties: false }),
});

/** Options of {@link stringEnum}. */
export interface StringEnumOptions {
  /** Order of the names in the JSON schema's `enum` (Octez prints a hash-table order). */
  readonly schemaOrder?: readonly string[];
}

/**
 * A string enumeration (data-encoding `string_enum`): binary index of the name (uint8 up to 256
 * names), JSON the name itself.
 * @example stringEnum(["yay", "nay", "pass"]) // ballot
 */
export function stringEnum<const S extends string>(names: readonly S[], options: StringEnumOptions = {}): Codec<S> {
  const index = new Map<string, number>(names.map((s, i) => [s, i]));
  const wide = names.length > 256;
  return makeCodec<S>({
    size: { kind: "fixed", size: wide ? 2 : 1 },
    desc: { t: "enum", cases: names },
    toJson(v) {
      if (!index.has(v)) throw valueTypeError(`one of ${names.join(", ")}`, v);
      return v;
    },
    fromJson(j) {
      if (typeof j !== "string" || !index.has(j)) throw new DecodeError(`Expected one of ${names.map((s) => JSON.stringify(s)).join(", ")}, got ${jsonPreview(j, 200)}`);
      return j as S;
    },
    write(out, v) {
      const i = index.get(v);
      if (i === undefined) throw valueTypeError(`one of ${names.join(", ")}`, v);
      if (wide) out.u16(i);
      else out.u8(i);
    },
    read(r) {
      const i = wide ? r.u16() : r.u8();
      const s = names[i];
      if (s === undefined) throw new DecodeError(`Invalid enumeration index ${i}`);
      return s;
    },
    schema: () => ({ type: "string", enum: [...(options.schemaOrder ?? names)] }),
  });
}

/** `codec` followed by `padding` zero bytes (data-encoding `Fixed.add_padding`; non-zero padding is rejected). */
export function padded<T>(codec: Codec<T>, padding: number): Codec<T> {
  if (codec.size.kind !== "fixed") throw new TypeError("padded: the codec must have a fixed size");
  return makeCodec<T>({
    size: { kind: "fixed", size: codec.size.size + padding },
    desc: { t: "padded", codec, padding },
    toJson: codec.toJson,
    fromJson: codec.fromJson,
    write(out, v) {
      codec.write(out, v);
      for (let i = 0; i < padding; i++) out.u8(0);
    },
    read(r) {
      const v = codec.read(r);
      const pad = r.take(padding);
      for (let i = 0; i < pad.length; i++) if (pad[i] !== 0) throw new DecodeError("Non-zero padding byte");
      return v;
    },
    schema: codec.schema,
  });
}

/** Separate JSON and binary forms for one value type (data-encoding `splitted`). */
export function splitted<T>(json: { toJson(v: T): Json; fromJson(j: Json): T; schema: Codec<T>["schema"] }, binary: Codec<T>): Codec<T> {
  return makeCodec<T>({
    title: binary.title,
    size: binary.size,
    desc: { t: "wrap", codec: () => binary },
    toJson: json.toJson,
    fromJson: json.fromJson,
    write: binary.write,
    read: binary.read,
    schema: json.schema,
  });
}

/**
 * Names `codec` in binary schemas only (a reference named `name`), leaving its JSON schema
 * inline — as Octez does for list elements such as `fitness.elem`.
 */
export function binaryName<T>(name: string, codec: Codec<T>): Codec<T> {
  return makeCodec<T>({
    title: codec.title,
    size: codec.size,
    desc: { t: "def", name, codec },
    toJson: codec.toJson,
    fromJson: codec.fromJson,
    write: codec.write,
    read: codec.read,
    schema: codec.schema,
  });
}
