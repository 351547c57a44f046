/**
 * The errors of the type checker and the interpreter as Octez 011 gives them: one definition per
 * `michelson_v1.*` id, `ill_typed_contract` carrying its type map in `type_map_enc` form, the
 * checks of `michelson_maximum_type_size` on the types instructions build, view names, empty
 * sequences kept as sequences in `runtime_error`, and Sapling values refused with one registered
 * error.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { TezosError, type ErrorDefinition } from "../../lib/errors/mod.ts";
import * as scriptErrors from "../../lib/michelson/script/errors.ts";
import * as dataErrors from "../../lib/michelson/data/errors.ts";
import { parseScript } from "../../lib/michelson/script/script.ts";
import { execute } from "../../lib/michelson/script/execute.ts";
import { typecheckCode } from "../../lib/michelson/script/typecheck.ts";
import { parseData } from "../../lib/michelson/data/parse-data.ts";
import { parseTy } from "../../lib/michelson/data/parse-type.ts";
import { canonicalLocations } from "../../lib/michelson/location.ts";
import type { Micheline } from "../../lib/encoding/micheline.ts";
import { dataText, runContext, scriptOfFile } from "./script-context.ts";
import { parseAndExpand } from "../../lib/michelson/text/macros.ts";

const test = suite("script-errors");
const P = "proto.011-PtHangz2.michelson_v1.";

function failure(f: () => unknown): TezosError {
  try {
    f();
  } catch (e) {
    if (e instanceof TezosError) return e;
    throw new Error(`expected a TezosError, got ${String(e)}`);
  }
  throw new Error("expected a failure");
}

function isDefinition(v: unknown): v is ErrorDefinition<unknown> {
  return typeof v === "object" && v !== null && typeof (v as { id?: unknown }).id === "string" && typeof (v as { error?: unknown }).error === "function";
}

/** The first `prim` node of `node` (prefix order). */
function findPrim(node: Micheline, prim: string): { prim: string; args?: Micheline[] } | undefined {
  if (Array.isArray(node)) {
    for (const n of node as Micheline[]) {
      const r = findPrim(n, prim);
      if (r !== undefined) return r;
    }
    return undefined;
  }
  const p = node as { prim?: string; args?: Micheline[] };
  if (p.prim === undefined) return undefined;
  if (p.prim === prim) return p as { prim: string; args?: Micheline[] };
  return findPrim(p.args ?? [], prim);
}

/** A pair comb of `n` pairs over units: `2n + 1` type nodes. */
function unitComb(n: number): string {
  let t = "unit";
  for (let i = 0; i < n; i++) t = `(pair unit ${t})`;
  return t;
}

test("every michelson_v1 error id has one definition shared by the type checker and the interpreter", () => {
  const byId = new Map<string, Set<unknown>>();
  for (const mod of [scriptErrors, dataErrors]) {
    for (const v of Object.values(mod)) {
      if (!isDefinition(v)) continue;
      const set = byId.get(v.id) ?? new Set();
      set.add(v);
      byId.set(v.id, set);
    }
  }
  const twice = [...byId].filter(([, s]) => s.size > 1).map(([id]) => id);
  assert.equal(twice, []);
  assert.is(scriptErrors.invalidArity, dataErrors.invalidArity);
  // Octez's arity encoding is int8, its titles are the registered ones
  assert.is(scriptErrors.comparableTypeExpected.title, "Comparable type expected");
});

test("typecheck_code on an ill-typed script gives ill_typed_contract with the type map as [type, annots] pairs, then bad_stack", () => {
  const code = parseAndExpand("parameter unit; storage unit; code { DROP; FAILWITH }");
  const e = failure(() => typecheckCode(runContext(), code));
  const json = e.toJson() as { id: string; type_map?: unknown; location?: number; primitive_name?: string }[];
  assert.equal(json.map((i) => i.id), [P + "ill_typed_contract", P + "bad_stack"]);
  assert.equal(json[0]!.type_map, [
    {
      location: 7,
      stack_before: [[{ prim: "pair", args: [{ prim: "unit", annots: ["@parameter"] }, { prim: "unit", annots: ["@storage"] }] }, []]],
      stack_after: [],
    },
  ]);
  assert.equal([json[1]!.location, json[1]!.primitive_name], [8, "FAILWITH"]);
});

