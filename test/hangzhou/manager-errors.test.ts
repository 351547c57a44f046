import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { Reveal, Transaction } from "../../lib/encoding/hangzhou/operation.ts";
import { TezosError } from "../../lib/errors/registry.ts";
import {
  findManagerKey,
  getBalance,
  getCounter,
} from "../../lib/protocols/hangzhou/storage/contract.ts";
import { formatPublicKey } from "../../lib/crypto/keys.ts";
import { hangzhouChain } from "./chain-fixture.ts";
import {
  type Account,
  applyDirect,
  applyOn,
  BOOTSTRAP,
  bakeManager,
  buildManagerBlock,
  forge,
  freshAccount,
  type HangzhouChain,
  manager,
  receiptJson,
} from "./manager-fixture.ts";

const [b1, b2, b3] = BOOTSTRAP as [Account, Account, Account];
const TEZ = 1_000_000n;
const P = "proto.011-PtHangz2.";

const tx = (source: string, counter: bigint, destination: string, amount: bigint, extra: Partial<Transaction> = {}) =>
  manager<Transaction>({ kind: "transaction", source, counter, destination, amount, ...extra });
const reveal = (source: string, pk: string, counter: bigint) => manager<Reveal>({ kind: "reveal", source, public_key: pk, counter });

async function chainAt3(): Promise<HangzhouChain> {
  const h = await hangzhouChain();
  await h.bake();
  return h;
}

/** A chain where `fresh` received `amount` from bootstrap1 and is not revealed. */
async function funded(fresh: Account, amount: bigint): Promise<HangzhouChain> {
  const h = await chainAt3();
  await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [tx(b1.pkh, 1n, fresh.pkh, amount, { storage_limit: 257n })])]);
  return h;
}

/** The error trace of an operation the precheck refuses; asserts the state was left untouched. */
async function refused(h: HangzhouChain, bytes: Uint8Array, prepare?: (pc: ReturnType<HangzhouChain["protoAt"]>) => void): Promise<any[]> {
  const pc = h.protoAt(h.chain.head);
  prepare?.(pc);
  const context = pc.context;
  const blockGas = pc.remainingBlockGas;
  try {
    await applyOn(h, pc, bytes);
  } catch (e) {
    if (!(e instanceof TezosError)) throw e;
    assert.is(pc.context, context, "the context is left as it was");
    assert.is(pc.fees, 0n);
    assert.is(pc.remainingBlockGas, blockGas);
    return e.toJson() as any[];
  }
  throw new Error("expected the operation to be refused");
}

const statuses = (results: unknown[]) => (receiptJson(results as never) as any[]).map((r) => r.operation_result.status);
const resultOf = (results: unknown[], i: number) => (receiptJson(results as never) as any[])[i].operation_result;

const E = suite("manager operation errors");

E("a counter already used is contract.counter_in_the_past, a later one counter_in_the_future", async () => {
  const h = await chainAt3();
  const branch = h.chain.head.hash;
  assert.equal(await refused(h, await forge(b2.sk, branch, [tx(b2.pkh, 0n, b3.pkh, TEZ)])), [
    { kind: "branch", id: P + "contract.counter_in_the_past", contract: b2.pkh, expected: "1", found: "0" },
  ]);
  assert.equal(await refused(h, await forge(b2.sk, branch, [tx(b2.pkh, 5n, b3.pkh, TEZ)])), [
    { kind: "temporary", id: P + "contract.counter_in_the_future", contract: b2.pkh, expected: "1", found: "5" },
  ]);
  assert.equal(await refused(h, await forge(b2.sk, branch, [tx(b2.pkh, 1n, b3.pkh, TEZ), tx(b2.pkh, 3n, b3.pkh, TEZ)])), [
    { kind: "temporary", id: P + "contract.counter_in_the_future", contract: b2.pkh, expected: "2", found: "3" },
  ], "counters of a batch follow each other");
});

E("a block cannot be built with an operation the precheck refuses", async () => {
  const h = await chainAt3();
  const level = h.chain.head.header.level;
  const bad = await forge(b2.sk, h.chain.head.hash, [tx(b2.pkh, 0n, b3.pkh, TEZ)]);
  try {
    await buildManagerBlock(h, [bad]);
    assert.unreachable("the block must be refused");
  } catch (e) {
    if (!(e instanceof TezosError)) throw e;
    const [item] = e.toJson() as any[];
    assert.is(item.error, "economic_protocol_error");
    assert.is(item.trace[0].id, P + "contract.counter_in_the_past");
  }
  assert.is(h.chain.head.header.level, level);
});

E("an unrevealed source without a reveal in the batch is contract.unrevealed_key", async () => {
  const fresh = freshAccount("ed25519", 0x71);
  const h = await funded(fresh, 10n * TEZ);
  assert.equal(await refused(h, await forge(fresh.sk, h.chain.head.hash, [tx(fresh.pkh, 2n, b2.pkh, TEZ)])), [
    { kind: "branch", id: P + "contract.unrevealed_key", contract: fresh.pkh },
  ]);
});

