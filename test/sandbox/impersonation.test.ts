import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";
import { formatSignature, parseSecretKey } from "../../lib/crypto/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { hashOperation } from "../../lib/shell/operations.ts";
import { Chain } from "../../lib/shell/chain.ts";
import { chainIdOf, genesisBlock, SANDBOX_GENESIS } from "../../lib/shell/genesis.ts";
import { BlockValidator } from "../../lib/shell/validator.ts";
import { genesisProtocol } from "../../lib/protocols/genesis/protocol.ts";
import { hangzhouProtocol } from "../../lib/protocols/hangzhou/protocol.ts";
import { applyWrites, genesisContextWrites } from "../../lib/protocols/genesis/context.ts";
import type { Context } from "../../lib/store/context/mod.ts";
import type { KeyValueStore } from "../../lib/store/kv.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { TezosError } from "../../lib/errors/registry.ts";
import { Impersonation } from "../../lib/sandbox/impersonation.ts";
import { sandboxGuard } from "../../lib/sandbox/guard.ts";
import { impersonationServices } from "../../lib/rpc/services/sandbox-impersonation.ts";
import { nodeRpcHandler } from "../../lib/rpc/services/mod.ts";
import { Directory } from "../../lib/rpc/directory.ts";

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const BOOTSTRAP2_KEY = parseSecretKey("edsk39qAm1fiMjgmPkw1EgQYkMzkJezLNewd7PLNHTkr6w9XA2zdfo");
const BOOTSTRAP1_KEY = parseSecretKey("edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh");
/** Accounts nobody funded: destinations whose balance is exactly what they receive. */
const FRESH = ["tz1burnburnburnburnburnburnburjAYjjX", "tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU", "tz1SfH1vxAt2TTZV7mpsN79uGas5LHhV8epq"];
const KT1 = "KT1PWx2mnDueood7fEmfbBDKx1D9BAnnXitn";
const ZERO_SIGNATURE = "00".repeat(64);

async function call(fetch: (r: Request) => Promise<Response>, method: string, path: string, body?: unknown): Promise<{ status: number; json: Any }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  return { status: res.status, json: res.headers.get("content-type")?.startsWith("application/json") ? JSON.parse(text) : text };
}

const on = (node: TezosNode) => (r: Request) => node.fetch(r);

/** A transfer of `amount` mutez from `source` to `destination` at the source's next counter, as JSON and forged bytes (unsigned). */
async function transfer(node: TezosNode, source: string, destination: string, amount = 1_000_000n, counterOffset = 1n) {
  const branch = (await call(on(node), "GET", "/chains/main/blocks/head/hash")).json;
  const counter = BigInt((await call(on(node), "GET", `/chains/main/blocks/head/context/contracts/${source}/counter`)).json);
  const op = {
    branch,
    contents: [
      { kind: "transaction", source, fee: "1000", counter: String(counter + counterOffset), gas_limit: "1520", storage_limit: "300", amount: String(amount), destination },
    ],
  };
  const forged = (await call(on(node), "POST", "/chains/main/blocks/head/helpers/forge/operations", op)).json as string;
  return { op, forged };
}

/** The operation signed with `signature` (hex): the injection's hex string. */
const withSignature = (forged: string, signature: string) => forged + signature;

async function signedBy(key: ReturnType<typeof parseSecretKey>, forged: string): Promise<Uint8Array> {
  return sign(key, fromHex(forged), genericWatermark());
}

async function balance(node: TezosNode, contract: string): Promise<bigint> {
  return BigInt((await call(on(node), "GET", `/chains/main/blocks/head/context/contracts/${contract}/balance`)).json);
}

async function bake(node: TezosNode): Promise<string> {
  const r = await call(on(node), "POST", "/sandbox/bake");
  assert.is(r.status, 200, JSON.stringify(r.json));
  return r.json[0];
}

const S = suite("sandbox impersonation");

