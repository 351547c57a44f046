/**
 * The Michelson text parser against Octez: the 380 test contracts of contracts_011, the
 * tokenizer vectors of src/lib_micheline/test/test_parser.ml, and Octez's parse errors.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Micheline } from "../../lib/encoding/micheline.ts";
import {
  MichelsonTextError,
  parseMichelineText,
  parseScriptText,
  tokenize,
  type SourceLocation,
} from "../../lib/michelson/text/mod.ts";

const ROOT = new URL("../vectors/michelson/contracts/", import.meta.url).pathname;
const walk = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : p.endsWith(".tz") ? [p] : [];
    });
const CONTRACTS = walk(ROOT);

/** The error a call throws (fails the test if it throws none or another kind). */
function failure(f: () => unknown): MichelsonTextError {
  try {
    f();
  } catch (e) {
    if (e instanceof MichelsonTextError) return e;
    throw e;
  }
  assert.unreachable("expected a MichelsonTextError");
  throw new Error("unreachable");
}

const at = (l: SourceLocation | undefined): string =>
  l === undefined ? "?" : `${l.start.line}:${l.start.column}-${l.stop.line}:${l.stop.column}`;

function nodes(root: Micheline): object[] {
  const out: object[] = [];
  const visit = (n: Micheline): void => {
    out.push(n as object);
    if (Array.isArray(n)) (n as readonly Micheline[]).forEach(visit);
    else ((n as { args?: readonly Micheline[] }).args ?? []).forEach(visit);
  };
  visit(root);
  return out;
}

test("the reference folder holds the 380 contracts of contracts_011", () => {
  assert.is(CONTRACTS.length, 380);
});

test("every contract Octez accepts parses with the indentation check; only badly_indented.tz is refused", () => {
  const refused: string[] = [];
  for (const f of CONTRACTS) {
    try {
      parseScriptText(readFileSync(f, "utf8"));
    } catch (e) {
      if (!(e instanceof MichelsonTextError)) throw e;
      refused.push(f.slice(ROOT.length));
    }
  }
  assert.equal(refused, ["ill_typed/badly_indented.tz"]);
});

test("every contract parses without the indentation check (as `hash script` reads them)", () => {
  for (const f of CONTRACTS) parseScriptText(readFileSync(f, "utf8"), { check: false });
});

test("badly_indented.tz is refused with Octez's misaligned_node errors and positions", () => {
  const e = failure(() => parseScriptText(readFileSync(join(ROOT, "ill_typed/badly_indented.tz"), "utf8")));
  assert.equal(
    e.trace.map((i) => i.id),
    ["micheline.parse_error.misaligned_node", "micheline.parse_error.misaligned_node"],
  );
  assert.is(e.message, "At line 2 characters 2 to 16, misaligned expression\nAt line 3 characters 1 to 32, misaligned expression");
});

test("a script parses with or without enclosing braces to the same toplevel sequence", () => {
  const a = parseScriptText("parameter unit;\nstorage unit;\ncode { CDR ; NIL operation ; PAIR }");
  const b = parseScriptText("{ parameter unit ;\n  storage unit ;\n  code { CDR ; NIL operation ; PAIR } }");
  const expected = [
    { prim: "parameter", args: [{ prim: "unit" }] },
    { prim: "storage", args: [{ prim: "unit" }] },
    { prim: "code", args: [[{ prim: "CDR" }, { prim: "NIL", args: [{ prim: "operation" }] }, { prim: "PAIR" }]] },
  ];
  assert.equal(a, expected);
  assert.equal(b, expected);
});

test("parseMichelineText reads data and types", () => {
  assert.equal(parseMichelineText('Pair 1 "a"'), { prim: "Pair", args: [{ int: "1" }, { string: "a" }] });
  assert.equal(parseMichelineText("{ 1 ; 2 }"), [{ int: "1" }, { int: "2" }]);
  assert.equal(parseMichelineText("(pair nat int)"), { prim: "pair", args: [{ prim: "nat" }, { prim: "int" }] });
  assert.equal(parseMichelineText("0x0A"), { bytes: "0a" });
  assert.equal(parseMichelineText("0x"), { bytes: "" });
  assert.equal(parseMichelineText("-5"), { int: "-5" });
  assert.equal(parseMichelineText("{}"), []);
  assert.equal(parseMichelineText("Some (Left Unit)"), { prim: "Some", args: [{ prim: "Left", args: [{ prim: "Unit" }] }] });
  assert.equal(parseMichelineText("123456789012345678901234567890"), { int: "123456789012345678901234567890" });
});

