/**
 * Annotations on instructions (Octez `Script_ir_annot`): parsing `@var`, `:type`, `%field`
 * annotations of an instruction, the defaults instructions give to their results, and how
 * annotations merge at branch joins. `undefined` = no annotation.
 * @module
 */
import { TezosError } from "../../errors/mod.ts";
import { inconsistentAnnotations, inconsistentFieldAnnotations, ungroupedAnnotations, unexpectedAnnotation } from "./errors.ts";

/** An optional annotation (without its sigil). */
export type Annot = string | undefined;

const MAX_ANNOT_LENGTH = 255;

function isAllowedChar(c: string): boolean {
  return /^[a-zA-Z_.%@0-9]$/.test(c);
}

/** Whether every character of `s` may appear in an annotation or a view name. */
export function isAllowedString(s: string): boolean {
  for (const c of s) if (!isAllowedChar(c)) return false;
  return true;
}

type Kind = "var" | "type" | "field";
interface Parsed {
  kind: Kind;
  value: Annot;
}

function fail(loc: number): TezosError {
  return unexpectedAnnotation.error({ location: loc });
}

function parseAnnots(loc: number, annots: readonly string[], allowSpecialVar = false, allowSpecialField = false): Parsed[] {
  const out: Parsed[] = [];
  for (const s of annots) {
    if (s.length === 0) throw fail(loc);
    const c0 = s[0];
    let kind: Kind;
    let specials: string[];
    if (c0 === ":") (kind = "type"), (specials = []);
    else if (c0 === "@") (kind = "var"), (specials = allowSpecialVar ? ["%"] : []);
    else if (c0 === "%") (kind = "field"), (specials = allowSpecialField ? ["@"] : []);
    else throw fail(loc);
    if (s.length > MAX_ANNOT_LENGTH) throw fail(loc);
    if (s.length === 1) {
      out.push({ kind, value: undefined });
      continue;
    }
    const c1 = s[1];
    if (/[a-zA-Z_0-9]/.test(c1)) {
      for (let i = 2; i < s.length; i++) if (!isAllowedChar(s[i])) throw fail(loc);
      out.push({ kind, value: s.slice(1) });
    } else if (c1 === "@" && s.length === 2 && specials.includes("@")) out.push({ kind, value: "@" });
    else if (c1 === "%" && specials.includes("%")) {
      if (s.length === 2) out.push({ kind, value: "%" });
      else if (s.length === 3 && s[2] === "%") out.push({ kind, value: "%%" });
      else throw fail(loc);
    } else throw fail(loc);
  }
  return out;
}

interface Classified {
  vars: Annot[];
  types: Annot[];
  fields: Annot[];
}

function classify(loc: number, l: Parsed[]): Classified {
  const r: Classified = { vars: [], types: [], fields: [] };
  let cur: Kind | undefined;
  for (const a of l) {
    const bucket = a.kind === "var" ? r.vars : a.kind === "type" ? r.types : r.fields;
    if (cur !== a.kind && bucket.length > 0) throw ungroupedAnnotations.error({ location: loc });
    bucket.push(a.value);
    cur = a.kind;
  }
  return r;
}

function none(loc: number, l: Annot[]): void {
  if (l.length > 0) throw fail(loc);
}
function one(loc: number, l: Annot[]): Annot {
  if (l.length > 1) throw fail(loc);
  return l[0];
}
function two(loc: number, l: Annot[]): [Annot, Annot] {
  if (l.length > 2) throw fail(loc);
  return [l[0], l[1]];
}

/** Fails with `unexpected_annotation` when `annots` is not empty. */
export function errorUnexpectedAnnot(loc: number, annots: readonly string[] | undefined): void {
  if (annots !== undefined && annots.length > 0) throw fail(loc);
}

/** `parse_var_annot`: at most one `@var`, nothing else; `def` when none. */
export function parseVarAnnot(loc: number, annots: readonly string[] | undefined, def?: Annot): Annot {
  const c = classify(loc, parseAnnots(loc, annots ?? []));
  none(loc, c.types);
  none(loc, c.fields);
  const v = one(loc, c.vars);
  return v !== undefined ? v : def;
}

/** `parse_var_type_annot`: at most one `@var` and one `:type`. */
export function parseVarTypeAnnot(loc: number, annots: readonly string[] | undefined): [Annot, Annot] {
  const c = classify(loc, parseAnnots(loc, annots ?? []));
  none(loc, c.fields);
  return [one(loc, c.vars), one(loc, c.types)];
}

/** `parse_two_var_annot`. */
export function parseTwoVarAnnot(loc: number, annots: readonly string[] | undefined): [Annot, Annot] {
  const c = classify(loc, parseAnnots(loc, annots ?? []));
  none(loc, c.types);
  none(loc, c.fields);
  return two(loc, c.vars);
}

/** `parse_entrypoint_annot`: `[var, field]`. */
export function parseEntrypointAnnot(loc: number, annots: readonly string[] | undefined, def?: Annot): [Annot, Annot] {
  const c = classify(loc, parseAnnots(loc, annots ?? []));
  none(loc, c.types);
  const f = one(loc, c.fields);
  const v = one(loc, c.vars);
  return [v !== undefined ? v : def, f];
}

/** `parse_field_annot`: at most one `%field`. */
export function parseFieldAnnot(loc: number, annots: readonly string[]): Annot {
  const c = classify(loc, parseAnnots(loc, annots));
  none(loc, c.vars);
  none(loc, c.types);
  return one(loc, c.fields);
}

