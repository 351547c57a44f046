/**
 * The block locator (Octez `src/lib_base/block_locator.ml`): the sender's current head, then
 * hashes of some of its ancestors (steps growing with the distance), which lets a peer find the
 * last block both chains share. Binary: current head (4-byte length ‖ block header, at most
 * 8 MiB) ‖ history (32-byte block hashes up to the end, at most 1000).
 * @module
 */
import { rawBlockHeader, type RawBlockHeader } from "../../encoding/block-header.ts";
import type { Codec } from "../../encoding/core.ts";
import { checkSize, dynamicSize } from "../../encoding/dynamic.ts";
import { blockHash } from "../../encoding/hashes.ts";
import { variableList } from "../../encoding/list.ts";
import { obj, req } from "../../encoding/object.ts";
import { BLOCK_HEADER_MAX_SIZE, BLOCK_LOCATOR_MAX_LENGTH } from "./bounds.ts";

/** A block locator. */
export interface BlockLocator {
  /** The sender's current head. */
  current_head: RawBlockHeader;
  /** Hashes (`B…`) of ancestors of the head, nearest first. */
  history: string[];
}

/** A block header within Octez's bound (`Block_header.bounded_encoding ~max_size:8 MiB`). */
export const boundedBlockHeader: Codec<RawBlockHeader> = checkSize(BLOCK_HEADER_MAX_SIZE, rawBlockHeader);

/** Codec of the locator within Octez's bounds (`Block_locator.bounded_encoding`). */
export const blockLocator: Codec<BlockLocator> = obj(
  req("current_head", dynamicSize(boundedBlockHeader)),
  req("history", variableList(blockHash, { maxLength: BLOCK_LOCATOR_MAX_LENGTH })),
);
