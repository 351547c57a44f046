/**
 * Annotations of protocol 011 (Octez `script_ir_annot`): which annotations a node may carry and
 * how they are read. An annotation is `:type`, `@var` or `%field`; a lone sigil (`:`, `@`, `%`) is
 * a wildcard (no name). Names start with a letter, digit or `_` and use `[a-zA-Z0-9_.%@]`, at most
 * 255 characters; annotations of one kind must be grouped. Errors: `unexpected_annotation`,
 * `ungrouped_annotations`. The annotations of instructions (`@var` defaults, constructor and
 * accessor forms) are read by `../script/annot.ts` on top of {@link readAnnots}.
 * @module
 */
import type { Micheline, MichelinePrim } from "../../encoding/micheline.ts";
import type { TezosError } from "../../errors/mod.ts";
import { unexpectedAnnotation, ungroupedAnnotations } from "./errors.ts";

/** Longest annotation accepted (Micheline parser limit). */
export const MAX_ANNOT_LENGTH = 255;

/** Annotations of a node, split by kind, in order (`undefined` = wildcard). */
export interface ClassifiedAnnots {
  readonly vars: readonly (string | undefined)[];
  readonly types: readonly (string | undefined)[];
  readonly fields: readonly (string | undefined)[];
}

/** Options of {@link parseAnnots}: the special forms `@%`, `@%%` (vars) and `%@` (fields). */
export interface ParseAnnotsOptions {
  readonly allowSpecialVar?: boolean;
  readonly allowSpecialField?: boolean;
}

function unexpected(loc: number): TezosError {
  return unexpectedAnnotation.error({ location: loc });
}

/** Whether `c` may appear in an annotation (after its first character). */
export function isAllowedAnnotChar(c: string): boolean {
  return /^[a-zA-Z0-9_.%@]$/.test(c);
}

type Parsed = { kind: "var" | "type" | "field"; name: string | undefined };

/** Reads annotations in order; throws `unexpected_annotation` at `loc` on a malformed one. */
export function parseAnnots(loc: number, annots: readonly string[], opts: ParseAnnotsOptions = {}): Parsed[] {
  const out: Parsed[] = [];
  for (const s of annots) {
    if (s.length === 0) throw unexpected(loc);
    const sigil = s[0];
    const kind = sigil === ":" ? "type" : sigil === "@" ? "var" : sigil === "%" ? "field" : undefined;
    if (kind === undefined) throw unexpected(loc);
    const specials = kind === "var" && opts.allowSpecialVar ? "%" : kind === "field" && opts.allowSpecialField ? "@" : "";
    if (s.length > MAX_ANNOT_LENGTH) throw unexpected(loc);
    if (s.length === 1) {
      out.push({ kind, name: undefined });
      continue;
    }
    const c = s[1]!;
    if (/^[a-zA-Z0-9_]$/.test(c)) {
      for (let i = 2; i < s.length; i++) if (!isAllowedAnnotChar(s[i]!)) throw unexpected(loc);
      out.push({ kind, name: s.slice(1) });
    } else if (c === "@" && s.length === 2 && specials.includes("@")) {
      out.push({ kind, name: "@" });
    } else if (c === "%" && specials.includes("%")) {
      if (s.length === 2) out.push({ kind, name: "%" });
      else if (s.length === 3 && s[2] === "%") out.push({ kind, name: "%%" });
      else throw unexpected(loc);
    } else throw unexpected(loc);
  }
  return out;
}

/** Splits parsed annotations by kind; throws `ungrouped_annotations` when one kind is spread apart. */
export function classifyAnnots(loc: number, parsed: readonly Parsed[]): ClassifiedAnnots {
  const vars: (string | undefined)[] = [], types: (string | undefined)[] = [], fields: (string | undefined)[] = [];
  let current: string | undefined;
  for (const a of parsed) {
    const bucket = a.kind === "var" ? vars : a.kind === "type" ? types : fields;
    if (current !== a.kind && bucket.length > 0) throw ungroupedAnnotations.error({ location: loc });
    current = a.kind;
    bucket.push(a.name);
  }
  return { vars, types, fields };
}

