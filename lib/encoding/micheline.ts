/**
 * Micheline expressions (the syntax of Michelson code and data). JSON and value form:
 * `{int: "5"}`, `{string: "a"}`, `{bytes: "0a"}`, `{prim, args?, annots?}` or an array (sequence).
 * Binary (tags 0x00–0x0a, data-encoding's Micheline encoding): int (Zarith Z), string, sequence,
 * primitive with 0/1/2 arguments with or without annotations, generic primitive, bytes.
 * `PACK` prefixes this binary form with 0x05.
 * @module
 */
import { DecodeError, Reader, Writer, type Json, type JsonSchema } from "./codec.ts";
import { jsonPreview, jsonTypeError, makeCodec, valueTypeError, type Codec, type SchemaContext } from "./core.ts";
import { bignumSchema, readZ, writeZ } from "./zarith.ts";
import { fromUtf8, unistringSchema, utf8, variableBytes } from "./bytes.ts";
import { toHex, tryFromHex } from "./hex.ts";
import { HANGZHOU_PRIMITIVES, HANGZHOU_PRIMITIVES_SCHEMA_ORDER } from "./michelson-primitives.ts";
import { dynamicSize } from "./dynamic.ts";

/** A Micheline integer literal (decimal string). */
export interface MichelineInt {
  readonly int: string;
}
/** A Micheline string literal. */
export interface MichelineString {
  readonly string: string;
}
/** A Micheline bytes literal (lowercase hex). */
export interface MichelineBytes {
  readonly bytes: string;
}
/** A Micheline primitive application; `args`/`annots` are absent when empty. */
export interface MichelinePrim {
  readonly prim: string;
  readonly args?: readonly Micheline[];
  readonly annots?: readonly string[];
}
/** A Micheline expression (value and JSON form alike). */
export type Micheline = MichelineInt | MichelineString | MichelineBytes | MichelinePrim | readonly Micheline[];

/** Deepest nesting accepted when decoding (keeps hostile inputs from exhausting the stack). */
export const MAX_MICHELINE_DEPTH = 2000;

const INT = /^-?[0-9]+$/;

function isObject(j: unknown): j is { [k: string]: Json } {
  return typeof j === "object" && j !== null && !Array.isArray(j);
}

/** A Micheline codec over a primitive table (code = index), e.g. Hangzhou's. */
export interface MichelineCodec extends Codec<Micheline> {
  /** Primitive names by binary code. */
  readonly primitives: readonly string[];
}

/** Options of {@link michelineCodec}. */
export interface MichelineOptions {
  /** Protocol prefix of the schema names, e.g. `011-PtHangz2`. */
  readonly protocol: string;
  /** Primitive names by binary code. */
  readonly primitives: readonly string[];
  /** Order of the primitive names in the JSON schema enum. */
  readonly schemaOrder?: readonly string[];
}

