/**
 * The typecheck_code cases of Octez v12.4 (typecheck-cases.json): every well-typed contract of the
 * reference suite is accepted, every ill-typed one (ill_typed/, legacy/ without --legacy, views,
 * field permutations, type size…) is rejected with an Octez error.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { parseAndExpand } from "../../lib/michelson/text/macros.ts";
import { typecheckCode } from "../../lib/michelson/script/typecheck.ts";
import { TezosError } from "../../lib/errors/mod.ts";
import { REF, refJson, runContext } from "./script-context.ts";

const test = suite("script-typecheck");
const cases = refJson("typecheck-cases.json").typecheck_code as any[];

for (const c of cases) {
  test(`${c.id} ${c.file ?? "inline script"}${c.legacy ? " (legacy)" : ""} is ${c.expected === "ok" ? "well typed" : "rejected"}`, () => {
    let code;
    try {
      code = parseAndExpand(c.file ? readFileSync(REF + "contracts/" + c.file, "utf8") : c.script);
    } catch (e) {
      // syntax errors are the text parser's (`syntax error in program`)
      assert.is(c.expected, "error", String(e));
      return;
    }
    let err: unknown;
    try {
      const map = typecheckCode(runContext(), code, { legacy: c.legacy ?? false });
      assert.ok(Array.isArray(map));
    } catch (e) {
      err = e;
    }
    if (c.expected === "ok") assert.is(err, undefined, err instanceof TezosError ? JSON.stringify(err.trace.map((i) => i.id)) : String(err));
    else assert.instance(err, TezosError);
  });
}

test("a type map lists the stacks around each instruction, last checked first", () => {
  const code = parseAndExpand("parameter int; storage (list int); code { UNPAIR; CONS; NIL operation; PAIR };");
  const map = typecheckCode(runContext(), code);
  const locs = map.map((e) => e.location);
  // UNPAIR 8, CONS 9, NIL 10, PAIR 12 (canonical locations), PAIR checked last
  assert.equal(locs, [12, 10, 9, 8]);
  const unpair = map[3];
  assert.equal(unpair.stack_after.map((s) => s.annots), [["@parameter"], ["@storage"]]);
  assert.equal(unpair.stack_before[0].type, { prim: "pair", args: [{ prim: "int", annots: ["@parameter"] }, { prim: "list", args: [{ prim: "int" }], annots: ["@storage"] }] });
});

test("a branch that fails joins any stack; code after FAILWITH is rejected", () => {
  const ok = parseAndExpand("parameter bool; storage unit; code { CAR; IF { UNIT; FAILWITH } { UNIT; NIL operation; PAIR } };");
  typecheckCode(runContext(), ok);
  const bad = parseAndExpand("parameter unit; storage unit; code { UNIT; FAILWITH; DROP };");
  try {
    typecheckCode(runContext(), bad);
    assert.unreachable();
  } catch (e) {
    assert.equal((e as TezosError).trace.map((i) => i.id.replace("proto.011-PtHangz2.", "")), ["michelson_v1.ill_typed_contract", "michelson_v1.fail_not_in_tail_position"]);
  }
});

test.run();
