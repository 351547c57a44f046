/**
 * Michelson types against the reference contracts (tests_python/contracts_011): every parameter
 * and storage type of the well-typed contracts reads and prints back stably, and the ill-typed
 * contracts whose error is about a type or a constant get Octez's error.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { Micheline, MichelinePrim } from "../../lib/encoding/micheline.ts";
import { parseMichelineText, parseScriptText } from "../../lib/michelson/text/parse.ts";
import { printMicheline } from "../../lib/michelson/text/print.ts";
import { parseData } from "../../lib/michelson/data/parse-data.ts";
import {
  checkComparable, isComparable, isPackable, mergeTypes, MICHELSON_MAXIMUM_TYPE_SIZE, parsePackableTy, parseParameterTy, parseStorageTy, parseTy,
  parseViewTy, tyEquals, tySize, unparseTy,
} from "../../lib/michelson/data/parse-type.ts";
import { REF, testContext, traceIds } from "./data-context.ts";

const Types = suite("Michelson types of the reference contracts");

function contractFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...contractFiles(p));
    else if (name.endsWith(".tz")) out.push(p);
  }
  return out;
}
function section(items: readonly Micheline[], name: string): MichelinePrim | undefined {
  return items.find((n) => (n as MichelinePrim).prim === name) as MichelinePrim | undefined;
}
function findPrim(n: Micheline, name: string): MichelinePrim | undefined {
  if (Array.isArray(n)) {
    for (const c of n as Micheline[]) {
      const r = findPrim(c, name);
      if (r !== undefined) return r;
    }
    return undefined;
  }
  const p = n as MichelinePrim;
  if (p.prim === undefined) return undefined;
  if (p.prim === name) return p;
  for (const c of p.args ?? []) {
    const r = findPrim(c, name);
    if (r !== undefined) return r;
  }
  return undefined;
}

const contractsDir = REF + "contracts";
const wellTyped = contractFiles(contractsDir).filter((f) => !f.includes("/ill_typed/"));

Types(`the parameter and storage types of the ${wellTyped.length} well-typed contracts read and print back to the same type`, () => {
  let checked = 0;
  for (const file of wellTyped) {
    let items: Micheline[];
    try {
      items = parseScriptText(readFileSync(file, "utf8"), { check: false });
    } catch {
      continue; // a few files use macros or syntax checked elsewhere
    }
    const legacy = file.includes("/legacy/");
    for (const [name, read] of [["parameter", parseParameterTy], ["storage", parseStorageTy]] as const) {
      const node = section(items, name)?.args?.[0];
      if (node === undefined) continue;
      const t = read(node, { legacy });
      const printed = unparseTy(t);
      const again = parseTy(printed);
      assert.ok(tyEquals(t, again), `${file} ${name}`);
      assert.is(printMicheline(unparseTy(again)), printMicheline(printed), `${file} ${name}`);
      checked++;
    }
  }
  assert.ok(checked > 600, `only ${checked} types checked`);
});

const ILL = contractsDir + "/ill_typed/";
function ill(file: string): Micheline[] {
  return parseScriptText(readFileSync(ILL + file, "utf8"), { check: false });
}
function errorIds(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    return traceIds(e);
  }
  return [];
}

Types("chain_id_arity.tz: `chain_id nat` is an arity error (primitive chain_id expects 0 arguments but is given 1)", () => {
  let json: { id: string; primitive_name?: string; expected_arity?: number; wrong_arity?: number }[] = [];
  try {
    parseParameterTy(section(ill("chain_id_arity.tz"), "parameter")!.args![0]!);
  } catch (e) {
    json = (e as { toJson(): typeof json }).toJson();
  }
  assert.is(json[0]?.id, "proto.011-PtHangz2.michelson_v1.invalid_arity");
  assert.equal([json[0]?.primitive_name, json[0]?.expected_arity, json[0]?.wrong_arity], ["chain_id", 0, 1]);
});

const VIEW_CASES: [string, "input" | "output", string][] = [
  ["view_toplevel_lazy_storage_input.tz", "input", "michelson_v1.unexpected_lazy_storage"],
  ["view_toplevel_lazy_storage_output.tz", "output", "michelson_v1.unexpected_lazy_storage"],
  ["view_toplevel_dupable_type_input.tz", "input", "michelson_v1.unexpected_ticket"],
  ["view_toplevel_dupable_type_output.tz", "output", "michelson_v1.unexpected_ticket"],
];
for (const [file, which, id] of VIEW_CASES) {
  Types(`${file}: the view ${which} type is refused with ${id}`, () => {
    const view = section(ill(file), "view")!;
    const node = view.args![which === "input" ? 1 : 2]!;
    assert.equal(errorIds(() => parseViewTy(node)), [id]);
  });
}

const PACKABLE_CASES: [string, string, string][] = [
  ["unpack_sapling_state.tz", "UNPACK", "michelson_v1.unexpected_lazy_storage"],
  ["ticket_unpack.tz", "UNPACK", "michelson_v1.unexpected_ticket"],
  ["push_big_map_with_id_with_parens.tz", "PUSH", "michelson_v1.unexpected_lazy_storage"],
];
for (const [file, instr, id] of PACKABLE_CASES) {
  Types(`${file}: the type of ${instr} is not packable (${id})`, () => {
    const p = findPrim(section(ill(file), "code")!.args![0]!, instr)!;
    assert.equal(errorIds(() => parsePackableTy(p.args![0]!)), [id]);
  });
}

Types("never_literal.tz: `PUSH never {}` has no inhabitant (invalid_never_expr inside invalid_constant)", () => {
  const p = findPrim(section(ill("never_literal.tz"), "code")!.args![0]!, "PUSH")!;
  const t = parsePackableTy(p.args![0]!);
  assert.equal(errorIds(() => parseData(testContext(), t, p.args![1]!)), ["michelson_v1.invalid_constant", "michelson_v1.invalid_never_expr"]);
});

// TestGasBound::test_originate_big_type: ten `DUP; PAIR` on a nat build a type of 2^11 - 1 nodes.
function doubled(n: number): string {
  return n === 0 ? "nat" : `(pair ${doubled(n - 1)} ${doubled(n - 1)})`;
}
Types("a type of 2047 nodes is too large (test_originate_big_type), one of 1023 is not", () => {
  assert.is(tySize(parseTy(parseMichelineText(doubled(9)))), 1023);
  assert.ok(1023 <= MICHELSON_MAXIMUM_TYPE_SIZE && 2047 > MICHELSON_MAXIMUM_TYPE_SIZE);
  assert.equal(errorIds(() => parseTy(parseMichelineText(doubled(10)))), ["michelson_v1.type_too_large"]);
});

Types("comparable positions take comparable types only (set of lists, map with big map keys)", () => {
  assert.equal(errorIds(() => parseTy(parseMichelineText("set (list nat)"))), ["michelson_v1.comparable_type_expected"]);
  assert.equal(errorIds(() => parseTy(parseMichelineText("map (big_map nat nat) nat"))), ["michelson_v1.invalid_primitive"]);
  assert.ok(isComparable(parseTy(parseMichelineText("pair (option nat) (or string key)"))));
  assert.not.ok(isComparable(parseTy(parseMichelineText("pair nat (list nat)"))));
  assert.equal(errorIds(() => checkComparable(parseTy(parseMichelineText("ticket unit")), 3)), ["michelson_v1.comparable_type_expected"]);
  assert.ok(isPackable(parseTy(parseMichelineText("lambda (big_map nat nat) unit"))));
  assert.not.ok(isPackable(parseTy(parseMichelineText("pair nat (contract unit)"))));
});

Types("type annotations clash outside legacy mode only (inconsistent_annotations inside inconsistent_types)", () => {
  const a = parseTy(parseMichelineText("pair (nat :a) int"));
  const b = parseTy(parseMichelineText("pair (nat :b) int"));
  assert.ok(tyEquals(a, b));
  mergeTypes(a, b, { legacy: true });
  const ids = errorIds(() => mergeTypes(a, b, { legacy: false, loc: 7 }));
  assert.equal(ids, ["michelson_v1.inconsistent_types", "michelson_v1.inconsistent_types", "michelson_v1.inconsistent_types", "michelson_v1.inconsistent_annotations"]);
  const c = parseTy(parseMichelineText("pair nat string"));
  assert.equal(errorIds(() => mergeTypes(a, c, { legacy: true })), ["michelson_v1.inconsistent_types", "michelson_v1.inconsistent_types", "michelson_v1.inconsistent_types"]);
});

Types("field annotations: allowed characters, one per child, kept and printed back", () => {
  const t = parseTy(parseMichelineText("pair (nat %x) (int %y)"));
  assert.is(printMicheline(unparseTy(t)), "pair (nat %x) (int %y)");
  assert.equal(errorIds(() => parseTy(parseMichelineText("pair (nat %.) (int %.)"))), ["michelson_v1.unexpected_annotation"]);
  assert.equal(errorIds(() => parseTy(parseMichelineText("(nat %x)"))), ["michelson_v1.unexpected_annotation"]);
  // The field annotation is taken out first: two type annotations remain.
  assert.equal(errorIds(() => parseTy(parseMichelineText("pair (nat :a %x :b) int"))), ["michelson_v1.unexpected_annotation"]);
  assert.equal(errorIds(() => parseTy(parseMichelineText("pair (nat :a @x :b) int"))), ["michelson_v1.ungrouped_annotations"]);
});

Types.run();
