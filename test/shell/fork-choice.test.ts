import { test } from "uvu";
import * as assert from "uvu/assert";
import { hangzhouChain } from "../hangzhou/chain-fixture.ts";

test("a block of equal fitness is stored but the current head stays", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const base = h.chain.head;
  const first = await h.bake();
  const rival = await h.build({ on: base, priority: 1 });
  const rivalHash = await h.validator.inject(rival.bytes, rival.operations);
  assert.is.not(rivalHash, first);
  assert.is(h.chain.head.hash, first);
  assert.ok(h.chain.block(rivalHash), "the rival block is stored");
  assert.is(h.chain.blockAtLevel(3)?.hash, first);
});

test("a longer branch takes over: the head moves and the level index follows the new branch", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const base = h.chain.head;
  const a3 = await h.bake();
  const a4 = await h.bake();
  const b3 = await h.validator.inject(...spread(await h.build({ on: base, priority: 1 })));
  const b4 = await h.validator.inject(...spread(await h.build({ on: h.chain.block(b3)! })));
  assert.is(h.chain.head.hash, a4, "equal fitness keeps the first");
  const b5 = await h.validator.inject(...spread(await h.build({ on: h.chain.block(b4)! })));
  assert.is(h.chain.head.hash, b5);
  assert.equal([3, 4, 5].map((l) => h.chain.blockAtLevel(l)?.hash), [b3, b4, b5]);
  assert.ok(h.chain.block(a3) && h.chain.block(a4), "the old branch stays stored");
  assert.is(h.chain.resolve({ kind: "head", offset: 2 })?.hash, b3);
});

test("a shorter branch never becomes head, and heads are announced only when the head moves", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const base = h.chain.head;
  const heads = h.chain.heads.subscribe();
  const a3 = await h.bake();
  await h.bake();
  await h.validator.inject(...spread(await h.build({ on: base, priority: 1 })));
  assert.is((await heads.next()).value?.hash, a3);
  assert.is((await heads.next()).value?.header.level, 4);
  const pending = heads.next();
  const a5 = await h.bake();
  assert.is((await pending).value?.hash, a5);
  await heads.return!();
});

test("the checkpoint follows the head's last allowed fork level, the first level of cycle current − preserved_cycles", async () => {
  const h = await hangzhouChain();
  for (let i = 0; i < 24; i++) await h.bake(); // to level 25: cycle 3 (levels 25..32)
  assert.is(h.chain.head.header.level, 25);
  const cp = h.chain.locator("checkpoint");
  assert.is(cp.level, 9, "first level of cycle 1 = 3 - 2");
  assert.is(cp.hash, h.chain.blockAtLevel(9)?.hash);
});

test("every branch tip is a known head, the head first then by decreasing fitness; a tip that gets a successor is no longer one", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const base = h.chain.head;
  const a3 = await h.bake();
  const a4 = await h.bake();
  const b3 = await h.validator.inject(...spread(await h.build({ on: base, priority: 1 })));
  assert.equal(h.chain.knownHeads().map((b) => b.hash), [a4, b3]);
  const b4 = await h.validator.inject(...spread(await h.build({ on: h.chain.block(b3)! })));
  assert.equal(h.chain.knownHeads().map((b) => b.hash), [a4, b4], "b3 has a successor now; equal fitness keeps a4 as head");
  assert.ok(!h.chain.knownHeads().some((b) => b.hash === a3));
});

function spread(b: { bytes: Uint8Array; operations: Uint8Array[][] }): [Uint8Array, Uint8Array[][]] {
  return [b.bytes, b.operations];
}

test.run();
