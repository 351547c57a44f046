/**
 * The internal side of every codec built by the combinators: a layout description node (`desc`)
 * from which the binary schema is derived, a JSON-schema builder, and the helpers that put a
 * path on decoding errors. Users normally meet only the {@link Codec} type.
 * @module
 */
import { DecodeError, type BinarySchema, type BinarySize, type Encoding, type Json, type JsonSchema, type Reader, type Writer } from "./codec.ts";
import { describeBinary } from "./describe.ts";

/** Integer layouts of the binary description. */
export type IntSize = "Uint8" | "Int8" | "Uint16" | "Int16" | "Int32" | "Int64";

/** One field of an object codec: required, optional (presence byte), defaulted, or variable-optional. */
export interface FieldSpec {
  readonly name: string;
  readonly kind: "req" | "opt" | "dft" | "varopt";
  readonly codec: Codec<any>;
  readonly dflt?: unknown;
}

/** One case of a union: its tag, its title and the codec of its payload. */
export interface CaseSpec {
  readonly tag: number;
  readonly title: string;
  readonly codec: Codec<any>;
}

/** Layout description node: what the binary schema printer needs to know about a codec. */
export type Desc =
  | { readonly t: "leaf"; readonly layout: Json }
  | { readonly t: "zero" }
  | { readonly t: "n" }
  | { readonly t: "z" }
  | { readonly t: "obj"; readonly fields: readonly FieldSpec[] }
  | { readonly t: "tup"; readonly elems: readonly Codec<any>[] }
  | { readonly t: "merge"; readonly parts: readonly Codec<any>[] }
  | { readonly t: "list"; readonly elem: Codec<any> }
  | { readonly t: "union"; readonly tagSize: "Uint8" | "Uint16"; readonly cases: readonly CaseSpec[] }
  | { readonly t: "dyn"; readonly codec: Codec<any>; readonly lengthSize: "Uint30" | "Uint8" }
  | { readonly t: "def"; readonly name: string; readonly codec: Codec<any> }
  | { readonly t: "mu"; readonly name: string; readonly codec: () => Codec<any> }
  | { readonly t: "wrap"; readonly codec: () => Codec<any> }
  | { readonly t: "enum"; readonly cases: readonly string[] }
  | { readonly t: "padded"; readonly codec: Codec<any>; readonly padding: number };

/** Collects JSON-schema definitions while a schema is built. */
export class SchemaContext {
  /** Definitions by name, in the order they were met. */
  readonly defs = new Map<string, JsonSchema>();
  /** Names of recursive (`mu`) definitions being expanded. */
  readonly open = new Set<string>();
}

/**
 * A codec of the combinator library: the shared {@link Encoding} contract plus its layout
 * description and its JSON-schema builder.
 */
export interface Codec<T> extends Encoding<T> {
  /** Layout description node, read by the binary schema printer. */
  readonly desc: Desc;
  /** JSON schema fragment of the JSON form, registering named parts in `ctx`. */
  schema(ctx: SchemaContext): JsonSchema;
  /** Value type marker for type inference (never set at run time). */
  readonly __value?: T;
}

/** The value type of a codec. */
export type ValueOf<C> = C extends Codec<infer T> ? T : never;

/** What {@link makeCodec} needs; `jsonSchema()`/`binarySchema()` are derived. */
export interface CodecSpec<T> {
  readonly title?: string;
  readonly size: BinarySize;
  readonly desc: Desc;
  toJson(value: T): Json;
  fromJson(json: Json): T;
  write(out: Writer, value: T): void;
  read(input: Reader): T;
  schema(ctx: SchemaContext): JsonSchema;
}

const DRAFT04 = "http://json-schema.org/draft-04/schema#";

/** Top-level JSON schema of a codec, with `$schema` and sorted `definitions`, as Octez prints it. */
export function topJsonSchema(codec: Codec<unknown>): JsonSchema {
  const ctx = new SchemaContext();
  let body: JsonSchema;
  const d = codec.desc;
  // A named type at the top is inlined (Octez does not `$ref` the root).
  if (d.t === "def") {
    const r = codec.schema(ctx);
    const name = d.name;
    const registered = ctx.defs.get(name);
    if (registered !== undefined && r["$ref"] === `#/definitions/${name}`) {
      body = registered;
      if (!JSON.stringify([...ctx.defs.values()]).includes(`"#/definitions/${name}"`)) ctx.defs.delete(name);
    } else body = r;
  } else body = codec.schema(ctx);
  const out: JsonSchema = { $schema: DRAFT04, ...body };
  if (ctx.defs.size > 0) {
    const defs: JsonSchema = {};
    for (const k of [...ctx.defs.keys()].sort(asciiCompare)) defs[k] = ctx.defs.get(k)!;
    out["definitions"] = defs;
  }
  return out;
}

function asciiCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Annotations a `def` puts on its definition. */
export interface DefMeta {
  readonly title?: string;
  readonly description?: string;
}

const defMeta = new WeakMap<Codec<unknown>, DefMeta>();

/** Records the title/description of a `def` codec (used by the schema builder). */
export function setDefMeta(codec: Codec<unknown>, meta: DefMeta): void {
  defMeta.set(codec, meta);
}

/** Title/description of a `def` codec, if any. */
export function getDefMeta(codec: Codec<unknown>): DefMeta | undefined {
  return defMeta.get(codec);
}

