import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { key, prefixRange, readU32 } from "../../lib/store/tables.ts";
import { LOCK_FILE_NAME } from "../../platform/store/lock.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";
import { runStoreConformance } from "./conformance.ts";
import { repoRoot, runFixture, runtimeCommand, startFixture } from "./spawn.ts";

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "tezos-lmdb-test-"));
  dirs.push(d);
  return d;
}
async function removeDirs(): Promise<void> {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
}

let last = "";
runStoreConformance("LMDB store", {
  open: async () => openLmdbStore((last = await tempDir())),
  reopen: () => openLmdbStore(last),
  cleanup: removeDirs,
});

const test = suite("LMDB store");
test.after(removeDirs);

test("open writes the pid lock file and close removes it", async () => {
  const dir = await tempDir();
  const store = await openLmdbStore(dir);
  const own = (await readFile(`/proc/${process.pid}/stat`, "utf8").catch(() => undefined))?.split(") ")[1]!.split(" ")[19];
  // the pid, and where /proc tells it, the start time
  assert.is((await readFile(join(dir, LOCK_FILE_NAME), "utf8")).trim(), own === undefined ? String(process.pid) : `${process.pid} ${own}`);
  await store.close();
  try {
    await readFile(join(dir, LOCK_FILE_NAME));
    assert.unreachable("the lock file should be gone");
  } catch (e) {
    assert.is((e as { code?: string }).code, "ENOENT");
  }
});

test("a second open of the same directory in this process fails with a clear message", async () => {
  const dir = await tempDir();
  const store = await openLmdbStore(dir);
  try {
    await openLmdbStore(dir);
    assert.unreachable("the second open should fail");
  } catch (e) {
    assert.is((e as Error).message, `Data directory ${dir} is already in use by process ${process.pid} (lock file ${join(dir, LOCK_FILE_NAME)})`);
  } finally {
    await store.close();
  }
});

test("another process cannot open a directory in use, and can once it is released", async () => {
  const dir = await tempDir();
  const store = await openLmdbStore(dir);
  let r;
  try {
    r = await runFixture("lmdb-open.ts", [dir]);
  } finally {
    await store.close();
  }
  assert.is(r.stdout.trim(), `Data directory ${dir} is already in use by process ${process.pid} (lock file ${join(dir, LOCK_FILE_NAME)})`, r.stderr);
  assert.is(r.code, 3);
  const again = await runFixture("lmdb-open.ts", [dir]);
  assert.is(again.stdout.trim(), "opened", again.stderr);
  assert.is(again.code, 0);
});

test("a stale lock left by a dead process is taken over", async () => {
  const dir = await tempDir();
  // The pid of a process that has exited (and whose pid nothing has reused yet).
  const exited = startFixture("lmdb-open.ts", [await tempDir()]);
  const pid = exited.pid!;
  await new Promise((resolve) => exited.on("close", resolve));
  await writeFile(join(dir, LOCK_FILE_NAME), `${pid}\n`);
  const store = await openLmdbStore(dir);
  assert.is((await readFile(join(dir, LOCK_FILE_NAME), "utf8")).split(" ")[0]!.trim(), String(process.pid));
  await store.close();
});

test("a lock whose owner was killed with SIGKILL and is still a zombie is taken over at once", async () => {
  const dir = await tempDir();
  // The holder's parent is a shell that `exec`s into sleep, which never reaps it: once killed,
  // the holder stays a zombie, its pid still taken, until the sleep ends.
  const [cmd, args] = runtimeCommand(fileURLToPath(new URL("./fixtures/lmdb-hold.ts", import.meta.url)), [dir]);
  const quoted = [cmd, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const parent = spawn("sh", ["-c", `${quoted} & exec sleep 60`], { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] });
  try {
    const holder = await new Promise<number>((resolve, reject) => {
      let out = "";
      parent.on("error", reject);
      parent.stdout!.on("data", (d) => {
        out += d;
        const m = /held (\d+)/.exec(out);
        if (m !== null) resolve(Number(m[1]));
      });
    });
    process.kill(holder, "SIGKILL");
    let state = "";
    for (let i = 0; i < 100 && state !== "Z"; i++) {
      await new Promise((r) => setTimeout(r, 10));
      state = (await readFile(`/proc/${holder}/stat`, "utf8").catch(() => "")).split(") ")[1]?.[0] ?? "";
    }
    assert.is(state, "Z", "the killed holder is a zombie");
    const store = await openLmdbStore(dir);
    assert.is((await readFile(join(dir, LOCK_FILE_NAME), "utf8")).split(" ")[0]!.trim(), String(process.pid));
    await store.close();
  } finally {
    parent.kill("SIGKILL");
  }
});

test("a lock whose pid now belongs to another process (another start time) is taken over", async () => {
  const dir = await tempDir();
  // our parent's pid with a start time it does not have
  await writeFile(join(dir, LOCK_FILE_NAME), `${process.ppid} 1\n`);
  const store = await openLmdbStore(dir);
  await store.close();
  // and with its own start time the same lock is refused
  const own = (await readFile(`/proc/${process.ppid}/stat`, "utf8")).split(") ")[1]!.split(" ")[19];
  await writeFile(join(dir, LOCK_FILE_NAME), `${process.ppid} ${own}\n`);
  try {
    await openLmdbStore(dir);
    assert.unreachable("the lock of a live owner should be refused");
  } catch (e) {
    assert.match((e as Error).message, `already in use by process ${process.ppid}`);
  }
});

test("after kill -9 during a stream of writes, the store reopens with every batch whole", async () => {
  const dir = await tempDir();
  const child = startFixture("lmdb-writer.ts", [dir]);
  let acknowledged = -1;
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  await new Promise<void>((resolve, reject) => {
    let buf = "";
    child.on("error", reject);
    child.on("close", () => reject(new Error(`writer exited early: ${stderr}`)));
    child.stdout!.on("data", (d) => {
      buf += d;
      const lines = buf.split("\n");
      buf = lines.pop()!;
      if (lines.length > 0) acknowledged = Number(lines[lines.length - 1]);
      if (acknowledged >= 30) {
        child.removeAllListeners("close");
        child.kill("SIGKILL");
        child.on("close", () => resolve());
      }
    });
  });
  assert.ok(acknowledged >= 30);
  const store = await openLmdbStore(dir);
  try {
    const marker = store.get(key(0x71));
    assert.ok(marker !== undefined, "the marker of the last batch is there");
    const lastBatch = readU32(marker!);
    assert.ok(lastBatch >= acknowledged, `batch ${acknowledged} was acknowledged, the store ends at ${lastBatch}`);
    const perBatch = new Map<number, number>();
    for (const [k, v] of store.range(prefixRange(key(0x70)))) {
      const batch = readU32(k, 1);
      const i = readU32(k, 5);
      assert.is(readU32(v, 0), batch);
      assert.is(readU32(v, 4), i);
      assert.is(v.length, 256);
      assert.is(v[255], (batch + i) & 0xff);
      perBatch.set(batch, (perBatch.get(batch) ?? 0) + 1);
    }
    assert.is(perBatch.size, lastBatch + 1, "batches 0..last, no more, no fewer");
    for (const [batch, n] of perBatch) assert.is(n, 200, `batch ${batch} is whole`);
  } finally {
    await store.close();
  }
});

test.run();
