/**
 * The snapshot file format (docs/snapshot.md): the magic bytes, frame tags, sections, the
 * header (a JSON object) and the binary record of a block. A file is
 * `MAGIC ‖ frame*`, a frame `tag u8 ‖ length u32 BE ‖ payload`; the sections come in a fixed
 * order, each closed by a `SECTION_END` frame carrying its frame count and BLAKE2b-256 digest,
 * and the file by an `END` frame carrying the digest of every byte before it.
 * @module
 */
import { bytes, fixedBytes } from "../../encoding/bytes.ts";
import { DecodeError, decodeBinary, encodeBinary } from "../../encoding/codec.ts";
import { protocolHash } from "../../encoding/hashes.ts";
import { int32, uint16 } from "../../encoding/integers.ts";
import { list } from "../../encoding/list.ts";
import { obj, opt, req } from "../../encoding/object.ts";

/** First bytes of every snapshot file: `0x89 "TZSNAP\n"` (a high byte first catches text-mode copies). */
export const MAGIC = new Uint8Array([0x89, 0x54, 0x5a, 0x53, 0x4e, 0x41, 0x50, 0x0a]);

/** The `format` field of the header. */
export const FORMAT_NAME = "tezos-node-snapshot";

/** The version this code writes. */
export const SNAPSHOT_VERSION = 1;

/** The versions this code reads. */
export const SUPPORTED_VERSIONS: readonly number[] = [1];

/** Largest frame payload accepted (a larger length is a corrupt file, not a big block). */
export const MAX_FRAME = 256 * 1024 * 1024;

/** Frame tags. */
export const Frame = {
  /** The header: UTF-8 JSON (`SnapshotHeader`). */
  header: 0x01,
  /** A protocol record: protocol hash (32) ‖ the record as the store keeps it. */
  protocol: 0x02,
  /** A block: `blockRecord` binary. */
  block: 0x03,
  /** The target block's context commit, as the store keeps it. */
  commit: 0x04,
  /** A context node, as the store keeps it (its key is its BLAKE2b-256). */
  node: 0x05,
  /** End of a section: section u8 ‖ frame count u32 BE ‖ BLAKE2b-256 of the section's frames. */
  sectionEnd: 0x0e,
  /** End of the file: BLAKE2b-256 of every byte before this frame. */
  end: 0x0f,
} as const;

/** Sections, in file order, and the frame tag each holds. */
export const Section = {
  header: 1,
  protocols: 2,
  blocks: 3,
  context: 4,
} as const;

/** A section's number. */
export type SectionId = (typeof Section)[keyof typeof Section];

/** The name of a section, for messages. */
export const SECTION_NAMES: Record<SectionId, string> = { 1: "header", 2: "protocols", 3: "blocks", 4: "context" };

/** History modes a snapshot can carry. */
export type SnapshotMode = "full" | "rolling";

