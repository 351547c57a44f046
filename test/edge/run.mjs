/**
 * The edge suite: the worker bundle (`dist/edge/`, built by `scripts/bundle-edge.mjs` when missing
 * or older than any of its inputs) run in Cloudflare's workerd through miniflare, checked through
 * `dispatchFetch`. Runs this folder's `*.test.ts` files (through tsx) with uvu in one process and
 * prints uvu's summary; arguments are file-name fragments that select the files.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { register } from "tsx/esm/api";
import { bundleEdge } from "../../scripts/bundle-edge.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));

/** Whether `dist/edge/worker.js` is missing or older than an input of its metafile or the bundling script. */
function bundleStale() {
  const out = join(root, "dist/edge/worker.js");
  const meta = join(root, "dist/edge/worker.meta.json");
  if (!existsSync(out) || !existsSync(meta)) return true;
  const built = statSync(out).mtimeMs;
  const inputs = [...Object.keys(JSON.parse(readFileSync(meta, "utf8")).inputs), "scripts/bundle-edge.mjs"];
  return inputs.some((input) => !existsSync(join(root, input)) || statSync(join(root, input)).mtimeMs > built);
}

if (bundleStale()) await bundleEdge();
register();
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((name) => name.endsWith(".test.ts"))
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
await exec();
process.exit(process.exitCode ?? 0);
