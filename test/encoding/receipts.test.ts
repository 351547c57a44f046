/**
 * Hangzhou receipts against outside data: the Hangzhou-era receipts of Taquito's example bodies
 * (run_operation, simulate_operation, preapply), the Carthage mainnet block 1064978 (its metadata
 * and operations with receipts, adapted where Hangzhou differs), the error objects of the Octez
 * Hangzhou sandbox mempool capture, and the BSON example of bsonspec.org.
 */
import { decodeBson, encodeBson } from "../../lib/encoding/bson.ts";
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { B58, b58encode, DecodeError, decodeBinary, encodeBinary, toHex, type Encoding, type Json } from "../../lib/encoding/mod.ts";
import {
  balanceUpdates,
  bigMapDiff,
  blockOperationData,
  contractId,
  internalOperationResult,
  lazyStorageDiff,
  toLegacyBigMapDiff,
  blockMetadataFor,
  blockOperationFor,
  consumedGas,
  contentsResult,
  errorTrace,
  hangzhouBlockMetadata,
  operation,
  operationMetadata,
  operationResults,
  operationWithMetadata,
  type ErrorTrace,
  type OperationContentsAndResult,
} from "../../lib/encoding/hangzhou/mod.ts";
import { operationHash } from "../../lib/crypto/hashes.ts";

const shared = (p: string) => new URL(`../vectors/${p}`, import.meta.url);
const bodies = JSON.parse(readFileSync(shared("taquito/taquito-example-bodies.json"), "utf8")) as {
  url: string;
  mock_response: Json;
}[];
const carthage = JSON.parse(readFileSync(shared("octez/examples/mainnet-carthage-block-1064978.json"), "utf8"));
const mempool = JSON.parse(readFileSync(shared("octez/examples/hangzhou-sandbox-mempool.json"), "utf8"));

/** JSON as Octez re-prints it: int64 "-0" is 0 (Taquito's stand-in printed "-0", Octez never does). */
function octezJson(j: Json): Json {
  if (Array.isArray(j)) return j.map(octezJson);
  if (j === "-0") return "0";
  if (j === null || typeof j !== "object") return j;
  return Object.fromEntries(Object.entries(j).map(([k, v]) => [k, octezJson(v)]));
}

/** The same JSON without `signature` fields (binary decoding gives generic `sig…` signatures). */
function withoutSignatures(j: Json): Json {
  if (Array.isArray(j)) return j.map(withoutSignatures);
  if (j === null || typeof j !== "object") return j;
  return Object.fromEntries(Object.entries(j).filter(([k]) => k !== "signature").map(([k, v]) => [k, withoutSignatures(v)]));
}

/** Decodes, re-encodes to the same JSON, and round-trips through binary (same bytes, same JSON). */
function roundTrip<T>(codec: Encoding<T>, json: Json): T {
  const value = codec.fromJson(json);
  assert.equal(codec.toJson(value), octezJson(json));
  const bytes = encodeBinary(codec, value);
  const back = decodeBinary(codec, bytes);
  assert.is(toHex(encodeBinary(codec, back)), toHex(bytes));
  assert.equal(withoutSignatures(codec.toJson(back)), withoutSignatures(octezJson(json)));
  return value;
}

const operationsWithReceipts: { url: string; op: Json }[] = bodies.flatMap((b) => {
  const r = b.mock_response;
  const ops = Array.isArray(r) ? r : r !== null && typeof r === "object" && "contents" in r ? [r] : [];
  return ops.map((op) => ({ url: b.url, op }));
});

test("Taquito's bodies hold six operations with receipts (run, simulate, preapply)", () => {
  assert.is(operationsWithReceipts.length, 6);
  assert.ok(operationsWithReceipts.some((o) => o.url.endsWith("/preapply/operations")));
  assert.ok(operationsWithReceipts.some((o) => o.url.endsWith("/scripts/run_operation")));
});

for (const [i, { url, op }] of operationsWithReceipts.entries()) {
  test(`the receipt of ${url.split("/").slice(-2).join("/")} #${i} round-trips through JSON and binary`, () => {
    const v = roundTrip(operationWithMetadata, op);
    assert.ok(v.contents.every((c) => "metadata" in c));
  });
}

