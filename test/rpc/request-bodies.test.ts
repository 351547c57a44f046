/**
 * Request bodies a client may send wrong: too large (413 before reading, or as soon as the limit
 * is passed for a body without a length), not UTF-8, nested too deep, not JSON: each a clear
 * answer, and the node serves on unchanged.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../mod.ts";
import { DEFAULT_MAX_BODY_SIZE } from "../../lib/rpc/media.ts";

const LIMIT = 64 * 1024;

const bodies = suite<{ node: TezosNode }>("request bodies");
bodies.before(async (ctx) => {
  ctx.node = await createNode({ bake: { mode: "manual" }, maxRequestBody: LIMIT });
});
bodies.after(async (ctx) => {
  await ctx.node.close();
});

async function post(node: TezosNode, path: string, body: BodyInit, headers: Record<string, string> = { "content-type": "application/json" }) {
  const init = { method: "POST", headers, body, duplex: "half" } as RequestInit;
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  return { status: res.status, text: await res.text() };
}

/** A body stream of `total` bytes in 16 KiB chunks that counts what was pulled from it. */
function counted(total: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let sent = 0;
  const chunk = new Uint8Array(16 * 1024).fill(0x20);
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= total) return c.close();
      sent += chunk.length;
      c.enqueue(chunk);
    },
  });
  return { stream, pulled: () => sent };
}

bodies("the default limit lets a 2 MiB protocol through in JSON", () => {
  assert.ok(DEFAULT_MAX_BODY_SIZE >= 4 * 2 * 1024 * 1024);
});

bodies("a body declared larger than the limit answers 413 and is not read", async ({ node }) => {
  const big = counted(100 * LIMIT);
  const r = await post(node, "/injection/operation", big.stream, { "content-type": "application/json", "content-length": String(100 * LIMIT) });
  assert.is(r.status, 413);
  assert.is(r.text, `Request body too large: at most ${LIMIT} bytes`);
  assert.ok(big.pulled() <= 2 * 16 * 1024, `read ${big.pulled()} bytes`);
});

bodies("a body without a length stops being read past the limit", async ({ node }) => {
  const big = counted(1000 * LIMIT);
  const r = await post(node, "/chains/main/blocks/head/helpers/scripts/pack_data", big.stream);
  assert.is(r.status, 413);
  assert.ok(big.pulled() <= LIMIT + 2 * 16 * 1024, `read ${big.pulled()} bytes`);
});

bodies("invalid UTF-8, deep nesting and non-JSON answer 400 with a reason; the node still serves", async ({ node }) => {
  const utf8 = await post(node, "/chains/main/blocks/head/helpers/scripts/pack_data", new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
  assert.is(utf8.status, 400);
  assert.is(utf8.text, "Failed to parse the request body: invalid UTF-8");
  const deep = "[".repeat(30_000) + "]".repeat(30_000);
  const nested = await post(node, "/chains/main/blocks/head/helpers/scripts/pack_data", deep);
  assert.is(nested.status, 400);
  const deepObject = '{"data":' + '{"prim":"Pair","args":['.repeat(2_500) + "]}".repeat(2_500) + ',"type":{"prim":"unit"}}';
  const micheline = await post(node, "/chains/main/blocks/head/helpers/scripts/pack_data", deepObject);
  assert.ok(micheline.status === 400 || micheline.status === 500, `${micheline.status} ${micheline.text.slice(0, 200)}`);
  assert.not.match(micheline.text, /TypeError|RangeError|Maximum call stack/);
  const garbage = await post(node, "/injection/operation", "not json");
  assert.is(garbage.status, 400);
  assert.is(garbage.text, "Failed to parse the request body: invalid JSON text");
  const ok = await post(node, "/chains/main/blocks/head/helpers/scripts/pack_data", JSON.stringify({ data: { int: "1" }, type: { prim: "int" } }));
  assert.is(ok.status, 200, ok.text);
});

bodies("the early layout's paths keep the limit", async ({ node }) => {
  const big = counted(1000 * LIMIT);
  const r = await post(node, "/blocks/head/proto/helpers/hash_data", big.stream);
  assert.is(r.status, 413);
  assert.ok(big.pulled() <= LIMIT + 2 * 16 * 1024, `read ${big.pulled()} bytes`);
});

bodies.run();
