/**
 * Runs this folder's `*.test.mjs` files with uvu in one process (Taquito 25.0.0, under Node 24),
 * against one sandbox node started for the run, and prints uvu's summary
 * ("Total: N", "Passed: N", ...). Arguments are file-name fragments that select the files.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join } from "node:path";
import { stopSandbox } from "./support/sandbox.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((name) => name.endsWith(".test.mjs"))
  .filter((name) => filters.length === 0 || filters.some((f) => name.includes(f)))
  .sort();

globalThis.UVU_DEFER = 1;
globalThis.UVU_QUEUE = [];
const { exec } = await import("uvu");
for (const [i, name] of files.entries()) {
  globalThis.UVU_QUEUE.push([name]);
  globalThis.UVU_INDEX = i;
  await import(pathToFileURL(join(here, name)).href);
}
try {
  await exec();
} finally {
  await stopSandbox();
}
process.exit(process.exitCode ?? 0);
