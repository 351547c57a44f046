/**
 * Hangzhou's storage operations on the initialised sandbox context: roll moves exactly as
 * HANGZHOU-FACTS §1.2 (limbo reuse, fresh ids), deactivation and reactivation (§8), snapshots
 * and their frozen index (§1.4, the draw recomputed here from the seed with BLAKE2b directly),
 * frozen balances and their release with the receipt's balance updates (§6), nonces and the seed
 * they make (§2.1, §7), and atomicity of failing operations.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { formatPublicKeyHash, parsePublicKey, publicKeyHash } from "../../lib/crypto/keys.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import type { Json } from "../../lib/encoding/codec.ts";
import { TezosError } from "../../lib/errors/mod.ts";
import { protocolParametersBytes } from "../../lib/protocols/genesis/activation.ts";
import { initHangzhou } from "../../lib/protocols/hangzhou/init.ts";
import { levelFromRaw } from "../../lib/protocols/hangzhou/level.ts";
import * as S from "../../lib/protocols/hangzhou/storage/mod.ts";
import { emptyContext, type Context } from "../../lib/store/context/mod.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { BOOTSTRAP, example } from "./sandbox.ts";

const T1 = 1_600_000_000;
const TPR = 8_000_000_000n;
const [B1, B2, B3] = BOOTSTRAP.map((b) => b.pkh) as [string, string, string];

const genesis = emptyContext(new MemoryStore())
  .set(["version"], new TextEncoder().encode("genesis"))
  .set(["protocol_parameters"], protocolParametersBytes(example("011-hangzhou-protocol-parameters.json")));
const INITIAL: Context = initHangzhou(genesis, { level: 1, timestamp: T1 }).context;

/** A protocol context at `level` over the freshly initialised sandbox. */
function at(level: number, context: Context = INITIAL): S.ProtoContext {
  return S.ProtoContext.prepare(context, { level, predecessorTimestamp: T1 + level - 2, timestamp: T1 + level - 1, fitness: BigInt(level - 1) });
}

function errorIds(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    if (e instanceof TezosError) return e.trace.map((t) => t.id.replace("proto.011-PtHangz2.", ""));
    throw e;
  }
  return [];
}

// A fresh account with a known key (the sandbox's activator key).
const ACTIVATOR_PK = parsePublicKey("edpkuSLWfVU1Vq7Jg9FucPyKmma6otcMHac9zG4oU1KMHSTBpJuGQ2");
const ACTIVATOR = formatPublicKeyHash(publicKeyHash(ACTIVATOR_PK));

test("spending one mutez pops the delegate's top roll onto the limbo; a credit takes it back before any fresh id", () => {
  const pc = at(2);
  S.spend(pc, B1, 1n);
  assert.is(S.countRolls(pc, B1), 499);
  assert.is(S.delegateRollHead(pc, B1), 498);
  assert.is(S.getChange(pc, B1), TPR - 1n);
  assert.is(S.limboHead(pc), 499);
  assert.is(S.rollOwner(pc, 499), undefined);
  assert.is(S.rollSuccessor(pc, 499), undefined);
  assert.is(S.stakingBalance(pc, B1), 4_000_000_000_000n - 1n);
  // B2 gets exactly one roll's worth: the limbo roll 499, no fresh id.
  S.credit(pc, B2, TPR);
  assert.is(S.delegateRollHead(pc, B2), 499);
  assert.is(S.rollSuccessor(pc, 499), 999);
  assert.is(formatPublicKeyHash(publicKeyHash(S.rollOwner(pc, 499)!)), B2);
  assert.is(S.limboHead(pc), undefined);
  assert.is(S.nextRoll(pc), 2500);
  // The limbo is empty now: the next roll is fresh id 2500.
  S.credit(pc, B2, TPR);
  assert.is(S.delegateRollHead(pc, B2), 2500);
  assert.is(S.nextRoll(pc), 2501);
  assert.is(S.countRolls(pc, B2), 502);
});

