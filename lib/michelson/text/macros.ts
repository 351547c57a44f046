/**
 * Michelson macro expansion, as octez-client does it before sending code to the node
 * (src/proto_011_PtHangz2/lib_client/michelson_v1_macros.ml): `CMPxx`, `IFxx`, `IFCMPxx`,
 * `ASSERT*`, `FAIL`, `IF_SOME`, `IF_RIGHT`, `C[AD]+R`, `CAR n`/`CDR n`, `SET_C[AD]+R`,
 * `MAP_C[AD]+R`, `DI..IP` (roman numerals), `DU..UP`, `P[PAI]+R` and `UNP[PAI]+R`, with
 * their annotations placed as Octez places them. Real instructions (`DUP n`, `DIP n`, `PAIR n`,
 * `UNPAIR`, `CAR`...) are left alone. Each node is expanded once, then its children are; a macro
 * used wrongly is left as written and reported, and the expansion goes on with the rest.
 *
 * @example
 * ```ts
 * expandMacros({ prim: "CMPEQ" }); // [{prim: "COMPARE"}, {prim: "EQ"}]
 * parseAndExpand("parameter unit; storage unit; code { CDR ; NIL operation ; PAIR }");
 * ```
 * @module
 */
import type { Micheline, MichelinePrim } from "../../encoding/micheline.ts";
import { HANGZHOU_PRIMITIVES } from "../../encoding/michelson-primitives.ts";
import { canonicalLocations } from "../location.ts";
import {
  invalidPrimitiveName,
  invalidPrimitiveNameCase,
  macroInvalidArity,
  macroSequenceExpected,
  MichelsonTextError,
  unexpectedMacroAnnotation,
  unknownPrimitiveName,
  type SourceLocation,
  type TextIssue,
} from "./errors.ts";
import { parseExpressionWithIssues, parseToplevelWithIssues, type ParseOptions } from "./parse.ts";

/** Options of {@link expandMacros}. */
export interface ExpandOptions {
  /**
   * Source locations of the input's nodes; the output's nodes are added (a node made by a
   * macro gets the location of the macro), as Octez's expansion table maps them back.
   */
  readonly locations?: WeakMap<object, SourceLocation>;
}

type Node = Micheline;
type Prim = MichelinePrim;
type MPrim = { prim: string; args?: Node[]; annots?: string[] };

/** A macro used wrongly: reported, and the node is left as written. */
class MacroError {
  readonly issue: TextIssue;
  constructor(issue: TextIssue) {
    this.issue = issue;
  }
}

const isSeq = (n: Node | undefined): n is readonly Node[] => Array.isArray(n);
const argsOf = (p: Prim): readonly Node[] => p.args ?? [];
const annotsOf = (p: Prim): readonly string[] => p.annots ?? [];

function checkLetters(s: string, from: number, to: number, ok: (c: string) => boolean): boolean {
  for (let i = from; i <= to; i++) if (!ok(s[i]!)) return false;
  return true;
}

/** Builds nodes that all carry the location of the macro they come from. */
class Builder {
  readonly locs: WeakMap<object, SourceLocation> | undefined;
  readonly loc: SourceLocation | undefined;
  constructor(locs: WeakMap<object, SourceLocation> | undefined, origin: object) {
    this.locs = locs;
    this.loc = locs?.get(origin);
  }
  mark<T extends Node>(n: T): T {
    if (this.locs !== undefined && this.loc !== undefined) this.locs.set(n as object, this.loc);
    return n;
  }
  prim(name: string, args: readonly Node[] = [], annots: readonly string[] = []): Node {
    const p: MPrim = { prim: name };
    if (args.length > 0) p.args = [...args];
    if (annots.length > 0) p.annots = [...annots];
    return this.mark(p as Node);
  }
  seq(items: readonly Node[]): Node {
    return this.mark([...items] as Node);
  }
  int(n: bigint, origin?: object): Node {
    const i = { int: n.toString() };
    const l = origin !== undefined ? this.locs?.get(origin) : undefined;
    if (l !== undefined) this.locs!.set(i, l);
    else this.mark(i);
    return i;
  }
  dip(depth: number, instr: Node, annots: readonly string[] = []): Node {
    return depth === 1 ? this.prim("DIP", [instr], annots) : this.prim("DIP", [this.int(BigInt(depth)), instr], annots);
  }
}

