/**
 * P2P messages and distributed DB messages against bytes built by hand from Octez v12's
 * encodings (`src/lib_p2p/p2p_message.ml`, `src/lib_shell/distributed_db_message.ml`,
 * `src/lib_base/{block_locator,mempool,operation,protocol}.ml`, `src/lib_crypto/blake2B.ml`'s
 * Merkle path), field by field, with the genesis shell header of Octez's `binary_rpc` capture as
 * the block header (test/vectors/octez/SOURCES.md).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { rawBlockHeader } from "../../lib/encoding/block-header.ts";
import { DecodeError, decodeBinary, encodeBinary } from "../../lib/encoding/codec.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import {
  decodeMessage,
  encodeMessage,
  MESSAGE_MAX_SIZE,
  messageBodyLimit,
  operationListPath,
  p2pMessage,
  type OperationListPath,
  type P2pMessage,
} from "../../lib/p2p/encoding/mod.ts";

const capture = JSON.parse(readFileSync(new URL("../vectors/octez/examples/shell-header-genesis-json-and-binary.json", import.meta.url), "utf8")) as {
  exchanges: { output_text?: string }[];
};
/** Genesis's shell header, 114 bytes: level, proto, predecessor, timestamp, validation_pass, operations_hash, fitness, context. */
const GENESIS_SHELL = capture.exchanges.find((e) => e.output_text !== undefined)!.output_text!;
/** A block header: the shell header, then protocol data up to the end (here 2 bytes). */
const HEADER_HEX = GENESIS_SHELL + "abcd";
const header = decodeBinary(rawBlockHeader, fromHex(HEADER_HEX));

const ascii = (s: string) => toHex(new TextEncoder().encode(s));
const u32 = (n: number) => n.toString(16).padStart(8, "0");
const hexLen = (hex: string) => hex.length / 2;

const CHAIN = "7a06a770"; // NetXdQprcVkpaWU
const GENESIS = "8fcf233671b6a04fcf679d2a381c2544ea6c1ea29ba6157776ed8424c7ccd00b"; // BLockGenesis…f79b5d1CoW2
const B55 = "55".repeat(32); // BLMs4Vir5rCVaHBTrQ3RRYXn2WDR78AKd5ArtX6QW3jFA99usR7
const OP11 = "11".repeat(32); // onmjDWrnLtvHqYtdGPSRSdMjCK1KgHi7YJLdKauuNRfkjTA6Voo
const OP22 = "22".repeat(32); // onuFAL9z4rhSSsXfzZQxNajNzPKArY2qbLoy54ZN3517ZnrUqpH
const OP33 = "33".repeat(32); // oo2m79TBnpUb4CAiijPVJY72nTd22nMZePHJpYCphiLUQ6bLuJN
const HANGZHOU = "ce5f061e34b5a21feab8dbdfe755ef17e70c9f565464f067ac5e7c02be830a48"; // PtHangz2…
const LLO44 = "44".repeat(32); // LLoZqmnyYoVVRT78phHwSuUA9CoAvxouZmxZxDASTsZwGrDPk9byE
const PEER = "f566bac7220cfd714c8a2271b2e71556"; // idtqxHUjbjbCfaDn4jczoPGsnhacKX

const ids = {
  chain: "NetXdQprcVkpaWU",
  genesis: "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2",
  b55: "BLMs4Vir5rCVaHBTrQ3RRYXn2WDR78AKd5ArtX6QW3jFA99usR7",
  op11: "onmjDWrnLtvHqYtdGPSRSdMjCK1KgHi7YJLdKauuNRfkjTA6Voo",
  op22: "onuFAL9z4rhSSsXfzZQxNajNzPKArY2qbLoy54ZN3517ZnrUqpH",
  op33: "oo2m79TBnpUb4CAiijPVJY72nTd22nMZePHJpYCphiLUQ6bLuJN",
  hangzhou: "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx",
  llo44: "LLoZqmnyYoVVRT78phHwSuUA9CoAvxouZmxZxDASTsZwGrDPk9byE",
  peer: "idtqxHUjbjbCfaDn4jczoPGsnhacKX",
};