test("the limbo is a stack: rolls popped last are reused first, and the popped chain is kept", () => {
  const pc = at(2);
  S.spend(pc, B1, 2n * TPR + 1n); // pops 499, 498, 497
  assert.is(S.limboHead(pc), 497);
  assert.is(S.rollSuccessor(pc, 497), 498);
  assert.is(S.rollSuccessor(pc, 498), 499);
  S.credit(pc, B3, 2n * TPR);
  assert.equal(S.delegateRolls(pc, B3).slice(0, 3), [498, 497, 1499]);
  assert.is(S.limboHead(pc), 499);
});

test("crediting an unallocated implicit account creates it without rolls; emptying it removes it", () => {
  const pc = at(2);
  const rollsBefore = S.nextRoll(pc);
  S.spend(pc, B1, 20_000_000_000n);
  S.credit(pc, ACTIVATOR, 20_000_000_000n);
  assert.is(S.getBalance(pc, ACTIVATOR), 20_000_000_000n);
  assert.is(S.getCounter(pc, ACTIVATOR), 0n);
  assert.equal(S.getManager(pc, ACTIVATOR), { kind: "hash", pkh: ACTIVATOR });
  assert.is(S.nextRoll(pc), rollsBefore);
  S.spend(pc, ACTIVATOR, 20_000_000_000n);
  assert.not.ok(S.allocated(pc, ACTIVATOR));
  assert.is(pc.find(S.contractPath(ACTIVATOR, "counter")), undefined);
  assert.equal(errorIds(() => S.mustBeAllocated(pc, ACTIVATOR)), ["implicit.empty_implicit_contract"]);
});

test("delegation moves the whole balance between delegates; an account delegating elsewhere cannot be emptied", () => {
  const pc = at(2);
  S.spend(pc, B1, 3n * TPR);
  S.credit(pc, ACTIVATOR, 3n * TPR);
  S.revealManagerKey(pc, ACTIVATOR, ACTIVATOR_PK);
  assert.equal(errorIds(() => S.revealManagerKey(pc, ACTIVATOR, ACTIVATOR_PK)), ["contract.previously_revealed_key"]);
  S.setDelegate(pc, ACTIVATOR, B2);
  assert.is(S.countRolls(pc, B2), 503);
  assert.equal(S.delegatedContracts(pc, B2), [B2, ACTIVATOR].sort((a, b) => S.contractSegment(a).localeCompare(S.contractSegment(b))));
  assert.is(S.delegatedBalance(pc, B2), 3n * TPR);
  assert.equal(errorIds(() => S.setDelegate(pc, ACTIVATOR, B2)), ["delegate.unchanged"]);
  assert.equal(errorIds(() => S.setDelegate(pc, ACTIVATOR, ACTIVATOR)), []);
  // Self-delegation registered it: it left B2 and has its own rolls.
  assert.is(S.countRolls(pc, B2), 500);
  assert.is(S.countRolls(pc, ACTIVATOR), 3);
  assert.is(S.gracePeriod(pc, ACTIVATOR), 0 + 1 + 2 * 2);
  assert.equal(errorIds(() => S.setDelegate(pc, ACTIVATOR, B2)), ["delegate.no_deletion"]);
  assert.equal(errorIds(() => S.setDelegate(pc, ACTIVATOR, undefined)), ["delegate.no_deletion"]);
  assert.equal(errorIds(() => S.setDelegate(pc, B1, "tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU")), ["contract.manager.unregistered_delegate"]);
  // An account delegating to B3 (not a delegate itself) cannot be emptied; undelegated, it can.
  const other = "tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU";
  S.credit(pc, other, 10n);
  S.setDelegate(pc, other, B3);
  assert.is(S.getChange(pc, B3), 10n);
  const before = pc.context;
  assert.equal(errorIds(() => S.spend(pc, other, 10n)), ["implicit.empty_implicit_delegated_contract"]);
  assert.is(pc.context, before);
  S.setDelegate(pc, other, undefined);
  assert.is(S.getChange(pc, B3), 0n);
  assert.equal(errorIds(() => S.spend(pc, other, 10n)), []);
  assert.not.ok(S.allocated(pc, other));
});

