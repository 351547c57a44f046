/**
 * `npm run build` (and `prepare`, so `npm install` in a clone and `npm pack` build too): compiles
 * `mod.ts`, `lib/` and `platform/` into `dist/` (JavaScript, declarations, source maps) with `tsc
 * -p tsconfig.build.json`, puts back the module doc comments tsc leaves out of declarations,
 * records the commit it is built from (`dist/tezos-node-commit.json`, for `/version`; see
 * `platform/commit.ts`), copies the data files the modules load beside themselves (`new
 * URL("./x", import.meta.url)`: every file of `lib/` and `platform/` that is not TypeScript),
 * checks that each such URL of the compiled modules names a file that is there, then runs the
 * browser and edge bundlers (`scripts/bundle-browser.mjs`, `scripts/bundle-edge.mjs`).
 * Plain Node, no dependency of its own beyond the `typescript` dev dependency.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { root, walk } from "./files.mjs";

const dist = join(root, "dist");

/** Runs `node <args>` in the repository root; exits the build with its status when it fails. */
function node(args, what) {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`build: ${what} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

rmSync(dist, { recursive: true, force: true });

const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
node([tsc, "-p", "tsconfig.build.json"], "tsc -p tsconfig.build.json");

// tsc drops a file's leading doc comment from its declarations when the statement it sits on (an
// import the declarations do not need) goes: the module's `@module` comment, with its @example.
// Put it back on top, and shift the declaration map by as many lines.
let restored = 0;
for (const source of ["mod.ts", ...walk("lib"), ...walk("platform")].filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts"))) {
  const doc = /^(?:#![^\n]*\n)?\s*(\/\*\*[\s\S]*?\*\/)/.exec(readFileSync(join(root, source), "utf8"))?.[1];
  if (doc === undefined || !doc.includes("@module")) continue;
  const dts = join(dist, source.replace(/\.ts$/, ".d.ts"));
  const text = readFileSync(dts, "utf8");
  if (text.includes(doc)) continue;
  writeFileSync(dts, `${doc}\n${text}`);
  const mapPath = `${dts}.map`;
  if (existsSync(mapPath)) {
    const map = JSON.parse(readFileSync(mapPath, "utf8"));
    map.mappings = ";".repeat(doc.split("\n").length) + map.mappings;
    writeFileSync(mapPath, JSON.stringify(map));
  }
  restored++;
}

// The commit, as platform/commit.ts reads it from git in a checkout; none outside git.
const git = spawnSync("git", ["-C", root, "log", "-1", "--format=%H %ci"], { encoding: "utf8" });
const commit = /^([0-9a-f]{40}) (.+)$/.exec(git.status === 0 ? git.stdout.trim() : "");
if (commit !== null) writeFileSync(join(dist, "tezos-node-commit.json"), `${JSON.stringify({ hash: commit[1], date: commit[2] })}\n`);

let copied = 0;
for (const path of [...walk("lib"), ...walk("platform")]) {
  if (path.endsWith(".ts")) continue;
  mkdirSync(dirname(join(dist, path)), { recursive: true });
  copyFileSync(join(root, path), join(dist, path));
  copied++;
}

// Each `new URL("<relative path>", import.meta.url)` of the compiled modules must name a file of dist/.
const missing = [];
let dataUrls = 0;
for (const path of walk("dist").filter((p) => p.endsWith(".js"))) {
  const text = readFileSync(join(root, path), "utf8");
  for (const m of text.matchAll(/new URL\(\s*["'](\.{1,2}\/[^"']+)["']\s*,\s*import\.meta\.url\s*\)/g)) {
    if (m[1].endsWith("/")) continue; // a folder (platform/commit.ts asks git in the package's folder)
    dataUrls++;
    const target = join(root, dirname(path), m[1]);
    if (!existsSync(target)) missing.push(`${path}: ${m[1]}`);
  }
}
if (dataUrls === 0) missing.push("no new URL(..., import.meta.url) found at all (the protocols' sources use two): is the check still right?");
if (missing.length > 0) {
  console.error(`build: data files missing from dist/:\n  ${missing.join("\n  ")}`);
  process.exit(1);
}
console.log(`build: tsc into dist/, ${restored} module doc comments put back, ${copied} data files copied (${dataUrls} URLs to them checked), commit ${commit?.[1] ?? "unknown (not a git checkout)"}`);

for (const script of ["scripts/bundle-browser.mjs", "scripts/bundle-edge.mjs"]) node([script], script);
console.log(`build: done (${relative(process.cwd(), dist) || "."})`);
