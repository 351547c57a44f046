/**
 * The block store: headers, operations and the shell's record of each block (protocols, metadata
 * bytes), the main-branch level index, per-chain data (head, checkpoint, savepoint, caboose),
 * invalid blocks and known protocols. Reads are synchronous and go to the key-value store; writes
 * are returned as `WriteOp`s so that a block, its context and the head move land in one atomic
 * `write`.
 * @module
 */
import { B58, b58decode, b58encode } from "../encoding/base58.ts";
import { bytes, fixedBytes, string as stringCodec } from "../encoding/bytes.ts";
import { blake2b256 } from "../crypto/blake2b.ts";
import { decodeBinary, encodeBinary, type Json } from "../encoding/codec.ts";
import { blockHash as blockHashCodec, protocolHash } from "../encoding/hashes.ts";
import { int32, uint16 } from "../encoding/integers.ts";
import { list } from "../encoding/list.ts";
import { obj, req } from "../encoding/object.ts";
import type { KeyValueStore, WriteOp } from "./kv.ts";
import { compressedRowsOp, compressRow, decompressRow, hasCompressedRows } from "./row-compression.ts";
import { key, prefixRange, readU32, Table, u32 } from "./tables.ts";

/** What the shell records of a block beside its header and operations. */
export interface BlockInfo {
  /** Protocol that validated this block (the predecessor's `next_protocol`). */
  protocol: string;
  /** Protocol that validates the next block. */
  next_protocol: string;
  /** How many blocks back an operation's branch may be, for the next block. */
  max_operations_ttl: number;
  /** Level below which no fork is allowed once this block is head (it moves the checkpoint). */
  last_allowed_fork_level: number;
  /**
   * Block metadata in the binary encoding of `protocol` (empty for the genesis block); absent once
   * pruned by the history mode (the block is then below the savepoint).
   */
  metadata?: Uint8Array;
  /** Receipts of the operations, per validation pass, in the binary encoding of `protocol`; absent once pruned. */
  operations_metadata?: Uint8Array[][];
  /** BLAKE2b-256 of `metadata`, kept when the metadata is pruned (Octez keeps `metadata_hash`). */
  metadata_hash?: Uint8Array;
  /** BLAKE2b-256 of each receipt, kept when the metadata is pruned. */
  operations_metadata_hashes?: Uint8Array[][];
}

/** A block's record as it is stored first, metadata and receipts included. */
export type FullBlockInfo = BlockInfo & { metadata: Uint8Array; operations_metadata: Uint8Array[][] };

/** What a block whose metadata is pruned keeps of its record. */
export type PrunedBlockInfo = Omit<BlockInfo, "metadata" | "operations_metadata"> & { metadata_hash: Uint8Array; operations_metadata_hashes: Uint8Array[][] };

/** The BLAKE2b-256 of a block's metadata, whether the metadata is still stored or pruned. */
export function blockMetadataHash(info: BlockInfo): Uint8Array {
  return info.metadata !== undefined ? blake2b256(info.metadata) : (info.metadata_hash ?? blake2b256(new Uint8Array(0)));
}

/** The BLAKE2b-256 of each receipt, per validation pass, whether the receipts are still stored or pruned. */
export function operationsMetadataHashes(info: BlockInfo): Uint8Array[][] {
  return info.operations_metadata !== undefined ? info.operations_metadata.map((pass) => pass.map((r) => blake2b256(r))) : (info.operations_metadata_hashes ?? []);
}

const blockInfoCodec = obj(
  req("protocol", protocolHash),
  req("next_protocol", protocolHash),
  req("max_operations_ttl", uint16),
  req("last_allowed_fork_level", int32),
  req("metadata", bytes),
  req("operations_metadata", list(list(bytes))),
);

/** The record kept once the metadata is pruned (table `blockSummary`). */
const blockSummaryCodec = obj(
  req("protocol", protocolHash),
  req("next_protocol", protocolHash),
  req("max_operations_ttl", uint16),
  req("last_allowed_fork_level", int32),
  req("metadata_hash", fixedBytes(32)),
  req("operations_metadata_hashes", list(list(fixedBytes(32)))),
);

const operationsCodec = list(list(bytes));

/** An entry of `/chains/<chain>/invalid_blocks`. */
export interface InvalidBlock {
  block: string;
  level: number;
  errors: Json;
}

const invalidBlockCodec = obj(req("block", blockHashCodec), req("level", int32), req("errors", stringCodec));

