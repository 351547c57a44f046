/**
 * Smart contracts with each pinned Taquito: originate a counter (int storage) and call its
 * entrypoints by name, a FAILWITH reaching the client with its value, a contract paying an
 * implicit account by an internal transaction, originations inside contract and wallet batches.
 * Every expected value comes from Hangzhou's rules applied outside the node (KT1 from the
 * operation hash, storage sizes from the Micheline binary, canonical locations).
 */
import {
  COST_PER_BYTE, COUNTER, COUNTER_FAILURE, DEFAULT_ACCOUNT, DEFAULT_ACCOUNT_AMOUNT, ID, ORIGINATION_SIZE,
  balanceOf, canonicalLocation, credit, feesOf, originatedAddress, originatorOf, parseScript, prim, rejection,
  explained, resultsOf, storageSizeOf,
} from "./contracts-michelson.mjs";

/** Defines and runs this scenario with one Taquito version's modules (`michelCodec`: its @taquito/michel-codec). */
export default function scenario({ suite, assert, sandbox, taquito, michelCodec, version }) {
  const { BOOTSTRAP, HANGZHOU, bounded, testKey, toolkit } = sandbox;
  const { OpKind } = taquito;

  const test = suite(`Taquito ${version} contracts`);
  const originator = originatorOf(sandbox, BOOTSTRAP[0], "contracts originator");
  const counterCode = parseScript(michelCodec, COUNTER, HANGZHOU);
  const burn = (bytes) => -(BigInt(bytes) * COST_PER_BYTE);

  /** Originates a counter holding `initial` from the originator; resolves to `{ op, address }` once included. */
  async function originateCounter(initial) {
    const account = await originator();
    const tezos = await toolkit(account.sk);
    const op = await tezos.contract.originate({ code: COUNTER, storage: initial });
    await op.confirmation(1);
    return { op, address: op.contractAddress, tezos, account };
  }

  let counter;
  const sharedCounter = () => (counter ??= originateCounter(7));

  test("originating a counter gives the KT1 of the operation hash and Hangzhou's sizes and burns", bounded("originate", explained(async () => {
    const account = await originator();
    const tezos = await toolkit(account.sk);
    const before = await balanceOf(tezos, account.pkh);
    const { op, address } = await (counter ??= originateCounter(7));
    assert.is(op.status, "applied");
    assert.is(address, originatedAddress(op.hash, 0));

    const [content] = resultsOf(op);
    assert.is(content.kind, "origination");
    const result = content.metadata.operation_result;
    assert.equal(result.originated_contracts, [address]);
    const size = storageSizeOf(michelCodec, counterCode, { int: "7" });
    assert.is(result.storage_size, String(size));
    assert.is(result.paid_storage_size_diff, String(size));
    assert.equal(result.balance_updates, [
      credit(account.pkh, burn(size)),
      credit(account.pkh, burn(ORIGINATION_SIZE)),
    ]);
    assert.is(await balanceOf(tezos, account.pkh), before - feesOf(op) - (size + ORIGINATION_SIZE) * COST_PER_BYTE);
    assert.is(await balanceOf(tezos, address), 0n);
  })));

  test("the node keeps the script as sent and reads storage and entrypoints for contract.at", bounded("at", explained(async () => {
    const { address, tezos } = await sharedCounter();
    const script = await tezos.rpc.getScript(address);
    assert.equal(script.code, counterCode);
    assert.equal(script.storage, { int: "7" });
    assert.equal(await tezos.rpc.getEntrypoints(address), {
      entrypoints: { increment: { prim: "int" }, decrement: { prim: "int" }, reset: { prim: "unit" } },
    });
    const contract = await tezos.contract.at(address);
    assert.equal(Object.keys(contract.methodsObject).sort(), ["decrement", "increment", "reset"]);
  })));

  test("entrypoints called by name change the int storage as the script says", bounded("call", explained(async () => {
    const { address, tezos } = await originateCounter(10);
    const contract = await tezos.contract.at(address);
    assert.is((await contract.storage()).toFixed(), "10");

    const increment = await contract.methodsObject.increment(5).send();
    await increment.confirmation(1);
    const [call] = resultsOf(increment);
    assert.equal(call.parameters, { entrypoint: "increment", value: { int: "5" } });
    assert.equal(call.metadata.operation_result.storage, { int: "15" });
    assert.is((await contract.storage()).toFixed(), "15");

    // Taquito 12 still has the flattened `methods`; 25 only `methodsObject`.
    const decrement = typeof contract.methods === "object"
      ? contract.methods.decrement(4)
      : contract.methodsObject.decrement(4);
    await (await decrement.send()).confirmation(1);
    assert.is((await contract.storage()).toFixed(), "11");
    assert.equal(await tezos.rpc.getStorage(address), { int: "11" });

    const reset = await contract.methodsObject.reset().send();
    await reset.confirmation(1);
    assert.equal(resultsOf(reset)[0].parameters, { entrypoint: "reset", value: { prim: "Unit" } });
    assert.is((await contract.storage()).toFixed(), "0");
  })));

  test("a FAILWITH reaches the client as a TezosOperationError carrying the value and its location", bounded("failwith", explained(async () => {
    const { address, tezos, account } = await sharedCounter();
    const contract = await tezos.contract.at(address);
    const counterBefore = (await tezos.rpc.getContract(account.pkh)).counter;

    const error = await rejection(contract.methodsObject.decrement(8).send());
    assert.ok(error, "the call was accepted");
    assert.is(error.name, "TezosOperationError", `${error.name}: ${error.message}`);
    assert.is(error.message, COUNTER_FAILURE);
    assert.is(error.id, ID.scriptRejected);
    assert.is(error.kind, "temporary");
    assert.equal(error.errors.map((e) => e.id), [ID.runtimeError, ID.scriptRejected]);
    assert.is(error.errors[0].contract_handle, address);
    assert.equal(error.errors[0].contract_code, counterCode, "runtime_error carries the whole script");
    const rejected = error.errors[1];
    assert.equal(rejected.with, { string: COUNTER_FAILURE });
    assert.is(rejected.location, canonicalLocation(counterCode, prim("FAILWITH")));

    assert.is((await tezos.rpc.getContract(account.pkh)).counter, counterBefore, "nothing was injected");
    assert.equal(await tezos.rpc.getStorage(address), { int: "7" });
  })));

  test("a contract sends tez to a new implicit account by an internal transaction", bounded("internal", explained(async () => {
    const account = await originator();
    const tezos = await toolkit(account.sk);
    const receiver = await testKey("ed25519", "paid by a contract");
    const origination = await tezos.contract.originate({ code: DEFAULT_ACCOUNT, init: { prim: "Unit" }, balance: "250" });
    await origination.confirmation(1);
    const address = origination.contractAddress;
    assert.is(await balanceOf(tezos, address), 250_000_000n);

    const contract = await tezos.contract.at(address);
    const before = await balanceOf(tezos, account.pkh);
    const op = await contract.methodsObject.default(receiver.pkh).send();
    const level = await op.confirmation(1);

    assert.is(await balanceOf(tezos, receiver.pkh), DEFAULT_ACCOUNT_AMOUNT);
    assert.is(await balanceOf(tezos, address), 250_000_000n - DEFAULT_ACCOUNT_AMOUNT);
    // The caller pays the receiver's allocation.
    assert.is(await balanceOf(tezos, account.pkh), before - feesOf(op) - ORIGINATION_SIZE * COST_PER_BYTE);

    const [call] = resultsOf(op);
    assert.equal(call.parameters, { entrypoint: "default", value: { string: receiver.pkh } });
    assert.is(call.metadata.operation_result.status, "applied");
    assert.equal(call.metadata.operation_result.storage, { prim: "Unit" });
    const internal = call.metadata.internal_operation_results;
    assert.is(internal?.length, 1, JSON.stringify(call.metadata));
    const [transfer] = internal;
    assert.is(transfer.kind, "transaction");
    assert.is(transfer.source, address);
    assert.is(transfer.nonce, 0);
    assert.is(transfer.amount, String(DEFAULT_ACCOUNT_AMOUNT));
    assert.is(transfer.destination, receiver.pkh);
    assert.is(transfer.parameters, undefined, "Unit to the default entrypoint is left out");
    assert.is(transfer.result.status, "applied");
    assert.is(transfer.result.allocated_destination_contract, true);
    assert.equal(transfer.result.balance_updates, [
      credit(address, -DEFAULT_ACCOUNT_AMOUNT),
      credit(receiver.pkh, DEFAULT_ACCOUNT_AMOUNT),
      credit(account.pkh, burn(ORIGINATION_SIZE)),
    ]);

    // The block's receipt says the same.
    const block = await tezos.rpc.getBlock({ block: String(level) });
    const included = block.operations[3].find((o) => o.hash === op.hash);
    assert.ok(included, `the call is in block ${level}`);
    assert.equal(included.contents[0].metadata.internal_operation_results, internal);
  })));

  test("contract.batch originates two counters and transfers in one operation", bounded("contract.batch", explained(async () => {
    const account = await originator();
    const tezos = await toolkit(account.sk);
    const receiver = await testKey("ed25519", "contract batch with originations");
    const op = await tezos.contract
      .batch()
      .withOrigination({ code: COUNTER, storage: 1 })
      .withTransfer({ to: receiver.pkh, amount: 3 })
      .withOrigination({ code: counterCode, storage: 2 }) // Micheline JSON this time
      .send();
    await op.confirmation(1);
    const results = resultsOf(op);
    assert.equal(results.map((c) => c.kind), ["origination", "transaction", "origination"]);
    assert.equal(results.map((c) => c.metadata.operation_result.status), ["applied", "applied", "applied"]);
    const addresses = [originatedAddress(op.hash, 0), originatedAddress(op.hash, 1)];
    assert.equal(results[0].metadata.operation_result.originated_contracts, [addresses[0]]);
    assert.equal(results[2].metadata.operation_result.originated_contracts, [addresses[1]]);

    for (const [i, address] of addresses.entries()) {
      const contract = await tezos.contract.at(address);
      assert.is((await contract.storage()).toFixed(), String(i + 1));
    }
    assert.is(await balanceOf(tezos, receiver.pkh), 3_000_000n);
  })));

  test("wallet.batch originates a counter beside a transfer and the block's receipt names it", bounded("wallet.batch", explained(async () => {
    const account = await originator();
    const tezos = await toolkit(account.sk);
    const receiver = await testKey("ed25519", "wallet batch with an origination");
    const op = await tezos.wallet
      .batch([
        { kind: OpKind.TRANSACTION, to: receiver.pkh, amount: 2 },
        { kind: OpKind.ORIGINATION, code: COUNTER, storage: 42, balance: "1" },
      ])
      .send();
    const confirmation = await op.confirmation(1);
    assert.is(confirmation.completed, true);
    assert.is(await op.status(), "applied");
    const results = await op.operationResults();
    assert.equal(results.map((c) => c.kind), ["transaction", "origination"]);
    const address = originatedAddress(op.opHash, 0);
    assert.equal(results[1].metadata.operation_result.originated_contracts, [address]);

    const contract = await tezos.wallet.at(address);
    assert.is((await contract.storage()).toFixed(), "42");
    assert.is(await balanceOf(tezos, address), 1_000_000n);
    assert.is(await balanceOf(tezos, receiver.pkh), 2_000_000n);
  })));

  test.run();
}