test("integers are read as Octez's Z.of_string reads them (00, -0, 001)", () => {
  assert.equal(parseMichelineText("00"), { int: "0" });
  assert.equal(parseMichelineText("-0"), { int: "0" });
  assert.equal(parseMichelineText("001"), { int: "1" });
  assert.equal(parseMichelineText("-010"), { int: "-10" });
});

test("annotations are kept on primitives in a script and on a parenthesised expression", () => {
  assert.equal(parseScriptText("parameter (or :t (nat %a) (int @v %b)) ;"), [
    {
      prim: "parameter",
      args: [
        {
          prim: "or",
          args: [
            { prim: "nat", annots: ["%a"] },
            { prim: "int", annots: ["@v", "%b"] },
          ],
          annots: [":t"],
        },
      ],
    },
  ]);
  assert.equal(parseMichelineText("(pair :p nat int)"), { prim: "pair", args: [{ prim: "nat" }, { prim: "int" }], annots: [":p"] });
  assert.equal(parseScriptText("CAR @x %y ; DUP @%%"), [
    { prim: "CAR", annots: ["@x", "%y"] },
    { prim: "DUP", annots: ["@%%"] },
  ]);
});

test("an unparenthesised annotated expression is refused as Octez's parse_expression refuses it", () => {
  const e = failure(() => parseMichelineText("pair :p nat int"));
  assert.equal(e.trace.map((i) => i.id), ["micheline.parse_error.unexpected_token"]);
  assert.is(e.message, "At line 1 characters 5 to 7, unexpected annotation");
});

test("comments of both kinds are skipped, nested block comments included", () => {
  const src = "# head\nparameter unit ; /* a /* nested */ comment */\nstorage unit ; # tail\ncode { CDR ; /* x */ NIL operation ; PAIR }";
  assert.is(parseScriptText(src).length, 3);
  assert.equal(parseMichelineText("# one\n{ 1 /* one */ ; 2 }"), [{ int: "1" }, { int: "2" }]);
});

test("a comment after a complete expression is an unexpected token, as in Octez's parse_expression", () => {
  const e = failure(() => parseMichelineText("{ 1 ; 2 } # two"));
  assert.is(e.message, "At line 1 characters 10 to 15, unexpected comment");
});

test("string escapes \\n \\t \\r \\b \\\\ \\\" are resolved", () => {
  assert.equal(parseMichelineText('"a\\nb\\tc\\rd\\be\\\\f\\"g"'), { string: 'a\nb\tc\rd\be\\f"g' });
});

test("view sections are parsed as toplevel primitives", () => {
  const s = parseScriptText(readFileSync(join(ROOT, "opcodes/view_toplevel_lib.tz"), "utf8"));
  assert.ok(s.some((n) => (n as { prim?: string }).prim === "view"));
});

test("tokens follow Octez's tokenizer vectors", () => {
  const kinds = (s: string) => {
    const r = tokenize(s);
    return { tokens: r.tokens.map((t) => [t.kind, t.value]), errors: r.issues.length };
  };
  assert.equal(kinds('"abc\t"'), { tokens: [["string", "abc\t"]], errors: 0 });
  assert.equal(kinds('"abc\\r"'), { tokens: [["string", "abc\r"]], errors: 0 });
  assert.equal(kinds("0xabc"), { tokens: [["bytes", "0xabc"]], errors: 0 });
  assert.equal(kinds("0x"), { tokens: [["bytes", "0x"]], errors: 0 });
  assert.equal(kinds("-0"), { tokens: [["int", "0"]], errors: 0 });
  assert.equal(kinds("001"), { tokens: [["int", "001"]], errors: 0 });
  assert.equal(kinds(":%@_0"), { tokens: [["annot", ":%@_0"]], errors: 0 });
  assert.equal(kinds("%0From.a"), { tokens: [["annot", "%0From.a"]], errors: 0 });
  assert.equal(kinds("/* /* /* */ */ */"), { tokens: [["comment", "/* /* /* */ */ */"]], errors: 0 });
  assert.equal(kinds("##Access"), { tokens: [["eol_comment", "##Access"]], errors: 0 });
  assert.equal(kinds("(option int)"), {
    tokens: [["(", "("], ["ident", "option"], ["ident", "int"], [")", ")"]],
    errors: 0,
  });
  for (const bad of ['"abc\n"', '"abc', "1xabc", "0c", "0xg", "1x", "--0", "+0", "0a", "_from", ".from", "/*parse 1", "10_00", "1,000"]) {
    assert.ok(tokenize(bad).issues.length > 0, `${JSON.stringify(bad)} must not tokenize cleanly`);
  }
});

