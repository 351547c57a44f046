/**
 * Blocks applied once: a block the validator built (`preapply`) that comes back sealed (proof of
 * work, signature) is stored with the built result after the protocol's header checks; anything
 * else is applied in full. The built result is what a full application gives.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Delegation, Reveal, Transaction } from "../../lib/encoding/hangzhou/operation.ts";
import { rawBlockHeader } from "../../lib/encoding/block-header.ts";
import { decodeBinary } from "../../lib/encoding/codec.ts";
import { TezosError } from "../../lib/errors/registry.ts";
import { getCounter } from "../../lib/protocols/hangzhou/storage/contract.ts";
import { hangzhouChain } from "../hangzhou/chain-fixture.ts";
import { BOOTSTRAP, forge, freshAccount, manager } from "../hangzhou/manager-fixture.ts";
import { countingProtocol } from "../support/counting-protocol.ts";

type Chain = Awaited<ReturnType<typeof hangzhouChain>>;

/** `n` signed transfers of 1 mutez from bootstrap1 to bootstrap2, one per operation, with the next counters. */
async function transfers(h: Chain, n: number): Promise<Uint8Array[]> {
  const src = BOOTSTRAP[0]!;
  const first = getCounter(h.protoAt(h.chain.head), src.pkh) + 1n;
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const c = manager<Transaction>({ kind: "transaction", source: src.pkh, counter: first + BigInt(i), amount: 1n, destination: BOOTSTRAP[1]!.pkh });
    out.push(await forge(src.sk, h.chain.head.hash, [c]));
  }
  return out;
}

async function refusal(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TezosError) return e.toJson();
    throw e;
  }
  throw new Error("expected a refusal");
}

test("a block the validator built is stored without applying its operations again", async () => {
  let applications = 0;
  const h = await hangzhouChain({ wrap: (p) => countingProtocol(p, () => applications++) });
  await h.bake();
  const before = applications;
  const b = await h.build({ managers: await transfers(h, 6) });
  const count = b.operations.flat().length;
  assert.ok(count > 6, "endorsements and transfers");
  assert.is(applications - before, count, "built: each operation applied once");
  const hash = await h.validator.inject(b.bytes, b.operations);
  assert.is(applications - before, count, "injected: none applied again");
  assert.is(h.chain.head.hash, hash);
  assert.is(h.chain.operationHashes(hash)[3]!.length, 6);
});

test("a built block sealed with the wrong key is refused as the full application refuses it", async () => {
  const cached = await hangzhouChain();
  const full = await hangzhouChain();
  await cached.bake();
  await full.bake();
  const bad = await cached.build({ signer: BOOTSTRAP[4]!.sk, priority: 0 });
  const owner = BOOTSTRAP.find((a) => a.pkh === bad.owner)!;
  assert.ok(owner.pkh !== BOOTSTRAP[4]!.pkh, "signed by a key that does not own priority 0");
  const expected = await refusal(full.validator.apply(bad.bytes, bad.operations));
  assert.equal(await refusal(cached.validator.apply(bad.bytes, bad.operations)), expected);
  assert.match(JSON.stringify(expected), /invalid_block_signature/);
  assert.is(cached.chain.head.header.level, 2);
});

test("a header sealed from other protocol data than the built block's is applied in full, and refused for its context", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const built = await h.build();
  const { protocol_data: _, ...builtShell } = decodeBinary(rawBlockHeader, built.bytes);
  // the built block's shell header, correctly signed, but voting for the escape hatch: the vote
  // changes the context, so the shell header's context hash is not this block's
  const voted = await h.build({ contents: { liquidity_baking_escape_vote: true }, shell: () => builtShell });
  const error = (await refusal(h.validator.apply(voted.bytes, voted.operations))) as { id: string }[];
  assert.equal(error.map((e) => e.id), ["node.state.block.inconsistent_context_hash"]);
  assert.is(h.chain.head.header.level, 2);
  // the block as built is still accepted
  await h.validator.inject(built.bytes, built.operations);
  assert.is(h.chain.head.header.level, 3);
});

test("blocks stored from their built result are those a full application on another node gives", async () => {
  const a = await hangzhouChain();
  const hashes: string[] = [];
  const fresh = freshAccount("ed25519", 7);
  for (let i = 0; i < 12; i++) {
    let managers: Uint8Array[] = [];
    const b1 = BOOTSTRAP[0]!;
    const counter = getCounter(a.protoAt(a.chain.head), b1.pkh);
    if (i === 2) {
      managers = [await forge(b1.sk, a.chain.head.hash, [manager<Transaction>({ kind: "transaction", source: b1.pkh, counter: counter + 1n, amount: 5_000_000n, destination: fresh.pkh, storage_limit: 257n })])];
    } else if (i === 3) {
      const c = getCounter(a.protoAt(a.chain.head), fresh.pkh);
      managers = [
        await forge(fresh.sk, a.chain.head.hash, [
          manager<Reveal>({ kind: "reveal", source: fresh.pkh, counter: c + 1n, public_key: fresh.pk }),
          manager<Delegation>({ kind: "delegation", source: fresh.pkh, counter: c + 2n, delegate: BOOTSTRAP[1]!.pkh }),
        ]),
      ];
    } else if (i % 3 === 0) {
      managers = await transfers(a, 4);
    }
    hashes.push(await a.bake({ managers }));
  }
  let applications = 0;
  const b = await hangzhouChain({ wrap: (p) => countingProtocol(p, () => applications++) });
  let expected = 0;
  for (const hash of hashes) {
    const block = a.chain.block(hash)!;
    const operations = a.chain.store.operations(hash)!;
    expected += operations.flat().length;
    const replayed = await b.validator.apply(block.bytes, operations);
    assert.is(replayed.hash, hash);
    assert.equal(replayed.info, block.info, `level ${block.header.level}: metadata and receipts`);
    await b.chain.storeBlock(replayed);
  }
  assert.is(applications, expected, "the other node applied every operation");
  assert.is(b.chain.head.hash, a.chain.head.hash);
});

test.run();
