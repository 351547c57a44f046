/**
 * Hangzhou's initialisation from the sandbox parameters file reproduces what Octez shows right
 * after activation: the delegate and contract captures (balances, grace period 5, voting power
 * 500), the listings, the roll layout of HANGZHOU-FACTS §1.3, the captured rights at levels 1
 * and 2 drawn from the context itself, and the liquidity baking addresses of §9.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { formatPublicKey, formatPublicKeyHash, publicKeyHash } from "../../lib/crypto/keys.ts";
import { encodeBinary, type Json } from "../../lib/encoding/codec.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { encodeMicheline } from "../../lib/encoding/micheline.ts";
import { successfulManagerOperationResult } from "../../lib/encoding/hangzhou/mod.ts";
import { TezosError } from "../../lib/errors/mod.ts";
import { protocolParametersBytes } from "../../lib/protocols/genesis/activation.ts";
import { initHangzhou, takePendingMigrationResults } from "../../lib/protocols/hangzhou/init.ts";
import { levelFromRaw } from "../../lib/protocols/hangzhou/level.ts";
import { bakingRights, bakingRightsList, endorsingRights, endorsingRightsList, type RightsRpcContext } from "../../lib/protocols/hangzhou/rights.ts";
import { initialSeeds } from "../../lib/protocols/hangzhou/seed.ts";
import * as S from "../../lib/protocols/hangzhou/storage/mod.ts";
import { emptyContext, type Context } from "../../lib/store/context/mod.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { BOOTSTRAP, BOOTSTRAP_KEYS, captured, example } from "./sandbox.ts";

const T1 = 1_600_000_000;
const PARAMS = example("011-hangzhou-protocol-parameters.json") as { [k: string]: Json };

/** The activation block's context after the genesis command: version "genesis" and the parameters. */
function activationContext(params: Json = PARAMS): Context {
  return emptyContext(new MemoryStore())
    .set(["version"], new TextEncoder().encode("genesis"))
    .set(["protocol_parameters"], protocolParametersBytes(params));
}

const init = initHangzhou(activationContext(), { level: 1, timestamp: T1 });
const pc = init.protoContext;

type Exchange = { method: string; path: string; response?: Json };
const delegatesCapture = (example("hangzhou-sandbox-delegates.json") as { exchanges: Exchange[] }).exchanges;
const contractsCapture = (example("hangzhou-sandbox-contracts.json") as { exchanges: Exchange[] }).exchanges;
const votesCapture = (example("hangzhou-sandbox-votes.json") as { exchanges: Exchange[] }).exchanges;

function firstResponse(list: Exchange[], path: string): Json {
  const e = list.find((x) => x.path === path && x.response !== undefined);
  if (e === undefined) throw new Error(`no capture for ${path}`);
  return e.response!;
}

test("the context is Hangzhou's: version, constants, one cycle era from level 1, parameters removed", () => {
  assert.is(new TextDecoder().decode(init.context.get(["version"])!), "hangzhou_011");
  assert.is(init.context.get(["protocol_parameters"]), undefined);
  assert.equal(pc.eras, [{ first_level: 1, first_cycle: 0, blocks_per_cycle: 8, blocks_per_commitment: 4 }]);
  assert.equal(S.readConstants(init.context).tokens_per_roll, 8_000_000_000n);
  const again = S.ProtoContext.prepare(init.context, { level: 2, predecessorTimestamp: T1, timestamp: T1 + 1, fitness: 1n });
  assert.equal(again.level, levelFromRaw(pc.eras, 2));
  assert.equal(again.constants, init.parameters.constants);
});

test("the contract list has the five bootstrap accounts and three liquidity baking contracts", () => {
  const all = S.listContracts(pc);
  assert.is(all.length, (firstResponse(contractsCapture, "/chains/main/blocks/head/context/contracts") as Json[]).length);
  assert.equal(all.filter((c) => c.startsWith("KT1")).sort(), [
    "KT1AafHA1C1vk959wvHWBispY9Y2f3fxBUUo",
    "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5",
    "KT1VqarPDicMFn1ejmQqqshUkUXTCTXwmkCN",
  ]);
  assert.equal(all.filter((c) => c.startsWith("tz")).sort(), BOOTSTRAP.map((b) => b.pkh).sort());
});

test("each bootstrap account is what the contracts capture shows: 4,000,000 tez, counter 0, its own delegate, revealed", () => {
  const captured = firstResponse(contractsCapture, "/chains/main/blocks/head/context/contracts/[PUBLIC_KEY_HASH]") as { [k: string]: Json };
  for (const [i, b] of BOOTSTRAP.entries()) {
    assert.is(S.getBalance(pc, b.pkh).toString(), captured["balance"]);
    assert.is(S.getCounter(pc, b.pkh).toString(), captured["counter"]);
    assert.is(S.contractDelegate(pc, b.pkh), b.pkh);
    assert.is(formatPublicKey(S.getManagerKey(pc, b.pkh)), b.pk);
    assert.ok(S.isManagerKeyRevealed(pc, b.pkh));
    assert.is(formatPublicKey(S.delegatePublicKey(pc, b.pkh)), formatPublicKey(BOOTSTRAP_KEYS[i]!));
  }
  assert.is(S.globalCounter(pc), 0n);
});

