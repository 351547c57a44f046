/**
 * Snapshot and revert with each pinned Taquito (issue 16): a snapshot of the shared node, then
 * Taquito transfers from bootstrap1 (each confirmed in a block), then `POST /sandbox/revert`:
 * the head is the snapshot's again, the receivers hold nothing, bootstrap1 holds what it held,
 * and the toolkit goes on transferring from there. Reverting only forgets what this file did
 * after its own snapshot: the other files' blocks, earlier, stay.
 */
import { control } from "./helpers.mjs";

/** Defines and runs this scenario with one Taquito version's modules. */
export default function scenario({ suite, assert, sandbox, version }) {
  const { BOOTSTRAP, balanceOf, bounded, testKey, toolkit } = sandbox;
  const test = suite(`Taquito ${version} sandbox snapshot`);
  const bootstrap1 = BOOTSTRAP[0];

  test("snapshot, Taquito transfers, revert: balances and head are back, and transfers go on", bounded("sandbox snapshot", async () => {
    const tezos = await toolkit(bootstrap1.sk);
    const { pkh: first } = await testKey("ed25519", "snapshot receiver 1");
    const { pkh: second } = await testKey("ed25519", "snapshot receiver 2");
    const start = await tezos.rpc.getBlockHeader();
    const before = await balanceOf(tezos, bootstrap1.pkh);
    const snapshot = await control("POST", "/sandbox/snapshot");
    assert.equal([snapshot.block, snapshot.level], [start.hash, start.level]);

    for (const [to, amount] of [[first, 3], [second, 5]]) {
      const op = await tezos.contract.transfer({ to, amount });
      await op.confirmation(1);
    }
    assert.is(await balanceOf(tezos, first), 3_000_000n);
    assert.is(await balanceOf(tezos, second), 5_000_000n);
    assert.ok((await tezos.rpc.getBlockHeader()).level > start.level);

    const reverted = await control("POST", "/sandbox/revert", { id: snapshot.id });
    assert.equal(reverted, snapshot);
    const header = await tezos.rpc.getBlockHeader();
    assert.equal([header.hash, header.level], [start.hash, start.level]);
    assert.is(await balanceOf(tezos, first), 0n);
    assert.is(await balanceOf(tezos, second), 0n);
    assert.is(await balanceOf(tezos, bootstrap1.pkh), before);

    // the same toolkit goes on from the reverted head
    const op = await tezos.contract.transfer({ to: first, amount: 1 });
    const level = await op.confirmation(1);
    assert.is(level, start.level + 1);
    assert.is(await balanceOf(tezos, first), 1_000_000n);
  }));

  test.run();
}
