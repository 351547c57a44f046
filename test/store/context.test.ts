import { suite } from "uvu";
import * as assert from "uvu/assert";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { checkout, commit, Context, emptyContext, readCommit } from "../../lib/store/context/mod.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { key, Table } from "../../lib/store/tables.ts";

const test = suite("context");
const b = (...xs: number[]) => new Uint8Array(xs);
const hex = (x: Uint8Array) => Array.from(x, (v) => v.toString(16).padStart(2, "0")).join("");
const utf8 = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
};
/** A 20-byte hex name like a contract's index key. */
const contract = (i: number) => hex(blake2b256(utf8(`contract ${i}`)).subarray(0, 20));
const balance = (i: number) => ["contracts", "index", contract(i), "balance"];

function build(store: MemoryStore, order: number[], value = (i: number) => utf8(`${i}`)): Context {
  let ctx = emptyContext(store);
  for (const i of order) ctx = ctx.set(balance(i), value(i));
  return ctx;
}

async function written(ctx: Context, info = { parents: [] as Uint8Array[], time: 0, message: "" }): Promise<Uint8Array> {
  const { hash, ops } = commit(ctx, info);
  await ctx.store.write(ops);
  return hash;
}

test("the empty tree hashes as BLAKE2b-256 of its documented encoding 01 00", () => {
  assert.is(hex(emptyContext(new MemoryStore()).treeHash()), hex(blake2b256(b(0x01, 0x00))));
});

test("a small tree hashes as its documented encoding: inline leaves, blob leaves and subdirectories", () => {
  const long = new Uint8Array(33).fill(7);
  const ctx = emptyContext(new MemoryStore()).set(["a"], b(1)).set(["d", "x"], long);
  const blob = blake2b256(concat(b(0x03), long));
  const d = blake2b256(concat(b(0x01, 0x01, 0x01), utf8("x"), b(0x01), blob));
  const root = blake2b256(concat(b(0x01, 0x02, 0x01), utf8("a"), b(0x00, 0x01, 0x01), b(0x01), utf8("d"), b(0x02), d));
  assert.is(hex(ctx.treeHash()), hex(root));
});

test("the commit hash covers root, parents, time and message as documented, and is a Co... context hash", () => {
  const ctx = emptyContext(new MemoryStore()).set(["a"], b(1));
  const parent = blake2b256(utf8("parent"));
  const { hash } = commit(ctx, { parents: [parent], time: 1_640_995_200, message: "hi" });
  const time = b(0, 0, 0, 0, 0x61, 0xcf, 0x99, 0x80);
  assert.is(hex(hash), hex(blake2b256(concat(b(0x10), ctx.treeHash(), b(1), parent, time, b(2), utf8("hi")))));
  const co = b58encode(B58.contextHash, hash);
  assert.ok(co.startsWith("Co") && co.length === 52, co);
  const other = (info: object) => hex(commit(ctx, { parents: [parent], time: 1_640_995_200, message: "hi", ...info }).hash);
  assert.is.not(other({ message: "ho" }), hex(hash));
  assert.is.not(other({ time: 1_640_995_201 }), hex(hash));
  assert.is.not(other({ parents: [] }), hex(hash));
});

test("get, kind, has and isDirectory see leaves and directories", () => {
  const ctx = emptyContext(new MemoryStore()).set(["a", "b", "c"], b(1, 2)).set(["a", "x"], b());
  assert.equal(ctx.get(["a", "b", "c"]), b(1, 2));
  assert.equal(ctx.get(["a", "x"]), b());
  assert.is(ctx.get(["a", "b"]), undefined);
  assert.is(ctx.get(["a", "b", "c", "d"]), undefined);
  assert.is(ctx.get(["nope"]), undefined);
  assert.is(ctx.kind(["a", "b"]), "dir");
  assert.is(ctx.kind(["a", "x"]), "leaf");
  assert.is(ctx.kind([]), "dir");
  assert.is(ctx.kind(["a", "y"]), undefined);
  assert.ok(ctx.has(["a", "b", "c"]) && ctx.has(["a"]) && !ctx.has(["b"]));
  assert.ok(ctx.isDirectory(["a"]) && ctx.isDirectory([]) && !ctx.isDirectory(["a", "x"]));
});

