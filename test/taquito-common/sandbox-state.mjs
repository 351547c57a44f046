/**
 * The sandbox's state changes with each pinned Taquito (issue 16): `POST /sandbox/set_balance`
 * gives a fresh account a balance (its record answered once the block holding it is baked, in
 * the shared node's auto mode; baked here otherwise), Taquito reads it, and a Taquito transfer
 * of that amount, less what the fees and the receiver's allocation need, succeeds from the
 * account (its reveal included).
 */
import { control } from "./helpers.mjs";

/** Defines and runs this scenario with one Taquito version's modules. */
export default function scenario({ suite, assert, sandbox, version }) {
  const { ALLOCATION_BURN, balanceOf, bounded, feesOf, testKey, toolkit } = sandbox;
  const test = suite(`Taquito ${version} sandbox state`);

  test("set_balance of a fresh account, then a Taquito transfer of that amount (less fees) from it", bounded("sandbox state", async () => {
    const { sk, pkh } = await testKey("ed25519", `sandbox state sender ${version}`);
    const { pkh: receiver } = await testKey("ed25519", `sandbox state receiver ${version}`);
    const tezos = await toolkit(sk);
    assert.is(await balanceOf(tezos, pkh), 0n);

    const balance = 25_000_000n;
    let record = await control("POST", "/sandbox/set_balance", { address: pkh, balance: String(balance) });
    if (record.status === "pending") {
      await control("POST", "/sandbox/bake");
      record = (await control("GET", "/sandbox/changes")).find((c) => c.id === record.id);
    }
    assert.is(record.status, "applied");
    assert.is(record.kind, "balance");
    assert.is(record.target, pkh);
    assert.is(await balanceOf(tezos, pkh), balance);

    // what the reveal's and the transfer's fees and the receiver's allocation need, with room to spare
    const reserve = 100_000n;
    const amount = balance - reserve;
    const op = await tezos.contract.transfer({ to: receiver, amount: Number(amount), mutez: true });
    await op.confirmation(1);
    assert.is(op.status, "applied");
    assert.is(await balanceOf(tezos, receiver), amount);
    assert.is(await balanceOf(tezos, pkh), reserve - feesOf(op) - BigInt(ALLOCATION_BURN));
  }));

  test.run();
}
