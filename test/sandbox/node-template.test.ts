/**
 * A chain per test (issue 16): a memory-store node made with the parameters of an earlier one
 * starts from that node's chain (lib/sandbox/template.ts) instead of activating and baking it
 * again. Whether a node started from a template is seen in its log: a fresh sandbox's baker logs
 * `block_baked` for levels 2 and 3, a node started from a template bakes neither.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type NodeOptions, type TezosNode } from "../../lib/node.ts";
import type { LogRecord } from "../../lib/log.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { bootstrapSecretKeys } from "../../lib/baker/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { sandboxParameters } from "../../lib/protocols/hangzhou/sandbox-parameters.ts";
import { clearChainTemplates } from "../../lib/sandbox/template.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";

const test = suite("chain templates");

const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
/** An address no baker touches: its balance moves only by the transfers of the tests. */
const BURN = "tz1burnburnburnburnburnburnburjAYjjX";
const ACCOUNTS = [BOOTSTRAP1, "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN", "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU", "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv", "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv"];

interface Started {
  node: TezosNode;
  /** The levels its own baker baked (`block_baked`). */
  baked: number[];
}

/** A node with a log sink recording the levels its baker bakes. */
async function start(options: NodeOptions = {}): Promise<Started> {
  const baked: number[] = [];
  const log = { level: "info" as const, write: (r: LogRecord) => void (r.event === "block_baked" && baked.push(r.fields["block_level"] as number)) };
  return { node: await createNode({ ...options, log }), baked };
}

async function get(node: TezosNode, path: string): Promise<any> {
  const res = await node.fetch(new Request(`http://localhost${path}`));
  const body = await res.json();
  assert.is(res.status, 200, `${path}: ${JSON.stringify(body)}`);
  return body;
}

