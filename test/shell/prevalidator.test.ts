import { suite } from "uvu";
import * as assert from "uvu/assert";
import { BOOTSTRAP_SECRET_KEYS, createBaker } from "../../lib/baker/mod.ts";
import { parseSecretKey } from "../../lib/crypto/keys.ts";
import { encodeBinary } from "../../lib/encoding/codec.ts";
import { operation } from "../../lib/encoding/hangzhou/operation.ts";
import { TezosError } from "../../lib/errors/mod.ts";
import { hashOperation } from "../../lib/shell/operations.ts";
import { type MempoolEvent } from "../../lib/shell/prevalidator.ts";
import type { Transaction } from "../../lib/encoding/hangzhou/operation.ts";
import { BOOTSTRAP, forge, manager } from "../hangzhou/manager-fixture.ts";
import { protoContextOf } from "../baker/sandbox.ts";
import { getCounter } from "../../lib/protocols/hangzhou/storage/contract.ts";
import { hangzhouProtocol } from "../../lib/protocols/hangzhou/protocol.ts";
import { endorsement, type MempoolSandbox, openMempoolSandbox, PKH5, SK5 } from "./prevalidator-support.ts";

/** A contract's counter in the head's context. */
function protoCounter(sb: MempoolSandbox, pkh: string): bigint {
  return getCounter(protoContextOf(sb.chain, sb.chain.head), pkh);
}

const ZERO_SIG = "sigMzJ4GVAvXEd2RjsKGfG2H9QvqTSKCZsuB2KiHbZRGFz72XgF6KaKADznh674fQgBatxw3xdHqTtMHUZAGRprxy64wg1aq";

/** The `failure` message of an injection that the prevalidator turned down. */
async function failureOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, TezosError);
    const json = (e as TezosError).toJson();
    assert.is(json.length, 1);
    const item = json[0] as { kind: string; id: string; msg: string };
    assert.is(item.id, "failure");
    assert.is(item.kind, "temporary");
    return item.msg;
  }
  throw new assert.Assertion({ message: "the injection was expected to fail", generated: true, operator: "throws", expects: "a TezosError", actual: "success" });
}

function failingNoop(branch: string): Uint8Array {
  return encodeBinary(operation, { branch, contents: [{ kind: "failing_noop", arbitrary: "hello" }], signature: ZERO_SIG } as never);
}

const Mempool = suite<{ sb: MempoolSandbox }>("prevalidator");
Mempool.before.each(async (ctx) => {
  ctx.sb = await openMempoolSandbox();
});
Mempool.after.each(async (ctx) => {
  await ctx.sb.close();
});

Mempool("an endorsement the baker does not make is applied, handed to the baker in pass 0, then leaves with its block", async ({ sb }) => {
  const e = await endorsement(sb);
  const hash = await sb.prevalidator.inject(e.bytes);
  assert.is(hash, hashOperation(e.bytes));
  assert.equal(sb.prevalidator.view().applied.map((a) => a.op.hash), [hash]);
  assert.is(sb.appliedCount(), 1);
  const passes = await sb.prevalidator.pending(sb.chain.head);
  assert.equal(passes.map((p) => p.length), [1, 0, 0, 0]);
  assert.equal(passes[0]![0], e.bytes);
  const block = await sb.baker.bake();
  await sb.prevalidator.idle();
  assert.ok(sb.chain.operationHashes(block)[0]!.includes(hash), "the block includes the endorsement");
  assert.is(sb.prevalidator.view().applied.length, 0);
  // Replayed after its inclusion: answered with its hash, and nothing changes (Octez `already_handled`).
  assert.is(await sb.prevalidator.inject(e.bytes), hash);
  assert.is(sb.prevalidator.view().applied.length, 0);
});

Mempool("injecting the same operation twice answers its hash twice and keeps one entry", async ({ sb }) => {
  const e = await endorsement(sb);
  const h1 = await sb.prevalidator.inject(e.bytes);
  const h2 = await sb.prevalidator.inject(e.bytes);
  assert.is(h1, h2);
  assert.is(sb.prevalidator.view().applied.length, 1);
  assert.is(sb.appliedCount(), 1);
});

