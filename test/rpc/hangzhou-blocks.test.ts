/**
 * Reading blocks with their protocol: the metadata of a Hangzhou block is the shell part (with
 * Hangzhou's limits, HANGZHOU-FACTS §10) followed by the stored Hangzhou part; operations come
 * with their receipts merged into their contents; the genesis and activation blocks have only
 * the shell part, as in Octez. Also the shell's own block services and the early layout paths.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { call, GENESIS_PROTOCOL, HANGZHOU, hangzhouFixture, LEVEL2_METADATA, T1, TRANSACTION, TRANSACTION_METADATA, ZERO_SIG } from "./hangzhou-fixture.ts";

const fx = await hangzhouFixture();
const B2 = "/chains/main/blocks/2";
const GENESIS = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";
const FAKE = "PrihK96nBAFSxVL1GLJTVhu9YnzkMFiBeuJRPA8NwuZVZCE1L6i";

/** Hangzhou's limits for the next block (HANGZHOU-FACTS §10). */
const HANGZHOU_LIMITS = {
  max_operation_data_length: 32768,
  max_block_header_length: 239,
  max_operation_list_length: [{ max_size: 4194304, max_op: 2048 }, { max_size: 32768 }, { max_size: 135168, max_op: 132 }, { max_size: 524288 }],
};

const OPERATION = () => ({
  protocol: HANGZHOU,
  chain_id: "NetXdQprcVkpaWU",
  hash: fx.transaction,
  branch: fx.level1,
  contents: [{ ...TRANSACTION, metadata: TRANSACTION_METADATA }],
  signature: fx.signature,
});

test("a Hangzhou block's metadata: the shell part with Hangzhou's limits, then the stored receipt", async () => {
  const m = await call(fx, `${B2}/metadata`);
  assert.is(m.status, 200);
  assert.equal(m.json, {
    protocol: HANGZHOU,
    next_protocol: HANGZHOU,
    test_chain_status: { status: "not_running" },
    max_operations_ttl: 2,
    ...HANGZHOU_LIMITS,
    ...LEVEL2_METADATA,
  });
  assert.equal(Object.keys(m.json).slice(0, 8), ["protocol", "next_protocol", "test_chain_status", "max_operations_ttl", "max_operation_data_length", "max_block_header_length", "max_operation_list_length", "baker"]);
  assert.equal((await call(fx, `${B2}/metadata/protocol_data`)).json, LEVEL2_METADATA);
  assert.is((await call(fx, `${B2}/metadata/protocol_hash`)).json, HANGZHOU);
  assert.is((await call(fx, `${B2}/metadata/next_protocol_hash`)).json, HANGZHOU);
  assert.is((await call(fx, `${B2}/metadata/max_operations_ttl`)).json, 2);
  assert.is((await call(fx, `${B2}/metadata/max_block_header_length`)).json, 239);
  assert.equal((await call(fx, `${B2}/metadata/operation_list_quota`)).json, HANGZHOU_LIMITS.max_operation_list_length);
  assert.equal((await call(fx, `${B2}/metadata/test_chain_status`)).json, { status: "not_running" });
});

test("the activation block's metadata is the shell part only, with Hangzhou's limits; genesis's with genesis's", async () => {
  const a = (await call(fx, "/chains/main/blocks/1/metadata")).json;
  assert.equal(a, { protocol: GENESIS_PROTOCOL, next_protocol: HANGZHOU, test_chain_status: { status: "not_running" }, max_operations_ttl: 1, ...HANGZHOU_LIMITS });
  assert.equal((await call(fx, "/chains/main/blocks/1/metadata/protocol_data")).json, {});
  const g = (await call(fx, "/chains/main/blocks/genesis/metadata")).json;
  assert.is(g.protocol, FAKE);
  assert.is(g.next_protocol, GENESIS_PROTOCOL);
  assert.equal(g.max_operation_list_length, []);
  assert.is(g.max_operation_data_length, 0);
  assert.equal(Object.keys(g).length, 7);
  assert.is((await call(fx, "/chains/main/blocks/1/metadata_hash")).status, 404);
});

test("operations come with their receipts, per pass and one by one; out of range is 404", async () => {
  assert.equal((await call(fx, `${B2}/operations`)).json, [[], [], [], [OPERATION()]]);
  assert.equal((await call(fx, `${B2}/operations/3`)).json, [OPERATION()]);
  assert.equal((await call(fx, `${B2}/operations/3/0`)).json, OPERATION());
  assert.equal((await call(fx, `${B2}/operations/0`)).json, []);
  for (const p of ["/operations/4", "/operations/3/1", "/operations/-1", "/operation_hashes/5", "/operation_hashes/3/1"]) {
    assert.is((await call(fx, B2 + p)).status, 404, p);
  }
  const bad = await call(fx, `${B2}/operations/x`);
  assert.is(bad.status, 400);
  assert.match(bad.text, /Invalid list offset \(x\)/);
  assert.equal((await call(fx, `${B2}/operation_hashes`)).json, [[], [], [], [fx.transaction]]);
  assert.equal((await call(fx, `${B2}/operation_hashes/3`)).json, [fx.transaction]);
  assert.is((await call(fx, `${B2}/operation_hashes/3/0`)).json, fx.transaction);
});