test("a failing spend changes nothing and reports balance_too_low with its fields", () => {
  const pc = at(2);
  const before = pc.context;
  try {
    S.spend(pc, B1, 4_000_000_000_001n);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, TezosError);
    assert.equal((e as TezosError).toJson(), [
      { kind: "temporary", id: "proto.011-PtHangz2.contract.balance_too_low", contract: B1, balance: "4000000000000", amount: "4000000000001" },
    ]);
  }
  assert.is(pc.context, before);
  assert.equal(errorIds(() => S.credit(pc, B1, 0n)), ["contract.empty_transaction"]);
  assert.equal(errorIds(() => S.credit(pc, "KT1QuofAgnsWffHzLA7D78rxytJruGHDe7XG", 1n)), ["contract.non_existing_contract"]);
  assert.equal(errorIds(() => S.credit(pc, B1, (1n << 63n) - 1n)), ["tez.addition_overflow"]);
  assert.is(pc.context, before);
});

test("deactivation at a cycle end pops every roll; self-delegation reactivates with the last-popped rolls", () => {
  // End of cycle 5 (level 48): grace period 5 ≤ 5, every bootstrap delegate is deactivated.
  const pc = at(48);
  const order = S.activeDelegatesWithRolls(pc);
  const rollsOf = new Map(order.map((d) => [d, S.delegateRolls(pc, d)]));
  const { deactivated, balanceUpdates } = S.delegatesCycleEnd(pc, 5, []);
  assert.equal(deactivated, [...order].reverse());
  assert.equal(balanceUpdates, []);
  assert.equal(S.activeDelegatesWithRolls(pc), []);
  for (const d of order) {
    assert.ok(S.deactivated(pc, d));
    assert.is(S.countRolls(pc, d), 0);
    assert.is(S.getChange(pc, d), 4_000_000_000_000n);
    assert.is(S.stakingBalance(pc, d), 4_000_000_000_000n);
  }
  // The limbo holds the last delegate's rolls on top, lowest id first.
  const last = order[order.length - 1]!;
  assert.is(S.limboHead(pc), Math.min(...rollsOf.get(last)!));
  // Cycle 6: the last deactivated delegate comes back and gets exactly its rolls, in the same order.
  const pc6 = at(49, pc.context);
  S.setDelegate(pc6, last, last);
  assert.not.ok(S.deactivated(pc6, last));
  assert.equal(S.delegateRolls(pc6, last), rollsOf.get(last));
  assert.is(S.gracePeriod(pc6, last), 6 + 1 + 2 * 2);
  assert.equal(S.activeDelegatesWithRolls(pc6), [last]);
  // The next one to come back takes the rolls of the delegate deactivated before it.
  const previous = order[order.length - 2]!;
  S.freezeDeposit(pc6, previous, 640_000_000n); // a deposit also reactivates
  assert.equal(new Set(S.delegateRolls(pc6, previous)), new Set(rollsOf.get(previous)));
  assert.equal(errorIds(() => S.setDelegate(pc6, last, last)), ["delegate.already_active"]);
});

test("set_active keeps the later grace period: current + 1 + p for an active delegate", () => {
  const pc = at(30); // cycle 3
  S.setActive(pc, B1);
  assert.is(S.gracePeriod(pc, B1), 3 + 1 + 2);
  const pc0 = at(2);
  S.setActive(pc0, B1);
  assert.is(S.gracePeriod(pc0, B1), 5);
});

/** The frozen index of a cycle, derived here from the seed with BLAKE2b alone (HANGZHOU-FACTS §2.2, §2.3). */
function expectedIndex(seed: Uint8Array, count: number): number {
  const t = blake2b256(seed, new Uint8Array(32), new TextEncoder().encode("roll_snapshot"));
  let s = blake2b256(t); // sequence 0: first 4 bytes XOR 0 are unchanged
  for (;;) {
    s = blake2b256(s);
    const x = new DataView(s.buffer, s.byteOffset).getInt32(0);
    const r = Math.abs(x);
    const max = 0x7fffffff - (0x7fffffff % count);
    if (r < max) return r % count;
  }
}

