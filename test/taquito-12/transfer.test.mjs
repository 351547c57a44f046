/** Transfers with Taquito 12's contract API: confirmation, exact balances, the automatic reveal. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ALLOCATION_BURN, BOOTSTRAP, balanceOf, bounded, feesOf, fund, testKey, toolkit } from "./support/sandbox.mjs";

const test = suite("Taquito 12 transfers");
const funder = BOOTSTRAP[0];

test("a transfer to a new tz1 account is confirmed in the block that carries it", bounded("transfer", async () => {
  const tezos = await toolkit(funder.sk);
  const { pkh } = await testKey("ed25519", "transfer destination");
  const op = await tezos.contract.transfer({ to: pkh, amount: 12.5 });
  assert.is(op.status, "applied");
  const level = await op.confirmation(1);
  assert.is(op.includedInBlock, level);
  const block = await tezos.rpc.getBlock({ block: String(level) });
  assert.ok(block.operations[3].some((o) => o.hash === op.hash), `${op.hash} is not in block ${level}`);
  assert.is(await balanceOf(tezos, pkh), 12_500_000n);
}));

test("a new unrevealed account's first transfer carries its reveal in the same operation", bounded("reveal+transfer", async () => {
  const bank = await toolkit(funder.sk);
  const sender = await testKey("ed25519", "unrevealed sender");
  const receiver = await testKey("ed25519", "unrevealed sender's receiver");
  await fund(bank, sender.pkh, 10_000_000);
  assert.is(await bank.rpc.getManagerKey(sender.pkh), null);

  const tezos = await toolkit(sender.sk);
  const op = await tezos.contract.transfer({ to: receiver.pkh, amount: 1 });
  assert.equal(op.results.map((c) => c.kind), ["reveal", "transaction"]);
  assert.is(op.revealStatus, "applied");
  await op.confirmation(1);

  assert.is(await bank.rpc.getManagerKey(sender.pkh), await tezos.signer.publicKey());
  assert.is(await balanceOf(bank, receiver.pkh), 1_000_000n);
  const spent = 1_000_000n + feesOf(op) + BigInt(ALLOCATION_BURN);
  assert.is(await balanceOf(bank, sender.pkh), 10_000_000n - spent);
}));

test.run();