S("a transfer from bootstrap1 with an all-zero signature: refused, then included while impersonated, refused again after stop_impersonating", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const dest = FRESH[0]!;
    const first = await transfer(node, BOOTSTRAP1, dest);
    const bytes = withSignature(first.forged, ZERO_SIGNATURE);
    const before = await call(on(node), "POST", "/injection/operation", bytes);
    assert.is(before.status, 500);
    assert.match(before.json[0].msg, /operation\.missing_signature/, "64 zero bytes read as no signature");
    const preBefore = await call(on(node), "POST", "/chains/main/blocks/head/helpers/preapply/operations", [{ protocol: HANGZHOU, ...first.op, signature: formatSignature(fromHex(ZERO_SIGNATURE)) }]);
    assert.is(preBefore.status, 500);
    assert.is(preBefore.json[0].id, "proto.011-PtHangz2.operation.missing_signature");

    assert.equal(await call(on(node), "POST", "/sandbox/impersonate", { address: BOOTSTRAP1 }), { status: 200, json: [BOOTSTRAP1] });
    assert.equal((await call(on(node), "GET", "/sandbox/impersonating")).json, [BOOTSTRAP1]);
    const pre = await call(on(node), "POST", "/chains/main/blocks/head/helpers/preapply/operations", [{ protocol: HANGZHOU, ...first.op, signature: formatSignature(fromHex(ZERO_SIGNATURE)) }]);
    assert.is(pre.status, 200, JSON.stringify(pre.json));
    assert.is(pre.json[0].contents[0].metadata.operation_result.status, "applied");

    // the same transfer with random bytes for a signature (the zero one was refused, not kept: either goes)
    const random = toHex(crypto.getRandomValues(new Uint8Array(64)));
    const accepted = withSignature(first.forged, random);
    const hash = hashOperation(fromHex(accepted));
    assert.equal(await call(on(node), "POST", "/injection/operation", accepted), { status: 200, json: hash });
    const counter = BigInt((await call(on(node), "GET", `/chains/main/blocks/head/context/contracts/${BOOTSTRAP1}/counter`)).json);
    const block = await bake(node);
    const included = (await call(on(node), "GET", `/chains/main/blocks/${block}/operation_hashes/3`)).json;
    assert.equal(included, [hash]);
    assert.is(await balance(node, dest), 1_000_000n);
    assert.is(BigInt((await call(on(node), "GET", `/chains/main/blocks/head/context/contracts/${BOOTSTRAP1}/counter`)).json), counter + 1n);
    const receipt = (await call(on(node), "GET", `/chains/main/blocks/${block}/operations/3/0`)).json;
    assert.is(receipt.contents[0].metadata.operation_result.status, "applied");
    const level = (await call(on(node), "GET", `/chains/main/blocks/${block}/header`)).json.level;
    assert.equal((await call(on(node), "GET", "/sandbox/impersonated_operations")).json, [{ hash, block, level, source: BOOTSTRAP1 }]);

    assert.equal(await call(on(node), "POST", "/sandbox/stop_impersonating", { address: BOOTSTRAP1 }), { status: 200, json: [] });
    assert.equal((await call(on(node), "GET", "/sandbox/impersonating")).json, []);
    const second = await transfer(node, BOOTSTRAP1, dest);
    const after = await call(on(node), "POST", "/injection/operation", withSignature(second.forged, ZERO_SIGNATURE));
    assert.is(after.status, 500);
    assert.match(after.json[0].msg, /operation\.missing_signature/);
    // a real signature still works
    const real = withSignature(second.forged, toHex(await signedBy(BOOTSTRAP1_KEY, second.forged)));
    assert.is((await call(on(node), "POST", "/injection/operation", real)).status, 200);
    await bake(node);
    assert.is(await balance(node, dest), 2_000_000n);
    assert.is((await call(on(node), "GET", "/sandbox/impersonated_operations")).json.length, 1);
  } finally {
    await node.close();
  }
});

S("signed with another account's key; a pending one is refused when impersonation stops, and stays out of the next block", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    await call(on(node), "POST", "/sandbox/impersonate", { address: BOOTSTRAP1 });
    const { forged } = await transfer(node, BOOTSTRAP1, FRESH[1]!);
    const bytes = withSignature(forged, toHex(await signedBy(BOOTSTRAP2_KEY, forged)));
    const hash = hashOperation(fromHex(bytes));
    assert.equal(await call(on(node), "POST", "/injection/operation", bytes), { status: 200, json: hash });
    let pending = (await call(on(node), "GET", "/chains/main/mempool/pending_operations")).json;
    assert.equal(pending.applied.map((o: Any) => o.hash), [hash]);

    await call(on(node), "POST", "/sandbox/stop_impersonating", { address: BOOTSTRAP1 });
    pending = (await call(on(node), "GET", "/chains/main/mempool/pending_operations")).json;
    assert.equal(pending.applied, []);
    assert.equal(pending.refused.map((o: Any) => o[0]), [hash]);
    assert.is(pending.refused[0][1].error[0].id, "proto.011-PtHangz2.operation.invalid_signature");
    const block = await bake(node);
    assert.equal((await call(on(node), "GET", `/chains/main/blocks/${block}/operation_hashes/3`)).json, []);
    assert.is(await balance(node, FRESH[1]!), 0n);
    assert.equal((await call(on(node), "GET", "/sandbox/impersonated_operations")).json, []);
  } finally {
    await node.close();
  }
});

