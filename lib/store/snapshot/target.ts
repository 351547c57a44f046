/**
 * Which block a snapshot exports, with Octez's rules (`Snapshots.retrieve_export_block` and
 * `check_export_block_validity`): a block identifier as the RPCs take it (a hash, a level,
 * `head`, `checkpoint`, `savepoint`, `caboose`, with `~N`, `-N` or `+N`), by default the
 * checkpoint; never genesis nor the caboose; the block's metadata must be kept (at or above the
 * savepoint), and a rolling export needs the target's predecessors over its
 * `max_operations_ttl` (down to genesis at most) to be above the caboose.
 * @module
 */
import { decodeBinary } from "../../encoding/codec.ts";
import { rawBlockHeader, type RawBlockHeader } from "../../encoding/block-header.ts";
import { parseBlockId, type BlockId } from "../../rpc/arg.ts";
import { type BlockInfo, BlockStore, decodeBlockLocator } from "../block-store.ts";
import { SnapshotError, type SnapshotMode } from "./format.ts";

/** A stored block as the exporter reads it. */
export interface StoredBlock {
  readonly hash: string;
  readonly bytes: Uint8Array;
  readonly header: RawBlockHeader;
  readonly info: BlockInfo;
}

/** The block to export and the lowest level the snapshot carries after genesis. */
export interface ExportTarget {
  readonly block: StoredBlock;
  readonly firstLevel: number;
}

/** Reads a stored block, or `undefined`. */
export function readStoredBlock(store: BlockStore, hash: string): StoredBlock | undefined {
  const bytes = store.header(hash);
  const info = bytes && store.info(hash);
  if (bytes === undefined || info === undefined) return undefined;
  return { hash, bytes, header: decodeBinary(rawBlockHeader, bytes), info };
}

function invalid(hash: string | undefined, reason: string): SnapshotError {
  return new SnapshotError(hash === undefined ? `The selected block is invalid: ${reason}.` : `The selected block ${hash} is invalid: ${reason}.`);
}

/**
 * Resolves `blockText` (undefined: the checkpoint, or the head's last allowed fork level when
 * the checkpoint is above the head) in `store` and checks it can be exported in `mode`.
 * @throws {SnapshotError} with Octez's `Invalid_export_block` and `Incompatible_history_mode` texts.
 */
export function exportTarget(store: BlockStore, blockText: string | undefined, mode: SnapshotMode): ExportTarget {
  // Stored as `archive`, `full`, `full:N`, `rolling` or `rolling:N`.
  const storedMode = new TextDecoder().decode(store.chainData("history_mode")).split(":")[0];
  if (mode === "full" && storedMode === "rolling") {
    throw new SnapshotError(
      `The requested history mode (full) for the snapshot export is not compatible with the given storage (running with history mode rolling).`,
    );
  }
  const locator = (name: "head" | "checkpoint" | "savepoint" | "caboose") => decodeBlockLocator(store.chainData(name)!);
  const head = locator("head");
  let id: BlockId;
  if (blockText === undefined) {
    const checkpoint = locator("checkpoint");
    id = checkpoint.level <= head.level ? { kind: "hash", hash: checkpoint.hash, offset: 0 } : { kind: "level", level: readStoredBlock(store, head.hash)!.info.last_allowed_fork_level };
  } else {
    try {
      id = parseBlockId(blockText);
    } catch (error) {
      throw new SnapshotError(`${blockText} is not a valid block identifier (${(error as Error).message}).`);
    }
  }
  const caboose = locator("caboose");
  if (id.kind === "genesis" || (id.kind === "level" && id.level === 0)) throw invalid(store.hashAtLevel(0), "the genesis block is not a valid export point");
  if (id.kind === "alias" && id.alias === "caboose" && id.offset >= 0) throw invalid(caboose.hash, "the caboose block is not a valid export point");
  const block = resolve(store, id, head.hash);
  if (block === undefined) throw invalid(id.kind === "hash" ? id.hash : undefined, "the block is unknown");
  if (block.header.level === 0) throw invalid(block.hash, "the genesis block is not a valid export point");
  const savepoint = locator("savepoint");
  if (block.header.level < savepoint.level || block.info.metadata === undefined) throw invalid(block.hash, "the block is too old and has been pruned");
  const firstLevel = mode === "full" ? 1 : Math.max(1, block.header.level - block.info.max_operations_ttl);
  if (mode === "full" ? caboose.level > 0 : firstLevel < caboose.level) {
    throw invalid(block.hash, "not enough of the block's predecessors are known");
  }
  return { block, firstLevel };
}

function resolve(store: BlockStore, id: BlockId, headHash: string): StoredBlock | undefined {
  const at = (level: number) => {
    const h = store.hashAtLevel(level);
    return h === undefined ? undefined : readStoredBlock(store, h);
  };
  const head = readStoredBlock(store, headHash);
  const offset = (b: StoredBlock | undefined, n: number): StoredBlock | undefined => {
    if (b === undefined || n === 0) return b;
    if (store.hashAtLevel(b.header.level) === b.hash) {
      const level = b.header.level - n;
      return level < 0 || level > head!.header.level ? undefined : at(level);
    }
    if (n < 0) return undefined;
    let cur: StoredBlock | undefined = b;
    for (let i = 0; i < n && cur !== undefined && cur.header.level > 0; i++) cur = readStoredBlock(store, cur.header.predecessor);
    return cur;
  };
  switch (id.kind) {
    case "genesis":
      return at(0);
    case "level":
      return id.level > head!.header.level ? undefined : at(id.level);
    case "head":
      return offset(head, id.offset);
    case "alias":
      return offset(readStoredBlock(store, decodeBlockLocator(store.chainData(id.alias)!).hash), id.offset);
    case "hash":
      return offset(readStoredBlock(store, id.hash), id.offset);
  }
}
