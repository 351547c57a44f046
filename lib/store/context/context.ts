/**
 * `Context`: an immutable view of the context tree of one block (paths of strings to bytes), and
 * the persistent updates that make the next one. Reads are synchronous; unchanged nodes are
 * loaded lazily from the store and shared between versions.
 * @module
 */
import type { KeyValueStore } from "../kv.ts";
import { findEntry, listEntries, updateEntry } from "./directory.ts";
import { loaderOf, type NodeLoader } from "./loader.ts";
import { BLOB, type Child, DIR, dirCount, type DirNode, EMPTY_FLAT, INLINE, INLINE_MAX, Ref, refHash } from "./node.ts";
import { checkPath, type ContextPath } from "./path.ts";

/**
 * A node of a raw listing, as Octez's `/context/raw/bytes` shows it: a leaf (`key`, its bytes),
 * a directory (`dir`, its entries sorted by name) or a part left out by the depth limit (`cut`).
 */
export type RawContext =
  | { readonly kind: "key"; readonly value: Uint8Array }
  | { readonly kind: "dir"; readonly entries: readonly (readonly [string, RawContext])[] }
  | { readonly kind: "cut" };

/** Options of `Context.list`. */
export interface ListOptions {
  /** How many levels below the path to show; what lies at that distance is `cut`. Default: all. */
  readonly depth?: number;
}

/**
 * The context (state) of a block: a tree whose directories map names to leaves (bytes) or
 * directories. Every update returns a new `Context` and leaves this one as it was.
 * Get one from `checkout` or `emptyContext`; `commit` turns it into store writes.
 * @example
 * let ctx = emptyContext(store);
 * ctx = ctx.set(["contracts", "index", "0000aa", "balance"], new Uint8Array([0x80, 0x01]));
 * ctx.get(["contracts", "index", "0000aa", "balance"]); // Uint8Array [0x80, 0x01]
 * ctx.listKeys(["contracts", "index"]); // ["0000aa"]
 */
export class Context {
  /** The store its nodes are read from. */
  readonly store: KeyValueStore;
  /** @internal The root directory. */
  readonly root: Ref;
  readonly #loader: NodeLoader;

  /** @internal Use `checkout` or `emptyContext`. */
  constructor(store: KeyValueStore, root: Ref) {
    this.store = store;
    this.root = root;
    this.#loader = loaderOf(store);
  }

  /** The bytes of the leaf at `path` (a copy), or `undefined` (absent, or a directory). */
  get(path: ContextPath): Uint8Array | undefined {
    checkPath(path, "Context.get");
    const child = this.#find(path);
    if (child === undefined) return undefined;
    if (child.kind === INLINE) return child.value.slice();
    if (child.kind === BLOB) return this.#loader.loadBlob(child.ref).slice();
    return undefined;
  }

  /** What is at `path`: `"leaf"`, `"dir"` or `undefined`; the root is a directory. */
  kind(path: ContextPath): "leaf" | "dir" | undefined {
    checkPath(path, "Context.kind");
    if (path.length === 0) return "dir";
    const child = this.#find(path);
    return child === undefined ? undefined : child.kind === DIR ? "dir" : "leaf";
  }

  /** Whether a leaf or a directory is at `path`. */
  has(path: ContextPath): boolean {
    return this.kind(path) !== undefined;
  }

  /** Whether a directory is at `path` (the root always is). */
  isDirectory(path: ContextPath): boolean {
    return this.kind(path) === "dir";
  }

  /**
   * A context with the leaf at `path` set to a copy of `value`. Missing directories on the way
   * are created; a leaf on the way, or a directory at `path`, is replaced.
   * @throws TypeError for a bad path or a non-Uint8Array value, RangeError for an empty path.
   */
  set(path: ContextPath, value: Uint8Array): Context {
    checkPath(path, "Context.set");
    if (path.length === 0) throw new RangeError("Context.set: the path must not be empty (the root is a directory)");
    if (!(value instanceof Uint8Array)) throw new TypeError("Context.set: value must be a Uint8Array");
    const bytes = value.slice();
    const leaf: Child = bytes.length <= INLINE_MAX ? { kind: INLINE, value: bytes } : { kind: BLOB, ref: Ref.fresh(bytes) };
    return this.#replace(path, leaf);
  }

  /**
   * A context without what is at `path` (a leaf or a whole directory); directories left empty
   * vanish. Removing the root gives an empty context; removing nothing returns this context.
   */
  remove(path: ContextPath): Context {
    checkPath(path, "Context.remove");
    if (path.length === 0) return new Context(this.store, Ref.fresh(EMPTY_FLAT));
    return this.#replace(path, undefined);
  }

  /**
   * A context where `to` holds what `from` holds (a leaf or a directory, shared, not copied), or
   * `undefined` when nothing is at `from`. Like Octez's `Context.copy`.
   */
  copy(from: ContextPath, to: ContextPath): Context | undefined {
    checkPath(from, "Context.copy");
    checkPath(to, "Context.copy");
    if (from.length === 0) {
      if (to.length === 0) return this;
      const root = this.#loader.loadDir(this.root);
      return dirCount(root) === 0 ? undefined : this.#replace(to, { kind: DIR, ref: this.root });
    }
    const child = this.#find(from);
    if (child === undefined) return undefined;
    if (to.length === 0) return child.kind === DIR ? new Context(this.store, child.ref) : undefined;
    return this.#replace(to, child);
  }

