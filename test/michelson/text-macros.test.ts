/**
 * Macro expansion against Octez: the 29 `expand macros in` regression outputs
 * (typecheck-cases.json `macro_expansion`), the expansions of Octez's client unit tests
 * (src/proto_011_PtHangz2/lib_client/test/test_michelson_v1_macros.ml), and the macro errors.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Micheline } from "../../lib/encoding/micheline.ts";
import {
  expandMacros,
  MichelsonTextError,
  parseAndExpand,
  parseAndExpandExpression,
  parseMichelineText,
  parseScriptText,
  printMicheline,
  type SourceLocation,
} from "../../lib/michelson/text/mod.ts";

const REF = new URL("../vectors/michelson/", import.meta.url).pathname;
const cases = JSON.parse(readFileSync(REF + "typecheck-cases.json", "utf8")) as {
  macro_expansion: { file: string; expected_expansion: string }[];
};

/** The expansion of one instruction written as text, itself as text. */
const expand1 = (src: string): Micheline => expandMacros(parseScriptText(src)[0]!);
/** Expected expansions, written as data text (parenthesised when annotated). */
const text = (src: string): Micheline => parseMichelineText(src, { check: false });

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

test("the 29 macro contracts expand and print byte for byte as `octez-client expand macros in`", () => {
  assert.is(cases.macro_expansion.length, 29);
  for (const c of cases.macro_expansion) {
    const src = readFileSync(REF + "contracts/" + c.file, "utf8");
    assert.fixture(printMicheline(parseAndExpand(src)) + "\n", c.expected_expansion, c.file);
  }
});

test("CMPxx, IFxx and IFCMPxx expand as in Octez's unit tests", () => {
  for (const op of ["EQ", "NEQ", "LT", "GT", "LE", "GE"]) {
    assert.equal(expand1(`CMP${op}`), text(`{ COMPARE ; ${op} }`));
    assert.equal(expand1(`IF${op} { SWAP } {}`), text(`{ ${op} ; IF { SWAP } {} }`));
    assert.equal(expand1(`IFCMP${op} { SWAP } {}`), text(`{ COMPARE ; ${op} ; IF { SWAP } {} }`));
    assert.equal(expand1(`ASSERT_${op}`), text(`{ ${op} ; IF {} { { UNIT ; FAILWITH } } }`));
    assert.equal(expand1(`ASSERT_CMP${op}`), text(`{ { COMPARE ; ${op} } ; IF {} { { UNIT ; FAILWITH } } }`));
  }
});

test("FAIL and the ASSERT family expand as in Octez's unit tests, RENAME carrying the annotation", () => {
  assert.equal(expand1("FAIL"), text("{ UNIT ; FAILWITH }"));
  assert.equal(expand1("ASSERT"), text("{ IF {} { { UNIT ; FAILWITH } } }"));
  assert.equal(expand1("ASSERT_NONE"), text("{ IF_NONE {} { { UNIT ; FAILWITH } } }"));
  assert.equal(expand1("ASSERT_SOME"), text("{ IF_NONE { { UNIT ; FAILWITH } } {} }"));
  assert.equal(expand1("ASSERT_SOME @annot"), text("{ IF_NONE { { UNIT ; FAILWITH } } { RENAME @annot } }"));
  assert.equal(expand1("ASSERT_LEFT"), text("{ IF_LEFT {} { { UNIT ; FAILWITH } } }"));
  assert.equal(expand1("ASSERT_LEFT @annot"), text("{ IF_LEFT { RENAME @annot } { { UNIT ; FAILWITH } } }"));
  assert.equal(expand1("ASSERT_RIGHT"), text("{ IF_LEFT { { UNIT ; FAILWITH } } {} }"));
  assert.equal(expand1("ASSERT_RIGHT @annot"), text("{ IF_LEFT { { UNIT ; FAILWITH } } { RENAME @annot } }"));
});