test("a decoded reveal receipt carries its fee updates and gas as values", () => {
  const v = operationWithMetadata.fromJson(operationsWithReceipts[0]!.op);
  const reveal = v.contents[0] as OperationContentsAndResult & { kind: "reveal" };
  assert.is(reveal.kind, "reveal");
  assert.equal(reveal.metadata.balance_updates, [
    { kind: "contract", contract: "tz1VSUr8wwNhLAzempoch5d6hLRiTh8Cjcjb", change: -374n, origin: "block" },
    { kind: "freezer", category: "fees", delegate: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", cycle: 0, change: 374n, origin: "block" },
  ]);
  assert.equal(reveal.metadata.operation_result, { status: "applied", consumed_gas: 1000n, consumed_milligas: 1000000n });
  assert.equal(reveal.metadata.internal_operation_results, []);
});

test("an origination receipt gives the originated contract where Taquito reads it", () => {
  const preapply = bodies.find((b) => b.url.endsWith("/preapply/operations") && JSON.stringify(b.mock_response).includes("origination"))!;
  const v = operationWithMetadata.fromJson((preapply.mock_response as Json[])[0]!);
  const orig = v.contents[1] as OperationContentsAndResult & { kind: "origination" };
  const r = orig.metadata.operation_result;
  assert.is(r.status, "applied");
  if (r.status !== "applied") return;
  assert.equal(r.originated_contracts, ["KT1J8Ty5yK6M8zMoze59xk7zYvgJVcc5CkDs"]);
  assert.is(r.storage_size, 100n);
  assert.equal(r.big_map_diff, []);
  assert.equal(r.lazy_storage_diff, []);
});

// --- Carthage mainnet block 1064978 -------------------------------------------------------

const CARTHAGE = "PsCARTHAGazKbHtnKfLzQg3kms52kSRpgnDY982a9oYsSXRLQEb";

/** Carthage balance updates had no `origin`; Hangzhou's have one (`block` for these). */
function addOrigin(j: Json): Json {
  if (Array.isArray(j)) return j.map(addOrigin);
  if (j === null || typeof j !== "object") return j;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(j)) {
    out[k] = k === "balance_updates" && Array.isArray(v) ? v.map((u) => ({ ...(u as object), origin: "block" })) : addOrigin(v);
  }
  return out;
}

function dropOrigin(j: Json): Json {
  if (Array.isArray(j)) return j.map(dropOrigin);
  if (j === null || typeof j !== "object") return j;
  return Object.fromEntries(Object.entries(j).filter(([k]) => k !== "origin").map(([k, v]) => [k, dropOrigin(v)]));
}

const carthageOperations: Json[] = (carthage.operations as Json[][]).flat();

test("the Carthage block has 27 operations with receipts", () => {
  assert.is(carthageOperations.length, 27);
});

test("every Carthage operation with its receipt (origins added) round-trips through JSON and binary", () => {
  const codec = blockOperationFor(CARTHAGE);
  for (const op of carthageOperations) {
    const adapted = addOrigin(op);
    const v = roundTrip(codec, adapted);
    assert.equal(dropOrigin(codec.toJson(v)), op);
  }
});

test("the contents decoded with their receipts hash to each Carthage operation's hash", () => {
  const codec = blockOperationFor(CARTHAGE);
  for (const op of carthageOperations) {
    const v = codec.fromJson(addOrigin(op));
    const contents = v.contents.map((c) => {
      const { metadata: _m, ...rest } = c as OperationContentsAndResult;
      return rest;
    });
    const bytes = encodeBinary(operation, { branch: v.branch, contents: contents as never, signature: v.signature });
    assert.is(b58encode(B58.operationHash, operationHash(bytes)), v.hash);
  }
});

test("Carthage receipts decode to the right results: endorsement slots, transaction storage, delegation gas", () => {
  const codec = blockOperationFor(CARTHAGE);
  const [endorsement] = codec.fromJson(addOrigin(carthageOperations[0]!)).contents as OperationContentsAndResult[];
  assert.is(endorsement!.kind, "endorsement");
  if (endorsement!.kind === "endorsement") {
    assert.equal(endorsement.metadata.slots, [26]);
    assert.is(endorsement.metadata.delegate, "tz1RCFbB9GpALpsZtu6J58sb74dm8qe6XBzv");
    assert.is(endorsement.metadata.balance_updates[1]!.kind, "freezer");
  }
  const managers = carthageOperations.slice(23).map((o) => (codec.fromJson(addOrigin(o)).contents as OperationContentsAndResult[])[0]!);
  const tx = managers[1]!;
  assert.is(tx.kind, "transaction");
  if (tx.kind === "transaction" && tx.metadata.operation_result.status === "applied") {
    assert.equal(tx.metadata.operation_result.storage, { bytes: "002e130ee23658766386fa47d81ca5f727129f2c72" });
    assert.is(tx.metadata.operation_result.consumed_gas, 15285n);
    assert.is(tx.metadata.operation_result.storage_size, 232n);
    assert.is(tx.metadata.operation_result.allocated_destination_contract, false);
  } else assert.unreachable("an applied transaction");
  const delegation = managers[3]!;
  assert.is(delegation.kind, "delegation");
  if (delegation.kind === "delegation") assert.equal(delegation.metadata.operation_result, { status: "applied", consumed_gas: 10000n, consumed_milligas: 0n });
});