test("an instruction building a type above michelson_maximum_type_size (2001 nodes) fails with type_too_large at the instruction", () => {
  // NIL of a 1999-node type builds a 2000-node list: fine; of a 2001-node type, 2002 nodes: refused
  const ok = parseAndExpand(`parameter unit; storage unit; code { DROP; NIL ${unitComb(999)}; DROP; UNIT; NIL operation; PAIR }`);
  parseScript(runContext(), ok);
  const big = parseAndExpand(`parameter unit; storage unit; code { DROP; NIL ${unitComb(1000)}; DROP; UNIT; NIL operation; PAIR }`);
  const e = failure(() => parseScript(runContext(), big));
  const json = e.toJson() as { id: string; loc?: number; maximum_type_size?: number }[];
  assert.equal(json.map((i) => i.id), [P + "ill_typed_contract", P + "type_too_large"]);
  assert.equal([json[1]!.loc, json[1]!.maximum_type_size], [8, 2001]);
  // SOME on a 2001-node value type (the largest a type expression may be) also goes over
  const some = parseAndExpand(`parameter unit; storage unit; code { DROP; PUSH ${unitComb(1000)} ${"(Pair Unit ".repeat(1000)}Unit${")".repeat(1000)}; SOME; DROP; UNIT; NIL operation; PAIR }`);
  assert.equal(failure(() => parseScript(runContext(), some)).trace.map((i) => i.id), [P + "ill_typed_contract", P + "type_too_large"]);
});

test("a view named by something other than a string is invalid_expression_kind (string expected)", () => {
  const code = parseAndExpand('parameter unit; storage unit; code { DROP; UNIT; NIL operation; PAIR }; view 12 unit unit { CDR }');
  const json = failure(() => parseScript(runContext(), code)).toJson() as { id: string; expected_kinds?: string[]; wrong_kind?: string }[];
  assert.equal(json.map((i) => i.id), [P + "ill_typed_contract", P + "invalid_expression_kind"]);
  assert.equal([json[1]!.expected_kinds, json[1]!.wrong_kind], [["string"], "integer"]);
});

test("runtime_error carries the script with its empty sequences as JSON arrays", () => {
  const code = parseAndExpand('parameter int; storage int; code { UNPAIR; DUP; GT; IF {} { PUSH string "negative"; FAILWITH }; ADD; NIL operation; PAIR }');
  const ctx = runContext();
  const script = parseScript(ctx, code);
  const e = failure(() => execute(ctx, script, { entrypoint: "default", parameter: { int: "-1" }, storage: { int: "0" } }));
  const json = JSON.parse(JSON.stringify(e.toJson())) as { id: string; contract_code?: Micheline; with?: Micheline }[];
  assert.equal(json.map((i) => i.id), [P + "runtime_error", P + "script_rejected"]);
  assert.equal(json[0]!.contract_code, JSON.parse(JSON.stringify(code)));
  assert.equal(findPrim(json[0]!.contract_code!, "IF")!.args![0], []);
  assert.equal(json[1]!.with, { string: "negative" });
});

test("Sapling values are refused with the registered sapling_not_supported error, never a crash", () => {
  const ctx = runContext();
  const stateTy = parseTy({ prim: "sapling_state", args: [{ int: "8" }] });
  const e = failure(() => parseData(ctx, stateTy, []));
  assert.equal(e.trace.map((i) => i.id), [P + "sapling_not_supported"]);
  // sapling_empty_state.tz type-checks; running SAPLING_EMPTY_STATE fails cleanly
  const code = parseAndExpand("parameter unit; storage unit; code { DROP; SAPLING_EMPTY_STATE 8; DROP; UNIT; NIL operation; PAIR }");
  const script = parseScript(ctx, code);
  const run = failure(() => execute(ctx, script, { entrypoint: "default", parameter: dataText("Unit"), storage: dataText("Unit") }));
  const json = run.toJson() as { id: string; location?: number; prim?: string }[];
  assert.equal(json.map((i) => i.id), [P + "runtime_error", P + "sapling_not_supported"]);
  assert.equal([json[1]!.location, json[1]!.prim], [canonicalLocations(code).get(findPrim(code, "SAPLING_EMPTY_STATE")!), "SAPLING_EMPTY_STATE"]);
  parseScript(ctx, scriptOfFile("opcodes/sapling_empty_state.tz"));
});

test.run();
