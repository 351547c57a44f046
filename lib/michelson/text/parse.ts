/**
 * The Michelson text parser, as octez-client reads scripts and data (Octez's
 * `Micheline_parser.parse_toplevel` / `parse_expression`): the same grammar (a primitive's
 * arguments follow it unparenthesised at the top of a sequence or an expression, and in
 * parentheses elsewhere), the same recovery, the same errors with the same positions, and by
 * default the same indentation check (`check`: the items of a sequence or the arguments of a
 * primitive spread over several lines must start in the same column; Octez's
 * `--enforce-indentation`, on by default for `typecheck script`, off for `hash script`).
 *
 * Every node of the result is a distinct object, so node identity can key locations
 * (lib/michelson/location.ts) and source positions ({@link ParseOptions.locations}).
 *
 * @example
 * ```ts
 * parseMichelineText('Pair 1 "a"'); // {prim: "Pair", args: [{int: "1"}, {string: "a"}]}
 * parseScriptText("parameter unit; storage unit; code { CDR; NIL operation; PAIR }"); // [ ... ] (3 items)
 * ```
 * @module
 */
import type { Micheline } from "../../encoding/micheline.ts";
import {
  describeLocation,
  emptyExpression,
  extraToken,
  invalidHexBytes,
  misalignedNode,
  MichelsonTextError,
  unclosedToken,
  unexpectedToken,
  type SourceLocation,
  type SourcePoint,
  type TextIssue,
} from "./errors.ts";
import { tokenize, tokenJson, tokenKindName, type Token } from "./lexer.ts";

/** Options of the parsers. */
export interface ParseOptions {
  /** Check the indentation (Octez's default: true). */
  readonly check?: boolean;
  /** Filled with the source location of every node of the result. */
  readonly locations?: WeakMap<object, SourceLocation>;
}

/** The result of a parse: the expression (or toplevel items) and every problem found. */
export interface ParseResult<T> {
  readonly result: T;
  readonly issues: readonly TextIssue[];
}

type Mutable = { prim: string; args?: Micheline[]; annots?: string[] };

type Mode =
  | { readonly m: "top"; readonly exprs: Micheline[] }
  | { readonly m: "expr"; result: Micheline | undefined }
  | { readonly m: "seq"; readonly token: Token; readonly exprs: Micheline[] }
  | { readonly m: "unw"; readonly loc: SourceLocation; readonly name: string; readonly exprs: Micheline[]; readonly annots: string[] }
  | { readonly m: "wrap"; readonly token: Token; readonly name: string; readonly exprs: Micheline[]; readonly annots: string[] };

const ZERO: SourcePoint = { point: 0, byte: 0, line: 0, column: 0 };

const isAtom = (t: Token | undefined): boolean => t !== undefined && (t.kind === "int" || t.kind === "string" || t.kind === "bytes");
const isComment = (t: Token | undefined): boolean => t !== undefined && (t.kind === "comment" || t.kind === "eol_comment");
const is = (t: Token | undefined, ...kinds: Token["kind"][]): boolean => t !== undefined && kinds.includes(t.kind);

/** Micheline JSON of a node (for error fields): the node itself, it is already JSON-shaped. */
function asJson(n: Micheline): never {
  return n as never;
}

class Parser {
  readonly issues: TextIssue[] = [];
  readonly locs: WeakMap<object, SourceLocation>;
  readonly check: boolean;
  /** Remaining tokens, the next one last. */
  readonly rest: Token[];

  constructor(tokens: Token[], check: boolean, locs: WeakMap<object, SourceLocation>) {
    this.rest = tokens.slice().reverse();
    this.check = check;
    this.locs = locs;
  }

  peek(k: number): Token | undefined {
    return this.rest[this.rest.length - 1 - k];
  }
  drop(n: number): void {
    this.rest.length -= n;
  }

  tokenIssue(kind: "unexpected" | "extra" | "unclosed", t: Token): void {
    const def = kind === "unexpected" ? unexpectedToken : kind === "extra" ? extraToken : unclosedToken;
    this.issues.push({
      item: def.create({ location: t.loc, token: tokenJson(t) }),
      message: `${describeLocation(t.loc)}, ${kind} ${tokenKindName(t)}`,
      location: t.loc,
    });
  }

