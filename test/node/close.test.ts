/**
 * createNode's close() during a long bake (the baker stops at a block boundary, the request
 * answers the blocks baked until then, each of them stored), the 503 of a request after close,
 * and the log sink: the records an embedder gets, and none without a sink.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createNode } from "../../lib/node.ts";
import type { LogRecord } from "../../lib/log.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import type { KeyValueStore } from "../../lib/store/kv.ts";

/** A memory store whose close() is a no-op, so that a second node can reopen what the first wrote. */
function reopenable(): KeyValueStore {
  const store = new MemoryStore();
  return { get: (k) => store.get(k), range: (r) => store.range(r), write: (ops) => store.write(ops), close: async () => {} };
}

test("close() during a long bake: the request answers the blocks baked so far, the last is the stored head; later requests answer 503", async () => {
  const store = reopenable();
  const records: LogRecord[] = [];
  let closing: Promise<void> | undefined;
  let node: Awaited<ReturnType<typeof createNode>>;
  node = await createNode({
    store,
    bake: { mode: "manual" },
    log: {
      level: "debug",
      write(r) {
        records.push(r);
        // closed from within the bake, after its third block
        if (r.event === "block_baked" && r.fields["block_level"] === 6) closing ??= node.close();
      },
    },
  });
  const res = await node.fetch(new Request("http://localhost/sandbox/bake?count=10000", { method: "POST" }));
  assert.is(res.status, 200);
  const hashes = (await res.json()) as string[];
  await closing;
  assert.is(hashes.length, 3);
  const baked = records.filter((r) => r.event === "block_baked" && (r.fields["block_level"] as number) > 3);
  assert.equal(baked.map((r) => [r.level, r.fields["hash"]]), hashes.map((h) => ["debug", h]));
  const interrupted = records.find((r) => r.event === "bake_interrupted")!;
  assert.equal([interrupted.level, interrupted.fields["baked"], interrupted.fields["count"], interrupted.fields["block_level"]], ["info", 3, 10000, 6]);

  const late = await node.fetch(new Request("http://localhost/chains/main/blocks/head/hash"));
  assert.is(late.status, 503);
  assert.equal(await late.json(), [{ kind: "temporary", id: "failure", msg: "The node is shutting down" }]);

  const again = await createNode({ store, bake: { mode: "manual" } });
  const head = await (await again.fetch(new Request("http://localhost/chains/main/blocks/head/header"))).json() as { hash: string; level: number };
  assert.equal([head.hash, head.level], [hashes[2], 6]);
  await again.close();
});

test("without a log sink the node writes nothing on the console, even at a bake and a refused injection", async () => {
  const written: unknown[] = [];
  const saved = { log: console.log, error: console.error, warn: console.warn, info: console.info, debug: console.debug };
  for (const k of Object.keys(saved) as (keyof typeof saved)[]) console[k] = (...args: unknown[]) => void written.push(args);
  try {
    const node = await createNode({ bake: { mode: "manual" } });
    assert.is((await node.fetch(new Request("http://localhost/sandbox/bake?count=2", { method: "POST" }))).status, 200);
    const refused = await node.fetch(new Request("http://localhost/injection/operation", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify("00") }));
    assert.is(refused.status, 500);
    await node.close();
  } finally {
    Object.assign(console, saved);
  }
  assert.equal(written, []);
});

test.run();
