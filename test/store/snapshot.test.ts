/**
 * Snapshots through lib/store/snapshot on memory stores: a full and a rolling export imported
 * into a new store serve the same block, balances and storages as the exporting node at the
 * target and go on baking; the chain data of the imported store (Octez: savepoint = target,
 * caboose = genesis or the oldest kept block); the export block forms and refusals; and every
 * truncation and bit flip refused with nothing imported.
 */
import { readFile } from "node:fs/promises";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { BlockStore, decodeBlockLocator } from "../../lib/store/block-store.ts";
import type { KeyValueStore } from "../../lib/store/kv.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { chainIdOf, SANDBOX_GENESIS } from "../../lib/shell/genesis.ts";
import { exportSnapshot, importSnapshot, readSnapshotHeader, SnapshotError, type SnapshotHeader } from "../../lib/store/snapshot/mod.ts";
import { encodeHeader, Frame, Section } from "../../lib/store/snapshot/format.ts";
import { FrameWriter } from "../../lib/store/snapshot/frames.ts";
import { call, type MadeChain, makeChain, samplePaths } from "./snapshot-support.ts";

const CHAIN = { chainId: chainIdOf(SANDBOX_GENESIS), chainName: SANDBOX_GENESIS.chainName, genesis: SANDBOX_GENESIS.block };
const readResource = async (url: URL) => new Uint8Array(await readFile(url));

/** A memory store whose close() keeps its content, so that the test reads it after the node. */
function keptStore(): KeyValueStore {
  const store = new MemoryStore();
  return { get: (k) => store.get(k), range: (r) => store.range(r), write: (ops) => store.write(ops), close: async () => {} };
}