function arity(name: string, given: number, expected: number, loc?: SourceLocation): MacroError {
  return new MacroError({
    item: macroInvalidArity.create({ macro_name: name, given_number_of_arguments: given, expected_number_of_arguments: expected }),
    message: `Macro ${name} expects ${expected} arguments, was given ${given}.`,
    ...(loc !== undefined ? { location: loc } : {}),
  });
}
function unexpectedAnnot(name: string, loc?: SourceLocation): MacroError {
  return new MacroError({
    item: unexpectedMacroAnnotation.create({ macro_name: name }),
    message: `Unexpected annotation on macro ${name}.`,
    ...(loc !== undefined ? { location: loc } : {}),
  });
}
function seqExpected(name: string, loc?: SourceLocation): MacroError {
  return new MacroError({
    item: macroSequenceExpected.create({ macro_name: name }),
    message: `Macro ${name} expects a sequence, but did not receive one.`,
    ...(loc !== undefined ? { location: loc } : {}),
  });
}

/** Field annotations (`%...`) apart from the others. */
function splitFieldAnnots(annots: readonly string[]): [string[], string[]] {
  const fields: string[] = [];
  const rest: string[] = [];
  for (const a of annots) (a.startsWith("%") ? fields : rest).push(a);
  return [fields, rest];
}

type Expander = (p: Prim, b: Builder) => Node | undefined;

const expandCarN: Expander = (p, b) => {
  const args = argsOf(p);
  if (p.prim !== "CAR" || args.length !== 1 || !("int" in args[0]!)) return undefined;
  const n = BigInt((args[0] as { int: string }).int);
  return b.seq([b.prim("GET", [b.int(1n + n * 2n, args[0] as object)], annotsOf(p))]);
};

const expandCdrN: Expander = (p, b) => {
  const args = argsOf(p);
  if (p.prim !== "CDR" || args.length !== 1 || !("int" in args[0]!)) return undefined;
  const n = BigInt((args[0] as { int: string }).int);
  return b.seq([b.prim("GET", [b.int(n * 2n, args[0] as object)], annotsOf(p))]);
};

const isAD = (c: string): boolean => c === "A" || c === "D";

const expandCaddadr: Expander = (p, b) => {
  const s = p.prim;
  const len = s.length;
  if (!(len > 3 && s[0] === "C" && s[len - 1] === "R" && checkLetters(s, 1, len - 2, isAD))) return undefined;
  const args = argsOf(p);
  if (args.length > 0) throw arity(s, args.length, 0, b.loc);
  const annots = annotsOf(p);
  const pathAnnots = annots.filter((a) => a === "@%" || a === "@%%");
  const out: Node[] = [];
  for (let i = 1; i <= len - 2; i++) {
    out.push(b.prim(s[i] === "A" ? "CAR" : "CDR", [], i === len - 2 ? annots : pathAnnots));
  }
  return b.seq(out);
};

/** The `SET_C[AD]+R` / `MAP_C[AD]+R` wrapping of the innermost update, from index `i` down to 5. */
function wrapPath(s: string, from: number, init: Node, annots: readonly string[], b: Builder): Node {
  let acc = init;
  for (let i = from; i > 4; i--) {
    const an = i === 5 ? annots : [];
    if (s[i] === "A") {
      acc = b.seq([
        b.prim("DUP"),
        b.prim("DIP", [b.seq([b.prim("CAR", [], ["@%%"]), acc])]),
        b.prim("CDR", [], ["@%%"]),
        b.prim("SWAP"),
        b.prim("PAIR", [], ["%@", "%@", ...an]),
      ]);
    } else {
      acc = b.seq([
        b.prim("DUP"),
        b.prim("DIP", [b.seq([b.prim("CDR", [], ["@%%"]), acc])]),
        b.prim("CAR", [], ["@%%"]),
        b.prim("PAIR", [], ["%@", "%@", ...an]),
      ]);
    }
  }
  return acc;
}

