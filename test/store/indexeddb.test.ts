import "fake-indexeddb/auto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { openIndexedDbStore } from "../../platform/store/indexeddb.ts";
import { runStoreConformance } from "./conformance.ts";

let n = 0;
let last = "";
runStoreConformance("IndexedDB store", {
  open: () => openIndexedDbStore((last = `tezos-test-${++n}`)),
  reopen: () => openIndexedDbStore(last),
});

const test = suite("IndexedDB store");

test("a write holding a detached buffer is refused whole: neither the database nor the copy change", async () => {
  const s = await openIndexedDbStore("tezos-test-abort");
  await s.write([{ key: new Uint8Array([1]), value: new Uint8Array([1]) }]);
  // A detached buffer cannot be copied or cloned, so the second op fails after the first is checked.
  const detached = new Uint8Array(8);
  structuredClone(detached.buffer, { transfer: [detached.buffer] });
  try {
    await s.write([{ key: new Uint8Array([1]) }, { key: new Uint8Array([2]), value: detached }]);
    assert.unreachable("the write should have been refused");
  } catch (e) {
    assert.instance(e, TypeError);
  }
  assert.equal(s.get(new Uint8Array([1])), new Uint8Array([1]));
  assert.is(s.get(new Uint8Array([2])), undefined);
  await s.close();
  const t = await openIndexedDbStore("tezos-test-abort");
  assert.equal(t.get(new Uint8Array([1])), new Uint8Array([1]));
  assert.is(t.get(new Uint8Array([2])), undefined);
  await t.close();
});

test("openIndexedDbStore() refuses an empty name", async () => {
  try {
    await openIndexedDbStore("");
    assert.unreachable();
  } catch (e) {
    assert.instance(e, TypeError);
  }
});

test.run();
