/**
 * Blocks per second of the sandbox chain, on memory and on LMDB:
 *  (a) bake: a node in `manual` bake mode (`createNode`) bakes `blocks` blocks through
 *      `POST /sandbox/bake?count=n`; each block is planned, its endorsements and nonce
 *      revelations forged and signed, preapplied, given a proof of work, signed, then validated
 *      and stored by the block validator (so a bake applies the block twice);
 *  (b) validate: the same blocks (raw header bytes and operations, as stored) are validated again,
 *      in order, on a second fresh chain: `validator.apply` (shell checks, protocol application,
 *      context commit) then `chain.storeBlock` (one atomic write: context nodes, block, head move),
 *      each timed apart.
 * With the sandbox's 8-block cycles, 200 blocks cross 25 cycle ends (rolls snapshot, rewards
 * and deposits unfrozen, nonce revelations). On LMDB every block is one durable commit.
 *
 * Run alone: `npx tsx bench/chain.ts [blocks]` (default 200), or with everything: `npm run bench`.
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { isMainModule } from "./cli.ts";
import { createNode } from "../lib/node.ts";
import { applyWrites, genesisContextWrites } from "../lib/protocols/genesis/context.ts";
import { genesisProtocol } from "../lib/protocols/genesis/protocol.ts";
import { hangzhouProtocol } from "../lib/protocols/hangzhou/protocol.ts";
import { Chain } from "../lib/shell/chain.ts";
import { chainIdOf, genesisBlock, SANDBOX_GENESIS } from "../lib/shell/genesis.ts";
import type { Protocol } from "../lib/shell/protocol.ts";
import { BlockValidator } from "../lib/shell/validator.ts";
import { BlockStore, decodeBlockLocator } from "../lib/store/block-store.ts";
import type { Context } from "../lib/store/context/mod.ts";
import type { KeyValueStore } from "../lib/store/kv.ts";
import { MemoryStore } from "../lib/store/memory.ts";
import { openLmdbStore } from "../platform/store/lmdb.ts";

/** Settings of the chain bench. */
export interface ChainBenchOptions {
  /** Blocks baked, then validated again (default 200). */
  readonly blocks?: number;
  /** Stores to run on (default both). */
  readonly stores?: readonly StoreKind[];
}

/** Where the chains of one run live. */
export type StoreKind = "memory" | "lmdb";

/** One row of the result table: blocks per second of each phase. */
export interface ChainBenchRow {
  readonly store: StoreKind;
  readonly blocks: number;
  /** Baked, validated and stored (the whole `POST /sandbox/bake`). */
  readonly bake: number;
  /** Validated and stored again on a fresh chain. */
  readonly validate: number;
  /** `validator.apply` alone (no store write). */
  readonly apply: number;
  /** `chain.storeBlock` alone (the write of the block, its context and the head). */
  readonly store_: number;
  /** Operations in the baked blocks (endorsements and nonce revelations). */
  readonly operations: number;
}

/** A block as stored: raw header and operations per validation pass. */
interface RecordedBlock {
  readonly level: number;
  readonly bytes: Uint8Array;
  readonly operations: Uint8Array[][];
}

/** Runs the bench, prints its table, and returns its rows. */
export async function benchChain(options: ChainBenchOptions = {}): Promise<ChainBenchRow[]> {
  const { blocks = 200, stores = ["memory", "lmdb"] } = options;
  if (!Number.isInteger(blocks) || blocks < 1) throw new RangeError(`blocks must be a positive integer, got ${blocks}`);
  const rows: ChainBenchRow[] = [];
  for (const kind of stores) rows.push(await benchStore(kind, blocks));
  printTable(rows);
  return rows;
}

