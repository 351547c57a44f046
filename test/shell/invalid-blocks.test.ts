import { test } from "uvu";
import * as assert from "uvu/assert";
import { hangzhouChain } from "../hangzhou/chain-fixture.ts";
import { BOOTSTRAP } from "../hangzhou/manager-fixture.ts";

test("invalid blocks at or below a new checkpoint are forgotten, those above it kept (Octez's set_head)", async () => {
  const h = await hangzhouChain();
  await h.bake();
  // a block signed by a key that is not its baker's, forced into invalid_blocks at level 3
  const bad = await h.build({ signer: BOOTSTRAP[4]!.sk, priority: 0 });
  await h.validator.inject(bad.bytes, bad.operations, { force: true }).then(
    () => assert.unreachable("a block signed by the wrong key was accepted"),
    () => {},
  );
  const [recorded] = h.chain.invalidBlocks();
  assert.is(recorded?.level, 3);
  let later: string | undefined;
  while (h.chain.locator("checkpoint").level < 3) {
    await h.bake();
    if (later === undefined && h.chain.head.header.level === 6) {
      // a second invalid block, at level 7, stays while the checkpoint is below it
      const other = await h.build({ signer: BOOTSTRAP[4]!.sk, priority: 0 });
      await h.validator.inject(other.bytes, other.operations, { force: true }).catch(() => {});
      later = h.chain.invalidBlocks().find((b) => b.level === 7)?.block;
      assert.ok(later, "the level-7 block is recorded");
    }
  }
  const checkpoint = h.chain.locator("checkpoint").level;
  assert.equal(
    h.chain.invalidBlocks().map((b) => b.level),
    checkpoint < 7 ? [7] : [],
    `checkpoint ${checkpoint}: only invalid blocks above it are kept`,
  );
  assert.is(h.chain.store.invalidBlock(recorded!.block), undefined);
});

test.run();
