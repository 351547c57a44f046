/**
 * Snapshot import: `importSnapshot` reads a snapshot stream into a store, checking as it reads
 * (each section's count and digest, each block's hash, its link to its predecessor and its
 * operations' Merkle root, each context node's hash and that it was linked to, the target's
 * context hash, the final digest), writing blocks and nodes in batches as they come and the
 * chain data (head, checkpoint, savepoint, caboose, history mode, known heads) last, only once
 * everything checked. Until that last write the store holds no chain: give it a fresh store
 * that is thrown away on failure (the command line imports into a temporary directory).
 * @module
 */
import { B58, b58decode, b58encode } from "../../encoding/base58.ts";
import { decodeBinary } from "../../encoding/codec.ts";
import { rawBlockHeader, type RawBlockHeader } from "../../encoding/block-header.ts";
import { blockHash, chainIdOfGenesis, operationHash, operationListHash, operationListListHash } from "../../crypto/hashes.ts";
import { blake2b256 } from "../../crypto/blake2b.ts";
import { blockMetadataHash, BlockStore, encodeBlockLocator, operationsMetadataHashes } from "../block-store.ts";
import type { KeyValueStore, WriteOp } from "../kv.ts";
import { commitKey, nodeKey } from "../context/loader.ts";
import { canonicalLinks } from "./context-walk.ts";
import { sameBytes } from "./digest.ts";
import type { SnapshotProgress } from "./export.ts";
import { decodeBlockRecord, decodeHeader, Frame, Section, SnapshotError, type SnapshotHeader } from "./format.ts";
import { FrameReader } from "./frames.ts";

/** How to import. */
export interface ImportOptions {
  /** The chain the node runs (a snapshot of another chain is refused). */
  readonly chainId: Uint8Array;
  readonly chainName: string;
  /** The block hash the snapshot must hold (Octez's `--block` at import). */
  readonly block?: string;
  /** Updated as the stream is read. */
  readonly progress?: SnapshotProgress;
  /** Called with the header once it is read and checked, before anything is written. */
  readonly onHeader?: (header: SnapshotHeader) => void;
}

/** Writes are flushed in batches of about this many bytes. */
const BATCH_BYTES = 4 * 1024 * 1024;

const idOf = (h: Uint8Array) => String.fromCharCode.apply(null, h as unknown as number[]);

/**
 * Imports the snapshot `source` into `kv` (a fresh store) and returns its header.
 * @throws {SnapshotError} for a corrupt, truncated or foreign snapshot; `kv` then holds no chain.
 */
