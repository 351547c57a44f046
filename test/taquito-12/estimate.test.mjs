/**
 * Taquito 12's estimates come from the node's `run_operation` results: Hangzhou's 1420 gas for a
 * transaction to an implicit account (Taquito adds 100), and 257 bytes when it allocates one.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ALLOCATION_BURN, BOOTSTRAP, bounded, testKey, toolkit } from "./support/sandbox.mjs";

const test = suite("Taquito 12 estimates");
const source = BOOTSTRAP[3];

test("a transfer to an existing implicit account is estimated at 1420 + 100 gas and no storage", bounded("estimate", async () => {
  const tezos = await toolkit(source.sk);
  const estimate = await tezos.estimate.transfer({ to: BOOTSTRAP[4].pkh, amount: 1 });
  assert.is(estimate.gasLimit, 1520);
  assert.is(estimate.storageLimit, 0);
  assert.is(estimate.burnFeeMutez, 0);
}));

test("a transfer to a new implicit account is estimated with the 257 bytes of its allocation", bounded("estimate", async () => {
  const tezos = await toolkit(source.sk);
  const { pkh } = await testKey("ed25519", "estimate destination");
  const estimate = await tezos.estimate.transfer({ to: pkh, amount: 1 });
  assert.is(estimate.gasLimit, 1520);
  assert.is(estimate.storageLimit, 257);
  assert.is(estimate.burnFeeMutez, ALLOCATION_BURN);
}));

test.run();
