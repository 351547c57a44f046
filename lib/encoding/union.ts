/**
 * Tagged unions (data-encoding `union` and `case`): a uint8 or uint16 tag then the case's
 * payload in binary; in JSON, the case's own form (the first case whose JSON decoder accepts the
 * input, or directly the case named by a constant field such as `kind`). Also `option`.
 * @module
 */
import { DecodeError, type Json, type JsonSchema } from "./codec.ts";
import { jsonPreview, jsonTypeError, makeCodec, withPath, type CaseSpec, type Codec } from "./core.ts";
import { objectFields } from "./object.ts";

/** A union case: tag, title, payload codec, and the maps between the union's values and the payload. */
export interface Case<T> extends CaseSpec {
  /** The payload of `value` if this case represents it, else `undefined`. */
  select(value: T): unknown;
  /** The union value of a decoded payload. */
  inj(payload: unknown): T;
}

/**
 * A union case (data-encoding `case (Tag tag) ~title codec select inj`).
 * @example tagged(0, "Ed25519", fixedBytes(20), (v) => v.startsWith("tz1") ? ... : undefined, ...)
 */
export function tagged<T, U>(
  tag: number,
  title: string,
  codec: Codec<U>,
  select: (value: T) => U | undefined,
  inj: (payload: U) => T,
): Case<T> {
  return { tag, title, codec, select, inj: inj as (p: unknown) => T };
}

/** Options of {@link union}. */
export interface UnionOptions {
  /** Tag size: `Uint8` (default) or `Uint16`. */
  readonly tagSize?: "Uint8" | "Uint16";
}

/** The constant value of a codec made by `constant`, if it is one. */
export function constantOf(codec: Codec<unknown>): string | undefined {
  const c = codec as Codec<unknown> & { constant?: string };
  return typeof c.constant === "string" ? c.constant : undefined;
}

/** `[key, value]` of a constant field (e.g. `kind`) that names a case in JSON, if the case has one. */
function discriminator(codec: Codec<unknown>): [string, string] | undefined {
  let c = codec;
  for (;;) {
    const d = c.desc;
    if (d.t === "merge") c = d.parts[0]!;
    else if (d.t === "def") c = d.codec;
    else if (d.t === "wrap") c = d.codec();
    else break;
  }
  const fields = objectFields(c);
  if (fields === undefined) return undefined;
  for (const f of fields) {
    const k = constantOf(f.codec);
    if (k !== undefined && f.kind === "req") return [f.name, k];
  }
  return undefined;
}

/**
 * A tagged union of cases.
 * @example
 * const ballot = union([tagged(0, "yay", constant("yay"), ...), ...]);
 */
