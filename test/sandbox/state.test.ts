/**
 * The sandbox's state changes (docs/sandbox.md, State) through HTTP on a node, with the node's
 * own validation of the blocks that carry them, their application again through the full path
 * (after a restart, on LMDB), the refusals, and the auto mode's block at once.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";
import type { Origination } from "../../lib/encoding/hangzhou/operation.ts";
import type { Micheline } from "../../lib/encoding/micheline.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { Chain } from "../../lib/shell/chain.ts";
import { chainIdOf, genesisBlock, SANDBOX_GENESIS } from "../../lib/shell/genesis.ts";
import { BlockValidator, type PrepareContext } from "../../lib/shell/validator.ts";
import { genesisProtocol } from "../../lib/protocols/genesis/protocol.ts";
import { HANGZHOU, hangzhouProtocol } from "../../lib/protocols/hangzhou/protocol.ts";
import { writeSandboxChanges } from "../../lib/protocols/hangzhou/sandbox-changes.ts";
import { applyWrites, genesisContextWrites } from "../../lib/protocols/genesis/context.ts";
import type { Context } from "../../lib/store/context/mod.ts";
import type { KeyValueStore } from "../../lib/store/kv.ts";
import { TezosError } from "../../lib/errors/registry.ts";
import { SandboxChanges } from "../../lib/sandbox/changes.ts";
import { BOOTSTRAP, forge, manager } from "../hangzhou/manager-fixture.ts";

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const B = "/chains/main/blocks/head";
const FRESH = "tz1burnburnburnburnburnburnburjAYjjX";
const BOOTSTRAP1 = BOOTSTRAP[0]!.pkh;
const BOOTSTRAP2 = BOOTSTRAP[1]!.pkh;

/** parameter unit; storage (pair (big_map string nat) nat); code { CDR; NIL operation; PAIR } */
const CODE: Micheline = [
  { prim: "parameter", args: [{ prim: "unit" }] },
  { prim: "storage", args: [{ prim: "pair", args: [{ prim: "big_map", args: [{ prim: "string" }, { prim: "nat" }] }, { prim: "nat" }] }] },
  { prim: "code", args: [[{ prim: "CDR" }, { prim: "NIL", args: [{ prim: "operation" }] }, { prim: "PAIR" }]] },
];
/** The same storage type, code that adds one to the counter: { CDR; UNPAIR; PUSH nat 1; ADD; SWAP; PAIR; NIL operation; PAIR } */
const CODE_PLUS_ONE: Micheline = [
  CODE[0]!,
  CODE[1]!,
  {
    prim: "code",
    args: [[
      { prim: "CDR" }, { prim: "UNPAIR" }, { prim: "SWAP" }, { prim: "PUSH", args: [{ prim: "nat" }, { int: "1" }] }, { prim: "ADD" },
      { prim: "SWAP" }, { prim: "PAIR" }, { prim: "NIL", args: [{ prim: "operation" }] }, { prim: "PAIR" },
    ]],
  },
] as Micheline[];

async function call(node: TezosNode, method: string, path: string, body?: unknown): Promise<{ status: number; json: Any }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  let json: Any = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, json };
}

async function ok(node: TezosNode, method: string, path: string, body?: unknown): Promise<Any> {
  const r = await call(node, method, path, body);
  assert.is(r.status, 200, `${method} ${path}: ${JSON.stringify(r.json)}`);
  return r.json;
}

/** Signs and injects manager contents from bootstrap1 and bakes them; their results. */
async function run(node: TezosNode, contents: (counter: bigint) => Any[]): Promise<Any[]> {
  const counter = BigInt(await ok(node, "GET", `${B}/context/contracts/${BOOTSTRAP1}/counter`));
  const branch = await ok(node, "GET", `${B}/hash`);
  const hash = await ok(node, "POST", "/injection/operation", toHex(await forge(BOOTSTRAP[0]!.sk, branch, contents(counter + 1n))));
  await ok(node, "POST", "/sandbox/bake");
  const ops = await ok(node, "GET", `${B}/operations/3`);
  return ops.find((o: Any) => o.hash === hash).contents.map((c: Any) => c.metadata.operation_result);
}

/** Originates the test contract with storage `Pair {Elt "a" 1} 7`; its KT1 and big map id. */
async function originate(node: TezosNode): Promise<{ kt1: string; bigMap: string }> {
  const [r] = await run(node, (counter) => [
    manager<Origination>({
      kind: "origination",
      source: BOOTSTRAP1,
      counter,
      balance: 0n,
      script: { code: CODE, storage: { prim: "Pair", args: [[{ prim: "Elt", args: [{ string: "a" }, { int: "1" }] }], { int: "7" }] } },
      fee: 100_000n,
      gas_limit: 20_000n,
      storage_limit: 5_000n,
    }),
  ]);
  assert.is(r.status, "applied", JSON.stringify(r));
  return { kt1: r.originated_contracts[0], bigMap: r.lazy_storage_diff[0].id };
}

