/**
 * Hangzhou's Michelson RPCs below `{B}` (helpers/scripts, contract scripts, big maps) on the
 * sandbox fixture: answers conform to the schemas of `hangzhou-openapi.json` (strict validator),
 * values are those Octez gives (the python tests' recorded outputs, the contracts capture),
 * malformed input is a 400 from the RPC layer, ill-typed input a 500 with Hangzhou's error ids,
 * and nothing a helper runs changes the chain's state.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Json } from "../../lib/encoding/codec.ts";
import { parseAndExpand, parseAndExpandExpression } from "../../lib/michelson/text/mod.ts";
import { OCTEZ_FORMATS } from "../conformance/octez-formats.ts";
import { OpenApi, type Schema } from "../support/openapi.ts";
import { call, hangzhouFixture } from "./hangzhou-fixture.ts";

const api = OpenApi.load(new URL("../vectors/octez/hangzhou-openapi.json", import.meta.url));
const fx = await hangzhouFixture();
const B = "/chains/main/blocks/1";
const CPMM = "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5";
const LQT = "KT1AafHA1C1vk959wvHWBispY9Y2f3fxBUUo";
const BOOT1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";

const post = (path: string, body: unknown) =>
  call(fx, B + path, { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });

/**
 * Checks the answer against the OpenAPI schema of `template` (relative to `{B}`), with the
 * project's checks of what the file says in prose only (`OCTEZ_FORMATS`: a `bignum` is decimal,
 * so a gas of `"unaccounted"` fits only the Unaccounted branch, hashes and addresses are base58).
 */
function conforms(template: string, method: "get" | "post", value: unknown, schema: Schema = api.response(template, method)): void {
  assert.equal(api.validate(value, schema, { formats: OCTEZ_FORMATS }), [], `${method.toUpperCase()} ${template}`);
}

/**
 * `typecheck_code`'s answer against its schema, stack items read as the pairs they are. Octez
 * encodes a stack item as `tup2 (type, annotations)`; the file, having no tuple, writes it as an
 * array whose items are `oneOf [type, list of strings]`, which an empty annotation list fits twice
 * (a type may be a sequence). Each item is checked as a pair instead: exactly two elements, the
 * first against the file's type branch, the second against its annotation-list branch.
 */
function typeMapConforms(value: { type_map: { stack_before: Json[][]; stack_after: Json[][] }[] }): void {
  const schema = api.response("/helpers/scripts/typecheck_code", "post") as any;
  const entry = schema.properties.type_map.items;
  const stack = entry.properties.stack_before;
  const [typeBranch, annotsBranch] = stack.items.items.oneOf as [Schema, Schema];
  const pairs = { type: "array", items: { type: "array", minItems: 2, maxItems: 2 } };
  const asPairs: Schema = {
    ...schema,
    properties: { ...schema.properties, type_map: { ...schema.properties.type_map, items: { ...entry, properties: { ...entry.properties, stack_before: pairs, stack_after: pairs } } } },
  };
  conforms("/helpers/scripts/typecheck_code", "post", value, asPairs);
  for (const [i, e] of value.type_map.entries()) {
    for (const [k, item] of [...e.stack_before, ...e.stack_after].entries()) {
      assert.equal(api.validate(item[0], typeBranch, { formats: OCTEZ_FORMATS }), [], `type_map[${i}] item ${k}: type`);
      assert.equal(api.validate(item[1], annotsBranch, { formats: OCTEZ_FORMATS }), [], `type_map[${i}] item ${k}: annotations`);
    }
  }
}

const ids = (json: Json) => (json as { id: string }[]).map((e) => e.id.replace(/^proto\.011-PtHangz2\./, ""));
const bigMapScript = parseAndExpand(
  'parameter string; storage (pair (big_map string string) (option string)); code { UNPAIR ; DIP { CAR ; DUP } ; GET ; SWAP ; PAIR ; NIL operation ; PAIR }',
);
const run = (extra: { [k: string]: Json } = {}) => ({
  script: bigMapScript as Json,
  storage: parseAndExpandExpression('(Pair { Elt "hello" "hi" } None)') as Json,
  input: { string: "hello" },
  amount: "50000",
  balance: "4000000000000",
  chain_id: "NetXdQprcVkpaWU",
  ...extra,
});