function fieldAnnot(s: string, p: Prim, b: Builder): [string | undefined, string[]] {
  const [fields, rest] = splitFieldAnnots(annotsOf(p));
  if (fields.length > 1) throw unexpectedAnnot(s, b.loc);
  return [fields[0], rest];
}

const expandSetCaddadr: Expander = (p, b) => {
  const s = p.prim;
  const len = s.length;
  if (!(len >= 7 && s.startsWith("SET_C") && s[len - 1] === "R" && checkLetters(s, 5, len - 2, isAD))) return undefined;
  const args = argsOf(p);
  if (args.length > 0) throw arity(s, args.length, 0, b.loc);
  const [field, annots] = fieldAnnot(s, p, b);
  let init: Node;
  if (s[len - 2] === "A") {
    const check = field === undefined ? [] : [b.prim("DUP"), b.prim("CAR", [], [field]), b.prim("DROP")];
    init = b.seq([...check, b.prim("CDR", [], ["@%%"]), b.prim("SWAP"), b.prim("PAIR", [], [field ?? "%", "%@"])]);
  } else {
    const check = field === undefined ? [] : [b.prim("DUP"), b.prim("CDR", [], [field]), b.prim("DROP")];
    init = b.seq([...check, b.prim("CAR", [], ["@%%"]), b.prim("PAIR", [], ["%@", field ?? "%"])]);
  }
  return wrapPath(s, len - 3, init, annots, b);
};

const expandMapCaddadr: Expander = (p, b) => {
  const s = p.prim;
  const len = s.length;
  if (!(len >= 7 && s.startsWith("MAP_C") && s[len - 1] === "R" && checkLetters(s, 5, len - 2, isAD))) return undefined;
  const args = argsOf(p);
  if (args.length !== 1) throw arity(s, args.length, 1, b.loc);
  const code = args[0]!;
  if (!isSeq(code)) throw seqExpected(s, b.loc);
  const [field, annots] = fieldAnnot(s, p, b);
  const crAnnot = field === undefined ? [] : ["@" + field.slice(1)];
  let init: Node;
  if (s[len - 2] === "A") {
    init = b.seq([
      b.prim("DUP"),
      b.prim("CDR", [], ["@%%"]),
      b.prim("DIP", [b.seq([b.prim("CAR", [], crAnnot), code])]),
      b.prim("SWAP"),
      b.prim("PAIR", [], [field ?? "%", "%@"]),
    ]);
  } else {
    init = b.seq([
      b.prim("DUP"),
      b.prim("CDR", [], crAnnot),
      code,
      b.prim("SWAP"),
      b.prim("CAR", [], ["@%%"]),
      b.prim("PAIR", [], ["%@", field ?? "%"]),
    ]);
  }
  return wrapPath(s, len - 3, init, annots, b);
};

const ROMAN: { [c: string]: number } = { M: 1000, D: 500, C: 100, L: 50, X: 10, V: 5, I: 1 };

/** The value of a roman numeral, read right to left as Octez does; undefined if not one. */
function decimalOfRoman(r: string): number | undefined {
  let total = 0;
  let last = 0;
  for (let i = r.length - 1; i >= 0; i--) {
    const n = ROMAN[r[i]!];
    if (n === undefined) return undefined;
    total += n < last ? -n : n;
    last = n;
  }
  return total;
}

