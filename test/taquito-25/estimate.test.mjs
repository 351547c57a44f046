/**
 * Taquito 25's estimates come from the node's `simulate_operation` results: Hangzhou's 1420 gas
 * for a transaction to an implicit account (read from `consumed_milligas`, no buffer for implicit
 * destinations), and 257 bytes (+ Taquito's 20) when it allocates one.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { BOOTSTRAP, bounded, testKey, toolkit } from "./support/sandbox.mjs";

const test = suite("Taquito 25 estimates");
const source = BOOTSTRAP[3];

test("a transfer to an existing implicit account is estimated at 1420 gas and no storage", bounded("estimate", async () => {
  const tezos = await toolkit(source.sk);
  const estimate = await tezos.estimate.transfer({ to: BOOTSTRAP[4].pkh, amount: 1 });
  assert.is(estimate.gasLimit, 1420);
  assert.is(estimate.storageLimit, 0);
  assert.is(estimate.burnFeeMutez, 0);
}));

test("a transfer to a new implicit account is estimated with the 257 bytes of its allocation", bounded("estimate", async () => {
  const tezos = await toolkit(source.sk);
  const { pkh } = await testKey("ed25519", "estimate destination");
  const estimate = await tezos.estimate.transfer({ to: pkh, amount: 1 });
  assert.is(estimate.gasLimit, 1420);
  assert.is(estimate.storageLimit, 257 + 20);
  assert.is(estimate.burnFeeMutez, (257 + 20) * 250);
}));

test.run();