function noneOf(loc: number, l: readonly unknown[]): void {
  if (l.length > 0) throw unexpected(loc);
}
function atMostOne(loc: number, l: readonly (string | undefined)[]): string | undefined {
  if (l.length > 1) throw unexpected(loc);
  return l[0];
}
function atMostTwo(loc: number, l: readonly (string | undefined)[]): [string | undefined, string | undefined] {
  if (l.length > 2) throw unexpected(loc);
  return [l[0], l[1]];
}

/** Parsed and classified annotations of a node. */
export function readAnnots(loc: number, annots: readonly string[], opts: ParseAnnotsOptions = {}): ClassifiedAnnots {
  return classifyAnnots(loc, parseAnnots(loc, annots, opts));
}

/** At most one type annotation and nothing else (types, `parse_type_annot`). */
export function parseTypeAnnot(loc: number, annots: readonly string[]): string | undefined {
  const c = readAnnots(loc, annots);
  noneOf(loc, c.vars);
  noneOf(loc, c.fields);
  return atMostOne(loc, c.types);
}

/** At most one type and one field annotation (`parse_type_field_annot`). */
export function parseTypeFieldAnnot(loc: number, annots: readonly string[]): { type?: string; field?: string } {
  const c = readAnnots(loc, annots);
  noneOf(loc, c.vars);
  return withDefined({ type: atMostOne(loc, c.types), field: atMostOne(loc, c.fields) });
}

/** At most one type and two field annotations (`parse_composed_type_annot`, legacy forms). */
export function parseComposedTypeAnnot(loc: number, annots: readonly string[]): { type?: string; field1?: string; field2?: string } {
  const c = readAnnots(loc, annots);
  noneOf(loc, c.vars);
  const t = atMostOne(loc, c.types);
  const [f1, f2] = atMostTwo(loc, c.fields);
  return withDefined({ type: t, field1: f1, field2: f2 });
}

/** At most one field annotation and nothing else (`parse_field_annot`). */
export function parseFieldAnnot(loc: number, annots: readonly string[]): string | undefined {
  const c = readAnnots(loc, annots);
  noneOf(loc, c.vars);
  noneOf(loc, c.types);
  return atMostOne(loc, c.fields);
}





/** Throws `unexpected_annotation` at `loc` when `annots` is not empty. */
export function errorUnexpectedAnnot(loc: number, annots: readonly string[] | undefined): void {
  if (annots !== undefined && annots.length > 0) throw unexpected(loc);
}

/**
 * The first `%field` annotation of a primitive node taken out (`extract_field_annot`): the node
 * without it and the field name (checked with {@link parseFieldAnnot}). Other nodes unchanged.
 */
export function extractFieldAnnot(node: Micheline, loc: number): { node: Micheline; field: string | undefined } {
  if (Array.isArray(node) || !("prim" in (node as object))) return { node, field: undefined };
  const p = node as MichelinePrim;
  const annots = p.annots ?? [];
  const i = annots.findIndex((s) => s.length > 0 && s[0] === "%");
  if (i < 0) return { node, field: undefined };
  const field = parseFieldAnnot(loc, [annots[i]!]);
  const rest = [...annots.slice(0, i), ...annots.slice(i + 1)];
  const out: { prim: string; args?: readonly Micheline[]; annots?: readonly string[] } = { prim: p.prim };
  if (p.args !== undefined) out.args = p.args;
  if (rest.length > 0) out.annots = rest;
  return { node: out, field };
}

/** Merges two type annotations (`merge_type_annot`): equal names, or either absent; `legacy` keeps the first. */
export function mergeTypeAnnot(legacy: boolean, a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined || b === undefined) return undefined;
  if (legacy || a === b) return a;
  throw inconsistentAnnots(":" + a, ":" + b);
}

/** Merges two field annotations (`merge_field_annot`). */
export function mergeFieldAnnot(legacy: boolean, a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined || b === undefined) return undefined;
  if (legacy || a === b) return a;
  throw inconsistentAnnots("%" + a, "%" + b);
}

/** Merges two variable annotations (`merge_var_annot`): kept only when equal. */
export function mergeVarAnnot(a: string | undefined, b: string | undefined): string | undefined {
  return a !== undefined && a === b ? a : undefined;
}

import { inconsistentAnnotations } from "./errors.ts";
function inconsistentAnnots(a1: string, a2: string): TezosError {
  return inconsistentAnnotations.error({ annot1: a1, annot2: a2 });
}

function withDefined<T extends object>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