/** The script expression hash of a string key (packed by the node's `pack_data`). */
async function keyHash(node: TezosNode, key: string): Promise<string> {
  const { packed } = await ok(node, "POST", `${B}/helpers/scripts/pack_data`, { data: { string: key }, type: { prim: "string" } });
  return b58encode(B58.scriptExprHash, blake2b256(fromHex(packed)));
}

const S = suite("sandbox state changes");

S("every change is pending until the next bake, then visible through Octez's RPCs, listed with its block", async () => {
  // bootstrap1 neither bakes nor endorses: its staking balance moves by the change alone
  const node = await createNode({ bake: { mode: "manual" }, bakerKeys: ["bootstrap2", "bootstrap3", "bootstrap4", "bootstrap5"] });
  try {
    const { kt1, bigMap } = await originate(node);
    const stakingBefore = BigInt(await ok(node, "GET", `${B}/context/delegates/${BOOTSTRAP1}/staking_balance`));
    const balance1 = BigInt(await ok(node, "GET", `${B}/context/contracts/${BOOTSTRAP1}/balance`));
    const counter2 = BigInt(await ok(node, "GET", `${B}/context/contracts/${BOOTSTRAP2}/counter`));

    const queued = [
      await ok(node, "POST", "/sandbox/set_balance", { address: FRESH, balance: "123456789" }),
      await ok(node, "POST", "/sandbox/set_balance", { address: BOOTSTRAP1, balance: String(balance1 + 1_000_000_000n) }),
      await ok(node, "POST", "/sandbox/set_balance", { address: kt1, balance: "5000000" }),
      await ok(node, "POST", "/sandbox/set_storage", { contract: kt1, storage: { prim: "Pair", args: [{ int: bigMap }, { int: "42" }] } }),
      await ok(node, "POST", "/sandbox/set_big_map_entry", { big_map: bigMap, key: { string: "b" }, value: { int: "2" } }),
      await ok(node, "POST", "/sandbox/set_big_map_entry", { big_map: bigMap, key: { string: "a" }, value: null }),
      await ok(node, "POST", "/sandbox/set_delegate", { address: kt1, delegate: BOOTSTRAP2 }),
      await ok(node, "POST", "/sandbox/set_counter", { address: BOOTSTRAP2, counter: String(counter2 + 100n) }),
    ];
    assert.equal(queued.map((r) => r.status), Array(queued.length).fill("pending"));
    assert.equal(queued[0], { id: 1, kind: "balance", target: FRESH, value: "123456789", status: "pending" });
    // nothing moved yet
    assert.is((await call(node, "GET", `${B}/context/contracts/${FRESH}/balance`)).json, "0");

    const block = (await ok(node, "POST", "/sandbox/bake"))[0];
    const level = (await ok(node, "GET", `${B}/header`)).level;
    assert.is(await ok(node, "GET", `${B}/context/contracts/${FRESH}/balance`), "123456789");
    assert.is(await ok(node, "GET", `${B}/context/contracts/${BOOTSTRAP1}/balance`), String(balance1 + 1_000_000_000n));
    assert.is(await ok(node, "GET", `${B}/context/contracts/${kt1}/balance`), "5000000");
    // bootstrap1 is its own delegate: its staking balance follows its balance (the kt1 delegates to bootstrap2)
    assert.is(BigInt(await ok(node, "GET", `${B}/context/delegates/${BOOTSTRAP1}/staking_balance`)), stakingBefore + 1_000_000_000n);
    assert.equal(await ok(node, "GET", `${B}/context/contracts/${kt1}/storage`), { prim: "Pair", args: [{ int: bigMap }, { int: "42" }] });
    assert.is(await ok(node, "GET", `${B}/context/contracts/${kt1}/delegate`), BOOTSTRAP2);
    assert.is(await ok(node, "GET", `${B}/context/contracts/${BOOTSTRAP2}/counter`), String(counter2 + 100n));
    assert.equal(await ok(node, "GET", `${B}/context/big_maps/${bigMap}/${await keyHash(node, "b")}`), { int: "2" });
    assert.is((await call(node, "GET", `${B}/context/big_maps/${bigMap}/${await keyHash(node, "a")}`)).status, 404);
    assert.equal(await ok(node, "POST", `${B}/context/contracts/${kt1}/big_map_get`, { key: { string: "b" }, type: { prim: "string" } }), { int: "2" });

    const listed = await ok(node, "GET", "/sandbox/changes");
    assert.is(listed.length, queued.length);
    for (const c of listed) {
      assert.is(c.status, "applied", JSON.stringify(c));
      assert.is(c.block, block);
      assert.is(c.level, level);
    }

    // the code: the next call runs the new script (the old one left the script cache)
    await ok(node, "POST", "/sandbox/set_code", { contract: kt1, code: CODE_PLUS_ONE });
    await ok(node, "POST", "/sandbox/bake");
    assert.equal((await ok(node, "GET", `${B}/context/contracts/${kt1}/script`)).code, CODE_PLUS_ONE);
    const [called] = await run(node, (counter) => [
      { kind: "transaction", source: BOOTSTRAP1, fee: 10_000n, counter, gas_limit: 10_000n, storage_limit: 1_000n, amount: 0n, destination: kt1 },
    ]);
    assert.is(called.status, "applied", JSON.stringify(called));
    assert.equal(await ok(node, "GET", `${B}/context/contracts/${kt1}/storage`), { prim: "Pair", args: [{ int: bigMap }, { int: "43" }] });
  } finally {
    await node.close();
  }
});

