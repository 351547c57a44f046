import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { Delegation, Reveal, Transaction } from "../../lib/encoding/hangzhou/operation.ts";
import { getBalance } from "../../lib/protocols/hangzhou/storage/contract.ts";
import { delegatedContracts, isRegisteredDelegate } from "../../lib/protocols/hangzhou/storage/delegation.ts";
import { stakingBalance } from "../../lib/protocols/hangzhou/storage/frozen.ts";
import { contractDelegate, countRolls } from "../../lib/protocols/hangzhou/storage/roll.ts";
import type { ProtoContext } from "../../lib/protocols/hangzhou/storage/proto-context.ts";
import { hangzhouChain } from "./chain-fixture.ts";
import { type Account, applyOn, BOOTSTRAP, bakeManager, forge, freshAccount, type HangzhouChain, manager, receiptJson } from "./manager-fixture.ts";

const [b1, b2] = BOOTSTRAP as [Account, Account];
const TEZ = 1_000_000n;

const tx = (source: string, counter: bigint, destination: string, amount: bigint) =>
  manager<Transaction>({ kind: "transaction", source, counter, destination, amount, storage_limit: 257n });
const reveal = (a: Account, counter: bigint) => manager<Reveal>({ kind: "reveal", source: a.pkh, public_key: a.pk, counter });
const delegation = (source: string, counter: bigint, delegate?: string) =>
  manager<Delegation>({ kind: "delegation", source, counter, gas_limit: 1000n, ...(delegate === undefined ? {} : { delegate }) });

/** A chain at level 3 where `fresh` received `amount` from bootstrap1 (counter 1) and is unrevealed. */
async function funded(fresh: Account, amount: bigint): Promise<HangzhouChain> {
  const h = await hangzhouChain();
  await h.bake();
  await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [tx(b1.pkh, 1n, fresh.pkh, amount)])]);
  return h;
}

const statuses = (results: unknown[]) => results.map((r) => (r as { operation_result: { status: string } }).operation_result.status);
const resultOf = (results: unknown[], i: number) => (receiptJson(results as never) as any[])[i].operation_result;

const rollsFollowStake = (pc: ProtoContext, d: string) =>
  assert.is(countRolls(pc, d), Number(stakingBalance(pc, d) / pc.constants.tokens_per_roll), `rolls of ${d} follow its staking balance`);

const D = suite("manager delegations");

D("a new account delegates to bootstrap2 with 1000 gas, and its balance joins bootstrap2's stake and rolls", async () => {
  const fresh = freshAccount("ed25519", 0x61);
  const h = await funded(fresh, 16_001n * TEZ);
  const pc = h.protoAt(h.chain.head);
  const stakeBefore = stakingBalance(pc, b2.pkh);
  const rollsBefore = countRolls(pc, b2.pkh);
  const results = await applyOn(h, pc, await forge(fresh.sk, h.chain.head.hash, [reveal(fresh, 2n), delegation(fresh.pkh, 3n, b2.pkh)]));
  assert.equal(statuses(results), ["applied", "applied"]);
  assert.equal(resultOf(results, 1), { status: "applied", consumed_gas: "1000", consumed_milligas: "1000000" });
  const balance = 16_001n * TEZ - 2000n;
  assert.is(getBalance(pc, fresh.pkh), balance);
  assert.is(contractDelegate(pc, fresh.pkh), b2.pkh);
  assert.ok(delegatedContracts(pc, b2.pkh).includes(fresh.pkh));
  assert.is(stakingBalance(pc, b2.pkh), stakeBefore + balance);
  assert.is(countRolls(pc, b2.pkh), rollsBefore + 2);
  rollsFollowStake(pc, b2.pkh);
});

