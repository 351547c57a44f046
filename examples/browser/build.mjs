/**
 * Builds what the pages load, in one command (`npm run build` here, or `node examples/browser/build.mjs`
 * from the repository root):
 * - the node's browser bundle, `dist/browser/tezos-node.js`, by `scripts/bundle-browser.mjs`,
 *   when it is missing or older than its sources;
 * - this folder's Taquito packages, from its lock file (`npm ci`), when they are missing;
 * - `build/taquito.js`: the Taquito classes the page uses (`taquito.js`), bundled by esbuild.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { browserBundleIsStale, bundleBrowser } from "../../scripts/bundle-browser.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));

if (browserBundleIsStale()) await bundleBrowser();

if (!existsSync(`${here}node_modules/@taquito/taquito`)) {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: here, stdio: "inherit" });
  if (r.status !== 0) throw new Error(`npm ci in ${here} failed (exit ${r.status})`);
}

// esbuild is the repository's dev dependency (the node's bundle is built with it too).
const esbuild = await import("esbuild");
await esbuild.build({
  absWorkingDir: here,
  entryPoints: ["taquito.js"],
  outfile: "build/taquito.js",
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  minify: true,
  sourcemap: true,
  logLevel: "warning",
});
console.log("examples/browser: build/taquito.js built");