/** `gen_access_annot value field ~default`. */
export function genAccessAnnot(value: Annot, field: Annot, def?: Annot): Annot {
  if (value === undefined) return field === undefined || field === "" ? undefined : field;
  if (field === undefined || field === "") return def === undefined ? undefined : `${value}.${def}`;
  return `${value}.${field}`;
}

function splitLastDot(special: Annot): [Annot, Annot] {
  if (special === undefined) return [undefined, undefined];
  const i = special.lastIndexOf(".");
  if (i < 0) return [undefined, special];
  const s2 = special.slice(i + 1);
  return [special.slice(0, i), s2 === "car" || s2 === "cdr" ? undefined : s2];
}

function commonPrefix(v1: Annot, v2: Annot): Annot {
  if (v1 !== undefined && v2 !== undefined) return v1 === v2 ? v1 : undefined;
  return v1 ?? v2;
}

/**
 * `parse_constr_annot`: `[var, type, field1, field2]`; `%@` takes the field name from the
 * special var (`ifSpecialFirst`/`ifSpecialSecond`, given when the instruction allows it).
 */
export function parseConstrAnnot(
  loc: number,
  annots: readonly string[] | undefined,
  ifSpecialFirst?: { readonly v: Annot },
  ifSpecialSecond?: { readonly v: Annot },
): [Annot, Annot, Annot, Annot] {
  const c = classify(loc, parseAnnots(loc, annots ?? [], false, true));
  const v = one(loc, c.vars);
  const t = one(loc, c.types);
  let [f1, f2] = two(loc, c.fields);
  let v1: Annot = v;
  let v2: Annot = v;
  if (f1 === "@") {
    if (ifSpecialFirst === undefined) throw fail(loc);
    [v1, f1] = splitLastDot(ifSpecialFirst.v);
  }
  if (f2 === "@") {
    if (ifSpecialSecond === undefined) throw fail(loc);
    [v2, f2] = splitLastDot(ifSpecialSecond.v);
  }
  return [v === undefined ? commonPrefix(v1, v2) : v, t, f1, f2];
}

function varFromSpecial(fieldName: Annot, def: Annot, valueAnnot: Annot, v: Annot, given: boolean): Annot {
  if (!given) return valueAnnot;
  if (v === "%") return fieldName;
  if (v === "%%") return def;
  return v;
}

/** `parse_destr_annot` (CAR/CDR): `[var, field]`. */
export function parseDestrAnnot(
  loc: number,
  annots: readonly string[] | undefined,
  defaultAccessor: string,
  fieldName: Annot,
  pairAnnot: Annot,
  valueAnnot: Annot,
): [Annot, Annot] {
  const c = classify(loc, parseAnnots(loc, annots ?? [], true));
  none(loc, c.types);
  if (c.vars.length > 1) throw fail(loc);
  const f = one(loc, c.fields);
  const def = genAccessAnnot(pairAnnot, fieldName, defaultAccessor);
  const v = varFromSpecial(fieldName, def, valueAnnot, c.vars[0], c.vars.length === 1 && c.vars[0] !== undefined);
  return [v, f];
}

/** `parse_unpair_annot`: `[varCar, varCdr, fieldCar, fieldCdr]`. */
export function parseUnpairAnnot(
  loc: number,
  annots: readonly string[] | undefined,
  fieldCar: Annot,
  fieldCdr: Annot,
  pairAnnot: Annot,
  valueCar: Annot,
  valueCdr: Annot,
): [Annot, Annot, Annot, Annot] {
  const c = classify(loc, parseAnnots(loc, annots ?? [], true));
  none(loc, c.types);
  const [vcar, vcdr] = two(loc, c.vars);
  const [fcar, fcdr] = two(loc, c.fields);
  const dcar = genAccessAnnot(pairAnnot, fieldCar, "car");
  const dcdr = genAccessAnnot(pairAnnot, fieldCdr, "cdr");
  return [
    varFromSpecial(fieldCar, dcar, valueCar, vcar, vcar !== undefined),
    varFromSpecial(fieldCdr, dcdr, valueCdr, vcdr, vcdr !== undefined),
    fcar,
    fcdr,
  ];
}

/** `check_correct_field`: a field access annotation must match the type's field. */
export function checkCorrectField(f1: Annot, f2: Annot): void {
  if (f1 !== undefined && f2 !== undefined && f1 !== f2) {
    throw inconsistentFieldAnnotations.error({ annot1: "%" + f1, annot2: "%" + f2 });
  }
}

/** `merge_type_annot`. */
export function mergeTypeAnnot(legacy: boolean, a1: Annot, a2: Annot): Annot {
  if (a1 === undefined || a2 === undefined) return undefined;
  if (legacy || a1 === a2) return a1;
  throw inconsistentAnnotations.error({ annot1: ":" + a1, annot2: ":" + a2 });
}

/** `merge_field_annot`. */
export function mergeFieldAnnot(legacy: boolean, a1: Annot, a2: Annot): Annot {
  if (a1 === undefined || a2 === undefined) return undefined;
  if (legacy || a1 === a2) return a1;
  throw inconsistentAnnotations.error({ annot1: "%" + a1, annot2: "%" + a2 });
}

/** `merge_var_annot`: kept only when both sides agree. */
export function mergeVarAnnot(a1: Annot, a2: Annot): Annot {
  return a1 !== undefined && a1 === a2 ? a1 : undefined;
}