test("run_code answers the new storage and the big map allocation of a fresh sandbox (map 4), twice in its two forms", async () => {
  const r = await post("/helpers/scripts/run_code", run());
  assert.is(r.status, 200);
  conforms("/helpers/scripts/run_code", "post", r.json);
  assert.equal(r.json.storage, { prim: "Pair", args: [{ int: "4" }, { prim: "Some", args: [{ string: "hi" }] }] });
  assert.equal(r.json.big_map_diff[0], { action: "alloc", big_map: "4", key_type: { prim: "string" }, value_type: { prim: "string" } });
  assert.equal(r.json.lazy_storage_diff[0].id, "4");
  assert.is(r.json.lazy_storage_diff[0].diff.action, "alloc");
});

test("trace_code answers each step with its location, milligas left and the stack with variable annotations", async () => {
  const r = await post("/helpers/scripts/trace_code", run({ unparsing_mode: "Optimized" }));
  assert.is(r.status, 200);
  conforms("/helpers/scripts/trace_code", "post", r.json);
  assert.is(r.json.trace[0].location, 12); // the first instruction (UNPAIR) in prefix order
  assert.equal(r.json.trace[1].stack.map((s: { annot?: string }) => s.annot), ["@parameter", "@storage"]);
  assert.ok(BigInt(r.json.trace[0].gas) > BigInt(r.json.trace.at(-1).gas));
});

test("nothing a run does is kept: the big map counter and the dummy contract are left as they were", async () => {
  await post("/helpers/scripts/run_code", run());
  assert.is((await call(fx, `${B}/context/big_maps/4`)).status, 404);
  assert.is((await call(fx, `${B}/context/contracts/KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi/balance`)).status, 404);
});

test("a FAILWITH is script_rejected inside runtime_error, with the failing value and location", async () => {
  const r = await post("/helpers/scripts/run_code", run({ script: parseAndExpand("parameter unit; storage unit; code { PUSH nat 7 ; FAILWITH }") as Json, storage: { prim: "Unit" }, input: { prim: "Unit" } }));
  assert.is(r.status, 500);
  assert.equal(ids(r.json), ["michelson_v1.runtime_error", "michelson_v1.script_rejected"]);
  assert.equal(r.json[1].with, { int: "7" });
  assert.is(r.json[1].location, 10);
});

test("malformed bodies are 400 from the RPC layer, an unknown entrypoint a 500 naming it", async () => {
  assert.is((await post("/helpers/scripts/run_code", "{")).status, 400);
  assert.is((await post("/helpers/scripts/run_code", { script: [] })).status, 400);
  assert.is((await post("/helpers/scripts/normalize_data", { data: { int: "1" }, type: { prim: "nat" }, unparsing_mode: "Pretty" })).status, 400);
  const r = await post("/helpers/scripts/run_code", run({ entrypoint: "nope" }));
  assert.is(r.status, 500);
  assert.ok(ids(r.json).includes("michelson_v1.no_such_entrypoint"));
});

