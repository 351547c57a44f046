/**
 * Bad Michelson input in operations baked into real blocks. Hangzhou's `apply.ml` includes such
 * an operation as failed: the fees are taken and the counter moves, the failing item carries the
 * error trace (script_interpreter.ml's `execute`: `bad_contract_parameter` around an entrypoint or
 * parameter error, `runtime_error` around what stopped the run; `parse_script`'s
 * `ill_typed_contract` / `ill_typed_data` for originations), the items before it are
 * backtracked, the items after it skipped, and nothing else changes: no contract, storage and
 * balances as before the batch.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { decodeBinary } from "../../lib/encoding/codec.ts";
import type { Origination, Transaction } from "../../lib/encoding/hangzhou/operation.ts";
import { operationMetadata } from "../../lib/encoding/hangzhou/receipts/contents-results.ts";
import type { Micheline } from "../../lib/encoding/micheline.ts";
import { getBalance, getCounter, getScript } from "../../lib/protocols/hangzhou/storage/contract.ts";
import { hangzhouChain } from "./chain-fixture.ts";
import { type Account, BOOTSTRAP, bakeManager, forge, manager, managerReceipts, receiptJson } from "./manager-fixture.ts";

const [b1, b2, b3] = BOOTSTRAP as [Account, Account, Account];
const P = "proto.011-PtHangz2.";
const prim = (p: string, ...args: Micheline[]): Micheline => (args.length === 0 ? { prim: p } : { prim: p, args });
const script = (param: Micheline, storage: Micheline, code: Micheline[]): Micheline => [prim("parameter", param), prim("storage", storage), prim("code", code)];
/** parameter (or (int %set) (unit %loop)); storage int; set stores the int, loop never ends. */
const TARGET = script(prim("or", { prim: "int", annots: ["%set"] }, { prim: "unit", annots: ["%loop"] }), prim("int"), [
  prim("UNPAIR"),
  prim("IF_LEFT", [prim("DIP", [prim("DROP")])], [prim("DROP"), prim("PUSH", prim("bool"), prim("True")), prim("LOOP", [prim("PUSH", prim("bool"), prim("True"))])]),
  prim("NIL", prim("operation")),
  prim("PAIR"),
]);

const originate = (source: Account, counter: bigint, code: Micheline, storage: Micheline) =>
  manager<Origination>({ kind: "origination", source: source.pkh, counter, balance: 0n, script: { code, storage }, gas_limit: 10_000n, storage_limit: 1000n });
const call = (source: Account, counter: bigint, destination: string, entrypoint: string, value: Micheline, gas = 10_000n) =>
  manager<Transaction>({ kind: "transaction", source: source.pkh, counter, destination, amount: 0n, parameters: { entrypoint, value }, gas_limit: gas, storage_limit: 1000n });
const pay = (source: Account, counter: bigint, destination: string) =>
  manager<Transaction>({ kind: "transaction", source: source.pkh, counter, destination, amount: 1_000_000n, storage_limit: 0n });

/** What the block's endorsement receipts move on `pkh`'s balance (deposits). */
function endorsementsMoved(ctx: any, block: any, pkh: string): bigint {
  let n = 0n;
  for (const bytes of block.info.operations_metadata[0] as Uint8Array[]) {
    for (const c of operationMetadata.toJson(decodeBinary(operationMetadata, bytes)!) as any[]) {
      for (const u of c.balance_updates ?? []) if (u.kind === "contract" && u.contract === pkh) n += BigInt(u.change);
    }
  }
  return n;
}

const ids = (r: any): string[] => (r.errors ?? []).map((e: { id: string }) => e.id.replace(P, ""));

const BadInput = suite("bad Michelson input on chain");

BadInput.before(async (ctx) => {
  ctx.h = await hangzhouChain();
  await ctx.h.bake();
  const { block } = await bakeManager(ctx.h, [await forge(b1.sk, ctx.h.chain.head.hash, [originate(b1, 1n, TARGET, { int: "7" })])]);
  ctx.kt1 = (receiptJson(managerReceipts(block)[0]!) as any)[0].operation_result.originated_contracts[0];
});