test("contexts are immutable: updates leave the old one, and callers' arrays are copied", () => {
  const v = b(1, 2, 3);
  const c1 = emptyContext(new MemoryStore()).set(["k"], v);
  v[0] = 9;
  const c2 = c1.set(["k"], b(4)).set(["j"], b(5));
  assert.equal(c1.get(["k"]), b(1, 2, 3));
  assert.is(c1.get(["j"]), undefined);
  c1.get(["k"])![0] = 7;
  assert.equal(c1.get(["k"]), b(1, 2, 3));
  assert.equal(c2.get(["k"]), b(4));
  assert.is(c1.set(["k"], b(1, 2, 3)), c1, "setting the same value changes nothing");
  assert.is(c1.remove(["absent", "path"]), c1);
});

test("equal contents hash equally whatever the insertion order and history", () => {
  const store = new MemoryStore();
  const n = 3000;
  const forward = build(store, Array.from({ length: n }, (_, i) => i));
  const backward = build(store, Array.from({ length: n }, (_, i) => n - 1 - i));
  // A detour: extra keys and other values, then undone.
  let detour = build(store, Array.from({ length: n + 500 }, (_, i) => (i * 7) % (n + 500)), (i) => utf8(`x${i}`));
  for (let i = n; i < n + 500; i++) detour = detour.remove(balance(i));
  for (let i = 0; i < n; i++) detour = detour.set(balance(i), utf8(`${i}`));
  detour = detour.set(["tmp", "a"], b(1)).remove(["tmp", "a"]);
  assert.is(hex(backward.treeHash()), hex(forward.treeHash()));
  assert.is(hex(detour.treeHash()), hex(forward.treeHash()));
  assert.is(hex(forward.set(balance(5), utf8("6")).treeHash()) === hex(forward.treeHash()), false);
});

test("a directory shrunk below the shard threshold hashes like one built small", () => {
  const store = new MemoryStore();
  let big = build(store, Array.from({ length: 1000 }, (_, i) => i));
  for (let i = 10; i < 1000; i++) big = big.remove(balance(i));
  const small = build(store, Array.from({ length: 10 }, (_, i) => i));
  assert.is(hex(big.treeHash()), hex(small.treeHash()));
  assert.equal(big.listKeys(["contracts", "index"]), small.listKeys(["contracts", "index"]));
});

test("a large directory finds, lists (sorted) and removes each of its 5000 entries", () => {
  const store = new MemoryStore();
  let ctx = build(store, Array.from({ length: 5000 }, (_, i) => i));
  for (let i = 0; i < 5000; i += 7) assert.equal(ctx.get(balance(i)), utf8(`${i}`));
  const names = Array.from({ length: 5000 }, (_, i) => contract(i)).sort();
  assert.equal(ctx.listKeys(["contracts", "index"]), names);
  for (let i = 0; i < 5000; i++) ctx = ctx.remove(["contracts", "index", contract(i)]);
  assert.equal(ctx.listKeys([]), []);
  assert.is(hex(ctx.treeHash()), hex(emptyContext(store).treeHash()));
});

test("structural sharing: after 10k keys, changing 1 key writes a few small nodes, 100 keys a few hundred", async () => {
  const store = new MemoryStore();
  const base = build(store, Array.from({ length: 10_000 }, (_, i) => i));
  const first = commit(base, { parents: [], time: 0, message: "" });
  // Every node but the 10k one-balance contract directories, which sit inside their shard slots.
  assert.ok(first.ops.length > 1000 && first.ops.length < 10_000, `the first commit writes every separate node (${first.ops.length})`);
  await store.write(first.ops);
  const ctx = checkout(store, first.hash)!;
  const one = commit(ctx.set(balance(4242), b(0)), { parents: [first.hash], time: 1, message: "" });
  const bytes = one.ops.reduce((n, op) => n + op.key.length + op.value!.length, 0);
  // root, contracts, index shard, its slot shard, the slot, the contract directory, the commit
  assert.ok(one.ops.length <= 8, `ops: ${one.ops.length}`);
  assert.ok(bytes < 6000, `bytes: ${bytes}`);
  let hundred = ctx;
  for (let i = 0; i < 100; i++) hundred = hundred.set(balance(i * 97), utf8(`new ${i}`));
  const h = commit(hundred, { parents: [first.hash], time: 1, message: "" });
  assert.ok(h.ops.length < 400, `ops: ${h.ops.length}`);
});

test("commit writes nothing; after its ops are written checkout gives the same contents", async () => {
  const store = new MemoryStore();
  const ctx = build(store, [1, 2, 3]).set(["big"], new Uint8Array(100).fill(3));
  const { hash, ops } = commit(ctx, { parents: [], time: 5, message: "m" });
  assert.is(store.size, 0);
  assert.is(checkout(store, hash), undefined);
  await store.write(ops);
  const back = checkout(store, hash)!;
  assert.equal(back.get(balance(2)), utf8("2"));
  assert.equal(back.get(["big"]), new Uint8Array(100).fill(3));
  assert.is(hex(back.treeHash()), hex(ctx.treeHash()));
  assert.equal(ops[ops.length - 1]!.key, key(Table.contextCommit, hash));
  for (const op of ops.slice(0, -1)) assert.is(op.key[0], Table.contextNode);
  const info = readCommit(store, hash)!;
  assert.equal(info, { root: ctx.treeHash(), parents: [], time: 5n, message: "m" });
});