S("an impersonated account without a revealed key acts without a reveal, and stays unrevealed", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const fresh = FRESH[2]!;
    const fund = await transfer(node, BOOTSTRAP1, fresh, 10_000_000n);
    assert.is((await call(on(node), "POST", "/injection/operation", withSignature(fund.forged, toHex(await signedBy(BOOTSTRAP1_KEY, fund.forged))))).status, 200);
    await bake(node);
    const unrevealed = await transfer(node, fresh, FRESH[0]!);
    const refused = await call(on(node), "POST", "/injection/operation", withSignature(unrevealed.forged, ZERO_SIGNATURE));
    assert.is(refused.status, 500);
    assert.match(refused.json[0].msg, /contract\.unrevealed_key/);

    await call(on(node), "POST", "/sandbox/impersonate", { address: fresh });
    const { forged } = await transfer(node, fresh, FRESH[0]!, 2_000_000n);
    assert.is((await call(on(node), "POST", "/injection/operation", withSignature(forged, ZERO_SIGNATURE))).status, 200);
    await bake(node);
    assert.is(await balance(node, FRESH[0]!), 2_000_000n);
    assert.is((await call(on(node), "GET", `/chains/main/blocks/head/context/contracts/${fresh}/manager_key`)).json, null);
    const records = (await call(on(node), "GET", "/sandbox/impersonated_operations")).json;
    assert.equal(records.map((r: Any) => r.source), [fresh]);
  } finally {
    await node.close();
  }
});

S("bad inputs: not an address, a KT1, a malformed body: clear errors, nothing impersonated", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const notAddress = await call(on(node), "POST", "/sandbox/impersonate", { address: "tz1notanaddress" });
    assert.is(notAddress.status, 500);
    assert.equal(notAddress.json, [{ kind: "permanent", id: "sandbox.impersonation.invalid_address", address: "tz1notanaddress" }]);
    const kt1 = await call(on(node), "POST", "/sandbox/impersonate", { address: KT1 });
    assert.is(kt1.status, 500);
    assert.equal(kt1.json, [{ kind: "permanent", id: "sandbox.impersonation.originated_contract", address: KT1 }]);
    const stopKt1 = await call(on(node), "POST", "/sandbox/stop_impersonating", { address: KT1 });
    assert.is(stopKt1.json[0].id, "sandbox.impersonation.originated_contract");
    const malformed = await call(on(node), "POST", "/sandbox/impersonate", { account: BOOTSTRAP1 });
    assert.is(malformed.status, 400);
    assert.match(malformed.json, /Missing field "address"/);
    assert.equal((await call(on(node), "GET", "/sandbox/impersonating")).json, []);
    // stopping an account not impersonated changes nothing
    assert.equal(await call(on(node), "POST", "/sandbox/stop_impersonating", { address: BOOTSTRAP1 }), { status: 200, json: [] });
    const still = await transfer(node, BOOTSTRAP1, FRESH[0]!);
    assert.is((await call(on(node), "POST", "/injection/operation", withSignature(still.forged, ZERO_SIGNATURE))).status, 500);
  } finally {
    await node.close();
  }
});