/** The frame: 4-byte size of the body, then the body (uint16 tag ‖ payload). */
function frame(...body: string[]): string {
  const b = body.join("");
  return u32(hexLen(b)) + b;
}

/** Encodes, compares with the hand-built frame, decodes back. */
function check(message: P2pMessage, expected: string): void {
  assert.is(toHex(encodeMessage(message)), expected, message.kind);
  assert.equal(decodeMessage(fromHex(expected)), message, message.kind);
}

const LOCATOR = [
  u32(hexLen(HEADER_HEX)), HEADER_HEX, // current head: 4-byte length then the header
  GENESIS, B55, // history: block hashes up to the end
].join("");
const locator = { current_head: header, history: [ids.genesis, ids.b55] };

const OPERATION = GENESIS + "0102030405"; // branch (32) then the protocol's bytes up to the end
const operation = { branch: ids.genesis, data: fromHex("0102030405") };

// -------------------------------------------------------------------------------------------
// P2P messages

test("Disconnect (0x01) and Bootstrap (0x02): the tag alone", () => {
  check({ kind: "Disconnect" }, "00000002" + "0001");
  check({ kind: "Bootstrap" }, "00000002" + "0002");
});

test("Advertise (0x03): points up to the end, each a length-prefixed text", () => {
  check(
    { kind: "Advertise", points: [{ host: "127.0.0.1", port: 9732 }, { host: "::1", port: 1 }] },
    frame("0003", "0000000e", ascii("127.0.0.1:9732"), "00000007", ascii("[::1]:1")),
  );
  check({ kind: "Advertise", points: [] }, frame("0003"));
});

test("Swap_request (0x04) and Swap_ack (0x05): a point then a 16-byte peer id", () => {
  const p = { host: "2001:db8::1", port: 9732 };
  check({ kind: "Swap_request", point: p, peer_id: ids.peer }, frame("0004", "00000012", ascii("[2001:db8::1]:9732"), PEER));
  check({ kind: "Swap_ack", point: p, peer_id: ids.peer }, frame("0005", "00000012", ascii("[2001:db8::1]:9732"), PEER));
});

test("P2P messages' JSON is Octez's (kind constants)", () => {
  assert.equal(p2pMessage.toJson({ kind: "Advertise", points: [{ host: "1.2.3.4", port: 5 }] }), { id: ["1.2.3.4:5"], kind: "Advertise" });
  assert.equal(p2pMessage.fromJson({ kind: "Bootstrap" }), { kind: "Bootstrap" });
});

// -------------------------------------------------------------------------------------------
// Distributed DB messages

test("Get_current_branch (0x10), Deactivate (0x12), Get_current_head (0x13), Get_checkpoint (0x70): a chain id", () => {
  check({ kind: "Get_current_branch", chain_id: ids.chain }, frame("0010", CHAIN));
  check({ kind: "Deactivate", chain_id: ids.chain }, frame("0012", CHAIN));
  check({ kind: "Get_current_head", chain_id: ids.chain }, frame("0013", CHAIN));
  check({ kind: "Get_checkpoint", chain_id: ids.chain }, frame("0070", CHAIN));
});

test("Current_branch (0x11): chain id then the locator", () => {
  check({ kind: "Current_branch", chain_id: ids.chain, locator }, frame("0011", CHAIN, LOCATOR));
});

test("Current_head (0x14): chain id, length-prefixed header, mempool (known_valid list, pending set in a length prefix)", () => {
  const mempool = [
    u32(64), OP22, OP11, // known_valid: 4-byte length then hashes, in the sender's order
    u32(4 + 64), u32(64), OP11, OP33, // pending: 4-byte length of a list (4-byte length, hashes in byte order)
  ].join("");
  check(
    { kind: "Current_head", chain_id: ids.chain, header, mempool: { known_valid: [ids.op22, ids.op11], pending: [ids.op11, ids.op33] } },
    frame("0014", CHAIN, u32(hexLen(HEADER_HEX)), HEADER_HEX, mempool),
  );
  // pending is a set: written in byte order, without repeats
  const m = encodeMessage({
    kind: "Current_head",
    chain_id: ids.chain,
    header,
    mempool: { known_valid: [], pending: [ids.op33, ids.op11, ids.op33] },
  });
  assert.is(toHex(m), frame("0014", CHAIN, u32(hexLen(HEADER_HEX)), HEADER_HEX, u32(0), u32(4 + 64), u32(64), OP11, OP33));
});