/** Builds the Micheline expression codec of a protocol. */
export function michelineCodec(options: MichelineOptions): MichelineCodec {
  const prims = options.primitives;
  const codes = new Map<string, number>(prims.map((p, i) => [p, i]));
  const exprName = `micheline.${options.protocol}.michelson_v1.expression`;
  const primName = `${options.protocol}.michelson.v1.primitives`;

  const primCode = (p: unknown): number => {
    const c = typeof p === "string" ? codes.get(p) : undefined;
    if (c === undefined) throw valueTypeError("a Michelson primitive", p);
    return c;
  };

  function fromJson(j: Json, depth: number): Micheline {
    if (depth > MAX_MICHELINE_DEPTH) throw new DecodeError("Micheline expression nested too deeply");
    if (Array.isArray(j)) {
      const out: Micheline[] = new Array(j.length);
      for (let i = 0; i < j.length; i++) {
        try {
          out[i] = fromJson(j[i]!, depth + 1);
        } catch (e) {
          throw e instanceof DecodeError ? new DecodeError(stripAt(e), [i, ...e.path]) : e;
        }
      }
      return out;
    }
    if (!isObject(j)) throw jsonTypeError("a Micheline expression", j);
    if (Object.keys(j).length === 0) return []; // BSON's empty sequence, as ocplib-json-typed reads it
    if (j["int"] !== undefined) {
      const v = j["int"];
      if (typeof v === "string" && INT.test(v)) return { int: BigInt(v).toString() };
      if (typeof v === "number" && Number.isSafeInteger(v)) return { int: String(v) };
      throw new DecodeError(`Invalid Micheline int ${jsonPreview(v, 200)}`, ["int"]);
    }
    if (j["string"] !== undefined) {
      const v = j["string"];
      if (typeof v !== "string") throw new DecodeError(`Invalid Micheline string ${jsonPreview(v, 200)}`, ["string"]);
      return { string: v };
    }
    if (j["bytes"] !== undefined) {
      const v = j["bytes"];
      const b = typeof v === "string" ? tryFromHex(v) : undefined;
      if (b === undefined) throw new DecodeError(`Invalid Micheline bytes ${jsonPreview(v, 200)}`, ["bytes"]);
      return { bytes: (v as string).toLowerCase() };
    }
    const p = j["prim"];
    if (p === undefined) throw new DecodeError("Expected a Micheline expression (int, string, bytes, prim or sequence)");
    if (typeof p !== "string" || !codes.has(p)) throw new DecodeError(`Unknown primitive ${jsonPreview(p, 200)}`, ["prim"]);
    const out: { prim: string; args?: Micheline[]; annots?: string[] } = { prim: p };
    const a = j["args"];
    if (a !== undefined && a !== null) {
      if (!Array.isArray(a)) throw new DecodeError("Expected an array of arguments", ["args"]);
      if (a.length > 0) {
        const args: Micheline[] = new Array(a.length);
        for (let i = 0; i < a.length; i++) {
          try {
            args[i] = fromJson(a[i]!, depth + 1);
          } catch (e) {
            throw e instanceof DecodeError ? new DecodeError(stripAt(e), ["args", i, ...e.path]) : e;
          }
        }
        out.args = args;
      }
    }
    const n = j["annots"];
    if (n !== undefined && n !== null) {
      if (!Array.isArray(n) || n.some((x) => typeof x !== "string")) throw new DecodeError("Expected an array of strings", ["annots"]);
      if (n.length > 0) out.annots = n as string[];
    }
    return out;
  }

  function toJson(v: Micheline): Json {
    // Values have the JSON shape already; check the cheap invariants and copy.
    if (Array.isArray(v)) return (v as readonly Micheline[]).map(toJson);
    if (!isObject(v)) throw valueTypeError("a Micheline expression", v);
    const o = v as { [k: string]: unknown };
    if (o["prim"] !== undefined) {
      const out: { [k: string]: Json } = { prim: o["prim"] as string };
      const args = o["args"] as Micheline[] | undefined;
      if (args !== undefined && args.length > 0) out["args"] = args.map(toJson);
      const annots = o["annots"] as string[] | undefined;
      if (annots !== undefined && annots.length > 0) out["annots"] = [...annots];
      return out;
    }
    if (typeof o["int"] === "string") return { int: o["int"] };
    if (typeof o["string"] === "string") return { string: o["string"] };
    if (typeof o["bytes"] === "string") return { bytes: o["bytes"] };
    throw valueTypeError("a Micheline expression", v);
  }

  function writeSized(out: Writer, f: () => void): void {
    const at = out.reserve(4);
    const start = out.length;
    f();
    out.patchU32(at, out.length - start);
  }

  function writeAnnots(out: Writer, annots: readonly string[]): void {
    const b = utf8(annots.join(" "));
    out.u32(b.length);
    out.raw(b);
  }

  function write(out: Writer, v: Micheline): void {
    if (Array.isArray(v)) {
      out.u8(0x02);
      writeSized(out, () => {
        for (const e of v as readonly Micheline[]) write(out, e);
      });
      return;
    }
    if (!isObject(v)) throw valueTypeError("a Micheline expression", v);
    const o = v as { [k: string]: unknown };
    if (o["prim"] !== undefined) {
      const code = primCode(o["prim"]);
      const args = (o["args"] as readonly Micheline[] | undefined) ?? [];
      const annots = (o["annots"] as readonly string[] | undefined) ?? [];
      const hasAnnots = annots.length > 0;
      if (args.length <= 2) {
        out.u8(0x03 + 2 * args.length + (hasAnnots ? 1 : 0));
        out.u8(code);
        for (const a of args) write(out, a);
        if (hasAnnots) writeAnnots(out, annots);
      } else {
        out.u8(0x09);
        out.u8(code);
        writeSized(out, () => {
          for (const a of args) write(out, a);
        });
        writeAnnots(out, annots);
      }
      return;
    }
    if (typeof o["int"] === "string") {
      if (!INT.test(o["int"])) throw new TypeError(`Invalid Micheline int ${JSON.stringify(o["int"])}`);
      out.u8(0x00);
      writeZ(out, BigInt(o["int"]));
      return;
    }
    if (typeof o["string"] === "string") {
      out.u8(0x01);
      const b = utf8(o["string"]);
      out.u32(b.length);
      out.raw(b);
      return;
    }
    if (typeof o["bytes"] === "string") {
      const b = tryFromHex(o["bytes"]);
      if (b === undefined) throw new TypeError(`Invalid Micheline bytes ${JSON.stringify(o["bytes"])}`);
      out.u8(0x0a);
      out.u32(b.length);
      out.raw(b);
      return;
    }
    throw valueTypeError("a Micheline expression", v);
  }

  function readLength(r: Reader): number {
    const n = r.u32();
    if (n > 0x3fffffff) throw new DecodeError(`Length prefix ${n} exceeds 2^30 - 1`);
    if (r.pos + n > r.end) throw new DecodeError(`Not enough data: length prefix says ${n} bytes, ${r.remaining} left`);
    return n;
  }

  function readAnnots(r: Reader): string[] | undefined {
    const n = readLength(r);
    if (n === 0) return undefined;
    const s = fromUtf8(r.take(n));
    return s.split(" ");
  }

  function readPrimName(r: Reader): string {
    const c = r.u8();
    const p = prims[c];
    if (p === undefined) throw new DecodeError(`Unknown primitive code ${c} (0x${c.toString(16).padStart(2, "0")})`);
    return p;
  }

  function readSeq(r: Reader, depth: number): Micheline[] {
    const n = readLength(r);
    const end = r.pos + n;
    const saved = r.end;
    r.end = end;
    const out: Micheline[] = [];
    try {
      while (r.pos < end) out.push(read(r, depth + 1));
    } finally {
      r.end = saved;
    }
    return out;
  }

  function prim(name: string, args: Micheline[] | undefined, annots: string[] | undefined): MichelinePrim {
    const o: { prim: string; args?: Micheline[]; annots?: string[] } = { prim: name };
    if (args !== undefined && args.length > 0) o.args = args;
    if (annots !== undefined) o.annots = annots;
    return o;
  }

  function read(r: Reader, depth: number): Micheline {
    if (depth > MAX_MICHELINE_DEPTH) throw new DecodeError("Micheline expression nested too deeply");
    const tag = r.u8();
    switch (tag) {
      case 0x00:
        return { int: readZ(r).toString() };
      case 0x01:
        return { string: fromUtf8(r.take(readLength(r))) };
      case 0x02:
        return readSeq(r, depth);
      case 0x03:
        return prim(readPrimName(r), undefined, undefined);
      case 0x04: {
        const p = readPrimName(r);
        return prim(p, undefined, readAnnots(r));
      }
      case 0x05:
      case 0x06: {
        const p = readPrimName(r);
        const a = read(r, depth + 1);
        return prim(p, [a], tag === 0x06 ? readAnnots(r) : undefined);
      }
      case 0x07:
      case 0x08: {
        const p = readPrimName(r);
        const a = read(r, depth + 1);
        const b = read(r, depth + 1);
        return prim(p, [a, b], tag === 0x08 ? readAnnots(r) : undefined);
      }
      case 0x09: {
        const p = readPrimName(r);
        const args = readSeq(r, depth);
        return prim(p, args, readAnnots(r));
      }
      case 0x0a:
        return { bytes: toHex(r.take(readLength(r))) };
      default:
        throw new DecodeError(`Unknown Micheline tag ${tag} (0x${tag.toString(16).padStart(2, "0")})`);
    }
  }

  function schema(ctx: SchemaContext): JsonSchema {
    const ref = { $ref: `#/definitions/${exprName}` };
    if (!ctx.defs.has(primName)) {
      ctx.defs.set(primName, { type: "string", enum: [...(options.schemaOrder ?? prims)] });
    }
    const body: JsonSchema = {
      oneOf: [
        { title: "Int", type: "object", properties: { int: bignumSchema(ctx) }, required: ["int"], additionalProperties: false },
        { title: "String", type: "object", properties: { string: unistringSchema(ctx) }, required: ["string"], additionalProperties: false },
        {
          title: "Bytes",
          type: "object",
          properties: { bytes: { type: "string", pattern: "^([a-zA-Z0-9][a-zA-Z0-9])*$" } },
          required: ["bytes"],
          additionalProperties: false,
        },
        { title: "Sequence", type: "array", items: ref },
        {
          title: "Prim__generic",
          description: "Generic primitive (any number of args with or without annotations)",
          type: "object",
          properties: {
            prim: { $ref: `#/definitions/${primName}` },
            args: { type: "array", items: ref },
            annots: { type: "array", items: { type: "string" } },
          },
          required: ["prim"],
          additionalProperties: false,
        },
      ],
    };
    ctx.defs.set(exprName, body);
    return body;
  }

  const codec = makeCodec<Micheline>({
    title: exprName,
    size: { kind: "dynamic" },
    desc: { t: "leaf", layout: { name: exprName, kind: "Ref" } },
    toJson,
    fromJson: (j) => fromJson(j, 0),
    write(out, v) {
      try {
        write(out, v);
      } catch (e) {
        if (e instanceof RangeError && /call stack/i.test(e.message)) throw new RangeError("Micheline expression nested too deeply");
        throw e;
      }
    },
    read: (r) => read(r, 0),
    schema,
  });
  return Object.assign(codec, { primitives: prims });
}

