/**
 * Internal helpers of the receipt codecs: reading the per-kind cases and fields of the operation
 * codecs (`operation.ts`), so that receipts reuse one definition of each operation's fields.
 * Not re-exported by `mod.ts`.
 * @module
 */
import type { CaseSpec, Codec, FieldSpec } from "../../core.ts";
import { objectFields } from "../../object.ts";

/**
 * The union cases of a codec built from `union` (looking through `def`, `conv` and the right
 * side of `mergeObjs`): how the receipt codecs reuse the operation codecs' per-kind fields.
 */
export function unionCasesOf(codec: Codec<unknown>): readonly CaseSpec[] {
  let c: Codec<unknown> = codec;
  for (;;) {
    const d = c.desc;
    if (d.t === "union") return d.cases;
    if (d.t === "def") c = d.codec;
    else if (d.t === "wrap") c = d.codec();
    else if (d.t === "merge") c = d.parts[d.parts.length - 1]!;
    else throw new TypeError(`unionCasesOf: not a union (${d.t})`);
  }
}

/** Fields of a case's object (its `kind` constant first), or a TypeError. */
export function caseFields(c: CaseSpec): readonly FieldSpec[] {
  const f = objectFields(c.codec);
  if (f === undefined) throw new TypeError(`caseFields: case ${c.title} is not an object`);
  return f;
}

/** The `kind` constant of a case's object. */
export function caseKind(c: CaseSpec): string {
  const first = caseFields(c)[0];
  const k = first?.codec as { constant?: string } | undefined;
  if (first?.name !== "kind" || typeof k?.constant !== "string") throw new TypeError(`caseKind: case ${c.title} has no kind`);
  return k.constant;
}