test("Get_block_headers (0x20), Get_operations (0x30), Get_protocols (0x40): length-prefixed hash lists", () => {
  check({ kind: "Get_block_headers", hashes: [ids.genesis, ids.b55] }, frame("0020", u32(64), GENESIS, B55));
  check({ kind: "Get_operations", hashes: [ids.op11] }, frame("0030", u32(32), OP11));
  check({ kind: "Get_protocols", hashes: [ids.hangzhou] }, frame("0040", u32(32), HANGZHOU));
});

test("Block_header (0x21): the header up to the end", () => {
  check({ kind: "Block_header", header }, frame("0021", HEADER_HEX));
});

test("Operation (0x31): branch then data up to the end", () => {
  check({ kind: "Operation", operation }, frame("0031", OPERATION));
});

test("Protocol (0x41): environment version, then components", () => {
  const component = [u32(4), ascii("Main"), "00", u32(9), ascii("let x = 1")].join(""); // name, no interface, implementation
  check(
    { kind: "Protocol", protocol: { expected_env_version: 3, components: [{ name: "Main", implementation: "let x = 1" }] } },
    frame("0041", "0003", u32(hexLen(component)), component),
  );
});

test("Get_operations_for_blocks (0x60): length-prefixed list of (block hash, int8 validation pass)", () => {
  check(
    { kind: "Get_operations_for_blocks", blocks: [{ hash: ids.genesis, validation_pass: 0 }, { hash: ids.b55, validation_pass: 3 }] },
    frame("0060", u32(66), GENESIS, "00", B55, "03"),
  );
});

test("Operations_for_blocks (0x61): block, pass, Merkle path, length-prefixed operations up to the end", () => {
  const path = ["0f", LLO44, "f0", "00", LLO44].join(""); // Right(left, Left(Op, right))
  check(
    {
      kind: "Operations_for_blocks",
      hash: ids.genesis,
      validation_pass: 1,
      path: { kind: "Right", left: ids.llo44, path: { kind: "Left", path: { kind: "Op" }, right: ids.llo44 } },
      operations: [operation, operation],
    },
    frame("0061", GENESIS, "01", path, u32(hexLen(OPERATION)), OPERATION, u32(hexLen(OPERATION)), OPERATION),
  );
  check({ kind: "Operations_for_blocks", hash: ids.genesis, validation_pass: 0, path: { kind: "Op" }, operations: [] }, frame("0061", GENESIS, "00", "00"));
});

test("Checkpoint (0x71): chain id then the header up to the end", () => {
  check({ kind: "Checkpoint", chain_id: ids.chain, header }, frame("0071", CHAIN, HEADER_HEX));
});

test("Get_protocol_branch (0x80) and Protocol_branch (0x81): chain id, uint8 proto level[, locator]", () => {
  check({ kind: "Get_protocol_branch", chain_id: ids.chain, proto_level: 1 }, frame("0080", CHAIN, "01"));
  check({ kind: "Protocol_branch", chain_id: ids.chain, proto_level: 2, locator }, frame("0081", CHAIN, "02", LOCATOR));
});

test("Get_predecessor_header (0x90) and Predecessor_header (0x91): block hash, int32 offset[, header]", () => {
  check({ kind: "Get_predecessor_header", hash: ids.genesis, offset: 12 }, frame("0090", GENESIS, "0000000c"));
  check({ kind: "Predecessor_header", hash: ids.genesis, offset: -1, header }, frame("0091", GENESIS, "ffffffff", HEADER_HEX));
});

test("distributed DB messages' JSON is Octez's", () => {
  assert.equal(p2pMessage.toJson({ kind: "Get_current_head", chain_id: ids.chain }), { get_current_head: ids.chain });
  assert.equal(p2pMessage.toJson({ kind: "Get_predecessor_header", hash: ids.genesis, offset: 1 }), {
    get_predecessor_header: { block: ids.genesis, offset: 1 },
  });
  assert.equal(p2pMessage.fromJson({ get_protocol_branch: { chain: ids.chain, proto_level: 1 } }), {
    kind: "Get_protocol_branch",
    chain_id: ids.chain,
    proto_level: 1,
  });
});

