/**
 * What a separate suite's `run.mjs` does once its setup is done: import the folder's test files
 * (those ending in `suffix` whose name contains one of `filters`, all when none) into one uvu run,
 * a queue group per file, as `test/all.ts` does for the main suite, and print uvu's summary.
 * @module
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Runs the test files of `dir`; resolves once uvu has printed its summary (`process.exitCode` set on failure). */
export async function runFolder(dir, suffix, filters = []) {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(suffix))
    .filter((name) => filters.length === 0 || filters.some((f) => name.includes(f)))
    .sort();
  globalThis.UVU_DEFER = 1;
  globalThis.UVU_QUEUE = [];
  const { exec } = await import("uvu");
  for (const [i, name] of files.entries()) {
    globalThis.UVU_QUEUE.push([name]);
    globalThis.UVU_INDEX = i;
    await import(pathToFileURL(join(dir, name)).href);
  }
  await exec();
}