/** The header of a snapshot: what `snapshot info` prints. */
export interface SnapshotHeader {
  /** Always `FORMAT_NAME`. */
  readonly format: string;
  /** Format version (`SNAPSHOT_VERSION` when written by this code). */
  readonly version: number;
  /** Chain id (`Net…`). */
  readonly chain_id: string;
  /** Chain name (`SANDBOXED_TEZOS`). */
  readonly chain_name: string;
  /** Genesis block hash of the chain. */
  readonly genesis: string;
  /** The target block: the head of the imported node. */
  readonly block_hash: string;
  readonly level: number;
  /** RFC 3339. */
  readonly timestamp: string;
  /** The target block's context hash (`Co…`). */
  readonly context_hash: string;
  /** History mode of the imported node. */
  readonly history_mode: SnapshotMode;
  /** Level of the oldest block carried after genesis (the imported node's caboose when rolling). */
  readonly first_level: number;
  /** Frames of each section. */
  readonly protocols: number;
  readonly blocks: number;
  readonly context_nodes: number;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Raised for a snapshot that cannot be exported, read or imported; the message is for users. */
export class SnapshotError extends Error {
  override name = "SnapshotError";
}

/** The header as a frame payload (JSON, keys in a fixed order). */
export function encodeHeader(h: SnapshotHeader): Uint8Array {
  const ordered: SnapshotHeader = {
    format: h.format,
    version: h.version,
    chain_id: h.chain_id,
    chain_name: h.chain_name,
    genesis: h.genesis,
    block_hash: h.block_hash,
    level: h.level,
    timestamp: h.timestamp,
    context_hash: h.context_hash,
    history_mode: h.history_mode,
    first_level: h.first_level,
    protocols: h.protocols,
    blocks: h.blocks,
    context_nodes: h.context_nodes,
  };
  return utf8.encode(JSON.stringify(ordered));
}

/**
 * Reads a header payload: format name first, then the version (an unknown one is refused with
 * Octez's message), then every field's type.
 * @throws {SnapshotError}
 */
export function decodeHeader(payload: Uint8Array): SnapshotHeader {
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(fromUtf8.decode(payload)) as Record<string, unknown>;
  } catch {
    throw new SnapshotError("the header is not valid JSON");
  }
  if (typeof j !== "object" || j === null || j.format !== FORMAT_NAME) throw new SnapshotError(`the header does not name the ${FORMAT_NAME} format`);
  if (typeof j.version !== "number" || !SUPPORTED_VERSIONS.includes(j.version)) {
    throw new SnapshotError(
      `The version of the snapshot file ${String(j.version)} is not compatible with the node. Only the following versions can be imported: ${SUPPORTED_VERSIONS.join(", ")}.`,
    );
  }
  const str = (k: string) => {
    if (typeof j[k] !== "string") throw new SnapshotError(`the header's ${k} is not a string`);
    return j[k] as string;
  };
  const nat = (k: string) => {
    const v = j[k];
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) throw new SnapshotError(`the header's ${k} is not a natural number`);
    return v;
  };
  const mode = str("history_mode");
  if (mode !== "full" && mode !== "rolling") throw new SnapshotError(`the header's history_mode "${mode}" is neither full nor rolling`);
  return {
    format: FORMAT_NAME,
    version: j.version,
    chain_id: str("chain_id"),
    chain_name: str("chain_name"),
    genesis: str("genesis"),
    block_hash: str("block_hash"),
    level: nat("level"),
    timestamp: str("timestamp"),
    context_hash: str("context_hash"),
    history_mode: mode,
    first_level: nat("first_level"),
    protocols: nat("protocols"),
    blocks: nat("blocks"),
    context_nodes: nat("context_nodes"),
  };
}

/** A block as a snapshot carries it. */
export interface BlockRecord {
  /** Raw header bytes (the block hash is their BLAKE2b-256, but for genesis). */
  header: Uint8Array;
  /** Operations per validation pass. */
  operations: Uint8Array[][];
  protocol: string;
  next_protocol: string;
  max_operations_ttl: number;
  last_allowed_fork_level: number;
  /** BLAKE2b-256 of the block's metadata and of each receipt (kept for blocks whose metadata is not carried). */
  metadata_hash: Uint8Array;
  operations_metadata_hashes: Uint8Array[][];
  /** Metadata and receipts: genesis and the target block only. */
  metadata?: { block: Uint8Array; operations: Uint8Array[][] };
}

const blockRecordCodec = obj(
  req("header", bytes),
  req("operations", list(list(bytes))),
  req("protocol", protocolHash),
  req("next_protocol", protocolHash),
  req("max_operations_ttl", uint16),
  req("last_allowed_fork_level", int32),
  req("metadata_hash", fixedBytes(32)),
  req("operations_metadata_hashes", list(list(fixedBytes(32)))),
  opt("metadata", obj(req("block", bytes), req("operations", list(list(bytes))))),
);

/** A block record as a frame payload. */
export function encodeBlockRecord(r: BlockRecord): Uint8Array {
  return encodeBinary(blockRecordCodec, r);
}

/**
 * Reads a block frame's payload.
 * @throws {SnapshotError} when it does not decode.
 */
export function decodeBlockRecord(payload: Uint8Array): BlockRecord {
  try {
    return decodeBinary(blockRecordCodec, payload) as BlockRecord;
  } catch (error) {
    if (error instanceof DecodeError) throw new SnapshotError(`a block record does not decode (${error.message})`);
    throw error;
  }
}
