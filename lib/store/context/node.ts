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
 * @module
 */
import { blake2b256 } from "../../crypto/blake2b.ts";

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

/** Kinds of directory entries. */
export const INLINE = 0;
export const BLOB = 1;
export const DIR = 2;

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

/** Raised when the store holds a node that does not decode (a corrupt or foreign store). */
export class ContextCorruptionError extends Error {
  override name = "ContextCorruptionError";
}

/** Decodes a node read from the store; child links are store links. */
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
    const b = this.take(this.varint());
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
