/**
 * Binary layout descriptions in the shape Octez's `/describe` prints as `binary_schema`
 * (data-encoding's `Binary_schema`): a top-level field list plus the named layouts it refers to.
 * Follows data-encoding's rules: objects and tuples are flattened into fields, unions, nested
 * objects and enums become references (`X_<n>` when they have no name of their own), Zarith
 * numbers refer to `N.t`/`Z.t`, structurally equal references are merged.
 * @module
 */
import type { BinarySchema, BinarySize, Json } from "./codec.ts";
import { kindJson, type Codec, type Desc, type FieldSpec } from "./core.ts";

const N_DESCRIPTION =
  "A variable-length sequence of bytes encoding a Zarith natural number. Each byte has a running unary size bit: the most significant bit of each byte indicates whether this is the last byte in the sequence (0) or whether the sequence continues (1). Size bits ignored, the data is the binary representation of the number in little-endian order.";
const Z_DESCRIPTION =
  "A variable-length sequence of bytes encoding a Zarith integer. Each byte has a running unary size bit: the most significant bit of each byte indicates whether this is the last byte in the sequence (0) or whether the sequence continues (1). The second most significant bit of the first byte is reserved for the sign (0 for positive, 1 for negative). Size and sign bits ignored, the data is the binary representation of the absolute value of the number in little-endian order.";

type Field = { [k: string]: Json };
type Toplevel = { [k: string]: Json };

class Ctx {
  refs: [string, Toplevel][] = [];
  counter = 0;
  recursive: string[] = [];
  descriptions = new Map<string, string>();
  fresh(): string {
    return `X_${this.counter++}`;
  }
  add(name: string, enc: Toplevel): void {
    this.refs.push([name, enc]);
  }
}

function named(name: string, size: BinarySize, layout: Json): Field {
  return { name, layout, data_kind: kindJson(size), kind: "named" };
}

function anon(size: BinarySize, layout: Json): Field {
  return { layout, kind: "anon", data_kind: kindJson(size) };
}

function isZero(layout: Json): boolean {
  return typeof layout === "object" && layout !== null && !Array.isArray(layout) && layout["kind"] === "Zero_width";
}

/** Unwraps conversions and delayed codecs. */
function unwrap(c: Codec<any>): Codec<any> {
  let x = c;
  while (x.desc.t === "wrap") x = x.desc.codec();
  return x;
}

function enumSize(n: number): string {
  return n <= 256 ? "Uint8" : "Uint16";
}

function fieldDescr(ctx: Ctx, f: FieldSpec): Field[] {
  if (f.kind === "varopt") return [named(f.name, { kind: "variable" }, layout(ctx, f.codec, undefined))];
  if (f.kind === "opt") {
    return [{ kind: "option_indicator", name: f.name }, named(f.name, f.codec.size, layout(ctx, f.codec, undefined))];
  }
  // Dynamic-size fields print their length prefix first (named after an enclosing def, if any).
  let c = f.codec;
  let refName: string | undefined;
  for (;;) {
    const d = c.desc;
    if (d.t === "wrap") c = d.codec();
    else if (d.t === "def") {
      refName = d.name;
      c = d.codec;
    } else break;
  }
  if (c.desc.t === "dyn") {
    const inner = c.desc.codec;
    const l = layout(ctx, inner, refName);
    if (isZero(l)) return [];
    const dyn: Field = refName === undefined
      ? { kind: "dyn", num_fields: 1, size: c.desc.lengthSize }
      : { kind: "dyn", name: refName, num_fields: 1, size: c.desc.lengthSize };
    return [dyn, named(f.name, inner.size, l)];
  }
  const l = layout(ctx, c, refName);
  if (isZero(l)) return [];
  return [named(f.name, c.size, l)];
}

