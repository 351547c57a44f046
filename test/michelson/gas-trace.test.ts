/**
 * Hangzhou cost functions against the gas recorded in Octez's traced run_code outputs
 * (tests_011 regression outputs): the drop of remaining gas between two trace lines is the cost
 * of the instruction logged by the second one (plus, for a block's end, its `IHalt`), as the
 * traced interpreter charges it.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as I from "../../lib/michelson/gas/interpreter.ts";
import * as S from "../../lib/michelson/gas/script.ts";
import * as U from "../../lib/michelson/gas/unparsing.ts";
import { parseMilligas } from "../../lib/michelson/gas/arith.ts";
import { readAccess } from "../../lib/michelson/gas/storage.ts";
import { MList, type Value } from "../../lib/michelson/value.ts";
import { ty, type Ty } from "../../lib/michelson/ty.ts";

const REF = new URL("../vectors/michelson/", import.meta.url);
const cases = (JSON.parse(readFileSync(new URL("cases.json", REF), "utf8")) as {
  cases: { file?: string; storage?: string; input?: string; regtest_output_key?: string }[];
}).cases;
const outputs = (JSON.parse(readFileSync(new URL("regtest-outputs.json", REF), "utf8")) as {
  outputs: Record<string, { output: string }>;
}).outputs;

interface Step {
  readonly loc: number;
  readonly gas: number;
  readonly stack: string;
}

/** The trace of the run of `file` with this storage and input: location, remaining milligas, stack text (whitespace-normalized). */
function traceOf(file: string, storage: string, input: string): Step[] {
  const norm = (t: string | undefined) => (t ?? "").replace(/\s+/g, " ");
  const c = cases.find((x) =>
    x.file === file && norm(x.storage) === norm(storage) && norm(x.input) === norm(input) &&
    x.regtest_output_key !== undefined && x.regtest_output_key in outputs
  );
  if (c === undefined) throw new Error(`no traced case for ${file} ${storage} ${input}`);
  const text = outputs[c.regtest_output_key as string].output;
  const steps: Step[] = [];
  const re = /- location: (\d+) \(remaining gas: ([0-9.]+) units remaining\)\n([\s\S]*?)(?=\n  - location|\n\n|$)/g;
  for (const m of text.matchAll(re)) {
    steps.push({ loc: Number(m[1]), gas: parseMilligas(m[2]), stack: m[3].replace(/\s+/g, " ").trim() });
  }
  if (steps.length === 0) throw new Error(`no trace for ${file}`);
  return steps;
}

/**
 * The cost of the `nth` (0-based) trace line at `loc` in a run, checking the stacks around it
 * start as given (so the values fed to the cost function are the ones the run saw).
 */
function recorded(run: Step[], loc: number, nth: number, before: string, after: string): number {
  let seen = 0;
  for (let i = 1; i < run.length; i++) {
    if (run[i].loc !== loc) continue;
    if (seen++ < nth) continue;
    assert.ok(run[i - 1].stack.startsWith(before), `stack before ${loc}: ${run[i - 1].stack}`);
    assert.ok(run[i].stack.startsWith(after), `stack after ${loc}: ${run[i].stack}`);
    return run[i - 1].gas - run[i].gas;
  }
  throw new Error(`no trace line ${nth} at ${loc}`);
}

const nat = ty("nat");
const int = ty("int");

test("stack instructions cost what cons.tz's trace records (UNPAIR, CONS, NIL, PAIR)", () => {
  const run = traceOf("opcodes/cons.tz", "{}", "10");
  assert.is(recorded(run, 8, 0, "[ (Pair 10 {}) ]", "[ 10 @parameter {} @storage ]"), I.unpair);
  assert.is(recorded(run, 9, 0, "[ 10 @parameter {} @storage ]", "[ { 10 } ]"), I.consList);
  assert.is(recorded(run, 10, 0, "[ { 10 } ]", "[ {} { 10 } ]"), I.nil);
  assert.is(recorded(run, 12, 0, "[ {} { 10 } ]", "[ (Pair {} { 10 }) ]"), I.consPair);
});

