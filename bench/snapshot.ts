/**
 * Snapshot export and import speed (`npx tsx bench/snapshot.ts [blocks]`, Bun and Deno alike):
 * a node on LMDB bakes `blocks` blocks (default 2000; a transfer every 10), stops, and the
 * `snapshot` command (platform/snapshot-command.ts, the code a user runs) exports its head to a
 * file, reads its header, and imports it into a new data directory, three times each; prints the
 * file's size, the counts and the best MB/s of each step. Figures in docs/bench.md.
 * @module
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createNode } from "../lib/node.ts";
import { openLmdbStore } from "../platform/store/lmdb.ts";
import { readResource } from "../platform/resource.ts";
import { runSnapshotCommand } from "../platform/snapshot-command.ts";
import { isMainModule } from "./cli.ts";
import { post, SOURCES } from "./support.ts";
import { bootstrapSecretKeys } from "../lib/baker/keys.ts";
import { sign } from "../lib/crypto/sign.ts";
import { genericWatermark } from "../lib/crypto/watermark.ts";
import { get } from "./support.ts";

const toHex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const fromHex = (h: string) => new Uint8Array(h.match(/../g)!.map((x) => parseInt(x, 16)));

/** Runs the bench; resolves with the figures. */
export async function benchSnapshot(blocks = 2000): Promise<Record<string, number>> {
  const dir = await mkdtemp(join(tmpdir(), "bench-snapshot-"));
  try {
    const store = await openLmdbStore(join(dir, "a"));
    const node = await createNode({ store, bake: { mode: "manual" }, readResource });
    const key = bootstrapSecretKeys()[0]!;
    const t0 = performance.now();
    for (let done = 0; done < blocks; ) {
      const head = "/chains/main/blocks/head";
      const counter = BigInt(await get(node, `${head}/context/contracts/${SOURCES[0]}/counter`)) + 1n;
      const op = { branch: await get(node, `${head}/hash`), contents: [{ kind: "transaction", source: SOURCES[0], fee: "1000", gas_limit: "1520", storage_limit: "0", counter: String(counter), amount: "1", destination: SOURCES[1] }] };
      const forged = (await post(node, `${head}/helpers/forge/operations`, op)) as string;
      await post(node, "/injection/operation", forged + toHex(await sign(key, fromHex(forged), genericWatermark())));
      const n = Math.min(10, blocks - done);
      await post(node, `/sandbox/bake?count=${n}`);
      done += n;
    }
    const bakeSeconds = (performance.now() - t0) / 1000;
    await node.close();
    const quiet = { stdout: () => {}, stderr: () => {} };
    const best = { export: Infinity, info: Infinity, import: Infinity };
    let bytes = 0;
    let header: Record<string, number> = {};
    for (let round = 0; round < 3; round++) {
      const file = join(dir, `chain-${round}.full`);
      let t = performance.now();
      if ((await runSnapshotCommand(["export", file, "--block", "head", "--data-dir", join(dir, "a")], quiet)) !== 0) throw new Error("export failed");
      best.export = Math.min(best.export, performance.now() - t);
      bytes = (await stat(file)).size;
      t = performance.now();
      let json = "";
      await runSnapshotCommand(["info", file, "--json"], { stdout: (s) => (json += s), stderr: () => {} });
      best.info = Math.min(best.info, performance.now() - t);
      header = JSON.parse(json);
      t = performance.now();
      if ((await runSnapshotCommand(["import", file, "--data-dir", join(dir, `b-${round}`)], quiet)) !== 0) throw new Error("import failed");
      best.import = Math.min(best.import, performance.now() - t);
    }
    const mb = bytes / 1e6;
    const figures = {
      blocks: header.blocks!,
      context_nodes: header.context_nodes!,
      file_mb: Number(mb.toFixed(2)),
      bake_s: Number(bakeSeconds.toFixed(1)),
      export_s: Number((best.export / 1000).toFixed(3)),
      export_mb_s: Number((mb / (best.export / 1000)).toFixed(1)),
      info_ms: Number(best.info.toFixed(1)),
      import_s: Number((best.import / 1000).toFixed(3)),
      import_mb_s: Number((mb / (best.import / 1000)).toFixed(1)),
    };
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMainModule(import.meta)) {
  const blocks = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
  console.log(JSON.stringify(await benchSnapshot(blocks), null, 2));
}
