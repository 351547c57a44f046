import { suite } from "uvu";
import * as assert from "uvu/assert";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { collectContext } from "../../lib/store/context/gc.ts";
import { checkout, commit, type Context, ContextCorruptionError, emptyContext } from "../../lib/store/context/mod.ts";
import { linkedHashes } from "../../lib/store/context/node.ts";
import type { WriteOp } from "../../lib/store/kv.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { key, Table } from "../../lib/store/tables.ts";

const test = suite("context-packed");
const b = (...xs: number[]) => new Uint8Array(xs);
const hex = (x: Uint8Array) => Array.from(x, (v) => v.toString(16).padStart(2, "0")).join("");
const utf8 = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
};
const info = { parents: [] as Uint8Array[], time: 0, message: "" };
const nodeOps = (ops: WriteOp[]) => ops.filter((o) => o.key[0] === Table.contextNode);

function small(store: MemoryStore): Context {
  return emptyContext(store)
    .set(["x"], b(2))
    .set(["balance"], b(1))
    .set(["0000abcd"], b(3))
    .set(["frozen_balance", "fees"], b(4));
}

test("a directory is stored packed as documented: dictionary, hex and literal names, a small subdirectory inside it", () => {
  const ctx = small(new MemoryStore());
  const { ops } = commit(ctx, info);
  const nodes = nodeOps(ops);
  assert.is(nodes.length, 1, "the frozen_balance directory sits inside the root");
  const inner = b(0x04, 1, 0xbc, 0, 1, 4); // "fees" is PACKED_NAMES[26]
  const expected = concat(
    b(0x04, 4),
    b(0xa1, 4, 0x00, 0x00, 0xab, 0xcd, 0, 1, 3), // a hex name as its bytes
    b(0xa3, 0, 1, 1), // "balance" is PACKED_NAMES[1]
    b(0xbd, 3, inner.length),
    inner, // "frozen_balance", PACKED_NAMES[27], an inline directory
    b(1, 0x78, 0, 1, 2), // "x", a literal
  );
  assert.is(hex(nodes[0]!.value!), hex(expected));
  // The key and the hash are those of the hashed encoding (0x01 Flat), not of the stored bytes.
  const sub = concat(b(0x01, 1, 4), utf8("fees"), b(0, 1, 4));
  const root = concat(
    b(0x01, 4),
    b(8), utf8("0000abcd"), b(0, 1, 3),
    b(7), utf8("balance"), b(0, 1, 1),
    b(14), utf8("frozen_balance"), b(2), blake2b256(sub),
    b(1), utf8("x"), b(0, 1, 2),
  );
  assert.is(hex(ctx.treeHash()), hex(blake2b256(root)));
  assert.is(hex(nodes[0]!.key), hex(key(Table.contextNode, blake2b256(root))));
});

test("a checked-out packed tree has the same hashes, and changes inside an inline directory hash as if built fresh", async () => {
  const store = new MemoryStore();
  const first = commit(small(store), info);
  await store.write(first.ops);
  const back = checkout(store, first.hash)!;
  assert.is(hex(back.treeHash()), hex(small(new MemoryStore()).treeHash()));
  assert.is(hex(back.dirHash(["frozen_balance"])!), hex(small(new MemoryStore()).dirHash(["frozen_balance"])!));
  assert.equal(back.get(["frozen_balance", "fees"]), b(4));
  assert.equal(back.listKeys([]), ["0000abcd", "balance", "frozen_balance", "x"]);
  const changed = back.set(["frozen_balance", "rewards"], b(5)).set(["x"], b(9));
  const fresh = small(new MemoryStore()).set(["frozen_balance", "rewards"], b(5)).set(["x"], b(9));
  const next = commit(changed, { parents: [first.hash], time: 1, message: "" });
  assert.is(hex(next.hash), hex(commit(fresh, { parents: [first.hash], time: 1, message: "" }).hash));
  await store.write(next.ops);
  assert.equal(checkout(store, next.hash)!.get(["frozen_balance", "rewards"]), b(5));
});

test("a directory inside another becomes a node of its own when it grows past INLINE_DIR_MAX, or is a context's root", async () => {
  const store = new MemoryStore();
  let ctx = small(store);
  for (let i = 0; i < 10; i++) ctx = ctx.set(["frozen_balance", `c${i}`], new Uint8Array(8).fill(i));
  const { hash, ops } = commit(ctx, info);
  assert.is(nodeOps(ops).length, 2);
  await store.write(ops);
  const back = checkout(store, hash)!;
  assert.equal(back.get(["frozen_balance", "c7"]), new Uint8Array(8).fill(7));
  // A small inline directory made the root of a context is stored on its own.
  const first = commit(small(store), info);
  await store.write(first.ops);
  const sub = checkout(store, first.hash)!.copy(["frozen_balance"], [])!;
  const own = commit(sub, info);
  assert.is(nodeOps(own.ops).length, 1);
  await store.write(own.ops);
  assert.equal(checkout(store, own.hash)!.get(["fees"]), b(4));
});