test("snapshots taken at levels 4 and 8 go to cycle 4; freezing keeps the drawn one and its bound", () => {
  const pc = at(4);
  S.snapshotRolls(pc);
  assert.is(S.snapshotForCycle(pc, 4), 1);
  assert.is(S.lastRollForSnapshot(pc, 4, 0), 2500);
  // Between the two snapshots B1 loses a roll and B2 gets a fresh one.
  S.spend(pc, B1, TPR);
  S.credit(pc, B2, TPR);
  S.credit(pc, B2, TPR);
  const pc8 = at(8, pc.context);
  S.snapshotRolls(pc8);
  assert.is(S.snapshotForCycle(pc8, 4), 2);
  assert.is(S.lastRollForSnapshot(pc8, 4, 1), 2501);
  assert.is(formatPublicKeyHash(publicKeyHash(S.snapshotOwner(pc8, 4, 0, 499)!)), B1);
  assert.is(formatPublicKeyHash(publicKeyHash(S.snapshotOwner(pc8, 4, 1, 499)!)), B2);
  assert.is(S.snapshotOwner(pc8, 4, 0, 2500), undefined);
  assert.is(formatPublicKeyHash(publicKeyHash(S.snapshotOwner(pc8, 4, 1, 2500)!)), B2);
  // End of cycle 0: cycle 3 (one snapshot) is frozen at index 0, cycle 5's counter opens.
  S.rollCycleEnd(pc8, 0);
  assert.is(S.snapshotForCycle(pc8, 3), 0);
  assert.is(S.snapshotForCycle(pc8, 5), 0);
  // Freeze cycle 4 with a seed stored for it.
  const seed4 = blake2b256(new TextEncoder().encode("seed of cycle 4"));
  S.initSeed(pc8, 4, seed4);
  S.freezeRollsForCycle(pc8, 4);
  const selected = expectedIndex(seed4, 2);
  assert.is(S.snapshotForCycle(pc8, 4), selected);
  assert.ok(S.snapshotExists(pc8, 4, selected));
  assert.not.ok(S.snapshotExists(pc8, 4, 1 - selected));
  assert.is(pc8.find(["cycle", "4", "last_roll", String(1 - selected)]), undefined);
  assert.is(S.lastRollForSnapshot(pc8, 4, selected), selected === 0 ? 2500 : 2501);
  const snap = S.cycleRollSnapshot(pc8, 4);
  assert.is(snap.bound, selected === 0 ? 2500 : 2501);
  assert.is(formatPublicKeyHash(publicKeyHash(snap.owner(499)!)), selected === 0 ? B1 : B2);
  // Clearing removes the counter, the bound and the snapshot.
  S.clearRollCycle(pc8, 4);
  assert.is(pc8.find(["cycle", "4", "roll_snapshot"]), undefined);
  assert.not.ok(S.snapshotExists(pc8, 4, selected));
});

test("the rights source refuses seeds outside the window and missing snapshots with Octez's errors", () => {
  const pc = at(1);
  const src = S.contextRightsSource(pc);
  assert.equal(errorIds(() => src.seed(4)), ["seed.unknown_seed"]);
  assert.equal(errorIds(() => src.snapshot(4)), ["context.storage_error"]);
  const pc2 = at(2);
  pc2.remove(S.rollSnapshotPath(2, 0));
  assert.equal(errorIds(() => S.contextRightsSource(pc2).snapshot(2)), ["contract.manager.no_roll_snapshot_for_cycle"]);
});

test("deposits, fees and rewards freeze for the cycle and are released p cycles later with the receipt's updates", () => {
  const pc = at(2);
  S.freezeDeposit(pc, B1, 640_000_000n);
  S.freezeFees(pc, B1, 1_000n);
  S.freezeRewards(pc, B1, 5_000n);
  assert.is(S.getBalance(pc, B1), 4_000_000_000_000n - 640_000_000n);
  assert.is(S.stakingBalance(pc, B1), 4_000_000_000_000n + 1_000n);
  assert.is(S.frozenBalance(pc, B1), 640_006_000n);
  assert.is(S.fullBalance(pc, B1), 4_000_000_006_000n);
  assert.is(S.delegatedBalance(pc, B1), 0n);
  assert.equal(S.frozenBalanceByCycle(pc, B1), [{ cycle: 0, deposits: 640_000_000n, fees: 1_000n, rewards: 5_000n }]);
  assert.equal(S.delegatesWithFrozenBalance(pc, 0), [B1]);
  assert.equal(errorIds(() => S.freezeDeposit(pc, B2, 5_000_000_000_000n)), ["delegate.balance_too_low_for_deposit"]);
  // End of cycle 2 (level 24): cycle 0 is released.
  const end = at(24, pc.context);
  const { balanceUpdates, deactivated } = S.delegatesCycleEnd(end, 2, []);
  assert.equal(deactivated, []);
  assert.equal(balanceUpdates, [
    { kind: "freezer", category: "deposits", delegate: B1, cycle: 0, change: -640_000_000n, origin: "block" },
    { kind: "freezer", category: "fees", delegate: B1, cycle: 0, change: -1_000n, origin: "block" },
    { kind: "freezer", category: "rewards", delegate: B1, cycle: 0, change: -5_000n, origin: "block" },
    { kind: "contract", contract: B1, change: 640_006_000n, origin: "block" },
  ]);
  assert.is(S.getBalance(end, B1), 4_000_000_006_000n);
  assert.is(S.stakingBalance(end, B1), 4_000_000_006_000n);
  assert.equal(S.frozenBalanceByCycle(end, B1), []);
  assert.equal(S.delegatesWithFrozenBalance(end, 0), []);
});

