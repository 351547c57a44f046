/**
 * `npm test`: runs the main suite (`test/all.ts` under this Node through tsx), then the Taquito
 * end-to-end suites (test/taquito-12 and test/taquito-25), each a separate package pinning one
 * Taquito release. Every suite runs even when an earlier one fails; each prints its uvu summary,
 * and the exit code is non-zero when any failed. `node test/suites.mjs taquito` runs only the
 * Taquito suites. Each Taquito suite's dependencies are installed from its lock file when missing.
 * Taquito 25 needs Node 22 or later: it runs under this Node when it is recent enough, else under
 * the Node 24 of `.tools/` (installed there with `npm install --prefix .tools node@24` when missing).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = fileURLToPath(new URL("..", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function run(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });
  return r.status ?? 1;
}

function ensureInstalled(suite) {
  if (existsSync(join(root, suite, "node_modules", "@taquito", "taquito"))) return;
  console.log(`installing ${suite} (npm ci)`);
  if (run(npm, ["ci", "--prefix", suite, "--no-audit", "--no-fund"]) !== 0) {
    run(npm, ["install", "--prefix", suite, "--no-audit", "--no-fund"]);
  }
}

/** A Node of major version 22 or later: this one, or `.tools/`'s (installed on demand). */
function node22() {
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  const tools = join(root, ".tools", "node_modules", ".bin", "node");
  if (!existsSync(tools) || run(tools, ["--version"], { stdio: "ignore" }) !== 0) {
    console.log("installing Node 24 into .tools/ for Taquito 25");
    run(npm, ["install", "--prefix", ".tools", "--no-audit", "--no-fund", "node@24"]);
    if (run(tools, ["--version"], { stdio: "ignore" }) !== 0) {
      run("node", ["installArchSpecificPackage"], { cwd: join(root, ".tools", "node_modules", "node") });
    }
  }
  return tools;
}

const failed = [];
if (process.argv[2] !== "taquito") {
  console.log("== test/all.ts");
  if (run(process.execPath, ["--import", "tsx", "test/all.ts"]) !== 0) failed.push("test/all.ts");
}
for (const [suite, node] of [["test/taquito-12", process.execPath], ["test/taquito-25", null]]) {
  ensureInstalled(suite);
  console.log(`\n== ${suite}`);
  if (run(node ?? node22(), [join(suite, "run.mjs")]) !== 0) failed.push(suite);
}
if (failed.length > 0) console.log(`\nFailed: ${failed.join(", ")}`);
process.exit(failed.length === 0 ? 0 : 1);
