/**
 * The sandbox baker on a real chain: Hangzhou activated with Octez's sandbox parameters
 * (8 blocks per cycle, a commitment every 4 blocks, 256 endorsement slots), blocks checked by
 * the block validator and the protocol, then re-checked here block by block against the rights,
 * the receipts and the context.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createBaker } from "../../lib/baker/baker.ts";
import { NotHangzhou } from "../../lib/baker/block.ts";
import { bootstrapSecretKeys, keyRing } from "../../lib/baker/keys.ts";
import { nonceHash } from "../../lib/crypto/hashes.ts";
import { formatPublicKeyHash, publicKeyHash } from "../../lib/crypto/keys.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { decodeBinary } from "../../lib/encoding/codec.ts";
import { protocolData } from "../../lib/encoding/hangzhou/block-header.ts";
import { operation } from "../../lib/encoding/hangzhou/operation.ts";
import { hangzhouBlockMetadata, operationMetadata } from "../../lib/encoding/hangzhou/mod.ts";
import { levelFromRaw } from "../../lib/protocols/hangzhou/level.ts";
import { bakingRightsOwner, endorsementRights } from "../../lib/protocols/hangzhou/rights.ts";
import { contextRightsSource } from "../../lib/protocols/hangzhou/storage/rights-source.ts";
import { findNonce } from "../../lib/protocols/hangzhou/storage/nonce.ts";
import { minimalValidTime } from "../../lib/protocols/hangzhou/timing.ts";
import type { Block, Chain } from "../../lib/shell/chain.ts";
import { rejects } from "../genesis/throws.ts";
import { ACTIVATION_TIME, openSandbox, protoContextOf } from "./sandbox.ts";

const pkhOf = (pk: Parameters<typeof publicKeyHash>[0]) => formatPublicKeyHash(publicKeyHash(pk));

interface Checked {
  level: number;
  priority: number;
  baker: string;
  power: number;
  nonceHash: string | null;
  expectedCommitment: boolean;
  cycle: number;
  revealed: { level: number; nonce: Uint8Array }[];
}

/** Re-checks block `b` against its predecessor's context: rights, endorsements, minimal valid time. */
function check(chain: Chain, b: Block): Checked {
  const pred = chain.block(b.header.predecessor)!;
  const L = b.header.level;
  const pc = protoContextOf(chain, pred, L);
  const src = contextRightsSource(pc);
  const data = decodeBinary(protocolData, b.header.protocol_data);
  const md = decodeBinary(hangzhouBlockMetadata, b.info.metadata!);
  assert.is(md.level_info.level, L);
  assert.is(md.baker, pkhOf(bakingRightsOwner(src, pc.level, data.priority)), `baker of level ${L}`);

  const ops = chain.store.operations(b.hash)!;
  const receipts = b.info.operations_metadata!;
  let power = 0;
  if (pred.info.protocol !== hangzhouHash) assert.is(ops[0]!.length, 0, "the activation block is not endorsed");
  else {
    const rights = endorsementRights(src, levelFromRaw(pc.eras, L - 1), 256);
    const seen = new Set<string>();
    const allSlots: number[] = [];
    ops[0]!.forEach((bytes, i) => {
      const op = decodeBinary(operation, bytes);
      const c = op.contents[0]!;
      if (c.kind !== "endorsement_with_slot") throw new Error(`unexpected ${c.kind} in pass 0`);
      assert.is(op.signature, undefined);
      assert.is(op.branch, pred.hash);
      assert.is(c.endorsement.branch, pred.hash);
      assert.equal(c.endorsement.operations, { kind: "endorsement", level: L - 1 });
      const r = decodeBinary(operationMetadata, receipts[0]![i]!)![0] as { kind: string; delegate: string; slots: number[] };
      assert.is(r.kind, "endorsement_with_slot");
      assert.not.ok(seen.has(r.delegate), "one endorsement per delegate");
      seen.add(r.delegate);
      assert.equal(r.slots, rights.get(r.delegate)!.slots);
      assert.is(c.slot, Math.min(...r.slots), "the smallest slot");
      allSlots.push(...r.slots);
    });
    power = allSlots.length;
  }

  const revealed = ops[2]!.map((bytes) => {
    const c = decodeBinary(operation, bytes).contents[0]!;
    if (c.kind !== "seed_nonce_revelation") throw new Error(`unexpected ${c.kind} in pass 2`);
    return { level: c.level, nonce: c.nonce };
  });
  const valid = minimalValidTime(pc.constants, data.priority, power, pred.header.timestamp);
  assert.ok(b.header.timestamp >= valid, `level ${L} is not before its minimal valid time`);
  return {
    level: L,
    priority: data.priority,
    baker: md.baker,
    power,
    nonceHash: md.nonce_hash,
    expectedCommitment: md.level_info.expected_commitment,
    cycle: md.level_info.cycle,
    revealed,
  };
}

const hangzhouHash = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";