/** Carthage block metadata in Hangzhou's shape: `level`/`voting_period_kind` become `level_info`/`voting_period_info`. */
function hangzhouShaped(m: { [k: string]: Json }): { [k: string]: Json } {
  const { level, voting_period_kind, ...rest } = m as { level: { [k: string]: number | boolean }; voting_period_kind: string };
  const position = level["voting_period_position"] as number;
  return addOrigin({
    ...rest,
    level_info: {
      level: level["level"]!,
      level_position: level["level_position"]!,
      cycle: level["cycle"]!,
      cycle_position: level["cycle_position"]!,
      expected_commitment: level["expected_commitment"]!,
    },
    voting_period_info: {
      voting_period: { index: level["voting_period"]!, kind: voting_period_kind, start_position: (level["level_position"] as number) - position },
      position,
      remaining: 32768 - 1 - position,
    },
    liquidity_baking_escape_ema: 0,
    implicit_operations_results: [],
  }) as { [k: string]: Json };
}

test("the Carthage block metadata in Hangzhou's shape round-trips; its shell part and balance updates are the original's", () => {
  const adapted = hangzhouShaped(carthage.metadata);
  const codec = blockMetadataFor(CARTHAGE, CARTHAGE);
  const v = roundTrip(codec, adapted);
  assert.is(v.protocol, CARTHAGE);
  assert.equal(v.test_chain_status, { status: "not_running" });
  assert.equal(v.max_operation_list_length, [{ max_size: 32768, max_op: 32 }, { max_size: 32768 }, { max_size: 135168, max_op: 132 }, { max_size: 524288 }]);
  assert.is(v.nonce_hash, null);
  assert.is(v.baker, "tz1Vc9XAD7iphycJoRwE1Nxx5krB9C7XyBu5");
  const out = codec.toJson(v) as { [k: string]: Json };
  for (const k of ["protocol", "next_protocol", "test_chain_status", "max_operations_ttl", "max_operation_data_length", "max_block_header_length", "max_operation_list_length", "baker", "nonce_hash", "consumed_gas", "deactivated"]) {
    assert.equal(out[k], carthage.metadata[k], k);
  }
  assert.equal(dropOrigin(out["balance_updates"]!), carthage.metadata.balance_updates);
  // The protocol hashes are constants: not in the bytes.
  const bytes = encodeBinary(codec, v);
  assert.equal(encodeBinary(blockMetadataFor("PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx", "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx"), { ...v }), bytes);
});

test("block metadata refuses another protocol than the one it is built for", () => {
  const adapted = hangzhouShaped(carthage.metadata);
  assert.throws(() => blockMetadataFor("PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx", CARTHAGE).fromJson(adapted), (e: unknown) => e instanceof DecodeError && /protocol/.test(e.message));
});

test("the protocol part of block metadata lays nonce_hash out as an option and consumed_gas as milligas N", () => {
  const adapted = hangzhouShaped(carthage.metadata);
  const v = hangzhouBlockMetadata.fromJson(adapted);
  const hex = toHex(encodeBinary(hangzhouBlockMetadata, v));
  // baker (21 bytes: tag + 20), level_info (4 * 4 + 1), voting_period_info (4 + 1 + 4, 4, 4), then
  // nonce_hash None (00) and consumed_gas 45492 as Zarith N
  assert.is(hex.slice(0, 2), "00");
  const afterVoting = 2 * (21 + 17 + 17);
  assert.is(hex.slice(afterVoting, afterVoting + 2), "00");
  assert.is(hex.slice(afterVoting + 2, afterVoting + 8), "b4e302"); // 45492 in Zarith N
});

// --- errors ----------------------------------------------------------------------------------