E("a source that was never funded is implicit.empty_implicit_contract", async () => {
  const h = await chainAt3();
  const fresh = freshAccount("secp256k1", 0x72);
  assert.equal(await refused(h, await forge(fresh.sk, h.chain.head.hash, [reveal(fresh.pkh, fresh.pk, 1n)])), [
    { kind: "branch", id: P + "implicit.empty_implicit_contract", implicit: fresh.pkh },
  ]);
});

E("reveals are checked: previously_revealed_key and manager.inconsistent_hash", async () => {
  const fresh = freshAccount("ed25519", 0x73);
  const other = freshAccount("ed25519", 0x74);
  const h = await funded(fresh, 10n * TEZ);
  const branch = h.chain.head.hash;
  assert.equal(await refused(h, await forge(b2.sk, branch, [reveal(b2.pkh, b2.pk, 1n)])), [
    { kind: "branch", id: P + "contract.previously_revealed_key", contract: b2.pkh },
  ]);
  assert.equal(await refused(h, await forge(other.sk, branch, [reveal(fresh.pkh, other.pk, 2n)])), [
    { kind: "permanent", id: P + "contract.manager.inconsistent_hash", public_key: other.pk, expected_hash: fresh.pkh, provided_hash: other.pkh },
  ]);
});

E("a fee above the balance is refused with contract.balance_too_low and its fields", async () => {
  const fresh = freshAccount("p256", 0x75);
  const h = await funded(fresh, 10n * TEZ);
  const op = manager<Reveal>({ kind: "reveal", source: fresh.pkh, public_key: fresh.pk, counter: 2n, fee: 11n * TEZ });
  assert.equal(await refused(h, await forge(fresh.sk, h.chain.head.hash, [op])), [
    { kind: "temporary", id: P + "contract.balance_too_low", contract: fresh.pkh, balance: "10000000", amount: "11000000" },
  ]);
});

E("a wrong or missing signature is refused, after the precheck's own errors", async () => {
  const h = await chainAt3();
  const branch = h.chain.head.hash;
  assert.equal(await refused(h, await forge(b2.sk, branch, [tx(b2.pkh, 1n, b3.pkh, TEZ)], { signer: b3.sk })), [
    { kind: "permanent", id: P + "operation.invalid_signature" },
  ]);
  assert.equal(await refused(h, await forge(b2.sk, branch, [tx(b2.pkh, 1n, b3.pkh, TEZ)], { unsigned: true })), [
    { kind: "permanent", id: P + "operation.missing_signature" },
  ]);
  const both = await refused(h, await forge(b2.sk, branch, [tx(b2.pkh, 0n, b3.pkh, TEZ)], { signer: b3.sk }));
  assert.is(both[0].id, P + "contract.counter_in_the_past");
});

E("a batch from two sources is operation.inconsistent_sources", async () => {
  const h = await chainAt3();
  const op = await forge(b2.sk, h.chain.head.hash, [tx(b2.pkh, 1n, b1.pkh, TEZ), tx(b3.pkh, 1n, b1.pkh, TEZ)]);
  assert.equal(await refused(h, op), [{ kind: "permanent", id: P + "operation.inconsistent_sources" }]);
});

E("gas and storage limits are bounded per operation and by the block's gas", async () => {
  const h = await chainAt3();
  const branch = h.chain.head.hash;
  const c = h.protoAt(h.chain.head).constants;
  assert.equal(await refused(h, await forge(b2.sk, branch, [tx(b2.pkh, 1n, b3.pkh, TEZ, { gas_limit: c.hard_gas_limit_per_operation + 1n })])), [
    { kind: "permanent", id: P + "gas_limit_too_high" },
  ]);
  assert.equal(await refused(h, await forge(b2.sk, branch, [tx(b2.pkh, 1n, b3.pkh, TEZ, { storage_limit: c.hard_storage_limit_per_operation + 1n })])), [
    { kind: "permanent", id: P + "storage_limit_too_high" },
  ]);
  const tight = (pc: { remainingBlockGas: bigint }) => void (pc.remainingBlockGas = 1519_999n);
  assert.equal(await refused(h, await forge(b2.sk, branch, [tx(b2.pkh, 1n, b3.pkh, TEZ)]), tight), [
    { kind: "temporary", id: P + "gas_exhausted.block" },
  ]);
  const params = { parameters: { entrypoint: "do", value: { prim: "Unit" } } } as Partial<Transaction>;
  assert.equal(await refused(h, await forge(b2.sk, branch, [tx(b2.pkh, 1n, b3.pkh, TEZ, { gas_limit: 0n, ...params })])), [
    { kind: "permanent", id: P + "gas_exhausted.init_deserialize" },
    { kind: "temporary", id: P + "gas_exhausted.operation" },
  ]);
});