test("three cycles baked with every bootstrap key: priority 0, 256 endorsement slots, nonces committed and revealed in the next cycle", async () => {
  const sb = await openSandbox();
  try {
    // A clock stopped at the activation: every block comes at its minimal valid time.
    const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), mode: "manual", now: () => ACTIVATION_TIME * 1000 });
    const hashes = await baker.bakeMany(24);
    assert.is(sb.chain.head.hash, hashes[23]);
    assert.is(sb.chain.head.header.level, 25);
    const commitments = new Map<number, string>();
    const revealedAt = new Map<number, number>();
    for (const hash of hashes) {
      const b = sb.chain.block(hash)!;
      const c = check(sb.chain, b);
      assert.is(c.priority, 0);
      assert.is(c.power, c.level === 2 ? 0 : 256);
      // level 2: no endorsement, slow path (1 s + 1 missing endorsement); then the fast path, 1 s
      assert.is(b.header.timestamp - sb.chain.block(b.header.predecessor)!.header.timestamp, c.level === 2 ? 2 : 1);
      assert.is(c.nonceHash !== null, c.expectedCommitment, `commitment at level ${c.level}`);
      assert.is(c.expectedCommitment, c.level % 4 === 0);
      if (c.nonceHash !== null) commitments.set(c.level, c.nonceHash);
      for (const r of c.revealed) {
        assert.is(b58encode(B58.nonceHash, nonceHash(r.nonce)), commitments.get(r.level), `nonce of level ${r.level}`);
        assert.is(levelFromRaw(protoContextOf(sb.chain, b).eras, r.level).cycle, c.cycle - 1);
        revealedAt.set(r.level, c.level);
        const status = findNonce(protoContextOf(sb.chain, b), levelFromRaw(protoContextOf(sb.chain, b).eras, r.level));
        assert.equal(status, { kind: "revealed", nonce: r.nonce });
      }
    }
    assert.equal([...commitments.keys()], [4, 8, 12, 16, 20, 24]);
    // each cycle's commitments are revealed by the first block of the next cycle
    assert.equal([...revealedAt.entries()], [[4, 9], [8, 9], [12, 17], [16, 17], [20, 25], [24, 25]]);
    // the bakers of the capture's level 2 (bootstrap3 first) and of every level were the priority-0 owners
    assert.is(decodeBinary(hangzhouBlockMetadata, sb.chain.block(hashes[0]!)!.info.metadata!).baker, "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU");
  } finally {
    await sb.close();
  }
});

test("with one key the baker takes that delegate's best priority, endorses with its slots only, and waits for the minimal valid time", async () => {
  const sb = await openSandbox();
  try {
    const [bootstrap1] = bootstrapSecretKeys();
    const pkh = [...keyRing([bootstrap1!]).keys()][0]!;
    const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: [bootstrap1!], mode: "manual", now: () => ACTIVATION_TIME * 1000 });
    const hashes = await baker.bakeMany(8);
    let sawLaterPriority = false;
    for (const hash of hashes) {
      const b = sb.chain.block(hash)!;
      const c = check(sb.chain, b);
      assert.is(c.baker, pkh);
      const pred = sb.chain.block(b.header.predecessor)!;
      const pc = protoContextOf(sb.chain, pred, c.level);
      for (let p = 0; p < c.priority; p++) assert.is.not(pkhOf(bakingRightsOwner(contextRightsSource(pc), pc.level, p)), pkh);
      if (c.priority > 0) sawLaterPriority = true;
      if (c.level > 2) assert.is(c.power, endorsementRights(contextRightsSource(pc), levelFromRaw(pc.eras, c.level - 1), 256).get(pkh)?.slots.length ?? 0);
      assert.is(b.header.timestamp, minimalValidTime(pc.constants, c.priority, c.power, pred.header.timestamp), `level ${c.level} at its minimal valid time`);
    }
    assert.ok(sawLaterPriority, "bootstrap1 does not hold priority 0 everywhere");
  } finally {
    await sb.close();
  }
});

test("block timestamps follow the wall clock when it is ahead of the minimal valid time", async () => {
  const sb = await openSandbox();
  try {
    let now = (ACTIVATION_TIME + 100) * 1000 + 999;
    const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), mode: "manual", now: () => now });
    await baker.bake();
    assert.is(sb.chain.head.header.timestamp, ACTIVATION_TIME + 100);
    now += 30_000;
    await baker.bake();
    assert.is(sb.chain.head.header.timestamp, ACTIVATION_TIME + 130);
  } finally {
    await sb.close();
  }
});

test("a baker started again on the same store reveals the nonces its previous run committed", async () => {
  const sb = await openSandbox();
  try {
    const options = { chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), mode: "manual", now: () => ACTIVATION_TIME * 1000 } as const;
    await createBaker(options).bakeMany(7); // up to level 8, commitments at 4 and 8
    const second = createBaker(options);
    const b = await second.bakeBlock();
    assert.is(b.level, 9);
    assert.equal(b.revealed, [4, 8]);
  } finally {
    await sb.close();
  }
});

test("concurrent bake requests are served one after the other", async () => {
  const sb = await openSandbox();
  try {
    const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), mode: "manual", now: () => ACTIVATION_TIME * 1000 });
    const [a, b, c] = await Promise.all([baker.bakeBlock(), baker.bakeBlock(), baker.bakeMany(2)]);
    assert.equal([a!.level, b!.level], [2, 3]);
    assert.is(sb.chain.head.header.level, 5);
    assert.is(sb.chain.head.hash, (c as string[])[1]);
  } finally {
    await sb.close();
  }
});

test("before the activation the baker refuses with NotHangzhou; bad counts are refused", async () => {
  const sb = await openSandbox({ activate: false });
  try {
    const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: bootstrapSecretKeys(), mode: "manual" });
    await rejects(() => baker.bake(), NotHangzhou, /activate the protocol first/);
    await rejects(() => baker.bakeMany(0), RangeError);
    await rejects(() => baker.bakeMany(1.5), TypeError);
    assert.is(sb.chain.head.header.level, 0);
  } finally {
    await sb.close();
  }
});

test.run();
