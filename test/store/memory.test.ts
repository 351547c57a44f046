import { suite } from "uvu";
import * as assert from "uvu/assert";
import { MemoryStore } from "../../lib/store/memory.ts";
import { u32 } from "../../lib/store/tables.ts";
import { runStoreConformance } from "./conformance.ts";

runStoreConformance("MemoryStore", { open: async () => new MemoryStore() });

const test = suite("MemoryStore");

test("range() over 5000 keys crosses chunk boundaries in both directions", async () => {
  const s = new MemoryStore();
  const ops = [];
  for (let i = 0; i < 5000; i++) ops.push({ key: u32((i * 2654435761) % 5000), value: u32(i) });
  await s.write(ops);
  assert.is(s.size, 5000);
  const fwd = Array.from(s.range({ gte: u32(1000), lt: u32(4000) }), ([k]) => new DataView(k.buffer).getUint32(0));
  assert.equal(fwd, Array.from({ length: 3000 }, (_, i) => 1000 + i));
  const rev = Array.from(s.range({ gte: u32(1000), lt: u32(4000), reverse: true, limit: 2500 }), ([k]) => new DataView(k.buffer).getUint32(0));
  assert.equal(rev, Array.from({ length: 2500 }, (_, i) => 3999 - i));
  await s.close();
});

test("a range iterator continues after the last key it returned when writes happen between steps", async () => {
  const s = new MemoryStore();
  await s.write([1, 3, 5, 7].map((i) => ({ key: u32(i), value: u32(i) })));
  const seen: number[] = [];
  for (const [k] of s.range({})) {
    const n = new DataView(k.buffer).getUint32(0);
    seen.push(n);
    if (n === 3) await s.write([{ key: u32(1) }, { key: u32(4), value: u32(4) }, { key: u32(5) }]);
  }
  assert.equal(seen, [1, 3, 4, 7]);
  await s.close();
});

test.run();
