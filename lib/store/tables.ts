/**
 * The tables of the store: every key starts with one byte naming its table, so that one ordered
 * key space holds them all and a table is scanned as the range `[prefix, prefix + 1)`. Numbers in
 * keys are big-endian so that they scan in numeric order.
 *
 * | byte | table | key after the prefix | value |
 * |---|---|---|---|
 * | 0x01 | `contextNode` | node hash (32) | an encoded context tree node (see `context/node.ts`) |
 * | 0x02 | `contextCommit` | commit hash (32) = the block's context hash | an encoded context commit |
 * | 0x10 | `blockHeader` | block hash (32) | the block header, binary |
 * | 0x11 | `blockOperations` | block hash (32) [+ validation pass u8] | the block's operations |
 * | 0x12 | `blockMetadata` | block hash (32) | the block's metadata (receipts, protocol data) |
 * | 0x13 | `levelIndex` | chain id (4) + level u32 | hash of the block at that level on the main branch |
 * | 0x14 | `chainData` | chain id (4) + field name | heads, checkpoint, savepoint, caboose, ... |
 * | 0x15 | `invalidBlocks` | block hash (32) | level and errors of a block known to be invalid |
 * | 0x16 | `protocols` | protocol hash (32) | the protocol's source or registry entry |
 * | 0x17 | `config` | setting name | node-wide settings (store version, history mode, ...) |
 * | 0x18 | `bakerNonces` | chain id (4) + level u32 + nonce hash (32) | a seed nonce the sandbox baker committed to (32 bytes), kept until revealed or too late |
 * | 0x19 | `blockSummary` | block hash (32) | what stays of a block's record once its metadata is pruned (protocols, TTL, fork level, metadata hashes) |
 * | 0x21 | `sandboxImpersonated` | block hash (32) + operation hash (32) | level u32 + source: an operation the sandbox included with its signature waived (impersonation) |
 * | 0x22 | `sandboxChanges` | chain id (4) + change id u32 | a sandbox state change and what became of it (JSON, `lib/sandbox/changes.ts`) |
 *
 * The context tables belong to `lib/store/context/`, `bakerNonces` to `lib/baker/`, `sandboxImpersonated` to `lib/sandbox/impersonation.ts`; the others to the chain store. New tables
 * take a fresh byte: never reuse or renumber one, data written with it would be misread.
 * @module
 */

/** One-byte key prefixes of the store's tables (see the module doc for their layout). */
export const Table = {
  /** Context tree nodes by hash: directories, directory shards and large leaves. */
  contextNode: 0x01,
  /** Context commits by hash; the hash is the block header's `context` field. */
  contextCommit: 0x02,
  /** Block headers by block hash. */
  blockHeader: 0x10,
  /** Block operations by block hash (optionally followed by the validation pass). */
  blockOperations: 0x11,
  /** Block metadata (and operation receipts) by block hash. */
  blockMetadata: 0x12,
  /** Main-branch index: chain id + big-endian level -> block hash. */
  levelIndex: 0x13,
  /** Per-chain data: chain id + name (heads, checkpoint, savepoint, caboose). */
  chainData: 0x14,
  /** Blocks known to be invalid, by block hash, with their errors. */
  invalidBlocks: 0x15,
  /** Known protocols by protocol hash. */
  protocols: 0x16,
  /** Node-wide settings by name. */
  config: 0x17,
  /** Seed nonces of the sandbox baker: chain id + big-endian level + nonce hash -> nonce. */
  bakerNonces: 0x18,
  /** The shell's record of a block whose metadata was pruned (history modes), by block hash. */
  blockSummary: 0x19,
  /** Operations the sandbox included with a waived signature: block hash + operation hash -> level + source. */
  sandboxImpersonated: 0x21,
  /** The sandbox's state changes: chain id + change id -> the change and its outcome (JSON). */
  sandboxChanges: 0x22,
} as const;

/** The name of a table of `Table`. */
export type TableName = keyof typeof Table;

const utf8 = new TextEncoder();

/**
 * A key: the table byte followed by `parts` (bytes as they are, strings as UTF-8), concatenated.
 * Numbers must be encoded first with `u8`, `u32` or `u64` so that their width is explicit.
 * @example key(Table.levelIndex, chainId, u32(42)) // 0x13 ‖ chain id ‖ 00 00 00 2a
 */
export function key(table: number, ...parts: (Uint8Array | string)[]): Uint8Array {
  if (!Number.isInteger(table) || table < 0 || table > 255) throw new RangeError(`key: table must be a byte (0..255), got ${table}`);
  const bytes: Uint8Array[] = [];
  let length = 1;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    const b = typeof p === "string" ? utf8.encode(p) : p;
    if (!(b instanceof Uint8Array)) throw new TypeError(`key: parts[${i}] must be a Uint8Array or a string`);
    bytes.push(b);
    length += b.length;
  }
  const out = new Uint8Array(length);
  out[0] = table;
  let at = 1;
  for (const b of bytes) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/** One byte, for small numbers in keys (a validation pass). */
export function u8(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 0 || n > 0xff) throw new RangeError(`u8: expected an integer in 0..255, got ${n}`);
  return new Uint8Array([n]);
}

/** Four bytes, big-endian (levels). */
export function u32(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`u32: expected an integer in 0..2^32-1, got ${n}`);
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

/** Eight bytes, big-endian, from a safe non-negative integer or a bigint below 2^64. */
export function u64(n: number | bigint): Uint8Array {
  if (typeof n === "number" && !(Number.isSafeInteger(n) && n >= 0)) throw new RangeError(`u64: expected a safe non-negative integer, got ${n}`);
  const big = BigInt(n);
  if (big < 0n || big >= 1n << 64n) throw new RangeError(`u64: expected a value in 0..2^64-1, got ${n}`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, big);
  return out;
}

/** Reads a big-endian u32 at `offset` of `bytes`. */
export function readU32(bytes: Uint8Array, offset = 0): number {
  if (offset < 0 || offset + 4 > bytes.length) throw new RangeError(`readU32: offset ${offset} out of ${bytes.length} bytes`);
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(offset);
}

/** Reads a big-endian u64 at `offset` of `bytes`, as a bigint. */
export function readU64(bytes: Uint8Array, offset = 0): bigint {
  if (offset < 0 || offset + 8 > bytes.length) throw new RangeError(`readU64: offset ${offset} out of ${bytes.length} bytes`);
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(offset);
}

/**
 * The range of every key that starts with `prefix`: `{ gte: prefix, lt: prefix + 1 }`, where `+ 1`
 * carries over trailing 0xff bytes (an all-0xff prefix has no upper bound).
 * @example [...store.range(prefixRange(key(Table.levelIndex, chainId)))]
 */
export function prefixRange(prefix: Uint8Array): { gte: Uint8Array; lt?: Uint8Array } {
  if (!(prefix instanceof Uint8Array)) throw new TypeError("prefixRange: prefix must be a Uint8Array");
  let end = prefix.length;
  while (end > 0 && prefix[end - 1] === 0xff) end--;
  if (end === 0) return { gte: prefix };
  const lt = prefix.slice(0, end);
  lt[end - 1] = lt[end - 1]! + 1;
  return { gte: prefix, lt };
}

/** The range of a whole table. */
export function tableRange(table: number): { gte: Uint8Array; lt?: Uint8Array } {
  return prefixRange(key(table));
}