Mempool("a second endorsement of the same delegate is a branch error: refused on injection, branch_refused when forced", async ({ sb }) => {
  const first = await endorsement(sb);
  await sb.prevalidator.inject(first.bytes);
  const other = await endorsement(sb, SK5, first.slot + 1 === 256 ? first.slot - 1 : first.slot + 1);
  const msg = await failureOf(sb.prevalidator.inject(other.bytes));
  assert.ok(msg.startsWith(`Error while applying operation ${hashOperation(other.bytes)}:\nError:\n`), msg);
  assert.is(sb.prevalidator.view().branch_refused.length + sb.prevalidator.view().refused.length, 0, "nothing recorded");
  assert.is(sb.prevalidator.view().applied.length, 1);
  // Forced, it is classified whatever the outcome.
  assert.is(await sb.prevalidator.inject(other.bytes, { force: true }), hashOperation(other.bytes));
  const v = sb.prevalidator.view();
  const all = [...v.refused, ...v.branch_refused, ...v.branch_delayed];
  assert.is(all.length, 1);
  assert.is(all[0]!.op.hash, hashOperation(other.bytes));
  assert.is(v.applied.length, 1, "the first endorsement stays applied");
});

Mempool("a failing_noop is refused with the protocol's permanent error", async ({ sb }) => {
  const bytes = failingNoop(sb.chain.head.hash);
  const msg = await failureOf(sb.prevalidator.inject(bytes));
  assert.ok(msg.includes("proto.011-PtHangz2.operation.failing_noop"), msg);
  await sb.prevalidator.inject(bytes, { force: true });
  const v = sb.prevalidator.view();
  assert.equal(v.refused.map((r) => r.op.hash), [hashOperation(bytes)]);
  assert.equal(v.refused[0]!.trace.map((t) => t.toJson()), [{ kind: "permanent", id: "proto.011-PtHangz2.operation.failing_noop" }]);
  // Already classified: a later injection answers its hash and changes nothing (Octez `already_handled`).
  assert.is(await sb.prevalidator.inject(bytes), hashOperation(bytes));
});

Mempool("an endorsement with a wrong signature is refused and the state stays usable", async ({ sb }) => {
  const good = await endorsement(sb);
  const bad = good.bytes.slice();
  bad[bad.length - 1] ^= 1;
  const msg = await failureOf(sb.prevalidator.inject(bad));
  assert.ok(msg.includes('"kind"') === false && msg.includes("Error:"), msg);
  assert.ok(/signature/i.test(msg), msg);
  // The failed application left nothing behind: the good one still applies.
  assert.is(await sb.prevalidator.inject(good.bytes), hashOperation(good.bytes));
  assert.is(sb.prevalidator.view().applied.length, 1);
});

Mempool("malformed operations: too short, truncated contents, oversized", async ({ sb }) => {
  assert.is(await failureOf(sb.prevalidator.inject(new Uint8Array(10))), "Can't parse the operation");
  const e = await endorsement(sb);
  const truncated = e.bytes.subarray(0, e.bytes.length - 10);
  const msg = await failureOf(sb.prevalidator.inject(truncated));
  assert.is(msg, `Invalid operation ${hashOperation(truncated)}: Error:\n  Operation parsing error in prevalidation.\n.`);
  const big = new Uint8Array(40_000);
  big.set(e.bytes.subarray(0, 32));
  const over = await failureOf(sb.prevalidator.inject(big));
  assert.is(over, `Invalid operation ${hashOperation(big)}: Error:\n  Oversized operation (size: 40000, max: 32768)\n.`);
  const v = sb.prevalidator.view();
  assert.is(v.applied.length + v.refused.length + v.unprocessed.length, 0);
});

Mempool("an operation branched on a block that is not live is turned down before the protocol sees it", async ({ sb }) => {
  const bytes = failingNoop("BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2");
  // The genesis block is live (max_operations_ttl covers it); an unknown block is not.
  const unknown = failingNoop("BKiHLREqU3JkXfzEDYAkmmfX48gBDtYhMrpA98s7Aq4SzbUAB6M");
  const msg = await failureOf(sb.prevalidator.inject(unknown));
  assert.is(msg, `Operation ${hashOperation(unknown)} is branched on a block BKiHLREqU3JkXfzEDYAkmmfX48gBDtYhMrpA98s7Aq4SzbUAB6M which is too old`);
  assert.ok((await failureOf(sb.prevalidator.inject(bytes))).startsWith("Error while applying operation"));
});