test("ADD of small ints, DUP, SWAP, PUSH and DIP cost what list_map_block.tz records", () => {
  const run = traceOf("opcodes/list_map_block.tz", "{0}", "{ 1 ; 1 ; 1 ; 1 }");
  // ADD 1 + 0 at 19 (body of DIP), then DIP's own cost and its end (IHalt + KUndip).
  assert.is(recorded(run, 19, 0, "[ 1 @parameter.elt 0", "[ 1 0"), I.addIntint(1n, 0n));
  assert.is(recorded(run, 16, 0, "[ 1 @parameter.elt 0", "[ 0 ]"), I.dip);
  assert.is(recorded(run, 16, 1, "[ 0 0 ]", "[ 1 @parameter.elt 0 0 ]"), I.halt + I.control.undip);
  assert.is(recorded(run, 22, 0, "[ 0 ]", "[ 1 0 ]"), I.const_);
  assert.is(recorded(run, 18, 0, "[ 0 ]", "[ 0 0 ]"), I.dup);
});

test("DIG, DUG, DROP n, UNPAIR n, PAIR n follow the size models", () => {
  const pairs = "(Pair (Pair (Pair (Pair 1 2) 3) 4) 5)";
  assert.is(recorded(traceOf("opcodes/dign.tz", "0", pairs), 20, 0, "[ 1 2 3 4 5 ]", "[ 5 1 2 3 4 ]"), I.dign(4));
  assert.is(recorded(traceOf("opcodes/dugn.tz", "0", pairs), 20, 0, "[ 1 2 3 4 5 ]", "[ 2 3 4 5 1 ]"), I.dugn(4));
  assert.is(recorded(traceOf("opcodes/dropn.tz", "0", pairs), 20, 0, "[ 1 2 3 4 5 ]", "[ 5 ]"), I.dropn(4));
  assert.is(recorded(traceOf("opcodes/dipn.tz", "0", pairs), 20, 0, "[ 1 2 3 4 5 ]", "[ ]"), I.dipn(5));
  // DIP 5's end: the body's IHalt, then one PUSH-like constant per restored element.
  assert.is(recorded(traceOf("opcodes/dipn.tz", "0", pairs), 20, 1, "[ 6 ]", "[ 5 6 ]"), I.halt + I.const_);
  assert.is(recorded(traceOf("opcodes/uncomb.tz", "0", "(Pair 1 4 2)"), 11, 0, "[ (Pair 1 4 2) @parameter ]", "[ 1 4 2 ]"), I.uncomb(3));
  assert.is(recorded(traceOf("opcodes/comb.tz", "(Pair 0 0 0)", "Unit"), 22, 0, "[ {} 1 2 3 ]", "[ (Pair {} 1 2 3) ]"), I.comb(4));
});

test("MUL of nats follows the n log n model (uncomb.tz: 100 × 1, 10 × 4)", () => {
  const run = traceOf("opcodes/uncomb.tz", "0", "(Pair 1 4 2)");
  assert.is(recorded(run, 16, 0, "[ 100 1 4 2 ]", "[ 100 4 2 ]"), I.mulNatnat(100n, 1n));
  assert.is(recorded(run, 21, 0, "[ 10 4 100 2 ]", "[ 40 100 2 ]"), I.mulNatnat(10n, 4n));
  assert.is(recorded(run, 22, 0, "[ 40 100 2 ]", "[ 140 2 ]"), I.addNatnat(40n, 100n));
});

test("MEM on a map charges 80 + log2(size) × COMPARE of the key with itself", () => {
  const run = traceOf("opcodes/map_mem_nat.tz", "(Pair { Elt 0 1 } None)", "1");
  const map = { size: 1 };
  assert.is(recorded(run, 17, 0, "[ 1 @parameter { Elt 0 1 } { Elt 0 1 } ]", "[ False"), I.mapMem(nat, 1n, map));
  assert.is(I.mapMem(nat, 1n, map), 150);
});

test("MEM on a big map adds the key's unparsing, packing and hashing to the overlay lookup", () => {
  // nat key 1: one Int node, binary 00 01 (2 bytes), packed 05 00 01.
  const natRun = traceOf("opcodes/big_map_mem_nat.tz", "(Pair { Elt 0 1 } None)", "1");
  const natCost = I.bigMapMem({ size: 1 }) + U.unparseDataCycle + S.packNodeCost(1, 2) + I.blake2b(new Uint8Array(3));
  assert.is(recorded(natRun, 17, 0, "[ 1 @parameter { Elt 0 1 }", "[ False"), natCost);
  // string key "bar": binary 01 00000003 626172 (8 bytes), packed 9 bytes.
  const strRun = traceOf("opcodes/big_map_mem_string.tz", '(Pair { Elt "foo" 1 } None)', '"bar"');
  const strCost = I.bigMapMem({ size: 1 }) + U.unparseDataCycle + S.packNodeCost(1, 8) + I.blake2b(new Uint8Array(9));
  assert.is(recorded(strRun, 17, 0, '[ "bar" @parameter', "[ False"), strCost);
});

