/**
 * `tezos-node snapshot` as a user runs it (`npm run dev -- snapshot …`, LMDB data directories):
 * a node bakes blocks with transfers and an origination and stops; its chain is exported at its
 * head, described by `info` (text and JSON), imported into a new directory; both nodes then run
 * on their own ports and answer twenty sampled RPCs alike, and the imported one bakes on. A
 * truncated and a bit-flipped file are refused with one clear message and no data directory (nor
 * temporary directory) left behind; a non-empty target and an existing export file are refused.
 */
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type Exit, listening, npmStart, stop, within } from "../platform/process.ts";
import { runSnapshotCommand } from "../../platform/snapshot-command.ts";
import { call, httpRpc, type MadeChain, makeChain, samplePaths } from "./snapshot-support.ts";

let dir: string;
let chain: MadeChain;
let target: string;
let targetLevel: number;

const nodeArgs = (dataDir: string) => ["--data-dir", dataDir, "--rpc-addr", "127.0.0.1:0", "--bake", "manual"];

async function snapshot(...args: string[]): Promise<Exit> {
  return await within(npmStart(["snapshot", ...args]).exited, 120_000, `snapshot ${args.join(" ")}`);
}

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "snapshot-cli-"));
  const a = npmStart(nodeArgs(join(dir, "a")));
  try {
    const rpc = httpRpc(await listening(a));
    chain = await makeChain(rpc, 20);
    target = (await call(rpc, "/chains/main/blocks/head/hash")) as string;
    targetLevel = (await call(rpc, "/chains/main/blocks/head/header/shell/level")) as number;
  } finally {
    await stop(a, "SIGINT");
  }
});

test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("export, info, import, and both nodes answer alike; the imported node bakes on", async () => {
  const file = join(dir, "chain.full");
  const exported = await snapshot("export", file, "--block", "head", "--data-dir", join(dir, "a"));
  assert.is(exported.code, 0, exported.stderr);
  assert.match(exported.stderr, `Exporting a full snapshot of block ${target} at level ${targetLevel} to ${file}`);
  assert.match(exported.stderr, /Exporting: done, blocks (\d+)\/\1, context nodes (\d+)\/\2, [\d.]+ MB/);
  assert.match(exported.stderr, `Successful export: ${file}`);

  const again = await snapshot("export", file, "--block", "head", "--data-dir", join(dir, "a"));
  assert.is(again.code, 1);
  assert.is(again.stderr, `Failed to export snapshot: the file or directory ${file} already exists.\n`);

  const info = await snapshot("info", file);
  assert.is(info.code, 0, info.stderr);
  assert.match(info.stdout, `Snapshot information:\n  chain SANDBOXED_TEZOS, block hash ${target} at level ${targetLevel}, timestamp `);
  assert.match(info.stdout, " in full (snapshot version 1)\n");
  const json = await snapshot("info", file, "--json");
  const header = JSON.parse(json.stdout) as Record<string, unknown>;
  assert.equal([header.format, header.version, header.block_hash, header.level, header.history_mode, header.blocks], ["tezos-node-snapshot", 1, target, targetLevel, "full", targetLevel + 1]);

  const imported = await snapshot("import", file, "--data-dir", join(dir, "b"));
  assert.is(imported.code, 0, imported.stderr);
  assert.match(imported.stderr, `Successful import: ${join(dir, "b")} (head ${target} at level ${targetLevel}, full mode)`);
  assert.equal((await readdir(dir)).sort(), ["a", "b", "chain.full"]);

  const a = npmStart(nodeArgs(join(dir, "a")));
  const b = npmStart(nodeArgs(join(dir, "b")));
  try {
    const [ra, rb] = (await Promise.all([listening(a), listening(b)])).map(httpRpc) as [ReturnType<typeof httpRpc>, ReturnType<typeof httpRpc>];
    const paths = samplePaths(target, chain);
    assert.is(paths.length, 20);
    for (const path of paths) assert.equal(await call(rb, path), await call(ra, path), path);
    const checkpoint = (await call(rb, "/chains/main/checkpoint")) as Record<string, unknown>;
    assert.equal([checkpoint.savepoint, checkpoint.caboose, checkpoint.history_mode], [targetLevel, 0, "full"]);
    const baked = (await call(rb, "/sandbox/bake?count=2", "POST")) as string[];
    assert.is(baked.length, 2);
    assert.is(await call(rb, "/chains/main/blocks/head/header/shell/level"), targetLevel + 2);
    assert.is(await call(rb, "/chains/main/blocks/head~2/hash"), target);
  } finally {
    await Promise.all([stop(a, "SIGINT"), stop(b, "SIGINT")]);
  }
});

