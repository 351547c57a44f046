/**
 * The nodes of the context tree, their binary encoding and their hashes.
 *
 * A directory is a `Flat` node (sorted entries) while it has at most `MAX_ENTRIES` entries, and a
 * `Shard` above that: 32 slots chosen by 5 bits of BLAKE2b-256(name) at the shard's depth, each
 * slot holding the directory of the names that fall there (again `Flat` or `Shard`, one depth
 * further). The shape depends only on the set of names, so equal contents hash equally whatever
 * their history, and changing one entry of a directory of a million rewrites a handful of
 * bounded-size nodes. Leaves of at most `INLINE_MAX` bytes sit inside their directory's node;
 * longer ones are `Blob` nodes of their own.
 *
 * Encodings (every node's hash is BLAKE2b-256 of its encoding; varints are unsigned LEB128):
 * - Flat  `0x01 ‖ varint n ‖ n × (varint |name| ‖ name (UTF-8) ‖ kind ‖ payload)`, entries sorted
 *   by name; kind 0 = inline leaf, payload `varint |value| ‖ value`; kind 1 = blob leaf and
 *   kind 2 = directory, payload the 32-byte node hash.
 * - Shard `0x02 ‖ depth (u8) ‖ varint count ‖ bitmap (u32 BE, bit i = slot i used) ‖ hash × used slots`.
 * - Blob  `0x03 ‖ bytes`.
 *
 * Those are the encodings that are hashed. The store holds a directory in a smaller form that
 * decodes to the same node (`encodeStored`, tag `0x04`, see `encodePacked`): common names as one
 * byte, hex names as their bytes, and small subdirectories inside their parent instead of as
 * nodes of their own. Flat nodes written before it (tag `0x01`) still decode; hashes are unchanged.
 * @module
 */
import { blake2b256 } from "../../crypto/blake2b.ts";
import { toHex } from "../../encoding/hex.ts";

/** Longest leaf stored inside its directory node rather than as a blob. */
export const INLINE_MAX = 32;
/** Most entries of a `Flat` node; a directory with more is sharded. */
export const MAX_ENTRIES = 32;
/** Deepest shard: depth d uses bits [5d, 5d + 5) of the name's hash. */
export const MAX_SHARD_DEPTH = 50;

/** Node tags (first byte of an encoding). */
export const TAG_FLAT = 0x01;
export const TAG_SHARD = 0x02;
export const TAG_BLOB = 0x03;
/** The stored (packed) form of a `Flat` node; never hashed. */
export const TAG_PACKED = 0x04;

/** Kinds of directory entries. */
export const INLINE = 0;
export const BLOB = 1;
export const DIR = 2;
/** Packed encoding only: a subdirectory written inside its parent (payload `varint length ‖ packed node`). */
export const INLINE_DIR = 3;

/** Largest packed subdirectory written inside its parent rather than as a node of its own. */
export const INLINE_DIR_MAX = 96;

/** A directory entry: an inline leaf, a blob leaf or a subdirectory. */
export type Child =
  | { readonly kind: typeof INLINE; readonly value: Uint8Array }
  | { readonly kind: typeof BLOB; readonly ref: Ref }
  | { readonly kind: typeof DIR; readonly ref: Ref };

/** A directory node of at most `MAX_ENTRIES` entries (or a shard slot), sorted by name. */
export class Flat {
  readonly names: readonly string[];
  readonly children: readonly Child[];
  constructor(names: readonly string[], children: readonly Child[]) {
    this.names = names;
    this.children = children;
  }
}

/** A large directory (or slot) split by name hash into 32 slots. */
export class Shard {
  readonly depth: number;
  readonly count: number;
  readonly slots: readonly (Ref | undefined)[];
  constructor(depth: number, count: number, slots: readonly (Ref | undefined)[]) {
    this.depth = depth;
    this.count = count;
    this.slots = slots;
  }
}

/** A directory node. */
export type DirNode = Flat | Shard;
/** Any stored node; a blob is its bytes. */
export type TreeNode = DirNode | Uint8Array;

/** The empty directory. */
export const EMPTY_FLAT = new Flat([], []);

/**
 * A link to a node: a node built in memory (`node` set, not yet in the store) or a node of the
 * store (`hash` set, loaded on demand). The hash of a built node is computed once, when needed.
 */
