/**
 * Entrypoints of a parameter type (Octez `find_entrypoint`, `well_formed_entrypoints`,
 * `list_entrypoints`): `or` branches named by field annotations, the root named by the
 * parameter's own field annotation (kept as the root type's `field`).
 * @module
 */
import type { Micheline } from "../../encoding/micheline.ts";
import type { Ty } from "../ty.ts";
import { duplicateEntrypoint, entrypointNameTooLong, unreachableEntrypoint } from "./errors.ts";
import { findEntrypoint as find } from "./runtime.ts";
import { bare, unparseTyAnnot } from "./types.ts";

/**
 * The type at entrypoint `name` (`""` or `"default"` = default) and the Left/Right path that
 * wraps an argument of that type into the full parameter. Throws `no_such_entrypoint` or
 * `entrypoint_name_too_long`.
 */
export function findEntrypoint(paramTy: Ty, name: string): { ty: Ty; path: ("Left" | "Right")[] } {
  const r = find(paramTy, paramTy.field, name);
  return { ty: bare(r.ty), path: r.path };
}

/** `well_formed_entrypoints`: names unique and at most 31 characters; no unreachable leaf when `%default` is named. */
export function checkWellFormedEntrypoints(paramTy: Ty): void {
  const all = new Set<string>();
  let firstUnreachable: string[] | undefined;
  const root = paramTy.field;
  let reachable = false;
  if (root !== undefined && root !== "") {
    all.add(root);
    reachable = true;
  }
  const merge = (path: string[], annot: string | undefined, t: Ty, reach: boolean): void => {
    if (annot === undefined || annot === "") {
      if (!reach && t.prim !== "or" && firstUnreachable === undefined) firstUnreachable = path;
      return;
    }
    if (annot.length > 31) throw entrypointNameTooLong.error({ name: annot });
    if (all.has(annot)) throw duplicateEntrypoint.error({ path: annot });
    all.add(annot);
  };
  const todo: [Ty, string[], boolean][] = [[paramTy, [], reachable]];
  while (todo.length > 0) {
    const [t, path, reach] = todo.shift() as [Ty, string[], boolean];
    if (t.prim !== "or") continue;
    const [l, r] = t.args;
    merge([...path, "Left"], l.field, l, reach);
    merge([...path, "Right"], r.field, r, reach);
    // depth-first, left before right (as Octez's recursion)
    todo.unshift([l, [...path, "Left"], l.field !== undefined ? true : reach], [r, [...path, "Right"], r.field !== undefined ? true : reach]);
  }
  if (all.has("default") && firstUnreachable !== undefined) throw unreachableEntrypoint.error({ path: firstUnreachable });
}

/** The entrypoints RPC's answer: named entrypoints with their types, and unreachable paths. */
export interface EntrypointList {
  readonly entrypoints: Map<string, Micheline>;
  readonly unreachable: string[][];
}

/** `list_entrypoints`: every named entrypoint (the root included) and the unreachable leaves. */
export function listEntrypointsDetailed(paramTy: Ty): EntrypointList {
  const entrypoints = new Map<string, Micheline>();
  const unreachable: string[][] = [];
  const root = paramTy.field;
  let reachable = false;
  if (root !== undefined && root !== "") {
    entrypoints.set(root, unparseTyAnnot(bare(paramTy)));
    reachable = true;
  }
  const merge = (path: string[], annot: string | undefined, t: Ty, reach: boolean): void => {
    if (annot === undefined || annot === "") {
      if (!reach && t.prim !== "or") unreachable.unshift(path);
      return;
    }
    if (annot.length > 31 || entrypoints.has(annot)) {
      unreachable.unshift(path);
      return;
    }
    entrypoints.set(annot, unparseTyAnnot(bare(t)));
  };
  const visit = (t: Ty, path: string[], reach: boolean): void => {
    if (t.prim !== "or") return;
    const [l, r] = t.args;
    merge([...path, "Left"], l.field, l, reach);
    merge([...path, "Right"], r.field, r, reach);
    visit(l, [...path, "Left"], l.field !== undefined ? true : reach);
    visit(r, [...path, "Right"], r.field !== undefined ? true : reach);
  };
  visit(paramTy, [], reachable);
  return { entrypoints, unreachable };
}

/** Named entrypoints and their types (as the `entrypoints` RPC lists them). */
export function listEntrypoints(paramTy: Ty): Map<string, Ty> {
  const out = new Map<string, Ty>();
  const root = paramTy.field;
  if (root !== undefined && root !== "") out.set(root, bare(paramTy));
  const visit = (t: Ty): void => {
    if (t.prim !== "or") return;
    for (const c of t.args) {
      if (c.field !== undefined && c.field !== "" && c.field.length <= 31 && !out.has(c.field)) out.set(c.field, bare(c));
    }
    visit(t.args[0]);
    visit(t.args[1]);
  };
  visit(paramTy);
  return out;
}