E("a transaction short of its 1420 gas fails with gas_exhausted.operation; the fee and counter stay", async () => {
  const h = await chainAt3();
  const before = h.protoAt(h.chain.head);
  const { pc, results } = await applyDirect(h, await forge(b2.sk, h.chain.head.hash, [tx(b2.pkh, 1n, b3.pkh, TEZ, { gas_limit: 1419n })]));
  assert.equal(resultOf(results, 0), { status: "failed", errors: [{ kind: "temporary", id: P + "gas_exhausted.operation" }] });
  assert.is(getBalance(pc, b2.pkh), getBalance(before, b2.pkh) - 1000n);
  assert.is(getBalance(pc, b3.pkh), getBalance(before, b3.pkh));
  assert.is(getCounter(pc, b2.pkh), 1n);
  const exact = await applyOn(h, pc, await forge(b2.sk, h.chain.head.hash, [tx(b2.pkh, 2n, b3.pkh, TEZ, { gas_limit: 1420n })]));
  assert.is(resultOf(exact, 0).status, "applied");
});

E("a failing middle content: earlier ones backtracked, later ones skipped, only fees paid", async () => {
  const h = await chainAt3();
  const before = h.protoAt(h.chain.head);
  const huge = 10_000_000n * TEZ;
  const { pc, results } = await applyDirect(h, await forge(b2.sk, h.chain.head.hash, [
    tx(b2.pkh, 1n, b3.pkh, TEZ),
    tx(b2.pkh, 2n, b3.pkh, huge),
    tx(b2.pkh, 3n, b3.pkh, TEZ),
  ]));
  assert.equal(statuses(results), ["backtracked", "failed", "skipped"]);
  assert.equal(resultOf(results, 0), {
    status: "backtracked",
    balance_updates: [
      { kind: "contract", contract: b2.pkh, change: "-1000000", origin: "block" },
      { kind: "contract", contract: b3.pkh, change: "1000000", origin: "block" },
    ],
    consumed_gas: "1420",
    consumed_milligas: "1420000",
  });
  const balanceAtFailure = getBalance(before, b2.pkh) - 3000n - TEZ;
  assert.equal(resultOf(results, 1).errors, [
    { kind: "temporary", id: P + "contract.balance_too_low", contract: b2.pkh, balance: String(balanceAtFailure), amount: String(huge) },
  ]);
  assert.equal(resultOf(results, 2), { status: "skipped" });
  assert.is(getBalance(pc, b2.pkh), getBalance(before, b2.pkh) - 3000n);
  assert.is(getBalance(pc, b3.pkh), getBalance(before, b3.pkh));
  assert.is(getCounter(pc, b2.pkh), 3n);
  assert.equal((receiptJson(results) as any[]).map((r) => r.balance_updates[0].change), ["-1000", "-1000", "-1000"]);
});

E("a skipped reveal shows as applied without gas, and its key stays revealed", async () => {
  const fresh = freshAccount("secp256k1", 0x76);
  const h = await funded(fresh, 10n * TEZ);
  const { pc, results } = await applyDirect(h, await forge(fresh.sk, h.chain.head.hash, [
    tx(fresh.pkh, 2n, b2.pkh, 20n * TEZ),
    reveal(fresh.pkh, fresh.pk, 3n),
  ]));
  assert.equal(statuses(results), ["failed", "applied"]);
  assert.equal(resultOf(results, 1), { status: "applied" });
  assert.is(formatPublicKey(findManagerKey(pc, fresh.pkh)!), fresh.pk);
});

E("0 tez to an implicit account fails with contract.empty_transaction", async () => {
  const h = await chainAt3();
  const { results } = await applyDirect(h, await forge(b2.sk, h.chain.head.hash, [tx(b2.pkh, 1n, b3.pkh, 0n)]));
  assert.equal(resultOf(results, 0).errors, [{ kind: "branch", id: P + "contract.empty_transaction", contract: b3.pkh }]);
});

E("an implicit account takes only Unit on its default entrypoint", async () => {
  const h = await chainAt3();
  const branch = h.chain.head.hash;
  const pc = h.protoAt(h.chain.head);
  const named = await applyOn(h, pc, await forge(b2.sk, branch, [tx(b2.pkh, 1n, b3.pkh, TEZ, { parameters: { entrypoint: "do", value: { prim: "Unit" } } })]));
  assert.equal(resultOf(named, 0).errors, [{ kind: "permanent", id: P + "michelson_v1.no_such_entrypoint", entrypoint: "do" }]);
  const value = await applyOn(h, pc, await forge(b2.sk, branch, [tx(b2.pkh, 2n, b3.pkh, TEZ, { parameters: { entrypoint: "default", value: { int: "1" } } })]));
  assert.equal(resultOf(value, 0).errors, [{ kind: "permanent", id: P + "michelson_v1.bad_contract_parameter", contract: b3.pkh }]);
});

E.run();
