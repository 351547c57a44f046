/**
 * Compressed block rows: a block's operations and its record (metadata and receipts) are stored
 * DEFLATE-compressed (raw DEFLATE, RFC 1951, through `fflate`: synchronous, as the store's reads
 * are, and the same bytes on every runtime), which halves them: endorsement receipts repeat their
 * delegate, slots and balance updates from block to block. A store says it holds compressed rows
 * by one `config` row, written with its genesis block; a store without it (made before) keeps its
 * rows uncompressed, so that every data directory reads back as it was written.
 *
 * @example
 * ```ts
 * const packed = compressRow(encodeBinary(operationsCodec, operations));
 * decompressRow(packed); // the encoded operations again
 * ```
 * @module
 */
import { deflateSync, inflateSync } from "fflate";
import type { KeyValueStore, WriteOp } from "./kv.ts";
import { key, Table } from "./tables.ts";

/** The `config` row naming how block rows are stored. */
export const BLOCK_ROWS_KEY: Uint8Array = key(Table.config, "block_rows");

/** Its value in a store of compressed rows. */
const DEFLATE: Uint8Array = new TextEncoder().encode("deflate");

/** Whether `kv` stores its block rows compressed. */
export function hasCompressedRows(kv: KeyValueStore): boolean {
  const v = kv.get(BLOCK_ROWS_KEY);
  if (v === undefined) return false;
  if (v.length === DEFLATE.length && v.every((b, i) => b === DEFLATE[i])) return true;
  throw new Error(`Corrupted store: unknown block row format "${new TextDecoder().decode(v)}"`);
}

/** The write that marks a new store as one of compressed rows. */
export function compressedRowsOp(): WriteOp {
  return { key: BLOCK_ROWS_KEY, value: DEFLATE };
}

/** A row, compressed (level 6: within a few percent of 9, several times faster). */
export function compressRow(bytes: Uint8Array): Uint8Array {
  return deflateSync(bytes, { level: 6 });
}

/** A compressed row, as it was; an Error naming the corruption when it does not inflate. */
export function decompressRow(bytes: Uint8Array): Uint8Array {
  try {
    return inflateSync(bytes);
  } catch (e) {
    throw new Error(`Corrupted store: a compressed block row does not inflate (${(e as Error).message})`);
  }
}