function fields(ctx: Ctx, c: Codec<any>, refName: string | undefined): Field[] {
  const d: Desc = c.desc;
  switch (d.t) {
    case "obj":
      return d.fields.flatMap((f) => fieldDescr(ctx, f));
    case "tup":
      return d.elems.flatMap((e) => {
        const l = layout(ctx, e, undefined);
        return isZero(l) ? [] : [anon(e.size, l)];
      });
    case "merge":
      return d.parts.flatMap((p) => fields(ctx, p, undefined));
    case "dyn": {
      const inner = fields(ctx, d.codec, undefined);
      return [{ kind: "dyn", num_fields: inner.length, size: d.lengthSize }, ...inner];
    }
    case "def": {
      const inner = unwrap(d.codec);
      const t = inner.desc.t;
      if (t === "obj" || t === "tup" || t === "dyn" || t === "padded") return fields(ctx, inner, d.name);
      const l = layout(ctx, inner, d.name);
      return isZero(l) ? [] : [named(d.name, inner.size, l)];
    }
    case "wrap":
      return fields(ctx, d.codec(), refName);
    case "padded":
      return [...fields(ctx, d.codec, refName), named("padding", { kind: "fixed", size: d.padding }, { kind: "Padding" })];
    case "list":
      return [anon({ kind: "variable" }, { layout: layout(ctx, d.elem, undefined), kind: "Seq" })];
    case "union":
    case "enum":
    case "mu":
    default: {
      const l = layout(ctx, c, refName);
      return isZero(l) ? [] : [anon(c.size, l)];
    }
  }
}

function layout(ctx: Ctx, c: Codec<any>, refName: string | undefined): Json {
  const d: Desc = c.desc;
  switch (d.t) {
    case "leaf":
      return d.layout;
    case "zero":
      return { kind: "Zero_width" };
    case "n":
      ctx.descriptions.set("N.t", N_DESCRIPTION);
      ctx.add("N.t", { fields: [named("N.t", { kind: "dynamic" }, { kind: "Bytes" })] });
      return { name: "N.t", kind: "Ref" };
    case "z":
      ctx.descriptions.set("Z.t", Z_DESCRIPTION);
      ctx.add("Z.t", { fields: [named("Z.t", { kind: "dynamic" }, { kind: "Bytes" })] });
      return { name: "Z.t", kind: "Ref" };
    case "obj": {
      const only = d.fields.length === 1 ? d.fields[0]! : undefined;
      if (only !== undefined && (only.kind === "req" || only.kind === "dft")) return layout(ctx, only.codec, refName);
      return objRef(ctx, c, refName);
    }
    case "tup":
      if (d.elems.length === 1) return layout(ctx, d.elems[0]!, refName);
      return objRef(ctx, c, refName);
    case "dyn":
    case "padded":
    case "merge":
      return objRef(ctx, c, refName);
    case "list":
      return { layout: layout(ctx, d.elem, undefined), kind: "Seq" };
    case "def":
      return layout(ctx, d.codec, d.name);
    case "wrap":
      return layout(ctx, d.codec(), refName);
    case "enum": {
      const name = refName ?? ctx.fresh();
      const size = enumSize(d.cases.length);
      ctx.add(name, { size, cases: d.cases.map((s, i) => [i, s]) });
      return { size, reference: name, kind: "Enum" };
    }
    case "union":
      return { name: union(ctx, c, refName), kind: "Ref" };
    case "mu": {
      if (ctx.recursive.includes(d.name)) return { name: d.name, kind: "Ref" };
      ctx.recursive.push(d.name);
      try {
        const body = d.codec();
        const l = layout(ctx, body, d.name);
        if (typeof l === "object" && l !== null && !Array.isArray(l) && l["kind"] === "Ref") return l;
        ctx.add(d.name, { fields: [anon(body.size, l)] });
        return { name: d.name, kind: "Ref" };
      } finally {
        ctx.recursive.pop();
      }
    }
  }
}

function objRef(ctx: Ctx, c: Codec<any>, refName: string | undefined): Json {
  const name = refName ?? ctx.fresh();
  const fs = fields(ctx, c, undefined);
  if (fs.length === 0) return { kind: "Zero_width" };
  ctx.add(name, { fields: fs });
  return { name, kind: "Ref" };
}

