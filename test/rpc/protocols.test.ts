/**
 * Protocol sources: injection (hash as Octez's `Protocol.hash`), reads, the monitor, fetching,
 * and the refusal of a block that activates a protocol the node cannot run.
 */
import { readFile as readFileAsync } from "node:fs/promises";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { encodeBinary, type Json } from "../../lib/encoding/codec.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { protocolRecord, type ProtocolRecord } from "../../lib/encoding/protocol.ts";
import { SANDBOX_ACTIVATOR_KEY } from "../../lib/baker/activate.ts";
import { activationFitness, forgeActivation } from "../../lib/protocols/genesis/activation.ts";
import { protocolRecordHash } from "../../lib/rpc/services/protocols.ts";
import { operationsHashOf } from "../../lib/shell/operations.ts";
import { applyWrites, genesisContextWrites } from "../../lib/protocols/genesis/context.ts";
import { genesisProtocol } from "../../lib/protocols/genesis/protocol.ts";
import { hangzhouProtocol } from "../../lib/protocols/hangzhou/protocol.ts";
import { embeddedSources } from "../../lib/protocols/sources/mod.ts";
import { genesisRpc } from "../../lib/rpc/services/genesis.ts";
import { hangzhouRpc } from "../../lib/rpc/services/hangzhou/mod.ts";
import { nodeDirectory, nodeRpcHandler } from "../../lib/rpc/services/mod.ts";
import { Chain } from "../../lib/shell/chain.ts";
import { chainIdOf, genesisBlock, SANDBOX_GENESIS } from "../../lib/shell/genesis.ts";
import type { Protocol } from "../../lib/shell/protocol.ts";
import { ProtocolRegistry } from "../../lib/shell/protocols.ts";
import { BlockValidator } from "../../lib/shell/validator.ts";
import type { Context } from "../../lib/store/context/mod.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { call } from "./hangzhou-fixture.ts";