D("withdrawing a delegation takes the balance back out of the delegate's stake", async () => {
  const fresh = freshAccount("secp256k1", 0x62);
  const h = await funded(fresh, 9_000n * TEZ);
  const branch = h.chain.head.hash;
  const pc = h.protoAt(h.chain.head);
  const stakeBefore = stakingBalance(pc, b2.pkh);
  await applyOn(h, pc, await forge(fresh.sk, branch, [reveal(fresh, 2n), delegation(fresh.pkh, 3n, b2.pkh)]));
  const results = await applyOn(h, pc, await forge(fresh.sk, branch, [delegation(fresh.pkh, 4n)]));
  assert.equal(statuses(results), ["applied"]);
  assert.is(contractDelegate(pc, fresh.pkh), undefined);
  assert.is(stakingBalance(pc, b2.pkh), stakeBefore);
  rollsFollowStake(pc, b2.pkh);
});

D("self-delegation registers a new delegate whose rolls follow its balance", async () => {
  const fresh = freshAccount("p256", 0x63);
  const h = await funded(fresh, 20_000n * TEZ);
  const pc = h.protoAt(h.chain.head);
  assert.not.ok(isRegisteredDelegate(pc, fresh.pkh));
  const results = await applyOn(h, pc, await forge(fresh.sk, h.chain.head.hash, [reveal(fresh, 2n), delegation(fresh.pkh, 3n, fresh.pkh)]));
  assert.equal(statuses(results), ["applied", "applied"]);
  assert.ok(isRegisteredDelegate(pc, fresh.pkh));
  assert.is(contractDelegate(pc, fresh.pkh), fresh.pkh);
  assert.is(stakingBalance(pc, fresh.pkh), 20_000n * TEZ - 2000n);
  assert.is(countRolls(pc, fresh.pkh), 2);
  const again = await applyOn(h, pc, await forge(fresh.sk, h.chain.head.hash, [delegation(fresh.pkh, 4n, fresh.pkh)]));
  assert.equal(resultOf(again, 0), { status: "failed", errors: [{ kind: "temporary", id: "proto.011-PtHangz2.delegate.already_active" }] });
});

D("Hangzhou's delegation errors are failed results: no_deletion, unchanged, unregistered_delegate", async () => {
  const fresh = freshAccount("ed25519", 0x64);
  const stranger = freshAccount("ed25519", 0x65);
  const h = await funded(fresh, 100n * TEZ);
  const branch = h.chain.head.hash;
  const pc = h.protoAt(h.chain.head);
  const withdraw = await applyOn(h, pc, await forge(b2.sk, branch, [delegation(b2.pkh, 1n)]));
  assert.equal(resultOf(withdraw, 0).errors, [{ kind: "permanent", id: "proto.011-PtHangz2.delegate.no_deletion", delegate: b2.pkh }]);
  const elsewhere = await applyOn(h, pc, await forge(b2.sk, branch, [delegation(b2.pkh, 2n, b1.pkh)]));
  assert.equal(resultOf(elsewhere, 0).errors, [{ kind: "permanent", id: "proto.011-PtHangz2.delegate.no_deletion", delegate: b2.pkh }]);
  await applyOn(h, pc, await forge(fresh.sk, branch, [reveal(fresh, 2n), delegation(fresh.pkh, 3n, b1.pkh)]));
  const unchanged = await applyOn(h, pc, await forge(fresh.sk, branch, [delegation(fresh.pkh, 4n, b1.pkh)]));
  assert.equal(resultOf(unchanged, 0).errors, [{ kind: "temporary", id: "proto.011-PtHangz2.delegate.unchanged" }]);
  const unknown = await applyOn(h, pc, await forge(fresh.sk, branch, [delegation(fresh.pkh, 5n, stranger.pkh)]));
  assert.equal(resultOf(unknown, 0).errors, [
    { kind: "permanent", id: "proto.011-PtHangz2.contract.manager.unregistered_delegate", hash: stranger.pkh },
  ]);
  assert.is(contractDelegate(pc, fresh.pkh), b1.pkh, "failed delegations change nothing");
});

D.run();
