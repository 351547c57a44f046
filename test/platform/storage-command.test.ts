import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { runStorageCommand } from "../../platform/storage-command.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";

const test = suite("storage command");

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runStorageCommand(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

test("storage compact shrinks a data directory's store; bad input changes nothing", async () => {
  const dir = await mkdtemp(join(tmpdir(), "tezos-storage-cmd-"));
  try {
    assert.equal(await run(["compact", "--data-dir", dir]), { code: 1, stdout: "", stderr: `No store in the data directory ${dir} (no store.mdb).\n` });
    const store = await openLmdbStore(dir);
    const ops = Array.from({ length: 4000 }, (_, i) => ({ key: new Uint8Array([1, i >> 8, i & 255]), value: new Uint8Array(500) }));
    await store.write(ops);
    await store.write(ops.slice(100).map((o) => ({ key: o.key })));
    const held = await run(["compact", "--data-dir", dir]);
    assert.is(held.code, 1);
    assert.match(held.stderr, `Data directory ${dir} is already in use by process`);
    await store.close();
    const done = await run(["compact", "--data-dir", dir]);
    assert.is(done.code, 0, done.stderr);
    const m = /^Compacted (.+): ([\d.]+) MB -> ([\d.]+) MB\.\n$/.exec(done.stdout)!;
    assert.is(m[1], join(dir, "store.mdb"));
    assert.ok(Number(m[3]) < Number(m[2]) / 4, done.stdout);
    const reopened = await openLmdbStore(dir);
    assert.is([...reopened.range({})].length, 100);
    await reopened.close();
    assert.equal(await run(["shrink"]), { code: 1, stdout: "", stderr: `Invalid storage operation "shrink": expected compact.\nRun with storage --help to list the options.\n` });
    assert.is((await run(["compact", "--bogus"])).stderr.split("\n")[0], `Unknown option "--bogus" for storage.`);
    assert.is((await run([])).stderr.split("\n")[0], "Missing storage operation: expected compact.");
    assert.match((await run(["--help"])).stdout, "Usage: tezos-node storage compact");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
