/** Constants print exactly as Octez's `GET /context/constants`, and the sandbox parameters file reads and writes back unchanged. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DecodeError, decodeBinary, encodeBinary, type Json } from "../../lib/encoding/codec.ts";
import { TezosError } from "../../lib/errors/mod.ts";
import {
  allConstants,
  bootstrapAccount,
  checkConstants,
  constants,
  FIXED_CONSTANTS,
  parametricConstants,
  parseProtocolParameters,
  protocolParameters,
  SANDBOX_CONSTANTS,
} from "../../lib/protocols/hangzhou/constants.ts";
import { BOOTSTRAP, captured, example } from "./sandbox.ts";

const parametersFile = example("011-hangzhou-protocol-parameters.json") as { [k: string]: Json };
const capturedConstants = captured("/chains/main/blocks/head/context/constants");

function clone<T extends Json>(j: T): { [k: string]: Json } {
  return JSON.parse(JSON.stringify(j)) as { [k: string]: Json };
}

test("the sandbox constants print byte for byte as the captured /context/constants", () => {
  assert.is(JSON.stringify(constants.toJson(allConstants(SANDBOX_CONSTANTS))), JSON.stringify(capturedConstants));
});

test("the captured constants decode to the sandbox values and back, in JSON and binary", () => {
  const c = constants.fromJson(capturedConstants);
  assert.equal(c, allConstants(SANDBOX_CONSTANTS));
  assert.equal(decodeBinary(constants, encodeBinary(constants, c)), c);
  assert.equal(decodeBinary(parametricConstants, encodeBinary(parametricConstants, SANDBOX_CONSTANTS)), { ...SANDBOX_CONSTANTS });
  assert.is(FIXED_CONSTANTS.max_operation_data_length, 32768);
});

test("the sandbox parameters file parses to the bootstrap accounts, commitments and sandbox constants", () => {
  const p = parseProtocolParameters(parametersFile);
  assert.equal(p.constants, { ...SANDBOX_CONSTANTS });
  assert.equal(
    p.bootstrap_accounts.map((a) => [a.public_key, a.public_key_hash, a.amount]),
    BOOTSTRAP.map((b) => [b.pk, b.pkh, 4_000_000_000_000n]),
  );
  assert.is(p.commitments.length, 10);
  assert.equal(p.commitments[0], { blinded_public_key_hash: "btz1bRL4X5BWo2Fj4EsBdUwexXqgTf75uf1qa", amount: 23932454669343n });
  assert.equal(p.bootstrap_contracts, []);
  assert.is(p.no_reward_cycles, undefined);
});

test("the parameters file writes back to the same JSON, key order included", () => {
  const p = parseProtocolParameters(parametersFile);
  assert.is(JSON.stringify(protocolParameters.toJson(p)), JSON.stringify(parametersFile));
});

test("bootstrap accounts given by key hash, contracts and ramp-up options round-trip", () => {
  const j = clone(parametersFile);
  j["bootstrap_accounts"] = [["tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", "12"], ...(j["bootstrap_accounts"] as Json[])];
  j["bootstrap_contracts"] = [
    {
      delegate: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx",
      amount: "1000",
      script: { code: [{ prim: "parameter", args: [{ prim: "unit" }] }], storage: { prim: "Unit" } },
    },
  ];
  j["security_deposit_ramp_up_cycles"] = 3;
  j["no_reward_cycles"] = 2;
  const p = parseProtocolParameters(j);
  assert.equal(p.bootstrap_accounts[0], { public_key_hash: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", amount: 12n });
  assert.is(p.bootstrap_contracts[0]!.amount, 1000n);
  assert.is(p.security_deposit_ramp_up_cycles, 3);
  assert.equal(protocolParameters.fromJson(protocolParameters.toJson(p)), p);
  assert.equal(decodeBinary(protocolParameters, encodeBinary(protocolParameters, p)), p);
  assert.throws(
    () => bootstrapAccount.toJson({ public_key_hash: BOOTSTRAP[1]!.pkh, public_key: BOOTSTRAP[0]!.pk, amount: 1n }),
    (e: unknown) => e instanceof TypeError,
  );
});

test("malformed parameters are refused with a DecodeError naming the field", () => {
  const cases: [string, (j: { [k: string]: Json }) => void, RegExp][] = [
    ["an unknown field", (j) => (j["blocks_per_year"] = 1), /Unexpected field "blocks_per_year"/],
    ["a missing constant", (j) => delete j["tokens_per_roll"], /tokens_per_roll/],
    ["a negative gas limit", (j) => (j["hard_gas_limit_per_block"] = "-1"), /hard_gas_limit_per_block/],
    ["a bad account", (j) => (j["bootstrap_accounts"] = [["edpkNOPE", "1"]]), /bootstrap_accounts/],
    ["a negative amount", (j) => (j["tokens_per_roll"] = "-8"), /tokens_per_roll/],
    ["preserved_cycles beyond uint8", (j) => (j["preserved_cycles"] = 256), /preserved_cycles/],
  ];
  for (const [what, edit, re] of cases) {
    const j = clone(parametersFile);
    edit(j);
    try {
      parseProtocolParameters(j);
      assert.unreachable(what);
    } catch (e) {
      assert.instance(e, DecodeError, what);
      assert.match((e as Error).message, re, what);
    }
  }
  assert.throws(() => parseProtocolParameters([] as Json), (e: unknown) => e instanceof DecodeError);
});

test("incoherent constants are refused as constants.invalid_protocol_constants", () => {
  const j = clone(parametersFile);
  j["minimal_block_delay"] = "2";
  try {
    parseProtocolParameters(j);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, TezosError);
    assert.is((e as TezosError).trace[0]!.id, "proto.011-PtHangz2.constants.invalid_protocol_constants");
  }
  assert.throws(() => checkConstants({ ...SANDBOX_CONSTANTS, initial_endorsers: 257 }), (e: unknown) => e instanceof TezosError);
  checkConstants({ ...SANDBOX_CONSTANTS, time_between_blocks: [], minimal_block_delay: 60n });
});

test.run();
