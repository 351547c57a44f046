/**
 * The worker bundle in workerd, its node in the Durable Object: the node made
 * at the first request as at a sandbox node's start (genesis, activation, two blocks), Octez's
 * header shape, baking on request, a transfer signed here and injected, the head stream, Octez's
 * errors for bad input, and the protocols' sources served from the data modules.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { formatErrors, OpenApi } from "../support/openapi.ts";
import { OCTEZ_FORMATS } from "../conformance/octez-formats.ts";
import { hangzhouHeader } from "../conformance/octez-schemas.ts";
import {
  BOOTSTRAP1,
  EdgeWorker,
  GENESIS_BLOCK,
  GENESIS_PROTOCOL,
  HANGZHOU,
  jsonLines,
  protocolHashOf,
  SANDBOX_CHAIN_ID,
  seedOf,
  signOperation,
  tz1Of,
} from "./support.ts";

const api = OpenApi.load(new URL("../vectors/octez/hangzhou-openapi.json", import.meta.url));

type Header = { hash: string; level: number; protocol: string; chain_id: string; predecessor: string };

const t = suite<{ setup: Promise<void>; worker: EdgeWorker }>("edge worker");
t.before(async (ctx) => {
  // uvu hides an error thrown by a hook: keep it, and let every test fail with it.
  ctx.setup = (async () => {
    ctx.worker = await EdgeWorker.start();
  })();
  await ctx.setup.catch(() => {});
});
t.after(async (ctx) => {
  await ctx.worker?.close();
});

t("the first request makes the node as a sandbox node starts: genesis, Hangzhou's activation, two blocks", async (ctx) => {
  await ctx.setup;
  const head = await ctx.worker.json<Header>("/chains/main/blocks/head/header");
  assert.is(head.level, 3);
  assert.is(head.protocol, HANGZHOU);
  assert.is(head.chain_id, SANDBOX_CHAIN_ID);
  assert.is(await ctx.worker.json("/chains/main/blocks/0/hash"), GENESIS_BLOCK);
  assert.equal(await ctx.worker.json("/chains/main/blocks/1/protocols"), { protocol: GENESIS_PROTOCOL, next_protocol: HANGZHOU });
  assert.equal(await ctx.worker.json("/chains/main/blocks/head/protocols"), { protocol: HANGZHOU, next_protocol: HANGZHOU });
  const errors = api.validate(head, hangzhouHeader(api), { formats: OCTEZ_FORMATS });
  assert.ok(errors.length === 0, formatErrors(errors));
});

t("POST /sandbox/bake bakes one block on the head, then count blocks", async (ctx) => {
  await ctx.setup;
  const before = await ctx.worker.json<Header>("/chains/main/blocks/head/header");
  const [baked] = await ctx.worker.json<string[]>("/sandbox/bake", { method: "POST" });
  const head = await ctx.worker.json<Header>("/chains/main/blocks/head/header");
  assert.is(head.hash, baked);
  assert.is(head.level, before.level + 1);
  assert.is(head.predecessor, before.hash);
  const three = await ctx.worker.json<string[]>("/sandbox/bake?count=3", { method: "POST" });
  assert.is(three.length, 3);
  assert.is(await ctx.worker.json("/chains/main/blocks/head/hash"), three[2]);
  assert.is((await ctx.worker.json<Header>("/chains/main/blocks/head/header")).level, before.level + 4);
});

t("a transfer forged by the node's helper, signed with bootstrap1's key, injected and baked, moves the amount", async (ctx) => {
  await ctx.setup;
  const w = ctx.worker;
  const destination = tz1Of(new Uint8Array(32).fill(7)); // a fresh account, no baker: its balance is the amount alone
  const counter = BigInt(await w.json<string>(`/chains/main/blocks/head/context/contracts/${BOOTSTRAP1.pkh}/counter`));
  const branch = await w.json<string>("/chains/main/blocks/head/hash");
  const forged = await w.json<string>("/chains/main/blocks/head/helpers/forge/operations", {
    method: "POST",
    body: {
      branch,
      contents: [
        { kind: "transaction", source: BOOTSTRAP1.pkh, fee: "1000", counter: String(counter + 1n), gas_limit: "10600", storage_limit: "300", amount: "1234567", destination },
      ],
    },
  });
  const { signed, hash } = signOperation(forged, seedOf(BOOTSTRAP1.sk));
  assert.is(await w.json("/injection/operation", { method: "POST", body: signed }), hash);
  const pending = await w.json<{ applied: { hash: string }[] }>("/chains/main/mempool/pending_operations");
  assert.equal(pending.applied.map((o) => o.hash), [hash]);
  await w.json("/sandbox/bake", { method: "POST" });
  const managers = await w.json<{ hash: string; contents: { metadata: { operation_result: { status: string } } }[] }[]>("/chains/main/blocks/head/operations/3");
  assert.equal(managers.map((o) => o.hash), [hash]);
  assert.is(managers[0]!.contents[0]!.metadata.operation_result.status, "applied");
  assert.is(await w.json(`/chains/main/blocks/head/context/contracts/${destination}/balance`), "1234567");
  assert.is(await w.json(`/chains/main/blocks/head/context/contracts/${BOOTSTRAP1.pkh}/counter`), String(counter + 1n));
  assert.equal((await w.json<{ applied: unknown[] }>("/chains/main/mempool/pending_operations")).applied, []);
});

t("GET /monitor/heads/main streams the head, then each block baked while it is read", async (ctx) => {
  await ctx.setup;
  // a client that accepts gzip, as fetch does: a gzipped stream would hold every chunk back
  const res = await ctx.worker.fetch("/monitor/heads/main", { headers: { "accept-encoding": "gzip" } });
  assert.is(res.status, 200);
  const lines = jsonLines(res.body!);
  try {
    const first = (await lines.next()) as Header;
    assert.is(first.hash, await ctx.worker.json("/chains/main/blocks/head/hash"));
    for (let i = 0; i < 2; i++) {
      const [baked] = await ctx.worker.json<string[]>("/sandbox/bake", { method: "POST" });
      const next = (await lines.next()) as Header;
      assert.is(next.hash, baked);
      assert.is(next.level, first.level + i + 1);
    }
  } finally {
    await lines.cancel();
  }
});

t("bad input answers Octez's errors and changes nothing", async (ctx) => {
  await ctx.setup;
  const w = ctx.worker;
  const head = await w.json("/chains/main/blocks/head/hash");
  const answer = async (path: string, init?: { method: string; body?: string }) => {
    const res = await w.fetch(path, { ...init, headers: init?.body === undefined ? {} : { "content-type": "application/json" } });
    return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
  };
  assert.equal(await answer("/chains/main/blocks/nope/header"), {
    status: 400,
    type: "text/plain",
    text: 'Failed to parsed an argument in path. After "chains/main/blocks/nope", the value "Cannot parse block identifier: nope" is not acceptable for type "block_id"',
  });
  assert.equal(await answer("/injection/operation", { method: "POST", body: '"zz"' }), { status: 400, type: "text/plain", text: 'Failed to parse the request body: Invalid hex string "zz"' });
  assert.equal(await answer("/injection/operation", { method: "POST", body: "{" }), { status: 400, type: "text/plain", text: "Failed to parse the request body: invalid JSON text" });
  const unparsable = await answer("/injection/operation", { method: "POST", body: '"00"' });
  assert.is(unparsable.status, 500);
  assert.equal(JSON.parse(unparsable.text), [{ kind: "temporary", id: "failure", msg: "Can't parse the operation" }]);
  const zero = await answer("/sandbox/bake?count=0", { method: "POST" });
  assert.is(zero.status, 400);
  assert.is(zero.text, `Failed to parse the query string: Failed to parse argument 'count' ("0"): count must be between 1 and 10000`);
  assert.is((await answer("/no/such/service")).status, 404);
  assert.is(await w.json("/chains/main/blocks/head/hash"), head);
  assert.equal((await w.json<{ applied: unknown[] }>("/chains/main/mempool/pending_operations")).applied, []);
});

t("GET /protocols/<hash> serves the sources deployed as data modules: Hangzhou's record hashes to its name", async (ctx) => {
  await ctx.setup;
  assert.equal(await ctx.worker.json("/protocols"), [GENESIS_PROTOCOL, HANGZHOU]);
  // the binary answer is the record behind the media's 4-byte length; Octez's protocol hash is
  // BLAKE2b-256 of the record, but for genesis's, a vanity hash (lib/protocols/sources/SOURCES.md)
  for (const [name, hash] of [[HANGZHOU, HANGZHOU], [GENESIS_PROTOCOL, "PrrUA9dCzbqBzugjQyw65HLHKjhH3HMFSLLHLZjj5rkmkG13Fej"]]) {
    const res = await ctx.worker.fetch(`/protocols/${name}`, { headers: { accept: "application/octet-stream" } });
    assert.is(res.status, 200);
    const answer = new Uint8Array(await res.arrayBuffer());
    assert.is(new DataView(answer.buffer).getUint32(0), answer.length - 4);
    assert.is(protocolHashOf(answer.subarray(4)), hash);
  }
  const hangzhou = await ctx.worker.json<{ expected_env_version: number; components: { name: string }[] }>(`/protocols/${HANGZHOU}`);
  assert.is(hangzhou.expected_env_version, 3);
  assert.is(hangzhou.components.length, 97);
  assert.is((await ctx.worker.fetch("/protocols/PsDELPH1Kxsxt8f9eWbxQeRxkjfbxoqM52jvs5Y5fBxWWh4ifpo")).status, 404);
});

t.run();
