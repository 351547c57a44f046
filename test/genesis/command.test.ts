/**
 * The genesis protocol's block header data, against a real level-1 activation block of an
 * Octez sandbox (tezedge's test resource, see `vectors/`) and the genesis shapes of
 * hangzhou-openapi.json (`/header/protocol_data`).
 */
import { readFileSync } from "node:fs";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { throwsA } from "./throws.ts";
import { blockHash } from "../../lib/crypto/hashes.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { DecodeError, decodeBinary, encodeBinary, type Json } from "../../lib/encoding/codec.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { blockHeader, command, GENESIS_PROTOCOL, protocolData, type Command } from "../../lib/protocols/genesis/mod.ts";

const test = suite("genesis command");

const vector = JSON.parse(readFileSync(new URL("./vectors/tezedge-sandbox-block-level1.json", import.meta.url), "utf8"));
const openapi = JSON.parse(readFileSync(new URL("../vectors/octez/hangzhou-openapi.json", import.meta.url), "utf8"));
const header = fromHex(vector.header_hex);

test("a real activation block header decodes to Octez's JSON field names", () => {
  const h = decodeBinary(blockHeader, header);
  const json = blockHeader.toJson(h) as { [k: string]: Json };
  assert.equal(Object.keys(json), [
    "level", "proto", "predecessor", "timestamp", "validation_pass", "operations_hash", "fitness", "context", "content", "signature",
  ]);
  for (const [k, v] of Object.entries(vector.shell_header)) assert.equal(json[k], v as Json, k);
  const content = json["content"] as { [k: string]: Json };
  assert.equal(Object.keys(content), ["command", "hash", "fitness", "protocol_parameters"]);
  assert.is(content["command"], "activate");
  assert.is(content["hash"], "PsCARTHAGazKbHtnKfLzQg3kms52kSRpgnDY982a9oYsSXRLQEb");
  assert.equal(content["fitness"], ["00", "0000000000000001"]);
  assert.is((content["protocol_parameters"] as string).slice(0, 16), "0000056d6d050000");
  assert.match(json["signature"] as string, /^sig[1-9A-Za-z]{93}$/);
});

test("the decoded header encodes back to the same bytes and hashes to its block hash", () => {
  const h = decodeBinary(blockHeader, header);
  assert.is(toHex(encodeBinary(blockHeader, h)), vector.header_hex);
  assert.is(toHex(encodeBinary(blockHeader, blockHeader.fromJson(blockHeader.toJson(h)))), vector.header_hex);
  // The block's hash as tezedge's test data gives it (BLOCK_HEADER_HASH_LEVEL_1); its level-2
  // operations name this block as their branch.
  assert.is(toHex(blockHash(header)), "cf764612821498403dd6bd71e2fcbde9ad2c50670113dadc15ec52d167c66b31");
  assert.is(b58encode(B58.blockHash, blockHash(header)), "BMHeg41nrycUtki947NTgD8pawcpndVpAPa5udqcG6Yf9oxzNm4");
});

test("the protocol data is the command then the 64-byte signature, with no length before the parameters", () => {
  const data = header.subarray(131);
  const pd = decodeBinary(protocolData, data);
  const cmd = encodeBinary(command, pd.content);
  assert.is(cmd.length, data.length - 64);
  assert.is(cmd[0], 0x00);
  // tag, protocol hash, fitness (4 + 5 + 12), then the parameters' own 4-byte length.
  assert.is(toHex(cmd.subarray(33, 54)), "00000011" + "0000000100" + "000000080000000000000001");
  assert.is(toHex(cmd.subarray(54, 58)), "0000056d");
  assert.is(pd.content.protocol_parameters.length, cmd.length - 54);
});

const testchain: Command = {
  command: "activate_testchain",
  hash: "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx",
  fitness: [Uint8Array.of(0), fromHex("0000000000000001")],
  protocol_parameters: fromHex("0000000a0a000000010000000000"),
  validity_time: 86400n,
};

