/**
 * Hangzhou's forge and parse helpers below `{B}` against Octez's own vectors (the tezt regression
 * captures of `tezos-codec` for protocol 011) and Taquito's request bodies.
 */
import { readFileSync } from "node:fs";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { B58, b58decode } from "../../lib/encoding/base58.ts";
import { signatureBytes } from "../../lib/encoding/keys.ts";
import { call, hangzhouFixture, type HangzhouFixture } from "./hangzhou-fixture.ts";

type Vector = { encoding: string; json: any; hex: string };
const vectors = (
  JSON.parse(readFileSync(new URL("../vectors/octez/examples/hangzhou-binary-encoding-vectors.json", import.meta.url), "utf8")) as {
    vectors: Vector[];
  }
).vectors;
const bodies = JSON.parse(readFileSync(new URL("../vectors/taquito/taquito-example-bodies.json", import.meta.url), "utf8")) as {
  taquito: string;
  scenario: string;
  url: string;
  request_body: any;
  mock_response: any;
}[];

const of = (encoding: string) => vectors.filter((v) => v.encoding === encoding);
/** The shell header of the vectors' block header: 131 bytes (262 hex digits). */
const SHELL_HEX = 262;

const H = "/chains/main/blocks/head/helpers";
const post = (node: HangzhouFixture, path: string, body: unknown) =>
  call(node, path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const test = suite<{ node: HangzhouFixture }>("forge and parse helpers");
test.before(async (ctx) => {
  ctx.node = await hangzhouFixture();
});

test("forge/operations answers Octez's bytes for every unsigned operation vector", async ({ node }) => {
  const unsigned = of("011-PtHangz2.operation.unsigned");
  assert.ok(unsigned.length >= 13);
  for (const v of unsigned) {
    const r = await post(node, `${H}/forge/operations`, v.json);
    assert.is(r.status, 200, `${v.json.contents[0].kind}: ${r.text}`);
    assert.is(r.json, v.hex, v.json.contents[0].kind);
  }
});

test("forge/operations forges Taquito 11's reveal and transfer batch as its stand-in answered", async ({ node }) => {
  const forge = bodies.find((b) => b.taquito === "v11" && b.url.endsWith("/helpers/forge/operations"))!;
  const r = await post(node, `${H}/forge/operations`, forge.request_body);
  assert.is(r.status, 200, r.text);
  assert.is(r.json, forge.mock_response);
});

test("forge/operations refuses an empty contents list and a batch with a non-manager operation (400)", async ({ node }) => {
  const branch = "BKpbfCvh777DQHnXjU2sqHvVUNZ7dBAdqEfKkdw8EGSkD9LSYXb";
  const empty = await post(node, `${H}/forge/operations`, { branch, contents: [] });
  assert.is(empty.status, 400);
  assert.match(empty.text, "Operation lists should not be empty.");
  const endorsement = { kind: "endorsement", level: 1 };
  const transfer = of("011-PtHangz2.operation.unsigned").find((v) => v.json.contents[0].kind === "transaction")!.json.contents[0];
  const mixed = await post(node, `${H}/forge/operations`, { branch, contents: [endorsement, transfer] });
  assert.is(mixed.status, 400);
  assert.match(mixed.text, "should only contains manager operations");
  const bad = await call(node, `${H}/forge/operations`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
  assert.is(bad.status, 400);
});

test("parse/operations reads every signed operation vector back to Octez's JSON", async ({ node }) => {
  const signed = of("011-PtHangz2.operation");
  assert.ok(signed.length >= 13);
  const operations = signed.map((v) => ({ branch: v.json.branch, data: v.hex.slice(64) }));
  const r = await post(node, `${H}/parse/operations`, { operations, check_signature: false });
  assert.is(r.status, 200, r.text);
  assert.equal(
    r.json,
    signed.map((v) => v.json),
  );
});

test("parse/operations reads the raw operation vector, given with or without check_signature", async ({ node }) => {
  const raw = of("011-PtHangz2.operation.raw")[0]!;
  const endorsement = of("011-PtHangz2.operation").find((v) => v.json.contents[0].kind === "endorsement")!;
  for (const body of [{ operations: [raw.json] }, { operations: [raw.json], check_signature: true }]) {
    const r = await post(node, `${H}/parse/operations`, body);
    assert.is(r.status, 200, r.text);
    assert.equal(r.json, [endorsement.json]);
  }
});

function taquitoInjection(version: string, scenario: string) {
  const injected = bodies.find((b) => b.taquito === version && b.scenario === scenario && b.url === "/injection/operation")!.request_body as string;
  const preapply = bodies.find((b) => b.taquito === version && b.scenario === scenario && b.url.endsWith("/helpers/preapply/operations"))!.request_body[0];
  return { injected, preapply };
}

for (const [version, scenario] of [
  ["v11", "transfer"],
  ["v25", "transfer"],
  ["v25", "originate"],
] as const) {
  test(`parse/operations reads Taquito ${version}'s injected ${scenario} as the operation it preapplied`, async ({ node }) => {
    const { injected, preapply } = taquitoInjection(version, scenario);
    const branch = injected.slice(0, 64);
    assert.equal(b58decode(B58.blockHash, preapply.branch), Uint8Array.from(branch.match(/../g)!.map((h) => parseInt(h, 16))));
    const r = await post(node, `${H}/parse/operations`, { operations: [{ branch: preapply.branch, data: injected.slice(64) }] });
    assert.is(r.status, 200, r.text);
    const [op] = r.json;
    assert.is(op.branch, preapply.branch);
    assert.equal(op.contents, preapply.contents);
    // Octez prints a signature read from bytes in its generic form (sig…): the same 64 bytes.
    assert.ok(op.signature.startsWith("sig"));
    assert.equal(signatureBytes(op.signature), signatureBytes(preapply.signature));
  });
}

test("parse/operations answers operation.cannot_parse for bytes Hangzhou cannot read", async ({ node }) => {
  const branch = "BKpbfCvh777DQHnXjU2sqHvVUNZ7dBAdqEfKkdw8EGSkD9LSYXb";
  for (const data of ["ff00", "", "6b00"]) {
    const r = await post(node, `${H}/parse/operations`, { operations: [{ branch, data }] });
    assert.is(r.status, 500, data);
    assert.equal(r.json, [{ kind: "branch", id: "proto.011-PtHangz2.operation.cannot_parse" }]);
  }
});

test("forge/protocol_data answers the unsigned protocol data of Octez's header vector", async ({ node }) => {
  const unsigned = of("011-PtHangz2.block_header.unsigned")[0]!;
  const { priority, seed_nonce_hash, proof_of_work_nonce, liquidity_baking_escape_vote } = unsigned.json;
  const r = await post(node, `${H}/forge/protocol_data`, { priority, nonce_hash: seed_nonce_hash, proof_of_work_nonce, liquidity_baking_escape_vote });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json, { protocol_data: unsigned.hex.slice(SHELL_HEX) });
});

test("forge/protocol_data fills in a zero proof-of-work nonce, no nonce hash and a false escape vote", async ({ node }) => {
  const r = await post(node, `${H}/forge/protocol_data`, { priority: 1 });
  assert.equal(r.json, { protocol_data: "0001" + "0000000000000000" + "00" + "00" });
  const bad = await post(node, `${H}/forge/protocol_data`, { priority: 65536 });
  assert.is(bad.status, 400);
});

test("forge_block_header and forge/block_header answer the raw header vector's bytes", async ({ node }) => {
  const raw = of("011-PtHangz2.block_header.raw")[0]!;
  for (const path of [`${H}/forge_block_header`, `${H}/forge/block_header`, "/forge_block_header"]) {
    const r = await post(node, path, raw.json);
    assert.is(r.status, 200, `${path}: ${r.text}`);
    assert.equal(r.json, { block: raw.hex }, path);
  }
});

/** The shell part of the raw header vector with the protocol data of the full header vector. */
function headerToParse() {
  const raw = of("011-PtHangz2.block_header.raw")[0]!;
  const full = of("011-PtHangz2.block_header")[0]!;
  return { ...raw.json, protocol_data: full.hex.slice(SHELL_HEX) };
}

test("parse/block answers the protocol data of the header vector", async ({ node }) => {
  const full = of("011-PtHangz2.block_header")[0]!.json;
  const r = await post(node, `${H}/parse/block`, headerToParse());
  assert.is(r.status, 200, r.text);
  assert.equal(r.json, {
    priority: full.priority,
    proof_of_work_nonce: full.proof_of_work_nonce,
    seed_nonce_hash: full.seed_nonce_hash,
    liquidity_baking_escape_vote: full.liquidity_baking_escape_vote,
    signature: full.signature,
  });
});

test("parse/block answers Octez's failure for protocol data that does not parse", async ({ node }) => {
  // The raw header vector's protocol data is opaque test data one byte short of Hangzhou's (no escape vote).
  const raw = of("011-PtHangz2.block_header.raw")[0]!;
  for (const protocol_data of [raw.json.protocol_data, "0000"]) {
    const r = await post(node, `${H}/parse/block`, { ...raw.json, protocol_data });
    assert.is(r.status, 500);
    assert.equal(r.json, [{ kind: "temporary", id: "failure", msg: "Cant_parse_protocol_data" }]);
  }
});

test("the early layout's proto/helpers paths reach forge and parse", async ({ node }) => {
  const v = of("011-PtHangz2.operation.unsigned")[0]!;
  const r = await post(node, "/blocks/head/proto/helpers/forge/operations", v.json);
  assert.is(r.json, v.hex);
  const p = await post(node, "/blocks/head/proto/helpers/parse/block", headerToParse());
  assert.is(p.json.priority, 21021);
});

test.run();