async function bytesOf(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(c);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function* streamOf(bytes: Uint8Array, size = 4096): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

// One chain for the whole file: 3 blocks, transfer + origination, then 135 more (past Hangzhou's
// max_operations_ttl of 120, so that a rolling snapshot leaves blocks out).
let source: KeyValueStore;
let node: TezosNode;
let chain: MadeChain;
let full: Uint8Array;
let fullHeader: SnapshotHeader;
let target: string;

test.before(async () => {
  source = keptStore();
  node = await createNode({ store: source, bake: { mode: "manual" }, readResource });
  chain = await makeChain(node.fetch, 135);
  target = (await call(node.fetch, "/chains/main/blocks/head~2/hash")) as string;
  const e = exportSnapshot(source, { ...CHAIN, block: "head~2" });
  fullHeader = e.header;
  full = await bytesOf(e.chunks);
});

test.after(async () => {
  await node.close();
});

async function importInto(bytes: Uint8Array, options: { block?: string; chainId?: Uint8Array } = {}): Promise<KeyValueStore> {
  const kv = keptStore();
  await importSnapshot(streamOf(bytes), kv, { chainId: options.chainId ?? CHAIN.chainId, chainName: CHAIN.chainName, ...(options.block === undefined ? {} : { block: options.block }) });
  return kv;
}

test("the header names the target, the chain, the mode and the counts", async () => {
  const level = (await call(node.fetch, `/chains/main/blocks/${target}/header/shell/level`)) as number;
  const { context, timestamp } = (await call(node.fetch, `/chains/main/blocks/${target}/header/shell`)) as { context: string; timestamp: string };
  assert.equal(fullHeader, {
    format: "tezos-node-snapshot",
    version: 1,
    chain_id: "NetXdQprcVkpaWU",
    chain_name: "SANDBOXED_TEZOS",
    genesis: SANDBOX_GENESIS.block,
    block_hash: target,
    level,
    timestamp,
    context_hash: context,
    history_mode: "full",
    first_level: 1,
    protocols: fullHeader.protocols,
    blocks: level + 1,
    context_nodes: fullHeader.context_nodes,
  });
  assert.ok(fullHeader.context_nodes > 1000);
  assert.equal(await readSnapshotHeader(streamOf(full)), fullHeader);
});

test("the same chain exports to the same bytes", async () => {
  assert.equal(await bytesOf(exportSnapshot(source, { ...CHAIN, block: target }).chunks), full);
});

test("a full import serves the target's RPCs as the exporting node, keeps every older header and bakes on", async () => {
  const kv = await importInto(full, { block: target });
  const store = new BlockStore(kv, CHAIN.chainId);
  const locator = (n: "head" | "checkpoint" | "savepoint" | "caboose") => decodeBlockLocator(store.chainData(n)!);
  assert.equal(locator("head"), { hash: target, level: fullHeader.level });
  assert.equal(locator("savepoint"), { hash: target, level: fullHeader.level });
  assert.equal(locator("checkpoint"), { hash: target, level: fullHeader.level });
  assert.equal(locator("caboose"), { hash: SANDBOX_GENESIS.block, level: 0 });
  assert.is(new TextDecoder().decode(store.chainData("history_mode")), "full");
  assert.is(b58encode(B58.blockHash, store.chainData("known_heads")!), target);

  const imported = await createNode({ store: kv, bake: { mode: "manual" }, readResource });
  try {
    for (const path of samplePaths(target, chain)) {
      assert.equal(await call(imported.fetch, path), await call(node.fetch, path), path);
    }
    const old = `/chains/main/blocks/${chain.operationsLevel}/operations`;
    // Receipts are not carried for blocks below the target: the operations are, byte for byte.
    const shape = (j: unknown) => (j as { hash: string; branch: string; contents: { kind: string }[] }[][]).map((pass) => pass.map((o) => [o.hash, o.branch, o.contents.map((c) => c.kind)]));
    assert.equal(shape(await call(imported.fetch, old)), shape(await call(node.fetch, old)));
    assert.ok(shape(await call(node.fetch, old))[3]!.length > 0);
    // Older blocks keep their metadata hashes (as a pruned block does), not their metadata.
    for (const path of [`/chains/main/blocks/${chain.operationsLevel}/metadata_hash`, `/chains/main/blocks/${chain.operationsLevel}/operations_metadata_hash`]) {
      assert.equal(await call(imported.fetch, path), await call(node.fetch, path), path);
    }
    const pruned = await imported.fetch(new Request(`http://localhost/chains/main/blocks/${chain.operationsLevel}/metadata`));
    assert.is.not(pruned.status, 200);
    assert.match(await pruned.text(), "metadata_not_found");
    for (const level of [1, 2, 50, fullHeader.level - 1]) {
      const path = `/chains/main/blocks/${level}/header`;
      assert.equal(await call(imported.fetch, path), await call(node.fetch, path), path);
    }
    const checkpoint = (await call(imported.fetch, "/chains/main/checkpoint")) as Record<string, unknown>;
    assert.equal([checkpoint.savepoint, checkpoint.caboose, checkpoint.history_mode], [fullHeader.level, 0, "full"]);
    const baked = (await call(imported.fetch, "/sandbox/bake?count=3", "POST")) as string[];
    assert.is(baked.length, 3);
    assert.is(await call(imported.fetch, "/chains/main/blocks/head/header/shell/level"), fullHeader.level + 3);
    assert.is(await call(imported.fetch, "/chains/main/blocks/head~3/hash"), target);
  } finally {
    await imported.close();
  }
});

test("a rolling import keeps genesis and the target's max_operations_ttl predecessors only, and bakes on", async () => {
  const e = exportSnapshot(source, { ...CHAIN, block: "head", rolling: true });
  const head = e.header;
  assert.is(head.history_mode, "rolling");
  assert.is(head.first_level, head.level - 120);
  assert.is(head.blocks, 1 + 121);
  const bytes = await bytesOf(e.chunks);
  assert.ok(bytes.length < full.length + 10_000);
  const kv = await importInto(bytes);
  const store = new BlockStore(kv, CHAIN.chainId);
  assert.equal(decodeBlockLocator(store.chainData("caboose")!).level, head.first_level);
  assert.is(new TextDecoder().decode(store.chainData("history_mode")), "rolling");
  const imported = await createNode({ store: kv, bake: { mode: "manual" }, historyMode: "rolling", readResource });
  try {
    for (const path of samplePaths(head.block_hash, chain).filter((p) => !p.includes(`/blocks/${chain.operationsLevel}/`))) {
      assert.equal(await call(imported.fetch, path), await call(node.fetch, path), path);
    }
    const below = await imported.fetch(new Request(`http://localhost/chains/main/blocks/${head.first_level - 1}/header`));
    assert.is(below.status, 404);
    await below.body?.cancel();
    assert.is(await call(imported.fetch, `/chains/main/blocks/${head.first_level}/hash`), await call(node.fetch, `/chains/main/blocks/${head.first_level}/hash`));
    const checkpoint = (await call(imported.fetch, "/chains/main/checkpoint")) as Record<string, unknown>;
    assert.equal([checkpoint.savepoint, checkpoint.caboose, checkpoint.history_mode], [head.level, head.first_level, "rolling"]);
    assert.is(((await call(imported.fetch, "/sandbox/bake?count=2", "POST")) as string[]).length, 2);
  } finally {
    await imported.close();
  }
});

test("the export block: the checkpoint by default, Octez's forms, and its refusals", () => {
  const store = new BlockStore(source, CHAIN.chainId);
  const checkpoint = decodeBlockLocator(store.chainData("checkpoint")!);
  assert.ok(checkpoint.level > 100, `checkpoint at ${checkpoint.level}`);
  assert.is(exportSnapshot(source, CHAIN).header.block_hash, checkpoint.hash);
  const head = decodeBlockLocator(store.chainData("head")!);
  assert.is(exportSnapshot(source, { ...CHAIN, block: "head" }).header.level, head.level);
  assert.is(exportSnapshot(source, { ...CHAIN, block: "head~10" }).header.level, head.level - 10);
  assert.is(exportSnapshot(source, { ...CHAIN, block: "head-10" }).header.level, head.level - 10);
  assert.is(exportSnapshot(source, { ...CHAIN, block: "42" }).header.level, 42);
  assert.is(exportSnapshot(source, { ...CHAIN, block: "checkpoint~1" }).header.level, checkpoint.level - 1);
  assert.is(exportSnapshot(source, { ...CHAIN, block: `${head.hash}~5` }).header.level, head.level - 5);
  const refused = (block: string, message: string) => {
    try {
      exportSnapshot(source, { ...CHAIN, block });
      assert.unreachable(block);
    } catch (error) {
      assert.instance(error, SnapshotError, block);
      assert.is((error as Error).message, message, block);
    }
  };
  refused("genesis", `The selected block ${SANDBOX_GENESIS.block} is invalid: the genesis block is not a valid export point.`);
  refused("0", `The selected block ${SANDBOX_GENESIS.block} is invalid: the genesis block is not a valid export point.`);
  refused("caboose", `The selected block ${SANDBOX_GENESIS.block} is invalid: the caboose block is not a valid export point.`);
  refused(String(head.level + 1), "The selected block is invalid: the block is unknown.");
  refused("BLockGenesisGenesisGenesisGenesisGenesisd1f7bcGMoXy", "The selected block BLockGenesisGenesisGenesisGenesisGenesisd1f7bcGMoXy is invalid: the block is unknown.");
  refused("head~x", "head~x is not a valid block identifier (Cannot parse block identifier: head~x).");
});

test("a fresh chain's checkpoint is genesis: the default export is refused as in Octez", async () => {
  const kv = keptStore();
  const fresh = await createNode({ store: kv, bake: { mode: "manual" }, readResource });
  await fresh.close();
  try {
    exportSnapshot(kv, CHAIN);
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, `The selected block ${SANDBOX_GENESIS.block} is invalid: the genesis block is not a valid export point.`);
  }
  try {
    exportSnapshot(new MemoryStore(), CHAIN);
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, "The data directory holds no chain NetXdQprcVkpaWU: nothing to export.");
  }
});