const sandboxErrors: ErrorTrace[] = [];
(function collect(j: Json): void {
  if (Array.isArray(j)) j.forEach(collect);
  else if (j !== null && typeof j === "object") {
    for (const [k, v] of Object.entries(j)) {
      if (k === "error" && Array.isArray(v)) sandboxErrors.push(v);
      collect(v);
    }
  }
})(mempool);

test("the Hangzhou sandbox's error traces round-trip inside a failed and a backtracked result", () => {
  assert.ok(sandboxErrors.length >= 6);
  for (const errors of sandboxErrors) {
    roundTrip(operationResults.transaction, { status: "failed", errors });
    roundTrip(operationResults.reveal, { status: "backtracked", errors, consumed_gas: "1000", consumed_milligas: "1000000" });
    assert.equal(decodeBinary(errorTrace, encodeBinary(errorTrace, errors)), errors);
  }
});

test("an error is written in binary as BSON behind a 4-byte length", () => {
  const err = sandboxErrors.find((e) => (e[0] as { id: string }).id.endsWith("fees_too_low"))![0]!;
  const hex = toHex(encodeBinary(errorTrace, [err]));
  const doc = toHex(encodeBson(err));
  const docLen = doc.length / 2;
  assert.is(hex, (docLen + 4).toString(16).padStart(8, "0") + docLen.toString(16).padStart(8, "0") + doc);
  // {kind: "permanent", ...}: little-endian size, then 0x02 "kind" 0x00, int32 10, "permanent" 0x00
  assert.is(doc.slice(8, 8 + 2 + 10 + 8 + 20), "026b696e64000a0000007065726d616e656e7400");
});

test("BSON encoding matches the bsonspec.org example and Octez's number and scalar conventions", () => {
  assert.is(toHex(encodeBson({ hello: "world" })), "160000000268656c6c6f0006000000776f726c640000");
  // numbers are doubles (Octez's JSON numbers are floats), arrays are documents keyed 0, 1, …
  assert.is(toHex(encodeBson({ a: [1] })), "1800000004610010000000013000000000000000f03f0000");
  // a top-level string is a one-value document with the immediate tag 0x82
  assert.is(toHex(encodeBson("x")), "0c0000008202000000780000");
  assert.equal(decodeBson(encodeBson({ a: [1, "b", null, true, { c: -2.5 }] })), { a: [1, "b", null, true, { c: -2.5 }] });
  assert.is(decodeBson(encodeBson(null)), null);
  assert.throws(() => decodeBson(Uint8Array.of(5, 0, 0, 0, 1)), (e: unknown) => e instanceof DecodeError);
});

// --- receipts of an operation, bad input ---------------------------------------------------

test("an operation receipt is the array of contents results, or {} for none", () => {
  const meta = operationWithMetadata.fromJson(operationsWithReceipts[0]!.op);
  const results = meta.contents.map((c) => ({ kind: c.kind, ...(c as OperationContentsAndResult).metadata }));
  const json = operationMetadata.toJson(results as never);
  assert.ok(Array.isArray(json));
  assert.equal((json as Json[])[0], contentsResult.toJson(results[0] as never));
  assert.equal(decodeBinary(operationMetadata, encodeBinary(operationMetadata, results as never)), results);
  assert.equal(operationMetadata.toJson(null), {});
  assert.is(operationMetadata.fromJson({}), null);
  assert.is(toHex(encodeBinary(operationMetadata, null)), "01");
  assert.throws(() => operationMetadata.fromJson({ contents: [] }), (e: unknown) => e instanceof DecodeError);
});

test("empty or ill-formed batches of receipts are refused as Octez refuses them", () => {
  assert.throws(() => operationWithMetadata.fromJson({ contents: [] }), (e: unknown) => e instanceof DecodeError && /empty/.test(e.message));
  const endorsement = addOrigin(carthageOperations[0]!) as { contents: Json[] };
  assert.throws(
    () => operationWithMetadata.fromJson({ contents: [endorsement.contents[0]!, endorsement.contents[0]!] }),
    (e: unknown) => e instanceof DecodeError && /ill-formed/.test(e.message),
  );
  assert.throws(() => encodeBinary(operationWithMetadata, { contents: [] }), (e: unknown) => e instanceof TypeError);
});

