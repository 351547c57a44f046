/**
 * No RPC call holds the node: a Michelson run with any gas, and rights over any bound, stop at
 * the call's work budget with `node.rpc.work_budget_exceeded`, and the rights let other calls go
 * on meanwhile; priorities stop at 65 535, the last there is.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../mod.ts";

const BUDGET_MS = 300;
const budget = suite<{ node: TezosNode }>("RPC work budget");
budget.before(async (ctx) => {
  ctx.node = await createNode({ bake: { mode: "manual" }, rpcWorkBudget: BUDGET_MS });
});
budget.after(async (ctx) => {
  await ctx.node.close();
});

async function call(node: TezosNode, path: string, body?: unknown) {
  const init: RequestInit = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  return { status: res.status, text, json: text === "" ? undefined : JSON.parse(text) };
}

const EXCEEDED = [{ kind: "temporary", id: "node.rpc.work_budget_exceeded", budget_ms: BUDGET_MS }];

/** `parameter unit; storage unit; code { DROP; PUSH bool True; LOOP { PUSH bool True }; UNIT; NIL operation; PAIR }`. */
const FOREVER = [
  { prim: "parameter", args: [{ prim: "unit" }] },
  { prim: "storage", args: [{ prim: "unit" }] },
  {
    prim: "code",
    args: [[{ prim: "DROP" }, { prim: "PUSH", args: [{ prim: "bool" }, { prim: "True" }] }, { prim: "LOOP", args: [[{ prim: "PUSH", args: [{ prim: "bool" }, { prim: "True" }] }]] }, { prim: "UNIT" }, { prim: "NIL", args: [{ prim: "operation" }] }, { prim: "PAIR" }]],
  },
];

budget("run_code with any gas stops at the budget; with the usual gas it runs out of gas as in Octez", async ({ node }) => {
  const input = { script: FOREVER, storage: { prim: "Unit" }, input: { prim: "Unit" }, amount: "0", balance: "0", chain_id: "NetXdQprcVkpaWU", gas: "99999999999999" };
  const started = Date.now();
  const r = await call(node, "/chains/main/blocks/head/helpers/scripts/run_code", input);
  assert.is(r.status, 500);
  assert.equal(r.json.slice(-1), EXCEEDED);
  assert.ok(Date.now() - started < 60_000);
  const bounded = await call(node, "/chains/main/blocks/head/helpers/scripts/run_code", { ...input, gas: "10000" });
  assert.is(bounded.status, 500);
  assert.ok(JSON.stringify(bounded.json).includes("gas_exhausted.operation"), bounded.text);
  // a trace keeps 100 000 steps at most (each holds a copy of the stack), or stops at the budget
  const traced = await call(node, "/chains/main/blocks/head/helpers/scripts/trace_code", input);
  assert.is(traced.status, 500);
  const last = traced.json.at(-1);
  assert.ok(
    JSON.stringify(last) === JSON.stringify(EXCEEDED[0]) || JSON.stringify(last) === JSON.stringify({ kind: "temporary", id: "node.rpc.trace_too_long", max_steps: 100000 }),
    traced.text,
  );
});

budget("a long Michelson run lets other calls go on, and its result is the same as in one go", async ({ node }) => {
  const input = { script: FOREVER, storage: { prim: "Unit" }, input: { prim: "Unit" }, amount: "0", balance: "0", chain_id: "NetXdQprcVkpaWU", gas: "99999999999999" };
  let answered = 0;
  let running = true;
  const pending = call(node, "/chains/main/blocks/head/helpers/scripts/run_code", input).then((r) => {
    running = false;
    return { ...r, answeredMeanwhile: answered };
  });
  while (running) {
    // a client's next request comes from I/O, a macrotask (in process, a read is only microtasks)
    await new Promise((resolve) => setTimeout(resolve, 1));
    const h = await call(node, "/chains/main/blocks/head/header");
    if (h.status === 200 && running) answered++;
  }
  const r = await pending;
  assert.equal(r.json.slice(-1), EXCEEDED);
  assert.ok(r.answeredMeanwhile >= 3, `${r.answeredMeanwhile} reads answered during the run`);
  // a run that ends: same storage and gas as without pauses (a loop of 50 000 turns, tens of milliseconds: several slices)
  const count = [
    { prim: "parameter", args: [{ prim: "unit" }] },
    { prim: "storage", args: [{ prim: "nat" }] },
    { prim: "code", args: [[{ prim: "CDR" }, { prim: "PUSH", args: [{ prim: "bool" }, { prim: "True" }] }, { prim: "LOOP", args: [[{ prim: "PUSH", args: [{ prim: "nat" }, { int: "1" }] }, { prim: "ADD" }, { prim: "DUP" }, { prim: "PUSH", args: [{ prim: "nat" }, { int: "50000" }] }, { prim: "COMPARE" }, { prim: "GT" }]] }, { prim: "NIL", args: [{ prim: "operation" }] }, { prim: "PAIR" }]] },
  ];
  const done = await call(node, "/chains/main/blocks/head/helpers/scripts/run_code", { ...input, script: count, storage: { int: "0" }, gas: "1040000" });
  assert.is(done.status, 200, done.text);
  assert.equal(done.json.storage, { int: "50000" });
});

budget("baking rights stop at 65 535 and at the budget, and other calls are answered meanwhile", async ({ node }) => {
  const all = await call(node, "/chains/main/blocks/head/helpers/baking_rights?max_priority=100000&all");
  if (all.status === 200) {
    assert.is(all.json.length, 65536);
    assert.is(all.json.at(-1).priority, 65535);
  } else assert.equal(all.json, EXCEEDED);
  // every level of cycles 0 to 2 (the sandbox's preserved cycles), 65 536 priorities each
  const many = `/chains/main/blocks/head/helpers/baking_rights?max_priority=65535&all&${Array.from({ length: 3 }, (_, c) => `cycle=${c}`).join("&")}`;
  let other = 0;
  const pending = call(node, many).then((r) => ({ ...r, otherBefore: other }));
  for (let i = 0; i < 5; i++) {
    const h = await call(node, "/chains/main/blocks/head/hash");
    if (h.status === 200) other++;
  }
  const r = await pending;
  assert.is(r.status, 500);
  assert.equal(r.json, EXCEEDED);
  assert.ok(r.otherBefore >= 1, "the head's hash was answered while the rights were computed");
  assert.is((await call(node, "/chains/main/blocks/head/helpers/baking_rights")).status, 200);
});

budget.run();