Mempool("on a new head an endorsement the block left out becomes branch_delayed, then outdated", async ({ sb }) => {
  const e = await endorsement(sb);
  await sb.prevalidator.inject(e.bytes);
  // The block leaves it out: bake with a baker that is given no operations.
  const other = createBaker({ chain: sb.chain, validator: sb.validator, keys: BOOTSTRAP_SECRET_KEYS.slice(0, 4).map(parseSecretKey), mode: "manual" });
  await other.bake();
  await sb.prevalidator.idle();
  let v = sb.prevalidator.view();
  assert.is(v.applied.length, 0);
  assert.equal(v.branch_delayed.map((d) => d.op.hash), [hashOperation(e.bytes)]);
  assert.equal(v.branch_delayed[0]!.trace.map((t) => t.toJson()), [{ kind: "temporary", id: "proto.011-PtHangz2.prefilter.outdated_endorsement" }]);
  await other.bake();
  await sb.prevalidator.idle();
  v = sb.prevalidator.view();
  assert.is(v.branch_delayed.length, 0);
  assert.equal(v.outdated.map((d) => d.op.hash), [hashOperation(e.bytes)]);
  await other.stop();
});

Mempool("monitor streams the mempool, then each classification, and ends at the next head", async ({ sb }) => {
  const monitor = await sb.prevalidator.monitor({ applied: true, refused: true, outdated: false, branch_refused: false, branch_delayed: true });
  const first = await monitor.next();
  assert.equal(first.value, []);
  const e = await endorsement(sb);
  await sb.prevalidator.inject(e.bytes);
  const noop = failingNoop(sb.chain.head.hash);
  await sb.prevalidator.inject(noop, { force: true });
  const a = (await monitor.next()).value as MempoolEvent[];
  assert.equal(a.map((x) => [x.classification, x.op.hash]), [["applied", hashOperation(e.bytes)]]);
  const b = (await monitor.next()).value as MempoolEvent[];
  assert.equal(b.map((x) => [x.classification, x.op.hash]), [["refused", hashOperation(noop)]]);
  await sb.baker.bake();
  assert.is((await monitor.next()).done, true);
  // A new monitor starts with the mempool of the new head: the refused operation stays.
  const again = await sb.prevalidator.monitor({ applied: true, refused: true, outdated: false, branch_refused: false, branch_delayed: true });
  assert.equal(((await again.next()).value as MempoolEvent[]).map((x) => x.op.hash), [hashOperation(noop)]);
  await again.return!();
});

Mempool("a banned operation leaves the mempool and is ignored until unbanned", async ({ sb }) => {
  const e = await endorsement(sb);
  const hash = await sb.prevalidator.inject(e.bytes);
  await sb.prevalidator.ban(hash);
  assert.is(sb.prevalidator.view().applied.length, 0);
  assert.is(await sb.prevalidator.inject(e.bytes), hash, "ignored, answered with its hash");
  assert.is(sb.prevalidator.view().applied.length, 0);
  sb.prevalidator.unban(hash);
  await sb.prevalidator.inject(e.bytes);
  assert.is(sb.prevalidator.view().applied.length, 1);
  await sb.prevalidator.ban(hash);
  sb.prevalidator.unbanAll();
  assert.is(sb.prevalidator.isBanned(hash), false);
});

Mempool("the baker's own endorsers are left out of pending", async ({ sb }) => {
  const e = await endorsement(sb);
  await sb.prevalidator.inject(e.bytes);
  const passes = await sb.prevalidator.pending(sb.chain.head, { excludeEndorsers: new Set([PKH5]) });
  assert.equal(passes.map((p) => p.length), [0, 0, 0, 0]);
});