async function benchStore(kind: StoreKind, blocks: number): Promise<ChainBenchRow> {
  const dirs: string[] = [];
  const open = async (): Promise<KeyValueStore> => {
    if (kind === "memory") return new MemoryStore();
    const dir = await mkdtemp(join(tmpdir(), "tezos-bench-chain-"));
    dirs.push(dir);
    return openLmdbStore(dir);
  };
  try {
    const baked = await bake(await open(), blocks);
    const validated = await validate(await open(), baked.chain, baked.first);
    return {
      store: kind,
      blocks,
      bake: blocks / baked.seconds,
      validate: blocks / (validated.applySeconds + validated.storeSeconds),
      apply: blocks / validated.applySeconds,
      store_: blocks / validated.storeSeconds,
      operations: baked.chain.slice(baked.first).reduce((n, b) => n + b.operations.flat().length, 0),
    };
  } finally {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

/** Bakes `blocks` blocks on a fresh manual-mode node; the whole chain from level 1 as stored. */
async function bake(kv: KeyValueStore, blocks: number): Promise<{ seconds: number; chain: RecordedBlock[]; first: number }> {
  const node = await createNode({ store: kv, bake: { mode: "manual" } });
  try {
    const store = new BlockStore(kv, chainIdOf(SANDBOX_GENESIS));
    const startLevel = levelOfHead(store);
    const start = performance.now();
    const res = await node.fetch(new Request(`http://localhost/sandbox/bake?count=${blocks}`, { method: "POST" }));
    if (res.status !== 200) throw new Error(`POST /sandbox/bake answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    const seconds = (performance.now() - start) / 1000;
    const head = levelOfHead(store);
    if (head !== startLevel + blocks) throw new Error(`baked to level ${head}, expected ${startLevel + blocks}`);
    const chain: RecordedBlock[] = [];
    for (let level = 1; level <= head; level++) {
      const hash = store.hashAtLevel(level)!;
      chain.push({ level, bytes: store.header(hash)!, operations: store.operations(hash)! });
    }
    return { seconds, chain, first: startLevel };
  } finally {
    await node.close();
  }
}

function levelOfHead(store: BlockStore): number {
  const head = store.chainData("head");
  if (head === undefined) throw new Error("the store has no head");
  return decodeBlockLocator(head).level;
}

/**
 * Validates `chain` again on a fresh chain over `kv`; the blocks before index `first` (activation
 * and start-up blocks) are replayed untimed.
 */
async function validate(kv: KeyValueStore, chain: readonly RecordedBlock[], first: number) {
  const prepare = (ctx: Context) => applyWrites(ctx, genesisContextWrites(SANDBOX_GENESIS.protocol, { genesis_pubkey: SANDBOX_GENESIS.genesisPubkey }));
  const fresh = await Chain.open(kv, chainIdOf(SANDBOX_GENESIS), genesisBlock(kv, SANDBOX_GENESIS, prepare), "full");
  const embedded = new Map<string, Protocol>([genesisProtocol, hangzhouProtocol].map((p) => [p.hash, p]));
  const validator = new BlockValidator(fresh, (h) => embedded.get(h));
  let applySeconds = 0;
  let storeSeconds = 0;
  try {
    for (const [i, b] of chain.entries()) {
      const t0 = performance.now();
      const block = await validator.apply(b.bytes, b.operations);
      const t1 = performance.now();
      const { head } = await fresh.storeBlock(block);
      const t2 = performance.now();
      if (!head) throw new Error(`block at level ${b.level} did not become the head`);
      if (i >= first) {
        applySeconds += (t1 - t0) / 1000;
        storeSeconds += (t2 - t1) / 1000;
      }
    }
  } finally {
    fresh.close();
    await kv.close();
  }
  return { applySeconds, storeSeconds };
}

function printTable(rows: readonly ChainBenchRow[]): void {
  const head = ["store", "blocks", "ops", "bake blk/s", "validate blk/s", "apply blk/s", "store blk/s"];
  const cells = rows.map((r) => [
    r.store,
    String(r.blocks),
    String(r.operations),
    r.bake.toFixed(1),
    r.validate.toFixed(1),
    r.apply.toFixed(1),
    r.store_.toFixed(1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) => c.map((s, i) => (i === 0 ? s.padEnd(widths[i]!) : s.padStart(widths[i]!))).join("  ");
  console.log(line(head));
  for (const c of cells) console.log(line(c));
}

if (isMainModule(import.meta)) {
  const arg = process.argv[2];
  await benchChain(arg === undefined ? {} : { blocks: Number(arg) });
}
