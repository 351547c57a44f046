/**
 * Originating and calling contracts in real blocks: the KT1 address of the origination nonce,
 * code and storage stored, storage size and burns (HANGZHOU-FACTS §11: size = (4 + code bytes) +
 * (4 + storage bytes), burn = (size + 257) × 250 mutez), a call that updates the storage, and a
 * failing call that backtracks its whole batch with Octez's runtime_error / script_rejected trace.
 * Registered only when the Michelson interpreter is in the build.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { B58, b58decode, b58encode } from "../../lib/encoding/base58.ts";
import { encodeBinary } from "../../lib/encoding/codec.ts";
import type { Origination, Transaction } from "../../lib/encoding/hangzhou/operation.ts";
import { expression } from "../../lib/encoding/hangzhou/script.ts";
import type { Micheline } from "../../lib/encoding/micheline.ts";
import { originatedContractHash } from "../../lib/crypto/hashes.ts";
import { getBalance, getScript } from "../../lib/protocols/hangzhou/storage/contract.ts";
import { hangzhouChain } from "./chain-fixture.ts";
import { type Account, BOOTSTRAP, bakeManager, forge, manager, managerReceipts, receiptJson } from "./manager-fixture.ts";

const [b1, b2] = BOOTSTRAP as [Account, Account];
const P = "proto.011-PtHangz2.";
const prim = (p: string, ...args: Micheline[]): Micheline => (args.length === 0 ? { prim: p } : { prim: p, args });
/** parameter int; storage int; code { CAR; NIL operation; PAIR } */
const STORE_PARAM: Micheline = [prim("parameter", prim("int")), prim("storage", prim("int")), prim("code", [prim("CAR"), prim("NIL", prim("operation")), prim("PAIR")])];
/** parameter unit; storage unit; code { DROP; PUSH string "no"; FAILWITH } */
const REJECT: Micheline = [prim("parameter", prim("unit")), prim("storage", prim("unit")), prim("code", [prim("DROP"), prim("PUSH", prim("string"), { string: "no" }), prim("FAILWITH")])];

const originate = (source: Account, counter: bigint, code: Micheline, storage: Micheline, balance = 0n) =>
  manager<Origination>({ kind: "origination", source: source.pkh, counter, balance, script: { code, storage }, gas_limit: 10_000n, storage_limit: 1000n });
const call = (source: Account, counter: bigint, destination: string, value: Micheline, amount = 0n) =>
  manager<Transaction>({ kind: "transaction", source: source.pkh, counter, destination, amount, parameters: { entrypoint: "default", value }, gas_limit: 10_000n, storage_limit: 1000n });

const C = suite("hangzhou contracts");

C("an origination stores the script at the KT1 of (operation hash, 0), with Octez's size and burns", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const bytes = await forge(b1.sk, h.chain.head.hash, [originate(b1, 1n, STORE_PARAM, { int: "7" }, 5_000_000n)]);
  const { block } = await bakeManager(h, [bytes]);
  const opHash = h.chain.operationHashes(block.hash)[3]![0]!;
  const kt1 = b58encode(B58.contractHash, originatedContractHash(b58decode(B58.operationHash, opHash), 0));
  const r = (receiptJson(managerReceipts(block)[0]!) as any)[0].operation_result;
  assert.is(r.status, "applied");
  assert.equal(r.originated_contracts, [kt1]);
  const size = 4 + encodeBinary(expression, STORE_PARAM).length + 4 + encodeBinary(expression, { int: "7" }).length;
  assert.is(r.storage_size, String(size));
  assert.is(r.paid_storage_size_diff, String(size));
  assert.equal(r.balance_updates, [
    { kind: "contract", contract: b1.pkh, change: String(-size * 250), origin: "block" },
    { kind: "contract", contract: b1.pkh, change: "-64250", origin: "block" },
    { kind: "contract", contract: b1.pkh, change: "-5000000", origin: "block" },
    { kind: "contract", contract: kt1, change: "5000000", origin: "block" },
  ]);
  const pc = h.protoAt(h.chain.head);
  assert.equal(getScript(pc, kt1)?.storage, { int: "7" });
  assert.is(getBalance(pc, kt1), 5_000_000n);
});

C("a call runs the script and stores the new storage", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const { block } = await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [originate(b1, 1n, STORE_PARAM, { int: "7" })])]);
  const kt1 = (receiptJson(managerReceipts(block)[0]!) as any)[0].operation_result.originated_contracts[0];
  const { block: b2lk } = await bakeManager(h, [await forge(b2.sk, h.chain.head.hash, [call(b2, 1n, kt1, { int: "42" })])]);
  const r = (receiptJson(managerReceipts(b2lk)[0]!) as any)[0].operation_result;
  assert.is(r.status, "applied");
  assert.equal(r.storage, { int: "42" });
  assert.equal(getScript(h.protoAt(h.chain.head), kt1)?.storage, { int: "42" });
});

C("a FAILWITH backtracks the whole batch with runtime_error over script_rejected", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const { block } = await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [originate(b1, 1n, REJECT, prim("Unit"))])]);
  const kt1 = (receiptJson(managerReceipts(block)[0]!) as any)[0].operation_result.originated_contracts[0];
  const batch = [
    manager<Transaction>({ kind: "transaction", source: b2.pkh, counter: 1n, destination: b1.pkh, amount: 1n, storage_limit: 0n }),
    call(b2, 2n, kt1, prim("Unit")),
  ];
  const { block: blk } = await bakeManager(h, [await forge(b2.sk, h.chain.head.hash, batch)]);
  const [first, second] = receiptJson(managerReceipts(blk)[0]!) as any[];
  assert.is(first.operation_result.status, "backtracked");
  assert.is(second.operation_result.status, "failed");
  const ids = second.operation_result.errors.map((e: any) => e.id);
  assert.equal(ids.slice(0, 2), [P + "michelson_v1.runtime_error", P + "michelson_v1.script_rejected"]);
});

C.run();
