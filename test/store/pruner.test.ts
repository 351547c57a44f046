import { suite } from "uvu";
import * as assert from "uvu/assert";
import { BlockStore } from "../../lib/store/block-store.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { Pruner, type PrunerHost } from "../../lib/store/pruner.ts";

const test = suite("pruner");

/** A chain whose savepoint and caboose are at level 1, with nothing to delete but contexts. */
function host(): PrunerHost {
  return {
    store: new BlockStore(new MemoryStore(), new Uint8Array([1, 2, 3, 4])),
    targets: () => ({ savepoint: 1, caboose: 1, archive: false }),
    hashAt: () => undefined,
    forget: () => {},
    contextRoots: () => [],
  };
}

test("a context collection that cannot start is reported, changes nothing, and is tried again at the next wake", async () => {
  const h = host();
  const errors: unknown[] = [];
  let starts = 0;
  const pruner = new Pruner(h, {
    onError: (e) => errors.push(e),
    collectContexts: () => {
      starts++;
      if (starts === 1) throw new Error("context CoX is not a commit of the store");
      return { step: async () => true };
    },
  });
  pruner.wake();
  await pruner.idle();
  assert.equal(errors.map((e) => (e as Error).message), ["context CoX is not a commit of the store"]);
  assert.equal(pruner.progress(), { blocks: 1, metadata: 1, contexts: 0 });
  pruner.wake();
  await pruner.idle();
  assert.is(starts, 2);
  assert.is(errors.length, 1);
  assert.equal(pruner.progress(), { blocks: 1, metadata: 1, contexts: 1 });
  await pruner.stop();
});

test("a collection step that fails is cancelled and reported", async () => {
  const errors: unknown[] = [];
  let cancelled = 0;
  const pruner = new Pruner(host(), {
    onError: (e) => errors.push(e),
    collectContexts: () => ({ step: () => Promise.reject(new Error("store refused the write")), cancel: () => void cancelled++ }),
  });
  pruner.wake();
  await pruner.idle();
  assert.is(cancelled, 1);
  assert.equal(errors.map((e) => (e as Error).message), ["store refused the write"]);
  assert.equal(pruner.progress().contexts, 0);
});

test.run();
