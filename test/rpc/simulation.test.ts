import { test } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../mod.ts";
import { encodeBinary } from "../../lib/encoding/codec.ts";
import { fromHex } from "../../lib/encoding/hex.ts";
import { unsignedOperation } from "../../lib/encoding/hangzhou/operation.ts";
import { formatSignature, parseSecretKey } from "../../lib/crypto/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";

const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const BOOTSTRAP2 = "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN";
const KEY1 = parseSecretKey("edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh");
const ZERO_SIG = "sigMzJ4GVAvXEd2RjsKGfG2H9QvqTSKCZsuB2KiHbZRGFz72XgF6KaKADznh674fQgBatxw3xdHqTtMHUZAGRprxy64wg1aq";

async function post(node: TezosNode, path: string, body: unknown) {
  const res = await node.fetch(new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
  const text = await res.text();
  return { status: res.status, json: res.headers.get("content-type")?.startsWith("application/json") ? JSON.parse(text) : text };
}

async function transfer(node: TezosNode) {
  const branch = await (await node.fetch(new Request("http://localhost/chains/main/blocks/head/hash"))).json();
  const counter = await (await node.fetch(new Request(`http://localhost/chains/main/blocks/head/context/contracts/${BOOTSTRAP1}/counter`))).json();
  return {
    branch,
    contents: [
      { kind: "transaction", source: BOOTSTRAP1, fee: "1000", counter: String(BigInt(counter) + 1n), gas_limit: "1520", storage_limit: "0", amount: "1000000", destination: BOOTSTRAP2 },
    ],
  };
}

test("run_operation applies a transfer without checking its signature and reports Hangzhou's receipt", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const op = await transfer(node);
    const r = await post(node, "/chains/main/blocks/head/helpers/scripts/run_operation", { operation: { ...op, signature: ZERO_SIG }, chain_id: "NetXdQprcVkpaWU" });
    assert.is(r.status, 200, JSON.stringify(r.json));
    const result = r.json.contents[0].metadata.operation_result;
    assert.is(result.status, "applied");
    assert.is(result.consumed_gas, "1420");
    assert.is(result.consumed_milligas, "1420000");
    assert.equal(
      result.balance_updates.map((u: { contract: string; change: string }) => [u.contract, u.change]),
      [[BOOTSTRAP1, "-1000000"], [BOOTSTRAP2, "1000000"]],
    );
    const same = await post(node, "/chains/main/blocks/head/helpers/scripts/simulate_operation", { operation: { ...op, signature: ZERO_SIG }, chain_id: "NetXdQprcVkpaWU" });
    assert.equal(same.json, r.json);
    const wrongChain = await post(node, "/chains/main/blocks/head/helpers/scripts/run_operation", { operation: { ...op, signature: ZERO_SIG }, chain_id: "NetXHAoG8TyXu4i" });
    assert.is(wrongChain.status, 500);
  } finally {
    await node.close();
  }
});

test("preapply/operations checks the signature and returns the receipts of signed operations", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const op = await transfer(node);
    const forged = await post(node, "/chains/main/blocks/head/helpers/forge/operations", op);
    assert.equal([...fromHex(forged.json)], [...encodeBinary(unsignedOperation, unsignedOperation.fromJson(op))]);
    const signature = formatSignature(await sign(KEY1, fromHex(forged.json), genericWatermark()), "ed25519");
    const ok = await post(node, "/chains/main/blocks/head/helpers/preapply/operations", [{ protocol: HANGZHOU, ...op, signature }]);
    assert.is(ok.status, 200, JSON.stringify(ok.json));
    assert.is(ok.json[0].contents[0].metadata.operation_result.status, "applied");
    const other = parseSecretKey("edsk39qAm1fiMjgmPkw1EgQYkMzkJezLNewd7PLNHTkr6w9XA2zdfo");
    const wrong = formatSignature(await sign(other, fromHex(forged.json), genericWatermark()), "ed25519");
    const bad = await post(node, "/chains/main/blocks/head/helpers/preapply/operations", [{ protocol: HANGZHOU, ...op, signature: wrong }]);
    assert.is(bad.status, 500);
    assert.is(bad.json[0].id, "proto.011-PtHangz2.operation.invalid_signature");
  } finally {
    await node.close();
  }
});

test.run();
