/**
 * Runs every `*.test.ts` file under `test/` in one process, on Node (through tsx), Bun or Deno,
 * the way uvu's own command line does: one queue group per file, then one summary.
 * Arguments are path fragments: only the files whose path contains one of them run.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL(".", import.meta.url));

/** A folder with its own `run.mjs` is a separate suite (`test/suites.mjs` runs it): the Taquito, package, browser and edge suites. */
function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === "node_modules") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!existsSync(join(path, "run.mjs"))) out.push(...walk(path));
    } else if (name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

type UvuGlobals = { UVU_DEFER?: number; UVU_QUEUE?: unknown[][]; UVU_INDEX?: number };
const g = globalThis as unknown as UvuGlobals;
g.UVU_DEFER = 1;
g.UVU_QUEUE = [];

const filters = process.argv.slice(2);
const files = walk(root).filter((f) => filters.length === 0 || filters.some((s) => relative(root, f).includes(s)));
const { exec } = await import("uvu");
for (const [i, file] of files.entries()) {
  g.UVU_QUEUE.push([relative(root, file)]);
  g.UVU_INDEX = i;
  await import(pathToFileURL(file).href);
}
await exec();
// Tests close what they open; the explicit exit keeps a forgotten handle from hanging CI.
process.exit(process.exitCode ?? 0);