/** Per-chain data names in the `chainData` table. */
export type ChainDataName =
  | "head"
  | "checkpoint"
  | "savepoint"
  | "caboose"
  | "history_mode"
  | "known_heads"
  /** The history bookkeeping of `lib/shell/history-levels.ts` (cementing highwatermark, cycles, floating floor). */
  | "history_levels"
  /** How far the pruner went (`lib/store/pruner.ts`). */
  | "pruned"
  /** Blocks a sandbox revert forgot, which the pruner deletes (`Chain.revertTo`). */
  | "forgotten"
  /** The sandbox's snapshots (`lib/sandbox/snapshots.ts`). */
  | "sandbox_snapshots";

const rawHash = (h: string) => b58decode(B58.blockHash, h);

/** Typed access to the chain tables of a key-value store. */
export class BlockStore {
  readonly kv: KeyValueStore;
  readonly chainId: Uint8Array;
  /** Whether operations and records are stored compressed (`row-compression.ts`). */
  #compressed: boolean;

  constructor(kv: KeyValueStore, chainId: Uint8Array) {
    this.kv = kv;
    this.chainId = chainId;
    this.#compressed = hasCompressedRows(kv);
  }

  /**
   * For a new store, before its first block: from now on rows are written compressed; the
   * returned write records it and goes in the same write as the genesis block.
   */
  startCompressedRows(): WriteOp {
    this.#compressed = true;
    return compressedRowsOp();
  }

