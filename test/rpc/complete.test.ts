/**
 * `GET {B}/helpers/complete/<prefix>` on the Hangzhou fixture chain: blocks, operations,
 * protocols and contracts, with Octez's prefix rule (the encoded prefix of a kind, then the
 * Base58Check text).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { B58, b58decode } from "../../lib/encoding/base58.ts";
import { partialPayload } from "../../lib/rpc/services/complete.ts";
import { call, GENESIS_PROTOCOL, HANGZHOU, hangzhouFixture, type HangzhouFixture } from "./hangzhou-fixture.ts";

const GENESIS_BLOCK = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";
/** The liquidity-baking contracts of a Hangzhou sandbox (HANGZHOU-FACTS.md): CPMM, LQT, sandbox token. */
const LB_CONTRACTS = ["KT1AafHA1C1vk959wvHWBispY9Y2f3fxBUUo", "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5", "KT1VqarPDicMFn1ejmQqqshUkUXTCTXwmkCN"];

const test = suite<{ node: HangzhouFixture }>("helpers/complete");
test.before(async (ctx) => {
  ctx.node = await hangzhouFixture();
});

const complete = (node: HangzhouFixture, prefix: string, block = "head") => call(node, `/chains/main/blocks/${block}/helpers/complete/${prefix}`);

test("a block hash prefix completes to the known block", async ({ node }) => {
  const r = await complete(node, node.level2.slice(0, 8));
  assert.is(r.status, 200);
  assert.equal(r.json, [node.level2]);
  assert.equal((await complete(node, node.level1)).json, [node.level1]);
  assert.equal((await complete(node, "BLockGenesis")).json, [GENESIS_BLOCK]);
});

test("'B' alone lists every known block, sorted", async ({ node }) => {
  const r = await complete(node, "B");
  assert.equal(r.json, [GENESIS_BLOCK, node.level1, node.level2].sort());
});

test("an operation hash prefix completes to operations of the block and its predecessors", async ({ node }) => {
  assert.equal((await complete(node, node.transaction.slice(0, 10))).json, [node.transaction]);
  assert.equal((await complete(node, "o")).json, [node.transaction]);
  // The transaction is in the level-2 block: not known at level 1.
  assert.equal((await complete(node, node.transaction.slice(0, 10), node.level1)).json, []);
});

test("protocol hash prefixes complete to the embedded protocols", async ({ node }) => {
  assert.equal((await complete(node, "PtHangz")).json, [HANGZHOU]);
  assert.equal((await complete(node, "ProtoGenesis")).json, [GENESIS_PROTOCOL]);
  assert.equal((await complete(node, "P")).json, [GENESIS_PROTOCOL, HANGZHOU]);
});

test("contract prefixes complete to the accounts and contracts of the block's context", async ({ node }) => {
  assert.equal((await complete(node, "tz1KqTpEZ")).json, ["tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx"]);
  assert.equal((await complete(node, "KT1")).json, LB_CONTRACTS);
  const tz1 = (await complete(node, "tz1")).json as string[];
  assert.is(tz1.length, 5);
  assert.ok(tz1.includes("tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN"));
});

test("prefixes that fit no kind, letters outside the alphabet and over-long prefixes complete to nothing", async ({ node }) => {
  for (const prefix of ["x", "t", "tz4", "B0OIl", "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2z", "opNotAnOperationHashAtAll"]) {
    const r = await complete(node, encodeURIComponent(prefix));
    assert.is(r.status, 200, prefix);
    assert.equal(r.json, [], prefix);
  }
});

test("the early layout's /complete/<prefix> and /blocks/<id>/complete/<prefix> answer the same", async ({ node }) => {
  assert.equal((await call(node, `/complete/${node.level2.slice(0, 8)}`)).json, [node.level2]);
  assert.equal((await call(node, `/blocks/head/complete/PtHangz`)).json, [HANGZHOU]);
});

test("partialPayload() keeps the bytes a prefix fixes, as Octez's partial decode", () => {
  // A full hash fixes its 32 bytes; one letter fixes none past the version bytes.
  assert.is(partialPayload(B58.blockHash, GENESIS_BLOCK)!.length, 32);
  assert.is(partialPayload(B58.blockHash, "B")!.length, 0);
  // "BLockGenesisGenesis" fixes leading bytes of the genesis hash's payload, and only those.
  const p = partialPayload(B58.blockHash, "BLockGenesisGenesis")!;
  assert.ok(p.length >= 8 && p.length < 32, String(p.length));
  assert.equal(p, b58decode(B58.blockHash, GENESIS_BLOCK).slice(0, p.length));
  assert.is(partialPayload(B58.blockHash, "o"), undefined);
  assert.is(partialPayload(B58.blockHash, "B0"), undefined);
  assert.is(partialPayload(B58.contractHash, "KT1")!.length, 0);
});

test.run();