test("a store written with the unpacked Flat encoding (0x01) still reads, and commits on it keep their hashes", async () => {
  const store = new MemoryStore();
  const sub = concat(b(0x01, 1, 4), utf8("fees"), b(0, 1, 4));
  const root = concat(b(0x01, 2), b(1), utf8("a"), b(0, 2, 7, 7), b(14), utf8("frozen_balance"), b(2), blake2b256(sub));
  const same = emptyContext(new MemoryStore()).set(["a"], b(7, 7)).set(["frozen_balance", "fees"], b(4));
  const c = commit(same, info);
  await store.write([
    { key: key(Table.contextNode, blake2b256(sub)), value: sub },
    { key: key(Table.contextNode, blake2b256(root)), value: root },
    c.ops[c.ops.length - 1]!,
  ]);
  const old = checkout(store, c.hash)!;
  assert.equal(old.get(["frozen_balance", "fees"]), b(4));
  assert.is(hex(old.treeHash()), hex(blake2b256(root)));
  const next = commit(old.set(["a"], b(8)), { parents: [c.hash], time: 1, message: "" });
  assert.is(hex(next.hash), hex(commit(same.set(["a"], b(8)), { parents: [c.hash], time: 1, message: "" }).hash));
  assert.is(nodeOps(next.ops).length, 1, "the old subdirectory stays a node of its own");
  assert.is(nodeOps(next.ops)[0]!.value![0], 0x04);
});

test("corrupt packed nodes raise ContextCorruptionError", () => {
  const cases: [string, Uint8Array][] = [
    ["unknown name code", b(0x04, 1, 0xff, 0, 1, 1)],
    ["truncated", b(0x04, 2, 1, 0x61, 0, 1, 1)],
    ["trailing bytes", b(0x04, 1, 1, 0x61, 0, 1, 1, 9)],
    ["names out of order", b(0x04, 2, 1, 0x62, 0, 0, 1, 0x61, 0, 0)],
    ["inline directory not packed", b(0x04, 1, 1, 0x61, 3, 2, 0x01, 0)],
    ["unknown entry kind", b(0x04, 1, 1, 0x61, 7)],
  ];
  for (const [what, bytes] of cases) {
    const store = new MemoryStore();
    const h = blake2b256(bytes);
    store.write([{ key: key(Table.contextNode, h), value: bytes }]);
    const commitBytes = concat(b(0x10), h, b(0), new Uint8Array(8), b(0));
    store.write([{ key: key(Table.contextCommit, blake2b256(commitBytes)), value: commitBytes }]);
    const ctx = checkout(store, blake2b256(commitBytes))!;
    assert.throws(() => ctx.listKeys([]), (e: Error) => e instanceof ContextCorruptionError, what);
  }
});

test("linkedHashes follows links through inline directories; a collection keeps a packed tree whole", async () => {
  const store = new MemoryStore();
  const blob = new Uint8Array(40).fill(6);
  const ctx = small(store).set(["frozen_balance", "big"], blob).set(["frozen_balance", "d", "e"], b(1));
  const first = commit(ctx, info);
  const nodes = nodeOps(first.ops);
  assert.is(nodes.length, 2, "the root (holding frozen_balance and frozen_balance/d) and the blob");
  const links: Uint8Array[] = [];
  linkedHashes(nodes[0]!.value!, links);
  assert.equal(links.map(hex), [hex(blake2b256(concat(b(0x03), blob)))]);
  await store.write(first.ops);
  const second = commit(checkout(store, first.hash)!.remove(["frozen_balance", "big"]).set(["x"], b(1)), { parents: [first.hash], time: 1, message: "" });
  await store.write(second.ops);
  await collectContext(store, [second.hash]);
  assert.is(checkout(store, first.hash), undefined);
  const kept = checkout(store, second.hash)!;
  assert.equal(kept.get(["frozen_balance", "d", "e"]), b(1));
  assert.equal([...store.range({ gte: b(Table.contextNode), lt: b(Table.contextNode + 1) })].length, 1, "the blob only the first tree used is gone");
});

test.run();