/** Body of a named definition: its annotations, then the inner schema. */
export function defBody(ctx: SchemaContext, _name: string, inner: Codec<unknown>, outer: Codec<unknown>): JsonSchema {
  const meta = getDefMeta(outer) ?? {};
  const s = inner.schema(ctx);
  const out: JsonSchema = {};
  if (meta.title !== undefined) out["title"] = meta.title;
  else if (s["title"] !== undefined) out["title"] = s["title"];
  if (meta.description !== undefined) out["description"] = meta.description;
  else if (s["description"] !== undefined) out["description"] = s["description"];
  for (const [k, v] of Object.entries(s)) if (k !== "title" && k !== "description") out[k] = v;
  return out;
}

/** Builds a codec from its parts, adding `jsonSchema()` and `binarySchema()`. */
export function makeCodec<T>(spec: CodecSpec<T>): Codec<T> {
  const c: Codec<T> = {
    title: spec.title,
    size: spec.size,
    desc: spec.desc,
    toJson: spec.toJson,
    fromJson: spec.fromJson,
    write: spec.write,
    read: spec.read,
    schema: spec.schema,
    jsonSchema(): JsonSchema {
      return topJsonSchema(c as Codec<unknown>);
    },
    binarySchema(): BinarySchema {
      return describeBinary(c as Codec<unknown>);
    },
  };
  return c;
}

/** `{ size: n, kind: "Float" }` (sic: Octez v12 prints fixed sizes so), `{kind:"Dynamic"}` or `{kind:"Variable"}`. */
export function kindJson(size: BinarySize): Json {
  if (size.kind === "fixed") return { size: size.size, kind: "Float" };
  return { kind: size.kind === "dynamic" ? "Dynamic" : "Variable" };
}

/** Size class of fields laid out one after the other. */
export function concatSize(sizes: readonly BinarySize[]): BinarySize {
  let fixed = 0;
  let dynamic = false;
  for (const s of sizes) {
    if (s.kind === "variable") return s;
    if (s.kind === "dynamic") dynamic = true;
    else fixed += s.size;
  }
  return dynamic ? { kind: "dynamic" } : { kind: "fixed", size: fixed };
}

/** Checks the data-encoding rule: a variable-size part may only be followed by fixed-size parts. */
export function checkVariableLayout(what: string, sizes: readonly BinarySize[], names: readonly string[]): void {
  let seenVariable = -1;
  for (let i = 0; i < sizes.length; i++) {
    const s = sizes[i]!;
    if (seenVariable >= 0 && s.kind !== "fixed") {
      throw new TypeError(
        `${what}: variable-size ${names[seenVariable]} must be followed only by fixed-size parts, not ${names[i]} (wrap it in dynamicSize)`,
      );
    }
    if (s.kind === "variable") seenVariable = i;
  }
}

function baseMessage(e: DecodeError): string {
  if (e.path.length === 0) return e.message;
  const suffix = ` (at ${e.path.join(".")})`;
  return e.message.endsWith(suffix) ? e.message.slice(0, -suffix.length) : e.message;
}

/** The same error with `segment` prepended to its path (non-DecodeErrors pass unchanged). */
export function withPath(e: unknown, segment: string | number): unknown {
  if (e instanceof DecodeError) return new DecodeError(baseMessage(e), [segment, ...e.path]);
  return e;
}

/**
 * The JSON text of a value for an error message: at most `max` characters (the first `max − 3`
 * and `...` when longer), built no further than that, so that a value of any size or depth (a
 * request body nested 100 000 deep, a string of megabytes) costs little and cannot overflow the
 * stack. Equal to `JSON.stringify(v)` when that is short enough. Values that are not JSON
 * (bigints, bytes, functions) are shown as `1n`, `<n bytes>`, their `String`.
 *
 * @example
 * ```ts
 * jsonPreview({ a: [1, "x"] });              // '{"a":[1,"x"]}'
 * jsonPreview("x".repeat(1000), 10);         // '"xxxxxx...'
 * ```
 */
export function jsonPreview(v: unknown, max = 80): string {
  let out = "";
  const full = () => out.length > max;
  const walk = (x: unknown): void => {
    if (full()) return;
    if (typeof x === "string") out += JSON.stringify(x.length > max ? x.slice(0, max + 1) : x);
    else if (typeof x === "bigint") out += `${x}n`;
    else if (x instanceof Uint8Array) out += `<${x.length} bytes>`;
    else if (Array.isArray(x)) {
      out += "[";
      for (let i = 0; i < x.length && !full(); i++) {
        if (i > 0) out += ",";
        walk(x[i]);
      }
      out += "]";
    } else if (x !== null && typeof x === "object") {
      out += "{";
      let first = true;
      for (const k of Object.keys(x)) {
        if (full()) break;
        if (!first) out += ",";
        first = false;
        out += JSON.stringify(k.length > max ? k.slice(0, max + 1) : k) + ":";
        walk((x as Record<string, unknown>)[k]);
      }
      out += "}";
    } else if (typeof x === "number" || typeof x === "boolean" || x === null) out += JSON.stringify(x);
    else out += String(x);
  };
  walk(v);
  return out.length > max ? out.slice(0, Math.max(0, max - 3)) + "..." : out;
}

/** A DecodeError for a JSON value of the wrong shape. */
export function jsonTypeError(expected: string, got: Json | undefined): DecodeError {
  return new DecodeError(`Expected ${expected}, got ${got === undefined ? "nothing" : jsonPreview(got)}`);
}

/** Throws a TypeError naming the expected type when writing a value of the wrong type. */
export function valueTypeError(expected: string, got: unknown): TypeError {
  const shown = typeof got === "bigint" ? `${got}n` : typeof got === "string" ? JSON.stringify(got.length > 81 ? got.slice(0, 81) : got) : Array.isArray(got) ? jsonPreview(got) : String(got);
  return new TypeError(`Expected ${expected}, got ${typeof got} ${shown.length > 80 ? shown.slice(0, 77) + "..." : shown}`);
}