S("bad changes are refused with a clear error and queue nothing", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const { kt1, bigMap } = await originate(node);
    const counter1 = BigInt(await ok(node, "GET", `${B}/context/contracts/${BOOTSTRAP1}/counter`));
    const refusals: [string, unknown, RegExp][] = [
      ["/sandbox/set_balance", { address: "KT1PWx2mnDueood7fEmfbBDKx1D9BAnnXitn", balance: "1" }, /contract\.non_existing_contract/],
      ["/sandbox/set_balance", { address: FRESH, balance: "-1" }, /.+/],
      ["/sandbox/set_balance", { address: "tz1nope", balance: "1" }, /.+/],
      ["/sandbox/set_storage", { contract: BOOTSTRAP1, storage: { int: "1" } }, /sandbox\.not_a_smart_contract/],
      ["/sandbox/set_storage", { contract: kt1, storage: { string: "not a pair" } }, /michelson_v1\.ill_typed_data/],
      ["/sandbox/set_storage", { contract: kt1, storage: { prim: "Pair", args: [{ int: "999" }, { int: "1" }] } }, /michelson_v1\.invalid_big_map/],
      ["/sandbox/set_code", { contract: kt1, code: [CODE[0], { prim: "storage", args: [{ prim: "string" }] }, CODE[2]] }, /michelson_v1\./],
      ["/sandbox/set_delegate", { address: kt1, delegate: FRESH }, /contract\.manager\.unregistered_delegate/],
      ["/sandbox/set_counter", { address: BOOTSTRAP1, counter: String(counter1 - 1n) }, /sandbox\.counter_in_the_past/],
      ["/sandbox/set_counter", { address: kt1, counter: "5" }, /sandbox\.not_an_implicit_account/],
      ["/sandbox/set_counter", { address: FRESH, counter: "5" }, /implicit\.empty_implicit_contract/],
      ["/sandbox/set_big_map_entry", { big_map: "999", key: { string: "a" }, value: null }, /sandbox\.unknown_big_map/],
      ["/sandbox/set_big_map_entry", { big_map: bigMap, key: { int: "1" }, value: null }, /michelson_v1\.ill_typed_data/],
      ["/sandbox/set_big_map_entry", { big_map: bigMap, key: { string: "a" }, value: { string: "x" } }, /michelson_v1\.ill_typed_data/],
    ];
    const head = await ok(node, "GET", `${B}/hash`);
    for (const [path, body, id] of refusals) {
      const r = await call(node, "POST", path, body);
      assert.ok(r.status === 400 || r.status === 500, `${path} ${JSON.stringify(body)}: ${r.status}`);
      assert.match(JSON.stringify(r.json), id, `${path} ${JSON.stringify(body)}: ${JSON.stringify(r.json)}`);
    }
    assert.equal(await ok(node, "GET", "/sandbox/changes"), []);
    assert.is(await ok(node, "GET", `${B}/hash`), head, "nothing baked");
    await ok(node, "POST", "/sandbox/bake");
    assert.equal(await ok(node, "GET", `${B}/context/contracts/${kt1}/storage`), { prim: "Pair", args: [{ int: bigMap }, { int: "7" }] });
  } finally {
    await node.close();
  }
});

S("auto mode: a change bakes its block at once and answers once applied", async () => {
  const node = await createNode();
  try {
    const head = (await ok(node, "GET", `${B}/header`)).level;
    const r = await ok(node, "POST", "/sandbox/set_balance", { address: FRESH, balance: "1000000" });
    assert.is(r.status, "applied");
    assert.is(r.level, head + 1);
    assert.is(await ok(node, "GET", `${B}/hash`), r.block);
    assert.is(await ok(node, "GET", `${B}/context/contracts/${FRESH}/balance`), "1000000");
  } finally {
    await node.close();
  }
});

