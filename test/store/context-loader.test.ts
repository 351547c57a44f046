import { suite } from "uvu";
import * as assert from "uvu/assert";
import { NodeLoader, nodeKey } from "../../lib/store/context/loader.ts";
import { Ref } from "../../lib/store/context/node.ts";
import { MemoryStore } from "../../lib/store/memory.ts";

const test = suite("context node cache");

test("the cache holds at most two generations of stored bytes, however much is read", async () => {
  // 3 000 distinct blob nodes of 1 000 bytes (tag 0x03 and the bytes): 3 MB, far fewer nodes than a generation's count.
  const store = new MemoryStore();
  const hashes: Uint8Array[] = [];
  for (let i = 0; i < 3000; i++) {
    const hash = new Uint8Array(32);
    new DataView(hash.buffer).setUint32(0, i);
    hashes.push(hash);
    const blob = new Uint8Array(1001).fill(i & 0xff);
    blob[0] = 0x03;
    await store.write([{ key: nodeKey(hash), value: blob }]);
  }
  const loader = new NodeLoader(store);
  for (let round = 0; round < 2; round++) {
    for (const [i, hash] of hashes.entries()) assert.is(loader.loadBlob(Ref.stored(hash))[0], i & 0xff);
    // Two generations of 512 KiB (NODE_CACHE_GENERATION_BYTES), and the node that filled the last.
    assert.ok(loader.cachedBytes <= 1024 * 1024 + 1001, `round ${round}: ${loader.cachedBytes} bytes cached`);
    assert.ok(loader.cachedBytes >= 512 * 1024, `round ${round}: the cache is used (${loader.cachedBytes} bytes)`);
  }
});

test.run();