test("activate_testchain is tag 1 and ends with its validity as an int64", () => {
  const bytes = encodeBinary(command, testchain);
  assert.is(bytes[0], 0x01);
  assert.is(toHex(bytes.subarray(bytes.length - 8)), "0000000000015180");
  assert.is(toHex(bytes.subarray(bytes.length - 8 - 14, bytes.length - 8)), "0000000a0a000000010000000000");
  assert.equal(decodeBinary(command, bytes), testchain);
  assert.equal(command.toJson(testchain), {
    command: "activate_testchain",
    hash: "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx",
    fitness: ["00", "0000000000000001"],
    protocol_parameters: "0000000a0a000000010000000000",
    validity_time: "86400",
  });
  assert.equal(command.fromJson(command.toJson(testchain)), testchain);
});

test("a signed activate_testchain keeps its validity before the signature", () => {
  const signed = { content: testchain, signature: "sigNSBub1tJBoYvGFqHLBZWM25ZkzXHqoV8hTk2benx3aupEsQqH66ZvfpyAqmnAe56mscHKFMZYZTEwCUwgWa6RTXm1PY62" };
  const back = decodeBinary(protocolData, encodeBinary(protocolData, signed));
  assert.equal(back, signed);
});

/** OpenAPI spells references `#/components/schemas/x`; ours are `#/definitions/x`. */
function normalize(x: Json): Json {
  if (Array.isArray(x)) return x.map(normalize);
  if (x === null || typeof x !== "object") return x;
  const o: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(x)) {
    if (k === "additionalProperties" || k === "definitions" || k === "$schema") continue;
    if (k === "$ref" && typeof v === "string") o[k] = v.replace("#/components/schemas/", "#/definitions/");
    else if (k === "required" && Array.isArray(v)) o[k] = [...(v as string[])].sort();
    else o[k] = normalize(v);
  }
  return o;
}

test("the JSON schema of the signed command matches Octez's /header/protocol_data for genesis blocks", () => {
  const theirs = openapi.paths["/header/protocol_data"].get.responses["200"].content["application/json"].schema;
  assert.equal(theirs.properties.protocol.enum, [GENESIS_PROTOCOL]);
  const ours = normalize(protocolData.jsonSchema()) as { properties: { [k: string]: Json }; required: string[] };
  assert.equal(ours.properties["content"], normalize(theirs.properties.content));
  assert.equal(ours.properties["signature"], normalize(theirs.properties.signature));
  assert.equal(ours.required, ["content", "signature"]);
});

test("JSON input with an unknown command or a bad field is refused with a DecodeError", () => {
  const json = command.toJson(testchain) as { [k: string]: Json };
  throwsA(() => command.fromJson({ ...json, command: "deactivate" }), DecodeError, /Unknown command/);
  throwsA(() => command.fromJson({ ...json, protocol_parameters: "0g" }), DecodeError);
  throwsA(() => command.fromJson({ ...json, hash: "PtHangz2" }), DecodeError);
  throwsA(() => command.fromJson({ ...json, validity_time: 1.5 }), DecodeError);
});

test("binary input with an unknown tag or too few bytes is refused with a DecodeError", () => {
  throwsA(() => decodeBinary(command, Uint8Array.of(2)), DecodeError, /Unknown tag 2/);
  throwsA(() => decodeBinary(command, Uint8Array.of(0, 1, 2)), DecodeError);
  throwsA(() => decodeBinary(protocolData, header.subarray(131, 131 + 60)), DecodeError);
});

test("writing a command of the wrong shape is a TypeError", () => {
  throwsA(() => encodeBinary(command, { ...testchain, command: "other" } as unknown as Command), TypeError);
  throwsA(() => encodeBinary(command, { ...testchain, validity_time: 1 } as unknown as Command), TypeError);
});

test.run();