function union(ctx: Ctx, c: Codec<any>, refName: string | undefined): string {
  const d = c.desc;
  if (d.t !== "union") throw new Error("unreachable");
  const sorted = [...d.cases].sort((a, b) => a.tag - b.tag);
  const tagBytes = d.tagSize === "Uint8" ? 1 : 2;
  const tagField = named("Tag", { kind: "fixed", size: tagBytes }, { size: d.tagSize, kind: "Int" });
  const out: Json[] = new Array(sorted.length);
  // data-encoding folds from the right: later cases are described first.
  for (let i = sorted.length - 1; i >= 0; i--) {
    const k = sorted[i]!;
    let fs = fields(ctx, k.codec, undefined);
    if (fs.length === 0) fs = [anon({ kind: "fixed", size: 0 }, { kind: "Zero_width" })];
    out[i] = { tag: k.tag, fields: [tagField, ...fs], name: k.title };
  }
  const name = refName ?? ctx.fresh();
  ctx.add(name, { tag_size: d.tagSize, kind: kindJson(c.size), cases: out });
  return name;
}

function renameRefs(x: Json, map: Map<string, string>): Json {
  if (Array.isArray(x)) return x.map((e) => renameRefs(e, map));
  if (x !== null && typeof x === "object") {
    const o: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(x)) o[k] = v;
    if ((o["kind"] === "Ref" && typeof o["name"] === "string") && map.has(o["name"])) o["name"] = map.get(o["name"])!;
    if (o["kind"] === "Enum" && typeof o["reference"] === "string" && map.has(o["reference"])) {
      o["reference"] = map.get(o["reference"])!;
    }
    for (const k of Object.keys(o)) if (k !== "name" && k !== "reference") o[k] = renameRefs(o[k]!, map);
    return o;
  }
  return x;
}

function resolve(map: Map<string, string>, name: string): string {
  let n = name;
  const seen = new Set<string>();
  while (map.has(n) && !seen.has(n)) {
    seen.add(n);
    n = map.get(n)!;
  }
  return n;
}

/** The binary layout description of a codec (Octez `/describe`'s `binary_schema`). */
export function describeBinary(codec: Codec<unknown>): BinarySchema {
  const ctx = new Ctx();
  let top = fields(ctx, codec, undefined);
  if (top.length === 0) top = [anon({ kind: "fixed", size: 0 }, { kind: "Zero_width" })];
  const alias = new Map<string, string>();
  // A reference that only points at another one is dropped; its name takes over.
  let refs = ctx.refs.filter(([name, enc]) => {
    const fs = enc["fields"];
    if (Array.isArray(fs) && fs.length === 1) {
      const f = fs[0] as Field;
      const l = f["layout"] as Field | undefined;
      if (f["kind"] === "anon" && l !== undefined && l["kind"] === "Ref" && typeof l["name"] === "string") {
        if (l["name"] !== name) alias.set(l["name"], name);
        return false;
      }
    }
    return true;
  });
  // Merge structurally equal references, keeping the last occurrence (as Octez v12 prints them).
  for (;;) {
    const map = new Map<string, string>();
    for (const [k, v] of alias) map.set(k, resolve(alias, v));
    refs = refs.map(([n, e]) => [resolve(map, n), renameRefs(e, map) as Toplevel]);
    const seen = new Map<string, string>();
    const kept: [string, Toplevel][] = [];
    let merged = false;
    for (let i = refs.length - 1; i >= 0; i--) {
      const [name, enc] = refs[i]!;
      const key = JSON.stringify(enc);
      const prev = seen.get(key);
      if (prev === undefined) {
        seen.set(key, name);
        kept.push([name, enc]);
      } else if (prev !== name) {
        alias.set(name, prev);
        merged = true;
      }
    }
    kept.reverse();
    refs = kept;
    if (!merged) break;
  }
  const finalMap = new Map<string, string>();
  for (const [k, v] of alias) finalMap.set(k, resolve(alias, v));
  top = renameRefs(top, finalMap) as Field[];
  return {
    toplevel: { fields: top },
    fields: refs.map(([name, enc]) => {
      const description = ctx.descriptions.get(name);
      const d: { [k: string]: Json } = { title: name };
      if (description !== undefined) d["description"] = description;
      return { description: d, encoding: enc } as Json;
    }),
  };
}