Mempool("a bad key is no endorsement: bootstrap1's signature on bootstrap5's slot is refused", async ({ sb }) => {
  const e5 = await endorsement(sb);
  const sk1 = parseSecretKey(BOOTSTRAP_SECRET_KEYS[0]!);
  const forged = await endorsement(sb, sk1, e5.slot);
  assert.is(forged.slot, e5.slot);
  const msg = await failureOf(sb.prevalidator.inject(forged.bytes));
  assert.ok(msg.startsWith("Error while applying operation"), msg);
  assert.is(sb.prevalidator.view().applied.length, 0);
});

Mempool("a zero-fee transfer is applied on injection (no pre-filter) and refused as fees_too_low on the next head, as in Octez's capture", async ({ sb }) => {
  const src = BOOTSTRAP[2]!;
  const counter = protoCounter(sb, src.pkh);
  const c = manager<Transaction>({ kind: "transaction", source: src.pkh, counter: counter + 1n, amount: 1_000_000n, destination: BOOTSTRAP[1]!.pkh, fee: 0n, gas_limit: 1040n, storage_limit: 257n });
  const bytes = await forge(src.sk, sb.chain.head.hash, [c]);
  assert.is(await sb.prevalidator.inject(bytes), hashOperation(bytes));
  assert.is(sb.prevalidator.view().applied.length, 1);
  const other = createBaker({ chain: sb.chain, validator: sb.validator, keys: BOOTSTRAP_SECRET_KEYS.slice(0, 4).map(parseSecretKey), mode: "manual" });
  await other.bake();
  await sb.prevalidator.synced();
  const v = sb.prevalidator.view();
  assert.is(v.applied.length, 0);
  assert.equal(v.refused.map((r) => [r.op.hash, r.trace.map((t) => t.toJson())]), [
    [hashOperation(bytes), [{ kind: "permanent", id: "proto.011-PtHangz2.prefilter.fees_too_low" }]],
  ]);
  await other.stop();
});

/** A signed transfer of 1 mutez from `src` to bootstrap2 with `counter`. */
function transfer(sb: MempoolSandbox, src: (typeof BOOTSTRAP)[number], counter: bigint, fee = 1000n): Promise<Uint8Array> {
  const c = manager<Transaction>({ kind: "transaction", source: src.pkh, counter, amount: 1n, destination: BOOTSTRAP[1]!.pkh, fee });
  return forge(src.sk, sb.chain.head.hash, [c]);
}

Mempool("a failed injection applies nothing again: the next valid one is one application, whatever waits in the mempool", async ({ sb }) => {
  const src = BOOTSTRAP[2]!;
  const first = protoCounter(sb, src.pkh) + 1n;
  const n = 30;
  for (let i = 0; i < n; i++) await sb.prevalidator.inject(await transfer(sb, src, first + BigInt(i)));
  assert.is(sb.prevalidator.view().applied.length, n);
  const before = sb.applications();
  // a counter in the future, a fee above the balance, a bad signature: each one application, each failing
  await failureOf(sb.prevalidator.inject(await transfer(sb, src, first + BigInt(n) + 5n)));
  await failureOf(sb.prevalidator.inject(await transfer(sb, src, first + BigInt(n), 10n ** 15n)));
  const bad = await transfer(sb, src, first + BigInt(n));
  bad[40] ^= 1;
  await failureOf(sb.prevalidator.inject(bad));
  assert.is(sb.applications() - before, 3);
  // forced, a failing operation is classified with one application as well
  await sb.prevalidator.inject(await transfer(sb, src, first + BigInt(n) + 7n), { force: true });
  assert.is(sb.applications() - before, 4);
  assert.is(sb.prevalidator.view().branch_delayed.length, 1, "a counter in the future is a temporary error");
  // the next valid injection applies itself, and only itself, on the state the failures left alone
  await sb.prevalidator.inject(await transfer(sb, src, first + BigInt(n)));
  assert.is(sb.applications() - before, 5);
  await sb.prevalidator.idle();
  assert.is(sb.applications() - before, 5);
  assert.is(sb.prevalidator.view().applied.length, n + 1);
  // and the block takes all of them, in order
  const block = await sb.baker.bake();
  assert.is(sb.chain.operationHashes(block)[3]!.length, n + 1);
  assert.is(protoCounter(sb, src.pkh), first + BigInt(n));
});

