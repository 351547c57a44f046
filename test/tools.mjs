/**
 * The runtimes and browser the suites run on besides this Node, each pinned and installed on
 * demand: Bun, Deno and Node 24 from npm into `.tools/` (git-ignored), Debian's Chromium through
 * `apt-get`. `test/suites.mjs` and `.ci/run` both use it, so the pins live here only.
 * `node test/tools.mjs` installs what is missing and prints the versions.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The pinned versions (Taquito 25 wants Node 22 or later). */
export const PINS = Object.freeze({ bun: "1.4.5", deno: "2.9.6", node: "24.21.0" });

const root = fileURLToPath(new URL("..", import.meta.url));
const prefix = join(root, ".tools");
const bin = join(prefix, "node_modules", ".bin");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Paths of the `.tools/` binaries. */
export const TOOLS = Object.freeze({ bun: join(bin, "bun"), deno: join(bin, "deno"), node24: join(bin, "node") });

/** Where the browser suite finds Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

function works(command, args = ["--version"]) {
  return existsSync(command) && spawnSync(command, args, { stdio: "ignore" }).status === 0;
}

function quiet(command, args, cwd = root) {
  return spawnSync(command, args, { cwd, stdio: ["ignore", "inherit", "inherit"] }).status === 0;
}

/**
 * Installs the pinned Bun, Deno and Node 24 into `.tools/` unless they already answer; returns
 * the names of those that still do not.
 */
export function ensureRuntimes() {
  const missing = () => Object.entries(TOOLS).filter(([, path]) => !works(path)).map(([name]) => name);
  if (missing().length === 0) return [];
  mkdirSync(prefix, { recursive: true });
  if (!existsSync(join(prefix, "package.json"))) writeFileSync(join(prefix, "package.json"), '{ "private": true }\n');
  console.log(`installing bun@${PINS.bun}, deno@${PINS.deno} and node@${PINS.node} into .tools/`);
  quiet(npm, ["install", "--prefix", prefix, "--no-audit", "--no-fund", `bun@${PINS.bun}`, `deno@${PINS.deno}`, `node@${PINS.node}`]);
  // Bun's and Node's npm packages link their platform binary in an install script, which npm
  // may skip: run it when the binary does not answer yet.
  if (!works(TOOLS.bun)) quiet(process.execPath, ["install.js"], join(prefix, "node_modules", "bun"));
  if (!works(TOOLS.node24)) quiet(process.execPath, ["installArchSpecificPackage"], join(prefix, "node_modules", "node"));
  return missing();
}

/**
 * Installs Debian's Chromium with `apt-get` when it is missing and this process may (root on a
 * machine with apt-get); true when Chromium is there afterwards.
 */
export function ensureChromium() {
  if (existsSync(CHROMIUM)) return true;
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (!root || !works("/usr/bin/apt-get", ["--version"])) return false;
  console.log("installing Debian's chromium (apt-get) for the browser suite");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  spawnSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: ["ignore", "ignore", "inherit"], env });
  return existsSync(CHROMIUM);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const missing = ensureRuntimes();
  for (const [name, path] of Object.entries(TOOLS)) {
    const r = spawnSync(path, ["--version"], { encoding: "utf8" });
    console.log(`${name}: ${r.status === 0 ? r.stdout.split("\n")[0] : "missing"}`);
  }
  const chromium = ensureChromium();
  console.log(`chromium: ${chromium ? CHROMIUM : "missing"}`);
  process.exit(missing.length === 0 && chromium ? 0 : 1);
}
