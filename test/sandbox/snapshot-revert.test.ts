import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNode } from "../../lib/node.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";
import { Directory } from "../../lib/rpc/directory.ts";
import { nodeRpcHandler } from "../../lib/rpc/services/mod.ts";
import { sandboxSnapshotServices } from "../../lib/rpc/services/sandbox-snapshot.ts";
import { sandboxGuard } from "../../lib/sandbox/guard.ts";
import { BOOTSTRAP1, FRESH, bake, balance, call, get, head, inject, signedTransfer } from "./support.ts";

const S = suite("sandbox snapshot and revert");

S("snapshot, transfers and blocks, revert: balances, head, level index, blocks list and mempool are back; baking goes on from the reverted head", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const start = await head(node);
    const before = await balance(node, BOOTSTRAP1);
    const snap = await call(node, "POST", "/sandbox/snapshot");
    assert.is(snap.status, 200, JSON.stringify(snap.json));
    assert.equal(snap.json, { id: "0x1", block: start.hash, level: start.level });

    const first = await signedTransfer(node, FRESH[0], 7_000_000n);
    const firstHash = await inject(node, first);
    const [b1] = await bake(node);
    await inject(node, await signedTransfer(node, FRESH[1], 3_000_000n));
    const later = await bake(node, 3);
    const forgotten = [b1!, ...later];
    assert.is(await balance(node, FRESH[0]), 7_000_000n);
    assert.is(await balance(node, FRESH[1]), 3_000_000n);
    // one more waits in the mempool
    const waiting = await inject(node, await signedTransfer(node, FRESH[2], 1_000_000n));
    assert.is((await get(node, "/chains/main/mempool/pending_operations")).applied.length, 1);
    assert.is((await head(node)).level, start.level + 4);

    const reverted = await call(node, "POST", "/sandbox/revert", { id: "0x1" });
    assert.equal(reverted, { status: 200, json: { id: "0x1", block: start.hash, level: start.level } });
    assert.equal(await head(node), start);
    assert.is(await balance(node, BOOTSTRAP1), before);
    assert.is(await balance(node, FRESH[0]), 0n);
    assert.is(await balance(node, FRESH[1]), 0n);
    for (let level = start.level + 1; level <= start.level + 4; level++) assert.is((await call(node, "GET", `/chains/main/blocks/${level}/hash`)).status, 404);
    for (const hash of forgotten) assert.is((await call(node, "GET", `/chains/main/blocks/${hash}/hash`)).status, 404, hash);
    assert.is(await get(node, "/chains/main/blocks/head~1/hash"), await get(node, `/chains/main/blocks/${start.level - 1}/hash`));
    assert.equal(await get(node, "/chains/main/blocks"), [[start.hash]]);
    const mempool = await get(node, "/chains/main/mempool/pending_operations");
    assert.equal([mempool.applied, mempool.refused, mempool.branch_delayed, mempool.branch_refused], [[], [], [], []]);
    assert.not.ok(JSON.stringify(mempool).includes(waiting));
    assert.ok((await get(node, "/chains/main/levels/checkpoint")).level <= start.level);

    // the same transfer again: nothing of the forgotten blocks is known, it is applied and baked anew
    assert.is(await inject(node, first), firstHash);
    const [again] = await bake(node);
    const header = await get(node, `/chains/main/blocks/${again}/header`);
    assert.equal([header.level, header.predecessor], [start.level + 1, start.hash]);
    assert.is.not(again, b1);
    assert.is(await balance(node, FRESH[0]), 7_000_000n);
    const more = await bake(node, 4);
    assert.is((await head(node)).level, start.level + 5);
    for (const hash of more) assert.not.ok(forgotten.includes(hash));
    assert.equal(await get(node, "/chains/main/blocks"), [[more[3]]]);
  } finally {
    await node.close();
  }
});

S("a revert consumes its snapshot and the later ones; an unknown id is refused and changes nothing", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const s1 = (await call(node, "POST", "/sandbox/snapshot")).json;
    await bake(node);
    const s2 = (await call(node, "POST", "/sandbox/snapshot")).json;
    await bake(node, 2);
    const s3 = (await call(node, "POST", "/sandbox/snapshot")).json;
    assert.equal([s1.id, s2.id, s3.id], ["0x1", "0x2", "0x3"]);
    assert.equal([s2.level - s1.level, s3.level - s2.level], [1, 2]);
    const top = await head(node);

    const unknown = await call(node, "POST", "/sandbox/revert", { id: "0x9" });
    assert.is(unknown.status, 500);
    assert.is(unknown.json[0].id, "sandbox.unknown_snapshot");
    assert.is(unknown.json[0].snapshot, "0x9");
    const malformed = await call(node, "POST", "/sandbox/revert", { snapshot: "0x1" });
    assert.is(malformed.status, 400);
    assert.equal(await head(node), top);

    assert.is((await call(node, "POST", "/sandbox/revert", { id: "0x2" })).status, 200);
    assert.equal(await head(node), { hash: s2.block, level: s2.level });
    for (const id of ["0x2", "0x3"]) {
      const r = await call(node, "POST", "/sandbox/revert", { id });
      assert.equal([r.status, r.json[0].id], [500, "sandbox.unknown_snapshot"]);
    }
    assert.equal(await head(node), { hash: s2.block, level: s2.level });
    // a new snapshot takes the next number, as Anvil's
    assert.is((await call(node, "POST", "/sandbox/snapshot")).json.id, "0x4");
    assert.is((await call(node, "POST", "/sandbox/revert", { id: "0x1" })).status, 200);
    assert.equal(await head(node), { hash: s1.block, level: s1.level });
    assert.is((await call(node, "POST", "/sandbox/revert", { id: "0x4" })).json[0].id, "sandbox.unknown_snapshot");
  } finally {
    await node.close();
  }
});

