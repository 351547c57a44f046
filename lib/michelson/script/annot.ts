/**
 * Annotations on instructions (Octez `Script_ir_annot`): parsing `@var`, `:type`, `%field`
 * annotations of an instruction, the defaults instructions give to their results, and how
 * annotations merge at branch joins. `undefined` = no annotation.
 * @module
 */
import type { TezosError } from "../../errors/mod.ts";
import { isAllowedAnnotChar, readAnnots } from "../data/annot.ts";
import { inconsistentFieldAnnotations, unexpectedAnnotation } from "./errors.ts";

export { errorUnexpectedAnnot, mergeFieldAnnot, mergeTypeAnnot, mergeVarAnnot, parseFieldAnnot } from "../data/annot.ts";

/** An optional annotation (without its sigil). */
export type Annot = string | undefined;

/** Whether every character of `s` may appear in an annotation or a view name. */
export function isAllowedString(s: string): boolean {
  for (const c of s) if (!isAllowedAnnotChar(c)) return false;
  return true;
}

function fail(loc: number): TezosError {
  return unexpectedAnnotation.error({ location: loc });
}

function none(loc: number, l: readonly Annot[]): void {
  if (l.length > 0) throw fail(loc);
}
function one(loc: number, l: readonly Annot[]): Annot {
  if (l.length > 1) throw fail(loc);
  return l[0];
}
function two(loc: number, l: readonly Annot[]): [Annot, Annot] {
  if (l.length > 2) throw fail(loc);
  return [l[0], l[1]];
}

/** `parse_var_annot`: at most one `@var`, nothing else; `def` when none. */
export function parseVarAnnot(loc: number, annots: readonly string[] | undefined, def?: Annot): Annot {
  const c = readAnnots(loc, annots ?? []);
  none(loc, c.types);
  none(loc, c.fields);
  const v = one(loc, c.vars);
  return v !== undefined ? v : def;
}

/** `parse_var_type_annot`: at most one `@var` and one `:type`. */
export function parseVarTypeAnnot(loc: number, annots: readonly string[] | undefined): [Annot, Annot] {
  const c = readAnnots(loc, annots ?? []);
  none(loc, c.fields);
  return [one(loc, c.vars), one(loc, c.types)];
}

/** `parse_two_var_annot`. */
export function parseTwoVarAnnot(loc: number, annots: readonly string[] | undefined): [Annot, Annot] {
  const c = readAnnots(loc, annots ?? []);
  none(loc, c.types);
  none(loc, c.fields);
  return two(loc, c.vars);
}

/** `parse_entrypoint_annot`: `[var, field]`. */
export function parseEntrypointAnnot(loc: number, annots: readonly string[] | undefined, def?: Annot): [Annot, Annot] {
  const c = readAnnots(loc, annots ?? []);
  none(loc, c.types);
  const f = one(loc, c.fields);
  const v = one(loc, c.vars);
  return [v !== undefined ? v : def, f];
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
  const c = readAnnots(loc, annots ?? [], { allowSpecialField: true });
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
  const c = readAnnots(loc, annots ?? [], { allowSpecialVar: true });
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
  const c = readAnnots(loc, annots ?? [], { allowSpecialVar: true });
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