test("source locations count lines from 1 and columns from 0, as Octez prints them", () => {
  const locations = new WeakMap<object, SourceLocation>();
  const s = parseScriptText("parameter unit;\nstorage (pair nat int);\ncode { CDR }", { locations });
  assert.is(at(locations.get(s)), "1:0-3:12");
  assert.is(at(locations.get(s[1] as object)), "2:0-2:21"); // a closing parenthesis is not part of a location
  const pair = (s[1] as { readonly args: readonly Micheline[] }).args[0]!;
  assert.is(at(locations.get(pair as object)), "2:8-2:21");
  assert.equal(locations.get(pair as object)!.start, { point: 24, byte: 24, line: 2, column: 8 });
  const code = (s[2] as { readonly args: readonly Micheline[] }).args[0]!;
  assert.is(at(locations.get(code as object)), "3:5-3:12");
});

test("byte offsets count UTF-8 bytes while points count characters", () => {
  const locations = new WeakMap<object, SourceLocation>();
  const s = parseScriptText('/* é */ PUSH string "x"', { locations });
  assert.equal(locations.get(s[0] as object)!.start, { point: 8, byte: 9, line: 1, column: 8 });
});

test("every node of a parsed script is a distinct object", () => {
  const s = parseScriptText(readFileSync(join(ROOT, "attic/accounts.tz"), "utf8"));
  const all = nodes(s);
  assert.is(new Set(all).size, all.length);
  assert.ok(all.length > 50);
});

test("an unterminated string is reported with its location", () => {
  const e = failure(() => parseMichelineText('Pair "abc'));
  assert.is(e.trace[0]!.id, "micheline.parse_error.unterminated_string");
  assert.is(e.message.split("\n")[0], "At line 1 characters 5 to 9, unterminated string");
  assert.equal(e.toJson()[0], {
    kind: "permanent",
    id: "micheline.parse_error.unterminated_string",
    location: { start: { line: 1, column: 5, point: 5, byte: 5 }, stop: { line: 1, column: 9, point: 9, byte: 9 } },
  });
  const nl = failure(() => parseMichelineText('"ab\ncd"'));
  assert.is(nl.trace[0]!.id, "micheline.parse_error.unterminated_string");
  assert.is(at(nl.location), "1:0-1:3");
});

test("an undefined escape sequence is reported at the escaped character", () => {
  const e = failure(() => parseMichelineText('"a\\qb"'));
  assert.equal(e.toJson(), [
    {
      kind: "permanent",
      id: "micheline.parse_error.undefined_escape_sequence",
      point: { line: 1, column: 3, point: 3, byte: 3 },
      sequence: "q",
    },
  ]);
  assert.is(e.message, 'At line 1 character 3, undefined escape sequence "q"');
});

test("characters outside the annotation alphabet are refused", () => {
  const e = failure(() => parseScriptText("parameter (nat %a,b)"));
  assert.is(e.trace[0]!.id, "micheline.parse_error.unexpected_character");
  assert.is(e.message.split("\n")[0], "At line 1 character 17, unexpected character ,");
  const tab = failure(() => parseScriptText("parameter\tunit"));
  assert.is(tab.trace[0]!.id, "micheline.parse_error.unexpected_character");
  const long = failure(() => parseScriptText(`parameter (nat %${"a".repeat(255)})`));
  assert.is(long.trace[0]!.id, "micheline.parse_error.annotation_exceeds_max_length");
  parseScriptText(`parameter (nat %${"a".repeat(254)})`);
});

