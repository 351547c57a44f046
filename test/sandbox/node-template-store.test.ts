/**
 * `MemoryStore.clone` and `copyFrom`: copy-on-write copies that never see each other's writes,
 * whichever side writes, over maps of many chunks (the sorted map splits at 1024 entries).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { MemoryStore } from "../../lib/store/memory.ts";
import { u32 } from "../../lib/store/tables.ts";

const test = suite("MemoryStore clone");

const n = (k: Uint8Array) => new DataView(k.buffer, k.byteOffset).getUint32(0);
const keys = (s: MemoryStore) => Array.from(s.range({}), ([k]) => n(k));
const value = (s: MemoryStore, k: number) => {
  const v = s.get(u32(k));
  return v === undefined ? undefined : n(v);
};

async function filled(count: number): Promise<MemoryStore> {
  const s = new MemoryStore();
  await s.write(Array.from({ length: count }, (_, i) => ({ key: u32(i * 2), value: u32(i) })));
  return s;
}

test("a clone holds the same entries, in order", async () => {
  const a = await filled(5000);
  const b = a.clone();
  assert.is(b.size, 5000);
  assert.equal(keys(b), keys(a));
  assert.is(value(b, 4998), 2499);
  await a.close();
  await b.close();
});

test("writes to the clone (puts, overwrites, deletes, chunk splits) leave the original as it was", async () => {
  const a = await filled(5000);
  const before = keys(a);
  const b = a.clone();
  // inserts into one chunk until it splits, an overwrite, deletes emptying a whole range
  await b.write(Array.from({ length: 2000 }, (_, i) => ({ key: u32(2 * 1000 + 1 + 2 * i), value: u32(7) })));
  await b.write([{ key: u32(0), value: u32(99) }, ...Array.from({ length: 1500 }, (_, i) => ({ key: u32(6000 + 2 * i) }))]);
  assert.is(b.size, 5000 + 2000 - 1500);
  assert.is(value(b, 0), 99);
  assert.is(value(b, 6000), undefined);
  assert.is(a.size, 5000);
  assert.equal(keys(a), before);
  assert.is(value(a, 0), 0);
  assert.is(value(a, 6000), 3000);
  assert.is(value(a, 2001), undefined);
  await a.close();
  await b.close();
});

test("writes to the original after a clone are not seen by the clone, nor by a clone of the clone", async () => {
  const a = await filled(3000);
  const b = a.clone();
  const c = b.clone();
  await a.write([{ key: u32(10), value: u32(1234) }, { key: u32(12) }, { key: u32(11), value: u32(5) }]);
  await c.write([{ key: u32(20) }]);
  assert.equal([value(a, 10), value(a, 12), value(a, 11), value(a, 20)], [1234, undefined, 5, 10]);
  assert.equal([value(b, 10), value(b, 12), value(b, 11), value(b, 20)], [5, 6, undefined, 10]);
  assert.equal([value(c, 10), value(c, 12), value(c, 11), value(c, 20)], [5, 6, undefined, undefined]);
  assert.equal([a.size, b.size, c.size], [3000, 3000, 2999]);
  for (const s of [a, b, c]) await s.close();
});

test("closing a clone leaves the original open and whole, and the other way round", async () => {
  const a = await filled(2000);
  const b = a.clone();
  await b.close();
  assert.throws(() => b.get(u32(0)));
  assert.is(a.size, 2000);
  assert.is(value(a, 3998), 1999);
  const c = a.clone();
  await a.close();
  assert.is(c.size, 2000);
  assert.is(value(c, 3998), 1999);
  await c.close();
});

test("a range scan over a clone survives writes to it between steps", async () => {
  const a = await filled(2100);
  const b = a.clone();
  const seen: number[] = [];
  for (const [k] of b.range({ gte: u32(2040), lt: u32(2060) })) {
    seen.push(n(k));
    if (n(k) === 2046) await b.write([{ key: u32(2048) }, { key: u32(2049), value: u32(1) }]);
  }
  assert.equal(seen, [2040, 2042, 2044, 2046, 2049, 2050, 2052, 2054, 2056, 2058]);
  assert.equal(Array.from(a.range({ gte: u32(2046), lt: u32(2051) }), ([k]) => n(k)), [2046, 2048, 2050]);
  await a.close();
  await b.close();
});

test("copyFrom fills an empty store and refuses one with entries; a closed store neither clones nor copies", async () => {
  const a = await filled(10);
  const b = new MemoryStore();
  b.copyFrom(a);
  assert.equal(keys(b), keys(a));
  await b.write([{ key: u32(0) }]);
  assert.is(value(a, 0), 0);
  assert.throws(() => b.copyFrom(a), (e: unknown) => e instanceof RangeError && /must be empty/.test(e.message));
  const closed = await filled(1);
  await closed.close();
  assert.throws(() => closed.clone(), /closed/i);
  assert.throws(() => new MemoryStore().copyFrom(closed), /closed/i);
  await a.close();
  await b.close();
});

test.run();