test("several releases come later delegates first, then the unrevealed-nonce burns", () => {
  const pc = at(9); // cycle 1
  S.freezeDeposit(pc, B1, 100n);
  S.freezeDeposit(pc, B2, 200n);
  S.freezeFees(pc, B2, 7n);
  S.freezeRewards(pc, B2, 11n);
  const end = at(24, pc.context); // end of cycle 2 releases cycle 0 (nothing), burns cycle 1
  const unrevealed: S.UnrevealedNonce[] = [{ kind: "unrevealed", nonceHash: b58encode(B58.nonceHash, new Uint8Array(32)), delegate: B2, rewards: 11n, fees: 3n }];
  const r = S.delegatesCycleEnd(end, 2, unrevealed);
  assert.equal(r.balanceUpdates, [
    { kind: "freezer", category: "fees", delegate: B2, cycle: 1, change: -3n, origin: "block" },
    { kind: "freezer", category: "rewards", delegate: B2, cycle: 1, change: -11n, origin: "block" },
  ]);
  assert.is(S.getFrozen(end, B2, 1, "fees"), 4n);
  const end3 = at(32, end.context); // end of cycle 3 releases cycle 1
  const order = S.delegatesWithFrozenBalance(end3, 1);
  const r3 = S.delegatesCycleEnd(end3, 3, []);
  const contracts = r3.balanceUpdates.filter((u) => u.kind === "contract").map((u) => (u as { contract: string }).contract);
  assert.equal(contracts, [...order].reverse());
  assert.ok(r3.balanceUpdates.some((u) => u.kind === "contract" && u.contract === B2 && u.change === 204n));
});

test("a nonce committed in cycle 0 is revealed in cycle 1 and mixed into the seed of cycle 4", () => {
  const eras = at(4).eras;
  const pc = at(4);
  const nonce = blake2b256(new TextEncoder().encode("a nonce"));
  const nonceHash = b58encode(B58.nonceHash, blake2b256(nonce));
  S.recordNonceHash(pc, { nonceHash, delegate: B1, rewards: 0n, fees: 0n });
  assert.equal(errorIds(() => S.revealNonce(pc, levelFromRaw(eras, 4), nonce)), ["nonce.too_early_revelation"]);
  const pc8 = at(8, pc.context);
  S.recordNonceHash(pc8, { nonceHash: b58encode(B58.nonceHash, new Uint8Array(32)), delegate: B2, rewards: 5n, fees: 6n });
  const pc1 = at(10, pc8.context);
  assert.equal(errorIds(() => S.revealNonce(pc1, levelFromRaw(eras, 4), new Uint8Array(32))), ["nonce.inconsistent"]);
  assert.equal(errorIds(() => S.revealNonce(pc1, levelFromRaw(eras, 12), nonce)), ["nonce.too_early_revelation"]);
  assert.equal(errorIds(() => S.revealNonce(pc1.clone(), levelFromRaw(eras, 5), nonce)), ["context.storage_error"]);
  S.revealNonce(pc1, levelFromRaw(eras, 4), nonce);
  assert.equal(S.findNonce(pc1, levelFromRaw(eras, 4)), { kind: "revealed", nonce });
  assert.equal(errorIds(() => S.revealNonce(pc1, levelFromRaw(eras, 4), nonce)), ["nonce.previously_revealed"]);
  // End of cycle 1: seed(4) = H(H(seed(3) ‖ 0³²) ‖ nonce); the level-4 entry is consumed.
  const end = at(16, pc1.context);
  const unrevealed = S.seedCycleEnd(end, 1);
  assert.equal(unrevealed, [{ kind: "unrevealed", nonceHash: b58encode(B58.nonceHash, new Uint8Array(32)), delegate: B2, rewards: 5n, fees: 6n }]);
  const expected = blake2b256(blake2b256(S.getSeed(end, 3), new Uint8Array(32)), nonce);
  assert.equal(S.getSeed(end, 4), expected);
  assert.is(S.findNonce(end, levelFromRaw(eras, 4)), undefined);
  assert.ok(end.find(["cycle", "0", "random_seed"]) !== undefined); // cycle 0's seed goes at the end of cycle p = 2
  const pc3 = at(30, end.context);
  assert.equal(errorIds(() => S.getUnrevealed(pc3, levelFromRaw(eras, 12))), ["nonce.too_late_revelation"]);
});