S("snapshots and forgotten blocks are kept across a restart on LMDB", async () => {
  const dir = await mkdtemp(join(tmpdir(), "snapshot-revert-"));
  try {
    let node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" } });
    const snap = (await call(node, "POST", "/sandbox/snapshot")).json;
    await inject(node, await signedTransfer(node, FRESH[0], 5_000_000n));
    const baked = await bake(node, 3);
    await node.close();

    node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" } });
    assert.is(await balance(node, FRESH[0]), 5_000_000n);
    assert.is((await call(node, "POST", "/sandbox/revert", { id: snap.id })).status, 200);
    await node.close();

    node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" } });
    assert.equal(await head(node), { hash: snap.block, level: snap.level });
    assert.is(await balance(node, FRESH[0]), 0n);
    for (const hash of baked) assert.is((await call(node, "GET", `/chains/main/blocks/${hash}/hash`)).status, 404);
    await node.pruned(); // the forgotten blocks are deleted in the background
    assert.is((await call(node, "POST", "/sandbox/revert", { id: snap.id })).json[0].id, "sandbox.unknown_snapshot");
    const [next] = await bake(node);
    assert.is((await get(node, `/chains/main/blocks/${next}/header`)).level, snap.level + 1);
    await node.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

S("a snapshot pins its block in rolling mode: across cycles its context stays readable, and the revert goes back to it", async () => {
  const node = await createNode({ bake: { mode: "manual" }, historyMode: "rolling:0" });
  try {
    await inject(node, await signedTransfer(node, FRESH[0], 2_000_000n));
    await bake(node);
    const snap = (await call(node, "POST", "/sandbox/snapshot")).json;
    const pinned = await balance(node, BOOTSTRAP1);
    await inject(node, await signedTransfer(node, FRESH[0], 2_000_000n));
    await bake(node, 200); // 25 cycles of 8 blocks: rolling:0 would keep the last max_operations_ttl (120) below the last allowed fork level
    await node.pruned();
    const savepoint = await get(node, "/chains/main/levels/savepoint");
    const caboose = await get(node, "/chains/main/levels/caboose");
    assert.equal([savepoint.level, caboose.level], [snap.level, snap.level]);
    // below the pin, pruning went on: the block under it is gone
    assert.is((await call(node, "GET", `/chains/main/blocks/${snap.level - 1}/hash`)).status, 404);
    assert.is(await balance(node, BOOTSTRAP1, String(snap.level)), pinned);
    assert.is(await balance(node, FRESH[0], String(snap.level)), 2_000_000n);

    assert.is((await call(node, "POST", "/sandbox/revert", { id: snap.id })).status, 200);
    assert.is(await balance(node, FRESH[0]), 2_000_000n);
    assert.is(await balance(node, BOOTSTRAP1), pinned);
    await bake(node, 200);
    await node.pruned();
    // the pin is gone with the snapshot: the savepoint moves on
    assert.ok((await get(node, "/chains/main/levels/savepoint")).level > snap.level);
  } finally {
    await node.close();
  }
});

S("snapshot and revert are refused while P2P peers are connected, before they reach the snapshots", async () => {
  let peers = 1;
  const calls: string[] = [];
  // the services with a guard that counts `peers`, over snapshots that record what reaches them
  const snapshots = {
    take: async () => (calls.push("take"), { id: "0x1", block: "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2", level: 0 }),
    revert: async (id: string) => (calls.push(`revert ${id}`), { id, block: "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2", level: 0 }),
  };
  const handler = nodeRpcHandler(
    new Directory().merge(sandboxSnapshotServices({ shell: {} as never, guard: sandboxGuard({ sandbox: true, peers: () => peers }), snapshots: snapshots as never })),
    {},
  );
  const fetch = { fetch: (r: Request) => handler(r) };
  for (const [path, body] of [["/sandbox/snapshot", undefined], ["/sandbox/revert", { id: "0x1" }]] as const) {
    const r = await call(fetch, "POST", path, body);
    assert.is(r.status, 500, path);
    assert.is(r.json[0].id, "sandbox.peers_connected");
    assert.is(r.json[0].peers, 1);
  }
  assert.equal(calls, []);
  peers = 0;
  assert.is((await call(fetch, "POST", "/sandbox/snapshot")).status, 200);
  assert.is((await call(fetch, "POST", "/sandbox/revert", { id: "0x1" })).status, 200);
  assert.equal(calls, ["take", "revert 0x1"]);
  // not a sandbox: refused too
  const other = nodeRpcHandler(new Directory().merge(sandboxSnapshotServices({ shell: {} as never, guard: sandboxGuard({ sandbox: false, peers: () => 0 }), snapshots: snapshots as never })), {});
  const r = await call({ fetch: (q: Request) => other(q) }, "GET", "/sandbox/state");
  assert.is(r.json[0].id, "sandbox.not_a_sandbox");
});

S.run();