test("unbalanced braces and parentheses are reported as unclosed or unexpected tokens", () => {
  const open = failure(() => parseMichelineText("{ 1 ; 2"));
  assert.is(open.trace[0]!.id, "micheline.parse_error.unclosed_token");
  assert.is(open.message, "At line 1 characters 0 to 1, unclosed curly brace");
  const close = failure(() => parseMichelineText("{ 1 } }"));
  assert.is(close.trace[0]!.id, "micheline.parse_error.unexpected_token");
  assert.is(close.message, "At line 1 characters 6 to 7, unexpected curly brace");
  const paren = failure(() => parseScriptText("parameter (pair nat int ;"));
  assert.is(paren.trace[0]!.id, "micheline.parse_error.unclosed_token");
  assert.is(paren.message.split("\n")[0], "At line 1 characters 10 to 11, unclosed parenthesis");
  const code = failure(() => parseScriptText("code { CAR ; { DUP }"));
  assert.is(code.message, "At line 1 characters 5 to 6, unclosed curly brace");
  const extra = failure(() => parseScriptText("code { CAR ;; CDR }"));
  assert.equal(extra.trace.map((i) => i.id), ["micheline.parse_error.extra_token"]);
});

test("numbers glued to letters, bad bytes and empty input are refused", () => {
  assert.is(failure(() => parseMichelineText("12abc")).trace[0]!.id, "micheline.parse_error.missing_break_after_number");
  assert.is(failure(() => parseMichelineText("0xabc")).trace[0]!.id, "micheline.parse_error.invalid_hex_bytes");
  assert.is(failure(() => parseMichelineText("- 1")).trace[0]!.id, "micheline.parse_error.unterminated_integer");
  assert.equal(failure(() => parseMichelineText("")).trace.map((i) => i.id), ["micheline.parse_error.empty_expression"]);
  assert.equal(failure(() => parseMichelineText("# nothing")).trace.map((i) => i.id), ["micheline.parse_error.empty_expression"]);
  assert.is(failure(() => parseMichelineText("1 2")).trace[0]!.id, "micheline.parse_error.unexpected_token");
});

test("a sequence spread over lines must align its items unless the check is off", () => {
  const src = "{ 1 ;\n   2 }";
  assert.is(failure(() => parseMichelineText(src)).trace[0]!.id, "micheline.parse_error.misaligned_node");
  assert.equal(parseMichelineText(src, { check: false }), [{ int: "1" }, { int: "2" }]);
  assert.equal(parseMichelineText("{ 1 ;\n  2 }"), [{ int: "1" }, { int: "2" }]);
});

test("a non-string source is a TypeError", () => {
  assert.throws(() => parseMichelineText(42 as unknown as string), TypeError);
});

test("arbitrary inputs give a result or a MichelsonTextError, never a crash", () => {
  const alphabet = ['{', '}', '(', ')', ';', '"', "\\", "a", "Pair", " ", "\n", "1", "-", "0x", "@", "%", ":", "#", "/*", "*/", "é", "\t", "\ud800"];
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  let failures = 0;
  for (let i = 0; i < 3000; i++) {
    let s = "";
    const len = rand(30);
    for (let j = 0; j < len; j++) s += alphabet[rand(alphabet.length)];
    for (const f of [() => parseMichelineText(s), () => parseScriptText(s)]) {
      try {
        f();
      } catch (e) {
        if (!(e instanceof MichelsonTextError)) throw new Error(`crash on ${JSON.stringify(s)}: ${String(e)}`);
        assert.ok(e.trace.length > 0 && e.message.length > 0);
        failures++;
      }
    }
  }
  assert.ok(failures > 1000);
});

test("deeply nested input parses without exhausting the stack", () => {
  const n = 50000;
  const v = parseMichelineText("{".repeat(n) + "}".repeat(n));
  let depth = 0;
  let cur: Micheline = v;
  while (Array.isArray(cur) && cur.length > 0) {
    cur = (cur as readonly Micheline[])[0]!;
    depth++;
  }
  assert.is(depth, n - 1);
});

test.run();
