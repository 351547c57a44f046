/**
 * Michelson maps and sets (Octez `Script_map`/`Script_set`): a persistent AVL tree ordered by
 * {@link compareValues} on the key type. `get`/`set`/`delete` are O(log n) and share every
 * untouched node with the previous map, so values stay immutable and cheap to update.
 * @module
 */
import type { Ty } from "../ty.ts";
import type { MMap, Value } from "../value.ts";
import { compareValues } from "./compare.ts";

interface Node {
  readonly k: Value;
  readonly v: Value;
  readonly l: Node | undefined;
  readonly r: Node | undefined;
  readonly h: number;
  readonly n: number;
}

const height = (t: Node | undefined): number => (t === undefined ? 0 : t.h);
const count = (t: Node | undefined): number => (t === undefined ? 0 : t.n);

function node(k: Value, v: Value, l: Node | undefined, r: Node | undefined): Node {
  return { k, v, l, r, h: Math.max(height(l), height(r)) + 1, n: count(l) + count(r) + 1 };
}

function balance(k: Value, v: Value, l: Node | undefined, r: Node | undefined): Node {
  const hl = height(l), hr = height(r);
  if (hl > hr + 1) {
    const L = l as Node;
    if (height(L.l) >= height(L.r)) return node(L.k, L.v, L.l, node(k, v, L.r, r));
    const LR = L.r as Node;
    return node(LR.k, LR.v, node(L.k, L.v, L.l, LR.l), node(k, v, LR.r, r));
  }
  if (hr > hl + 1) {
    const R = r as Node;
    if (height(R.r) >= height(R.l)) return node(R.k, R.v, node(k, v, l, R.l), R.r);
    const RL = R.l as Node;
    return node(RL.k, RL.v, node(k, v, l, RL.l), node(R.k, R.v, RL.r, R.r));
  }
  return node(k, v, l, r);
}

function removeMin(t: Node): [Node, Node | undefined] {
  if (t.l === undefined) return [t, t.r];
  const [min, l] = removeMin(t.l);
  return [min, balance(t.k, t.v, l, t.r)];
}

/** An immutable Michelson map (or set, with `null` values) over the comparable key type `keyTy`. */
export class TreeMap implements MMap {
  readonly mmap = true as const;
  readonly keyTy: Ty;
  private readonly root: Node | undefined;
  private constructor(keyTy: Ty, root: Node | undefined) {
    this.keyTy = keyTy;
    this.root = root;
  }
  /** The empty map over `keyTy`. */
  static empty(keyTy: Ty): TreeMap {
    return new TreeMap(keyTy, undefined);
  }
  /** Number of bindings. */
  get size(): number {
    return count(this.root);
  }
  private find(key: Value): Node | undefined {
    let t = this.root;
    while (t !== undefined) {
      const c = compareValues(this.keyTy, key, t.k);
      if (c === 0) return t;
      t = c < 0 ? t.l : t.r;
    }
    return undefined;
  }
  /** The value bound to `key`, or `undefined`. */
  get(key: Value): Value | undefined {
    return this.find(key)?.v;
  }
  /** Whether `key` is bound. */
  has(key: Value): boolean {
    return this.find(key) !== undefined;
  }
  /** A map with `key` bound to `value`. */
  set(key: Value, value: Value): TreeMap {
    const ty = this.keyTy;
    const ins = (t: Node | undefined): Node => {
      if (t === undefined) return node(key, value, undefined, undefined);
      const c = compareValues(ty, key, t.k);
      if (c === 0) return node(key, value, t.l, t.r);
      return c < 0 ? balance(t.k, t.v, ins(t.l), t.r) : balance(t.k, t.v, t.l, ins(t.r));
    };
    return new TreeMap(ty, ins(this.root));
  }
  /** A map without `key` (this map when `key` is not bound). */
  delete(key: Value): TreeMap {
    if (!this.has(key)) return this;
    const ty = this.keyTy;
    const del = (t: Node | undefined): Node | undefined => {
      if (t === undefined) return undefined;
      const c = compareValues(ty, key, t.k);
      if (c < 0) return balance(t.k, t.v, del(t.l), t.r);
      if (c > 0) return balance(t.k, t.v, t.l, del(t.r));
      if (t.l === undefined) return t.r;
      if (t.r === undefined) return t.l;
      const [min, r] = removeMin(t.r);
      return balance(min.k, min.v, t.l, r);
    };
    return new TreeMap(ty, del(this.root));
  }
  /** Bindings in increasing key order. */
  *entries(): IterableIterator<readonly [Value, Value]> {
    const stack: Node[] = [];
    let t = this.root;
    while (t !== undefined || stack.length > 0) {
      while (t !== undefined) {
        stack.push(t);
        t = t.l;
      }
      const n = stack.pop() as Node;
      yield [n.k, n.v] as const;
      t = n.r;
    }
  }
  /** Keys in increasing order. */
  *keys(): IterableIterator<Value> {
    for (const [k] of this.entries()) yield k;
  }
  /** The smallest binding, or `undefined` when empty. */
  min(): readonly [Value, Value] | undefined {
    let t = this.root;
    if (t === undefined) return undefined;
    while (t.l !== undefined) t = t.l;
    return [t.k, t.v];
  }
  /** The largest binding, or `undefined` when empty. */
  max(): readonly [Value, Value] | undefined {
    let t = this.root;
    if (t === undefined) return undefined;
    while (t.r !== undefined) t = t.r;
    return [t.k, t.v];
  }
  /**
   * A map of bindings already in strictly increasing key order (not checked), built in O(n):
   * for literals, whose order the parser checks.
   */
  static fromSorted(keyTy: Ty, items: readonly (readonly [Value, Value])[]): TreeMap {
    const build = (lo: number, hi: number): Node | undefined => {
      if (lo >= hi) return undefined;
      const mid = (lo + hi) >>> 1;
      const [k, v] = items[mid]!;
      return node(k, v, build(lo, mid), build(mid + 1, hi));
    };
    return new TreeMap(keyTy, build(0, items.length));
  }
}

/** The empty map over the comparable key type `keyTy`. */
export function emptyMap(keyTy: Ty): TreeMap {
  return TreeMap.empty(keyTy);
}

/** The empty set over the comparable element type `eltTy` (a map whose values are `null`). */
export function emptySet(eltTy: Ty): TreeMap {
  return TreeMap.empty(eltTy);
}

/** Whether `m` is one of this module's maps (to reach its key type). */
export function isTreeMap(m: unknown): m is TreeMap {
  return m instanceof TreeMap;
}