function stripAt(e: DecodeError): string {
  const suffix = ` (at ${e.path.join(".")})`;
  return e.path.length > 0 && e.message.endsWith(suffix) ? e.message.slice(0, -suffix.length) : e.message;
}

/** Hangzhou's Micheline expression codec (`micheline.011-PtHangz2.michelson_v1.expression`). */
export const hangzhouMicheline: MichelineCodec = michelineCodec({
  protocol: "011-PtHangz2",
  primitives: HANGZHOU_PRIMITIVES,
  schemaOrder: HANGZHOU_PRIMITIVES_SCHEMA_ORDER,
});

/**
 * A Micheline expression in a length-prefixed binary envelope, JSON as the expression (Octez's
 * `lazy_expr`, used for script code, storage and transaction parameters). Its binary schema shows
 * bytes, as Octez prints it.
 */
export function lazyExpr(expr: Codec<Micheline>): Codec<Micheline> {
  const inner = dynamicSize(expr);
  return makeCodec<Micheline>({
    size: { kind: "dynamic" },
    desc: { t: "dyn", codec: variableBytes, lengthSize: "Uint30" },
    toJson: expr.toJson,
    fromJson: expr.fromJson,
    write: inner.write,
    read: inner.read,
    schema: expr.schema,
  });
}

/** Binary form of an expression (no 0x05 prefix). */
export function encodeMicheline(v: Micheline, codec: Codec<Micheline> = hangzhouMicheline): Uint8Array {
  const w = new Writer();
  codec.write(w, v);
  return w.bytes();
}

/** Expression of a complete binary form (no 0x05 prefix); trailing bytes are an error. */
export function decodeMicheline(b: Uint8Array, codec: Codec<Micheline> = hangzhouMicheline): Micheline {
  const r = new Reader(b);
  const v = codec.read(r);
  if (r.remaining !== 0) throw new DecodeError(`${r.remaining} unexpected trailing bytes`);
  return v;
}
