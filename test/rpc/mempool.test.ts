import { readFileSync } from "node:fs";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { BOOTSTRAP_SECRET_KEYS, forgeEndorsementWithSlot } from "../../lib/baker/mod.ts";
import { parseSecretKey } from "../../lib/crypto/keys.ts";
import { B58, b58decode } from "../../lib/encoding/base58.ts";
import { encodeBinary, type Json } from "../../lib/encoding/codec.ts";
import { operation } from "../../lib/encoding/hangzhou/operation.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { hashOperation } from "../../lib/shell/operations.ts";

type Obj = { [k: string]: Json };
const ref = (name: string) => new URL(`../vectors/octez/examples/${name}`, import.meta.url);
const describeCapture = JSON.parse(readFileSync(ref("hangzhou-describe-chains-main-mempool-recurse.json"), "utf8")) as Obj;
const mempoolCapture = JSON.parse(readFileSync(ref("hangzhou-sandbox-mempool.json"), "utf8")) as { exchanges: Obj[] };

const ZERO_SIG = "sigMzJ4GVAvXEd2RjsKGfG2H9QvqTSKCZsuB2KiHbZRGFz72XgF6KaKADznh674fQgBatxw3xdHqTtMHUZAGRprxy64wg1aq";
const PKH5 = "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv";

