/**
 * Bad input thrown at every Michelson RPC of the sandbox fixture, through the node's own RPC
 * handler. What is expected is what Hangzhou's code decides (v12.4 `script_ir_translator.ml`,
 * `script_interpreter.ml`, `plugin.ml`, `gas_limit_repr.ml`):
 * - a body that does not decode is a 400 from the RPC layer: not JSON, not Micheline, a
 *   primitive unknown to `Michelson_v1_primitives.prim_encoding` (a string enum: case matters),
 *   a malformed int or bytes, a negative amount, a negative or saturating `gas`;
 * - everything else is a 500 whose JSON trace holds the registered Hangzhou errors, outermost
 *   first (`ill_typed_data` around `invalid_constant` around the cause, `ill_typed_contract`
 *   around a code error, `runtime_error` around what stopped the run), with Octez's locations;
 * - never a `failure` carrying a JavaScript error, and never a change in the store.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { call, hangzhouFixture } from "../rpc/hangzhou-fixture.ts";

const fx = await hangzhouFixture();
const B = "/chains/main/blocks/head";
const CPMM = "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5";
const LQT = "KT1AafHA1C1vk959wvHWBispY9Y2f3fxBUUo";
const DUMMY = "KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi";

const post = (path: string, body: unknown) =>
  call(fx, B + path, { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });

/** Error ids of a 500's trace, without the protocol prefix. */
const ids = (json: unknown) => (json as { id: string }[]).map((e) => e.id.replace(/^proto\.011-PtHangz2\./, ""));

/** One digest of every key and value of the node's store. */
function storeDigest(): string {
  const parts: Uint8Array[] = [];
  for (const [k, v] of fx.chain.store.kv.range({})) parts.push(k, Uint8Array.of(0xff), v, Uint8Array.of(0xfe));
  return toHex(blake2b256(...parts));
}

const prim = (p: string, ...args: unknown[]) => (args.length === 0 ? { prim: p } : { prim: p, args });
const U = prim("Unit");
const unit = prim("unit");
const script = (code: unknown[], param: unknown = unit, storage: unknown = unit) => [prim("parameter", param), prim("storage", storage), prim("code", code)];
const ID_CODE = [prim("CDR"), prim("NIL", prim("operation")), prim("PAIR")];
const run = (extra: { [k: string]: unknown } = {}) => ({ script: script(ID_CODE), storage: U, input: U, amount: "0", balance: "0", chain_id: "NetXdQprcVkpaWU", ...extra });

/** `n` nested `wrap`s around `leaf`, written as text (JSON.stringify of the object would itself need deep recursion). */
const nested = (n: number, open: string, leaf: string, close: string) => open.repeat(n) + leaf + close.repeat(n);
const pairTy = (n: number) => nested(n, '{"prim":"pair","args":[{"prim":"unit"},', '{"prim":"unit"}', "]}");
const pairV = (n: number) => nested(n, '{"prim":"Pair","args":[{"prim":"Unit"},', '{"prim":"Unit"}', "]}");
const optionTy = (n: number) => nested(n, '{"prim":"option","args":[', '{"prim":"unit"}', "]}");
const someV = (n: number) => nested(n, '{"prim":"Some","args":[', '{"prim":"Unit"}', "]}");
const seqs = (n: number) => nested(n, "[", "", "]");
const scriptText = (code: string, storageTy = '{"prim":"unit"}') =>
  `[{"prim":"parameter","args":[{"prim":"unit"}]},{"prim":"storage","args":[${storageTy}]},{"prim":"code","args":[${code}]}]`;
const ID_TEXT = '{"prim":"CDR"},{"prim":"NIL","args":[{"prim":"operation"}]},{"prim":"PAIR"}';

const before = storeDigest();

const Decode = suite("bodies that do not decode are refused by the RPC layer (400)");