const expandDiiip: Expander = (p, b) => {
  const s = p.prim;
  const len = s.length;
  if (!(len > 3 && s[0] === "D" && s[len - 1] === "P")) return undefined;
  const depth = decimalOfRoman(s.slice(1, len - 1));
  if (depth === undefined) return undefined;
  const args = argsOf(p);
  if (args.length !== 1) throw arity(s, args.length, 1, b.loc);
  if (!isSeq(args[0])) throw seqExpected(s, b.loc);
  return b.dip(depth, args[0]!, annotsOf(p));
};

/** The tree of a `P[PAI]+R` name: `P` nodes (with their index), and `A`/`I` leaves. */
type PairTree = { readonly at: number; readonly left: PairTree; readonly right: PairTree } | "A" | "I";

/** Parses `s[start..len-2]` as a pair tree; undefined if it is not one. */
function parsePairTree(s: string, start: number): PairTree | undefined {
  const len = s.length;
  let i = start;
  const parse = (left: boolean | undefined): PairTree | undefined => {
    if (i === len - 1) return undefined;
    const c = s[i]!;
    if (c === "P") {
      const at = i;
      i++;
      const l = parse(true);
      if (l === undefined) return undefined;
      const r = parse(false);
      if (r === undefined) return undefined;
      return { at, left: l, right: r };
    }
    if (c === "A" && left === true) {
      i++;
      return "A";
    }
    if (c === "I" && left !== true) {
      i++;
      return "I";
    }
    return undefined;
  };
  const t = parse(undefined);
  return t !== undefined && i === len - 1 ? t : undefined;
}

/** Where the field annotations of a `P[PAI]+R` go: per `P` index, its car and cdr field annotations. */
function pairAnnotPositions(tree: PairTree, annots: readonly string[]): Map<number, [string[], string[]]> {
  const acc = new Map<number, [string[], string[]]>();
  let k = 0;
  const walk = (pPos: number, t: PairTree): void => {
    if (k >= annots.length) return;
    if (t === "A") {
      const prev = acc.get(pPos);
      acc.set(pPos, [[annots[k++]!], prev?.[1] ?? []]);
    } else if (t === "I") {
      const prev = acc.get(pPos);
      acc.set(pPos, [prev?.[0] ?? [], [annots[k++]!]]);
    } else {
      walk(t.at, t.left);
      walk(t.at, t.right);
    }
  };
  walk(0, tree);
  return acc;
}

const isPAI = (c: string): boolean => c === "P" || c === "A" || c === "I";

const expandPappaiir: Expander = (p, b) => {
  const s = p.prim;
  const len = s.length;
  if (!(len > 4 && s[0] === "P" && s[len - 1] === "R" && checkLetters(s, 1, len - 2, isPAI))) return undefined;
  const [fields, annots] = splitFieldAnnots(annotsOf(p));
  const tree = parsePairTree(s, 0);
  if (tree === undefined) return undefined;
  const pos = pairAnnotPositions(tree, fields);
  const acc: Node[] = [];
  let depth = 0;
  const walk = (t: PairTree): void => {
    if (t === "A" || t === "I") {
      depth++;
      return;
    }
    const found = pos.get(t.at);
    let an: string[];
    if (found === undefined) an = t.at === 0 ? annots : [];
    else if (found[0].length === 0) an = ["%", ...found[1], ...(t.at === 0 ? annots : [])];
    else an = [...found[0], ...found[1], ...(t.at === 0 ? annots : [])];
    acc.unshift(depth === 0 ? b.prim("PAIR", [], an) : b.dip(depth, b.seq([b.prim("PAIR", [], an)])));
    walk(t.left);
    walk(t.right);
  };
  walk(tree);
  const args = argsOf(p);
  if (args.length > 0) throw arity(s, args.length, 0, b.loc);
  return b.seq(acc);
};

