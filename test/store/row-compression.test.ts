import { suite } from "uvu";
import * as assert from "uvu/assert";
import { BlockStore, type FullBlockInfo } from "../../lib/store/block-store.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { BLOCK_ROWS_KEY, compressRow, decompressRow } from "../../lib/store/row-compression.ts";
import { key, Table } from "../../lib/store/tables.ts";
import { B58, b58decode } from "../../lib/encoding/base58.ts";

const test = suite("compressed block rows");

const CHAIN = new Uint8Array([1, 2, 3, 4]);
const HASH = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";
const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
const receipt = (i: number) => new Uint8Array(120).map((_, j) => (j * 7 + i) % 13);
const INFO: FullBlockInfo = {
  protocol: HANGZHOU,
  next_protocol: HANGZHOU,
  max_operations_ttl: 120,
  last_allowed_fork_level: 0,
  metadata: new Uint8Array(600).map((_, j) => j % 17),
  operations_metadata: [[receipt(1), receipt(2), receipt(3)], [], [], []],
};
const OPERATIONS = [[new Uint8Array(150).fill(9), new Uint8Array(150).fill(9)], [], [], []];
const rowOf = (kv: MemoryStore, table: number) => kv.get(key(table, b58decode(B58.blockHash, HASH)))!;

test("a new store writes its operations and records compressed, and reads them back as they were", async () => {
  const kv = new MemoryStore();
  const store = new BlockStore(kv, CHAIN);
  await kv.write([store.startCompressedRows(), ...store.putBlock(HASH, new Uint8Array(80), OPERATIONS, INFO)]);
  const reopened = new BlockStore(kv, CHAIN);
  assert.equal(reopened.operations(HASH), OPERATIONS);
  assert.equal(reopened.info(HASH), INFO);
  const plain = new MemoryStore();
  const old = new BlockStore(plain, CHAIN);
  await plain.write(old.putBlock(HASH, new Uint8Array(80), OPERATIONS, INFO));
  for (const table of [Table.blockOperations, Table.blockMetadata]) {
    assert.ok(rowOf(kv, table).length < rowOf(plain, table).length / 2, `table ${table}: ${rowOf(kv, table).length} vs ${rowOf(plain, table).length}`);
    assert.equal(decompressRow(rowOf(kv, table)), rowOf(plain, table));
  }
});

test("a store made before (no block_rows row) keeps reading and writing its rows uncompressed", async () => {
  const kv = new MemoryStore();
  await kv.write(new BlockStore(kv, CHAIN).putBlock(HASH, new Uint8Array(80), OPERATIONS, INFO));
  const reopened = new BlockStore(kv, CHAIN);
  assert.is(kv.get(BLOCK_ROWS_KEY), undefined);
  assert.equal(reopened.info(HASH), INFO);
  assert.equal(reopened.operations(HASH), OPERATIONS);
});

test("an unknown row format and a row that does not inflate are named as corruption", async () => {
  const kv = new MemoryStore();
  await kv.write([{ key: BLOCK_ROWS_KEY, value: new TextEncoder().encode("zstd") }]);
  assert.throws(() => new BlockStore(kv, CHAIN), /^Corrupted store: unknown block row format "zstd"$/);
  assert.throws(() => decompressRow(new Uint8Array([0xff, 0xff, 0xff])), /^Corrupted store: a compressed block row does not inflate/);
  assert.equal(decompressRow(compressRow(new Uint8Array(0))), new Uint8Array(0));
});

test.run();
