import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  blockArg,
  chainArg,
  int32Arg,
  int64Arg,
  intArg,
  parseBlockId,
  printBlockId,
  protocolHashArg,
  uintArg,
  boolArg,
  floatArg,
} from "../../lib/rpc/arg.ts";
import { parseOcamlInt, ocamlQuote } from "../../lib/rpc/ocaml.ts";
import { GENESIS_HASH, HANGZHOU, SANDBOX_CHAIN_ID } from "./fixtures.ts";

const H = GENESIS_HASH;

// Expected values follow Octez v12.4 `Block_services.parse_block`.
const blockCases: [string, unknown][] = [
  ["genesis", { kind: "genesis" }],
  ["genesis+3", { kind: "level", level: 3 }],
  ["head", { kind: "head", offset: 0 }],
  ["head~2", { kind: "head", offset: 2 }],
  ["head-2", { kind: "head", offset: 2 }],
  ["head~0x10", { kind: "head", offset: 16 }],
  ["checkpoint", { kind: "alias", alias: "checkpoint", offset: 0 }],
  ["checkpoint~3", { kind: "alias", alias: "checkpoint", offset: 3 }],
  ["checkpoint+3", { kind: "alias", alias: "checkpoint", offset: -3 }],
  ["savepoint", { kind: "alias", alias: "savepoint", offset: 0 }],
  ["savepoint-1", { kind: "alias", alias: "savepoint", offset: 1 }],
  ["caboose", { kind: "alias", alias: "caboose", offset: 0 }],
  ["caboose+2", { kind: "alias", alias: "caboose", offset: -2 }],
  [H, { kind: "hash", hash: H, offset: 0 }],
  [`${H}~5`, { kind: "hash", hash: H, offset: 5 }],
  [`${H}-5`, { kind: "hash", hash: H, offset: 5 }],
  [`${H}+5`, { kind: "hash", hash: H, offset: -5 }],
  ["12", { kind: "level", level: 12 }],
  ["0", { kind: "genesis" }],
  ["12~2", { kind: "level", level: 10 }],
  ["12-2", { kind: "level", level: 10 }],
  ["12+2", { kind: "level", level: 14 }],
  ["1_000", { kind: "level", level: 1000 }],
  ["0~4", { kind: "genesis" }],
];

for (const [text, expected] of blockCases) {
  test(`parseBlockId reads ${JSON.stringify(text)}`, () => {
    assert.equal(parseBlockId(text), expected);
  });
}

const badBlocks = ["", "head+1", "genesis~1", "head~", "head~1~2", "head~-1", "tail", "-1", "12+", "BLockGenesis", "2147483648", "head~abc", "~3"];
for (const text of badBlocks) {
  test(`parseBlockId rejects ${JSON.stringify(text)} with Octez's message`, () => {
    assert.throws(() => parseBlockId(text), (e: Error) => e.message === `Cannot parse block identifier: ${text}`);
  });
}

test("printBlockId prints what parseBlockId reads", () => {
  for (const t of ["genesis", "head", "head~2", "checkpoint+3", "savepoint~1", H, `${H}+5`, `${H}~5`, "12"]) {
    assert.is(printBlockId(parseBlockId(t)), t);
  }
  assert.is(blockArg.name, "block_id");
});

test("chainArg reads main, test and a Base58Check chain id", () => {
  assert.equal(chainArg.parse("main"), { kind: "main" });
  assert.equal(chainArg.parse("test"), { kind: "test" });
  assert.equal(chainArg.parse(SANDBOX_CHAIN_ID), { kind: "id", id: SANDBOX_CHAIN_ID });
  assert.is(chainArg.print({ kind: "id", id: SANDBOX_CHAIN_ID }), SANDBOX_CHAIN_ID);
  assert.throws(() => chainArg.parse("Main"), /^Cannot parse chain identifier\.$/);
  assert.throws(() => chainArg.parse("NetXdQprcVkpaWV"), /^Cannot parse chain identifier\.$/);
  assert.is(chainArg.name, "chain_id");
});

test("protocolHashArg accepts Hangzhou and words its refusal like Octez", () => {
  assert.is(protocolHashArg.parse(HANGZHOU), HANGZHOU);
  assert.is(protocolHashArg.name, "Protocol_hash");
  assert.is(protocolHashArg.descr, "Protocol_hash (Base58Check-encoded)");
  assert.throws(() => protocolHashArg.parse("Pt"), (e: Error) => e.message === 'failed to decode Base58Check-encoded data (Protocol_hash): "Pt"');
  assert.throws(() => protocolHashArg.parse(GENESIS_HASH), /failed to decode/);
});

test("integer arguments follow OCaml's int_of_string", () => {
  assert.is(intArg.parse("42"), 42);
  assert.is(intArg.parse("-7"), -7);
  assert.is(intArg.parse("0x1F"), 31);
  assert.is(intArg.parse("0b101"), 5);
  assert.is(intArg.parse("0o17"), 15);
  assert.is(intArg.parse("1_000"), 1000);
  assert.throws(() => intArg.parse("_1"), /^Cannot parse integer value$/);
  assert.throws(() => intArg.parse("1.5"), /^Cannot parse integer value$/);
  assert.throws(() => intArg.parse(""), /^Cannot parse integer value$/);
  assert.is(int32Arg.parse("2147483647"), 2147483647);
  assert.throws(() => int32Arg.parse("2147483648"), /^Cannot parse int32 value$/);
  assert.is(int32Arg.parse("0xFFFFFFFF"), -1);
  assert.is(int64Arg.parse("-9223372036854775808"), -9223372036854775808n);
  assert.throws(() => int64Arg.parse("9223372036854775808"), /int64/);
  assert.is(parseOcamlInt("4611686018427387903", 63), 4611686018427387903n);
  assert.is(parseOcamlInt("4611686018427387904", 63), undefined);
  assert.is(uintArg.parse("3"), 3);
  assert.throws(() => uintArg.parse("-3"), /^Cannot parse natural number \(positive number expected\)$/);
  assert.throws(() => uintArg.parse("x"), /^Cannot parse natural number \(number expected\)$/);
});

test("boolean and float arguments follow resto", () => {
  for (const t of ["", "true", "t", "yes", "y", "YES"]) assert.is(boolArg.parse(t), true);
  for (const t of ["false", "f", "no", "n", "No"]) assert.is(boolArg.parse(t), false);
  assert.throws(() => boolArg.parse("1"), /^Cannot parse boolean value$/);
  assert.is(boolArg.print(true), "yes");
  assert.is(floatArg.parse("1.5"), 1.5);
  assert.is(floatArg.parse("1e3"), 1000);
  assert.throws(() => floatArg.parse("abc"), /^Cannot parse float value$/);
});

test("ocamlQuote escapes like OCaml's %S", () => {
  assert.is(ocamlQuote("abc"), '"abc"');
  assert.is(ocamlQuote('a"b\\c\n'), '"a\\"b\\\\c\\n"');
  assert.is(ocamlQuote("é"), '"\\195\\169"');
});

test.run();
