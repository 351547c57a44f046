import { test } from "uvu";
import * as assert from "uvu/assert";
import { TezosError } from "../../lib/errors/registry.ts";
import { forgeEndorsementWithSlot } from "../../lib/baker/operations.ts";
import { hangzhouChain } from "./chain-fixture.ts";

/** The protocol error a block with these extra endorsements is refused with. */
async function refusedWith(h: Awaited<ReturnType<typeof hangzhouChain>>, extra: Uint8Array[], endorse = false) {
  try {
    await h.build({ endorse, extra });
  } catch (e) {
    if (e instanceof TezosError) return (e.toJson()[0] as { trace: Record<string, unknown>[] }).trace[0]!;
    throw e;
  }
  throw new Error("expected a refusal");
}

async function setup() {
  const h = await hangzhouChain();
  await h.bake();
  const head = h.chain.head;
  const rights = [...h.rightsAt(head.header.level)];
  const [pkh, r] = rights[0]!;
  const endorse = (slot: number, opts: { key?: string; level?: number; branch?: string } = {}) =>
    forgeEndorsementWithSlot(h.keyOf(opts.key ?? pkh), h.chainId, opts.branch ?? head.hash, opts.level ?? head.header.level, slot);
  return { h, head, pkh, slots: r.slots, rights, endorse };
}

test("an endorsement naming a slot that is not the delegate's smallest is refused", async () => {
  const { h, slots, endorse } = await setup();
  assert.equal(await refusedWith(h, [await endorse(slots[1]!)]), { kind: "permanent", id: "proto.011-PtHangz2.baking.unexpected_endorsement_slot", slot: slots[1] });
});

test("an endorsement signed by a key that does not own the slot is refused", async () => {
  const { h, slots, rights, endorse } = await setup();
  const other = rights[1]![0];
  const err = await refusedWith(h, [await endorse(slots[0]!, { key: other })]);
  assert.is(err["id"], "proto.011-PtHangz2.baking.unexpected_endorsement");
});

test("an endorsement of another block, of another level, or a slot out of range is refused", async () => {
  const { h, head, slots, endorse } = await setup();
  let err = await refusedWith(h, [await endorse(slots[0]!, { branch: head.header.predecessor })]);
  assert.is(err["id"], "proto.011-PtHangz2.operation.wrong_endorsement_predecessor");
  err = await refusedWith(h, [await endorse(slots[0]!, { level: head.header.level - 1 })]);
  assert.ok(["proto.011-PtHangz2.baking.unexpected_endorsement", "proto.011-PtHangz2.operation.invalid_endorsement_level"].includes(err["id"] as string), String(err["id"]));
  err = await refusedWith(h, [await endorse(256)]);
  assert.equal(err, { kind: "permanent", id: "proto.011-PtHangz2.baking.invalid_endorsement_slot", slot: 256 });
});

test("a delegate endorsing twice in one block is refused as a duplicate", async () => {
  const { h, pkh, slots, endorse } = await setup();
  const err = await refusedWith(h, [await endorse(slots[0]!)], true);
  assert.equal(err, { kind: "branch", id: "proto.011-PtHangz2.operation.duplicate_endorsement", delegate: pkh });
});

test.run();
