/**
 * The block-level entries of `hangzhou-openapi.json` (`/`, `/header`, `/header/protocol_data`,
 * `/metadata`, `/operations`, `/operations/{list_offset}`, `/operations/{list_offset}/{operation_offset}`)
 * on every block of a node baked past the end of cycle 0.
 *
 * The file describes these entries with the genesis protocol's shapes (an artefact of how Octez
 * generated it; test/vectors/octez/SOURCES.md). So:
 * - the activation block (level 1), whose protocol *is* genesis, is checked against the file's
 *   entries as they are;
 * - the Hangzhou blocks (levels 2 and up) are checked against the `011-PtHangz2.*` components with
 *   the fields Octez puts in front (octez-schemas.ts), never against the genesis entries.
 * The genesis block (level 0) is not checked: its protocol data is empty, and the file's genesis
 * header requires the activation command's `content`.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { OpenApi } from "../support/openapi.ts";
import { ConformanceNode, HEAD_LEVEL } from "./node.ts";
import { hangzhouBlock, hangzhouHeader, hangzhouMetadata, hangzhouOperation, hangzhouProtocolData } from "./octez-schemas.ts";

const api = OpenApi.load(new URL("../vectors/octez/hangzhou-openapi.json", import.meta.url));
const blocks = suite<{ setup: Promise<void>; node: ConformanceNode; kinds: Set<string> }>("hangzhou-openapi.json block entries");

blocks.before(async (ctx) => {
  // uvu hides an error thrown by a hook: keep it, and let every test fail with it.
  ctx.setup = (async () => {
    ctx.node = await ConformanceNode.open();
    ctx.kinds = new Set();
  })();
  await ctx.setup.catch(() => {});
});
blocks.after(async (ctx) => {
  ctx.node?.notice("hangzhou-openapi.json block entries");
  await ctx.node?.close();
});

blocks("the activation block answers with the genesis shapes the file describes", async (ctx) => {
  await ctx.setup;
  const b = "/chains/main/blocks/1";
  for (const t of ["/", "/header", "/header/protocol_data", "/metadata"]) {
    await ctx.node.conforms(api, t, b + (t === "/" ? "" : t), api.response(t));
  }
  // The genesis protocol has no validation pass: `[]`, which the file's `operation` (two identical
  // branches, so no single match is possible) never has to judge.
  assert.equal(await ctx.node.json(`${b}/operations`), []);
  await ctx.node.conforms(api, "/operations", `${b}/operations`, api.response("/operations"));
});

blocks("Octez's genesis entries do not fit a Hangzhou block: the reason for the 011 schemas", async (ctx) => {
  await ctx.setup;
  const header = await ctx.node.json("/chains/main/blocks/2/header");
  const errors = api.validate(header, api.response("/header")).map((e) => e.message);
  assert.ok(errors.some((m) => m.includes("ProtoGenesis")), errors.join("\n"));
  assert.ok(errors.includes('missing required property "content"'), errors.join("\n"));
});

for (let level = 2; level <= HEAD_LEVEL; level++) {
  blocks(`block ${level}: /, /header, /header/protocol_data, /metadata follow the 011-PtHangz2 components`, async (ctx) => {
    await ctx.setup;
    const b = `/chains/main/blocks/${level}`;
    await ctx.node.conforms(api, "/ (011 full block)", b, hangzhouBlock(api));
    await ctx.node.conforms(api, "/header (011 full_header)", `${b}/header`, hangzhouHeader(api));
    await ctx.node.conforms(api, "/header/protocol_data (011 signed_contents)", `${b}/header/protocol_data`, hangzhouProtocolData(api));
    await ctx.node.conforms(api, "/metadata (011 block metadata)", `${b}/metadata`, hangzhouMetadata(api));
  });

  blocks(`block ${level}: /operations, each list and each operation follow 011-PtHangz2.operation.alpha.operation_with_metadata`, async (ctx) => {
    await ctx.setup;
    const b = `/chains/main/blocks/${level}`;
    const op = hangzhouOperation(api);
    await ctx.node.conforms(api, "/operations (011)", `${b}/operations`, { type: "array", items: { type: "array", items: op } });
    const lists = (await ctx.node.json(`${b}/operations`)) as { contents: { kind: string }[] }[][];
    assert.is(lists.length, 4);
    for (const [i, list] of lists.entries()) {
      await ctx.node.conforms(api, "/operations/{list_offset} (011)", `${b}/operations/${i}`, { type: "array", items: op });
      for (const [j, o] of list.entries()) {
        await ctx.node.conforms(api, "/operations/{list_offset}/{operation_offset} (011)", `${b}/operations/${i}/${j}`, op);
        for (const c of o.contents) ctx.kinds.add(c.kind);
      }
    }
  });
}

blocks("the 011 schemas catch a spoiled Hangzhou block where it was spoiled", async (ctx) => {
  await ctx.setup;
  const block = (await ctx.node.json("/chains/main/blocks/9")) as {
    header: Record<string, unknown>;
    metadata: Record<string, unknown>;
    operations: Record<string, unknown>[][];
  };
  assert.equal(api.validate(block, hangzhouBlock(api)), []);
  const reveal = block.operations[2]![0]! as { contents: Record<string, unknown>[] };
  assert.is(reveal.contents[0]!.kind, "seed_nonce_revelation");
  const spoiled = {
    ...block,
    header: { ...block.header, priority: -1 },
    metadata: { ...block.metadata, baker: 5 },
    operations: [block.operations[0], block.operations[1], [{ ...reveal, contents: [{ ...reveal.contents[0], nonce: "abc" }], extra: true }], []],
  };
  const found = api.validate(spoiled, hangzhouBlock(api)).map((e) => e.path);
  assert.ok(found.includes("$.header.priority"), found.join("\n"));
  assert.ok(found.includes("$.metadata.baker"), found.join("\n"));
  assert.ok(found.includes("$.operations[2][0]"), found.join("\n"));
  assert.ok(found.some((p) => p.startsWith("$.operations[2][0].contents[0]")), found.join("\n"));
  assert.is(found.filter((p) => p.startsWith("$.operations[0]")).length, 0);
});

blocks("the blocks checked hold endorsements, seed nonce revelations and a transaction", async (ctx) => {
  await ctx.setup;
  assert.ok(ctx.kinds.has("transaction"), [...ctx.kinds].join());
  assert.ok(ctx.kinds.has("endorsement_with_slot"), [...ctx.kinds].join());
  assert.ok(ctx.kinds.has("seed_nonce_revelation"), [...ctx.kinds].join());
});

blocks.run();
