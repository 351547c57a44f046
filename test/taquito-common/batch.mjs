/** Batches of transfers: one operation, several contents, with the contract and wallet APIs. */

/** Defines and runs this scenario with one Taquito version's modules. */
export default function scenario({ suite, assert, sandbox, taquito, version }) {
  const { BOOTSTRAP, balanceOf, bounded, testKey, toolkit } = sandbox;
  const { OpKind } = taquito;

  const test = suite(`Taquito ${version} batches`);
  const funder = BOOTSTRAP[2];

  test("contract.batch sends three transfers in one operation", bounded("contract.batch", async () => {
    const tezos = await toolkit(funder.sk);
    const targets = await Promise.all([1, 2, 3].map((i) => testKey("ed25519", `contract batch ${i}`)));
    const op = await tezos.contract
      .batch()
      .withTransfer({ to: targets[0].pkh, amount: 1 })
      .withTransfer({ to: targets[1].pkh, amount: 2 })
      .withTransfer({ to: targets[2].pkh, amount: 3 })
      .send();
    assert.equal(op.results.map((c) => c.kind), ["transaction", "transaction", "transaction"]);
    assert.equal(op.results.map((c) => c.metadata.operation_result.status), ["applied", "applied", "applied"]);
    const level = await op.confirmation(1);
    const block = await tezos.rpc.getBlock({ block: String(level) });
    assert.is(block.operations[3].filter((o) => o.hash === op.hash).length, 1);
    for (const [i, target] of targets.entries()) assert.is(await balanceOf(tezos, target.pkh), BigInt(i + 1) * 1_000_000n);
  }));

  test("wallet.batch sends two transfers and its confirmation reports the block", bounded("wallet.batch", async () => {
    const tezos = await toolkit(funder.sk);
    const targets = await Promise.all([1, 2].map((i) => testKey("ed25519", `wallet batch ${i}`)));
    const op = await tezos.wallet
      .batch([
        { kind: OpKind.TRANSACTION, to: targets[0].pkh, amount: 4 },
        { kind: OpKind.TRANSACTION, to: targets[1].pkh, amount: 5 },
      ])
      .send();
    const confirmation = await op.confirmation(1);
    assert.is(confirmation.completed, true);
    assert.is(await op.status(), "applied");
    const block = await tezos.rpc.getBlock({ block: confirmation.block.hash });
    assert.ok(block.operations[3].some((o) => o.hash === op.opHash));
    assert.is(await balanceOf(tezos, targets[0].pkh), 4_000_000n);
    assert.is(await balanceOf(tezos, targets[1].pkh), 5_000_000n);
  }));

  test.run();
}
