/**
 * Every Hangzhou encoding vector captured from Octez v12.4's tezt regression suite
 * (`tezos-codec encode/decode`) must decode from hex to the same JSON and encode back to the hex.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeBinary, encodeBinary, fromHex, toHex, type Codec, type Json } from "../../lib/encoding/mod.ts";
import * as hz from "../../lib/encoding/hangzhou/mod.ts";

const file = new URL("../vectors/octez/examples/hangzhou-binary-encoding-vectors.json", import.meta.url);
const { vectors } = JSON.parse(readFileSync(file, "utf8")) as { vectors: { encoding: string; json: Json; hex: string }[] };

const codecs: Record<string, Codec<any>> = {
  "011-PtHangz2.block_header": hz.blockHeader,
  "011-PtHangz2.block_header.raw": hz.rawHeader,
  "011-PtHangz2.block_header.unsigned": hz.unsignedBlockHeader,
  "011-PtHangz2.contract.big_map_diff": hz.bigMapDiff,
  "011-PtHangz2.contract": hz.contractId,
  "011-PtHangz2.cycle": hz.cycle,
  "011-PtHangz2.delegate.frozen_balance": hz.frozenBalance,
  "011-PtHangz2.delegate.frozen_balance_by_cycles": hz.frozenBalanceByCycles,
  "011-PtHangz2.fitness": hz.fitnessCodec,
  "011-PtHangz2.gas.cost": hz.gasCost,
  "011-PtHangz2.gas": hz.gas,
  "011-PtHangz2.level": hz.level,
  "011-PtHangz2.nonce": hz.nonce,
  "011-PtHangz2.operation.internal": hz.internalOperation,
  "011-PtHangz2.operation": hz.operation,
  "011-PtHangz2.operation.raw": hz.rawHangzhouOperation,
  "011-PtHangz2.operation.unsigned": hz.unsignedOperation,
  "011-PtHangz2.period": hz.period,
  "011-PtHangz2.raw_level": hz.rawLevel,
  "011-PtHangz2.roll": hz.roll,
  "011-PtHangz2.seed": hz.seed,
  "011-PtHangz2.tez": hz.tez,
  "011-PtHangz2.timestamp": hz.timestamp,
  "011-PtHangz2.vote.ballot": hz.ballot,
  "011-PtHangz2.vote.ballots": hz.ballots,
  "011-PtHangz2.vote.listings": hz.listings,
  "011-PtHangz2.voting_period.kind": hz.votingPeriodKind,
  "011-PtHangz2.voting_period": hz.votingPeriod,
};

test("the vector file holds the 77 vectors of Octez v12.4", () => {
  assert.is(vectors.length, 77);
});

test("every vector's encoding name maps to a codec", () => {
  const unmapped = [...new Set(vectors.map((v) => v.encoding))].filter((e) => codecs[e] === undefined);
  assert.equal(unmapped, []);
});

vectors.forEach((v, i) => {
  const label = `${v.encoding} #${i} (${typeof v.json === "object" && v.json !== null && !Array.isArray(v.json) ? Object.keys(v.json).slice(0, 3).join(",") : JSON.stringify(v.json).slice(0, 30)})`;
  test(`${label} decodes from hex to the captured JSON`, () => {
    const codec = codecs[v.encoding]!;
    const value = decodeBinary(codec, fromHex(v.hex));
    assert.equal(codec.toJson(value), v.json);
  });
  test(`${label} encodes from the captured JSON to the hex`, () => {
    const codec = codecs[v.encoding]!;
    assert.is(toHex(encodeBinary(codec, codec.fromJson(v.json))), v.hex);
  });
});

test.run();
