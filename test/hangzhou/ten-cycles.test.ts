/**
 * Ten cycles of the sandbox (80 blocks of 8-block cycles) baked by four of the five bootstrap
 * delegates; checks at every cycle end that the economy and the consensus state hold together.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeBinary } from "../../lib/encoding/codec.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { operationMetadata } from "../../lib/encoding/hangzhou/receipts/contents-results.ts";
import type { BalanceUpdate } from "../../lib/encoding/hangzhou/receipts/balance-updates.ts";
import { createBaker } from "../../lib/baker/mod.ts";
import { deterministicSeed } from "../../lib/protocols/hangzhou/seed.ts";
import { endorsementRights } from "../../lib/protocols/hangzhou/rights.ts";
import { levelFromRaw } from "../../lib/protocols/hangzhou/level.ts";
import { getBalance, listContracts } from "../../lib/protocols/hangzhou/storage/contract.ts";
import { deactivated, frozenBalanceByCycle } from "../../lib/protocols/hangzhou/storage/frozen.ts";
import { listDelegates } from "../../lib/protocols/hangzhou/storage/delegation.ts";
import { countRolls } from "../../lib/protocols/hangzhou/storage/roll.ts";
import { getSeed } from "../../lib/protocols/hangzhou/storage/seed.ts";
import { contextRightsSource } from "../../lib/protocols/hangzhou/storage/rights-source.ts";
import { BOOTSTRAP_KEYS, hangzhouChain } from "./chain-fixture.ts";

const BOOTSTRAP5 = "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv";
const PRESERVED = 2;

/** Every balance update a block wrote: its own receipt's and its operations'. */
function blockUpdates(h: Awaited<ReturnType<typeof hangzhouChain>>, hash: string): BalanceUpdate[] {
  const b = h.chain.block(hash)!;
  const out = [...h.metadataOf(b).balance_updates];
  for (const r of h.metadataOf(b).implicit_operations_results) if ("balance_updates" in r) out.push(...r.balance_updates);
  for (const pass of b.info.operations_metadata!) {
    for (const bytes of pass) for (const c of decodeBinary(operationMetadata, bytes) ?? []) out.push(...(("balance_updates" in c ? c.balance_updates : []) as BalanceUpdate[]));
  }
  return out;
}

test("ten cycles: supply accounted, deposits unfrozen on schedule, rights by rolls, seeds from nonces, an idle delegate deactivated", async () => {
  const h = await hangzhouChain();
  const baker = createBaker({ chain: h.chain, validator: h.validator, keys: BOOTSTRAP_KEYS.slice(0, 4), mode: "manual", now: () => 0 });
  const supply = (pc: ReturnType<typeof h.protoAt>) => {
    let total = 0n;
    for (const c of listContracts(pc)) total += getBalance(pc, c);
    for (const d of listDelegates(pc)) for (const f of frozenBalanceByCycle(pc, d)) total += f.deposits + f.fees + f.rewards;
    return total;
  };
  const initial = supply(h.protoAt(h.chain.head));
  let changes = 0n;
  const slotShare = new Map<string, number>();
  let slots = 0;
  const seedsSeen = new Set<string>();
  let deactivatedAt: number | undefined;

  for (let cycle = 0; cycle < 10; cycle++) {
    const lastLevel = 8 * cycle + 8;
    while (h.chain.head.header.level < lastLevel) {
      const hash = await baker.bake();
      // Migration credits were made at activation, before the initial supply was counted.
      for (const u of blockUpdates(h, hash)) if (u.origin !== "migration") changes += u.change;
      const m = h.metadataOf(h.chain.head);
      if (m.deactivated.includes(BOOTSTRAP5)) deactivatedAt ??= m.level_info.cycle;
    }
    const head = h.chain.head;
    const pc = h.protoAt(head, head.header.level);
    // Balances plus frozen amounts are the initial supply plus what receipts created or burnt.
    assert.is(supply(pc), initial + changes, `supply at the end of cycle ${cycle}`);
    // What cycle c − p froze was released at the end of cycle c.
    for (const d of listDelegates(pc)) {
      for (const f of frozenBalanceByCycle(pc, d)) assert.ok(f.cycle > cycle - PRESERVED, `${d} still has cycle ${f.cycle} frozen after cycle ${cycle}`);
    }
    // Endorsement rights of the cycle's levels, counted per delegate.
    for (let level = 8 * cycle + 1; level <= lastLevel; level++) {
      for (const [d, r] of endorsementRights(contextRightsSource(pc), levelFromRaw(pc.eras, level), 256)) {
        slotShare.set(d, (slotShare.get(d) ?? 0) + r.slots.length);
        slots += r.slots.length;
      }
    }
    seedsSeen.add(toHex(getSeed(pc, cycle + PRESERVED + 1)));
    // From cycle 1 on, revealed nonces make the seed differ from the nonce-less one.
    if (cycle >= 2) {
      const expected = deterministicSeed(getSeed(pc, cycle + PRESERVED));
      assert.not.equal([...getSeed(pc, cycle + PRESERVED + 1)], [...expected], `seed of cycle ${cycle + PRESERVED + 1} mixes nonces`);
    }
  }
  assert.is(h.chain.head.header.level, 80);
  assert.is(seedsSeen.size, 10);
  // The delegate that never baked nor endorsed is deactivated at the end of its grace period (cycle 5).
  assert.is(deactivatedAt, 5);
  const pc = h.protoAt(h.chain.head, 80);
  assert.ok(deactivated(pc, BOOTSTRAP5));
  assert.is(countRolls(pc, BOOTSTRAP5), 0);
  // Rights of cycle X come from a snapshot taken in cycle X − p − 2: the last snapshot with its
  // rolls was taken in cycle 5 (before that cycle's end), so it keeps rights through cycle 9 and
  // has none from cycle 10 on.
  assert.ok(endorsementRights(contextRightsSource(pc), levelFromRaw(pc.eras, 80), 256).has(BOOTSTRAP5));
  assert.not.ok(endorsementRights(contextRightsSource(pc), levelFromRaw(pc.eras, 81), 256).has(BOOTSTRAP5));
  // Over all levels, each delegate's share of slots follows its share of rolls (about a fifth
  // each while all five are active).
  for (const d of ["tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN", "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU", "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv"]) {
    const share = slotShare.get(d)! / slots;
    assert.ok(share > 0.17 && share < 0.3, `${d} holds ${share.toFixed(3)} of the slots`);
  }
  await baker.stop();
});

test.run();
