/**
 * register_global_constant in real blocks: the constant's address, its storage size (binary
 * length + 65) and burn, the receipt, and a second registration failing as Octez reports it.
 * Reference: Octez's global constants documentation (docs/alpha/global_constants.rst at v12.4):
 * registering `999` gives `expruQN5r2umbZVHy6WynYM8f71F8zS4AERz9bugF8UkPBEqrHLuU8`, 68 bytes,
 * a burn of ꜩ0.017.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { B58, b58decode } from "../../lib/encoding/base58.ts";
import type { Origination, RegisterGlobalConstant, Transaction } from "../../lib/encoding/hangzhou/operation.ts";
import { getScript } from "../../lib/protocols/hangzhou/storage/contract.ts";
import { findGlobalConstant } from "../../lib/protocols/hangzhou/storage/global-constants.ts";
import { hangzhouChain } from "./chain-fixture.ts";
import { type Account, applyOn, BOOTSTRAP, bakeManager, forge, manager, managerReceipts, receiptJson } from "./manager-fixture.ts";

const [b1] = BOOTSTRAP as [Account];
const P = "proto.011-PtHangz2.";
const EXPR_999 = "expruQN5r2umbZVHy6WynYM8f71F8zS4AERz9bugF8UkPBEqrHLuU8";
const register = (counter: bigint, value: RegisterGlobalConstant["value"]) =>
  manager<RegisterGlobalConstant>({ kind: "register_global_constant", source: b1.pkh, counter, value, gas_limit: 2000n, storage_limit: 100n });

const G = suite("hangzhou global constants");

G("registering 999 gives Octez's address, 68 bytes and a burn of 17000 mutez", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const { block } = await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [register(1n, { int: "999" })])]);
  const [receipt] = managerReceipts(block);
  const json = receiptJson(receipt!) as any;
  const result = json[0].operation_result;
  assert.is(result.status, "applied");
  assert.is(result.global_address, EXPR_999);
  assert.is(result.storage_size, "68");
  assert.equal(result.balance_updates, [{ kind: "contract", contract: b1.pkh, change: "-17000", origin: "block" }]);
  const pc = h.protoAt(h.chain.head);
  assert.equal(findGlobalConstant(pc, b58decode(B58.scriptExprHash, EXPR_999), false), { int: "999" });
});

G("registering the same expression twice fails with Expression_already_registered over the storage error", async () => {
  const h = await hangzhouChain();
  await h.bake();
  await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [register(1n, { int: "999" })])]);
  const pc = h.protoAt(h.chain.head);
  const results = await applyOn(h, pc, await forge(b1.sk, h.chain.head.hash, [register(2n, { int: "999" })]));
  const r = (receiptJson(results) as any)[0].operation_result;
  assert.is(r.status, "failed");
  assert.is(r.errors[0].id, P + "Expression_already_registered");
  assert.is(r.errors[1].id, P + "context.storage_error");
});

G("a constant referring to an unregistered constant is refused with Nonexistent_global", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const pc = h.protoAt(h.chain.head);
  const value = { prim: "constant", args: [{ string: EXPR_999 }] };
  const results = await applyOn(h, pc, await forge(b1.sk, h.chain.head.hash, [register(1n, value)]));
  const r = (receiptJson(results) as any)[0].operation_result;
  assert.is(r.status, "failed");
  assert.is(r.errors[0].id, P + "Nonexistent_global");
});

G("a contract originated with a constant in its code runs the registered expression, and keeps the constant as written", async () => {
  const h = await hangzhouChain();
  await h.bake();
  // the constant is the instruction sequence `{ CAR ; PUSH int 1 ; ADD }`
  const body = [{ prim: "CAR" }, { prim: "PUSH", args: [{ prim: "int" }, { int: "1" }] }, { prim: "ADD" }];
  const { block: b1Block } = await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [register(1n, body)])]);
  const hash = (receiptJson(managerReceipts(b1Block)[0]!) as any)[0].operation_result.global_address as string;
  const code = [
    { prim: "parameter", args: [{ prim: "int" }] },
    { prim: "storage", args: [{ prim: "int" }] },
    { prim: "code", args: [[{ prim: "constant", args: [{ string: hash }] }, { prim: "NIL", args: [{ prim: "operation" }] }, { prim: "PAIR" }]] },
  ];
  const originate = manager<Origination>({ kind: "origination", source: b1.pkh, counter: 2n, balance: 0n, script: { code, storage: { int: "0" } }, gas_limit: 10_000n, storage_limit: 1_000n });
  const { block } = await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [originate])]);
  const origination = (receiptJson(managerReceipts(block)[0]!) as any)[0].operation_result;
  assert.is(origination.status, "applied");
  const kt1 = origination.originated_contracts[0] as string;
  const call = manager<Transaction>({ kind: "transaction", source: b1.pkh, counter: 3n, amount: 0n, destination: kt1, parameters: { entrypoint: "default", value: { int: "41" } }, gas_limit: 10_000n, storage_limit: 100n });
  const { block: callBlock } = await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [call])]);
  const result = (receiptJson(managerReceipts(callBlock)[0]!) as any)[0].operation_result;
  assert.is(result.status, "applied");
  assert.equal(result.storage, { int: "42" });
  assert.equal(getScript(h.protoAt(h.chain.head), kt1)?.code, code, "the stored code keeps the constant");
});

G.run();