const expandUnpappaiir: Expander = (p, b) => {
  const s = p.prim;
  const len = s.length;
  if (!(len > 6 && s.startsWith("UNP") && s[len - 1] === "R" && checkLetters(s, 3, len - 2, isPAI))) return undefined;
  const tree = parsePairTree(s, 2);
  if (tree === undefined) return undefined;
  const out: Node[] = [];
  let depth = 0;
  const walk = (t: PairTree): void => {
    if (t === "A" || t === "I") {
      depth++;
      return;
    }
    out.push(depth === 0 ? b.prim("UNPAIR") : b.dip(depth, b.seq([b.prim("UNPAIR")])));
    walk(t.left);
    walk(t.right);
  };
  walk(tree);
  const args = argsOf(p);
  if (args.length > 0) throw arity(s, args.length, 0, b.loc);
  return b.seq(out);
};

const expandDuuup: Expander = (p, b) => {
  const s = p.prim;
  const len = s.length;
  if (!(len > 3 && s[0] === "D" && s[len - 1] === "P" && checkLetters(s, 1, len - 2, (c) => c === "U"))) return undefined;
  const args = argsOf(p);
  if (args.length > 0) throw arity(s, args.length, 0, b.loc);
  return b.prim("DUP", [b.int(BigInt(len - 2))], annotsOf(p));
};

const COMPARISONS = new Set(["EQ", "NEQ", "LT", "GT", "LE", "GE"]);

const expandCompare: Expander = (p, b) => {
  const s = p.prim;
  const args = argsOf(p);
  const annots = annotsOf(p);
  if (s.startsWith("CMP") && COMPARISONS.has(s.slice(3))) {
    if (args.length === 0) return b.seq([b.prim("COMPARE"), b.prim(s.slice(3), [], annots)]);
    if (annots.length === 0) throw arity(s, args.length, 0, b.loc);
    return undefined;
  }
  let ops: string[] | undefined;
  if (s.startsWith("IFCMP") && COMPARISONS.has(s.slice(5))) ops = ["COMPARE", s.slice(5)];
  else if (s.startsWith("IF") && COMPARISONS.has(s.slice(2))) ops = [s.slice(2)];
  if (ops === undefined) return undefined;
  if (args.length === 2) return b.seq([...ops.map((o) => b.prim(o)), b.prim("IF", args, annots)]);
  if (annots.length === 0) throw arity(s, args.length, 2, b.loc);
  if (args.length === 0) throw unexpectedAnnot(s, b.loc);
  return undefined;
};

const expandAsserts: Expander = (p, b) => {
  const s = p.prim;
  const args = argsOf(p);
  const annots = annotsOf(p);
  const mayRename = (an: readonly string[]): Node => (an.length === 0 ? b.seq([]) : b.seq([b.prim("RENAME", [], an)]));
  const fail = (): Node => b.seq([b.prim("FAIL")]);
  const failFalse = (an: readonly string[] = []): Node[] => [mayRename(an), fail()];
  const failTrue = (an: readonly string[] = []): Node[] => [fail(), mayRename(an)];
  const simple = ["ASSERT", "ASSERT_NONE", "ASSERT_SOME", "ASSERT_LEFT", "ASSERT_RIGHT"];
  if (args.length === 0) {
    if (s === "ASSERT" && annots.length === 0) return b.seq([b.prim("IF", failFalse())]);
    if (s === "ASSERT_NONE" && annots.length === 0) return b.seq([b.prim("IF_NONE", failFalse())]);
    if (s === "ASSERT_SOME") return b.seq([b.prim("IF_NONE", failTrue(annots))]);
    if (s === "ASSERT_LEFT") return b.seq([b.prim("IF_LEFT", failFalse(annots))]);
    if (s === "ASSERT_RIGHT") return b.seq([b.prim("IF_LEFT", failTrue(annots))]);
  }
  if (simple.includes(s) && annots.length === 0) throw arity(s, args.length, 0, b.loc);
  if ((s === "ASSERT" || s === "ASSERT_NONE") && args.length === 0) throw unexpectedAnnot(s, b.loc);
  if (!(s.length > 7 && s.startsWith("ASSERT_"))) return undefined;
  if (args.length > 0) throw arity(s, args.length, 0, b.loc);
  if (annots.length > 0) throw unexpectedAnnot(s, b.loc);
  const remaining = s.slice(7);
  const remainingPrim = b.prim(remaining) as Prim;
  if (COMPARISONS.has(remaining)) return b.seq([remainingPrim, b.prim("IF", failFalse())]);
  const cmp = expandCompare(remainingPrim, b);
  return cmp === undefined ? undefined : b.seq([cmp, b.prim("IF", failFalse())]);
};