S("refused while peers are connected (and on a chain that is not a sandbox)", async () => {
  const { sandboxGuard } = await import("../../lib/sandbox/guard.ts");
  const { sandboxStateServices } = await import("../../lib/rpc/services/sandbox-state.ts");
  const { nodeRpcHandler } = await import("../../lib/rpc/services/mod.ts");
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    let queued = 0;
    const changes = { queue: async () => (queued++, { id: 1 }), list: () => [], settled: async () => ({}) } as unknown as SandboxChanges;
    for (const [sandbox, peers, id] of [[true, 2, "sandbox.peers_connected"], [false, 0, "sandbox.not_a_sandbox"]] as const) {
      const handler = nodeRpcHandler(sandboxStateServices({ guard: sandboxGuard({ sandbox, peers: () => peers }), changes, bakeInAutoMode: () => Promise.resolve(false) }), {});
      const res = await handler(new Request("http://localhost/sandbox/set_balance", { method: "POST", body: JSON.stringify({ address: FRESH, balance: "1" }), headers: { "content-type": "application/json" } }));
      assert.is(res.status, 500);
      assert.match(await res.text(), id);
    }
    assert.is(queued, 0);
    assert.equal(await ok(node, "GET", "/sandbox/changes"), []);
  } finally {
    await node.close();
  }
});

/** The chain of `kv` with a bare validator, writing the stored changes when `withChanges`. */
async function bareValidator(kv: KeyValueStore, withChanges: boolean) {
  const prepare = (ctx: Context) => applyWrites(ctx, genesisContextWrites(SANDBOX_GENESIS.protocol, { genesis_pubkey: SANDBOX_GENESIS.genesisPubkey }));
  const chain = await Chain.open(kv, chainIdOf(SANDBOX_GENESIS), genesisBlock(kv, SANDBOX_GENESIS, prepare), undefined);
  const protocols = new Map([genesisProtocol, hangzhouProtocol].map((p) => [p.hash, p]));
  const changes = withChanges ? await SandboxChanges.open({ chain, writers: (p) => (p === HANGZHOU ? writeSandboxChanges : undefined) }) : undefined;
  const prepareContext: PrepareContext | undefined = changes?.prepareContext;
  const validator = new BlockValidator(chain, (h) => protocols.get(h), prepareContext === undefined ? {} : { prepareContext });
  return { chain, validator, close: async () => (await changes?.close(), await chain.close()) };
}

S("on LMDB: listing and values kept across a restart; the block applies again through the full path with the recorded changes, not without", async () => {
  const dir = await mkdtemp(join(tmpdir(), "tezos-state-"));
  try {
    let node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" } });
    await ok(node, "POST", "/sandbox/set_balance", { address: FRESH, balance: "777" });
    const block = (await ok(node, "POST", "/sandbox/bake"))[0];
    await ok(node, "POST", "/sandbox/set_balance", { address: FRESH, balance: "888" }); // still pending at the restart
    const listed = await ok(node, "GET", "/sandbox/changes");
    assert.equal(listed.map((c: Any) => c.status), ["applied", "pending"]);
    await node.close();

    node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" } });
    try {
      assert.equal(await ok(node, "GET", "/sandbox/changes"), listed);
      assert.is(await ok(node, "GET", `${B}/context/contracts/${FRESH}/balance`), "777");
      const next = (await ok(node, "POST", "/sandbox/bake"))[0];
      assert.is(await ok(node, "GET", `${B}/context/contracts/${FRESH}/balance`), "888");
      const after = await ok(node, "GET", "/sandbox/changes");
      assert.equal(after[1].status, "applied");
      assert.is(after[1].block, next);
    } finally {
      await node.close();
    }

    const kv = await openLmdbStore(dir);
    try {
      const full = await bareValidator(kv, true);
      const stored = full.chain.block(block)!;
      const operations = full.chain.store.operations(block)!;
      const applied = await full.validator.apply(stored.bytes, operations);
      assert.is(applied.hash, block);
      await full.close();

      const strict = await bareValidator(kv, false);
      try {
        await strict.validator.apply(stored.bytes, operations);
        assert.unreachable("without the recorded change, the context hash differs");
      } catch (e) {
        if (!(e instanceof TezosError)) throw e;
        assert.match(JSON.stringify(e.toJson()), /inconsistent_hash|context/);
      }
      await strict.close();
    } finally {
      await kv.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

S.run();