test("unrevealed commitments come back in ascending level order and the seed skips them", () => {
  const eras = at(4).eras;
  let ctx = INITIAL;
  for (const level of [4, 8, 12, 16]) {
    const pc = at(level, ctx);
    S.recordNonceHash(pc, { nonceHash: b58encode(B58.nonceHash, new Uint8Array(32).fill(level)), delegate: B2, rewards: BigInt(level), fees: 1n });
    ctx = pc.context;
  }
  const end1 = at(16, ctx);
  assert.equal(S.seedCycleEnd(end1, 1).map((x) => x.rewards), [4n, 8n]);
  const end = at(24, end1.context);
  const u = S.seedCycleEnd(end, 2);
  assert.equal(u.map((x) => x.rewards), [12n, 16n]);
  assert.equal(S.getSeed(end, 5), blake2b256(S.getSeed(end, 4), new Uint8Array(32)));
  assert.is(end.find(["cycle", "0", "random_seed"]), undefined);
  assert.is(S.findNonce(end, levelFromRaw(eras, 12)), undefined);
});

test("contract path segments sort as Octez's: tz1 < tz2 < tz3 < KT1, delegates by curve name", () => {
  const ids = [
    "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5",
    "tz3NExpXn9aPNZPorRE4SdjJ2RGrfbJgMAaV",
    "tz2TSvNTh2epDMhZHrw73nV9piBX7kLZ9K9m",
    "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx",
  ];
  assert.equal([...ids].sort((a, b) => (S.contractSegment(a) < S.contractSegment(b) ? -1 : 1)), [...ids].reverse());
  assert.equal(S.contractSegment(B1), "0000" + S.pkhSegments(B1)[1]);
  assert.equal(S.pkhSegments("tz3NExpXn9aPNZPorRE4SdjJ2RGrfbJgMAaV")[0], "p256");
  assert.ok(["ed25519", "p256", "secp256k1"].every((c, i, a) => i === 0 || a[i - 1]! < c));
  for (const id of ids) assert.is(S.contractOfSegment(S.contractSegment(id)), id);
  assert.throws(() => S.contractSegment("tz1notAnAddress"), (e: unknown) => e instanceof TypeError);
});

test("the escape EMA and raw accessors keep Octez's storage semantics", () => {
  const pc = at(2);
  S.setEscapeEma(pc, 1000);
  assert.is(S.getEscapeEma(pc), 1000);
  assert.equal(errorIds(() => pc.init(["rolls", "next"], new Uint8Array(4))), ["context.storage_error"]);
  assert.equal(errorIds(() => pc.update(["no", "such"], new Uint8Array(1))), ["context.storage_error"]);
  assert.equal(errorIds(() => pc.removeExisting(["no", "such"])), ["context.storage_error"]);
  const json = (() => {
    try {
      pc.get(["no", "such"]);
    } catch (e) {
      return (e as TezosError).toJson();
    }
    return [];
  })() as Json[];
  assert.equal(json, [{ kind: "permanent", id: "proto.011-PtHangz2.context.storage_error", missing_key: ["no", "such"], function: "get" }]);
});

test.run();