// -------------------------------------------------------------------------------------------
// Bounds and bad input

test("at most 10 hashes per request, both ways", () => {
  const eleven = new Array(11).fill(ids.genesis);
  assert.throws(() => encodeMessage({ kind: "Get_block_headers", hashes: eleven }), (e: unknown) => e instanceof RangeError);
  assert.throws(() => decodeMessage(fromHex(frame("0020", u32(11 * 32), GENESIS.repeat(11)))), (e: unknown) => e instanceof DecodeError);
  assert.throws(() => decodeMessage(fromHex(frame("0060", u32(11 * 33), (GENESIS + "00").repeat(11)))), (e: unknown) => e instanceof DecodeError);
});

test("the Merkle path is bounded to 100 bytes (8 validation passes)", () => {
  let deep: OperationListPath = { kind: "Op" };
  for (let i = 0; i < 3; i++) deep = { kind: "Left", path: deep, right: ids.llo44 };
  assert.is(encodeBinary(operationListPath, deep).length, 100);
  const tooDeep: OperationListPath = { kind: "Left", path: deep, right: ids.llo44 };
  assert.throws(() => encodeBinary(operationListPath, tooDeep));
  assert.throws(() => decodeBinary(operationListPath, fromHex("f0".repeat(4) + "00" + LLO44.repeat(4))), (e: unknown) => e instanceof DecodeError);
});

test("an operation over 128 KiB and a header over 8 MiB are refused", () => {
  const big = { branch: ids.genesis, data: new Uint8Array(128 * 1024 - 32 + 1) };
  assert.throws(() => encodeMessage({ kind: "Operation", operation: big }));
  const ok = { branch: ids.genesis, data: new Uint8Array(128 * 1024 - 32) };
  assert.is(encodeMessage({ kind: "Operation", operation: ok }).length, 4 + 2 + 128 * 1024);
  const bytes = new Uint8Array(4 + 2 + 128 * 1024 + 1);
  new DataView(bytes.buffer).setUint32(0, 2 + 128 * 1024 + 1);
  bytes[5] = 0x31;
  assert.throws(() => decodeMessage(bytes), (e: unknown) => e instanceof DecodeError);
});

test("unknown tags (0x50, 0x51 are not in v12), truncated and trailing bytes are decoding errors", () => {
  for (const tag of ["0000", "0006", "0050", "0051", "ffff"]) {
    assert.throws(() => decodeMessage(fromHex(frame(tag, CHAIN))), (e: unknown) => e instanceof DecodeError, tag);
    assert.is(messageBodyLimit(parseInt(tag, 16)), undefined);
  }
  assert.throws(() => decodeMessage(fromHex(frame("0013", CHAIN.slice(0, 6)))), (e: unknown) => e instanceof DecodeError);
  assert.throws(() => decodeMessage(fromHex(frame("0013", CHAIN, "00"))), (e: unknown) => e instanceof DecodeError);
  assert.throws(() => decodeMessage(fromHex("00000006001300")), (e: unknown) => e instanceof DecodeError);
});

test("the frame: at most 100 MiB in all, the 4-byte size included", () => {
  assert.is(MESSAGE_MAX_SIZE, 100 * 1024 * 1024);
  const over = new Uint8Array(4);
  new DataView(over.buffer).setUint32(0, MESSAGE_MAX_SIZE - 4 + 1);
  assert.throws(() => decodeMessage(over), (e: unknown) => e instanceof DecodeError && /exceeds/.test(e.message));
});

test("each known tag has a body bound at least as large as its largest message", () => {
  assert.is(messageBodyLimit(0x01), 2);
  assert.is(messageBodyLimit(0x13), 6);
  assert.is(messageBodyLimit(0x20), 2 + 4 + 320);
  assert.is(messageBodyLimit(0x21), 2 + 8 * 1024 * 1024);
  assert.is(messageBodyLimit(0x31), 2 + 128 * 1024);
});

test.run();