test("an export or import stopped by a signal (Ctrl-C) answers 1 and leaves no file, no data directory", async () => {
  /** Runs the command in process, aborting its signal once it printed a line starting with `when`. */
  const interruptedAt = async (when: string, ...args: string[]) => {
    const stop = new AbortController();
    let stderr = "";
    const code = await runSnapshotCommand(args, {
      stdout: () => {},
      stderr: (text) => {
        stderr += text;
        if (text.startsWith(when)) stop.abort();
      },
      signal: stop.signal,
    });
    return { code, stderr };
  };
  const file = join(dir, "stopped.full");
  const e = await interruptedAt("Exporting a full snapshot", "export", file, "--block", "head", "--data-dir", join(dir, "a"));
  assert.is(e.code, 1);
  assert.match(e.stderr, /\nSnapshot export interrupted: no file was written\.\n$/);
  assert.not.ok(existsSync(file) || existsSync(`${file}.part`), "the export's file is left");
  const i = await interruptedAt("Importing a full snapshot", "import", join(dir, "chain.full"), "--data-dir", join(dir, "e"));
  assert.is(i.code, 1);
  assert.match(i.stderr, /\nSnapshot import interrupted: nothing was imported\.\n$/);
  assert.not.ok(existsSync(join(dir, "e")), "the import's data directory is left");
  assert.equal((await readdir(dir)).filter((n) => n.includes("import") || n.includes("stopped")), []);
});

test("a truncated or bit-flipped file is refused with a clear error and no data directory left", async () => {
  const good = await readFile(join(dir, "chain.full"));
  const cases: [string, Uint8Array, RegExp][] = [
    ["truncated", good.subarray(0, Math.floor(good.length / 2)), /: the file is truncated \(it ends in the (blocks|context) section, after \d+ bytes\)\. Nothing was imported\.\n$/],
    ["flipped", (() => {
      const bad = new Uint8Array(good);
      bad[Math.floor(bad.length * 0.8)]! ^= 0x10;
      return bad;
    })(), /Nothing was imported\.\n$/],
  ];
  for (const [name, bytes, message] of cases) {
    const file = join(dir, `${name}.full`);
    await writeFile(file, bytes);
    const target = join(dir, `c-${name}`);
    const r = await snapshot("import", file, "--data-dir", target);
    assert.is(r.code, 1, name);
    assert.match(r.stderr, `Failed to read snapshot file ${file}: `, name);
    assert.match(r.stderr, message, name);
    assert.not.ok(existsSync(target), `${name}: ${target} left behind`);
    assert.equal((await readdir(dir)).filter((n) => n.includes("import")), [], name);
  }
});

test("import refuses a non-empty data directory and a missing file; info a file that is no snapshot", async () => {
  const busy = join(dir, "busy");
  await mkdir(busy);
  await writeFile(join(busy, "x"), "x");
  const r = await snapshot("import", join(dir, "chain.full"), "--data-dir", busy);
  assert.is(r.code, 1);
  assert.is(r.stderr, `Failed to import snapshot as the given directory ${busy} already exists and is not empty: import into an absent or empty directory.\n`);
  assert.equal(await readdir(busy), ["x"]);
  const missing = await snapshot("import", join(dir, "nope.full"), "--data-dir", join(dir, "d"));
  assert.is(missing.stderr, `The snapshot file ${join(dir, "nope.full")} does not exists.\n`);
  const info = await snapshot("info", join(busy, "x"));
  assert.is(info.code, 1);
  assert.is(info.stderr, `Failed to read snapshot file ${join(busy, "x")}: it is not a tezos-node snapshot (it is shorter than the format's magic bytes)\n`);
});

test.run();
