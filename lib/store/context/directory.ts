/**
 * Persistent operations on directory nodes: find an entry, add/replace/remove one (returning a new
 * node that shares everything unchanged), list entries. Keeps the shape canonical: a directory
 * (or shard slot) of at most `MAX_ENTRIES` entries is `Flat`, a larger one a `Shard` whose slots
 * are built by the same rule one depth further.
 * @module
 */
import { blake2b256 } from "../../crypto/blake2b.ts";
import type { NodeLoader } from "./loader.ts";
import { type Child, dirCount, type DirNode, EMPTY_FLAT, Flat, INLINE, MAX_ENTRIES, MAX_SHARD_DEPTH, Ref, Shard } from "./node.ts";

const utf8 = new TextEncoder();
const NAME_HASH_GENERATION = 65536;
let youngNames = new Map<string, Uint8Array>();
let oldNames = new Map<string, Uint8Array>();

/** BLAKE2b-256 of a name's UTF-8 bytes, which places it in shards (cached). */
export function nameHash(name: string): Uint8Array {
  let h = youngNames.get(name);
  if (h !== undefined) return h;
  h = oldNames.get(name) ?? blake2b256(utf8.encode(name));
  youngNames.set(name, h);
  if (youngNames.size >= NAME_HASH_GENERATION) {
    oldNames = youngNames;
    youngNames = new Map();
  }
  return h;
}

/** The slot (0..31) of a name hash in a shard of depth `depth`: its bits [5d, 5d + 5). */
export function slotOf(hash: Uint8Array, depth: number): number {
  const bit = depth * 5;
  const byte = bit >> 3;
  const word = (hash[byte]! << 8) | (byte + 1 < hash.length ? hash[byte + 1]! : 0);
  return (word >> (11 - (bit & 7))) & 31;
}

/** Index of `name` in sorted `names`, or of where it would go. */
function search(names: readonly string[], name: string): number {
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (names[mid]! < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The entry `name` of a directory, or `undefined`. */
export function findEntry(loader: NodeLoader, dir: DirNode, name: string): Child | undefined {
  for (;;) {
    if (dir instanceof Flat) {
      const i = search(dir.names, name);
      return i < dir.names.length && dir.names[i] === name ? dir.children[i] : undefined;
    }
    const slot = dir.slots[slotOf(nameHash(name), dir.depth)];
    if (slot === undefined) return undefined;
    dir = loader.loadDir(slot);
  }
}

/**
 * The directory with entry `name` set to `child` (removed when `child` is undefined). Returns
 * `dir` itself when nothing changes. `depth` is the shard depth the node would split at: 0 for a
 * directory, one more than its shard's for a slot.
 */
export function updateEntry(loader: NodeLoader, dir: DirNode, name: string, child: Child | undefined, depth = 0): DirNode {
  if (dir instanceof Flat) {
    const i = search(dir.names, name);
    const found = i < dir.names.length && dir.names[i] === name;
    if (child === undefined) {
      if (!found) return dir;
      const names = dir.names.slice();
      const children = dir.children.slice();
      names.splice(i, 1);
      children.splice(i, 1);
      return names.length === 0 ? EMPTY_FLAT : new Flat(names, children);
    }
    if (found) {
      if (sameChild(dir.children[i]!, child)) return dir;
      const children = dir.children.slice();
      children[i] = child;
      return new Flat(dir.names, children);
    }
    const names = dir.names.slice();
    const children = dir.children.slice();
    names.splice(i, 0, name);
    children.splice(i, 0, child);
    return build(names, children, depth);
  }
  const s = slotOf(nameHash(name), dir.depth);
  const ref = dir.slots[s];
  const sub = ref === undefined ? EMPTY_FLAT : loader.loadDir(ref);
  const next = updateEntry(loader, sub, name, child, dir.depth + 1);
  if (next === sub) return dir;
  const count = dir.count + dirCount(next) - dirCount(sub);
  const slots = dir.slots.slice();
  slots[s] = dirCount(next) === 0 ? undefined : Ref.fresh(next);
  if (count > MAX_ENTRIES) return new Shard(dir.depth, count, slots);
  // Shrunk to a flat node's size: gather the entries of every slot.
  const entries: [string, Child][] = [];
  for (const slot of slots) if (slot !== undefined) collect(loader, loader.loadDir(slot), entries);
  entries.sort(byName);
  return new Flat(
    entries.map((e) => e[0]),
    entries.map((e) => e[1]),
  );
}

/** The canonical node for sorted entries at shard depth `depth`. */
function build(names: string[], children: Child[], depth: number): DirNode {
  if (names.length <= MAX_ENTRIES || depth > MAX_SHARD_DEPTH) return new Flat(names, children);
  const groupNames: string[][] = Array.from({ length: 32 }, () => []);
  const groupChildren: Child[][] = Array.from({ length: 32 }, () => []);
  for (let i = 0; i < names.length; i++) {
    const s = slotOf(nameHash(names[i]!), depth);
    groupNames[s]!.push(names[i]!);
    groupChildren[s]!.push(children[i]!);
  }
  const slots: (Ref | undefined)[] = new Array(32).fill(undefined);
  for (let s = 0; s < 32; s++) {
    if (groupNames[s]!.length > 0) slots[s] = Ref.fresh(build(groupNames[s]!, groupChildren[s]!, depth + 1));
  }
  return new Shard(depth, names.length, slots);
}

/** Appends every entry below `dir` to `out` (unsorted for shards). */
export function collect(loader: NodeLoader, dir: DirNode, out: [string, Child][]): void {
  if (dir instanceof Flat) {
    for (let i = 0; i < dir.names.length; i++) out.push([dir.names[i]!, dir.children[i]!]);
    return;
  }
  for (const slot of dir.slots) if (slot !== undefined) collect(loader, loader.loadDir(slot), out);
}

/** Every entry of a directory, sorted by name. */
export function listEntries(loader: NodeLoader, dir: DirNode): [string, Child][] {
  const out: [string, Child][] = [];
  collect(loader, dir, out);
  if (dir instanceof Shard) out.sort(byName);
  return out;
}

function byName(a: [string, Child], b: [string, Child]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

function sameChild(a: Child, b: Child): boolean {
  if (a.kind === INLINE) return b.kind === INLINE && equalBytes(a.value, b.value);
  if (a.kind !== b.kind) return false;
  const ra = a.ref;
  const rb = (b as { ref: Ref }).ref;
  return ra === rb || (ra.hash !== undefined && rb.hash !== undefined && equalBytes(ra.hash, rb.hash));
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
