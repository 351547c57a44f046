import { test } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../mod.ts";

const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";

/** Opens a stream and returns a reader of its JSON values, one per chunk. */
async function stream(node: TezosNode, path: string, signal?: AbortSignal) {
  const res = await node.fetch(new Request(`http://localhost${path}`, { signal }));
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  return {
    async next(): Promise<any> {
      const { value, done } = await reader.read();
      if (done) return undefined;
      const text = decoder.decode(value);
      assert.ok(text.endsWith("\n"), "one JSON value and a newline per chunk");
      return JSON.parse(text);
    },
    cancel: () => reader.cancel(),
  };
}

async function bake(node: TezosNode, count = 1): Promise<string[]> {
  const res = await node.fetch(new Request(`http://localhost/sandbox/bake?count=${count}`, { method: "POST" }));
  return res.json();
}

test("many head monitors each get the current head, then every new head; each is freed when it goes away", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const acs = Array.from({ length: 20 }, () => new AbortController());
    const monitors = await Promise.all(acs.map((ac) => stream(node, "/monitor/heads/main", ac.signal)));
    const firsts = await Promise.all(monitors.map((m) => m.next()));
    for (const f of firsts) assert.is(f.level, 3);
    const [h4, h5] = await bake(node, 2);
    for (const m of monitors) {
      assert.is((await m.next()).hash, h4);
      assert.is((await m.next()).hash, h5);
    }
    for (const ac of acs.slice(0, 10)) ac.abort();
    for (const m of monitors.slice(10)) await m.cancel();
    const [h6] = await bake(node);
    const late = await stream(node, "/monitor/heads/main");
    assert.is((await late.next()).hash, h6);
    await late.cancel();
  } finally {
    await node.close();
  }
});

test("head monitors filter on next_protocol, valid-block monitors on protocol", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const other = await stream(node, "/monitor/heads/main?next_protocol=ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im");
    const hangzhou = await stream(node, `/monitor/heads/main?next_protocol=${HANGZHOU}`);
    const valid = await stream(node, `/monitor/valid_blocks?protocol=${HANGZHOU}&chain=main`);
    assert.is((await hangzhou.next()).level, 3);
    const [h4] = await bake(node);
    assert.is((await hangzhou.next()).hash, h4);
    const v = await valid.next();
    assert.is(v.hash, h4);
    assert.is(v.chain_id, "NetXdQprcVkpaWU");
    const pending = other.next();
    await other.cancel();
    assert.is(await pending, undefined, "nothing matched, the stream just ended");
    await hangzhou.cancel();
    await valid.cancel();
  } finally {
    await node.close();
  }
});

test("closing the node ends open monitor streams", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  const heads = await stream(node, "/monitor/heads/main");
  await heads.next();
  const pending = heads.next();
  await node.close();
  assert.is(await pending, undefined);
});

test.run();
