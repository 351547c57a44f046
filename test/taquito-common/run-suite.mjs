/**
 * Runs a Taquito suite folder's `*.test.mjs` files with uvu in one process, against one sandbox
 * node started for the run, and prints uvu's summary ("Total: N", "Passed: N", ...). `filters`
 * are file-name fragments that select the files; `stop` stops the suite's node afterwards.
 */
import { readdirSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

export async function runSuite(dir, filters, stop) {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".test.mjs"))
    .filter((name) => filters.length === 0 || filters.some((f) => name.includes(f)))
    .sort();
  globalThis.UVU_DEFER = 1;
  globalThis.UVU_QUEUE = [];
  const { exec } = await import(pathToFileURL(join(dir, "node_modules", "uvu", "dist", "index.mjs")).href);
  for (const [i, name] of files.entries()) {
    globalThis.UVU_QUEUE.push([name]);
    globalThis.UVU_INDEX = i;
    await import(pathToFileURL(join(dir, name)).href);
  }
  try {
    await exec();
  } finally {
    await stop();
  }
  process.exit(process.exitCode ?? 0);
}