test("each bootstrap delegate is what the delegates capture shows right after activation", () => {
  const d = firstResponse(delegatesCapture, "/chains/main/blocks/head/context/delegates/[PUBLIC_KEY_HASH]") as { [k: string]: Json };
  assert.is(S.listDelegates(pc).length, (firstResponse(delegatesCapture, "/chains/main/blocks/head/context/delegates") as Json[]).length);
  for (const { pkh } of BOOTSTRAP) {
    assert.is(S.fullBalance(pc, pkh).toString(), d["balance"]);
    assert.is(S.frozenBalance(pc, pkh).toString(), d["frozen_balance"]);
    assert.equal(S.frozenBalanceByCycle(pc, pkh), d["frozen_balance_by_cycle"]);
    assert.is(S.stakingBalance(pc, pkh).toString(), d["staking_balance"]);
    assert.equal(S.delegatedContracts(pc, pkh), [pkh]);
    assert.is((d["delegated_contracts"] as Json[]).length, 1);
    assert.is(S.delegatedBalance(pc, pkh).toString(), d["delegated_balance"]);
    assert.is(S.deactivated(pc, pkh), d["deactivated"]);
    assert.is(S.gracePeriod(pc, pkh), d["grace_period"]);
    assert.is(S.votingPower(pc, pkh), d["voting_power"]);
    S.checkDelegate(pc, pkh);
  }
});

test("registered delegates iterate in context order: ed25519 key hashes by their bytes", () => {
  const hexes = S.listDelegates(pc).map((d) => S.pkhSegments(d)[1]);
  assert.equal(hexes, [...hexes].sort());
  assert.equal(S.activeDelegatesWithRolls(pc), S.listDelegates(pc));
});

test("bootstrap k owns rolls 500k … 500k+499, the last created on top, and rolls/next is 2500", () => {
  for (const [k, b] of BOOTSTRAP.entries()) {
    const rolls = S.delegateRolls(pc, b.pkh);
    assert.is(rolls.length, 500);
    assert.is(rolls[0], 500 * k + 499);
    assert.equal([...rolls].sort((x, y) => x - y), Array.from({ length: 500 }, (_, i) => 500 * k + i));
    assert.is(S.getChange(pc, b.pkh), 0n);
    assert.is(formatPublicKeyHash(publicKeyHash(S.rollOwner(pc, 500 * k + 7)!)), b.pkh);
  }
  assert.is(S.nextRoll(pc), 2500);
  assert.is(S.limboHead(pc), undefined);
});

test("listings give 500 rolls to each delegate, 2500 in all, as the votes capture shows", () => {
  const listings = S.getListings(pc);
  const capturedListings = firstResponse(votesCapture, "/chains/main/blocks/head/votes/listings") as { rolls: number }[];
  assert.equal(listings.map((l) => l.rolls), capturedListings.map((l) => l.rolls));
  assert.equal(listings.map((l) => l.pkh), S.listDelegates(pc));
  assert.is(S.listingsSize(pc), firstResponse(votesCapture, "/chains/main/blocks/head/votes/total_voting_power"));
  assert.equal(S.currentVotingPeriod(pc), { index: 0, kind: "proposal", start_position: 0 });
  assert.is(S.predPeriodKind(pc), "proposal");
  // current_quorum = quorum_min + ema·(quorum_max − quorum_min)/10000 with ema = quorum_max.
  const ema = S.participationEma(pc);
  assert.is(2000 + Math.trunc((ema * (7000 - 2000)) / 10000), firstResponse(votesCapture, "/chains/main/blocks/head/votes/current_quorum"));
});

