/**
 * Snapshot export: `exportSnapshot` resolves the target block, counts what it will write, and
 * hands back the header and a stream of chunks that reads the store as it is pulled: the
 * protocols, the blocks from genesis (full) or the target's predecessors over its
 * `max_operations_ttl` (rolling) up to the target, then the target's context commit and every
 * node reachable from it, parents before children.
 * @module
 */
import { B58, b58decode, b58encode } from "../../encoding/base58.ts";
import { toRfc3339 } from "../../encoding/time.ts";
import { blockMetadataHash, BlockStore, operationsMetadataHashes } from "../block-store.ts";
import type { KeyValueStore } from "../kv.ts";
import { prefixRange, key, Table } from "../tables.ts";
import { commitKey } from "../context/loader.ts";
import { contextNodes } from "./context-walk.ts";
import { type BlockRecord, Frame, FORMAT_NAME, encodeBlockRecord, encodeHeader, Section, SNAPSHOT_VERSION, SnapshotError, type SnapshotHeader, type SnapshotMode } from "./format.ts";
import { FrameWriter } from "./frames.ts";
import { exportTarget, readStoredBlock, type StoredBlock } from "./target.ts";

/** Counters that export and import keep up to date as they go (read them for progress). */
export interface SnapshotProgress {
  /** The section being written or read. */
  section: "header" | "protocols" | "blocks" | "context" | "done";
  blocks: number;
  nodes: number;
  /** Bytes written or read so far. */
  bytes: number;
}

/** A new progress record. */
export function newProgress(): SnapshotProgress {
  return { section: "header", blocks: 0, nodes: 0, bytes: 0 };
}

/** What to export. */
export interface ExportOptions {
  /** The chain's id (4 bytes) and genesis. */
  readonly chainId: Uint8Array;
  readonly chainName: string;
  readonly genesis: string;
  /** A block identifier (`parseBlockId`'s forms); the checkpoint by default. */
  readonly block?: string;
  /** A rolling snapshot instead of a full one. */
  readonly rolling?: boolean;
  /** Updated as the chunks are pulled. */
  readonly progress?: SnapshotProgress;
}

/** A snapshot ready to be written: its header and its bytes. */
export interface SnapshotExport {
  readonly header: SnapshotHeader;
  /** The file's bytes in chunks of about 1 MiB; reads the store as it is pulled. */
  readonly chunks: AsyncIterable<Uint8Array>;
}

/**
 * Prepares the export of the chain in `kv` (which must stay open and unchanged until the chunks
 * are all pulled).
 * @throws {SnapshotError} for a store without this chain or a block that cannot be exported.
 */
export function exportSnapshot(kv: KeyValueStore, options: ExportOptions): SnapshotExport {
  const store = new BlockStore(kv, options.chainId);
  if (store.chainData("history_mode") === undefined) {
    throw new SnapshotError(`The data directory holds no chain ${b58encode(B58.chainId, options.chainId)}: nothing to export.`);
  }
  const mode: SnapshotMode = options.rolling === true ? "rolling" : "full";
  const { block: target, firstLevel } = exportTarget(store, options.block, mode);
  const hashes = branchHashes(store, target, firstLevel);
  const commit = kv.get(commitKey(b58decode(B58.contextHash, target.header.context)));
  if (commit === undefined) throw new SnapshotError(`The context ${target.header.context} of the selected block is missing from the store.`);
  const commitBytes: Uint8Array = commit;
  const root = commit.slice(1, 33);
  let nodeCount = 0;
  for (const _ of contextNodes(kv, root)) nodeCount++;
  const protocols = [...kv.range(prefixRange(key(Table.protocols)))].length;
  const header: SnapshotHeader = {
    format: FORMAT_NAME,
    version: SNAPSHOT_VERSION,
    chain_id: b58encode(B58.chainId, options.chainId),
    chain_name: options.chainName,
    genesis: options.genesis,
    block_hash: target.hash,
    level: target.header.level,
    timestamp: toRfc3339(target.header.timestamp),
    context_hash: target.header.context,
    history_mode: mode,
    first_level: firstLevel,
    protocols,
    blocks: 1 + hashes.length,
    context_nodes: nodeCount,
  };
  const progress = options.progress;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const w = await FrameWriter.create();
    const step = () => {
      if (progress !== undefined) progress.bytes = w.bytes;
    };
    w.frame(Frame.header, encodeHeader(header));
    await w.endSection(Section.header);
    if (progress) progress.section = "protocols";
    for (const [k, v] of kv.range(prefixRange(key(Table.protocols)))) {
      const p = new Uint8Array(k.length - 1 + v.length);
      p.set(k.subarray(1));
      p.set(v, k.length - 1);
      w.frame(Frame.protocol, p);
    }
    await w.endSection(Section.protocols);
    if (progress) progress.section = "blocks";
    const genesis = readStoredBlock(store, options.genesis);
    if (genesis === undefined) throw new SnapshotError(`The genesis block ${options.genesis} is missing from the store.`);
    const blocks = [genesis.hash, ...hashes.map((h) => b58encode(B58.blockHash, h))];
    for (const hash of blocks) {
      const b = hash === target.hash ? target : readStoredBlock(store, hash);
      if (b === undefined) throw new SnapshotError(`Block ${hash} is missing from the store.`);
      const record: BlockRecord = {
        header: b.bytes,
        operations: store.operations(hash) ?? [],
        protocol: b.info.protocol,
        next_protocol: b.info.next_protocol,
        max_operations_ttl: b.info.max_operations_ttl,
        last_allowed_fork_level: b.info.last_allowed_fork_level,
        metadata_hash: blockMetadataHash(b.info),
        operations_metadata_hashes: operationsMetadataHashes(b.info),
      };
      if ((b === target || hash === genesis.hash) && b.info.metadata !== undefined) {
        record.metadata = { block: b.info.metadata, operations: b.info.operations_metadata ?? [] };
      }
      w.frame(Frame.block, encodeBlockRecord(record));
      if (progress) progress.blocks++;
      step();
      if (w.full) yield w.take();
    }
    await w.endSection(Section.blocks);
    if (progress) progress.section = "context";
    w.frame(Frame.commit, commitBytes);
    for (const node of contextNodes(kv, root)) {
      w.frame(Frame.node, node);
      if (progress) progress.nodes++;
      step();
      if (w.full) yield w.take();
    }
    await w.endSection(Section.context);
    w.end();
    step();
    if (progress) progress.section = "done";
    yield w.take();
  }
  return { header, chunks: chunks() };
}

/** Raw hashes of the target's predecessors from `firstLevel` up to the target, oldest first. */
function branchHashes(store: BlockStore, target: StoredBlock, firstLevel: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let cur: StoredBlock | undefined = target;
  while (cur !== undefined && cur.header.level >= firstLevel) {
    out.push(b58decode(B58.blockHash, cur.hash));
    if (cur.header.level === firstLevel) break;
    const pred: string = cur.header.predecessor;
    cur = readStoredBlock(store, pred);
    if (cur === undefined) throw new SnapshotError(`Block ${pred}, a predecessor of ${target.hash}, is missing from the store.`);
  }
  return out.reverse();
}