async function call(node: TezosNode, method: string, path: string, body?: Json | string): Promise<{ status: number; text: string; json: Json | undefined }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  let json: Json | undefined;
  try {
    json = JSON.parse(text) as Json;
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

function failingNoop(branch: string): string {
  return toHex(encodeBinary(operation, { branch, contents: [{ kind: "failing_noop", arbitrary: "hello" }], signature: ZERO_SIG } as never));
}

async function headHash(node: TezosNode): Promise<string> {
  return (await call(node, "GET", "/chains/main/blocks/head/hash")).json as string;
}

/** bootstrap5's endorsement of the head, with its smallest slot (from `endorsing_rights`). */
async function endorsementHex(node: TezosNode): Promise<string | undefined> {
  const head = (await call(node, "GET", "/chains/main/blocks/head/header")).json as Obj;
  const rights = (await call(node, "GET", `/chains/main/blocks/head/helpers/endorsing_rights?delegate=${PKH5}&level=${head["level"]}`)).json as Obj[];
  const slots = (rights[0]?.["slots"] as number[] | undefined) ?? [];
  if (slots.length === 0) return undefined;
  const chainId = b58decode(B58.chainId, (await call(node, "GET", "/chains/main/chain_id")).json as string);
  const sk = parseSecretKey(BOOTSTRAP_SECRET_KEYS[4]!);
  return toHex(await forgeEndorsementWithSlot(sk, chainId, head["hash"] as string, head["level"] as number, Math.min(...slots)));
}

/** Reads one newline-terminated JSON value from a stream reader (carrying the rest over). */
async function nextLine(reader: ReadableStreamDefaultReader<Uint8Array>, carry: { text: string }): Promise<Json | undefined> {
  const dec = new TextDecoder();
  for (;;) {
    const nl = carry.text.indexOf("\n");
    if (nl >= 0) {
      const line = carry.text.slice(0, nl);
      carry.text = carry.text.slice(nl + 1);
      return JSON.parse(line) as Json;
    }
    const r = await reader.read();
    if (r.done) return undefined;
    carry.text += dec.decode(r.value, { stream: true });
  }
}

const Rpc = suite<{ node: TezosNode }>("mempool RPC");
Rpc.before.each(async (ctx) => {
  ctx.node = await createNode({ bake: { mode: "manual" } });
});
Rpc.after.each(async (ctx) => {
  await ctx.node.close();
});

Rpc("describe of /chains/main/mempool matches Octez's capture, service by service", async ({ node }) => {
  const { status, json } = await call(node, "GET", "/describe/chains/main/mempool?recurse=yes");
  assert.is(status, 200);
  const byName = (t: Obj) =>
    Object.fromEntries((((t["static"] as Obj)["subdirs"] as Obj)["suffixes"] as Obj[]).map((s) => [s["name"], (s["tree"] as Obj)["static"] as Obj]));
  const mine = byName(json as Obj);
  const captured = byName(describeCapture);
  assert.equal(Object.keys(mine), Object.keys(captured));
  for (const [name, services] of Object.entries(captured)) {
    for (const [kind, svc] of Object.entries(services as Obj)) {
      const m = (mine[name] as Obj)[kind] as Obj;
      const c = svc as Obj;
      for (const field of ["meth", "path", "description", "query", "input", "error"]) assert.equal(m[field], c[field], `${name} ${kind} ${field}`);
      assert.equal((m["output"] as Obj)["json_schema"], (c["output"] as Obj)["json_schema"], `${name} ${kind} output`);
      if (name !== "monitor_operations") assert.equal((m["output"] as Obj)["binary_schema"], (c["output"] as Obj)["binary_schema"], `${name} ${kind} binary`);
    }
  }
});

Rpc("the filter answers the capture's exchanges in order: defaults, include_default, POST replacing the whole configuration", async ({ node }) => {
  const exchanges = mempoolCapture.exchanges.filter((e) => String(e["path"]).includes("/mempool/filter"));
  assert.ok(exchanges.length >= 15);
  for (const e of exchanges) {
    const r = await call(node, e["method"] as string, e["path"] as string, e["request_body"] as Json | undefined);
    assert.is(r.status, 200);
    assert.equal(r.json, e["response"], `${e["method"]} ${e["path"]} ${JSON.stringify(e["request_body"])}`);
  }
});

Rpc("an invalid filter configuration leaves the configuration unchanged", async ({ node }) => {
  await call(node, "POST", "/chains/main/mempool/filter", { minimal_fees: "7" });
  for (const bad of [{ minimal_fees: "-1" }, { minimal_fees: 5 }, { unknown: true }, { minimal_nanotez_per_byte: ["1"] }, [1]]) {
    const r = await call(node, "POST", "/chains/main/mempool/filter", bad as Json);
    assert.is(r.status, 200);
    assert.equal((r.json as Obj)["minimal_fees"], "7", JSON.stringify(bad));
  }
  assert.equal((await call(node, "GET", "/chains/main/mempool/filter?include_default=false")).json, { minimal_fees: "7" });
});

Rpc("injection: bad hex is a 400, a foreign chain a 404, a short operation Octez's failure, an unknown branch a failure", async ({ node }) => {
  const bad = await call(node, "POST", "/injection/operation", JSON.stringify("zz"));
  assert.is(bad.status, 400);
  assert.ok(bad.text.startsWith("Failed to parse the request body"), bad.text);
  const test = await call(node, "POST", "/injection/operation?chain=test", JSON.stringify(failingNoop(await headHash(node))));
  assert.is(test.status, 404);
  const short = await call(node, "POST", "/injection/operation", JSON.stringify("00ff"));
  assert.is(short.status, 500);
  assert.equal(short.json, [{ kind: "temporary", id: "failure", msg: "Can't parse the operation" }]);
  const unknown = failingNoop("BKiHLREqU3JkXfzEDYAkmmfX48gBDtYhMrpA98s7Aq4SzbUAB6M");
  const u = await call(node, "POST", "/injection/operation", JSON.stringify(unknown));
  assert.is(u.status, 500);
  assert.equal(u.json, [{ kind: "temporary", id: "failure", msg: "Unknown branch (BKiHLREqU3Jk), cannot inject the operation." }]);
  // With ?chain the branch is not looked up first: the prevalidator finds it is not live.
  const c = await call(node, "POST", "/injection/operation?chain=main", JSON.stringify(unknown));
  assert.match((c.json as Obj[])[0]!["msg"] as string, /is branched on a block BKiHLREqU3JkXfzEDYAkmmfX48gBDtYhMrpA98s7Aq4SzbUAB6M which is too old$/);
  const empty = (await call(node, "GET", "/chains/main/mempool/pending_operations")).json;
  assert.equal(empty, { applied: [], refused: [], outdated: [], branch_refused: [], branch_delayed: [], unprocessed: [] });
});

Rpc("a failing_noop is refused on injection (500, nothing kept); async answers its hash; private injection classifies it", async ({ node }) => {
  const hex = failingNoop(await headHash(node));
  const hash = hashOperation(Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16))));
  const r = await call(node, "POST", "/injection/operation", JSON.stringify(hex));
  assert.is(r.status, 500);
  const item = (r.json as Obj[])[0]!;
  assert.is(item["id"], "failure");
  assert.ok((item["msg"] as string).startsWith(`Error while applying operation ${hash}:\nError:\n  {"id":"proto.011-PtHangz2.operation.failing_noop"`), item["msg"] as string);
  assert.is((await call(node, "POST", "/injection/operation?async", JSON.stringify(hex))).json, hash);
  const p = await call(node, "POST", "/private/injection/operation", JSON.stringify(hex));
  assert.equal([p.status, p.json], [200, hash]);
  const branch = await headHash(node);
  const expected = {
    protocol: "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx",
    branch,
    contents: [{ kind: "failing_noop", arbitrary: "hello" }],
    signature: ZERO_SIG,
    error: [{ kind: "permanent", id: "proto.011-PtHangz2.operation.failing_noop" }],
  };
  const v0 = (await call(node, "GET", "/chains/main/mempool/pending_operations")).json as Obj;
  assert.equal(v0["refused"], [[hash, expected]]);
  const v1 = (await call(node, "GET", "/chains/main/mempool/pending_operations?version=1")).json as Obj;
  assert.equal(v1["refused"], [{ hash, ...expected }]);
  assert.equal((await call(node, "GET", "/chains/main/mempool")).json, v0, "the specification's path answers as pending_operations");
  const bad = await call(node, "GET", "/chains/main/mempool/pending_operations?version=2");
  assert.equal([bad.status, bad.json], [500, [{ kind: "permanent", id: "RPC_error.bad_version", given: 2, supported: [0, 1] }]]);
});