const undecodable: [string, string, unknown][] = [
  ["a body that is not JSON", "/helpers/scripts/typecheck_data", '{"data":'],
  ["JSON that is not Micheline", "/helpers/scripts/typecheck_data", { data: { foo: 1 }, type: unit }],
  ["an unknown primitive in a type", "/helpers/scripts/typecheck_data", { data: U, type: prim("foo") }],
  ["an unknown primitive in data", "/helpers/scripts/typecheck_data", { data: prim("Foo"), type: unit }],
  ["an unknown primitive in code", "/helpers/scripts/typecheck_code", { program: script([prim("FOO")]) }],
  ["an instruction in the wrong case", "/helpers/scripts/run_code", run({ script: script([prim("drop"), ...ID_CODE]) })],
  ["a constructor in the wrong case", "/helpers/scripts/pack_data", { data: prim("pAir", U, U), type: prim("pair", unit, unit) }],
  ["an int that is not decimal", "/helpers/scripts/typecheck_data", { data: { int: "5x" }, type: prim("int") }],
  ["bytes of odd length", "/helpers/scripts/typecheck_data", { data: { bytes: "abc" }, type: prim("bytes") }],
  ["args that are not a list", "/helpers/scripts/normalize_type", { type: { prim: "list", args: { prim: "int" } } }],
  ["annotations that are not strings", "/helpers/scripts/normalize_type", { type: { prim: "int", annots: [1] } }],
  ["a negative gas limit (integral_exn fails)", "/helpers/scripts/typecheck_data", { data: U, type: unit, gas: "-1" }],
  ["a gas limit whose milligas saturates", "/helpers/scripts/pack_data", { data: U, type: unit, gas: "4611686018427388" }],
  ["a negative amount", "/helpers/scripts/run_code", run({ amount: "-1" })],
  ["a balance beyond int64", "/helpers/scripts/run_code", run({ balance: "9223372036854775808" })],
  ["an invalid chain id", "/helpers/scripts/run_code", run({ chain_id: "NetXdQ" })],
  ["an invalid source", "/helpers/scripts/run_code", run({ source: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSy" })],
  ["an invalid view contract", "/helpers/scripts/run_view", { contract: "KT1xxx", entrypoint: "x", input: U, chain_id: "NetXdQprcVkpaWU", unparsing_mode: "Readable" }],
  ["a missing field", "/helpers/scripts/script_size", { program: script(ID_CODE) }],
  ["an unknown unparsing mode", `/context/contracts/${CPMM}/storage/normalized`, { unparsing_mode: "Pretty" }],
];

for (const [what, path, body] of undecodable) {
  Decode(`${what} is a 400 at ${path.split("/").at(-1)}`, async () => {
    const r = await post(path, body);
    assert.is(r.status, 400, r.text.slice(0, 200));
    assert.ok(r.text.startsWith("Failed to parse the request body"), r.text.slice(0, 200));
  });
}

Decode("a gas limit at the largest integral value Hangzhou reads is accepted", async () => {
  const r = await post("/helpers/scripts/typecheck_data", { data: U, type: unit, gas: "4611686018427387" });
  assert.is(r.status, 200);
  const left = BigInt(r.json.gas);
  assert.ok(left < 4611686018427387000n && left > 4611686018427387000n - 10_000n, r.json.gas);
});

Decode.run();

const Refused = suite("ill-typed input is refused with Hangzhou's errors and locations (500)");

interface Case {
  path: string;
  body: unknown;
  ids: string[];
  /** Fields expected in trace items, by index. */
  fields?: { [index: number]: { [k: string]: unknown } };
}

const cases: [string, Case][] = [
  // types
  ["an instruction where a type is expected", { path: "/helpers/scripts/typecheck_data", body: { data: U, type: prim("UNIT") }, ids: ["michelson_v1.ill_formed_type", "michelson_v1.invalid_primitive_namespace"], fields: { 0: { location: 0 }, 1: { location: 0, primitive_name: "UNIT", expected_namespace: "type", wrong_namespace: "instruction" } } }],
  ["a pair type of one argument", { path: "/helpers/scripts/normalize_type", body: { type: prim("pair", prim("int")) }, ids: ["michelson_v1.invalid_arity"], fields: { 0: { primitive_name: "pair", expected_arity: 2, wrong_arity: 0 } } }],
  ["an annotation a type may not carry", { path: "/helpers/scripts/typecheck_data", body: { data: U, type: { prim: "unit", annots: ["!x"] } }, ids: ["michelson_v1.ill_formed_type", "michelson_v1.unexpected_annotation"] }],
  ["a big map type where only comparable types go", { path: `/context/contracts/${CPMM}/big_map_get`, body: { key: U, type: prim("big_map", prim("int"), prim("int")) }, ids: ["michelson_v1.invalid_primitive"] }],
  ["a list as a big map key type", { path: `/context/contracts/${CPMM}/big_map_get`, body: { key: [], type: prim("list", prim("int")) }, ids: ["michelson_v1.comparable_type_expected"] }],
  ["an instruction as a big map key type", { path: `/context/contracts/${CPMM}/big_map_get`, body: { key: { int: "0" }, type: prim("INT") }, ids: ["michelson_v1.invalid_primitive_namespace"], fields: { 0: { location: 0, primitive_name: "INT" } } }],
  ["a type where data is expected", { path: "/helpers/scripts/pack_data", body: { data: unit, type: unit }, ids: ["michelson_v1.invalid_constant", "michelson_v1.invalid_primitive_namespace"] }],
  ["an operation type to pack", { path: "/helpers/scripts/pack_data", body: { data: U, type: prim("operation") }, ids: ["michelson_v1.unexpected_operation"] }],
  // data
  ["a Pair of one element", { path: "/helpers/scripts/typecheck_data", body: { data: prim("Pair", { int: "1" }), type: prim("pair", prim("int"), prim("int")) }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_arity"] }],
  ["an annotation on a data constructor", { path: "/helpers/scripts/typecheck_data", body: { data: { prim: "Unit", annots: ["%x"] }, type: unit }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.unexpected_annotation"] }],
  ["an instruction as data", { path: "/helpers/scripts/typecheck_data", body: { data: prim("DROP"), type: unit }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_primitive_namespace"] }],
  ["a negative nat", { path: "/helpers/scripts/typecheck_data", body: { data: { int: "-1" }, type: prim("nat") }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_syntactic_constant"] }],
  ["a negative mutez", { path: "/helpers/scripts/typecheck_data", body: { data: { int: "-1" }, type: prim("mutez") }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_syntactic_constant"] }],
  ["a mutez beyond int64", { path: "/helpers/scripts/pack_data", body: { data: { int: "9223372036854775808" }, type: prim("mutez") }, ids: ["michelson_v1.invalid_constant", "michelson_v1.invalid_syntactic_constant"] }],
  ["a string of the wrong kind", { path: "/helpers/scripts/normalize_data", body: { data: { string: "x" }, type: prim("nat"), unparsing_mode: "Readable" }, ids: ["michelson_v1.invalid_constant", "michelson_v1.invalid_expression_kind"], fields: { 1: { location: 0, expected_kinds: ["integer"], wrong_kind: "string" } } }],
  ["a non-printable character in a string", { path: "/helpers/scripts/typecheck_data", body: { data: { string: "a\u0001b" }, type: prim("string") }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_syntactic_constant", "michelson_v1.non_printable_character"] }],
  ["a non-ASCII character in a string", { path: "/helpers/scripts/typecheck_data", body: { data: { string: "é" }, type: prim("string") }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_syntactic_constant", "michelson_v1.non_printable_character"] }],
  ["an invalid address", { path: "/helpers/scripts/typecheck_data", body: { data: { string: "tz1xxx" }, type: prim("address") }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "contract.invalid_contract_notation"] }],
  ["address bytes too short", { path: "/helpers/scripts/typecheck_data", body: { data: { bytes: "00" }, type: prim("address") }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_syntactic_constant"] }],
  ["an invalid key", { path: "/helpers/scripts/typecheck_data", body: { data: { string: "edpkxxx" }, type: prim("key") }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_syntactic_constant"] }],
  ["key bytes with an unknown curve tag", { path: "/helpers/scripts/typecheck_data", body: { data: { bytes: "09" + "00".repeat(32) }, type: prim("key") }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_syntactic_constant"] }],
  ["signature bytes of the wrong length", { path: "/helpers/scripts/typecheck_data", body: { data: { bytes: "00" }, type: prim("signature") }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_syntactic_constant"] }],
  ["an invalid chain id", { path: "/helpers/scripts/typecheck_data", body: { data: { string: "Net" }, type: prim("chain_id") }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_syntactic_constant"] }],
  ["a timestamp in year 10000", { path: "/helpers/scripts/typecheck_data", body: { data: { string: "10000-01-01T00:00:00Z" }, type: prim("timestamp") }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_syntactic_constant"] }],
  ["a timestamp in month 13", { path: "/helpers/scripts/typecheck_data", body: { data: { string: "2019-13-01T00:00:00Z" }, type: prim("timestamp") }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_syntactic_constant"] }],
  ["an unordered set", { path: "/helpers/scripts/typecheck_data", body: { data: [{ int: "2" }, { int: "1" }], type: prim("set", prim("int")) }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.unordered_set_literal"] }],
  ["a map with a duplicate key", { path: "/helpers/scripts/typecheck_data", body: { data: [prim("Elt", { int: "1" }, U), prim("Elt", { int: "1" }, U)], type: prim("map", prim("int"), unit) }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.duplicate_map_keys"] }],
  ["a contract that does not exist", { path: "/helpers/scripts/typecheck_data", body: { data: { string: DUMMY }, type: prim("contract", unit) }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_contract"] }],
  ["a big map id that does not exist", { path: "/helpers/scripts/typecheck_data", body: { data: { int: "999" }, type: prim("big_map", prim("int"), prim("int")) }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_big_map"] }],
  ["a big map id of other types (ty_eq, not traced)", { path: "/helpers/scripts/typecheck_data", body: { data: { int: "0" }, type: prim("big_map", prim("int"), prim("int")) }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.inconsistent_types"] }],
  ["an ill-typed lambda", { path: "/helpers/scripts/typecheck_data", body: { data: [prim("ADD")], type: prim("lambda", prim("int"), prim("int")) }, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.bad_stack"] }],
  ["a big map key of the wrong type", { path: `/context/contracts/${CPMM}/big_map_get`, body: { key: { string: "x" }, type: prim("int") }, ids: ["michelson_v1.invalid_constant", "michelson_v1.invalid_expression_kind"] }],
  // scripts
  ["an instruction of the wrong arity", { path: "/helpers/scripts/typecheck_code", body: { program: script([prim("DROP", { int: "1" }, { int: "2" })]) }, ids: ["michelson_v1.ill_typed_contract", "michelson_v1.invalid_arity"], fields: { 1: { location: 7, primitive_name: "DROP", expected_arity: 1, wrong_arity: 2 } } }],
  ["two variable annotations on CDR", { path: "/helpers/scripts/typecheck_code", body: { program: script([{ prim: "CDR", annots: ["@a", "@b"] }, prim("NIL", prim("operation")), prim("PAIR")]) }, ids: ["michelson_v1.ill_typed_contract", "michelson_v1.unexpected_annotation"], fields: { 1: { location: 7 } } }],
  ["a script without storage", { path: "/helpers/scripts/typecheck_code", body: { program: [prim("parameter", unit), prim("code", [])] }, ids: ["michelson_v1.ill_typed_contract", "michelson_v1.missing_script_field"] }],
  ["a script with two parameter fields", { path: "/helpers/scripts/typecheck_code", body: { program: [prim("parameter", unit), prim("parameter", unit), prim("storage", unit), prim("code", [])] }, ids: ["michelson_v1.ill_typed_contract", "michelson_v1.duplicate_script_field"] }],
  ["a script that is an int", { path: "/helpers/scripts/typecheck_code", body: { program: { int: "1" } }, ids: ["michelson_v1.ill_typed_contract", "michelson_v1.invalid_expression_kind"] }],
  ["ADD on a unit deep inside IF_NONE and DIP", { path: "/helpers/scripts/typecheck_code", body: { program: script([prim("CDR"), prim("IF_NONE", [prim("DIP", [prim("ADD")])], []), prim("NIL", prim("operation")), prim("PAIR")], unit, prim("option", prim("int"))) }, ids: ["michelson_v1.ill_typed_contract", "michelson_v1.bad_stack"] }],
  ["an entrypoint name of 32 characters", { path: "/helpers/scripts/entrypoint", body: { script: script(ID_CODE), entrypoint: "a".repeat(32) }, ids: ["michelson_v1.entrypoint_name_too_long"] }],
  ["an unknown entrypoint", { path: "/helpers/scripts/entrypoint", body: { script: script(ID_CODE), entrypoint: "nope" }, ids: ["michelson_v1.no_such_entrypoint"], fields: { 0: { entrypoint: "nope" } } }],
  // runs
  ["run_code with an unknown entrypoint", { path: "/helpers/scripts/run_code", body: run({ entrypoint: "nope" }), ids: ["michelson_v1.bad_contract_parameter", "michelson_v1.no_such_entrypoint"], fields: { 0: { contract: DUMMY } } }],
  ["run_code with a parameter of the wrong type", { path: "/helpers/scripts/run_code", body: run({ input: { int: "1" } }), ids: ["michelson_v1.bad_contract_parameter", "michelson_v1.invalid_constant", "michelson_v1.invalid_expression_kind"] }],
  ["run_code with a storage of the wrong type", { path: "/helpers/scripts/run_code", body: run({ storage: { int: "1" } }), ids: ["michelson_v1.invalid_constant", "michelson_v1.invalid_expression_kind"] }],
  ["run_code with a forged ticket as parameter", { path: "/helpers/scripts/run_code", body: run({ script: script(ID_CODE, prim("ticket", unit)), input: prim("Pair", { string: DUMMY }, U, { int: "1" }) }), ids: ["michelson_v1.bad_contract_parameter", "michelson_v1.invalid_constant", "michelson_v1.unexpected_forged_value"] }],
  ["run_code of an infinite LOOP within its gas", { path: "/helpers/scripts/run_code", body: run({ script: script([prim("PUSH", prim("bool"), prim("True")), prim("LOOP", [prim("PUSH", prim("bool"), prim("True"))]), ...ID_CODE]), gas: "20000" }), ids: ["michelson_v1.runtime_error", "gas_exhausted.operation"] }],
  // (traced, with 2 000 gas this loop takes more than the 100 000 steps a trace keeps: node.rpc.trace_too_long)
  ["trace_code of an infinite LOOP within its gas", { path: "/helpers/scripts/trace_code", body: run({ script: script([prim("PUSH", prim("bool"), prim("True")), prim("LOOP", [prim("PUSH", prim("bool"), prim("True"))]), ...ID_CODE]), gas: "1000" }), ids: ["michelson_v1.runtime_error", "gas_exhausted.operation"] }],
  ["run_code with a FAILWITH", { path: "/helpers/scripts/run_code", body: run({ script: script([prim("PUSH", prim("nat"), { int: "7" }), prim("FAILWITH")]) }), ids: ["michelson_v1.runtime_error", "michelson_v1.script_rejected"], fields: { 1: { location: 10, with: { int: "7" } } } }],
  ["run_view of an unknown entrypoint", { path: "/helpers/scripts/run_view", body: { contract: LQT, entrypoint: "nope", input: U, chain_id: "NetXdQprcVkpaWU", unparsing_mode: "Readable" }, ids: ["michelson_v1.no_such_entrypoint"] }],
  ["run_view with an input of the wrong type", { path: "/helpers/scripts/run_view", body: { contract: LQT, entrypoint: "getTotalSupply", input: { int: "1" }, chain_id: "NetXdQprcVkpaWU", unparsing_mode: "Readable" }, ids: ["michelson_v1.bad_contract_parameter", "michelson_v1.invalid_constant", "michelson_v1.invalid_constant", "michelson_v1.invalid_expression_kind"] }],
  ["run_view of an implicit-less contract", { path: "/helpers/scripts/run_view", body: { contract: DUMMY, entrypoint: "x", input: U, chain_id: "NetXdQprcVkpaWU", unparsing_mode: "Readable" }, ids: ["viewedContractHasNoScript"] }],
  // gas given to the helpers that do not run code
  ["a long string typechecked with too little gas", { path: "/helpers/scripts/typecheck_data", body: { data: { string: "a".repeat(100_000) }, type: prim("string"), gas: "100" }, ids: ["michelson_v1.ill_typed_data", "gas_exhausted.operation"] }],
  ["long bytes packed with too little gas", { path: "/helpers/scripts/pack_data", body: { data: { bytes: "ab".repeat(100_000) }, type: prim("bytes"), gas: "1000" }, ids: ["gas_exhausted.operation"] }],
  ["a list of 50 000 ints with 1 000 gas", { path: "/helpers/scripts/typecheck_data", body: { data: Array.from({ length: 50_000 }, (_, i) => ({ int: String(i) })), type: prim("list", prim("int")), gas: "1000" }, ids: ["michelson_v1.ill_typed_data", "gas_exhausted.operation"] }],
  ["a script of 20 000 instructions with 1 000 gas", { path: "/helpers/scripts/typecheck_code", body: { program: script([prim("DROP"), ...Array.from({ length: 10_000 }, () => [prim("UNIT"), prim("DROP")]).flat(), prim("UNIT"), prim("NIL", prim("operation")), prim("PAIR")]), gas: "1000" }, ids: ["michelson_v1.ill_typed_contract", "gas_exhausted.operation"] }],
  // Octez checks a sequence element by element, one level of recursion each: 10 000 is its limit
  ["a sequence of 10 001 instructions", { path: "/helpers/scripts/typecheck_code", body: { program: script([prim("DROP"), ...Array.from({ length: 5_000 }, () => [prim("UNIT"), prim("DROP")]).flat(), prim("UNIT"), prim("NIL", prim("operation")), prim("PAIR")]) }, ids: ["michelson_v1.ill_typed_contract", "michelson_v1.typechecking_too_many_recursive_calls"] }],
];

for (const [what, c] of cases) {
  Refused(`${what} (${c.path.split("/").at(-1)}): ${c.ids.join(" > ")}`, async () => {
    const r = await post(c.path, c.body);
    assert.is(r.status, 500, r.text.slice(0, 300));
    assert.equal(ids(r.json), c.ids);
    for (const [i, fields] of Object.entries(c.fields ?? {})) {
      for (const [k, v] of Object.entries(fields)) assert.equal(r.json[Number(i)][k], v, `${c.ids[Number(i)]}.${k}`);
    }
  });
}

Refused("a sequence of 10 000 instructions is within Octez's limit", async () => {
  const code = [prim("DROP"), ...Array.from({ length: 4_998 }, () => [prim("UNIT"), prim("DROP")]).flat(), prim("UNIT"), prim("NIL", prim("operation")), prim("PAIR")];
  const r = await post("/helpers/scripts/typecheck_code", { program: script(code) });
  assert.is(r.status, 200, r.text.slice(0, 300));
});

Refused.run();

const Deep = suite("deep and large expressions: Octez's limits, never a JavaScript error");

const notCrash = (r: { status: number; text: string; json?: unknown }) => {
  assert.not.ok(r.text.includes('"failure"'), r.text.slice(0, 300));
  assert.not.ok(/RangeError|TypeError|call stack/.test(r.text.slice(0, 2000)), r.text.slice(0, 300));
};

Deep("a type of 2 001 nodes (pair nested 1 000 times) and its value are accepted", async () => {
  const r = await post("/helpers/scripts/typecheck_data", `{"data":${pairV(1000)},"type":${pairTy(1000)}}`);
  assert.is(r.status, 200, r.text.slice(0, 300));
});

Deep("a type of 2 003 nodes is type_too_large at the pair where the size passes 2 001", async () => {
  const r = await post("/helpers/scripts/pack_data", `{"data":${pairV(1001)},"type":${pairTy(1001)}}`);
  assert.is(r.status, 500);
  assert.equal(ids(r.json), ["michelson_v1.type_too_large"]);
  assert.equal(r.json[0], { kind: "permanent", id: "proto.011-PtHangz2.michelson_v1.type_too_large", loc: 0, maximum_type_size: 2001 });
  // nested 1 010 times: sizes grow from the innermost pair, the 10th from the top passes first
  const deeper = await post("/helpers/scripts/normalize_type", `{"type":${pairTy(1010)}}`);
  assert.equal(deeper.json[0].loc, 18);
});

Deep("a Pair nested 1 000 times against unit fails at once at location 0", async () => {
  const r = await post("/helpers/scripts/run_code", `{"script":${scriptText('[{"prim":"FAILWITH"}]')},"storage":${pairV(1000)},"input":{"prim":"Unit"},"amount":"0","balance":"0","chain_id":"NetXdQprcVkpaWU"}`);
  assert.is(r.status, 500);
  assert.equal(ids(r.json), ["michelson_v1.invalid_constant", "michelson_v1.invalid_primitive"]);
  assert.is(r.json[0].location, 0);
});

Deep("options nested up to the type size limit never end in a JavaScript error", async () => {
  // (errors that carry a 1 999-deep expression are left out: lib/rpc/media.ts cannot print them yet)
  for (const n of [500, 1200, 1999]) {
    for (const path of n < 1999 ? ["/helpers/scripts/typecheck_data", "/helpers/scripts/pack_data", "/helpers/scripts/normalize_data"] : ["/helpers/scripts/pack_data"]) {
      const extra = path.endsWith("normalize_data") ? ',"unparsing_mode":"Readable"' : "";
      const r = await post(path, `{"data":${someV(n)},"type":${optionTy(n)}${extra}}`);
      notCrash(r);
      if (r.status === 200) continue;
      // where the engine's stack ends before Octez's 10 000 levels: Octez's recursion error
      assert.is(r.status, 500, `${path} at ${n}`);
      assert.ok(ids(r.json).at(-1) === "michelson_v1.typechecking_too_many_recursive_calls" || ids(r.json).at(-1) === "michelson_v1.unparsing_stack_overflow", JSON.stringify(ids(r.json)));
    }
  }
});

Deep("sequences nested 900 times in code are checked and run", async () => {
  const code = `[${seqs(900)},${ID_TEXT}]`;
  const t = await post("/helpers/scripts/typecheck_code", `{"program":${scriptText(code)}}`);
  assert.is(t.status, 200, t.text.slice(0, 300));
  const r = await post("/helpers/scripts/run_code", `{"script":${scriptText(code)},"storage":{"prim":"Unit"},"input":{"prim":"Unit"},"amount":"0","balance":"0","chain_id":"NetXdQprcVkpaWU"}`);
  assert.equal(r.json, { storage: U, operations: [] });
});

for (const n of [10_000, 100_000]) {
  Deep(`expressions nested ${n} times are refused before any work (400), whatever the RPC`, async () => {
    const bodies: [string, string][] = [
      ["/helpers/scripts/typecheck_data", `{"data":${pairV(n)},"type":${pairTy(n)}}`],
      ["/helpers/scripts/pack_data", `{"data":${someV(n)},"type":${optionTy(n)}}`],
      ["/helpers/scripts/normalize_type", `{"type":${optionTy(n)}}`],
      ["/helpers/scripts/typecheck_code", `{"program":${scriptText(`[${seqs(n)},${ID_TEXT}]`)}}`],
      ["/helpers/scripts/run_code", `{"script":${scriptText(`[${nested(n, '[{"prim":"LAMBDA","args":[{"prim":"unit"},{"prim":"unit"},', "[]", ']},{"prim":"DROP"}]')},${ID_TEXT}]`)},"storage":{"prim":"Unit"},"input":{"prim":"Unit"},"amount":"0","balance":"0","chain_id":"NetXdQprcVkpaWU"}`],
      ["/helpers/scripts/script_size", `{"program":${scriptText(`[${ID_TEXT}]`)},"storage":${someV(n)}}`],
      ["/helpers/scripts/entrypoints", `{"script":${scriptText(`[${seqs(n)}]`)}}`],
      [`/context/contracts/${CPMM}/big_map_get`, `{"key":${someV(n)},"type":${optionTy(n)}}`],
    ];
    for (const [path, body] of bodies) {
      const r = await post(path, body);
      assert.is(r.status, 400, `${path}: ${r.text.slice(0, 200)}`);
      assert.ok(r.text.includes("nested too deeply"), path);
    }
  });
}

Deep("a list of 200 000 elements is read without a gas limit", async () => {
  const r = await post("/helpers/scripts/typecheck_data", { data: Array.from({ length: 200_000 }, (_, i) => ({ int: String(i) })), type: prim("list", prim("int")) });
  assert.equal(r.json, { gas: "unaccounted" });
});

Deep.run();

const State = suite("state");

State("after all of it the node's store holds exactly what it held before", () => {
  assert.is(storeDigest(), before);
  assert.is(fx.chain.head.hash, fx.level2);
});

State.run();
