/**
 * `npm test`: runs the main suite (`test/all.ts` under this Node through tsx), then the separate
 * suites, each a folder with its own `run.mjs`:
 * - test/taquito-12, test/taquito-25: Taquito end to end, each a package pinning one release
 *   (installed from its lock file when missing); Taquito 25 under Node 22 or later;
 * - test/package: the packed package installed in a new project, under Node 20, Node 24, Bun, Deno;
 * - test/edge: the edge bundle in Cloudflare's workerd (miniflare);
 * - test/browser: the example pages in Debian's Chromium.
 * Bun, Deno and Node 24 come from `.tools/`, Chromium from `apt-get`, installed when missing
 * (test/tools.mjs). Every suite runs even when an earlier one fails; each prints its uvu summary,
 * and the exit code is non-zero when any failed. Arguments name the suites to run (`main`,
 * `taquito`, `package`, `edge`, `browser`); none runs them all.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { ensureChromium, ensureRuntimes, TOOLS } from "./tools.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function run(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });
  return r.status ?? 1;
}

function ensureInstalled(suite) {
  if (existsSync(join(root, suite, "node_modules", "@taquito", "taquito"))) return;
  console.log(`installing ${suite} (npm ci)`);
  run(npm, ["ci", "--prefix", suite, "--no-audit", "--no-fund"]);
}

/** This Node when it is 22 or later, else `.tools/`'s Node 24. */
function node22() {
  return Number(process.versions.node.split(".")[0]) >= 22 ? process.execPath : TOOLS.node24;
}

const chosen = process.argv.slice(2);
const wanted = (name) => chosen.length === 0 || chosen.includes(name);
const failed = [];
function suite(name, command, args) {
  console.log(`\n== ${name}`);
  if (run(command, args) !== 0) failed.push(name);
}

if (wanted("taquito") || wanted("package")) {
  const missing = ensureRuntimes();
  if (missing.length > 0) console.log(`could not install into .tools/: ${missing.join(", ")}`);
}
if (wanted("main")) suite("test/all.ts", process.execPath, ["--import", "tsx", "test/all.ts"]);
if (wanted("taquito")) {
  for (const [name, node] of [["test/taquito-12", process.execPath], ["test/taquito-25", node22()]]) {
    ensureInstalled(name);
    suite(name, node, [join(name, "run.mjs")]);
  }
}
if (wanted("package")) suite("test/package", process.execPath, ["test/package/run.mjs"]);
if (wanted("edge")) suite("test/edge", process.execPath, ["test/edge/run.mjs"]);
if (wanted("browser")) {
  if (!ensureChromium()) console.log("Chromium is missing and could not be installed (apt-get install chromium)");
  suite("test/browser", process.execPath, ["test/browser/run.mjs"]);
}
if (failed.length > 0) console.log(`\nFailed: ${failed.join(", ")}`);
process.exit(failed.length === 0 ? 0 : 1);
