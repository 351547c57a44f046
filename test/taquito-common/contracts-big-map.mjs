/**
 * A contract with two big maps (Octez's `mini_scenarios/big_map_entrypoints.tz`) with each pinned
 * Taquito: origination with initial entries, `storage.get(key)` for present and absent keys
 * (pack_data, then `big_maps/<id>/<expr>`; 404 → undefined), updates by named entrypoints with
 * their `lazy_storage_diff` and `big_map_diff`, and a failing `mem_left` reaching the client.
 */
import {
  BIG_MAP_ENTRYPOINTS, ID, canonicalLocation, originatedAddress, originatorOf, parseScript, prim, rejection,
  explained, resultsOf, scriptExprHash,
} from "./contracts-michelson.mjs";

/** The entrypoints Octez answers for this contract (tezt capture `hangzhou.client.contracts.out`). */
const STRING = { prim: "string" };
const STRING_NAT = { prim: "pair", args: [STRING, { prim: "nat" }] };
const ENTRYPOINTS = {
  default: { prim: "unit" },
  mem: { prim: "or", args: [{ ...STRING, annots: ["%mem_left"] }, { ...STRING, annots: ["%mem_right"] }] },
  mem_left: STRING,
  mem_right: STRING,
  add: { prim: "or", args: [{ ...STRING_NAT, annots: ["%add_left"] }, { ...STRING_NAT, annots: ["%add_right"] }] },
  add_left: STRING_NAT,
  add_right: STRING_NAT,
  rem: { prim: "or", args: [{ ...STRING, annots: ["%rem_left"] }, { ...STRING, annots: ["%rem_right"] }] },
  rem_left: STRING,
  rem_right: STRING,
};

