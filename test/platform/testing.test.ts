/**
 * `startSandbox()` (platform/testing.ts, the package's `tezos-node-ts/testing`) under the runtime
 * running the tests: Octez RPCs over real HTTP on its url, its accounts' keys, bake, two
 * sandboxes side by side, and a close that frees the port.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { startSandbox } from "../../platform/testing.ts";
import { currentServe, runtimeName } from "../../platform/current.ts";
import { formatPublicKeyHash, parseSecretKey, publicKeyHash, publicKeyOf } from "../../lib/crypto/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { sandboxParameters } from "../../lib/protocols/hangzhou/sandbox-parameters.ts";

const test = suite(`startSandbox() under ${runtimeName()}`);

const BURN = "tz1burnburnburnburnburnburnburjAYjjX";

async function get(url: string, path: string): Promise<any> {
  const res = await fetch(`${url}${path}`);
  const body = await res.json();
  assert.is(res.status, 200, `${path}: ${JSON.stringify(body)}`);
  return body;
}

async function post(url: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const answer = await res.json();
  assert.is(res.status, 200, `${path}: ${JSON.stringify(answer)}`);
  return answer;
}

/** A transfer of `amount` mutez to {@link BURN} from `account`, forged and injected over HTTP; its hash. */
async function transfer(url: string, account: { address: string; secretKey: string }, amount: string): Promise<string> {
  const head = "/chains/main/blocks/head";
  const counter = BigInt(await get(url, `${head}/context/contracts/${account.address}/counter`)) + 1n;
  const forged: string = await post(url, `${head}/helpers/forge/operations`, {
    branch: await get(url, `${head}/hash`),
    contents: [{ kind: "transaction", source: account.address, fee: "1000", counter: String(counter), gas_limit: "1520", storage_limit: "257", amount, destination: BURN }],
  });
  const signature = await sign(parseSecretKey(account.secretKey), fromHex(forged), genericWatermark());
  return post(url, "/injection/operation", forged + toHex(signature));
}