test("traced ITER charges neither the instruction nor KIter, only each body's IHalt", () => {
  const run = traceOf("opcodes/reverse.tz", "{\"\"}", '{ "c" ; "b" ; "a" }');
  assert.is(recorded(run, 13, 0, '[ { "c" ; "b" ; "a" } @parameter {} ]', '[ "c" @parameter.elt {} ]'), 0);
  assert.is(recorded(run, 15, 0, '[ "c" @parameter.elt {} ]', '[ { "c" } ]'), I.consList);
  assert.is(recorded(run, 13, 1, '[ { "c" } ]', '[ "b" @parameter.elt { "c" } ]'), I.halt);
  assert.is(recorded(run, 13, 3, '[ { "a" ; "b" ; "c" } ]', '[ { "a" ; "b" ; "c" } ]'), I.halt);
});

test("traced EXEC charges the lambda's IHalt and KReturn only", () => {
  const run = traceOf("opcodes/exec_concat.tz", '"?"', '""');
  assert.is(recorded(run, 23, 0, '[ "_abc" ]', '[ "_abc" ]'), I.halt + I.control.return);
  assert.is(recorded(run, 8, 0, '[ "" @parameter ]', "[ { PUSH string"), I.lambda);
});

test("CONCAT of a list of strings charges the precheck then the copy", () => {
  const run = traceOf("opcodes/list_concat.tz", '"abc"', "{}");
  const list = MList.of(["abc"]);
  assert.is(recorded(run, 11, 0, '[ { "abc" } ]', '[ "abc" ]'), I.concatStringPrecheck(list) + I.concatString(3));
});

test("COMPARE costs follow the type: int, nat, string, bytes, mutez, bool, key_hash, timestamp, address", () => {
  const run = traceOf("opcodes/packunpack_rev.tz", "Unit", '(Pair -1 (Pair 1 (Pair "foobar" (Pair 0x00AABBCC (Pair 1000 (Pair False (Pair "tz1cxcwwnzENRdhe2Kb8ZdTrdNy4bFNyScx5" (Pair "2019-09-09T08:35:33Z" "tz1cxcwwnzENRdhe2Kb8ZdTrdNy4bFNyScx5"))))))))');
  const cmp = (loc: number, t: Ty, a: Value, b: Value, before: string) => assert.is(recorded(run, loc, 0, before, "[ 0"), I.compare(t, a, b), `COMPARE at ${loc}`);
  cmp(34, int, -1n, -1n, "[ -1 @packed.unpacked.some -1");
  cmp(59, nat, 1n, 1n, "[ 1 @packed.unpacked.some 1");
  cmp(84, ty("string"), "foobar", "foobar", '[ "foobar" @packed.unpacked.some "foobar"');
  cmp(109, ty("bytes"), new Uint8Array(4), new Uint8Array(4), "[ 0x00aabbcc @packed.unpacked.some 0x00aabbcc");
  cmp(134, ty("mutez"), 1000n, 1000n, "[ 1000 @packed.unpacked.some 1000");
  cmp(159, ty("bool"), false, false, "[ False @packed.unpacked.some False");
  cmp(184, ty("key_hash"), "tz1cxcwwnzENRdhe2Kb8ZdTrdNy4bFNyScx5", "tz1cxcwwnzENRdhe2Kb8ZdTrdNy4bFNyScx5", '[ "tz1cxcwwnzENRdhe2Kb8ZdTrdNy4bFNyScx5"');
  cmp(209, ty("timestamp"), 1568018133n, 1568018133n, '[ "2019-09-09T08:35:33Z"');
  const addr = { address: "tz1cxcwwnzENRdhe2Kb8ZdTrdNy4bFNyScx5", entrypoint: "" };
  cmp(230, ty("address"), addr, addr, '[ "tz1cxcwwnzENRdhe2Kb8ZdTrdNy4bFNyScx5"');
});