const expandIfSome: Expander = (p, b) => {
  if (p.prim !== "IF_SOME") return undefined;
  const args = argsOf(p);
  if (args.length !== 2) throw arity("IF_SOME", args.length, 2, b.loc);
  return b.seq([b.prim("IF_NONE", [args[1]!, args[0]!], annotsOf(p))]);
};

const expandIfRight: Expander = (p, b) => {
  if (p.prim !== "IF_RIGHT") return undefined;
  const args = argsOf(p);
  if (args.length !== 2) throw arity("IF_RIGHT", args.length, 2, b.loc);
  return b.seq([b.prim("IF_LEFT", [args[1]!, args[0]!], annotsOf(p))]);
};

const expandFail: Expander = (p, b) => {
  if (p.prim !== "FAIL" || argsOf(p).length > 0 || annotsOf(p).length > 0) return undefined;
  return b.seq([b.prim("UNIT"), b.prim("FAILWITH")]);
};

const EXPANDERS: readonly Expander[] = [
  expandCarN,
  expandCdrN,
  expandCaddadr,
  expandSetCaddadr,
  expandMapCaddadr,
  expandDiiip,
  expandPappaiir,
  expandUnpappaiir,
  expandDuuup,
  expandCompare,
  expandAsserts,
  expandIfSome,
  expandIfRight,
  expandFail,
];

/** Expands the macro at the root of `node`, if it is one (not its children). */
function expandOnce(node: Node, locs: WeakMap<object, SourceLocation> | undefined): Node {
  if (Array.isArray(node) || !("prim" in (node as object))) return node;
  const p = node as Prim;
  const b = new Builder(locs, p);
  for (const e of EXPANDERS) {
    const r = e(p, b);
    if (r !== undefined) return r;
  }
  return node;
}

/** Expands every macro of `node`, collecting the problems instead of throwing. */
export function expandMacrosWithIssues(node: Node, opts: ExpandOptions = {}): { result: Node; issues: TextIssue[] } {
  const locs = opts.locations;
  const issues: TextIssue[] = [];
  const copyLoc = (from: object, to: object): void => {
    const l = locs?.get(from);
    if (l !== undefined && !locs!.has(to)) locs!.set(to, l);
  };
  const rec = (n: Node): Node => {
    let e: Node;
    try {
      e = expandOnce(n, locs);
    } catch (err) {
      if (!(err instanceof MacroError)) throw err;
      issues.push(err.issue);
      return n; // left as written, children included
    }
    if (Array.isArray(e)) {
      const out = (e as readonly Node[]).map(rec);
      copyLoc(e as object, out);
      return out;
    }
    if ("prim" in (e as object)) {
      const p = e as Prim;
      const out: MPrim = { prim: p.prim };
      if (p.args !== undefined && p.args.length > 0) out.args = p.args.map(rec);
      if (p.annots !== undefined && p.annots.length > 0) out.annots = [...p.annots];
      copyLoc(p, out);
      return out as Node;
    }
    const atom = { ...(e as object) } as Node;
    copyLoc(e as object, atom as object);
    return atom;
  };
  return { result: rec(node), issues };
}

/**
 * Expands the Michelson macros of an expression (a script's toplevel sequence, code or data),
 * exactly as octez-client does. Returns a new tree; every node is a distinct object.
 * @throws MichelsonTextError (`michelson.macros.*` items) when a macro is used wrongly.
 */
export function expandMacros(node: Micheline, opts: ExpandOptions = {}): Micheline {
  const r = expandMacrosWithIssues(node, opts);
  if (r.issues.length > 0) throw new MichelsonTextError(r.issues);
  return r.result;
}

