/** Hangzhou's errors reach each pinned Taquito with their ids. */

/** Defines and runs this scenario with one Taquito version's modules. */
export default function scenario({ suite, assert, sandbox, taquito, version }) {
  const { BOOTSTRAP, bounded, toolkit } = sandbox;

  const test = suite(`Taquito ${version} errors`);
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
}
