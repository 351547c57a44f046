/**
 * The repository's files, for the build scripts.
 * @module
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this folder's parent). */
export const root = fileURLToPath(new URL("..", import.meta.url));

/** Every file under `dir` (relative to the root), recursively, as paths relative to the root. */
export function walk(dir) {
  const out = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