Rpc("ban, unban and unban_all answer {}; a banned refused operation leaves pending_operations", async ({ node }) => {
  const hex = failingNoop(await headHash(node));
  const hash = (await call(node, "POST", "/private/injection/operation", JSON.stringify(hex))).json as string;
  assert.equal((await call(node, "POST", "/chains/main/mempool/ban_operation", JSON.stringify(hash))).json, {});
  assert.equal(((await call(node, "GET", "/chains/main/mempool/pending_operations")).json as Obj)["refused"], []);
  assert.is((await call(node, "POST", "/private/injection/operation", JSON.stringify(hex))).json, hash);
  assert.equal(((await call(node, "GET", "/chains/main/mempool/pending_operations")).json as Obj)["refused"], [], "banned: ignored");
  assert.equal((await call(node, "POST", "/chains/main/mempool/unban_operation", JSON.stringify(hash))).json, {});
  await call(node, "POST", "/private/injection/operation", JSON.stringify(hex));
  assert.is((((await call(node, "GET", "/chains/main/mempool/pending_operations")).json as Obj)["refused"] as Json[]).length, 1);
  assert.equal((await call(node, "POST", "/chains/main/mempool/unban_all_operations", {})).json, {});
  assert.is((await call(node, "POST", "/chains/main/mempool/ban_operation", JSON.stringify("nothash"))).status, 400);
  assert.equal((await call(node, "POST", "/chains/main/mempool/request_operations", {})).json, {});
  assert.is((await call(node, "GET", "/chains/test/mempool/pending_operations")).status, 404);
});

Rpc("monitor_operations streams [] then each classification, and ends at the next head", async ({ node }) => {
  const res = await node.fetch(new Request("http://localhost/chains/main/mempool/monitor_operations?refused=true"));
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  const carry = { text: "" };
  assert.equal(await nextLine(reader, carry), []);
  const hex = failingNoop(await headHash(node));
  const hash = (await call(node, "POST", "/private/injection/operation", JSON.stringify(hex))).json as string;
  const chunk = (await nextLine(reader, carry)) as Obj[];
  assert.is(chunk.length, 1);
  assert.is(chunk[0]!["hash"], hash);
  assert.equal(chunk[0]!["error"], [{ kind: "permanent", id: "proto.011-PtHangz2.operation.failing_noop" }]);
  assert.is((await call(node, "POST", "/sandbox/bake")).status, 200);
  assert.is(await nextLine(reader, carry), undefined, "the stream ends at the new head");
});

Rpc.run();

const Auto = suite("mempool in auto mode");

Auto("an endorsement by a delegate the baker holds is applied, then baked once: the baker's own, not a duplicate", async () => {
  const node = await createNode();
  try {
    let hex = await endorsementHex(node);
    for (let i = 0; hex === undefined && i < 5; i++) {
      await call(node, "POST", "/sandbox/bake");
      hex = await endorsementHex(node);
    }
    assert.ok(hex !== undefined, "bootstrap5 has an endorsing slot within a few levels");
    const start = ((await call(node, "GET", "/chains/main/blocks/head/header")).json as Obj)["level"] as number;
    const r = await call(node, "POST", "/injection/operation", JSON.stringify(hex));
    assert.is(r.status, 200, r.text);
    // The applied endorsement queued a bake (auto mode) before the injection answered; this
    // manual bake runs after it, and fails like it if the block were invalid.
    const more = await call(node, "POST", "/sandbox/bake");
    assert.is(more.status, 200, more.text);
    const level = ((await call(node, "GET", "/chains/main/blocks/head/header")).json as Obj)["level"] as number;
    assert.is(level, start + 2, "the injection made the baker bake a block");
    // The baker endorses for bootstrap5 itself (same key, slot and block: the same bytes), so the
    // mempool's copy is left out of `pending`; handing it over too would put the operation twice
    // in the block, which is invalid.
    const ops = (await call(node, "GET", `/chains/main/blocks/${start + 1}/operation_hashes/0`)).json as string[];
    assert.is(ops.filter((h) => h === r.json).length, 1);
  } finally {
    await node.close();
  }
});

Auto.run();