const PRIMITIVES = new Set(HANGZHOU_PRIMITIVES);

/** Octez's `valid_case`: all upper case, all lower case, or capitalized (underscores allowed, not first). */
function validCase(name: string): boolean {
  if (name.length === 0 || name[0] === "_") return false;
  const upper = (c: string): boolean => c === "_" || (c >= "A" && c <= "Z");
  const lower = (c: string): boolean => c === "_" || (c >= "a" && c <= "z");
  const rest = [...name.slice(1)];
  return (
    (upper(name[0]!) && rest.every(upper)) || (upper(name[0]!) && rest.every(lower)) || (lower(name[0]!) && rest.every(lower))
  );
}

/**
 * The first primitive of `node` (prefix order) that protocol 011 does not know, as Octez's
 * `prims_of_strings` reports it: [invalid_primitive_name, unknown_primitive_name | invalid_primitive_name_case].
 */
export function checkPrimitives(node: Micheline, locs?: WeakMap<object, SourceLocation>): TextIssue[] {
  const stack: Micheline[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (Array.isArray(n)) {
      for (let i = n.length - 1; i >= 0; i--) stack.push((n as readonly Micheline[])[i]!);
      continue;
    }
    if (!("prim" in (n as object))) continue;
    const p = n as Prim;
    if (!PRIMITIVES.has(p.prim)) {
      const canonical = canonicalLocations(node).get(p) ?? 0;
      const inner = validCase(p.prim)
        ? unknownPrimitiveName.create({ wrong_primitive_name: p.prim })
        : invalidPrimitiveNameCase.create({ wrong_primitive_name: p.prim });
      const outer = invalidPrimitiveName.create({ expression: node as never, location: canonical });
      const where = locs?.get(p);
      const msg = validCase(p.prim) ? `Unknown primitive ${p.prim}.` : `Primitive ${p.prim} has invalid case.`;
      return [
        { item: outer, message: "Invalid primitive.", ...(where !== undefined ? { location: where } : {}) },
        { item: inner, message: msg, ...(where !== undefined ? { location: where } : {}) },
      ];
    }
    const args = p.args ?? [];
    for (let i = args.length - 1; i >= 0; i--) stack.push(args[i]!);
  }
  return [];
}

/** Options of {@link parseAndExpand}. */
export interface ParseAndExpandOptions extends ParseOptions {
  /** `script` (default): a whole script / toplevel sequence; `expression`: one data or type expression. */
  readonly kind?: "script" | "expression";
}

/**
 * Parses Michelson text and expands its macros, as octez-client's `parse_toplevel` /
 * `parse_expression` do: syntax errors, macro errors and unknown primitives are all reported,
 * in that order, in one {@link MichelsonTextError}. `opts.locations` receives the source
 * location of every node of the result.
 */
export function parseAndExpand(src: string, opts: ParseAndExpandOptions = {}): Micheline {
  const locations = opts.locations ?? new WeakMap<object, SourceLocation>();
  const parsed =
    opts.kind === "expression"
      ? parseExpressionWithIssues(src, { ...opts, locations })
      : parseToplevelWithIssues(src, { ...opts, locations });
  const expanded = expandMacrosWithIssues(parsed.result, { locations });
  const issues = [...parsed.issues, ...expanded.issues, ...checkPrimitives(expanded.result, locations)];
  if (issues.length > 0) throw new MichelsonTextError(issues);
  return expanded.result;
}

/** {@link parseAndExpand} of a whole script (the items of its toplevel sequence). */
export function parseAndExpandScript(src: string, opts: ParseOptions = {}): Micheline[] {
  return parseAndExpand(src, { ...opts, kind: "script" }) as Micheline[];
}

/** {@link parseAndExpand} of one data or type expression. */
export function parseAndExpandExpression(src: string, opts: ParseOptions = {}): Micheline {
  return parseAndExpand(src, { ...opts, kind: "expression" });
}
