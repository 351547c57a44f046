/**
 * The shell block header (Octez `lib_base/block_header.ml`): the protocol-independent part of
 * every block header, and the raw header (shell part + opaque protocol data).
 * @module
 */
import type { Codec } from "./core.ts";
import { def } from "./conv.ts";
import { fitness } from "./fitness.ts";
import { blockHash, contextHash, operationListListHash } from "./hashes.ts";
import { int32, uint8 } from "./integers.ts";
import { mergeObjs, obj, req } from "./object.ts";
import { variableBytes } from "./bytes.ts";
import { timestamp } from "./time.ts";

/** The shell header of a block. */
export interface ShellHeader {
  /** Height of the block, from the genesis block (level 0). */
  level: number;
  /** Number of protocol changes since genesis (modulo 256). */
  proto: number;
  /** Hash of the predecessor block (`B…`). */
  predecessor: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Number of validation passes (lists of operations). */
  validation_pass: number;
  /** Merkle root of the operation lists (`LLo…`). */
  operations_hash: string;
  /** Fitness, the score used to choose the best chain. */
  fitness: Uint8Array[];
  /** Hash of the state of the context after the block (`Co…`). */
  context: string;
}

/** Shell header codec (`block_header.shell`): 4+1+32+8+1+32+(4+fitness)+32 bytes. */
export const shellHeader: Codec<ShellHeader> = def(
  "block_header.shell",
  obj(
    req("level", int32),
    req("proto", uint8),
    req("predecessor", blockHash),
    req("timestamp", timestamp),
    req("validation_pass", uint8),
    req("operations_hash", operationListListHash),
    req("fitness", fitness),
    req("context", contextHash),
  ),
  {
    title: "Shell header",
    description: "Block header's shell-related content. It contains information such as the block level, its predecessor and timestamp.",
  },
);

/** A block header as the shell sees it: its shell part and the protocol's bytes. */
export interface RawBlockHeader extends ShellHeader {
  /** The protocol-specific part, opaque to the shell. */
  protocol_data: Uint8Array;
}

/** Raw block header codec (`block_header`): shell header then the protocol data running to the end. */
export const rawBlockHeader: Codec<RawBlockHeader> = def(
  "block_header",
  mergeObjs(shellHeader, obj(req("protocol_data", variableBytes))),
);
