/** `setDelegate` and `registerDelegate` with each pinned Taquito. */

/** Defines and runs this scenario with one Taquito version's modules. */
export default function scenario({ suite, assert, sandbox, taquito, version }) {
  const { BOOTSTRAP, bounded, fund, testKey, toolkit } = sandbox;

  const test = suite(`Taquito ${version} delegation`);
  const funder = BOOTSTRAP[1];

  test("setDelegate makes a new account delegate to bootstrap3", bounded("setDelegate", async () => {
    const bank = await toolkit(funder.sk);
    const account = await testKey("ed25519", "delegator");
    await fund(bank, account.pkh, 5_000_000);
    assert.is(await bank.tz.getDelegate(account.pkh), null);

    const tezos = await toolkit(account.sk);
    const op = await tezos.contract.setDelegate({ source: account.pkh, delegate: BOOTSTRAP[2].pkh });
    await op.confirmation(1);
    assert.is(op.status, "applied");
    assert.is(await tezos.tz.getDelegate(account.pkh), BOOTSTRAP[2].pkh);
  }));

  test("registerDelegate makes a new account its own, active delegate", bounded("registerDelegate", async () => {
    const bank = await toolkit(funder.sk);
    const account = await testKey("ed25519", "new delegate");
    await fund(bank, account.pkh, 20_000_000);

    const tezos = await toolkit(account.sk);
    const op = await tezos.contract.registerDelegate({});
    await op.confirmation(1);
    assert.is(op.status, "applied");
    assert.is(await tezos.tz.getDelegate(account.pkh), account.pkh);

    const delegate = await tezos.rpc.getDelegates(account.pkh);
    assert.is(delegate.deactivated, false);
    assert.ok(delegate.delegated_contracts.includes(account.pkh), "the delegate delegates to itself");
    assert.is(delegate.staking_balance.toFixed(), (await tezos.tz.getBalance(account.pkh)).toFixed());
  }));

  test.run();
}
