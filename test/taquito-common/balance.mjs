/** `tz.getBalance` and the plain reads each pinned Taquito makes before any operation. */

/** Defines and runs this scenario with one Taquito version's modules. */
export default function scenario({ suite, assert, sandbox, taquito, version }) {
  const { BOOTSTRAP, HANGZHOU, bounded, testKey, toolkit } = sandbox;

  const test = suite(`Taquito ${version} reads`);

  test("getBalance reads a bootstrap account's 4,000,000 tez in the activation block's context", bounded("getBalance", async () => {
    const tezos = await toolkit(BOOTSTRAP[0].sk);
    const balance = await tezos.rpc.getBalance(BOOTSTRAP[0].pkh, { block: "1" });
    assert.is(balance.toFixed(), "4000000000000");
  }));

  test("getBalance at head answers a BigNumber equal to the contract's balance field", bounded("getBalance", async () => {
    const tezos = await toolkit(BOOTSTRAP[0].sk);
    const balance = await tezos.tz.getBalance(BOOTSTRAP[1].pkh);
    const contract = await tezos.rpc.getContract(BOOTSTRAP[1].pkh);
    assert.is(balance.toFixed(), contract.balance.toFixed());
    assert.ok(balance.gt(3_900_000_000_000), `bootstrap2 has ${balance.toFixed()} mutez`);
  }));

  test("getBalance of an address never used is zero", bounded("getBalance", async () => {
    const tezos = await toolkit(BOOTSTRAP[0].sk);
    const { pkh } = await testKey("ed25519", "never used");
    assert.is((await tezos.tz.getBalance(pkh)).toFixed(), "0");
  }));

  test("head/protocols names Hangzhou as the next protocol, which picks Taquito's Hangzhou forger", bounded("protocols", async () => {
    const tezos = await toolkit(BOOTSTRAP[0].sk);
    const { next_protocol } = await tezos.rpc.getProtocols();
    assert.is(next_protocol, HANGZHOU);
  }));

  test.run();
}