  #pack(bytes: Uint8Array): Uint8Array {
    return this.#compressed ? compressRow(bytes) : bytes;
  }

  #unpack(bytes: Uint8Array): Uint8Array {
    return this.#compressed ? decompressRow(bytes) : bytes;
  }

  /** Raw header bytes of a block, or `undefined` if unknown. */
  header(hash: string): Uint8Array | undefined {
    return this.kv.get(key(Table.blockHeader, rawHash(hash)));
  }

  /** Operations of a block (raw bytes per validation pass). */
  operations(hash: string): Uint8Array[][] | undefined {
    const v = this.kv.get(key(Table.blockOperations, rawHash(hash)));
    return v === undefined ? undefined : decodeBinary(operationsCodec, this.#unpack(v));
  }

  /** The shell's record of a block (without `metadata` and `operations_metadata` once pruned). */
  info(hash: string): BlockInfo | undefined {
    const h = rawHash(hash);
    const v = this.kv.get(key(Table.blockMetadata, h));
    if (v !== undefined) return decodeBinary(blockInfoCodec, this.#unpack(v)) as BlockInfo;
    const s = this.kv.get(key(Table.blockSummary, h));
    return s === undefined ? undefined : decodeBinary(blockSummaryCodec, s);
  }

  /** Whether the block's metadata is stored (not pruned, not unknown). */
  hasMetadata(hash: string): boolean {
    return this.kv.get(key(Table.blockMetadata, rawHash(hash))) !== undefined;
  }

  /**
   * Writes that drop a block's metadata and receipts, keeping its summary (protocols, TTL, fork
   * level, metadata hashes); none when the metadata is already gone.
   */
  pruneMetadata(hash: string): WriteOp[] {
    const info = this.info(hash);
    if (info === undefined || info.metadata === undefined) return [];
    const h = rawHash(hash);
    const summary = {
      protocol: info.protocol,
      next_protocol: info.next_protocol,
      max_operations_ttl: info.max_operations_ttl,
      last_allowed_fork_level: info.last_allowed_fork_level,
      metadata_hash: blockMetadataHash(info),
      operations_metadata_hashes: operationsMetadataHashes(info),
    };
    return [
      { key: key(Table.blockSummary, h), value: encodeBinary(blockSummaryCodec, summary) },
      { key: key(Table.blockMetadata, h) },
    ];
  }

  /** Writes that delete a block whole: header, operations, metadata or summary (not its level row). */
  deleteBlock(hash: string): WriteOp[] {
    const h = rawHash(hash);
    const ops: WriteOp[] = [{ key: key(Table.blockHeader, h) }, { key: key(Table.blockMetadata, h) }, { key: key(Table.blockSummary, h) }];
    for (const [k] of this.kv.range(prefixRange(key(Table.blockOperations, h)))) ops.push({ key: k });
    return ops;
  }

  /** Write that drops the main-branch index row of `level`. */
  deleteLevel(level: number): WriteOp {
    return { key: key(Table.levelIndex, this.chainId, u32(level)) };
  }

  /** Writes that store a whole block. */
  putBlock(hash: string, header: Uint8Array, operations: Uint8Array[][], info: FullBlockInfo): WriteOp[] {
    const h = rawHash(hash);
    return [
      { key: key(Table.blockHeader, h), value: header },
      { key: key(Table.blockOperations, h), value: this.#pack(encodeBinary(operationsCodec, operations)) },
      { key: key(Table.blockMetadata, h), value: this.#pack(encodeBinary(blockInfoCodec, info)) },
    ];
  }

  /**
   * Writes that store a block without its metadata (a snapshot's blocks below its target): header,
   * operations and the summary a pruned block keeps.
   */
  putPrunedBlock(hash: string, header: Uint8Array, operations: Uint8Array[][], summary: PrunedBlockInfo): WriteOp[] {
    const h = rawHash(hash);
    return [
      { key: key(Table.blockHeader, h), value: header },
      { key: key(Table.blockOperations, h), value: this.#pack(encodeBinary(operationsCodec, operations)) },
      { key: key(Table.blockSummary, h), value: encodeBinary(blockSummaryCodec, summary) },
    ];
  }

  /** Hash of the main-branch block at `level`. */
  hashAtLevel(level: number): string | undefined {
    if (!Number.isInteger(level) || level < 0 || level > 0xffffffff) return undefined;
    const v = this.kv.get(key(Table.levelIndex, this.chainId, u32(level)));
    return v === undefined ? undefined : b58encode(B58.blockHash, v);
  }

  /** Write that records `hash` as the main-branch block at `level`. */
  putLevel(level: number, hash: string): WriteOp {
    return { key: key(Table.levelIndex, this.chainId, u32(level)), value: rawHash(hash) };
  }

  /** Writes that drop the main-branch index above `level`. */
  truncateLevels(level: number): WriteOp[] {
    const ops: WriteOp[] = [];
    const { lt } = prefixRange(key(Table.levelIndex, this.chainId));
    for (const [k] of this.kv.range({ gte: key(Table.levelIndex, this.chainId, u32(level + 1)), lt })) ops.push({ key: k });
    return ops;
  }

  /** Raw value of a per-chain datum. */
  chainData(name: ChainDataName): Uint8Array | undefined {
    return this.kv.get(key(Table.chainData, this.chainId, name));
  }

  /** Write of a per-chain datum. */
  putChainData(name: ChainDataName, value: Uint8Array): WriteOp {
    return { key: key(Table.chainData, this.chainId, name), value };
  }

  /** Every recorded invalid block. */
  invalidBlocks(): InvalidBlock[] {
    const out: InvalidBlock[] = [];
    for (const [, v] of this.kv.range(prefixRange(key(Table.invalidBlocks)))) out.push(decodeInvalid(v));
    return out;
  }

  /** One invalid block, if recorded. */
  invalidBlock(hash: string): InvalidBlock | undefined {
    const v = this.kv.get(key(Table.invalidBlocks, rawHash(hash)));
    return v === undefined ? undefined : decodeInvalid(v);
  }

  /** Write that records (or, without `entry`, removes) an invalid block. */
  putInvalidBlock(hash: string, entry?: InvalidBlock): WriteOp {
    const k = key(Table.invalidBlocks, rawHash(hash));
    if (entry === undefined) return { key: k };
    return { key: k, value: encodeBinary(invalidBlockCodec, { ...entry, errors: JSON.stringify(entry.errors) }) };
  }

  /** Stored protocol record bytes by protocol hash. */
  protocol(hash: string): Uint8Array | undefined {
    return this.kv.get(key(Table.protocols, b58decode(B58.protocolHash, hash)));
  }

  /** Hashes of every stored protocol, in key order. */
  protocolHashes(): string[] {
    const out: string[] = [];
    for (const [k] of this.kv.range(prefixRange(key(Table.protocols)))) out.push(b58encode(B58.protocolHash, k.subarray(1)));
    return out;
  }

  /** Write that stores a protocol record. */
  putProtocol(hash: string, record: Uint8Array): WriteOp {
    return { key: key(Table.protocols, b58decode(B58.protocolHash, hash)), value: record };
  }
}

function decodeInvalid(v: Uint8Array): InvalidBlock {
  const r = decodeBinary(invalidBlockCodec, v);
  return { block: r.block, level: r.level, errors: JSON.parse(r.errors) as Json };
}

/** A block hash and level packed as 36 bytes (checkpoint, savepoint, caboose values). */
export function encodeBlockLocator(hash: string, level: number): Uint8Array {
  const out = new Uint8Array(36);
  out.set(rawHash(hash), 0);
  out.set(u32(level), 32);
  return out;
}

/** Inverse of `encodeBlockLocator`. */
export function decodeBlockLocator(v: Uint8Array): { hash: string; level: number } {
  return { hash: b58encode(B58.blockHash, v.subarray(0, 32)), level: readU32(v, 32) };
}
