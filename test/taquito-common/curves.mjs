/** tz2 (secp256k1) and tz3 (P-256) accounts sign, reveal and transfer with each pinned Taquito. */

/** Defines and runs this scenario with one Taquito version's modules. */
export default function scenario({ suite, assert, sandbox, taquito, version }) {
  const { ALLOCATION_BURN, BOOTSTRAP, balanceOf, bounded, feesOf, fund, testKey, toolkit } = sandbox;

  const test = suite(`Taquito ${version} tz2 and tz3`);
  const funder = BOOTSTRAP[4];

  for (const [curve, kind, pk] of [["secp256k1", "tz2", "sppk"], ["p256", "tz3", "p2pk"]]) {
    test(`a new ${kind} account reveals its ${pk} key and transfers in one operation`, bounded(kind, async () => {
      const bank = await toolkit(funder.sk);
      const sender = await testKey(curve, "sender");
      const receiver = await testKey("ed25519", `${kind} receiver`);
      assert.ok(sender.pkh.startsWith(kind), sender.pkh);
      await fund(bank, sender.pkh, 10_000_000);

      const tezos = await toolkit(sender.sk);
      const op = await tezos.contract.transfer({ to: receiver.pkh, amount: 2 });
      assert.equal(op.results.map((c) => c.kind), ["reveal", "transaction"]);
      await op.confirmation(1);

      const key = await bank.rpc.getManagerKey(sender.pkh);
      assert.ok(String(key).startsWith(pk), String(key));
      assert.is(key, await tezos.signer.publicKey());
      assert.is(await balanceOf(bank, receiver.pkh), 2_000_000n);
      assert.is(await balanceOf(bank, sender.pkh), 10_000_000n - 2_000_000n - feesOf(op) - BigInt(ALLOCATION_BURN));
    }));
  }

  test.run();
}