/** Defines and runs this scenario with one Taquito version's modules (`michelCodec`: its @taquito/michel-codec). */
export default function scenario({ suite, assert, sandbox, taquito, michelCodec, version }) {
  const { BOOTSTRAP, HANGZHOU, bounded, toolkit } = sandbox;
  const { MichelsonMap } = taquito;

  const test = suite(`Taquito ${version} big maps`);
  const originator = originatorOf(sandbox, BOOTSTRAP[1], "big map originator");
  const code = parseScript(michelCodec, BIG_MAP_ENTRYPOINTS, HANGZHOU);
  /** Packs a string key locally (michel-codec), as hex. */
  const pack = (key) => michelCodec.packDataBytes({ string: key }, STRING).bytes;
  const keyHash = (key) => scriptExprHash(pack(key));

  let originated;
  /** Originates the contract once: left map alice → 1, bob → 2; right map empty. */
  const bigMapContract = () =>
    (originated ??= (async () => {
      const account = await originator();
      const tezos = await toolkit(account.sk);
      const op = await tezos.contract.originate({
        code: BIG_MAP_ENTRYPOINTS,
        storage: { 0: MichelsonMap.fromLiteral({ alice: 1, bob: 2 }), 1: new MichelsonMap() },
      });
      await op.confirmation(1);
      const storage = await tezos.rpc.getStorage(op.contractAddress);
      const [left, right] = storage.args.map((id) => Number(id.int));
      return { op, address: op.contractAddress, tezos, account, left, right };
    })());

  test("originating allocates two big maps and lists the initial entries in lazy_storage_diff", bounded("originate", explained(async () => {
    const { op, address, left, right } = await bigMapContract();
    assert.is(op.status, "applied");
    assert.is(address, originatedAddress(op.hash, 0));
    assert.ok(Number.isInteger(left) && left >= 0 && Number.isInteger(right) && right >= 0 && left !== right, `ids ${left}, ${right}`);

    const result = resultsOf(op)[0].metadata.operation_result;
    assert.equal(result.originated_contracts, [address]);
    assert.is(result.storage_size, result.paid_storage_size_diff);
    const diffs = Object.fromEntries(result.lazy_storage_diff.map((d) => [d.id, d]));
    assert.equal(Object.keys(diffs).sort(), [String(left), String(right)].sort());
    for (const id of [left, right]) {
      assert.is(diffs[id].kind, "big_map");
      assert.is(diffs[id].diff.action, "alloc");
      assert.equal(diffs[id].diff.key_type, STRING);
      assert.equal(diffs[id].diff.value_type, { prim: "nat" });
    }
    const updates = [...diffs[left].diff.updates].sort((a, b) => a.key.string.localeCompare(b.key.string));
    assert.equal(updates, [
      { key_hash: keyHash("alice"), key: { string: "alice" }, value: { int: "1" } },
      { key_hash: keyHash("bob"), key: { string: "bob" }, value: { int: "2" } },
    ]);
    assert.equal(diffs[right].diff.updates, []);
  })));

  test("the script, storage and entrypoints read back as Octez answers them", bounded("reads", explained(async () => {
    const { address, tezos, left, right } = await bigMapContract();
    assert.equal((await tezos.rpc.getScript(address)).code, code);
    assert.equal(await tezos.rpc.getStorage(address), { prim: "Pair", args: [{ int: String(left) }, { int: String(right) }] });
    assert.equal(await tezos.rpc.getEntrypoints(address), { entrypoints: ENTRYPOINTS });
  })));

  test("storage.get answers present keys and undefined for absent ones", bounded("get", explained(async () => {
    const { address, tezos } = await bigMapContract();
    const storage = await (await tezos.contract.at(address)).storage();
    assert.is((await storage[0].get("alice")).toFixed(), "1");
    assert.is((await storage[0].get("bob")).toFixed(), "2");
    assert.is(await storage[0].get("carol"), undefined);
    assert.is(await storage[1].get("alice"), undefined);
  })));

  test("pack_data and big_maps/<id>/<expr> agree with the key packed and hashed locally", bounded("expr", explained(async () => {
    const { tezos, left } = await bigMapContract();
    const { packed } = await tezos.rpc.packData({ data: { string: "alice" }, type: STRING });
    assert.is(packed, pack("alice"));
    assert.equal(await tezos.rpc.getBigMapExpr(String(left), keyHash("alice")), { int: "1" });
    const absent = await rejection(tezos.rpc.getBigMapExpr(String(left), keyHash("nobody")));
    assert.is(absent?.status, 404, `an absent key answers ${absent?.status}`);
  })));

  test("big_map_get answers null with two big maps; on the copy CREATE_CONTRACT makes, the value or null", bounded("big_map_get", explained(async () => {
    const { address, tezos, left, right } = await bigMapContract();
    const { url } = await sandbox.sandbox();
    const get = async (contract, key) => {
      const response = await fetch(`${url}/chains/main/blocks/head/context/contracts/${contract}/big_map_get`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key: { string: key }, type: STRING }),
      });
      assert.is(response.status, 200, `big_map_get ${key}`);
      return response.json();
    };
    // Octez answers only for a storage holding exactly one big map.
    assert.is(await get(address, "bob"), null);

    // `default` originates a contract holding a copy of the left map: one big map.
    const contract = await tezos.contract.at(address);
    const op = await contract.methodsObject.default().send();
    await op.confirmation(1);
    const [call] = resultsOf(op);
    const internal = call.metadata.internal_operation_results;
    assert.equal(internal.map((o) => [o.kind, o.source, o.nonce, o.result.status]), [["origination", address, 0, "applied"]]);
    const copy = originatedAddress(op.hash, 0);
    assert.equal(internal[0].result.originated_contracts, [copy]);
    const copied = await tezos.rpc.getStorage(copy);
    assert.ok(![String(left), String(right)].includes(copied.int), `the copy has its own id, ${copied.int}`);
    const copyDiff = internal[0].result.lazy_storage_diff.find((d) => d.id === copied.int);
    assert.is(copyDiff?.diff.action, "copy", JSON.stringify(internal[0].result.lazy_storage_diff));
    // CREATE_CONTRACT first copies the left map into a temporary (negative) id, which the
    // internal origination then copies into the new contract's own map.
    assert.ok(Number(copyDiff.diff.source) < 0, `copied from ${copyDiff.diff.source}`);
    assert.equal(copyDiff.diff.updates, []);

    assert.equal(await get(copy, "bob"), { int: "2" });
    assert.is(await get(copy, "nobody"), null);
  })));

  test("add_left and rem_left update the left map; the receipt lists the key diffs", bounded("update", explained(async () => {
    const { address, tezos, left, right } = await bigMapContract();
    const contract = await tezos.contract.at(address);

    const add = await contract.methodsObject.add_left({ 0: "carol", 1: 3 }).send();
    await add.confirmation(1);
    const [addCall] = resultsOf(add);
    assert.equal(addCall.parameters, { entrypoint: "add_left", value: { prim: "Pair", args: [{ string: "carol" }, { int: "3" }] } });
    const addResult = addCall.metadata.operation_result;
    // Every big map of the storage gets a diff, the unchanged one with no updates, in Octez's
    // order: the storage walked left to right, each diff put in front (right map first).
    const unchanged = { kind: "big_map", id: String(right), diff: { action: "update", updates: [] } };
    assert.equal(addResult.lazy_storage_diff, [unchanged, {
      kind: "big_map",
      id: String(left),
      diff: { action: "update", updates: [{ key_hash: keyHash("carol"), key: { string: "carol" }, value: { int: "3" } }] },
    }]);
    assert.equal(addResult.big_map_diff, [
      { action: "update", big_map: String(left), key_hash: keyHash("carol"), key: { string: "carol" }, value: { int: "3" } },
    ]);

    const remove = await contract.methodsObject.rem_left("alice").send();
    await remove.confirmation(1);
    const removeResult = resultsOf(remove)[0].metadata.operation_result;
    assert.equal(removeResult.lazy_storage_diff, [unchanged, {
      kind: "big_map",
      id: String(left),
      diff: { action: "update", updates: [{ key_hash: keyHash("alice"), key: { string: "alice" } }] },
    }]);

    const storage = await contract.storage();
    assert.is(await storage[0].get("alice"), undefined);
    assert.is((await storage[0].get("carol")).toFixed(), "3");
    const values = await storage[0].getMultipleValues(["alice", "bob", "carol"]);
    assert.is(values.get("alice"), undefined);
    assert.is(values.get("bob").toFixed(), "2");
    assert.is(values.get("carol").toFixed(), "3");
    // The ids stay: a big map in storage is updated in place.
    assert.equal((await tezos.rpc.getStorage(address)).args[0], { int: String(left) });
  })));

  test("mem_left of an absent key fails with Unit, which reaches the client as JSON", bounded("mem_left", explained(async () => {
    const { address, tezos } = await bigMapContract();
    const contract = await tezos.contract.at(address);
    await (await contract.methodsObject.mem_left("bob").send()).confirmation(1);

    const error = await rejection(contract.methodsObject.mem_left("zed").send());
    assert.ok(error, "the call was accepted");
    assert.is(error.name, "TezosOperationError", `${error.name}: ${error.message}`);
    assert.is(error.id, ID.scriptRejected);
    assert.is(error.message, JSON.stringify({ prim: "Unit" }));
    assert.equal(error.errors.map((e) => e.id), [ID.runtimeError, ID.scriptRejected]);
    assert.is(error.errors[0].contract_handle, address);
    const rejected = error.errors.at(-1);
    assert.equal(rejected.with, { prim: "Unit" });
    // mem_left's ASSERT is the script's first FAILWITH (storage and parameter come first in the file).
    assert.is(rejected.location, canonicalLocation(code, prim("FAILWITH")));
  })));

  test.run();
}
