/**
 * Small helpers over Micheline nodes shared by the type and data parsers: node kinds and
 * primitive namespaces as errors name them, locations, and the "unexpected node" error Octez
 * raises when a primitive of another namespace or kind is found (`Script_ir_translator.unexpected`).
 * @module
 */
import type { Micheline, MichelinePrim } from "../../encoding/micheline.ts";
import type { TezosError } from "../../errors/mod.ts";
import { canonicalLocations } from "../location.ts";
import { invalidKind, invalidNamespace, invalidPrimitive, type ExprKind, type PrimNamespace } from "./errors.ts";

/** Kind of a node (`integer`, `string`, `bytes`, `primitiveApplication`, `sequence`). */
export function nodeKind(n: Micheline): ExprKind {
  if (Array.isArray(n)) return "sequence";
  const o = n as object;
  if ("prim" in o) return "primitiveApplication";
  if ("int" in o) return "integer";
  if ("string" in o) return "string";
  return "bytes";
}

/** The node as a primitive application, or undefined. */
export function asPrim(n: Micheline): MichelinePrim | undefined {
  return !Array.isArray(n) && "prim" in (n as object) ? (n as MichelinePrim) : undefined;
}

const KEYWORDS = new Set(["parameter", "storage", "code", "view"]);

/** Namespace of a primitive name (`michelson_v1_primitives.namespace`). */
export function primNamespace(name: string): PrimNamespace {
  if (KEYWORDS.has(name)) return "keyword";
  if (name === "constant") return "constant_hash";
  const c = name.charCodeAt(0);
  if (c >= 97 && c <= 122) return "type";
  if (/^[A-Z0-9_]+$/.test(name)) return "instruction";
  return "constant";
}

/** Locations of nodes: canonical numbers, with room for nodes the parsers synthesise. */
export class Locations {
  private readonly map: WeakMap<object, number>;
  constructor(map: WeakMap<object, number>) {
    this.map = map;
  }
  /** Canonical locations of `root` (root = 0). */
  static of(root: Micheline): Locations {
    return new Locations(canonicalLocations(root));
  }
  /** The location of `n` (-1 when unknown, as Octez's dummy location). */
  get(n: Micheline): number {
    return this.map.get(n as object) ?? -1;
  }
  /** Gives `n` (a node built while parsing) the location `loc`; returns `n`. */
  set<T extends Micheline>(n: T, loc: number): T {
    this.map.set(n as object, loc);
    return n;
  }
}

/**
 * The error for a node that is not one of the expected primitives (`unexpected`): wrong kind
 * (`invalid_expression_kind`, primitive application always among the expected kinds), wrong
 * namespace (`invalid_primitive_namespace`) or another primitive (`invalid_primitive`).
 */
export function unexpectedNode(n: Micheline, loc: number, expKinds: readonly ExprKind[], expNs: PrimNamespace, expPrims: readonly string[]): TezosError {
  const p = asPrim(n);
  if (p === undefined) return invalidKind.error({ location: loc, expected_kinds: ["primitiveApplication", ...expKinds], wrong_kind: nodeKind(n) });
  const ns = primNamespace(p.prim);
  if (ns === expNs && (ns === "type" || ns === "instruction" || ns === "constant")) {
    return invalidPrimitive.error({ location: loc, expected_primitive_names: [...expPrims], wrong_primitive_name: p.prim });
  }
  return invalidNamespace.error({ location: loc, primitive_name: p.prim, expected_namespace: expNs, wrong_namespace: ns });
}

/** `invalid_expression_kind` at `loc`: expected `kinds`, found the kind of `n`. */
export function invalidKindError(n: Micheline, loc: number, kinds: readonly ExprKind[]): TezosError {
  return invalidKind.error({ location: loc, expected_kinds: [...kinds], wrong_kind: nodeKind(n) });
}

/** Whether `e` is running out of gas (never wrapped into type errors). */
export function isGasExhaustion(e: unknown): boolean {
  const trace = (e as { trace?: readonly { id: string }[] } | null)?.trace;
  return Array.isArray(trace) && trace.some((i) => i.id.includes("gas_exhausted"));
}