test("unknown statuses, kinds and origins are refused with a path", () => {
  assert.throws(() => operationResults.delegation.fromJson({ status: "done" }), (e: unknown) => e instanceof DecodeError && /status/.test(e.message));
  assert.throws(
    () => balanceUpdates.fromJson([{ kind: "contract", contract: "tz1VSUr8wwNhLAzempoch5d6hLRiTh8Cjcjb", change: "1" }]),
    (e: unknown) => e instanceof DecodeError && /origin/.test(e.message),
  );
  assert.throws(
    () => balanceUpdates.fromJson([{ kind: "freezer", category: "deposit", delegate: "tz1VSUr8wwNhLAzempoch5d6hLRiTh8Cjcjb", cycle: 1, change: "1", origin: "block" }]),
    (e: unknown) => e instanceof DecodeError,
  );
  assert.throws(() => decodeBinary(balanceUpdates, Uint8Array.of(0, 0, 0, 1, 9)), (e: unknown) => e instanceof DecodeError && /Unknown tag 9/.test(e.message));
});

test("an internal transaction result is laid out as tag, source, nonce, the operation, then its result", () => {
  const json = {
    kind: "transaction",
    source: "KT1J8Ty5yK6M8zMoze59xk7zYvgJVcc5CkDs",
    nonce: 3,
    amount: "10",
    destination: "tz1VSUr8wwNhLAzempoch5d6hLRiTh8Cjcjb",
    result: { status: "skipped" },
  };
  const v = roundTrip(internalOperationResult, json);
  const hex = toHex(encodeBinary(internalOperationResult, v));
  const kt1 = toHex(encodeBinary(contractId, json.source));
  const tz1 = toHex(encodeBinary(contractId, json.destination));
  // tag 1, source, nonce 3, amount 10 (N), destination, no parameters, result tag 2 (skipped)
  assert.is(hex, "01" + kt1 + "0003" + "0a" + tz1 + "00" + "02");
});

test("a lazy storage diff converts to the legacy big_map_diff as Octez derives it", () => {
  const key = (s: string) => ({ key_hash: "exprtZBwZUeYYYfUs9B9Rg2ywHezVHnCCnmF9WsDQVrs582dSK63dC", key: { string: s } });
  const diff = lazyStorageDiff.fromJson([
    { kind: "big_map", id: "7", diff: { action: "alloc", updates: [{ ...key("a"), value: { int: "1" } }, key("b")], key_type: { prim: "string" }, value_type: { prim: "nat" } } },
    { kind: "big_map", id: "-1", diff: { action: "copy", source: "7", updates: [] } },
    { kind: "big_map", id: "5", diff: { action: "remove" } },
    { kind: "sapling_state", id: "2", diff: { action: "alloc", updates: { commitments_and_ciphertexts: [], nullifiers: [] }, memo_size: 8 } },
  ]);
  assert.equal(bigMapDiff.toJson(toLegacyBigMapDiff(diff)), [
    { action: "alloc", big_map: "7", key_type: { prim: "string" }, value_type: { prim: "nat" } },
    { action: "update", big_map: "7", ...key("b") },
    { action: "update", big_map: "7", ...key("a"), value: { int: "1" } },
    { action: "copy", source_big_map: "7", destination_big_map: "-1" },
    { action: "remove", big_map: "5" },
  ]);
  assert.equal(decodeBinary(lazyStorageDiff, encodeBinary(lazyStorageDiff, diff)), diff);
});

test("an operation of a block with too large a receipt prints metadata \"too large\" and keeps its own tag", () => {
  const op = addOrigin(carthageOperations[26]!) as { [k: string]: Json; contents: { [k: string]: Json }[] };
  const plain = { ...op, contents: op.contents.map(({ metadata: _m, ...c }) => c) };
  const tooLarge = { ...plain, metadata: "too large" };
  const codec = blockOperationFor(CARTHAGE);
  const v = roundTrip(codec, tooLarge);
  assert.is(v.metadata, "too large");
  roundTrip(codec, plain);
  const tag = (j: Json) => toHex(encodeBinary(blockOperationData, blockOperationData.fromJson(j))).slice(0, 2);
  assert.equal([tag(tooLarge), tag(plain), tag(op)], ["00", "01", "02"]);
});

test("consumedGas gives the rounded-up gas beside the milligas", () => {
  assert.equal(consumedGas(1427000n), { consumed_gas: 1427n, consumed_milligas: 1427000n });
  assert.equal(consumedGas(1n), { consumed_gas: 1n, consumed_milligas: 1n });
  assert.equal(consumedGas(0n), { consumed_gas: 0n, consumed_milligas: 0n });
  assert.throws(() => consumedGas(-1n), (e: unknown) => e instanceof RangeError);
});

test.run();