export async function importSnapshot(source: AsyncIterable<Uint8Array>, kv: KeyValueStore, options: ImportOptions): Promise<SnapshotHeader> {
  const progress = options.progress;
  const r = await FrameReader.open(source);
  const read = async (id: (typeof Section)[keyof typeof Section], tags: readonly number[]) => {
    const f = await r.next(id, tags);
    if (progress) progress.bytes = r.bytes;
    return f;
  };

  // Header: a single frame, checked before anything is written.
  const hf = await read(Section.header, [Frame.header]);
  if (hf === undefined) throw new SnapshotError("the header section is empty");
  const header = decodeHeader(hf.payload);
  if ((await read(Section.header, [])) !== undefined) throw new SnapshotError("the header section holds more than one frame");
  const chainId = b58encode(B58.chainId, options.chainId);
  if (header.chain_id !== chainId || header.chain_name !== options.chainName) {
    throw new SnapshotError(
      `The chain name contained in the snapshot file (${header.chain_name}, chain ${header.chain_id}) is not consistent with the network configured in the targeted data directory (${options.chainName}, chain ${chainId}).`,
    );
  }
  const genesisRaw = b58decode(B58.blockHash, header.genesis);
  if (!sameBytes(chainIdOfGenesis(genesisRaw), options.chainId)) throw new SnapshotError(`the header's genesis ${header.genesis} is not the genesis of chain ${chainId}`);
  if (options.block !== undefined && options.block !== header.block_hash) {
    throw new SnapshotError(`The block contained in the file is ${header.block_hash} instead of ${options.block}.`);
  }
  options.onHeader?.(header);

  const store = new BlockStore(kv, options.chainId);
  let batch: WriteOp[] = [store.startCompressedRows()]; // a new store, as Chain.open makes one
  let batchBytes = 0;
  const put = async (ops: WriteOp[]) => {
    for (const op of ops) batchBytes += op.key.length + (op.value?.length ?? 0);
    batch.push(...ops);
    if (batchBytes >= BATCH_BYTES) await flush();
  };
  const flush = async () => {
    if (batch.length > 0) await kv.write(batch);
    batch = [];
    batchBytes = 0;
  };

  // Protocols.
  if (progress) progress.section = "protocols";
  let protocols = 0;
  for (let f; (f = await read(Section.protocols, [Frame.protocol])); ) {
    if (f.payload.length < 32) throw new SnapshotError("a protocol record is shorter than its hash");
    await put([store.putProtocol(b58encode(B58.protocolHash, f.payload.subarray(0, 32)), f.payload.slice(32))]);
    protocols++;
  }

  // Blocks: genesis, then a chain of predecessors up to the target.
  if (progress) progress.section = "blocks";
  let blocks = 0;
  let prev: { hash: string; level: number } | undefined;
  let target: RawBlockHeader | undefined;
  for (let f; (f = await read(Section.blocks, [Frame.block])); ) {
    const rec = decodeBlockRecord(f.payload);
    let h: RawBlockHeader;
    try {
      h = decodeBinary(rawBlockHeader, rec.header);
    } catch {
      throw new SnapshotError(`block record ${blocks} has a header that does not decode`);
    }
    let hash: string;
    if (blocks === 0) {
      if (h.level !== 0) throw new SnapshotError("the blocks section does not start with the genesis block");
      hash = header.genesis;
    } else {
      hash = b58encode(B58.blockHash, blockHash(rec.header));
      const expectedLevel = blocks === 1 ? Math.max(header.first_level, 1) : prev!.level + 1;
      if (h.level !== expectedLevel) throw new SnapshotError(`block ${hash} is at level ${h.level}, expected ${expectedLevel}`);
      if (blocks > 1 || h.level === 1) {
        if (h.predecessor !== prev!.hash) throw new SnapshotError(`block ${hash} at level ${h.level} does not follow ${prev!.hash}`);
      }
      const lists = rec.operations.map((pass) => operationListHash(pass.map(operationHash)));
      if (b58encode(B58.operationListListHash, operationListListHash(lists)) !== h.operations_hash) {
        throw new SnapshotError(`the operations of block ${hash} do not match its header's operations_hash`);
      }
    }
    const isTarget = h.level === header.level;
    if (isTarget) {
      if (hash !== header.block_hash) throw new SnapshotError(`the block at level ${h.level} is ${hash}, not the header's ${header.block_hash}`);
      if (rec.metadata === undefined) throw new SnapshotError(`the target block ${hash} comes without its metadata`);
      target = h;
    }
    const shell = {
      protocol: rec.protocol,
      next_protocol: rec.next_protocol,
      max_operations_ttl: rec.max_operations_ttl,
      last_allowed_fork_level: rec.last_allowed_fork_level,
    };
    if (rec.metadata !== undefined) {
      const info = { ...shell, metadata: rec.metadata.block, operations_metadata: rec.metadata.operations };
      const receipts = operationsMetadataHashes(info);
      if (!sameBytes(blockMetadataHash(info), rec.metadata_hash) || JSON.stringify(receipts) !== JSON.stringify(rec.operations_metadata_hashes)) {
        throw new SnapshotError(`the metadata of block ${hash} does not match its metadata hashes`);
      }
      await put([...store.putBlock(hash, rec.header, rec.operations, info), store.putLevel(h.level, hash)]);
    } else {
      const summary = { ...shell, metadata_hash: rec.metadata_hash, operations_metadata_hashes: rec.operations_metadata_hashes };
      await put([...store.putPrunedBlock(hash, rec.header, rec.operations, summary), store.putLevel(h.level, hash)]);
    }
    prev = { hash, level: h.level };
    blocks++;
    if (progress) progress.blocks = blocks;
    if (isTarget) break;
  }
  if (target === undefined) throw new SnapshotError(`the blocks section does not reach the target block ${header.block_hash}`);
  if ((await read(Section.blocks, [])) !== undefined) throw new SnapshotError("the blocks section goes on after the target block");

  // Context: the commit, then every node it reaches, each linked to by one read before.
  if (progress) progress.section = "context";
  const cf = await read(Section.context, [Frame.commit]);
  if (cf === undefined || cf.tag !== Frame.commit) throw new SnapshotError("the context section does not start with the commit");
  const commitHash = blake2b256(cf.payload);
  if (b58encode(B58.contextHash, commitHash) !== target.context) {
    throw new SnapshotError(`Inconsistent context_hash. Expected: ${target.context}, got ${b58encode(B58.contextHash, commitHash)}.`);
  }
  if (cf.payload.length < 33 || cf.payload[0] !== 0x10) throw new SnapshotError("the context commit does not decode");
  await put([{ key: commitKey(commitHash), value: cf.payload }]);
  const expected = new Set<string>([idOf(cf.payload.subarray(1, 33))]);
  const seen = new Set<string>();
  let nodes = 0;
  for (let f; (f = await read(Section.context, [Frame.node])); ) {
    const h = blake2b256(f.payload);
    const id = idOf(h);
    if (!expected.delete(id)) throw new SnapshotError(`context node ${nodes} is not linked to by the nodes before it`);
    seen.add(id);
    const children = canonicalLinks(f.payload);
    for (const c of children) {
      const cid = idOf(c);
      if (!seen.has(cid)) expected.add(cid);
    }
    await put([{ key: nodeKey(h), value: f.payload }]);
    nodes++;
    if (progress) progress.nodes = nodes;
  }
  if (expected.size > 0) throw new SnapshotError(`the context lacks ${expected.size} nodes reachable from the target's commit`);
  await r.end();
  if (progress) progress.bytes = r.bytes;
  if (protocols !== header.protocols || blocks !== header.blocks || nodes !== header.context_nodes) {
    throw new SnapshotError(
      `the file holds ${protocols} protocols, ${blocks} blocks and ${nodes} context nodes; its header says ${header.protocols}, ${header.blocks} and ${header.context_nodes}`,
    );
  }

  // Everything checked: the chain data, which makes the store a node's.
  await flush();
  const head = encodeBlockLocator(header.block_hash, header.level);
  const cabooseLevel = header.history_mode === "full" || header.first_level <= 1 ? 0 : header.first_level;
  const caboose = encodeBlockLocator(store.hashAtLevel(cabooseLevel)!, cabooseLevel);
  await kv.write([
    store.putChainData("head", head),
    store.putChainData("checkpoint", head),
    store.putChainData("savepoint", head),
    store.putChainData("caboose", caboose),
    store.putChainData("history_mode", new TextEncoder().encode(header.history_mode)),
    store.putChainData("known_heads", b58decode(B58.blockHash, header.block_hash)),
  ]);
  if (progress) progress.section = "done";
  return header;
}

/**
 * Reads and checks the header of a snapshot stream (its first section, digest included) without
 * reading further.
 * @throws {SnapshotError}
 */
export async function readSnapshotHeader(source: AsyncIterable<Uint8Array>): Promise<SnapshotHeader> {
  const r = await FrameReader.open(source);
  const f = await r.next(Section.header, [Frame.header]);
  if (f === undefined) throw new SnapshotError("the header section is empty");
  const header = decodeHeader(f.payload);
  if ((await r.next(Section.header, [])) !== undefined) throw new SnapshotError("the header section holds more than one frame");
  return header;
}
