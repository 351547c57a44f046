/**
 * Gas of on-chain views as Octez 011 charges it, through `helpers/scripts/trace_code` on a
 * sandbox where the viewed contracts are originated. Octez records no run with views and gas,
 * so every expected number below is derived by hand from the 011 cost model
 * (`michelson_v1_gas.ml`, `global_constants_costs.ml`, `storage_costs.ml`, `script_repr.ml`,
 * `script_typed_ir_size_costs.ml`), comparing two runs that differ in one known way:
 *
 * - running a script (`parse_script`) never type-checks its views: only the global constants
 *   traversal and the typed IR size (45 milligas per Micheline node of a view) see them;
 * - VIEW (`IView`) parses its target with `parse_script ~legacy:true` (same: the other views are
 *   not type-checked), then checks only the requested view (`parse_view_returning`);
 * - VIEW merges the view's output type with its own (`merge_types` in the gas monad): a
 *   mismatch spends the merge cycles and serializes both types for the error, then gives None.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Json } from "../../lib/encoding/codec.ts";
import type { Origination } from "../../lib/encoding/hangzhou/operation.ts";
import { encodeMicheline, type Micheline } from "../../lib/encoding/micheline.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { BOOTSTRAP, forge, manager } from "../hangzhou/manager-fixture.ts";
import { dataOf, nodeCall, scriptOf } from "./conformance-support.ts";

// ---------------------------------------------------------------- Octez 011 cost model, by hand

/** Micheline nodes of an expression (`Script_repr.micheline_nodes`: every Int/String/Bytes/Prim/Seq). */
function nodes(n: Micheline): number {
  if (Array.isArray(n)) return 1 + (n as readonly Micheline[]).reduce((s, c) => s + nodes(c), 0);
  const p = n as { args?: readonly Micheline[] };
  return 1 + (p.args ?? []).reduce((s, c) => s + nodes(c), 0);
}

/** `expand_no_constants_branch_cost`: v = n × (1 + numbits n); 100 + 4v + (v lsr 1) + (v lsr 3). */
function expandCost(n: number): number {
  const v = n * (1 + n.toString(2).length);
  return 100 + 4 * v + (v >> 1) + (v >> 3);
}

/** `Script_typed_ir_size_costs.nodes_cost`: 45 milligas per node. */
const IR_NODE = 45;
/** `Micheline_decoding.bytes_dependent_cost` (force_decode of a stored lazy expression): 20 per byte. */
const DECODE_BYTE = 20;
/** `Storage_costs.read_access`: 2 per byte read. */
const READ_BYTE = 2;
/** `cost_MERGE_TYPES` (merge_cycle). */
const MERGE_CYCLE = 220;
/** `cost_UNPARSE_TYPE` (unparse_type_cycle). */
const UNPARSE_CYCLE = 20;
/** `cost_micheline_strip_locations`: 51 per node. */
const STRIP_NODE = 51;
/** Interpreter: `cost_N_ICdr`, `cost_N_IHalt`, `cost_N_KView_exit`, `cost_N_KReturn`, `cost_N_KCons`, `cost_N_ICons_some`. */
const CDR = 10, HALT = 15, KVIEW_EXIT = 15, KRETURN = 15, KCONS = 15, CONS_SOME = 15;

// ---------------------------------------------------------------- scripts

/** A contract with views `v` and `w`; `extraW` instructions are appended to `w` (2 nodes per `DUP ; DROP`). */
function target(extraW: string): string {
  return `parameter unit ; storage nat ; code { CDR ; NIL operation ; PAIR } ;
view "v" unit nat { CDR } ;
view "w" int int { CAR ${extraW} }`;
}
const T1 = target("");
const T2 = target("; DUP ; DROP");
/** Micheline nodes and binary bytes T2 has more than T1 (both in view `w`). */
const EXTRA_NODES = nodes(scriptOf(T2)) - nodes(scriptOf(T1));
const EXTRA_BYTES = encodeMicheline(scriptOf(T2)).length - encodeMicheline(scriptOf(T1)).length;

/** A caller: `VIEW "v" <out>` on the address it is given (UNIT at location 9, VIEW at 10). */
function caller(out: string): string {
  return `parameter address ; storage (option ${out}) ; code { CAR ; UNIT ; VIEW "v" ${out} ; NIL operation ; PAIR }`;
}

/** Originates `codes` (storage 0 each) on `node`'s head (bootstrap1 signs, one block baked). */
async function originateAll(node: TezosNode, codes: string[]): Promise<string[]> {
  const source = BOOTSTRAP[0]!;
  const counter = BigInt((await nodeCall(node, "GET", `/chains/main/blocks/head/context/contracts/${source.pkh}/counter`)).json as string);
  const branch = (await nodeCall(node, "GET", "/chains/main/blocks/head/hash")).json as string;
  const contents = codes.map((code, i) =>
    manager<Origination>({
      kind: "origination", source: source.pkh, counter: counter + 1n + BigInt(i), balance: 0n,
      script: { code: scriptOf(code), storage: { int: "0" } }, fee: 100_000n, gas_limit: 20_000n, storage_limit: 5_000n,
    })
  );
  const injected = await nodeCall(node, "POST", "/injection/operation", toHex(await forge(source.sk, branch, contents)));
  assert.is(injected.status, 200, injected.text);
  assert.is((await nodeCall(node, "POST", "/sandbox/bake")).status, 200);
  const ops = (await nodeCall(node, "GET", "/chains/main/blocks/head/operations/3")).json as any[];
  const op = ops.find((o) => o.hash === injected.json);
  return op.contents.map((c: any) => {
    assert.is(c.metadata.operation_result.status, "applied", JSON.stringify(c.metadata.operation_result.errors ?? []));
    return c.metadata.operation_result.originated_contracts[0] as string;
  });
}