test("serves Octez RPCs over HTTP on its loopback url: the activated chain at level 3, its constants, the version", async () => {
  const sandbox = await startSandbox();
  try {
    assert.match(sandbox.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const header = await get(sandbox.url, "/chains/main/blocks/head/header");
    assert.is(header.level, 3);
    assert.is(header.protocol, "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx");
    assert.is(await get(sandbox.url, "/chains/main/blocks/head/hash"), await (await sandbox.node.fetch(new Request("http://x/chains/main/blocks/head/hash"))).json());
    assert.is((await get(sandbox.url, "/chains/main/blocks/head/context/constants")).blocks_per_cycle, 8);
    assert.is((await get(sandbox.url, "/version")).network_version.chain_name, "SANDBOXED_TEZOS");
  } finally {
    await sandbox.close();
  }
});

test("its accounts are the five bootstrap accounts with secret keys that sign for their addresses; a transfer goes through", async () => {
  const sandbox = await startSandbox({ bake: { mode: "manual" } });
  try {
    assert.equal(sandbox.accounts.map((a) => a.name), ["bootstrap1", "bootstrap2", "bootstrap3", "bootstrap4", "bootstrap5"]);
    for (const a of sandbox.accounts) assert.is(formatPublicKeyHash(publicKeyHash(publicKeyOf(parseSecretKey(a.secretKey)))), a.address);
    const op = await transfer(sandbox.url, sandbox.accounts[3]!, "4200000");
    const [hash] = await sandbox.bake();
    assert.is(await get(sandbox.url, "/chains/main/blocks/head/hash"), hash);
    assert.equal(await get(sandbox.url, "/chains/main/blocks/head/operation_hashes/3"), [op]);
    assert.is(await get(sandbox.url, `/chains/main/blocks/head/context/contracts/${BURN}/balance`), "4200000");
  } finally {
    await sandbox.close();
  }
});

test("bake(n) bakes n blocks at once and answers their hashes; a bad count is refused", async () => {
  const sandbox = await startSandbox({ bake: { mode: "manual" } });
  try {
    const hashes = await sandbox.bake(3);
    assert.is(hashes.length, 3);
    assert.is((await get(sandbox.url, "/chains/main/blocks/head/header")).level, 6);
    assert.equal([await get(sandbox.url, "/chains/main/blocks/4/hash"), await get(sandbox.url, "/chains/main/blocks/6/hash")], [hashes[0], hashes[2]]);
    for (const bad of [0, -1, 1.5]) {
      await sandbox.bake(bad).then(
        () => assert.unreachable(`bake(${bad})`),
        (e: unknown) => assert.ok(e instanceof RangeError, String(e)),
      );
    }
    assert.is((await get(sandbox.url, "/chains/main/blocks/head/header")).level, 6);
  } finally {
    await sandbox.close();
  }
});

test("two sandboxes side by side are two chains: a transfer on one is not on the other", async () => {
  const a = await startSandbox({ bake: { mode: "manual" } });
  const b = await startSandbox({ bake: { mode: "manual" } });
  try {
    assert.is.not(a.url, b.url);
    const genesisLevel = await get(b.url, "/chains/main/blocks/head/hash");
    await transfer(a.url, a.accounts[0]!, "1000");
    await a.bake();
    assert.is(await get(a.url, `/chains/main/blocks/head/context/contracts/${BURN}/balance`), "1000");
    assert.is(await get(b.url, `/chains/main/blocks/head/context/contracts/${BURN}/balance`), "0");
    assert.is(await get(b.url, "/chains/main/blocks/head/hash"), genesisLevel);
  } finally {
    await a.close();
    await b.close();
  }
});

test("node options pass through: other bootstrap accounts in the parameters give those accounts only", async () => {
  const parameters = sandboxParameters() as { bootstrap_accounts: [string, string][] };
  const two = { ...parameters, bootstrap_accounts: parameters.bootstrap_accounts.slice(1, 3) };
  const sandbox = await startSandbox({ protocolParameters: two, bakerKeys: ["bootstrap2", "bootstrap3"], bake: { mode: "manual" } });
  try {
    assert.equal(sandbox.accounts.map((a) => a.name), ["bootstrap2", "bootstrap3"]);
    assert.is(await get(sandbox.url, `/chains/main/blocks/head/context/contracts/${sandbox.accounts[0]!.address}/manager_key`), sandbox.accounts[0]!.publicKey);
    // bootstrap1 has no account on this chain
    assert.is(await get(sandbox.url, "/chains/main/blocks/head/context/contracts/tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx/balance"), "0");
    assert.is.not(await get(sandbox.url, `/chains/main/blocks/head/context/contracts/${sandbox.accounts[1]!.address}/balance`), "0");
  } finally {
    await sandbox.close();
  }
});

test("close() frees the port and closes the node; closing twice is harmless", async () => {
  const sandbox = await startSandbox();
  const port = Number(new URL(sandbox.url).port);
  await sandbox.close();
  await sandbox.close();
  await fetch(`${sandbox.url}/chains/main/blocks/head/hash`).then(
    () => assert.unreachable("the closed sandbox answered"),
    (e: unknown) => assert.ok(e instanceof Error),
  );
  const closed = await sandbox.node.fetch(new Request("http://x/chains/main/blocks/head/hash"));
  assert.is(closed.status, 503);
  // the port can be bound again
  const serve = await currentServe();
  const server = await serve(() => new Response("again"), { hostname: "127.0.0.1", port });
  try {
    assert.is(await (await fetch(`${server.url}/`)).text(), "again");
  } finally {
    await server.close();
  }
});

test("a store or a P2P pool is refused: a sandbox has its own memory store", async () => {
  await startSandbox({ store: new MemoryStore() } as never).then(
    () => assert.unreachable("a store option was taken"),
    (e: unknown) => assert.match(String(e), /own memory store/),
  );
});

test.run();