test("hashing and crypto instructions follow their byte-length models", () => {
  const k = traceOf("opcodes/keccak.tz", "None", "0x48656c6c6f2c20776f726c6421");
  assert.is(recorded(k, 9, 0, "[ 0x48656c6c6f2c20776f726c6421", "[ 0x"), I.keccak(new Uint8Array(13)));
  const s = traceOf("opcodes/sha3.tz", "None", "0x48656c6c6f2c20776f726c6421");
  assert.is(recorded(s, 9, 0, "[ 0x48656c6c6f2c20776f726c6421", "[ 0x"), I.sha3(new Uint8Array(13)));
});

test("context reads: BALANCE is a 4-step path read of 8 bytes, TOTAL_VOTING_POWER a 2-step read of 4 bytes plus 300", () => {
  const b = traceOf("opcodes/balance.tz", "111", "Unit");
  assert.is(recorded(b, 8, 0, "[ ]", "[ 4000000000000 @balance ]"), I.balance + readAccess(4, 8));
});

test("context reads of VOTING_POWER and TOTAL_VOTING_POWER add a storage read to the instruction", () => {
  const run = traceOf("opcodes/voting_power.tz", "(Pair 0 0)", '"edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav"');
  assert.is(recorded(run, 10, 0, '[ "edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav"', '[ "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx" ]'), I.hashKey());
  assert.is(recorded(run, 11, 0, '[ "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx" ]', "[ 500 ]"), I.votingPower + readAccess(4, 4));
  assert.is(recorded(run, 14, 0, "[ ]", "[ 2500 ]"), I.totalVotingPower + readAccess(2, 4));
});

test("PACK of a string is one unparsed node, its strip and two serializations", () => {
  const run = traceOf("opcodes/hash_string.tz", "0x00", '"abcdefg"');
  // binary of "abcdefg": 01 00000007 61..67 = 12 bytes; packed: 13 bytes.
  assert.is(recorded(run, 8, 0, '[ "abcdefg" @parameter ]', "[ 0x05010000000761626364656667"), I.pack + U.unparseDataCycle + S.packNodeCost(1, 12));
  assert.is(recorded(run, 9, 0, "[ 0x05010000000761626364656667", "[ 0x46fdbcb4"), I.blake2b(new Uint8Array(13)));
});

test("EDIV of mutez, SUB of timestamps, MUL fr by nat, CONCAT of bytes match their records", () => {
  const e = traceOf("opcodes/ediv_mutez.tz", "(Left None)", "(Pair 10 (Left 10))");
  assert.is(recorded(e, 25, 0, "[ 10 10 ]", "[ (Some (Pair 1 0)) ]"), I.edivTez);
  assert.is(recorded(e, 22, 0, "[ (Left 10) 10 ]", "[ 10 10 ]"), I.ifLeft);
  assert.is(recorded(e, 22, 1, "[ (Left (Some (Pair 1 0))) ]", "[ (Left (Some (Pair 1 0))) ]"), I.halt);
  const t = traceOf("opcodes/sub_timestamp_delta.tz", "111", "(Pair 100 100)");
  assert.is(recorded(t, 15, 0, '[ "1970-01-01T00:01:40Z" 100 ]', '[ "1970-01-01T00:00:00Z" ]'), I.subTimestampSeconds(100n, 100n));
  const f = traceOf("opcodes/bls12_381_fr_z_nat.tz", "0x0100000000000000000000000000000000000000000000000000000000000000", "0");
  assert.is(recorded(f, 8, 0, "[ 0 @parameter", "[ 0x00000000"), I.mulBls12381FrZ(0n));
  const c = traceOf("opcodes/concat_hello_bytes.tz", "{}", "{ 0xcd }");
  assert.is(recorded(c, 15, 0, "[ 0xff 0xcd @parameter.elt ]", "[ 0xffcd ]"), I.concatBytesPair(new Uint8Array([0xff]), new Uint8Array([0xcd])));
  // traced MAP: the instruction and KList_enter_body are free; the body's IHalt remains.
  assert.is(recorded(c, 10, 0, "[ { 0xcd } @parameter ]", "[ 0xcd @parameter.elt ]"), 0);
  assert.is(recorded(c, 10, 1, "[ 0xffcd ]", "[ { 0xffcd } ]"), I.halt);
});

test("traced LSL is not charged (Octez's logger runs it outside the charging step)", () => {
  const run = traceOf("opcodes/shifts.tz", "None", "(Left (Pair 8 1))");
  assert.is(recorded(run, 18, 0, "[ 8 1 ]", "[ 16 ]"), 0);
  assert.is(I.lslNat(8n), 35);
});

test.run();