test("DIIP, DUUP, PAPPAIIR and C[AD]R expand as in Octez's unit tests", () => {
  assert.equal(expand1("DIP { CAR }"), text("DIP { CAR }"));
  assert.equal(expand1("DIIIIIIIIP { CAR }"), text("DIP 8 { CAR }"));
  assert.equal(expand1("DIIP { CAR }"), text("DIP 2 { CAR }"));
  assert.equal(expand1("PAIR"), text("PAIR"));
  assert.equal(expand1("PAPPAIIR"), text("{ DIP { PAIR } ; DIP { PAIR } ; PAIR }"));
  assert.equal(expand1("UNPAIR"), text("UNPAIR"));
  assert.equal(expand1("DUUP"), text("DUP 2"));
  assert.equal(expand1("CAR"), text("CAR"));
  assert.equal(expand1("CDR"), text("CDR"));
  assert.equal(expand1("CADR"), text("{ CAR ; CDR }"));
  assert.equal(expand1("CDAR"), text("{ CDR ; CAR }"));
  assert.equal(expand1("CDR 0"), text("{ GET 0 }"));
  assert.equal(expand1("CAR 0"), text("{ GET 1 }"));
  assert.equal(expand1("CDR 1"), text("{ GET 2 }"));
  assert.equal(expand1("CAR 1"), text("{ GET 3 }"));
  assert.equal(expand1("CDR 2"), text("{ GET 4 }"));
  assert.equal(expand1("IF_SOME { SWAP } {}"), text("{ IF_NONE {} { SWAP } }"));
  assert.equal(expand1("IF_RIGHT { SWAP } {}"), text("{ IF_LEFT {} { SWAP } }"));
});

test("SET_C[AD]+R and MAP_C[AD]+R expand with Octez's annotations", () => {
  assert.equal(expand1("SET_CAR"), text("{ CDR @%% ; SWAP ; PAIR % %@ }"));
  assert.equal(expand1("SET_CDR"), text("{ CAR @%% ; PAIR %@ % }"));
  assert.equal(
    expand1("SET_CADR"),
    text("{ DUP ; DIP { CAR @%% ; { CAR @%% ; PAIR %@ % } } ; CDR @%% ; SWAP ; PAIR %@ %@ }"),
  );
  assert.equal(
    expand1("SET_CDAR"),
    text("{ DUP ; DIP { CDR @%% ; { CDR @%% ; SWAP ; PAIR % %@ } } ; CAR @%% ; PAIR %@ %@ }"),
  );
  assert.equal(expand1("MAP_CAR { CAR }"), text("{ DUP ; CDR @%% ; DIP { CAR ; { CAR } } ; SWAP ; PAIR % %@ }"));
  assert.equal(expand1("MAP_CDR { CAR }"), text("{ DUP ; CDR ; { CAR } ; SWAP ; CAR @%% ; PAIR %@ % }"));
  const mapCdr = "{ DUP ; CDR ; { CAR } ; SWAP ; CAR @%% ; PAIR %@ % }";
  const mapCadr = `{ DUP ; DIP { CAR @%% ; ${mapCdr} } ; CDR @%% ; SWAP ; PAIR %@ %@ }`;
  assert.equal(expand1("MAP_CAADR { CAR }"), text(`{ DUP ; DIP { CAR @%% ; ${mapCadr} } ; CDR @%% ; SWAP ; PAIR %@ %@ }`));
});

test("instructions that are no longer macros are left as written", () => {
  for (const src of ["DUP", "DUP 3", "DIP 2 { DROP }", "PAIR 3", "UNPAIR", "UNPAIR 3", "GET 3", "UPDATE 4", "DIG 2", "DUG 2", "DROP 2", "CAR @x", "CDR %y"]) {
    assert.equal(expand1(src), parseScriptText(src)[0], src);
  }
});

test("annotations of a P[AI]+R macro go to the PAIR that builds each field", () => {
  assert.equal(expand1("PAPAIR %a %b %c @p"), text("{ DIP { PAIR %b %c } ; PAIR %a @p }"));
  assert.equal(expand1("PAPAIR @p"), text("{ DIP { PAIR } ; PAIR @p }"));
  assert.equal(expand1("UNPAPAIR @x"), text("{ UNPAIR ; DIP { UNPAIR } }"));
  assert.equal(expand1("CDAR @x"), text("{ CDR ; CAR @x }"));
  assert.equal(expand1("CDAR @%%"), text("{ CDR @%% ; CAR @%% }"));
});