/** `trace_code` of `script` on the head: the steps (location, remaining milligas) and the final storage. */
async function trace(node: TezosNode, script: string, storage: string, input: string): Promise<{ steps: { location: number; gas: number }[]; storage: Micheline }> {
  const body: { [k: string]: Json } = {
    script: scriptOf(script) as Json, storage: dataOf(storage) as Json, input: dataOf(input) as Json,
    amount: "0", balance: "0", chain_id: "NetXdQprcVkpaWU",
  };
  const r = await nodeCall(node, "POST", "/chains/main/blocks/head/helpers/scripts/trace_code", body);
  assert.is(r.status, 200, r.text);
  return { steps: (r.json.trace as { location: number; gas: string }[]).map((s) => ({ location: s.location, gas: Number(s.gas) })), storage: r.json.storage };
}

/** Milligas spent by the VIEW of a {@link caller} trace (remaining after UNIT minus remaining after VIEW). */
function viewGas(steps: { location: number; gas: number }[]): number {
  const before = steps.find((s) => s.location === 9);
  const after = steps.find((s) => s.location === 10);
  assert.ok(before !== undefined && after !== undefined, "UNIT and VIEW are traced");
  return before.gas - after.gas;
}

let node: TezosNode;
let kt1: string;
let kt2: string;

test.before(async () => {
  node = await createNode({ bake: { mode: "manual" } });
  [kt1, kt2] = await originateAll(node, [T1, T2]);
});
test.after(async () => {
  await node.close();
});

test("the two targets differ by two Micheline nodes and four bytes, in a view only", () => {
  assert.is(EXTRA_NODES, 2);
  assert.is(EXTRA_BYTES, 4); // DUP and DROP: one tag byte and one primitive byte each
});

test("running a script does not type-check its views: only their nodes are charged (constants traversal, typed IR size)", async () => {
  const a = await trace(node, T1, "0", "Unit");
  const b = await trace(node, T2, "0", "Unit");
  // first step = the initial stack: everything parse_script charges is before it
  const n1 = nodes(scriptOf(T1));
  const expected = expandCost(n1 + EXTRA_NODES) - expandCost(n1) + IR_NODE * EXTRA_NODES;
  assert.is(a.steps[0]!.gas - b.steps[0]!.gas, expected);
});

test("VIEW type-checks only the view it calls: another view's extra code costs its bytes and nodes only", async () => {
  const a = await trace(node, caller("nat"), "None", `"${kt1}"`);
  const b = await trace(node, caller("nat"), "None", `"${kt2}"`);
  assert.equal(a.storage, { prim: "Some", args: [{ int: "0" }] });
  assert.equal(b.storage, { prim: "Some", args: [{ int: "0" }] });
  // Contract.get_script reads 4 more code bytes (read_access: 2 per byte) and charges their decoding
  // (Code.find: 20 per byte, the bytes stay undecoded), parse_code decodes them (20 per byte again),
  // traverses 2 more nodes for global constants and counts them in the IR size (45 each). The double
  // decoding is what Octez's recorded liquidity baking gas shows for Contract.get_script.
  const n1 = nodes(scriptOf(T1));
  const expected = READ_BYTE * EXTRA_BYTES + 2 * DECODE_BYTE * EXTRA_BYTES + expandCost(n1 + EXTRA_NODES) - expandCost(n1) + IR_NODE * EXTRA_NODES;
  assert.is(viewGas(b.steps) - viewGas(a.steps), expected);
});

test("a VIEW whose output type differs spends the merge and the types' serialization, then gives None", async () => {
  const ok = await trace(node, caller("nat"), "None", `"${kt1}"`);
  const bad = await trace(node, caller("int"), "None", `"${kt1}"`);
  assert.equal(ok.storage, { prim: "Some", args: [{ int: "0" }] });
  assert.equal(bad.storage, { prim: "None" });
  // both: get_script, parse_script, view_get, parse_view_returning of "v", one merge cycle (nat vs VIEW's type)
  // ok:  merge of the input stack, pair unit nat with pair unit nat (3 cycles), the body CDR and its IHalt,
  //      KView_exit, KReturn, then KCons and ICons_some (the Some)
  // bad: nat vs int mismatch: serialize_ty_for_error of both (one unparse cycle and one stripped node each)
  const okOnly = 3 * MERGE_CYCLE + CDR + HALT + KVIEW_EXIT + KRETURN + KCONS + CONS_SOME;
  const badOnly = 2 * (UNPARSE_CYCLE + STRIP_NODE);
  assert.is(viewGas(ok.steps) - viewGas(bad.steps), okOnly - badOnly);
});

test("a VIEW on an implicit account reads the two script entries and gives None", async () => {
  const r = await trace(node, caller("nat"), "None", `"${BOOTSTRAP[1]!.pkh}"`);
  assert.equal(r.storage, { prim: "None" });
  // cost_N_IView 1370 + Contract.get_script: two read_access ~path_length:2 ~read_bytes:0 (200 000 + 5 000 × 2 each)
  assert.is(viewGas(r.steps), 1370 + 2 * 210_000);
});

test.run();