test("seeds of cycles 0..3 are the initial seeds; cycles 0..2 are frozen at snapshot 0, cycle 3 has one snapshot, cycle 4 none yet", () => {
  const seeds = initialSeeds(4);
  for (let c = 0; c < 4; c++) assert.equal(S.getSeed(pc, c), seeds[c]);
  assert.is(toHex(S.getSeed(pc, 0)), "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
  assert.is(pc.find(["cycle", "4", "random_seed"]), undefined);
  for (let c = 0; c <= 2; c++) {
    assert.is(S.snapshotForCycle(pc, c), 0);
    assert.is(S.lastRollForSnapshot(pc, c, 0), 2500);
    assert.ok(S.snapshotExists(pc, c, 0));
  }
  assert.is(S.snapshotForCycle(pc, 3), 1);
  assert.is(S.lastRollForSnapshot(pc, 3, 0), 2500);
  assert.is(S.snapshotForCycle(pc, 4), 0);
  assert.not.ok(S.snapshotExists(pc, 4, 0));
});

const rpc: RightsRpcContext = {
  eras: pc.eras,
  constants: pc.constants,
  current: pc.level,
  timestamp: T1,
  source: S.contextRightsSource(pc),
  managerKey: (pkh) => S.findManagerKey(pc, pkh),
};

function scrub(json: Json): Json {
  return (json as { [k: string]: Json }[]).map((e) => {
    const out: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(e)) out[k] = k === "delegate" ? "[PUBLIC_KEY_HASH]" : k === "estimated_time" ? "[TIMESTAMP]" : v;
    return out;
  });
}

test("rights drawn from the initialised context are the captured endorsing rights of level 1", () => {
  const json = endorsingRightsList.toJson(endorsingRights(rpc, {}));
  assert.is(JSON.stringify(scrub(json)), JSON.stringify(captured("/chains/main/blocks/head/helpers/endorsing_rights")));
});

test("rights drawn from the initialised context are the captured baking rights of level 2", () => {
  const rights = bakingRights(rpc, {});
  assert.is(JSON.stringify(scrub(bakingRightsList.toJson(rights))), JSON.stringify(captured("/chains/main/blocks/head/helpers/baking_rights")));
  assert.equal(rights.map((r) => r.priority), [0, 2, 4, 6, 8]);
  assert.is(rights[0]!.delegate, "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU");
});

test("commitments of the parameters file are stored by blinded key hash", () => {
  assert.is(S.findCommitment(pc, "btz1bRL4X5BWo2Fj4EsBdUwexXqgTf75uf1qa"), 23_932_454_669_343n);
  assert.is(S.findCommitment(pc, "btz1VFFVsVMYHd5WfaDTAt92BeQYGK8Ri4eLy"), 9_034_781_424_478n);
  assert.is(pc.listKeys(["commitments"]).length, 10);
});

test("liquidity baking: EMA 0, CPMM address, results in Octez's order with migration credits", () => {
  assert.is(S.getEscapeEma(pc), 0);
  assert.is(S.getCpmmAddress(pc), "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5");
  const r = init.implicitOperationsResults;
  assert.equal(r.map((x) => x.kind === "origination" && x.originated_contracts), [
    ["KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5"],
    ["KT1AafHA1C1vk959wvHWBispY9Y2f3fxBUUo"],
    ["KT1VqarPDicMFn1ejmQqqshUkUXTCTXwmkCN"],
  ]);
  assert.equal(r.map((x) => x.kind === "origination" && x.balance_updates.map((u) => [u.change, u.origin])), [
    [[100n, "migration"]],
    [[0n, "migration"]],
    [[1_000_000n, "migration"]],
  ]);
  for (const x of r) {
    if (x.kind !== "origination") throw new Error("not an origination");
    const addr = x.originated_contracts[0]!;
    assert.is(x.storage_size, S.usedStorageSpace(pc, addr));
    assert.is(x.paid_storage_size_diff, x.storage_size);
    assert.is(S.paidStorageSpace(pc, addr), x.storage_size);
    assert.is(x.consumed_milligas, 0n);
    encodeBinary(successfulManagerOperationResult, x);
  }
  assert.is(S.getBalance(pc, "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5"), 100n);
  assert.is(S.getBalance(pc, "KT1VqarPDicMFn1ejmQqqshUkUXTCTXwmkCN"), 1_000_000n);
  assert.is(pc.originationNonce, undefined);
});

test("liquidity baking storages are in optimized form with big maps 0, 1 (token) and 2, 3 (LQT) as Octez's regression shows", () => {
  // tests_python/tests_011/_regtest_outputs/test_liquidity_baking.*: LQT `Pair 2 3 …`, token `Pair 0 1 …`.
  const lqt = S.getScript(pc, "KT1AafHA1C1vk959wvHWBispY9Y2f3fxBUUo")!.storage as Json[];
  assert.equal(lqt.slice(0, 2), [{ int: "2" }, { int: "3" }]);
  assert.equal(lqt[3], { int: "100" });
  assert.is((lqt[2] as { bytes: string }).bytes, "01" + toHex(S.contractBinary("KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5").subarray(1, 21)) + "00");
  const token = S.getScript(pc, "KT1VqarPDicMFn1ejmQqqshUkUXTCTXwmkCN")!.storage as Json[];
  assert.equal(token.slice(0, 2), [{ int: "0" }, { int: "1" }]);
  assert.equal(token[3], { int: "10000" });
  const cpmm = S.getScript(pc, "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5")!;
  assert.equal((cpmm.storage as Json[]).slice(0, 3), [{ int: "1" }, { int: "100" }, { int: "100" }]);
  assert.equal(cpmm.code, S.CPMM_CODE);
  // The LQT's initial liquidity: key 0x00…00 (the zero tz1) → 100 in big map 2.
  const keyHash = blake2b256(Uint8Array.of(0x05), encodeMicheline({ bytes: "00".repeat(22) }));
  assert.equal(S.findBigMapValueBytes(pc, 2n, keyHash), encodeMicheline({ int: "100" }));
  assert.is(S.bigMapTotalBytes(pc, 2n), 65n + 3n);
  assert.is(S.bigMapTotalBytes(pc, 0n), 0n);
  assert.is(pc.find(["big_maps", "index", "3", "key_type"]) !== undefined, true);
  assert.equal(pc.find(["big_maps", "next"]), Uint8Array.of(4));
});