/** Imports `bytes` expecting a SnapshotError matching `pattern`; the store is left without a chain. */
async function refusedImport(bytes: Uint8Array, pattern: RegExp, what: string): Promise<void> {
  const kv = keptStore();
  try {
    await importSnapshot(streamOf(bytes, 7919), kv, { chainId: CHAIN.chainId, chainName: CHAIN.chainName });
    assert.unreachable(what);
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw new Error(`${what}: ${String(error)}`);
    assert.match(error.message, pattern, what);
  }
  assert.is(new BlockStore(kv, CHAIN.chainId).chainData("head"), undefined, what);
  assert.is(new BlockStore(kv, CHAIN.chainId).chainData("history_mode"), undefined, what);
}

test("a truncated snapshot is refused at any length, with nothing imported", async () => {
  const cuts = [0, 3, 8, 12, 100, 2000, Math.floor(full.length / 3), Math.floor(full.length / 2), full.length - 38, full.length - 1];
  for (const n of cuts) {
    await refusedImport(full.slice(0, n), /truncated|not a tezos-node snapshot|shorter than/, `cut at ${n}`);
  }
  const longer = new Uint8Array(full.length + 1);
  longer.set(full);
  await refusedImport(longer, /bytes follow the end frame/, "a byte appended");
});

test("a flipped bit anywhere is refused, with nothing imported", async () => {
  const positions = [0, 9, 20, 300, 1000, 5000, 20_000, Math.floor(full.length / 2), full.length - 5000, full.length - 40, full.length - 1];
  for (const at of positions) {
    for (const bit of [0, 7]) {
      const bad = full.slice();
      bad[at]! ^= 1 << bit;
      await refusedImport(bad, /./, `bit ${bit} of byte ${at}`);
    }
  }
  const last = full.slice();
  last[last.length - 1]! ^= 1;
  await refusedImport(last, /final digest does not match/, "the final digest");
});

test("a snapshot of another chain, another block or an unknown version is refused before anything is written", async () => {
  const other = new Uint8Array([1, 2, 3, 4]);
  try {
    await importInto(full, { chainId: other });
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /^The chain name contained in the snapshot file \(SANDBOXED_TEZOS, chain NetXdQprcVkpaWU\) is not consistent with the network configured/);
  }
  try {
    await importInto(full, { block: "BLockGenesisGenesisGenesisGenesisGenesisd1f7bcGMoXy" });
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, `The block contained in the file is ${target} instead of BLockGenesisGenesisGenesisGenesisGenesisd1f7bcGMoXy.`);
  }
  const w = await FrameWriter.create();
  w.frame(Frame.header, encodeHeader({ ...fullHeader, version: 7 }));
  await w.endSection(Section.header);
  await refusedImport(w.take(), /^The version of the snapshot file 7 is not compatible with the node\. Only the following versions can be imported: 1\.$/, "version 7");
});

test.run();
