/**
 * The edge suite: the worker bundle (`dist/edge/`, built by `scripts/bundle-edge.mjs` when missing
 * or older than any of its inputs) run in Cloudflare's workerd through miniflare, checked through
 * `dispatchFetch`. Runs this folder's `*.test.ts` files (through tsx) with uvu in one process and
 * prints uvu's summary; arguments are file-name fragments that select the files.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";
import { bundleEdge } from "../../scripts/bundle-edge.mjs";
import { runFolder } from "../support/run-folder.mjs";

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
await runFolder(here, ".test.ts", process.argv.slice(2));
process.exit(process.exitCode ?? 0);