async function post(node: TezosNode, path: string, body?: unknown): Promise<any> {
  const init: RequestInit = { method: "POST" };
  if (body !== undefined) Object.assign(init, { headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const answer = await res.json();
  assert.is(res.status, 200, `${path}: ${JSON.stringify(answer)}`);
  return answer;
}

/** What a client sees of the chain: the head's header, the first blocks' hashes, the bootstrap balances. */
async function chainView(node: TezosNode) {
  const header = await get(node, "/chains/main/blocks/head/header");
  const hashes = [];
  for (let level = 0; level <= header.level; level++) hashes.push(await get(node, `/chains/main/blocks/${level}/hash`));
  const balances = [];
  for (const a of ACCOUNTS) balances.push(await get(node, `/chains/main/blocks/head/context/contracts/${a}/balance`));
  return { header, hashes, balances };
}

/** Injects a transfer of `amount` mutez from bootstrap1 to {@link BURN}; its hash. */
async function transfer(node: TezosNode, amount: string): Promise<string> {
  const head = "/chains/main/blocks/head";
  const counter = BigInt(await get(node, `${head}/context/contracts/${BOOTSTRAP1}/counter`)) + 1n;
  const forged: string = await post(node, `${head}/helpers/forge/operations`, {
    branch: await get(node, `${head}/hash`),
    contents: [{ kind: "transaction", source: BOOTSTRAP1, fee: "1000", counter: String(counter), gas_limit: "1520", storage_limit: "257", amount, destination: BURN }],
  });
  const signature = await sign(bootstrapSecretKeys()[0]!, fromHex(forged), genericWatermark());
  return post(node, "/injection/operation", forged + toHex(signature));
}

/** Waits (bounded by the test runner) until the node's head is at `level`. */
async function untilLevel(node: TezosNode, level: number): Promise<void> {
  while ((await get(node, "/chains/main/blocks/head/header/shell")).level < level) await new Promise((r) => setTimeout(r, 20));
}

/** The hashes of the head block's manager operations (its endorsements left out). */
async function headOperations(node: TezosNode): Promise<string[]> {
  return get(node, "/chains/main/blocks/head/operation_hashes/3");
}

test.before.each(() => clearChainTemplates());

test("a node with the parameters of an earlier one serves that node's chain without baking it again", async () => {
  const first = await start({ store: new MemoryStore() });
  assert.equal(first.baked, [2, 3]);
  const second = await start({ store: new MemoryStore() });
  const third = await start(); // no store given: a memory store, the same parameters
  assert.equal([second.baked, third.baked], [[], []]);
  const view = await chainView(first.node);
  assert.is(view.header.level, 3);
  assert.equal(await chainView(second.node), view);
  assert.equal(await chainView(third.node), view);
  assert.equal(await get(second.node, "/chains/main/blocks/head/metadata"), await get(first.node, "/chains/main/blocks/head/metadata"));
  for (const s of [first, second, third]) await s.node.close();
});

test("a node started from a template bakes on with its own clock: an injected transfer lands in a block of its own", async () => {
  const first = await start();
  const clone = await start();
  assert.equal(clone.baked, []);
  const before = Math.floor(Date.now() / 1000);
  const op = await transfer(clone.node, "1000000");
  await untilLevel(clone.node, 4);
  assert.equal(clone.baked, [4]);
  assert.equal(await headOperations(clone.node), [op]);
  const header = await get(clone.node, "/chains/main/blocks/head/header");
  assert.ok(Date.parse(header.timestamp) / 1000 >= before, `${header.timestamp} is not timed by the clone's clock (from ${before})`);
  // the first node did not move
  assert.is((await get(first.node, "/chains/main/blocks/head/header")).level, 3);
  await first.node.close();
  await clone.node.close();
});

test("two nodes from one template diverge independently, and closing one leaves the other and the template whole", async () => {
  const first = await start({ bake: { mode: "manual" } });
  const a = await start({ bake: { mode: "manual" } });
  const b = await start({ bake: { mode: "manual" } });
  assert.equal([a.baked, b.baked], [[], []]);
  const balance = `/chains/main/blocks/head/context/contracts/${BURN}/balance`;
  const initial = await get(a.node, balance);
  const op = await transfer(a.node, "2500000");
  const [hashA] = await post(a.node, "/sandbox/bake?count=1");
  assert.equal(await headOperations(a.node), [op]);
  assert.is(await get(a.node, balance), String(BigInt(initial) + 2_500_000n));
  // b: still at level 3, the transfer neither in its chain nor in its mempool
  assert.is((await get(b.node, "/chains/main/blocks/head/header")).level, 3);
  assert.is(await get(b.node, balance), initial);
  assert.equal((await get(b.node, "/chains/main/mempool/pending_operations")).applied, []);
  const [hashB] = await post(b.node, "/sandbox/bake?count=1");
  assert.is.not(hashB, hashA);
  assert.equal(await headOperations(b.node), []);
  assert.is(await get(b.node, balance), initial);

  await a.node.close();
  // b goes on after a closed: it reads its whole chain and bakes
  assert.is(await get(b.node, "/chains/main/blocks/3/hash"), await get(first.node, "/chains/main/blocks/3/hash"));
  const op2 = await transfer(b.node, "7");
  await post(b.node, "/sandbox/bake?count=1");
  assert.equal(await headOperations(b.node), [op2]);
  assert.is(await get(b.node, balance), String(BigInt(initial) + 7n));
  await b.node.close();
  // the first node and the template are untouched by both
  assert.is((await get(first.node, "/chains/main/blocks/head/header")).level, 3);
  assert.is(await get(first.node, balance), initial);
  const c = await start({ bake: { mode: "manual" } });
  assert.equal(c.baked, []);
  assert.equal(await chainView(c.node), await chainView(first.node));
  await first.node.close();
  await c.node.close();
});

test("other parameters, other baker keys or another bake mode make a chain of their own, kept as its own template", async () => {
  const defaults = await start();
  const head = await get(defaults.node, "/chains/main/blocks/head/hash");
  const parameters = { ...sandboxParameters(), hard_gas_limit_per_operation: "1040001" };
  // Other parameters or keys make other blocks; another bake mode may make the same blocks (timed
  // in the same second), but it is another template all the same: its first node bakes its own.
  const cases: [NodeOptions, boolean][] = [
    [{ protocolParameters: parameters }, true],
    [{ bakerKeys: ["bootstrap2", "bootstrap1"], bake: { mode: "manual" } }, true],
    [{ bake: { mode: "interval", seconds: 3600 } }, false],
  ];
  for (const [options, otherBlocks] of cases) {
    const one = await start(options);
    assert.equal(one.baked, [2, 3], JSON.stringify(options));
    const other = await get(one.node, "/chains/main/blocks/head/hash");
    if (otherBlocks) assert.is.not(other, head);
    const two = await start(options);
    assert.equal(two.baked, [], JSON.stringify(options));
    assert.is(await get(two.node, "/chains/main/blocks/head/hash"), other);
    if (options.protocolParameters !== undefined) {
      const constants = await get(two.node, "/chains/main/blocks/head/context/constants");
      assert.is(constants.hard_gas_limit_per_operation, "1040001");
    }
    await one.node.close();
    await two.node.close();
  }
  await defaults.node.close();
});

test("a node with its own clock (now) activates and bakes its chain itself, timed exactly by that clock", async () => {
  await (await start()).node.close(); // the defaults' template exists
  const t = Date.UTC(2030, 0, 1);
  for (let i = 0; i < 2; i++) {
    const fake = await start({ now: () => t });
    assert.equal(fake.baked, [2, 3]);
    assert.is((await get(fake.node, "/chains/main/blocks/1/header")).timestamp, "2030-01-01T00:00:00Z");
    await fake.node.close();
  }
});

test("a memory store with entries, an LMDB store and activate: false get no template", async () => {
  await (await start()).node.close(); // the defaults' template exists
  const store = new MemoryStore();
  const mark = new Uint8Array([0xfe, 1, 2]);
  await store.write([{ key: mark, value: new Uint8Array([7]) }]);
  const written = await start({ store });
  assert.equal(written.baked, [2, 3]);
  assert.equal(store.get(mark), new Uint8Array([7]));
  await written.node.close();

  const dir = mkdtempSync(join(tmpdir(), "node-template-"));
  try {
    const lmdb = await start({ store: await openLmdbStore(dir) });
    assert.equal(lmdb.baked, [2, 3]);
    await lmdb.node.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const inactive = await start({ activate: false });
  assert.equal(inactive.baked, []);
  assert.is((await get(inactive.node, "/chains/main/blocks/head/header/shell")).level, 0);
  await inactive.node.close();
});

test.run();
