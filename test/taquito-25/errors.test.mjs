/** Hangzhou's errors reach Taquito 25 with their ids. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { BOOTSTRAP, bounded, toolkit } from "./support/sandbox.mjs";

const test = suite("Taquito 25 errors");
const funder = BOOTSTRAP[3];

test("a transfer above the balance fails with Hangzhou's contract.balance_too_low", bounded("balance_too_low", async () => {
  const tezos = await toolkit(funder.sk);
  const balance = await tezos.tz.getBalance(funder.pkh);
  const counter = (await tezos.rpc.getContract(funder.pkh)).counter;
  const error = await tezos.contract
    .transfer({ to: BOOTSTRAP[4].pkh, amount: balance.plus(1_000_000).toNumber(), mutez: true })
    .then(() => undefined, (e) => e);
  assert.ok(error, "the transfer was accepted");
  assert.is(error.name, "TezosOperationError", `${error.name}: ${error.message}`);
  assert.is(error.id, "proto.011-PtHangz2.contract.balance_too_low");
  assert.is(error.kind, "temporary");
  assert.is((await tezos.rpc.getContract(funder.pkh)).counter, counter, "nothing was injected");
}));

test.run();