S("impersonate is refused while P2P peers are connected, and every control off a sandbox chain", async () => {
  const serve = (sandbox: boolean, peers: number) => {
    const impersonation = new Impersonation(new MemoryStore(), () => true);
    let reclassified = 0;
    const dir = new Directory().merge(
      impersonationServices({ guard: sandboxGuard({ sandbox, chainName: sandbox ? "SANDBOXED_TEZOS" : "TEZOS_MAINNET", peers: () => peers }), impersonation, reclassifyMempool: async () => void reclassified++ }),
    );
    const handler = nodeRpcHandler(dir as Directory<void>);
    return { impersonation, fetch: (r: Request) => handler(r), reclassified: () => reclassified };
  };
  const peered = serve(true, 2);
  const refused = await call(peered.fetch, "POST", "/sandbox/impersonate", { address: BOOTSTRAP1 });
  assert.is(refused.status, 500);
  assert.equal(refused.json, [{ kind: "temporary", id: "sandbox.peers_connected", peers: 2 }]);
  assert.equal(peered.impersonation.impersonated(), []);
  assert.equal((await call(peered.fetch, "GET", "/sandbox/impersonating")).json, []);

  const mainnet = serve(false, 0);
  for (const [method, path, body] of [["POST", "/sandbox/impersonate", { address: BOOTSTRAP1 }], ["POST", "/sandbox/stop_impersonating", { address: BOOTSTRAP1 }], ["GET", "/sandbox/impersonating"], ["GET", "/sandbox/impersonated_operations"]] as const) {
    const r = await call(mainnet.fetch, method, path, body);
    assert.is(r.status, 500, path);
    assert.is(r.json[0].id, "sandbox.not_a_sandbox", path);
  }
  assert.equal(mainnet.impersonation.impersonated(), []);

  const alone = serve(true, 0);
  assert.equal((await call(alone.fetch, "POST", "/sandbox/impersonate", { address: BOOTSTRAP1 })).json, [BOOTSTRAP1]);
  assert.equal((await call(alone.fetch, "POST", "/sandbox/stop_impersonating", { address: BOOTSTRAP1 })).json, []);
  assert.is(alone.reclassified(), 1);
});

/** The chain of `kv` with a bare validator, waiving what `signatures` records (none when absent). */
async function bareValidator(kv: KeyValueStore, signatures?: Impersonation) {
  const prepare = (ctx: Context) => applyWrites(ctx, genesisContextWrites(SANDBOX_GENESIS.protocol, { genesis_pubkey: SANDBOX_GENESIS.genesisPubkey }));
  const chain = await Chain.open(kv, chainIdOf(SANDBOX_GENESIS), genesisBlock(kv, SANDBOX_GENESIS, prepare), undefined);
  const protocols = new Map([genesisProtocol, hangzhouProtocol].map((p) => [p.hash, p]));
  return { chain, validator: new BlockValidator(chain, (h) => protocols.get(h), signatures === undefined ? {} : { signatures }) };
}

S("on LMDB: the records stay across a restart, and the block is valid again through the full application, not without them", async () => {
  const dir = await mkdtemp(join(tmpdir(), "tezos-impersonation-"));
  try {
    let node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" } });
    await call(on(node), "POST", "/sandbox/impersonate", { address: BOOTSTRAP1 });
    const { forged } = await transfer(node, BOOTSTRAP1, FRESH[0]!);
    const bytes = withSignature(forged, ZERO_SIGNATURE);
    const hash = hashOperation(fromHex(bytes));
    assert.is((await call(on(node), "POST", "/injection/operation", bytes)).status, 200);
    const block = await bake(node);
    const records = (await call(on(node), "GET", "/sandbox/impersonated_operations")).json;
    assert.is(records.length, 1);
    await node.close();

    node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" } });
    try {
      assert.equal((await call(on(node), "GET", "/sandbox/impersonated_operations")).json, records);
      assert.equal((await call(on(node), "GET", "/sandbox/impersonating")).json, [], "a restart ends impersonation");
    } finally {
      await node.close();
    }

    const kv = await openLmdbStore(dir);
    try {
      const imp = new Impersonation(kv, () => true);
      const bare = await bareValidator(kv, imp);
      const stored = bare.chain.block(block)!;
      const operations = bare.chain.store.operations(block)!;
      assert.ok(operations[3]!.some((o) => hashOperation(o) === hash));
      const applied = await bare.validator.apply(stored.bytes, operations);
      assert.is(applied.hash, block);
      assert.is(applied.info.operations_metadata[3]!.length, 1);
      await bare.chain.close();

      const strict = await bareValidator(kv);
      try {
        await strict.validator.apply(stored.bytes, operations);
        assert.unreachable("without the records, the bogus signature is refused");
      } catch (e) {
        if (!(e instanceof TezosError)) throw e;
        assert.match(JSON.stringify(e.toJson()), /operation\.missing_signature/);
      }
      await strict.chain.close();
    } finally {
      await kv.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

S.run();