  loc(n: Micheline): SourceLocation {
    return this.locs.get(n as object)!;
  }
  node<T extends Micheline>(n: T, loc: SourceLocation): T {
    this.locs.set(n as object, loc);
    return n;
  }

  /** Octez's indentation rule for one node. */
  doCheck(n: Micheline, toplevel: boolean): void {
    if (!this.check) return;
    let items: readonly Micheline[];
    if (Array.isArray(n)) items = n as readonly Micheline[];
    else if ("prim" in n && n.args !== undefined && n.args.length > 0) items = n.args;
    else return;
    const { start, stop } = this.loc(n);
    const misaligned = (e: Micheline): void => {
      const location = this.loc(e);
      this.issues.push({
        item: misalignedNode.create({ location, expression: asJson(e) }),
        message: `${describeLocation(location)}, misaligned expression`,
        location,
      });
    };
    if (items.length === 0) {
      if (start.column >= stop.column) misaligned(n);
      return;
    }
    const first = this.loc(items[0]!).start;
    if (start.column >= stop.column) return misaligned(n);
    if (!toplevel && start.column >= first.column) return misaligned(n);
    let prevStartLine = first.line;
    for (let i = 1; i < items.length; i++) {
      const l = this.loc(items[i]!);
      if (l.stop.line !== prevStartLine && l.start.column !== first.column) misaligned(items[i]!);
      prevStartLine = l.start.line;
    }
  }

