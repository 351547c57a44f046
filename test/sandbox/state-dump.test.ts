import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNode } from "../../lib/node.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { importSnapshot } from "../../lib/store/snapshot/mod.ts";
import { chainIdOf, SANDBOX_GENESIS } from "../../lib/shell/genesis.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";
import { listening, npmStart, stop } from "../platform/process.ts";
import { BOOTSTRAP1, FRESH, bake, balance, call, head, inject, signedTransfer } from "./support.ts";

const S = suite("sandbox state dump and load");

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

S("GET /sandbox/state imports into a fresh node: the same head, balances and history", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  let copy;
  try {
    await inject(node, await signedTransfer(node, FRESH[0], 4_000_000n));
    await bake(node, 2);
    const res = await node.fetch(new Request("http://localhost/sandbox/state"));
    assert.is(res.status, 200);
    assert.is(res.headers.get("content-type"), "application/octet-stream");
    const bytes = new Uint8Array(await res.arrayBuffer());
    const top = await head(node);
    const store = new MemoryStore();
    const header = await importSnapshot(once(bytes), store, { chainId: chainIdOf(SANDBOX_GENESIS), chainName: SANDBOX_GENESIS.chainName });
    assert.equal([header.block_hash, header.level, header.history_mode], [top.hash, top.level, "full"]);
    copy = await createNode({ store, bake: { mode: "manual" } });
    assert.equal(await head(copy), top);
    assert.is(await balance(copy, FRESH[0]), 4_000_000n);
    assert.is(await balance(copy, BOOTSTRAP1), await balance(node, BOOTSTRAP1));
    assert.is((await call(copy, "GET", "/chains/main/blocks/1/hash")).json, (await call(node, "GET", "/chains/main/blocks/1/hash")).json);
    // and it goes on from there
    const [next] = await bake(copy);
    assert.is((await call(copy, "GET", `/chains/main/blocks/${next}/header`)).json.predecessor, top.hash);
  } finally {
    await node.close();
    await copy?.close();
  }
});

S("--dump-state writes the state at exit, --load-state starts from it; a data directory holding another chain is refused", async () => {
  const dir = await mkdtemp(join(tmpdir(), "state-dump-"));
  const file = join(dir, "chain.state");
  try {
    const first = npmStart(["--memory", "--bake", "manual", "--rpc-addr", "127.0.0.1:0", "--dump-state", file]);
    const url = await listening(first);
    const remote = { fetch: (r: Request) => fetch(new URL(new URL(r.url).pathname + new URL(r.url).search, url), { method: r.method, headers: r.headers, body: r.body === null ? null : r.body, duplex: "half" } as RequestInit) };
    await inject(remote, await signedTransfer(remote, FRESH[1], 6_000_000n));
    await bake(remote, 2);
    const top = await head(remote);
    const exit = await stop(first, "SIGTERM");
    assert.is(exit.code, 0, exit.stderr);
    assert.equal((await readdir(dir)).sort(), ["chain.state"]); // renamed into place, no temporary file left
    assert.ok((await readFile(file)).length > 1000);

    const second = npmStart(["--memory", "--bake", "manual", "--rpc-addr", "127.0.0.1:0", "--load-state", file]);
    const url2 = await listening(second);
    const remote2 = { fetch: (r: Request) => fetch(new URL(new URL(r.url).pathname, url2), { method: r.method }) };
    assert.equal(await head(remote2), top);
    assert.is(await balance(remote2, FRESH[1]), 6_000_000n);
    assert.is((await stop(second, "SIGTERM")).code, 0);

    // a data directory with a chain of its own is refused, in one line, and left as it was
    const other = join(dir, "other");
    const node = await createNode({ store: await openLmdbStore(other), bake: { mode: "manual" } });
    const otherHead = await head(node);
    await node.close();
    const refused = npmStart(["--data-dir", other, "--rpc-addr", "127.0.0.1:0", "--load-state", file]);
    const end = await refused.exited;
    assert.is(end.code, 1);
    assert.match(end.stderr, /^Cannot load state .*chain\.state: the data directory already holds another chain \(head \w+ at level 3, without the state's block \w+\); use an empty data directory or --memory\.\n$/);
    const again = await createNode({ store: await openLmdbStore(other), bake: { mode: "manual" } });
    assert.equal(await head(again), otherHead);
    await again.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

S.run();