test("typecheck_data answers the gas left, unaccounted without a limit, and ill_typed_data around the cause", async () => {
  const ok = await post("/helpers/scripts/typecheck_data", { data: { int: "1" }, type: { prim: "nat" } });
  conforms("/helpers/scripts/typecheck_data", "post", ok.json);
  assert.equal(ok.json, { gas: "unaccounted" });
  const limited = await post("/helpers/scripts/typecheck_data", { data: { int: "1" }, type: { prim: "nat" }, gas: "100" });
  assert.ok(BigInt(limited.json.gas) < 100_000n);
  const bad = await post("/helpers/scripts/typecheck_data", { data: { int: "-1" }, type: { prim: "nat" } });
  assert.is(bad.status, 500);
  assert.equal(ids(bad.json).slice(0, 2), ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant"]);
});

test("pack_data and the early layout's hash_data give the python test's bytes and expr hash", async () => {
  const body = { data: parseAndExpandExpression('(Pair 22220000000 (Pair "2017-12-13T04:49:00Z" 034))'), type: parseAndExpandExpression("(pair mutez (pair timestamp int))") };
  const p = await post("/helpers/scripts/pack_data", body);
  conforms("/helpers/scripts/pack_data", "post", p.json);
  assert.is(p.json.packed, "0507070080acd2c6a501070700bcc485a30b0022");
  const h = await post("/helpers/scripts/hash_data", body);
  assert.equal(h.json, { hash: "expruenXhGp5JQoHJTGv4DzBR8Zm3HGvea8Q8BaMPywsY2bxrHAEgC", gas: "unaccounted" });
  const old = await call(fx, "/blocks/1/proto/helpers/hash_data", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  assert.is(old.json.hash, h.json.hash);
});

test("normalize_data, normalize_type and normalize_script follow the unparsing mode and never fold types", async () => {
  const data = parseAndExpandExpression("{Pair 0 3 6 9; Pair 1 (Pair 4 (Pair 7 10))}");
  const type = parseAndExpandExpression("list (pair nat nat nat nat)");
  const opt = await post("/helpers/scripts/normalize_data", { data, type, unparsing_mode: "Optimized" });
  conforms("/helpers/scripts/normalize_data", "post", opt.json);
  assert.equal(opt.json.normalized, [[0, 3, 6, 9].map((i) => ({ int: String(i) })), [1, 4, 7, 10].map((i) => ({ int: String(i) }))]);
  const t = await post("/helpers/scripts/normalize_type", { type: parseAndExpandExpression("pair nat int bool") });
  conforms("/helpers/scripts/normalize_type", "post", t.json);
  assert.equal(t.json.normalized, { prim: "pair", args: [{ prim: "nat" }, { prim: "pair", args: [{ prim: "int" }, { prim: "bool" }] }] });
  const s = await post("/helpers/scripts/normalize_script", { script: parseAndExpand("parameter unit; storage unit; code { PUSH (pair nat nat nat) (Pair 1 (Pair 2 3)) ; DROP ; CDR ; NIL operation ; PAIR }"), unparsing_mode: "Readable" });
  conforms("/helpers/scripts/normalize_script", "post", s.json);
  assert.equal(s.json.normalized[2].args[0][0].args[1], { prim: "Pair", args: [{ int: "1" }, { int: "2" }, { int: "3" }] });
});

test("entrypoint and entrypoints of a script: named entrypoints in decreasing order, unreachable paths", async () => {
  const script = parseAndExpand("parameter (or (int %a) (or (nat %b) unit)); storage unit; code FAILWITH");
  const l = await post("/helpers/scripts/entrypoints", { script });
  conforms("/helpers/scripts/entrypoints", "post", l.json);
  assert.is(l.text, '{"unreachable":[{"path":["Right","Right"]}],"entrypoints":{"b":{"prim":"nat"},"a":{"prim":"int"}}}\n');
  const e = await post("/helpers/scripts/entrypoint", { script, entrypoint: "b" });
  assert.equal(e.json, { entrypoint_type: { prim: "nat" } });
  assert.ok(ids((await post("/helpers/scripts/entrypoint", { script, entrypoint: "c" })).json).includes("michelson_v1.no_such_entrypoint"));
});

test("typecheck_code answers a type map with [type, annotations] stacks", async () => {
  const r = await post("/helpers/scripts/typecheck_code", { program: parseAndExpand("parameter int; storage (list int); code { UNPAIR ; CONS ; NIL operation ; PAIR }"), gas: "10000" });
  assert.is(r.status, 200);
  typeMapConforms(r.json);
  assert.ok(r.json.type_map.length >= 4);
});

test("contract entrypoints, storage and script in normalized forms for the liquidity baking contracts", async () => {
  const e = await call(fx, `${B}/context/contracts/${LQT}/entrypoints`);
  conforms("/context/contracts/{contract_id}/entrypoints", "get", e.json);
  assert.equal(Object.keys(e.json.entrypoints), [...Object.keys(e.json.entrypoints)].sort().reverse());
  const one = await call(fx, `${B}/context/contracts/${LQT}/entrypoints/transfer`);
  assert.equal(one.json.prim, "pair");
  assert.is((await call(fx, `${B}/context/contracts/${LQT}/entrypoints/nope`)).status, 404);
  assert.is((await call(fx, `${B}/context/contracts/${BOOT1}/entrypoints`)).status, 404);
  const s = await post(`/context/contracts/${CPMM}/storage/normalized`, { unparsing_mode: "Readable" });
  conforms("/context/contracts/{contract_id}/storage/normalized", "post", s.json);
  assert.equal(s.json.args.at(-1), { string: LQT });
  const o = await post(`/context/contracts/${CPMM}/storage/normalized`, { unparsing_mode: "Optimized" });
  assert.equal(o.json.at(-1), { bytes: "0115eb0104481a6d7921160bc982c5e0a561cd8a3a00" }); // optimized: a comb as a sequence, addresses as bytes
  const sc = await post(`/context/contracts/${CPMM}/script/normalized`, { unparsing_mode: "Readable" });
  conforms("/context/contracts/{contract_id}/script/normalized", "post", sc.json);
  assert.equal(sc.json.code.map((x: { prim: string }) => x.prim).slice(0, 3), ["parameter", "storage", "code"]);
  assert.is((await post(`/context/contracts/${BOOT1}/storage/normalized`, { unparsing_mode: "Readable" })).text, "null\n");
});

test("run_view calls a TZIP-4 view and answers what it sends to the callback; a non-view entrypoint is illformedViewType", async () => {
  const body = { contract: LQT, entrypoint: "getTotalSupply", input: { prim: "Unit" }, chain_id: "NetXdQprcVkpaWU", unparsing_mode: "Readable" };
  const r = await post("/helpers/scripts/run_view", body);
  conforms("/helpers/scripts/run_view", "post", r.json);
  assert.equal(r.json, { data: { int: "100" } }); // the LQT supply minted at activation
  const bad = await post("/helpers/scripts/run_view", { ...body, entrypoint: "transfer" });
  assert.is(bad.status, 500);
  assert.equal(ids(bad.json), ["illformedViewType"]);
  assert.equal(ids((await post("/helpers/scripts/run_view", { ...body, contract: BOOT1 })).json), ["viewedContractHasNoScript"]);
});

test("big maps: values, one key, the normalized form, and 404/400 as Octez", async () => {
  const all = await call(fx, `${B}/context/big_maps/2`);
  conforms("/context/big_maps/{big_map_id}", "get", all.json);
  assert.equal(all.json, [{ int: "100" }]);
  assert.equal((await call(fx, `${B}/context/big_maps/2?offset=1`)).json, []);
  assert.is((await call(fx, `${B}/context/big_maps/99`)).status, 404);
  assert.is((await call(fx, `${B}/context/big_maps/x`)).status, 400);
  const key = "exprtsjEVVZk3Gm82U9wEs8kvwRiQwUT7zipJwvCeFMNsApe2tQ15s";
  assert.is((await call(fx, `${B}/context/big_maps/2/${key}`)).status, 404);
  assert.is((await call(fx, `${B}/context/big_maps/2/exprX`)).status, 400);
  assert.is((await post(`/context/big_maps/2/${key}/normalized`, { unparsing_mode: "Readable" })).status, 404);
  const g = await post(`/context/contracts/${CPMM}/big_map_get`, { key: { int: "0" }, type: { prim: "int" } });
  assert.is(g.text, "null\n");
});

test.run();