/** Bakes one operation of `source`; its receipts, and the source's balance and counter before and after. */
async function bakeOne(ctx: any, source: Account, contents: (counter: bigint) => (Origination | Transaction)[]) {
  const pc0 = ctx.h.protoAt(ctx.h.chain.head);
  const balance0 = getBalance(pc0, source.pkh);
  const counter0 = getCounter(pc0, source.pkh);
  const target0 = { storage: getScript(pc0, ctx.kt1)?.storage, balance: getBalance(pc0, ctx.kt1) };
  const ops = contents(counter0 + 1n);
  const { block } = await bakeManager(ctx.h, [await forge(source.sk, ctx.h.chain.head.hash, ops)]);
  const pc = ctx.h.protoAt(ctx.h.chain.head);
  const fees = ops.reduce((n, o) => n + o.fee, 0n);
  const receipts = receiptJson(managerReceipts(block)[0]!) as any[];
  // the source may also bake or endorse this block (deposits): count what its receipts move
  const moved = receipts.flatMap((c) => [...c.balance_updates, ...(c.operation_result.status === "applied" ? c.operation_result.balance_updates ?? [] : [])]);
  const change = moved.filter((u: any) => u.kind === "contract" && u.contract === source.pkh).reduce((n: bigint, u: any) => n + BigInt(u.change), 0n);
  const others = ctx.h.metadataOf(block).balance_updates.filter((u: any) => u.kind === "contract" && u.contract === source.pkh).reduce((n: bigint, u: any) => n + BigInt(u.change), 0n);
  return {
    results: receipts.map((c) => c.operation_result),
    feesOnly: change === -fees && getBalance(pc, source.pkh) === balance0 - fees + others + endorsementsMoved(ctx, block, source.pkh),
    counterMoved: getCounter(pc, source.pkh) === counter0 + BigInt(ops.length),
    targetUnchanged: getScript(pc, ctx.kt1)?.storage !== undefined && JSON.stringify(getScript(pc, ctx.kt1)?.storage) === JSON.stringify(target0.storage) && getBalance(pc, ctx.kt1) === target0.balance,
  };
}

BadInput("an origination with ill-typed code fails with ill_typed_contract; only the fees are taken", async (ctx) => {
  const code = script(prim("unit"), prim("unit"), [prim("ADD"), prim("NIL", prim("operation")), prim("PAIR")]);
  const r = await bakeOne(ctx, b2, (c) => [originate(b2, c, code, prim("Unit"))]);
  assert.is(r.results[0].status, "failed");
  assert.equal(ids(r.results[0]), ["michelson_v1.ill_typed_contract", "michelson_v1.bad_stack"]);
  assert.is(r.results[0].errors[1].location, 7);
  assert.is(r.results[0].originated_contracts, undefined);
  assert.ok(r.feesOnly);
  assert.ok(r.counterMoved);
});

BadInput("an origination with storage of the wrong type fails with ill_typed_data", async (ctx) => {
  const r = await bakeOne(ctx, b2, (c) => [originate(b2, c, TARGET, { string: "seven" })]);
  assert.is(r.results[0].status, "failed");
  assert.equal(ids(r.results[0]), ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant", "michelson_v1.invalid_expression_kind"]);
  assert.ok(r.feesOnly);
});

BadInput("an unknown entrypoint fails the call: earlier items backtracked, later ones skipped, storage as it was", async (ctx) => {
  const r = await bakeOne(ctx, b3, (c) => [pay(b3, c, b1.pkh), call(b3, c + 1n, ctx.kt1, "nope", { int: "1" }), call(b3, c + 2n, ctx.kt1, "set", { int: "9" })]);
  assert.equal(r.results.map((x) => x.status), ["backtracked", "failed", "skipped"]);
  assert.equal(ids(r.results[1]), ["michelson_v1.bad_contract_parameter", "michelson_v1.no_such_entrypoint"]);
  assert.is(r.results[1].errors[1].entrypoint, "nope");
  assert.ok(r.feesOnly, "only the three fees leave the source");
  assert.ok(r.counterMoved, "the counter moves by three");
  assert.ok(r.targetUnchanged);
});

BadInput("a parameter of the wrong type fails the call with bad_contract_parameter around invalid_constant", async (ctx) => {
  const r = await bakeOne(ctx, b3, (c) => [call(b3, c, ctx.kt1, "set", { string: "nine" })]);
  assert.is(r.results[0].status, "failed");
  assert.equal(ids(r.results[0]), ["michelson_v1.bad_contract_parameter", "michelson_v1.invalid_constant", "michelson_v1.invalid_expression_kind"]);
  assert.ok(r.feesOnly);
  assert.ok(r.targetUnchanged);
});

BadInput("a run that exhausts its gas fails with runtime_error around gas_exhausted.operation", async (ctx) => {
  const r = await bakeOne(ctx, b2, (c) => [call(b2, c, ctx.kt1, "set", { int: "3" }), call(b2, c + 1n, ctx.kt1, "loop", prim("Unit"), 3_000n)]);
  assert.equal(r.results.map((x) => x.status), ["backtracked", "failed"]);
  assert.equal(ids(r.results[1]), ["michelson_v1.runtime_error", "gas_exhausted.operation"]);
  assert.ok(r.feesOnly);
  assert.ok(r.targetUnchanged, "the backtracked set leaves the storage at 7");
});

BadInput("a good call after all of it stores its value", async (ctx) => {
  const r = await bakeOne(ctx, b1, (c) => [call(b1, c, ctx.kt1, "set", { int: "42" })]);
  assert.is(r.results[0].status, "applied");
  assert.equal(getScript(ctx.h.protoAt(ctx.h.chain.head), ctx.kt1)?.storage, { int: "42" });
});

BadInput.run();