  /** The names in the directory at `path`, sorted; `[]` when there is no directory there. */
  listKeys(path: ContextPath): string[] {
    checkPath(path, "Context.listKeys");
    const dir = this.#dirAt(path);
    return dir === undefined ? [] : listEntries(this.#loader, dir).map((e) => e[0]);
  }

  /**
   * What is at `path` as a nested listing, down to `depth` levels (Octez's `raw/bytes` rule: at
   * depth 0 everything is `cut`; a leaf is a `key`; entries at distance `depth` are `cut`).
   * `undefined` when nothing is at `path`.
   */
  list(path: ContextPath, options: ListOptions = {}): RawContext | undefined {
    checkPath(path, "Context.list");
    const depth = options.depth ?? Infinity;
    if (depth !== Infinity && !(Number.isInteger(depth) && depth >= 0)) {
      throw new RangeError(`Context.list: depth must be a non-negative integer, got ${String(depth)}`);
    }
    if (path.length === 0) return depth === 0 ? CUT : this.#listDir(this.#loader.loadDir(this.root), depth);
    const child = this.#find(path);
    if (child === undefined) return undefined;
    return this.#listChild(child, depth);
  }

  /** Every leaf at or below `path`, as [path relative to `path`, bytes], in sorted order. */
  *leaves(path: ContextPath = []): Generator<[string[], Uint8Array]> {
    checkPath(path, "Context.leaves");
    if (path.length === 0) {
      yield* this.#walk(this.#loader.loadDir(this.root), []);
      return;
    }
    const child = this.#find(path);
    if (child === undefined) return;
    if (child.kind === DIR) yield* this.#walk(this.#loader.loadDir(child.ref), []);
    else yield [[], this.#leafBytes(child)];
  }

  /**
   * BLAKE2b-256 of the directory at `path` (its content's identity: equal contents, equal hash),
   * or `undefined` when there is no directory there. Cheap for stored directories.
   */
  dirHash(path: ContextPath): Uint8Array | undefined {
    checkPath(path, "Context.dirHash");
    if (path.length === 0) return this.treeHash();
    const c = this.#find(path);
    return c === undefined || c.kind !== DIR ? undefined : refHash(c.ref).slice();
  }

  /** BLAKE2b-256 of the root directory node (what a commit of this context points to). */
  treeHash(): Uint8Array {
    return refHash(this.root).slice();
  }

  *#walk(dir: DirNode, prefix: string[]): Generator<[string[], Uint8Array]> {
    for (const [name, child] of listEntries(this.#loader, dir)) {
      const p = [...prefix, name];
      if (child.kind === DIR) yield* this.#walk(this.#loader.loadDir(child.ref), p);
      else yield [p, this.#leafBytes(child)];
    }
  }

  #listChild(child: Child, depth: number): RawContext {
    if (depth === 0) return CUT;
    if (child.kind !== DIR) return { kind: "key", value: this.#leafBytes(child) };
    return this.#listDir(this.#loader.loadDir(child.ref), depth);
  }

  #listDir(dir: DirNode, depth: number): RawContext {
    const entries = listEntries(this.#loader, dir).map(([name, c]) => [name, this.#listChild(c, depth - 1)] as const);
    return { kind: "dir", entries };
  }

  #leafBytes(child: Child): Uint8Array {
    return child.kind === INLINE ? child.value.slice() : this.#loader.loadBlob(child.ref).slice();
  }

  #find(path: ContextPath): Child | undefined {
    let dir = this.#loader.loadDir(this.root);
    const last = path.length - 1;
    for (let i = 0; i < last; i++) {
      const c = findEntry(this.#loader, dir, path[i]!);
      if (c === undefined || c.kind !== DIR) return undefined;
      dir = this.#loader.loadDir(c.ref);
    }
    return findEntry(this.#loader, dir, path[last]!);
  }

  #dirAt(path: ContextPath): DirNode | undefined {
    if (path.length === 0) return this.#loader.loadDir(this.root);
    const c = this.#find(path);
    return c !== undefined && c.kind === DIR ? this.#loader.loadDir(c.ref) : undefined;
  }

  /** Sets (or removes, for `undefined`) the entry at a non-empty path. */
  #replace(path: ContextPath, child: Child | undefined): Context {
    const root = this.#loader.loadDir(this.root);
    const next = this.#update(root, path, 0, child);
    return next === root ? this : new Context(this.store, Ref.fresh(next));
  }

  #update(dir: DirNode, path: ContextPath, i: number, child: Child | undefined): DirNode {
    const name = path[i]!;
    if (i === path.length - 1) return updateEntry(this.#loader, dir, name, child);
    const existing = findEntry(this.#loader, dir, name);
    if (existing === undefined || existing.kind !== DIR) {
      if (child === undefined) return dir; // nothing to remove
      const sub = this.#update(EMPTY_FLAT, path, i + 1, child);
      return updateEntry(this.#loader, dir, name, { kind: DIR, ref: Ref.fresh(sub) });
    }
    const sub = this.#loader.loadDir(existing.ref);
    const next = this.#update(sub, path, i + 1, child);
    if (next === sub) return dir;
    return updateEntry(this.#loader, dir, name, dirCount(next) === 0 ? undefined : { kind: DIR, ref: Ref.fresh(next) });
  }
}

const CUT: RawContext = { kind: "cut" };

/** An empty context over `store` (the state before genesis). */
export function emptyContext(store: KeyValueStore): Context {
  return new Context(store, Ref.fresh(EMPTY_FLAT));
}