  /** Runs the state machine from `stack` until the input is consumed. */
  run(stack: Mode[]): Micheline[] {
    for (;;) {
      const top = stack[stack.length - 1]!;
      const second = stack[stack.length - 2];
      const t0 = this.peek(0);
      const t1 = this.peek(1);
      const wu = top.m === "wrap" || top.m === "unw";
      const est = top.m === "expr" || top.m === "seq" || top.m === "top"; // Expression None | Sequence | Toplevel
      // Returns.
      if (top.m === "expr" && top.result !== undefined) {
        if (t0 === undefined) return [top.result];
        this.tokenIssue("unexpected", t0);
        this.drop(1);
        continue;
      }
      if (top.m === "expr" && t0 === undefined) {
        this.issues.push({ item: emptyExpression.create(undefined), message: "empty expression" });
        return [this.node([] as Micheline[], { start: ZERO, stop: ZERO })];
      }
      if (top.m === "top" && t0 === undefined) {
        const exprs = top.exprs;
        if (exprs.length === 1 && Array.isArray(exprs[0])) {
          this.doCheck(exprs[0], false);
          return [...(exprs[0] as readonly Micheline[])];
        }
        if (exprs.length > 0) {
          const seq = this.node(exprs.slice(), { start: this.loc(exprs[0]!).start, stop: this.loc(exprs[exprs.length - 1]!).stop });
          this.doCheck(seq, true);
        } else if (this.check) {
          // An empty toplevel: Octez checks a ghost sequence at point zero, and finds it misaligned.
          this.doCheck(this.node([] as Micheline[], { start: ZERO, stop: ZERO }), true);
        }
        return exprs;
      }
      // Comments.
      if (isComment(t0)) {
        this.drop(1);
        continue;
      }
      if ((est && isAtom(t0) && isComment(t1)) || (wu && is(t0, "(") && isComment(t1))) {
        this.rest.splice(this.rest.length - 2, 1);
        continue;
      }
      // Erroneous states.
      if (wu && is(t0, "(") && is(t1, "(", "{")) {
        this.tokenIssue("unexpected", t0!);
        this.drop(2);
        continue;
      }
      if ((top.m === "unw" && second?.m === "expr" && is(t0, ";", "}", ")")) || (top.m === "expr" && is(t0, ";", "}", ")", "("))) {
        this.tokenIssue("unexpected", t0!);
        this.drop(1);
        continue;
      }
      if ((top.m === "seq" || top.m === "top") && is(t0, ";") && is(t1, ";")) {
        this.tokenIssue("extra", t1!);
        this.rest.splice(this.rest.length - 2, 1);
        continue;
      }
      if (
        (wu && is(t0, "(") && is(t1, "int", "string", "bytes", "annot", ")")) ||
        (est && isAtom(t0) && is(t1, "ident", "int", "string", "bytes", "annot", ")", "(", "{"))
      ) {
        this.tokenIssue("unexpected", t1!);
        this.drop(2);
        continue;
      }
      if (
        (top.m === "unw" && second?.m === "top" && is(t0, "}")) ||
        (top.m === "unw" && is(t0, ")")) ||
        (top.m === "top" && is(t0, ")", "(", "}")) ||
        (top.m === "seq" && is(t0, "(", ")"))
      ) {
        this.tokenIssue("unexpected", t0!);
        this.drop(1);
        continue;
      }
      if (wu && is(t0, "(") && (t1 === undefined || is(t1, "}", ";"))) {
        this.tokenIssue("unexpected", t0!);
        this.drop(1);
        continue;
      }
      if (is(t0, "annot")) {
        this.tokenIssue("unexpected", t0!);
        this.drop(1);
        continue;
      }
      if (top.m === "wrap" && (t0 === undefined || is(t0, "}", ";"))) {
        this.tokenIssue("unclosed", top.token);
        this.rest.push({ kind: ")", value: ")", loc: top.token.loc });
        continue;
      }
      if (t0 === undefined && (top.m === "seq" || (top.m === "unw" && second?.m === "seq"))) {
        const open = top.m === "seq" ? top.token : (second as { token: Token }).token;
        this.tokenIssue("unclosed", open);
        this.rest.push({ kind: "}", value: "}", loc: open.loc });
        continue;
      }
      // Valid states.
      if ((top.m === "top" || top.m === "seq" || top.m === "expr") && is(t0, "ident")) {
        this.drop(1);
        const annots: string[] = [];
        if (top.m !== "expr") {
          while (is(this.peek(0), "annot")) {
            annots.push(this.peek(0)!.value);
            this.drop(1);
          }
        }
        stack.push({ m: "unw", loc: t0!.loc, name: t0!.value, exprs: [], annots });
        continue;
      }
      if ((wu && isAtom(t0)) || (est && isAtom(t0) && (t1 === undefined || is(t1, ";", "}")))) {
        this.drop(1);
        this.fill(stack, this.atom(t0!));
        continue;
      }
      if (top.m === "seq" && is(t0, "}")) {
        this.drop(1);
        const seq = this.node(top.exprs, { start: top.token.loc.start, stop: t0!.loc.stop });
        this.doCheck(seq, false);
        stack.pop();
        this.fill(stack, seq);
        continue;
      }
      if ((top.m === "seq" || top.m === "top") && is(t0, ";")) {
        this.drop(1);
        continue;
      }
      if (
        (top.m === "unw" &&
          ((second?.m === "expr" && t0 === undefined) ||
            (second?.m === "top" && (t0 === undefined || is(t0, ";"))) ||
            (second?.m === "seq" && is(t0, "}", ";")))) ||
        (top.m === "wrap" && is(t0, ")"))
      ) {
        if (top.m === "wrap") this.drop(1);
        const base = top.m === "wrap" ? top.token.loc : top.loc;
        const stop = top.exprs.length === 0 ? base.stop : this.loc(top.exprs[top.exprs.length - 1]!).stop;
        const prim: Mutable = { prim: top.name };
        if (top.exprs.length > 0) prim.args = top.exprs;
        if (top.annots.length > 0) prim.annots = top.annots;
        const n = this.node(prim as Micheline, { start: base.start, stop });
        this.doCheck(n, false);
        stack.pop();
        this.fill(stack, n);
        continue;
      }
      if (wu && is(t0, "(") && is(t1, "ident")) {
        this.drop(2);
        const annots: string[] = [];
        while (is(this.peek(0), "annot")) {
          annots.push(this.peek(0)!.value);
          this.drop(1);
        }
        stack.push({ m: "wrap", token: t0!, name: t1!.value, exprs: [], annots });
        continue;
      }
      if (wu && is(t0, "ident")) {
        this.drop(1);
        this.fill(stack, this.node({ prim: t0!.value } as Micheline, t0!.loc));
        continue;
      }
      if (is(t0, "{")) {
        this.drop(1);
        stack.push({ m: "seq", token: t0!, exprs: [] });
        continue;
      }
      // Every state is covered above; this is a guard against a broken invariant.
      throw new Error(`Michelson parser: unexpected state ${top.m} at ${t0 === undefined ? "end" : t0.kind}`);
    }
  }