/** A sandbox node at its genesis block (no activation, no baker), served by the node's own directory. */
interface GenesisNode {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

async function genesisNode(): Promise<GenesisNode> {
  const kv = new MemoryStore();
  const genesis = SANDBOX_GENESIS;
  const prepare = (ctx: Context) => applyWrites(ctx, genesisContextWrites(genesis.protocol, { genesis_pubkey: genesis.genesisPubkey }));
  const chain = await Chain.open(kv, chainIdOf(genesis), genesisBlock(kv, genesis, prepare), "full");
  const embedded = new Map<string, Protocol>([genesisProtocol, hangzhouProtocol].map((p) => [p.hash, p]));
  const readFile = async (url: URL) => new Uint8Array(await readFileAsync(url));
  const protocols = new ProtocolRegistry(chain.store, [...embedded.keys()], (hash) => embeddedSources(hash, readFile));
  const validator = new BlockValidator(chain, (h) => embedded.get(h));
  const now = () => Date.now();
  const rpcs = new Map([genesisRpc(now), hangzhouRpc(now)].map((r) => [r.hash, r]));
  const fetch = nodeRpcHandler(nodeDirectory({ chain, protocols, genesis, validator, blockRpc: (h) => rpcs.get(h) }));
  return {
    fetch,
    async close() {
      chain.close();
      protocols.added.close();
      await kv.close();
    },
  };
}

const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
const GENESIS_PROTOCOL = "ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im";
const UNKNOWN = "PsddFKi32cMJ2qPjf43Qv5GDWLDPZb3T3bF6fLKiF5HtvHNU7aP";

/** A small record and its binary form, written out by hand from Octez's `Protocol.encoding`. */
const RECORD: Json = {
  expected_env_version: 3,
  components: [
    { name: "Main", implementation: "let x = 1" },
    { name: "Data", interface: "val x : int", implementation: "let x = 2" },
  ],
};
const RECORD_HEX =
  "0003" + // expected_env_version, uint16
  "0000003b" + // components: 59 bytes
  "00000004" + "4d61696e" + "00" + "00000009" + "6c65742078203d2031" + // Main, no interface
  "00000004" + "44617461" + "ff" + "0000000b" + "76616c2078203a20696e74" + "00000009" + "6c65742078203d2032"; // Data
const RECORD_HASH = b58encode(B58.protocolHash, blake2b256(fromHex(RECORD_HEX)));

const post = (node: GenesisNode, path: string, body: unknown) =>
  call(node, path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** Opens a stream and returns a reader of its JSON values, one per chunk. */
async function stream(node: GenesisNode, path: string) {
  const res = await node.fetch(new Request(`http://localhost${path}`));
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  return {
    async next(): Promise<any> {
      const { value } = await reader.read();
      return JSON.parse(new TextDecoder().decode(value));
    },
    cancel: () => reader.cancel(),
  };
}

const test = suite<{ node: GenesisNode }>("protocol sources");
test.before.each(async (ctx) => {
  ctx.node = await genesisNode();
});
test.after.each(async (ctx) => {
  await ctx.node.close();
});

test("the protocol record codec lays a record out as Octez's Protocol.encoding", () => {
  const record = protocolRecord.fromJson(RECORD);
  assert.is(toHex(encodeBinary(protocolRecord, record)), RECORD_HEX);
  assert.equal(protocolRecord.toJson(record), RECORD);
  assert.is(protocolRecordHash(record), RECORD_HASH);
  assert.throws(() => protocolRecord.fromJson({ ...RECORD, expected_env_version: 5 }), /unexpected environment version 5/);
});

test("an injected protocol answers its hash, is listed, readable and announced on /monitor/protocols", async ({ node }) => {
  const monitor = await stream(node, "/monitor/protocols");
  const r = await post(node, "/injection/protocol", RECORD);
  assert.is(r.status, 200, r.text);
  assert.is(r.json, RECORD_HASH);
  assert.is(await monitor.next(), RECORD_HASH);
  await monitor.cancel();
  assert.equal((await call(node, "/protocols")).json, [GENESIS_PROTOCOL, HANGZHOU, RECORD_HASH]);
  assert.equal((await call(node, `/protocols/${RECORD_HASH}`)).json, RECORD);
  assert.is((await call(node, `/protocols/${RECORD_HASH}/environment`)).json, 3);
  assert.equal((await call(node, `/fetch_protocol/${RECORD_HASH}`)).json, {});
  // The binary answer is the record's binary form (behind the media's 4-byte length), as hashed.
  const bin = await node.fetch(new Request(`http://localhost/protocols/${RECORD_HASH}`, { headers: { accept: "application/octet-stream" } }));
  assert.is(toHex(new Uint8Array(await bin.arrayBuffer())), "00000041" + RECORD_HEX);
});

test("injecting a known protocol again fails as Octez, unless async", async ({ node }) => {
  assert.is((await post(node, "/injection/protocol", RECORD)).json, RECORD_HASH);
  const again = await post(node, "/injection/protocol", RECORD);
  assert.is(again.status, 500);
  assert.equal(again.json, [{ kind: "temporary", id: "failure", msg: `Previously registered protocol (${RECORD_HASH.slice(0, 12)})` }]);
  const quiet = await post(node, "/injection/protocol?async", RECORD);
  assert.is(quiet.status, 200);
  assert.is(quiet.json, RECORD_HASH);
  assert.is((await call(node, "/protocols")).json.length, 3);
});

test("what /injection/protocol refuses: an embedded protocol's own sources, an oversized record, an unknown environment, a malformed record", async ({ node }) => {
  const hangzhou = (await call(node, `/protocols/${HANGZHOU}`)).json as Json;
  const own = await post(node, "/injection/protocol", hangzhou);
  assert.is(own.status, 500);
  assert.equal(own.json, [{ kind: "temporary", id: "failure", msg: `Previously registered protocol (${HANGZHOU.slice(0, 12)})` }]);
  // 2 MiB of binary form at most (Octez's protocol_max_size): 19 bytes of layout and name around the implementation
  const big = (n: number) => ({ expected_env_version: 3, components: [{ name: "Main", implementation: "x".repeat(n) }] });
  const over = await post(node, "/injection/protocol", big(2 * 1024 * 1024 - 18));
  assert.is(over.status, 500);
  assert.equal(over.json, [{ kind: "temporary", id: "failure", msg: "Oversized protocol: 2097153 bytes, at most 2097152" }]);
  const fits = await post(node, "/injection/protocol", big(2 * 1024 * 1024 - 19));
  assert.is(fits.status, 200, fits.text);
  const env = await post(node, "/injection/protocol", { ...(RECORD as object), expected_env_version: 7 });
  assert.is(env.status, 400);
  assert.match(env.text, /unexpected environment version 7/);
  const malformed = await post(node, "/injection/protocol", { expected_env_version: 3, components: [{ name: "Main" }] });
  assert.is(malformed.status, 400);
  // only the one that fits was stored
  assert.equal((await call(node, "/protocols")).json, [GENESIS_PROTOCOL, HANGZHOU, fits.json]);
});

test("the early layout's /inject_protocol injects too", async ({ node }) => {
  const r = await post(node, "/inject_protocol", RECORD);
  assert.is(r.json, RECORD_HASH);
});

test("a malformed record is a 400: unknown environment, missing implementation, bad JSON", async ({ node }) => {
  for (const body of [
    JSON.stringify({ ...RECORD, expected_env_version: 7 }),
    JSON.stringify({ expected_env_version: 0, components: [{ name: "Main" }] }),
    "{",
  ]) {
    const r = await call(node, "/injection/protocol", { method: "POST", headers: { "content-type": "application/json" }, body });
    assert.is(r.status, 400, body);
  }
  assert.is((await call(node, "/protocols")).json.length, 2);
});

test("embedded protocols serve Octez v12.4's sources: Hangzhou's hash to PtHangz2…, genesis's under its vanity hash", async ({ node }) => {
  const r = await call(node, `/protocols/${HANGZHOU}`);
  assert.is(r.status, 200);
  const record = protocolRecord.fromJson(r.json as Json);
  assert.is(record.expected_env_version, 3);
  assert.is(record.components.length, 97);
  assert.equal(record.components.slice(0, 3).map((c) => c.name), ["Misc", "Path_encoding", "Storage_description"]);
  assert.ok(record.components.at(-1)!.implementation.length > 0);
  // Octez's rule, on what was served: BLAKE2b-256 of the record's binary encoding
  assert.is(b58encode(B58.protocolHash, blake2b256(encodeBinary(protocolRecord, record))), HANGZHOU);
  // the binary answer is the same record
  const bin = await node.fetch(new Request(`http://localhost/protocols/${HANGZHOU}`, { headers: { accept: "application/octet-stream" } }));
  const bytes = new Uint8Array(await bin.arrayBuffer());
  assert.is(b58encode(B58.protocolHash, blake2b256(bytes.subarray(4))), HANGZHOU);
  const genesis = protocolRecord.fromJson((await call(node, `/protocols/${GENESIS_PROTOCOL}`)).json as Json);
  assert.equal(genesis.components.map((c) => c.name), ["Data", "Services", "Main"]);
  assert.is(genesis.expected_env_version, 0);
  assert.is(protocolRecordHash(genesis), "PrrUA9dCzbqBzugjQyw65HLHKjhH3HMFSLLHLZjj5rkmkG13Fej", "a vanity hash: not the hash of its sources");
  assert.is((await call(node, `/protocols/${HANGZHOU}/environment`)).json, 3);
  assert.is((await call(node, `/protocols/${GENESIS_PROTOCOL}/environment`)).json, 0);
  assert.equal((await call(node, `/fetch_protocol/${HANGZHOU}`)).json, {});
});

test("an unknown protocol is 404, and fetching it fails with the requester's timeout", async ({ node }) => {
  assert.is((await call(node, `/protocols/${UNKNOWN}`)).status, 404);
  assert.is((await call(node, `/protocols/${UNKNOWN}/environment`)).status, 404);
  assert.is((await call(node, `/protocols/PtNotAHash`)).status, 400);
  const r = await call(node, `/fetch_protocol/${UNKNOWN}`);
  assert.is(r.status, 500);
  assert.equal(r.json, [{ kind: "permanent", id: "requester.Protocol_hash.fetch_timeout", key: UNKNOWN }]);
});

test("a block activating an injected protocol is refused with validator.unavailable_protocol", async ({ node }) => {
  const hash = (await post(node, "/injection/protocol", RECORD)).json as string;
  const genesis = (await call(node, "/chains/main/blocks/genesis/header")).json;
  const chainId = (await call(node, "/chains/main/chain_id")).json as string;
  const shellHeader = {
    level: 1,
    proto: 1,
    predecessor: genesis.hash as string,
    timestamp: Date.parse(genesis.timestamp) / 1000 + 1,
    validation_pass: 0,
    operations_hash: operationsHashOf([]),
    fitness: activationFitness(1),
    context: genesis.context as string,
  };
  const signed = await forgeActivation({ chainId, shellHeader, protocol: hash, parameters: {}, secretKey: SANDBOX_ACTIVATOR_KEY });
  const r = await post(node, "/injection/block", { data: toHex(signed.header), operations: [] });
  assert.is(r.status, 500, r.text);
  assert.equal(r.json, [{ kind: "temporary", id: "validator.unavailable_protocol", block: b58encode(B58.blockHash, blake2b256(signed.header)), missing_protocol: hash }]);
  assert.is((await call(node, "/chains/main/blocks/head/header")).json.level, 0);
});

test.run();