Mempool("a full block: past the block's gas the injection is refused, a forced one waits as branch_delayed, and both go in the next block", async ({ sb }) => {
  const src = BOOTSTRAP[2]!;
  const first = protoCounter(sb, src.pkh) + 1n;
  // 1 000 000 gas each: five fit Hangzhou's 5 200 000 per block
  const heavy = (counter: bigint) =>
    forge(src.sk, sb.chain.head.hash, [manager<Transaction>({ kind: "transaction", source: src.pkh, counter, amount: 1n, destination: BOOTSTRAP[1]!.pkh, fee: 200_000n, gas_limit: 1_000_000n })]);
  for (let i = 0n; i < 5n; i++) await sb.prevalidator.inject(await heavy(first + i));
  const sixth = await heavy(first + 5n);
  const msg = await failureOf(sb.prevalidator.inject(sixth));
  assert.ok(msg.includes("gas_exhausted.block"), msg);
  assert.is(sb.prevalidator.view().applied.length, 5);
  await sb.prevalidator.inject(sixth, { force: true });
  assert.equal(sb.prevalidator.view().branch_delayed.map((e) => e.op.hash), [hashOperation(sixth)]);
  const full = await sb.baker.bake();
  assert.is(sb.chain.operationHashes(full)[3]!.length, 5);
  await sb.prevalidator.idle();
  assert.equal(sb.prevalidator.view().applied.map((e) => e.op.hash), [hashOperation(sixth)], "classified again on the new head: applied");
  const next = await sb.baker.bake();
  assert.equal(sb.chain.operationHashes(next)[3], [hashOperation(sixth)]);
});

Mempool("after a new head an injection waits for the operations classified again: a source's next counter applies, a reused one is refused", async ({ sb }) => {
  const src = BOOTSTRAP[2]!;
  const k = protoCounter(sb, src.pkh) + 1n;
  const first = await sb.prevalidator.inject(await transfer(sb, src, k));
  // a block without it: the transfer waits to be classified again on the new head
  const other = createBaker({ chain: sb.chain, validator: sb.validator, keys: BOOTSTRAP_SECRET_KEYS.slice(0, 4).map(parseSecretKey), mode: "manual" });
  await other.bake();
  await other.stop();
  await sb.prevalidator.synced();
  assert.equal(sb.prevalidator.view().unprocessed.map((o) => o.hash), [first]);
  // the same counter again, another transfer: refused, the first one stays
  const reused = await transfer(sb, src, k, 2000n);
  const msg = await failureOf(sb.prevalidator.inject(reused));
  assert.ok(msg.includes("counter_in_the_past"), msg);
  // the next counter: applied after the first
  const second = await sb.prevalidator.inject(await transfer(sb, src, k + 1n));
  assert.equal(sb.prevalidator.view().applied.map((e) => e.op.hash), [first, second]);
});

Mempool.run();

const Quota = suite<{ sb: MempoolSandbox; size: number }>("prevalidator quotas");
Quota.before.each(async (ctx) => {
  const probe = await openMempoolSandbox();
  ctx.size = (await transfer(probe, BOOTSTRAP[2]!, 1n)).length;
  await probe.close();
  // pass 3 takes three transfers' bytes
  ctx.sb = await openMempoolSandbox({ quota: [...hangzhouProtocol.operationListQuota.slice(0, 3), { max_size: 3 * ctx.size + 10 }] });
});
Quota.after.each(async (ctx) => {
  await ctx.sb.close();
});

Quota("a pass takes operations in their order while they fit its quota; the rest waits for the next block", async ({ sb }) => {
  const src = BOOTSTRAP[2]!;
  const first = protoCounter(sb, src.pkh) + 1n;
  const hashes: string[] = [];
  for (let i = 0n; i < 5n; i++) hashes.push(await sb.prevalidator.inject(await transfer(sb, src, first + i)));
  const passes = await sb.prevalidator.pending(sb.chain.head);
  assert.equal(passes[3]!.map(hashOperation), hashes.slice(0, 3));
  const one = await sb.baker.bake();
  assert.equal(sb.chain.operationHashes(one)[3], hashes.slice(0, 3));
  await sb.prevalidator.idle();
  const two = await sb.baker.bake();
  assert.equal(sb.chain.operationHashes(two)[3], hashes.slice(3));
});

Quota.run();