test("pending migration results are kept in the context until the first block takes them", () => {
  const first = S.ProtoContext.prepare(init.context, { level: 2, predecessorTimestamp: T1, timestamp: T1 + 1, fitness: 1n });
  assert.equal(takePendingMigrationResults(first), init.implicitOperationsResults);
  assert.equal(takePendingMigrationResults(first), []);
});

test("initialising twice, from a non-genesis context, or with bad parameters fails with Octez's errors", () => {
  const ids = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      if (e instanceof TezosError) return e.trace.map((t) => t.id);
      throw e;
    }
    return [];
  };
  assert.equal(ids(() => initHangzhou(init.context, { level: 1, timestamp: T1 })), ["failure"]);
  const other = activationContext().set(["version"], new TextEncoder().encode("florence_009"));
  assert.equal(ids(() => initHangzhou(other, { level: 1, timestamp: T1 })), ["proto.011-PtHangz2.context.storage_error"]);
  const bad = activationContext({ ...PARAMS, unknown_field: 1 });
  assert.equal(ids(() => initHangzhou(bad, { level: 1, timestamp: T1 })), ["failure"]);
  const incoherent = activationContext({ ...PARAMS, minimal_block_delay: "5" });
  assert.equal(ids(() => initHangzhou(incoherent, { level: 1, timestamp: T1 })), ["proto.011-PtHangz2.constants.invalid_protocol_constants"]);
  const garbage = activationContext().set(["protocol_parameters"], Uint8Array.of(1, 2, 3));
  assert.equal(ids(() => initHangzhou(garbage, { level: 1, timestamp: T1 })), ["proto.011-PtHangz2.context.failed_to_parse_parameter"]);
});

test("accounts given by key hash are only credited; a bootstrap contract is originated with the bootstrap nonce", () => {
  const params: Json = {
    ...PARAMS,
    bootstrap_accounts: [...(PARAMS["bootstrap_accounts"] as Json[]), ["tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU", "1000"]],
    bootstrap_contracts: [
      { delegate: BOOTSTRAP[0]!.pkh, amount: "5000000", script: { code: [{ prim: "parameter", args: [{ prim: "unit" }] }, { prim: "storage", args: [{ prim: "unit" }] }, { prim: "code", args: [[{ prim: "CDR" }, { prim: "NIL", args: [{ prim: "operation" }] }, { prim: "PAIR" }]] }], storage: { prim: "Unit" } } },
    ],
  };
  const r = initHangzhou(activationContext(params), { level: 1, timestamp: T1 });
  const p = r.protoContext;
  const plain = "tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU";
  assert.is(S.getBalance(p, plain), 1000n);
  assert.not.ok(S.isManagerKeyRevealed(p, plain));
  assert.is(S.contractDelegate(p, plain), undefined);
  assert.not.ok(S.isRegisteredDelegate(p, plain));
  // HANGZHOU-FACTS §9: the first bootstrap contract is KT1QuofAgnsWffHzLA7D78rxytJruGHDe7XG.
  const kt = "KT1QuofAgnsWffHzLA7D78rxytJruGHDe7XG";
  assert.is(S.getBalance(p, kt), 5_000_000n);
  assert.is(S.contractDelegate(p, kt), BOOTSTRAP[0]!.pkh);
  assert.equal(S.delegatedContracts(p, BOOTSTRAP[0]!.pkh), [BOOTSTRAP[0]!.pkh, kt]);
  assert.is(S.stakingBalance(p, BOOTSTRAP[0]!.pkh), 4_000_005_000_000n);
  assert.is(S.delegatedBalance(p, BOOTSTRAP[0]!.pkh), 5_000_000n);
  assert.is(S.paidStorageSpace(p, kt), S.usedStorageSpace(p, kt));
  assert.ok(S.usedStorageSpace(p, kt) > 0n);
});

test.run();
