import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createNode } from "../../lib/node.ts";
import type { KeyValueStore, RangeOptions, WriteOp } from "../../lib/store/kv.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { Table } from "../../lib/store/tables.ts";

const test = suite("disk-budget");

/**
 * The write budget of an endorsement-only sandbox block, in key + value bytes the store is asked
 * to write (bench/disk.ts has the figures and LMDB's file growth). Measured at its making:
 * context nodes 3.2 KB, everything 6.9 KB per block (from 5.0 and 8.4 KB before packed nodes);
 * 5.7 KB once operations and records were compressed (lib/store/row-compression.ts).
 */
const CONTEXT_BUDGET = 3400;
const TOTAL_BUDGET = 6000;
const BLOCKS = 32;

class Counting implements KeyValueStore {
  readonly inner = new MemoryStore();
  on = false;
  context = 0;
  total = 0;
  get(key: Uint8Array) {
    return this.inner.get(key);
  }
  range(options: RangeOptions) {
    return this.inner.range(options);
  }
  write(ops: readonly WriteOp[]) {
    if (this.on) {
      for (const op of ops) {
        const n = op.key.length + (op.value?.length ?? 0);
        this.total += n;
        if (op.key[0] === Table.contextNode || op.key[0] === Table.contextCommit) this.context += n;
      }
    }
    return this.inner.write(ops);
  }
  close() {
    return this.inner.close();
  }
}

async function bake(node: { fetch(r: Request): Promise<Response> }, count: number): Promise<void> {
  const res = await node.fetch(new Request(`http://localhost/sandbox/bake?count=${count}`, { method: "POST" }));
  assert.is(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
}

test(`${BLOCKS} endorsement-only blocks write at most ${CONTEXT_BUDGET} bytes of context and ${TOTAL_BUDGET} in all per block`, async () => {
  const store = new Counting();
  const node = await createNode({ store, bake: { mode: "manual" } });
  try {
    await bake(node, 20);
    store.on = true;
    await bake(node, BLOCKS);
  } finally {
    await node.close();
  }
  const context = store.context / BLOCKS;
  const total = store.total / BLOCKS;
  assert.ok(context > 1000 && context <= CONTEXT_BUDGET, `context bytes per block: ${context.toFixed(0)} (budget ${CONTEXT_BUDGET})`);
  assert.ok(total > context && total <= TOTAL_BUDGET, `bytes per block: ${total.toFixed(0)} (budget ${TOTAL_BUDGET})`);
});

test.run();
