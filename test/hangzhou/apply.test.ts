import { test } from "uvu";
import * as assert from "uvu/assert";
import { TezosError } from "../../lib/errors/registry.ts";
import { getBalance } from "../../lib/protocols/hangzhou/storage/contract.ts";
import { hangzhouChain } from "./chain-fixture.ts";

const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
const BOOTSTRAP3 = "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU";

async function refusal(p: Promise<unknown>): Promise<Record<string, any>[]> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TezosError) return e.toJson() as Record<string, any>[];
    throw e;
  }
  throw new Error("expected a refusal");
}

test("the activation block switches the chain to Hangzhou at level 1", async () => {
  const { chain } = await hangzhouChain();
  assert.is(chain.head.header.level, 1);
  assert.is(chain.head.header.proto, 1);
  assert.is(chain.head.info.next_protocol, HANGZHOU);
  assert.is(chain.head.info.max_operations_ttl, 1);
});

test("the first Hangzhou block is baked by the level's priority-0 delegate, who freezes its deposit", async () => {
  const h = await hangzhouChain();
  const { owner } = await h.build();
  assert.is(owner, BOOTSTRAP3);
  await h.bake();
  const head = h.chain.head;
  assert.is(head.header.level, 2);
  assert.is(head.info.protocol, HANGZHOU);
  assert.equal(head.header.fitness.map((f) => [...f]), [[1], [0, 0, 0, 0, 0, 0, 0, 1]]);
  const m = h.metadataOf(head);
  assert.is(m.baker, BOOTSTRAP3);
  assert.equal(m.level_info, { level: 2, level_position: 1, cycle: 0, cycle_position: 1, expected_commitment: false });
  assert.equal(
    m.balance_updates.map((u) => [u.kind, u.change]),
    [["contract", -640000000n], ["freezer", 640000000n]],
  );
  assert.is(m.implicit_operations_results.length, 4, "three liquidity-baking originations, then the subsidy");
  const pc = h.protoAt(head);
  assert.is(getBalance(pc, BOOTSTRAP3), 4_000_000_000_000n - 640_000_000n);
});

test("blocks carry the endorsements of their predecessor and earn the baking reward for them", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const { power } = await h.build();
  assert.is(power, 256);
  await h.bake();
  const m = h.metadataOf(h.chain.head);
  const reward = m.balance_updates.find((u) => u.kind === "freezer" && u.category === "rewards");
  assert.is(reward?.change, 78125n * 256n);
  assert.is(h.chain.head.info.operations_metadata![0]!.length, 5);
});

test("a header signed by another key is refused with baking.invalid_block_signature", async () => {
  const h = await hangzhouChain();
  const { BOOTSTRAP_KEYS } = await import("./chain-fixture.ts");
  const b = await h.build({ signer: BOOTSTRAP_KEYS[0] });
  const trace = await refusal(h.validator.inject(b.bytes, b.operations));
  assert.is(trace[0]!.error, "economic_protocol_error");
  assert.is(trace[0]!.trace[0].id, "proto.011-PtHangz2.baking.invalid_block_signature");
  assert.is(trace[0]!.trace[0].expected, BOOTSTRAP3);
  assert.is(h.chain.head.header.level, 1);
});

test("a block before its minimal time is refused with baking.timestamp_too_early", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const trace = await refusal(h.bake({ endorse: false, delay: -1 }));
  assert.is(trace[0]!.trace[0].id, "proto.011-PtHangz2.baking.timestamp_too_early");
  assert.is(h.chain.head.header.level, 2);
});

test("a fitness that does not grow by exactly one is refused", async () => {
  const h = await hangzhouChain();
  const two = new Uint8Array(8);
  two[7] = 2;
  const b = await h.build({ shell: (s) => ({ ...s, fitness: [Uint8Array.of(1), two] }) });
  const trace = await refusal(h.validator.inject(b.bytes, b.operations));
  assert.is(trace[0]!.trace[0].id, "proto.011-PtHangz2.baking.invalid_fitness_gap");
  assert.is(trace[0]!.trace[0].provided, "2");
});

test("a commitment where none is expected, and none where one is, are refused", async () => {
  const h = await hangzhouChain();
  const extra = await h.build({ contents: { seed_nonce_hash: "nceUFoeQDgkJCmzdMWh19ZjBYqQD3N9fe6bXQ1ZsUKKvMn7iun5Z3" } });
  let trace = await refusal(h.validator.inject(extra.bytes, extra.operations));
  assert.equal(trace[0]!.trace[0], { kind: "permanent", id: "proto.011-PtHangz2.block.invalid_commitment", expected: false });
  await h.bake();
  await h.bake();
  const missing = await h.build({ contents: { seed_nonce_hash: undefined } });
  trace = await refusal(h.validator.inject(missing.bytes, missing.operations));
  assert.equal(trace[0]!.trace[0], { kind: "permanent", id: "proto.011-PtHangz2.block.invalid_commitment", expected: true });
});

test.run();