test("wrongly used macros are reported with Octez's michelson.macros errors and left as written", () => {
  const arity = failure(() => expand1("CMPEQ 1"));
  assert.equal(arity.toJson(), [
    { kind: "permanent", id: "michelson.macros.bas_arity", macro_name: "CMPEQ", given_number_of_arguments: 1, expected_number_of_arguments: 0 },
  ]);
  assert.is(arity.message, "Macro CMPEQ expects 0 arguments, was given 1.");
  assert.is(failure(() => expand1("IFEQ {}")).message, "Macro IFEQ expects 2 arguments, was given 1.");
  assert.is(failure(() => expand1("IFEQ @x")).message, "Unexpected annotation on macro IFEQ.");
  assert.is(failure(() => expand1("MAP_CAR 1")).message, "Macro MAP_CAR expects a sequence, but did not receive one.");
  assert.is(failure(() => expand1("DIIP 1")).message, "Macro DIIP expects a sequence, but did not receive one.");
  assert.is(failure(() => expand1("SET_CAR %a %b")).message, "Unexpected annotation on macro SET_CAR.");
  assert.is(failure(() => expand1("ASSERT @x")).message, "Unexpected annotation on macro ASSERT.");
  assert.is(failure(() => expand1("IF_SOME {}")).message, "Macro IF_SOME expects 2 arguments, was given 1.");
  // Several errors are all reported.
  assert.is(failure(() => expandMacros(parseScriptText("CMPEQ 1 ; { FAIL ; IFLT {} }"))).trace.length, 2);
});

test("parseAndExpand reports unknown primitives as the protocol's prims_of_strings does", () => {
  const unknown = failure(() => parseAndExpand("parameter unit ; storage unit ; code { FOO }"));
  assert.equal(
    unknown.trace.map((i) => i.id),
    ["proto.011-PtHangz2.michelson_v1.invalid_primitive_name", "proto.011-PtHangz2.michelson_v1.unknown_primitive_name"],
  );
  assert.is((unknown.toJson()[0] as { location: number }).location, 7); // toplevel 0, parameter 1, unit 2, storage 3, unit 4, code 5, { 6, FOO 7
  assert.is((unknown.toJson()[1] as { wrong_primitive_name: string }).wrong_primitive_name, "FOO");
  const badCase = failure(() => parseAndExpandExpression("PaIR 1 2"));
  assert.is(badCase.trace[1]!.id, "proto.011-PtHangz2.michelson_v1.invalid_primitive_name_case");
});

test("expanded nodes keep the source location of the macro they come from", () => {
  const locations = new WeakMap<object, SourceLocation>();
  const s = parseAndExpand("code { DUP ;\n       CMPEQ }", { locations }) as Micheline[];
  const code = (s[0] as { readonly args: readonly Micheline[] }).args[0] as Micheline[];
  const cmp = code[1] as Micheline[];
  for (const n of [cmp, cmp[0]!, cmp[1]!]) {
    const l = locations.get(n as object)!;
    assert.equal([l.start.line, l.start.column, l.stop.line, l.stop.column], [2, 7, 2, 12]);
  }
  const dup = locations.get(code[0] as object)!;
  assert.equal([dup.start.line, dup.start.column], [1, 7]);
});

test("expansion returns a new tree of distinct objects", () => {
  const src = parseScriptText("code { UNPAPAIR ; PAPPAIIR ; DIIP { DUUP } ; SET_CADR }");
  const out = expandMacros(src);
  const seen = new Set<object>();
  const visit = (n: Micheline): void => {
    assert.not.ok(seen.has(n as object));
    seen.add(n as object);
    if (Array.isArray(n)) (n as readonly Micheline[]).forEach(visit);
    else ((n as { args?: readonly Micheline[] }).args ?? []).forEach(visit);
  };
  visit(out);
  assert.ok(seen.size > 30);
});

test.run();