test("a second commit of already written contents writes only the commit", async () => {
  const store = new MemoryStore();
  const ctx = build(store, [1, 2, 3]);
  const h1 = await written(ctx);
  const again = commit(ctx, { parents: [h1], time: 1, message: "" });
  assert.is(again.ops.length, 1);
  const next = commit(ctx.set(balance(1), b(9)), { parents: [h1], time: 1, message: "" });
  assert.ok(next.ops.length <= 5, `ops: ${next.ops.length}`);
});

test("identical subtrees are written once", () => {
  const store = new MemoryStore();
  let ctx = emptyContext(store);
  for (let i = 0; i < 50; i++) ctx = ctx.set(["d", `c${i}`, "balance"], b(0)).set(["d", `c${i}`, "code"], new Uint8Array(64));
  const { ops } = commit(ctx, { parents: [], time: 0, message: "" });
  // root, d (sharded: shard + slots), one shared {balance, code} node, one shared blob, commit
  const keys = new Set(ops.map((o) => hex(o.key)));
  assert.is(keys.size, ops.length);
  assert.ok(ops.length < 40, `ops: ${ops.length}`);
});

test("removing the last leaf of a directory removes the emptied directories", () => {
  const ctx = emptyContext(new MemoryStore()).set(["a", "b", "c"], b(1)).set(["z"], b(2));
  const removed = ctx.remove(["a", "b", "c"]);
  assert.is(removed.has(["a"]), false);
  assert.equal(removed.listKeys([]), ["z"]);
  assert.is(hex(removed.treeHash()), hex(emptyContext(new MemoryStore()).set(["z"], b(2)).treeHash()));
  assert.equal(ctx.remove(["a"]).listKeys([]), ["z"]);
  assert.equal(ctx.remove([]).listKeys([]), []);
});

test("set replaces a leaf on the way by a directory, and a directory at the path by a leaf", () => {
  const ctx = emptyContext(new MemoryStore()).set(["a"], b(1)).set(["a", "b"], b(2));
  assert.is(ctx.kind(["a"]), "dir");
  assert.equal(ctx.get(["a", "b"]), b(2));
  const back = ctx.set(["a"], b(3));
  assert.equal(back.get(["a"]), b(3));
  assert.is(back.has(["a", "b"]), false);
});

test("list follows the raw/bytes depth rule: keys, dirs, and cut at the depth", () => {
  const ctx = emptyContext(new MemoryStore()).set(["a", "b", "c"], b(1)).set(["a", "x"], b(2)).set(["v"], b(0xff));
  assert.equal(ctx.list(["a"]), {
    kind: "dir",
    entries: [
      ["b", { kind: "dir", entries: [["c", { kind: "key", value: b(1) }]] }],
      ["x", { kind: "key", value: b(2) }],
    ],
  });
  assert.equal(ctx.list([], { depth: 1 }), { kind: "dir", entries: [["a", { kind: "cut" }], ["v", { kind: "cut" }]] });
  assert.equal(ctx.list(["a"], { depth: 1 }), { kind: "dir", entries: [["b", { kind: "cut" }], ["x", { kind: "cut" }]] });
  assert.equal(ctx.list(["a"], { depth: 2 }), {
    kind: "dir",
    entries: [["b", { kind: "dir", entries: [["c", { kind: "cut" }]] }], ["x", { kind: "key", value: b(2) }]],
  });
  assert.equal(ctx.list(["v"], { depth: 3 }), { kind: "key", value: b(0xff) });
  assert.equal(ctx.list(["a"], { depth: 0 }), { kind: "cut" });
  assert.is(ctx.list(["nope"]), undefined);
  assert.throws(() => ctx.list([], { depth: -1 }), (e: unknown) => e instanceof RangeError);
});

test("listKeys is sorted and empty for leaves and missing paths; leaves() walks in order", () => {
  const ctx = emptyContext(new MemoryStore()).set(["d", "b"], b(2)).set(["d", "a", "x"], b(1)).set(["d", "c"], b(3));
  assert.equal(ctx.listKeys(["d"]), ["a", "b", "c"]);
  assert.equal(ctx.listKeys(["d", "b"]), []);
  assert.equal(ctx.listKeys(["e"]), []);
  assert.equal(Array.from(ctx.leaves(["d"])), [
    [["a", "x"], b(1)],
    [["b"], b(2)],
    [["c"], b(3)],
  ]);
  assert.equal(Array.from(ctx.leaves(["d", "c"])), [[[], b(3)]]);
});