  atom(t: Token): Micheline {
    // (Characters skipped as invalid UTF-8 may sit inside the token's text; that is reported already.)
    if (t.kind === "int") return this.node({ int: BigInt(t.value.replace(/[^-0-9]/g, "")).toString() }, t.loc);
    if (t.kind === "string") return this.node({ string: t.value }, t.loc);
    const hex = t.value.slice(2);
    if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
      this.issues.push({
        item: invalidHexBytes.create({ location: t.loc }),
        message: `${describeLocation(t.loc)}, invalid hex bytes`,
        location: t.loc,
      });
      return this.node({ bytes: "" }, t.loc);
    }
    return this.node({ bytes: hex.toLowerCase() }, t.loc);
  }

  fill(stack: Mode[], n: Micheline): void {
    const top = stack[stack.length - 1]!;
    if (top.m === "expr") top.result = n;
    else top.exprs.push(n);
  }
}

function parseExpressionTokens(tokens: Token[], check: boolean, locs: WeakMap<object, SourceLocation>): ParseResult<Micheline> {
  const p = new Parser(tokens, check, locs);
  const stack: Mode[] = [{ m: "expr", result: undefined }];
  // A leading `(name annots...` opens a wrapped primitive right away (annotations allowed).
  const t0 = p.peek(0);
  const t1 = p.peek(1);
  if (is(t0, "(") && is(t1, "ident")) {
    p.drop(2);
    const annots: string[] = [];
    while (is(p.peek(0), "annot")) {
      annots.push(p.peek(0)!.value);
      p.drop(1);
    }
    stack.push({ m: "wrap", token: t0!, name: t1!.value, exprs: [], annots });
  }
  const [result] = p.run(stack);
  return { result: result!, issues: p.issues };
}

/**
 * Parses one expression (data or type) and returns it with every problem found, without
 * throwing on a syntax error (Octez's `parse_expression`: lexing problems first).
 */
export function parseExpressionWithIssues(src: string, opts: ParseOptions = {}): ParseResult<Micheline> {
  const { tokens, issues } = tokenize(src);
  const r = parseExpressionTokens(tokens, opts.check ?? true, opts.locations ?? new WeakMap());
  return { result: r.result, issues: [...issues, ...r.issues] };
}

/**
 * Parses a whole script or toplevel sequence (`parameter ..; storage ..; code ..`, with or
 * without enclosing braces) and returns its items as one sequence, with every problem found.
 */
export function parseToplevelWithIssues(src: string, opts: ParseOptions = {}): ParseResult<Micheline[]> {
  const { tokens, issues } = tokenize(src);
  const locs = opts.locations ?? new WeakMap<object, SourceLocation>();
  const p = new Parser(tokens, opts.check ?? true, locs);
  const items = p.run([{ m: "top", exprs: [] }]);
  const start = items.length === 0 ? ZERO : locs.get(items[0] as object)!.start;
  const stop = items.length === 0 ? ZERO : locs.get(items[items.length - 1] as object)!.stop;
  const seq = items.slice();
  locs.set(seq, { start, stop });
  return { result: seq, issues: [...issues, ...p.issues] };
}

/**
 * Parses one Michelson expression (data or type), e.g. `Pair 1 "a"`, `{ 1 ; 2 }`,
 * `(pair nat int)`, `0x0a`, `-5`. Macros are not expanded.
 * @throws MichelsonTextError (a TezosError with `micheline.parse_error.*` items) on a syntax error.
 */
export function parseMichelineText(src: string, opts: ParseOptions = {}): Micheline {
  const r = parseExpressionWithIssues(src, opts);
  if (r.issues.length > 0) throw new MichelsonTextError(r.issues);
  return r.result;
}

/**
 * Parses a script or any toplevel sequence (the contents of a `.tz` file): the result is the
 * sequence of its toplevel items (`parameter`, `storage`, `code`, `view`...). Macros are not expanded.
 * @throws MichelsonTextError on a syntax error (including a badly indented script when `check`).
 */
export function parseScriptText(src: string, opts: ParseOptions = {}): Micheline[] {
  const r = parseToplevelWithIssues(src, opts);
  if (r.issues.length > 0) throw new MichelsonTextError(r.issues);
  return r.result;
}