export function union<T>(cases: readonly Case<T>[], options: UnionOptions = {}): Codec<T> {
  const tagSize = options.tagSize ?? "Uint8";
  const maxTag = tagSize === "Uint8" ? 0xff : 0xffff;
  const byTag = new Map<number, Case<T>>();
  for (const c of cases) {
    if (!Number.isInteger(c.tag) || c.tag < 0 || c.tag > maxTag) throw new RangeError(`union: tag ${c.tag} does not fit ${tagSize}`);
    if (byTag.has(c.tag)) throw new TypeError(`union: duplicate tag ${c.tag}`);
    byTag.set(c.tag, c);
  }
  const table: (Case<T> | undefined)[] = new Array(maxTag + 1 > 256 ? 0 : 256);
  if (tagSize === "Uint8") for (const c of cases) table[c.tag] = c;
  // JSON fast path: every case carries a constant field under one key.
  let key: string | undefined;
  let byName: Map<string, Case<T>> | undefined = new Map();
  for (const c of cases) {
    const d = discriminator(c.codec);
    if (d === undefined || (key !== undefined && d[0] !== key) || byName!.has(d[1])) {
      byName = undefined;
      break;
    }
    key = d[0];
    byName!.set(d[1], c);
  }
  const tagBytes = tagSize === "Uint8" ? 1 : 2;
  let size: Codec<T>["size"];
  if (cases.some((c) => c.codec.size.kind === "variable")) size = { kind: "variable" };
  else {
    const first = cases[0]?.codec.size;
    const allSame = first !== undefined && first.kind === "fixed" &&
      cases.every((c) => c.codec.size.kind === "fixed" && c.codec.size.size === first.size);
    size = allSame && first.kind === "fixed" ? { kind: "fixed", size: first.size + tagBytes } : { kind: "dynamic" };
  }
  const select = (v: T): [Case<T>, unknown] => {
    for (const c of cases) {
      const p = c.select(v);
      if (p !== undefined) return [c, p];
    }
    throw new TypeError(`No union case matches the value ${describeValue(v)}`);
  };
  return makeCodec<T>({
    size,
    desc: { t: "union", tagSize, cases },
    toJson(v) {
      const [c, p] = select(v);
      return c.codec.toJson(p);
    },
    fromJson(j) {
      if (byName !== undefined && key !== undefined) {
        if (typeof j !== "object" || j === null || Array.isArray(j)) throw jsonTypeError("an object", j);
        const name = j[key];
        if (typeof name !== "string") throw new DecodeError(`Missing or invalid field "${key}"`, [key]);
        const c = byName.get(name);
        if (c === undefined) throw new DecodeError(`Unknown ${key} ${jsonPreview(name, 200)}`, [key]);
        return c.inj(c.codec.fromJson(j));
      }
      let last: unknown;
      for (const c of cases) {
        try {
          return c.inj(c.codec.fromJson(j));
        } catch (e) {
          if (!(e instanceof DecodeError)) throw e;
          last = e;
        }
      }
      throw new DecodeError(
        `No case matched ${jsonPreview(j, 60)}${last instanceof DecodeError ? ` (last: ${last.message})` : ""}`,
      );
    },
    write(out, v) {
      const [c, p] = select(v);
      if (tagBytes === 1) out.u8(c.tag);
      else out.u16(c.tag);
      c.codec.write(out, p);
    },
    read(r) {
      const tag = tagBytes === 1 ? r.u8() : r.u16();
      const c = tagBytes === 1 ? table[tag] : byTag.get(tag);
      if (c === undefined) throw new DecodeError(`Unknown tag ${tag} (0x${tag.toString(16).padStart(2 * tagBytes, "0")})`);
      try {
        return c.inj(c.codec.read(r));
      } catch (e) {
        throw withPath(e, c.title);
      }
    },
    schema(ctx) {
      return {
        oneOf: cases.map((c) => {
          const s = c.codec.schema(ctx);
          const out: JsonSchema = { title: c.title };
          for (const [k, v] of Object.entries(s)) if (k !== "title") out[k] = v;
          return out;
        }),
      };
    },
  });
}

function describeValue(v: unknown): string {
  try {
    const s = JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}` : x instanceof Uint8Array ? `<${x.length} bytes>` : x));
    return s === undefined ? String(v) : s.length > 80 ? s.slice(0, 77) + "..." : s;
  } catch {
    return String(v);
  }
}

/**
 * An optional value as a standalone type (data-encoding `option`): binary tag 0x00 (none) or
 * 0x01 then the value; JSON `null` or the value.
 */
export function option<T>(codec: Codec<T>): Codec<T | undefined> {
  const size = codec.size.kind === "variable" ? codec.size : { kind: "dynamic" as const };
  return makeCodec<T | undefined>({
    size,
    desc: {
      t: "union",
      tagSize: "Uint8",
      cases: [
        { tag: 0, title: "None", codec: makeCodec<null>({ size: { kind: "fixed", size: 0 }, desc: { t: "zero" }, toJson: () => null, fromJson: () => null, write() {}, read: () => null, schema: () => ({ type: "null" }) }) },
        { tag: 1, title: "Some", codec },
      ],
    },
    toJson: (v) => (v === undefined ? null : codec.toJson(v)),
    fromJson: (j: Json) => (j === null ? undefined : codec.fromJson(j)),
    write(out, v) {
      if (v === undefined) out.u8(0);
      else {
        out.u8(1);
        codec.write(out, v);
      }
    },
    read(r) {
      const t = r.u8();
      if (t === 0) return undefined;
      if (t === 1) return codec.read(r);
      throw new DecodeError(`Invalid option tag ${t}`);
    },
    schema: (ctx): JsonSchema => ({ oneOf: [{ title: "Some", ...codec.schema(ctx) }, { title: "None", type: "null" }] as Json[] }),
  });
}