test("copy shares a subtree at another path", () => {
  const ctx = emptyContext(new MemoryStore()).set(["src", "a"], b(1)).set(["src", "b", "c"], b(2));
  const copied = ctx.copy(["src"], ["dst", "here"])!;
  assert.equal(copied.get(["dst", "here", "b", "c"]), b(2));
  assert.equal(copied.get(["src", "a"]), b(1));
  assert.is(ctx.copy(["missing"], ["x"]), undefined);
});

test("values up to 32 bytes stay inline, longer ones are blobs; both round-trip through the store", async () => {
  const store = new MemoryStore();
  const v32 = new Uint8Array(32).fill(1);
  const v33 = new Uint8Array(33).fill(2);
  const big = new Uint8Array(200_000).map((_, i) => i & 0xff);
  const ctx = emptyContext(store).set(["s"], v32).set(["l"], v33).set(["big"], big);
  const { hash, ops } = commit(ctx, { parents: [], time: 0, message: "" });
  assert.is(ops.filter((o) => o.value![0] === 0x03).length, 2);
  await store.write(ops);
  const back = checkout(store, hash)!;
  assert.equal(back.get(["s"]), v32);
  assert.equal(back.get(["l"]), v33);
  assert.equal(back.get(["big"]), big);
});

test("names are UTF-8 and sorted; empty segments are names too", () => {
  const ctx = emptyContext(new MemoryStore()).set(["é", "ü"], b(1)).set([""], b(2)).set(["Z"], b(3));
  assert.equal(ctx.listKeys([]), ["", "Z", "é"]);
  assert.equal(ctx.get(["é", "ü"]), b(1));
  assert.equal(ctx.get([""]), b(2));
});

test("bad input is refused with TypeError or RangeError", () => {
  const ctx = emptyContext(new MemoryStore());
  assert.throws(() => ctx.set([], b(1)), (e: unknown) => e instanceof RangeError);
  assert.throws(() => ctx.set(["a", 1 as unknown as string], b(1)), (e: Error) => e instanceof TypeError && /path\[1\]/.test(e.message));
  assert.throws(() => ctx.set("a/b" as unknown as string[], b(1)), (e: unknown) => e instanceof TypeError);
  assert.throws(() => ctx.set(["a"], "bytes" as unknown as Uint8Array), (e: unknown) => e instanceof TypeError);
  assert.throws(() => ctx.get([null as unknown as string]), (e: unknown) => e instanceof TypeError);
  assert.throws(() => ctx.set(["\uD800"], b(1)), (e: unknown) => e instanceof RangeError);
  assert.throws(() => commit(ctx, { parents: [b(1)], time: 0, message: "" }), (e: unknown) => e instanceof RangeError);
  assert.throws(() => commit(ctx, { parents: ["x" as unknown as Uint8Array], time: 0, message: "" }), (e: unknown) => e instanceof TypeError);
  assert.throws(() => commit(ctx, { parents: [], time: 1.5, message: "" }), (e: unknown) => e instanceof RangeError);
  assert.throws(() => commit(ctx, { parents: [], time: 0, message: 3 as unknown as string }), (e: unknown) => e instanceof TypeError);
  assert.throws(() => checkout(ctx.store, new Uint8Array(31)), (e: unknown) => e instanceof RangeError);
  assert.is(checkout(ctx.store, new Uint8Array(32)), undefined);
});

test("dirHash() identifies a directory by its content, wherever it sits", () => {
  let ctx = emptyContext(new MemoryStore());
  ctx = ctx.set(["a", "x"], new Uint8Array([1])).set(["a", "y", "z"], new Uint8Array([2]));
  ctx = ctx.set(["b", "x"], new Uint8Array([1])).set(["b", "y", "z"], new Uint8Array([2]));
  ctx = ctx.set(["c", "x"], new Uint8Array([3]));
  assert.equal([...ctx.dirHash(["a"])!], [...ctx.dirHash(["b"])!]);
  assert.not.equal([...ctx.dirHash(["a"])!], [...ctx.dirHash(["c"])!]);
  assert.is(ctx.dirHash(["a", "x"]), undefined, "a leaf has no directory hash");
  assert.is(ctx.dirHash(["nothing"]), undefined);
  assert.equal([...ctx.dirHash([])!], [...ctx.treeHash()]);
});

test.run();
