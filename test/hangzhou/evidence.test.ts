import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeBinary, encodeBinary } from "../../lib/encoding/codec.ts";
import { type BlockHeader } from "../../lib/encoding/hangzhou/block-header.ts";
import { operation } from "../../lib/encoding/hangzhou/operation.ts";
import { operationMetadata } from "../../lib/encoding/hangzhou/receipts/contents-results.ts";
import { rawBlockHeader } from "../../lib/encoding/block-header.ts";
import { protocolData } from "../../lib/encoding/hangzhou/block-header.ts";
import { TezosError } from "../../lib/errors/registry.ts";
import { getFrozen } from "../../lib/protocols/hangzhou/storage/frozen.ts";
import { hangzhouChain } from "./chain-fixture.ts";

const BOOTSTRAP3 = "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU";

function fullHeader(bytes: Uint8Array): BlockHeader {
  const raw = decodeBinary(rawBlockHeader, bytes);
  const { protocol_data, ...shell } = raw;
  return { ...shell, ...decodeBinary(protocolData, protocol_data) };
}

function evidence(branch: string, bh1: BlockHeader, bh2: BlockHeader): Uint8Array {
  return encodeBinary(operation, { branch, contents: [{ kind: "double_baking_evidence", bh1, bh2 }] });
}

test("a delegate that baked two blocks at one level is denounced: its frozen balance goes, half of it rewards the denouncer", async () => {
  const h = await hangzhouChain();
  const a = await h.build();
  const b = await h.build({ delay: 1 });
  await h.validator.inject(a.bytes, a.operations);
  assert.is(a.owner, BOOTSTRAP3);
  const pc = h.protoAt(h.chain.head, 2);
  const deposit = getFrozen(pc, BOOTSTRAP3, 0, "deposits");
  assert.is(deposit, 640_000_000n);
  const op = evidence(h.chain.head.hash, fullHeader(a.bytes), fullHeader(b.bytes));
  await h.bake({ anonymous: [op] });
  const head = h.chain.head;
  const receipt = decodeBinary(operationMetadata, head.info.operations_metadata![2]![0]!)![0] as { balance_updates: { category?: string; delegate?: string; change: bigint }[] };
  const baker = h.metadataOf(head).baker;
  const lost = (category: string) => -(receipt.balance_updates.find((u) => u.category === category && u.delegate === BOOTSTRAP3)?.change ?? 0n);
  // Its block deposit (640 tez) and the endorsement deposit it froze earlier in this block go.
  assert.ok(lost("deposits") > deposit, `lost ${lost("deposits")}`);
  assert.equal(receipt.balance_updates.map((u) => u.category), ["deposits", "rewards", "rewards"]);
  const reward = receipt.balance_updates[2]!;
  assert.is(reward.delegate, baker);
  assert.is(reward.change, (lost("deposits") + lost("fees")) / 2n);
  assert.is.not(baker, BOOTSTRAP3);
  assert.is(getFrozen(h.protoAt(head, 3), BOOTSTRAP3, 0, "deposits"), 0n);
});

test("evidence of the same block twice, or from the future, is refused", async () => {
  const h = await hangzhouChain();
  const a = await h.build();
  await h.validator.inject(a.bytes, a.operations);
  const same = evidence(h.chain.head.hash, fullHeader(a.bytes), fullHeader(a.bytes));
  try {
    await h.build({ anonymous: [same] });
    assert.unreachable("accepted");
  } catch (e) {
    assert.instance(e, TezosError);
    const item = ((e as TezosError).toJson()[0] as { trace: Record<string, unknown>[] }).trace[0]!;
    assert.is(item["id"], "proto.011-PtHangz2.block.invalid_double_baking_evidence");
  }
});

test.run();
