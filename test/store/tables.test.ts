import { suite } from "uvu";
import * as assert from "uvu/assert";
import { key, prefixRange, readU32, readU64, Table, tableRange, u32, u64, u8 } from "../../lib/store/tables.ts";

const test = suite("store tables");
const hex = (x: Uint8Array | undefined) => (x === undefined ? "none" : Array.from(x, (v) => v.toString(16).padStart(2, "0")).join(""));

test("table prefixes are distinct single bytes", () => {
  const values = Object.values(Table);
  assert.is(new Set(values).size, values.length);
  for (const v of values) assert.ok(Number.isInteger(v) && v >= 0 && v <= 255);
});

test("key() concatenates the table byte, bytes and UTF-8 strings", () => {
  assert.is(hex(key(Table.levelIndex, new Uint8Array([0x7a, 0x06, 0xa7, 0x70]), u32(42))), "137a06a7700000002a");
  assert.is(hex(key(Table.config, "é")), "17c3a9");
  assert.is(hex(key(0xff)), "ff");
  assert.throws(() => key(256), (e: unknown) => e instanceof RangeError);
  assert.throws(() => key(1, 5 as unknown as string), (e: unknown) => e instanceof TypeError);
});

test("numbers are big-endian and checked", () => {
  assert.is(hex(u8(7)), "07");
  assert.is(hex(u32(0x01020304)), "01020304");
  assert.is(hex(u64(2 ** 53 - 1)), "001fffffffffffff");
  assert.is(hex(u64(0xfedcba9876543210n)), "fedcba9876543210");
  assert.is(readU32(new Uint8Array([9, 0, 0, 1, 0]), 1), 256);
  assert.is(readU64(u64(0xfedcba9876543210n)), 0xfedcba9876543210n);
  assert.throws(() => u32(-1), (e: unknown) => e instanceof RangeError);
  assert.throws(() => u32(2 ** 32), (e: unknown) => e instanceof RangeError);
  assert.throws(() => u64(1n << 64n), (e: unknown) => e instanceof RangeError);
  assert.throws(() => u64(1.5), (e: unknown) => e instanceof RangeError);
  assert.throws(() => readU32(new Uint8Array(3)), (e: unknown) => e instanceof RangeError);
});

test("prefixRange() bounds a prefix, carrying over trailing 0xff bytes", () => {
  const r = prefixRange(new Uint8Array([0x13, 0x01, 0xff, 0xff]));
  assert.is(hex(r.gte), "1301ffff");
  assert.is(hex(r.lt), "1302");
  assert.is(hex(prefixRange(new Uint8Array([0xff, 0xff])).lt), "none");
  assert.is(hex(tableRange(Table.contextNode).lt), "02");
});

test.run();