test("the full block joins header, metadata and operations", async () => {
  const b = (await call(fx, B2)).json;
  assert.equal(Object.keys(b), ["protocol", "chain_id", "hash", "header", "metadata", "operations"]);
  assert.is(b.protocol, HANGZHOU);
  assert.is(b.hash, fx.level2);
  const header = (await call(fx, `${B2}/header`)).json;
  const { protocol: _p, chain_id: _c, hash: _h, ...raw } = header;
  assert.equal(b.header, raw);
  assert.equal(b.header.priority, 0);
  assert.equal(b.metadata, (await call(fx, `${B2}/metadata`)).json);
  assert.equal(b.operations, [[], [], [], [OPERATION()]]);
  // The early layout's /blocks/<id> is the same answer.
  assert.equal((await call(fx, `/blocks/${fx.level2}`)).json, b);
  const g = (await call(fx, "/chains/main/blocks/genesis")).json;
  assert.equal(g.operations, []);
  assert.is(g.protocol, FAKE);
});

test("metadata hashes are BLAKE2b-256 of the stored receipts (environment V1 and later only)", async () => {
  const block = fx.chain.block(fx.level2)!;
  assert.is((await call(fx, `${B2}/metadata_hash`)).json, b58encode(B58.blockMetadataHash, blake2b256(block.info.metadata!)));
  const opHash = b58encode(B58.operationMetadataHash, blake2b256(block.info.operations_metadata![3]![0]!));
  assert.equal((await call(fx, `${B2}/operation_metadata_hashes`)).json, [[], [], [], [opHash]]);
  assert.is((await call(fx, `${B2}/operation_metadata_hashes/3/0`)).json, opHash);
  assert.match((await call(fx, `${B2}/operations_metadata_hash`)).json, /^LLr/);
});

test("shell services: protocols, live blocks, and the early layout's header fields", async () => {
  assert.equal((await call(fx, `${B2}/protocols`)).json, { protocol: HANGZHOU, next_protocol: HANGZHOU });
  assert.equal((await call(fx, "/chains/main/blocks/1/protocols")).json, { protocol: GENESIS_PROTOCOL, next_protocol: HANGZHOU });
  assert.equal((await call(fx, "/chains/main/blocks/genesis/protocols")).json, { protocol: GENESIS_PROTOCOL, next_protocol: GENESIS_PROTOCOL });
  assert.equal(new Set((await call(fx, `${B2}/live_blocks`)).json), new Set([GENESIS, fx.level1, fx.level2]));
  const shell = (await call(fx, `${B2}/header/shell`)).json;
  const fields: [string, string][] = [
    ["level", "level"],
    ["proto_level", "proto"],
    ["predecessor", "predecessor"],
    ["timestamp", "timestamp"],
    ["validation_passes", "validation_pass"],
    ["operations_hash", "operations_hash"],
    ["fitness", "fitness"],
    ["context_hash", "context"],
  ];
  for (const [path, key] of fields) assert.equal((await call(fx, `${B2}/header/shell/${path}`)).json, shell[key], path);
  assert.is((await call(fx, `/blocks/${fx.level2}/timestamp`)).json, new Date((T1 + 1) * 1000).toISOString().replace(".000", ""));
  assert.is((await call(fx, `/blocks/${fx.level2}/level`)).json, 2);
  assert.is((await call(fx, `/blocks/${fx.level2}/proto/context/level`)).json.baker, LEVEL2_METADATA.baker);
  assert.is((await call(fx, `/blocks/${fx.level2}/test_chain`)).json.status, "not_running");
});

test("binary: the operation hashes and the metadata shell part in data-encoding form", async () => {
  const get = async (p: string) =>
    new Uint8Array(await (await fx.fetch(new Request(`http://localhost${p}`, { headers: { accept: "application/octet-stream" } }))).arrayBuffer());
  const ttl = await get(`${B2}/metadata/max_operations_ttl`);
  assert.equal([...ttl], [0, 0, 0, 4, 0, 0, 0, 2]);
  const hashes = await get(`${B2}/operation_hashes/3`);
  assert.equal([...hashes.subarray(0, 8)], [0, 0, 0, 36, 0, 0, 0, 32]);
  const meta = await get(`${B2}/metadata`);
  assert.ok(meta.length > 100);
});

test("Hangzhou's preapply/block builds the next block's shell header on a block", async () => {
  const body = {
    protocol_data: { protocol: HANGZHOU, priority: 0, proof_of_work_nonce: "0000000000000000", liquidity_baking_escape_vote: false, signature: ZERO_SIG },
    operations: [[], [], [], []],
  };
  const r = await call(fx, `/chains/main/blocks/1/helpers/preapply/block?timestamp=${T1 + 5}`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.shell_header.level, 2);
  assert.is(r.json.shell_header.predecessor, fx.level1);
  assert.is(r.json.shell_header.validation_pass, 4);
  assert.equal(r.json.shell_header.fitness, ["01", "0000000000000001"]);
  assert.is(r.json.operations.length, 4);
});

test.run();
