/**
 * The conformance suite of `KeyValueStore`: one set of cases that every implementation (memory,
 * LMDB, IndexedDB) must pass, in the manner of Hono's `runTest({ newRouter })`.
 *
 * @example
 * runStoreConformance("MemoryStore", { open: async () => new MemoryStore() });
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { KeyValueStore } from "../../lib/store/kv.ts";
import { key, prefixRange, Table, u32 } from "../../lib/store/tables.ts";

/** How the suite gets stores of the implementation under test. */
export interface StoreFactory {
  /** A new, empty store. */
  open(): Promise<KeyValueStore>;
  /** Opens again the store that `open` returned last, after the suite has closed it. */
  reopen?(): Promise<KeyValueStore>;
  /** Removes whatever the stores left behind (temporary directories, databases). */
  cleanup?(): Promise<void>;
}

const b = (...xs: number[]) => new Uint8Array(xs);
const hex = (x: Uint8Array) => Array.from(x, (v) => v.toString(16).padStart(2, "0")).join("");
const keysOf = (entries: Iterable<[Uint8Array, Uint8Array]>) => Array.from(entries, ([k]) => hex(k));

/** Registers and runs the suite `"<name> conformance"`. */
export function runStoreConformance(name: string, factory: StoreFactory): void {
  const test = suite(`${name} conformance`);

  async function withStore(fn: (store: KeyValueStore) => Promise<void> | void): Promise<void> {
    const store = await factory.open();
    try {
      await fn(store);
    } finally {
      await store.close();
    }
  }

  test.after(async () => {
    await factory.cleanup?.();
  });

  test("get() of a missing key is undefined", () =>
    withStore((s) => {
      assert.is(s.get(b(1, 2, 3)), undefined);
    }));

  test("write() puts a value that get() returns as a plain Uint8Array with the same bytes", () =>
    withStore(async (s) => {
      await s.write([{ key: b(1, 1), value: b(0xde, 0xad, 0xbe, 0xef) }]);
      const v = s.get(b(1, 1));
      assert.instance(v, Uint8Array);
      assert.is(v!.constructor, Uint8Array);
      assert.equal(v, b(0xde, 0xad, 0xbe, 0xef));
    }));

  test("a later put replaces the value and an empty value is kept as empty", () =>
    withStore(async (s) => {
      await s.write([{ key: b(1, 1), value: b(1) }]);
      await s.write([{ key: b(1, 1), value: b(2, 2) }, { key: b(1, 2), value: b() }]);
      assert.equal(s.get(b(1, 1)), b(2, 2));
      assert.equal(s.get(b(1, 2)), b());
    }));

  test("an op without value deletes the key; deleting a missing key is harmless", () =>
    withStore(async (s) => {
      await s.write([{ key: b(1, 1), value: b(1) }, { key: b(1, 2), value: b(2) }]);
      await s.write([{ key: b(1, 1) }, { key: b(9, 9) }]);
      assert.is(s.get(b(1, 1)), undefined);
      assert.equal(s.get(b(1, 2)), b(2));
      assert.equal(keysOf(s.range({})), ["0102"]);
    }));

  test("ops of one write apply in order", () =>
    withStore(async (s) => {
      await s.write([{ key: b(1), value: b(1) }, { key: b(1) }, { key: b(2) }, { key: b(2), value: b(2) }]);
      assert.is(s.get(b(1)), undefined);
      assert.equal(s.get(b(2)), b(2));
    }));

  test("the store keeps its own copies: mutating written or returned arrays changes nothing", () =>
    withStore(async (s) => {
      const k = b(1, 7);
      const v = b(10, 20, 30);
      await s.write([{ key: k, value: v }]);
      v[0] = 99;
      k[1] = 8;
      const got = s.get(b(1, 7))!;
      assert.equal(got, b(10, 20, 30));
      got[0] = 77;
      assert.equal(s.get(b(1, 7)), b(10, 20, 30));
      for (const [, value] of s.range({})) value[1] = 55;
      assert.equal(s.get(b(1, 7)), b(10, 20, 30));
      assert.is(s.get(b(1, 8)), undefined);
    }));

  test("a write with a non-Uint8Array key rejects with a TypeError and changes nothing", () =>
    withStore(async (s) => {
      await s.write([{ key: b(1, 1), value: b(1) }]);
      const bad = [{ key: b(1, 1) }, { key: b(1, 2), value: b(2) }, { key: "oops" as unknown as Uint8Array, value: b(3) }];
      try {
        await s.write(bad);
        assert.unreachable("write should have rejected");
      } catch (e) {
        assert.instance(e, TypeError);
        assert.match((e as Error).message, "ops[2].key");
      }
      assert.equal(s.get(b(1, 1)), b(1));
      assert.is(s.get(b(1, 2)), undefined);
    }));

  test("a write with an empty key, a too long key or a non-bytes value changes nothing", () =>
    withStore(async (s) => {
      const cases: [unknown[], typeof Error][] = [
        [[{ key: b(5), value: b(5) }, { key: b(), value: b(1) }], RangeError],
        [[{ key: b(5), value: b(5) }, { key: new Uint8Array(512), value: b(1) }], RangeError],
        [[{ key: b(5), value: b(5) }, { key: b(6), value: [1, 2] }], TypeError],
        [[{ key: b(5), value: b(5) }, null], TypeError],
      ];
      for (const [ops, kind] of cases) {
        try {
          await s.write(ops as never);
          assert.unreachable("write should have rejected");
        } catch (e) {
          assert.instance(e, kind);
        }
      }
      try {
        await s.write("not an array" as never);
        assert.unreachable("write should have rejected");
      } catch (e) {
        assert.instance(e, TypeError);
      }
      assert.equal(keysOf(s.range({})), []);
    }));

  test("a 511-byte key is accepted, a 512-byte key is not", () =>
    withStore(async (s) => {
      const long = new Uint8Array(511).fill(0xab);
      await s.write([{ key: long, value: b(1) }]);
      assert.equal(s.get(long), b(1));
      assert.throws(() => s.get(new Uint8Array(512)), (e: unknown) => e instanceof RangeError);
    }));

  test("get() and range() refuse arguments of the wrong type", () =>
    withStore((s) => {
      assert.throws(() => s.get("k" as never), (e: unknown) => e instanceof TypeError);
      assert.throws(() => s.range({ gte: [1] as never }), (e: unknown) => e instanceof TypeError);
      assert.throws(() => s.range({ limit: -1 }), (e: unknown) => e instanceof RangeError);
      assert.throws(() => s.range({ limit: 1.5 }), (e: unknown) => e instanceof RangeError);
    }));

  const sample = [
    b(0x02),
    b(0x01, 0x00),
    b(0x01),
    b(0x01, 0xff),
    b(0x01, 0x00, 0x00),
    b(0x00),
    b(0xff, 0xff),
    b(0x01, 0x80),
    b(0xff),
    b(0x00, 0xff),
  ];
  // Bytewise order, a proper prefix first: worked out by hand.
  const sorted = ["00", "00ff", "01", "0100", "010000", "0180", "01ff", "02", "ff", "ffff"];

  async function fill(s: KeyValueStore): Promise<void> {
    await s.write(sample.map((k, i) => ({ key: k, value: b(i) })));
  }

  test("range() returns every entry in bytewise key order, with 0x00 and 0xff bytes", () =>
    withStore(async (s) => {
      await fill(s);
      assert.equal(keysOf(s.range({})), sorted);
      const entries = Array.from(s.range({}));
      assert.equal(entries[4]![1], b(4)); // 010000 was written at index 4
      assert.is(entries[0]![0].constructor, Uint8Array);
    }));

  test("range() takes gte inclusive and lt exclusive", () =>
    withStore(async (s) => {
      await fill(s);
      assert.equal(keysOf(s.range({ gte: b(0x01), lt: b(0x02) })), ["01", "0100", "010000", "0180", "01ff"]);
      assert.equal(keysOf(s.range({ gte: b(0x01, 0x00, 0x00, 0x00), lt: b(0x01, 0xff) })), ["0180"]);
      assert.equal(keysOf(s.range({ gte: b(0xff) })), ["ff", "ffff"]);
      assert.equal(keysOf(s.range({ lt: b(0x01) })), ["00", "00ff"]);
      assert.equal(keysOf(s.range({ gte: b(0x03), lt: b(0xff) })), []);
      assert.equal(keysOf(s.range({ gte: b(0x02), lt: b(0x02) })), []);
      assert.equal(keysOf(s.range({ gte: b(0x05), lt: b(0x01) })), []);
    }));

  test("range() of an empty store, or starting past the last key, is empty", () =>
    withStore(async (s) => {
      assert.equal(keysOf(s.range({ gte: b(0x16), lt: b(0x17) })), []);
      assert.equal(keysOf(s.range({ gte: b(0x16) })), []);
      assert.equal(keysOf(s.range({ gte: b(0x16), reverse: true })), []);
      await fill(s);
      assert.equal(keysOf(s.range({ gte: b(0xff, 0xff, 0x00) })), []);
      assert.equal(keysOf(s.range({ gte: b(0xff, 0xff, 0x00), lt: b(0xff, 0xff, 0xff) })), []);
    }));

  test("range() reverses with the same bounds", () =>
    withStore(async (s) => {
      await fill(s);
      assert.equal(keysOf(s.range({ reverse: true })), [...sorted].reverse());
      assert.equal(keysOf(s.range({ gte: b(0x01), lt: b(0x02), reverse: true })), ["01ff", "0180", "010000", "0100", "01"]);
      assert.equal(keysOf(s.range({ lt: b(0x01, 0x00), reverse: true })), ["01", "00ff", "00"]);
      assert.equal(keysOf(s.range({ gte: b(0x02), reverse: true })), ["ffff", "ff", "02"]);
      assert.equal(keysOf(s.range({ gte: b(0x01, 0x01), lt: b(0x01, 0x7f), reverse: true })), []);
    }));

  test("range() stops after limit entries, in either direction", () =>
    withStore(async (s) => {
      await fill(s);
      assert.equal(keysOf(s.range({ limit: 3 })), ["00", "00ff", "01"]);
      assert.equal(keysOf(s.range({ gte: b(0x01), limit: 2, reverse: true })), ["ffff", "ff"]);
      assert.equal(keysOf(s.range({ lt: b(0x02), limit: 2, reverse: true })), ["01ff", "0180"]);
      assert.equal(keysOf(s.range({ limit: 0 })), []);
      assert.equal(keysOf(s.range({ limit: 100 })), sorted);
    }));

  test("tables: a prefix range holds exactly the keys of that prefix, levels in numeric order", () =>
    withStore(async (s) => {
      const chain = b(0x7a, 0x06, 0xa7, 0x70);
      const levels = [256, 1, 70000, 255, 0];
      await s.write(levels.map((l) => ({ key: key(Table.levelIndex, chain, u32(l)), value: u32(l) })));
      await s.write([{ key: key(Table.levelIndex, b(0x7a, 0x06, 0xa7, 0x71), u32(3)), value: b() }]);
      await s.write([{ key: key(Table.chainData, chain, "head"), value: b(1) }]);
      const got = Array.from(s.range(prefixRange(key(Table.levelIndex, chain))), ([, v]) => hex(v));
      assert.equal(got, ["00000000", "00000001", "000000ff", "00000100", "00011170"]);
    }));

  test("a 1 MB value round-trips intact", () =>
    withStore(async (s) => {
      const big = new Uint8Array(1 << 20);
      for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 8)) & 0xff;
      await s.write([{ key: b(3, 3), value: big }]);
      const got = s.get(b(3, 3))!;
      assert.is(got.length, 1 << 20);
      assert.ok(got.every((x, i) => x === ((i * 31 + (i >> 8)) & 0xff)));
    }));

  test("a thousand keys written in one write are all there, in order", () =>
    withStore(async (s) => {
      const ops = [];
      for (let i = 999; i >= 0; i--) ops.push({ key: key(0x20, u32(i * 7919 % 1000)), value: u32(i) });
      await s.write(ops);
      const ks = Array.from(s.range({}), ([k]) => (k[3]! << 8) | k[4]!);
      assert.equal(ks, Array.from({ length: 1000 }, (_, i) => i));
    }));

  test("after close() every call throws", async () => {
    const s = await factory.open();
    await s.write([{ key: b(1), value: b(1) }]);
    await s.close();
    assert.throws(() => s.get(b(1)), /closed/);
    assert.throws(() => s.range({}), /closed/);
    try {
      await s.write([{ key: b(2), value: b(2) }]);
      assert.unreachable("write after close should reject");
    } catch (e) {
      assert.match((e as Error).message, "closed");
    }
    await s.close(); // twice is harmless
  });

  if (factory.reopen !== undefined) {
    const reopen = factory.reopen;
    test("close() then reopening keeps every write and delete", async () => {
      const s = await factory.open();
      await fill(s);
      await s.write([{ key: b(0xff) }, { key: b(0x01, 0x80), value: b(42) }]);
      await s.close();
      const t = await reopen();
      try {
        assert.equal(keysOf(t.range({})), sorted.filter((k) => k !== "ff"));
        assert.equal(t.get(b(0x01, 0x80)), b(42));
        assert.equal(t.get(b(0x00, 0xff)), b(9));
      } finally {
        await t.close();
      }
    });
  }

  test.run();
}