export class Ref {
  hash: Uint8Array | undefined;
  readonly node: TreeNode | undefined;
  /** Known to be in the store (loaded from it, or seen there by a commit). */
  stored: boolean;
  #id: string | undefined;

  private constructor(hash: Uint8Array | undefined, node: TreeNode | undefined, stored: boolean) {
    this.hash = hash;
    this.node = node;
    this.stored = stored;
  }

  /** A link to a node of the store. */
  static stored(hash: Uint8Array): Ref {
    return new Ref(hash, undefined, true);
  }

  /** A link to a node built in memory. */
  static fresh(node: TreeNode): Ref {
    return new Ref(undefined, node, false);
  }

  /** The hash as a string, for cache maps (only for refs with a hash). */
  get id(): string {
    return (this.#id ??= hashId(this.hash!));
  }
}

/** A hash as a map key (one char per byte). */
export function hashId(hash: Uint8Array): string {
  return String.fromCharCode.apply(null, hash as unknown as number[]);
}

/** Number of entries of a directory node. */
export function dirCount(node: DirNode): number {
  return node instanceof Flat ? node.names.length : node.count;
}

/** The hash of the node behind `ref`, computing (and keeping) those of built nodes. */
export function refHash(ref: Ref): Uint8Array {
  if (ref.hash === undefined) ref.hash = blake2b256(encodeNode(ref.node!));
  return ref.hash;
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** The binary encoding of a node (hashing built children as needed). */
export function encodeNode(node: TreeNode): Uint8Array {
  if (node instanceof Uint8Array) {
    const out = new Uint8Array(1 + node.length);
    out[0] = TAG_BLOB;
    out.set(node, 1);
    return out;
  }
  const w = new ByteWriter(node instanceof Flat ? 8 + node.names.length * 48 : 8 + 32 * 32);
  if (node instanceof Flat) {
    w.byte(TAG_FLAT);
    w.varint(node.names.length);
    for (let i = 0; i < node.names.length; i++) {
      w.string(node.names[i]!);
      const c = node.children[i]!;
      w.byte(c.kind);
      if (c.kind === INLINE) {
        w.varint(c.value.length);
        w.bytes(c.value);
      } else {
        w.bytes(refHash(c.ref));
      }
    }
  } else {
    w.byte(TAG_SHARD);
    w.byte(node.depth);
    w.varint(node.count);
    let bitmap = 0;
    for (let i = 0; i < 32; i++) if (node.slots[i] !== undefined) bitmap |= 1 << (31 - i);
    w.u32(bitmap >>> 0);
    for (let i = 0; i < 32; i++) {
      const s = node.slots[i];
      if (s !== undefined) w.bytes(refHash(s));
    }
  }
  return w.finish();
}

/**
 * Names written as one byte by the packed encoding: `0xa2 + index`. The list is part of the
 * stored format: append only, never reorder or remove (at most 94 names).
 */
export const PACKED_NAMES: readonly string[] = [
  "active_delegates_with_rolls", "balance", "ballots", "big_maps", "block_priority", "cache", "change", "code",
  "commitments", "constants", "contents", "contracts", "counter", "current", "current_period", "current_proposal",
  "cycle", "cycle_eras", "data", "delegate", "delegate_desactivation", "delegated", "delegates",
  "delegates_with_frozen_balance", "deposits", "domain", "fees", "frozen_balance", "genesis_key", "global_counter",
  "index", "inited", "key_type", "last_roll", "len", "limit", "liquidity_baking_cpmm_address",
  "liquidity_baking_escape_ema", "listings", "listings_size", "manager", "next", "nonces", "number_of_caches",
  "owner", "paid_bytes", "participation_ema", "pred_period_kind", "proposals", "proposals_count", "protocol",
  "ramp_up", "random_seed", "rewards", "roll_list", "roll_snapshot", "rolls", "sandbox_parameter", "sapling",
  "snapshot", "storage", "successor", "test_chain", "total_bytes", "used_bytes", "v1", "value_type", "version",
  "votes",
];
const PACKED_NAME_INDEX = new Map(PACKED_NAMES.map((n, i) => [n, i]));
/** First byte of a packed name: below it, a literal of that many bytes. */
const NAME_LONG = 0xa0;
const NAME_HEX = 0xa1;
const NAME_DICT = 0xa2;

/**
 * The form a node is stored in: blobs and shards as `encodeNode`; a `Flat` node packed
 * (`encodePacked`). Pushes onto `separate` the links to the nodes that stay nodes of their own
 * (blobs, large or already stored subdirectories, shard slots), which the caller stores too.
 */
export function encodeStored(node: TreeNode, separate: Ref[]): Uint8Array {
  if (node instanceof Flat) return encodePacked(node, separate);
  if (node instanceof Shard) for (const s of node.slots) if (s !== undefined) separate.push(s);
  return encodeNode(node);
}

/**
 * The packed encoding of a `Flat` node:
 * `0x04 ‖ varint n ‖ n × (name ‖ kind ‖ payload)`, entries sorted by name, where a name is one
 * byte `c` then: for `c < 0xa0` a UTF-8 literal of `c` bytes; `0xa0`: `varint length ‖ UTF-8`;
 * `0xa1`: `varint length ‖ bytes` for a name that is those bytes in lowercase hex; `c ≥ 0xa2`:
 * `PACKED_NAMES[c - 0xa2]`. Kinds 0 to 2 are as in `Flat`; kind 3 (`INLINE_DIR`) is a
 * subdirectory in memory whose own packed encoding is at most `INLINE_DIR_MAX` bytes, written
 * here as `varint length ‖ packed node`. A subdirectory known to be in the store stays a link.
 */
export function encodePacked(node: Flat, separate: Ref[]): Uint8Array {
  const w = new ByteWriter(8 + node.names.length * 40);
  w.byte(TAG_PACKED);
  w.varint(node.names.length);
  for (let i = 0; i < node.names.length; i++) {
    packName(w, node.names[i]!);
    const c = node.children[i]!;
    if (c.kind === INLINE) {
      w.byte(INLINE);
      w.varint(c.value.length);
      w.bytes(c.value);
      continue;
    }
    if (c.kind === DIR && !c.ref.stored && c.ref.node instanceof Flat && c.ref.node.names.length <= INLINE_DIR_MAX / 3) {
      const below: Ref[] = [];
      const packed = encodePacked(c.ref.node, below);
      if (packed.length <= INLINE_DIR_MAX) {
        w.byte(INLINE_DIR);
        w.varint(packed.length);
        w.bytes(packed);
        separate.push(...below);
        continue;
      }
    }
    w.byte(c.kind);
    w.bytes(refHash(c.ref));
    separate.push(c.ref);
  }
  return w.finish();
}

/** The links of a node as read from the store to the nodes stored on their own (through its inline subdirectories). */
export function separateLinks(node: TreeNode): Ref[] {
  const out: Ref[] = [];
  const walk = (n: TreeNode): void => {
    if (n instanceof Flat) {
      for (const c of n.children) {
        if (c.kind === INLINE) continue;
        if (c.ref.hash === undefined && c.ref.node !== undefined) walk(c.ref.node);
        else out.push(c.ref);
      }
    } else if (n instanceof Shard) {
      for (const s of n.slots) if (s !== undefined) out.push(s);
    }
  };
  walk(node);
  return out;
}

/**
 * Pushes onto `out` the hashes of the nodes stored on their own that the stored node `bytes`
 * links to (any encoding; through packed inline subdirectories), without building the node.
 * @throws ContextCorruptionError for bytes that are not a node.
 */
export function linkedHashes(bytes: Uint8Array, out: Uint8Array[]): void {
  const r = new ByteReader(bytes);
  const tag = r.byte();
  if (tag === TAG_BLOB) return;
  if (tag === TAG_FLAT) {
    const n = r.varint();
    for (let i = 0; i < n; i++) {
      r.take(r.varint()); // the name
      const kind = r.byte();
      if (kind === INLINE) r.take(r.varint());
      else if (kind === BLOB || kind === DIR) out.push(r.take(32).slice());
      else throw new ContextCorruptionError(`context node: unknown entry kind ${kind}`);
    }
  } else if (tag === TAG_PACKED) {
    packedLinks(r, out);
  } else if (tag === TAG_SHARD) {
    r.byte();
    r.varint();
    const bitmap = r.u32();
    for (let i = 0; i < 32; i++) if (bitmap & (1 << (31 - i))) out.push(r.take(32).slice());
  } else {
    throw new ContextCorruptionError(`context node: unknown tag ${tag}`);
  }
  r.end();
}

function packedLinks(r: ByteReader, out: Uint8Array[]): void {
  const n = r.varint();
  for (let i = 0; i < n; i++) {
    const c = r.byte();
    if (c < NAME_LONG) r.take(c);
    else if (c === NAME_LONG || c === NAME_HEX) r.take(r.varint());
    else if (c - NAME_DICT >= PACKED_NAMES.length) throw new ContextCorruptionError(`context node: unknown name code ${c}`);
    const kind = r.byte();
    if (kind === INLINE) r.take(r.varint());
    else if (kind === BLOB || kind === DIR) out.push(r.take(32).slice());
    else if (kind === INLINE_DIR) {
      const sub = new ByteReader(r.take(r.varint()));
      if (sub.byte() !== TAG_PACKED) throw new ContextCorruptionError("context node: an inline directory is not packed");
      packedLinks(sub, out);
      sub.end();
    } else throw new ContextCorruptionError(`context node: unknown entry kind ${kind}`);
  }
}

function isHexName(name: string): boolean {
  if (name.length < 4 || name.length % 2 !== 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

function packName(w: ByteWriter, name: string): void {
  const d = PACKED_NAME_INDEX.get(name);
  if (d !== undefined) return w.byte(NAME_DICT + d);
  if (isHexName(name)) {
    w.byte(NAME_HEX);
    w.varint(name.length / 2);
    for (let i = 0; i < name.length; i += 2) w.byte(parseInt(name.slice(i, i + 2), 16));
    return;
  }
  const b = utf8.encode(name);
  if (b.length < NAME_LONG) w.byte(b.length);
  else {
    w.byte(NAME_LONG);
    w.varint(b.length);
  }
  w.bytes(b);
}

function unpackName(r: ByteReader): string {
  const c = r.byte();
  if (c < NAME_LONG) return r.text(c);
  if (c === NAME_LONG) return r.text(r.varint());
  if (c === NAME_HEX) {
    return toHex(r.take(r.varint()));
  }
  const name = PACKED_NAMES[c - NAME_DICT];
  if (name === undefined) throw new ContextCorruptionError(`context node: unknown name code ${c}`);
  return name;
}

function decodePacked(r: ByteReader): Flat {
  const n = r.varint();
  const names: string[] = new Array(n);
  const children: Child[] = new Array(n);
  for (let i = 0; i < n; i++) {
    names[i] = unpackName(r);
    if (i > 0 && !(names[i - 1]! < names[i]!)) throw new ContextCorruptionError("context node: names out of order");
    const kind = r.byte();
    if (kind === INLINE) children[i] = { kind: INLINE, value: r.take(r.varint()) };
    else if (kind === BLOB) children[i] = { kind: BLOB, ref: Ref.stored(r.take(32)) };
    else if (kind === DIR) children[i] = { kind: DIR, ref: Ref.stored(r.take(32)) };
    else if (kind === INLINE_DIR) {
      const sub = new ByteReader(r.take(r.varint()));
      if (sub.byte() !== TAG_PACKED) throw new ContextCorruptionError("context node: an inline directory is not packed");
      const dir = decodePacked(sub);
      sub.end();
      children[i] = { kind: DIR, ref: Ref.fresh(dir) };
    } else throw new ContextCorruptionError(`context node: unknown entry kind ${kind}`);
  }
  return new Flat(names, children);
}

/** Raised when the store holds a node that does not decode (a corrupt or foreign store). */
export class ContextCorruptionError extends Error {
  override name = "ContextCorruptionError";
}

/** Decodes a node read from the store (any of its encodings); child links are store links, inline subdirectories are in memory. */
export function decodeNode(bytes: Uint8Array): TreeNode {
  const r = new ByteReader(bytes);
  const tag = r.byte();
  if (tag === TAG_BLOB) return bytes.subarray(1);
  if (tag === TAG_FLAT) {
    const n = r.varint();
    const names: string[] = new Array(n);
    const children: Child[] = new Array(n);
    for (let i = 0; i < n; i++) {
      names[i] = r.string();
      const kind = r.byte();
      if (kind === INLINE) children[i] = { kind: INLINE, value: r.take(r.varint()) };
      else if (kind === BLOB) children[i] = { kind: BLOB, ref: Ref.stored(r.take(32)) };
      else if (kind === DIR) children[i] = { kind: DIR, ref: Ref.stored(r.take(32)) };
      else throw new ContextCorruptionError(`context node: unknown entry kind ${kind}`);
    }
    r.end();
    return new Flat(names, children);
  }
  if (tag === TAG_PACKED) {
    const flat = decodePacked(r);
    r.end();
    return flat;
  }
  if (tag === TAG_SHARD) {
    const depth = r.byte();
    const count = r.varint();
    const bitmap = r.u32();
    const slots: (Ref | undefined)[] = new Array(32).fill(undefined);
    for (let i = 0; i < 32; i++) if (bitmap & (1 << (31 - i))) slots[i] = Ref.stored(r.take(32));
    r.end();
    return new Shard(depth, count, slots);
  }
  throw new ContextCorruptionError(`context node: unknown tag ${tag}`);
}

/** A small growable writer for node and commit encodings. */
export class ByteWriter {
  #buf: Uint8Array;
  #len = 0;
  constructor(capacity = 64) {
    this.#buf = new Uint8Array(capacity);
  }
  #ensure(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    let cap = this.#buf.length * 2;
    while (cap < this.#len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
  }
  byte(b: number): void {
    this.#ensure(1);
    this.#buf[this.#len++] = b;
  }
  u32(n: number): void {
    this.#ensure(4);
    const b = this.#buf;
    b[this.#len++] = n >>> 24;
    b[this.#len++] = (n >>> 16) & 0xff;
    b[this.#len++] = (n >>> 8) & 0xff;
    b[this.#len++] = n & 0xff;
  }
  varint(n: number): void {
    this.#ensure(10);
    while (n >= 0x80) {
      this.#buf[this.#len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.#buf[this.#len++] = n;
  }
  bytes(b: Uint8Array): void {
    this.#ensure(b.length);
    this.#buf.set(b, this.#len);
    this.#len += b.length;
  }
  /** A string as `varint length ‖ UTF-8`. */
  string(s: string): void {
    let ascii = true;
    for (let i = 0; i < s.length; i++) {
      if (s.charCodeAt(i) > 0x7f) {
        ascii = false;
        break;
      }
    }
    if (!ascii) {
      const b = utf8.encode(s);
      this.varint(b.length);
      this.bytes(b);
      return;
    }
    this.varint(s.length);
    this.#ensure(s.length);
    for (let i = 0; i < s.length; i++) this.#buf[this.#len++] = s.charCodeAt(i);
  }
  finish(): Uint8Array {
    return this.#buf.slice(0, this.#len);
  }
}

/** The reading side of `ByteWriter`; every overrun is a `ContextCorruptionError`. */
export class ByteReader {
  #b: Uint8Array;
  #at = 0;
  constructor(bytes: Uint8Array) {
    this.#b = bytes;
  }
  #need(n: number): void {
    if (this.#at + n > this.#b.length) throw new ContextCorruptionError("context node: truncated encoding");
  }
  byte(): number {
    this.#need(1);
    return this.#b[this.#at++]!;
  }
  u32(): number {
    this.#need(4);
    const b = this.#b;
    const at = this.#at;
    this.#at += 4;
    return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
  }
  varint(): number {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
    }
    throw new ContextCorruptionError("context node: varint too long");
  }
  take(n: number): Uint8Array {
    this.#need(n);
    const out = this.#b.subarray(this.#at, this.#at + n);
    this.#at += n;
    return out;
  }
  string(): string {
    return this.text(this.varint());
  }
  /** `n` bytes of UTF-8. */
  text(n: number): string {
    const b = this.take(n);
    let ascii = true;
    for (let i = 0; i < b.length; i++) {
      if (b[i]! > 0x7f) {
        ascii = false;
        break;
      }
    }
    if (ascii && b.length <= 1024) return String.fromCharCode.apply(null, b as unknown as number[]);
    try {
      return utf8Decoder.decode(b);
    } catch {
      throw new ContextCorruptionError("context node: a name is not UTF-8");
    }
  }
  end(): void {
    if (this.#at !== this.#b.length) throw new ContextCorruptionError("context node: trailing bytes");
  }
}
