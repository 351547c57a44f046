/**
 * Hangzhou's script cache: the generic protocol cache (Octez `Environment_cache`: births, eviction
 * of the least recently used entry beyond the limit, nonces given at finalisation, the domain kept
 * in the context) and the script cache on a sandbox chain running the liquidity baking contracts
 * (the CPMM is cached by the first block's subsidy, TOK by its first call), including a reload from
 * the context as after a restart.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { MemoryStore } from "../../lib/store/memory.ts";
import { emptyContext } from "../../lib/store/context/mod.ts";
import {
  cacheFromLayout,
  cacheKeyRank,
  cacheKeys,
  cacheLookup,
  cacheSize,
  cacheUpdate,
  decodeDomain,
  encodeDomain,
  getCacheLayout,
  loadCache,
  setCacheLayout,
  syncCache,
} from "../../lib/protocols/hangzhou/storage/cache.ts";
import {
  cacheUpdateCost,
  findScript,
  scriptCacheEntries,
  scriptCacheRank,
  scriptCacheSize,
  scriptCacheSizeLimit,
} from "../../lib/protocols/hangzhou/michelson/script-cache.ts";
import { makeScriptContext } from "../../lib/protocols/hangzhou/michelson/script-context.ts";
import { ScenarioClient } from "./scenario-client.ts";

const DEX = "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5";
const TOK = "KT1VqarPDicMFn1ejmQqqshUkUXTCTXwmkCN";
const LQT = "KT1AafHA1C1vk959wvHWBispY9Y2f3fxBUUo";
const B1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const NONCE_A = new Uint8Array(32).fill(0xaa);
const NONCE_B = new Uint8Array(32).fill(0xbb);

const E = suite("protocol cache (Environment_cache)");

E("entries are born in order, listed oldest first, and ranked by age", () => {
  let s = cacheFromLayout<string>([1000]);
  s = cacheUpdate(s, 0, "b", { value: "B", size: 10 });
  s = cacheUpdate(s, 0, "a", { value: "A", size: 20 });
  s = cacheUpdate(s, 0, "c", { value: "C", size: 0 });
  assert.equal(cacheKeys(s, 0), [["b", 10], ["a", 20], ["c", 1]], "sizes are at least 1");
  assert.is(cacheSize(s, 0), 31);
  assert.is(cacheKeyRank(s, 0, "b"), 0);
  assert.is(cacheKeyRank(s, 0, "c"), 2);
  assert.is(cacheKeyRank(s, 0, "z"), undefined);
  // updating an entry makes it the youngest
  s = cacheUpdate(s, 0, "b", { value: "B2", size: 5 });
  assert.equal(cacheKeys(s, 0), [["a", 20], ["c", 1], ["b", 5]]);
  assert.is(cacheLookup(s, 0, "b")?.cell.value, "B2");
});

E("an update beyond the limit evicts the least recently used entries", () => {
  let s = cacheFromLayout<string>([30]);
  s = cacheUpdate(s, 0, "a", { value: "A", size: 10 });
  s = cacheUpdate(s, 0, "b", { value: "B", size: 10 });
  s = cacheUpdate(s, 0, "c", { value: "C", size: 10 });
  s = cacheUpdate(s, 0, "a", { value: "A", size: 10 }); // a is young again, b is now the dean
  s = cacheUpdate(s, 0, "d", { value: "D", size: 15 });
  assert.equal(cacheKeys(s, 0).map(([k]) => k), ["a", "d"]);
  assert.is(cacheSize(s, 0), 25);
});

E("finalisation gives the block's nonce to new entries only and writes a domain that reloads the same cache", () => {
  const ctx0 = setCacheLayout(emptyContext(new MemoryStore()), [500]);
  assert.equal(getCacheLayout(ctx0), [500]);
  let s = cacheUpdate(cacheFromLayout<string>([500]), 0, "x", { value: "X", size: 7 });
  const first = syncCache(s, ctx0, NONCE_A);
  s = cacheUpdate(first.state, 0, "y", { value: "Y", size: 9 });
  const second = syncCache(s, first.context, NONCE_B);
  assert.equal([...cacheLookup(second.state, 0, "x")!.nonce!], [...NONCE_A]);
  assert.equal([...cacheLookup(second.state, 0, "y")!.nonce!], [...NONCE_B]);
  const domain = decodeDomain(second.context.get(["domain"])!);
  assert.equal(encodeDomain(second.state), second.context.get(["domain"])!);
  assert.equal([...domain[0]!.keys.keys()], ["x", "y"]);
  assert.is(domain[0]!.counter, 2n);
  // a node that reloads: same keys, sizes and births, values missing (rebuilt when needed)
  const reloaded = loadCache<string>(second.context);
  assert.equal(cacheKeys(reloaded, 0), cacheKeys(second.state, 0));
  assert.is(cacheLookup(reloaded, 0, "x")!.cell.value, undefined);
  // a node that inherits the caches of a block: the values whose nonce matches are kept
  const inherited = loadCache<string>(second.context, first.state);
  assert.is(cacheLookup(inherited, 0, "x")!.cell.value, "X");
  assert.is(cacheLookup(inherited, 0, "y")!.cell.value, undefined);
  // the counter goes on from the domain's
  const next = cacheUpdate(reloaded, 0, "z", { value: "Z", size: 1 });
  assert.is(cacheLookup(next, 0, "z")!.birth, 3n);
});

E("the cache update costs 600 + 57 × (1 + numbits(size / 688)) milligas (Cache_costs)", () => {
  assert.is(cacheUpdateCost(0), 657n);
  assert.is(cacheUpdateCost(687), 657n);
  assert.is(cacheUpdateCost(688), 714n);
  assert.is(cacheUpdateCost(100_000_000), 600n + 57n * 19n);
});

E.run();

const S = suite("script cache on the sandbox chain");

S("the CPMM is cached by the subsidy, TOK by its first call, and the size limit is the cache_layout", async () => {
  const c = await ScenarioClient.create(1);
  let pc = c.pc();
  assert.equal(scriptCacheEntries(pc).map(([k]) => k), [DEX]);
  assert.is(scriptCacheSizeLimit(pc), 100_000_000);
  assert.is(scriptCacheRank(pc, DEX), 0);
  assert.is(scriptCacheRank(pc, TOK), undefined);
  await c.transfer({ from: B1, to: TOK, amountTez: "0", entrypoint: "mintOrBurn", arg: `(Pair 100000000 "${B1}")`, burnCap: "10" });
  await c.bake("bootstrap5");
  pc = c.pc();
  // the block ran the subsidy's CPMM call first (begin_application), then the call to TOK
  assert.equal(scriptCacheEntries(pc).map(([k]) => k), [DEX, TOK]);
  assert.is(scriptCacheRank(pc, TOK), 1);
  assert.is(scriptCacheRank(pc, LQT), undefined);
  assert.is(scriptCacheSize(pc), scriptCacheEntries(pc).reduce((a, [, s]) => a + s, 0));
});

S("after a reload from the context a cached script is rebuilt without gas", async () => {
  const c = await ScenarioClient.create(1);
  const pc = c.pc().clone();
  pc.cache = loadCache(pc.context);
  assert.equal(scriptCacheEntries(pc), scriptCacheEntries(c.pc()));
  pc.setGasLimit(10_000n);
  const before = pc.remainingOperationGas;
  const ctx = makeScriptContext(pc, { self: DEX, sender: DEX, source: DEX, amount: 0n, now: 0n, level: 2n, chainId: "NetXdQprcVkpaWU", legacy: true });
  const cached = findScript(pc, ctx, DEX);
  assert.ok(cached !== undefined);
  assert.is(pc.remainingOperationGas, before, "a hit costs no gas");
  assert.is(cached!.script.storageTy.prim, "pair");
  // a miss pays: an implicit account's lookup reads two missing keys
  findScript(pc, ctx, B1);
  assert.is(before - pc.remainingOperationGas, 420_000n);
});

S("a cached contract emitting SET_DELEGATE takes its internal nonces from each run's context", async () => {
  const c = await ScenarioClient.create(1);
  const { code } = c.readScript({ script: "parameter (option key_hash); storage unit; code { CAR; SET_DELEGATE; NIL operation; SWAP; CONS; UNIT; SWAP; PAIR }" });
  await c.originate("setter", code, "Unit", "0", "bootstrap1", "1");
  await c.bake("bootstrap5");
  const B2 = "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN";
  for (const delegate of [B1, B2]) {
    await c.transfer({ from: "bootstrap1", to: "setter", amountTez: "0", arg: `Some "${delegate}"`, burnCap: "1" });
    await c.bake("bootstrap5");
    assert.is(c.delegate("setter"), delegate);
  }
  assert.ok(scriptCacheRank(c.pc(), c.address("setter")) !== undefined, "the second call ran the cached script");
});

S.run();
