/**
 * `POST /sandbox/bake?count=<n>` in the node's service tree: blocks baked and stored, hashes
 * answered oldest first, bad counts refused with 400, the service listed by `/describe`.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createBaker } from "../../lib/baker/baker.ts";
import { bootstrapSecretKeys } from "../../lib/baker/keys.ts";
import { createRpcHandler } from "../../lib/rpc/handler.ts";
import { nodeDirectory } from "../../lib/rpc/services/mod.ts";
import { SANDBOX_GENESIS } from "../../lib/shell/genesis.ts";
import { ProtocolRegistry } from "../../lib/shell/protocols.ts";
import { ACTIVATION_TIME, openSandbox, type Sandbox } from "./sandbox.ts";

async function served(sb: Sandbox) {
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), mode: "manual", now: () => ACTIVATION_TIME * 1000 });
  const protocols = new ProtocolRegistry(sb.chain.store, [SANDBOX_GENESIS.protocol]);
  const fetch = createRpcHandler(
    nodeDirectory({ chain: sb.chain, protocols, genesis: SANDBOX_GENESIS, validator: sb.validator, blockRpc: () => undefined, baker }),
  );
  const call = async (method: string, path: string) => {
    const res = await fetch(new Request(`http://localhost${path}`, { method }));
    const text = await res.text();
    return { status: res.status, text, json: res.headers.get("content-type")?.startsWith("application/json") ? JSON.parse(text) : undefined };
  };
  return { call, close: () => protocols.added.close() };
}

test("POST /sandbox/bake bakes one block by default and answers its hash", async () => {
  const sb = await openSandbox();
  const node = await served(sb);
  try {
    const r = await node.call("POST", "/sandbox/bake");
    assert.is(r.status, 200, r.text);
    assert.equal(r.json, [sb.chain.head.hash]);
    assert.is(sb.chain.head.header.level, 2);
    assert.equal((await node.call("GET", "/chains/main/blocks?length=1")).json, [[sb.chain.head.hash]]);
  } finally {
    node.close();
    await sb.close();
  }
});

test("POST /sandbox/bake?count=3 answers three consecutive blocks, oldest first", async () => {
  const sb = await openSandbox();
  const node = await served(sb);
  try {
    const r = await node.call("POST", "/sandbox/bake?count=3");
    assert.is(r.status, 200, r.text);
    const hashes = r.json as string[];
    assert.is(hashes.length, 3);
    assert.equal(hashes.map((h) => sb.chain.block(h)!.header.level), [2, 3, 4]);
    assert.is(sb.chain.block(hashes[2]!)!.header.predecessor, hashes[1]);
    assert.is(sb.chain.head.hash, hashes[2]);
  } finally {
    node.close();
    await sb.close();
  }
});

test("bad counts are refused with 400 and nothing is baked", async () => {
  const sb = await openSandbox();
  const node = await served(sb);
  try {
    for (const q of ["0", "-1", "abc", "1.5", "10001"]) {
      const r = await node.call("POST", `/sandbox/bake?count=${q}`);
      assert.is(r.status, 400, q);
      assert.match(r.text, /count/);
    }
    assert.is((await node.call("GET", "/sandbox/bake")).status, 405);
    assert.is(sb.chain.head.header.level, 1);
  } finally {
    node.close();
    await sb.close();
  }
});

test("baking before the activation fails with a 500 and a JSON error trace", async () => {
  const sb = await openSandbox({ activate: false });
  const node = await served(sb);
  try {
    const r = await node.call("POST", "/sandbox/bake");
    assert.is(r.status, 500);
    assert.is(r.json[0].id, "failure");
    assert.match(r.json[0].msg, /activate the protocol first/);
  } finally {
    node.close();
    await sb.close();
  }
});

test("/describe lists the bake service with its count query (and the until_level and until_cycle_end of test/sandbox/bake-until.test.ts)", async () => {
  const sb = await openSandbox();
  const node = await served(sb);
  try {
    const r = await node.call("GET", "/describe/sandbox/bake");
    assert.is(r.status, 200, r.text);
    const post = r.json.static.post_service;
    assert.match(post.description, /bake `count` blocks/);
    assert.equal(post.query.map((q: { name: string }) => q.name), ["count", "until_level", "until_cycle_end"]);
    assert.is((await node.call("GET", "/describe/sandbox?recurse=yes")).status, 200);
  } finally {
    node.close();
    await sb.close();
  }
});

test.run();
