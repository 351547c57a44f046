/**
 * The browser bundle: `platform/browser/mod.ts` (`createNode`, `openIndexedDbStore`) bundled by
 * esbuild into `dist/browser/tezos-node.js`, an ES module for current browsers, minified, with a
 * source map and a declaration file that points at `tsc`'s (`dist/platform/browser/mod.d.ts`).
 * The protocol sources (`lib/protocols/sources/*.bin.gz`) are copied beside it as files: the
 * bundle names them by `new URL("./<file>", import.meta.url)` and fetches one only when
 * `/protocols/<hash>` asks for it.
 *
 * The build fails when the bundle holds anything of Node (a `node:` import, a Node built-in, a
 * module that only runs on a server runtime), when a copied source file is not named by the
 * bundle, or when the bundle passes its budget of 350 KiB gzipped. It prints the raw and gzipped
 * sizes and what takes the most room (from esbuild's metafile).
 *
 * `node scripts/bundle-browser.mjs` alone, or through `npm run build` (`scripts/build.mjs`).
 * `bundleBrowser()` and `browserBundleIsStale()` are exported for the browser test.
 */
import { builtinModules } from "node:module";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { root, walk } from "./files.mjs";

/** Where the bundle goes, relative to the repository root. */
export const BROWSER_BUNDLE = "dist/browser/tezos-node.js";
/** The entry module: what the bundle exports. */
const ENTRY = "platform/browser/mod.ts";
/** The protocol sources, copied beside the bundle. */
const SOURCES_DIR = "lib/protocols/sources";
/** Largest gzipped size allowed (gzip -9), in bytes. */
export const GZIP_BUDGET = 350 * 1024;
/** Browsers whose syntax the bundle is written for (2023 on: DecompressionStream everywhere). */
const TARGET = ["es2022", "chrome111", "edge111", "firefox113", "safari16.4"];

/** Modules that only run under Node, Bun or Deno, whatever their import specifier. */
const SERVER_ONLY = [/^platform\/(node|bun|deno|net)\//, /^platform\/store\/(lmdb|lock)\.ts$/, /^platform\/(resource|serve|run|cli|p2p|identity-file|commit|stats)\.ts$/,
  /^node_modules\/(lmdb|@hono\/node-server|tsx|hono)\//];
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));


/** The protocol source files to copy. */
function sourceFiles() {
  return readdirSync(join(root, SOURCES_DIR)).filter((name) => name.endsWith(".bin.gz")).sort();
}

/**
 * True when the bundle or a source file copy is missing, or older than a file it is built from
 * (lib/, the browser and store platform files, this script, the dependencies' lock file).
 */
export function browserBundleIsStale() {
  const out = join(root, BROWSER_BUNDLE);
  const copies = sourceFiles().map((name) => join(dirname(out), name));
  if (![out, ...copies].every((p) => existsSync(p))) return true;
  const built = statSync(out).mtimeMs;
  const inputs = [...walk("lib"), ...walk("platform/browser"), ...walk("platform/store"), "scripts/bundle-browser.mjs", "package-lock.json"];
  return inputs.some((p) => existsSync(join(root, p)) && statSync(join(root, p)).mtimeMs > built);
}

/** What in the bundle's inputs or output belongs to Node; an empty list when nothing does. */
function nodeParts(metafile, code) {
  const found = [];
  for (const path of Object.keys(metafile.inputs)) {
    if (SERVER_ONLY.some((re) => re.test(path))) found.push(`input ${path} (runs on a server runtime only)`);
    if (BUILTINS.has(path.replace(/^\(disabled\):/, ""))) found.push(`input ${path} (a Node built-in)`);
    for (const imp of metafile.inputs[path].imports) {
      if (BUILTINS.has(imp.path) || imp.path.startsWith("node:")) found.push(`${path} imports ${imp.path}`);
    }
  }
  for (const output of Object.values(metafile.outputs)) {
    for (const imp of output.imports) if (imp.external) found.push(`the bundle imports ${imp.path} at run time`);
  }
  // A specifier kept in a variable (platform/resource.ts's `import(NODE_FS)`) is no import to esbuild.
  for (const m of code.matchAll(/["'`](node:[a-z_/]+)["'`]/g)) found.push(`the bundle names ${m[1]}`);
  return found;
}

/** Bytes taken in the output, grouped by package (node_modules) or by folder of lib/ and platform/. */
function largestParts(metafile, outPath) {
  const groups = new Map();
  for (const [path, { bytesInOutput }] of Object.entries(metafile.outputs[outPath].inputs)) {
    const parts = path.split("/");
    const group = parts[0] === "node_modules" ? parts.slice(0, parts[1].startsWith("@") ? 3 : 2).join("/") : parts.slice(0, parts.length > 2 ? 2 : 1).join("/");
    groups.set(group, (groups.get(group) ?? 0) + bytesInOutput);
  }
  return [...groups].sort((a, b) => b[1] - a[1]);
}

function kib(bytes) {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/**
 * Builds the bundle and copies the protocol sources beside it. Resolves to its sizes and largest
 * parts; rejects with the reasons when a check fails (the files stay, for inspection).
 */
export async function bundleBrowser({ log = console.log } = {}) {
  const esbuild = await import("esbuild");
  const outfile = join(root, BROWSER_BUNDLE);
  const outdir = dirname(outfile);
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });

  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [ENTRY],
    outfile,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: TARGET,
    minify: true,
    sourcemap: true,
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
  });
  const code = readFileSync(outfile, "utf8");
  const raw = Buffer.byteLength(code);
  const gzipped = gzipSync(code, { level: 9 }).length;

  for (const name of sourceFiles()) copyFileSync(join(root, SOURCES_DIR, name), join(outdir, name));
  writeFileSync(join(outdir, "tezos-node.d.ts"), `export * from "../platform/browser/mod.js";\n`);

  const problems = nodeParts(result.metafile, code).map((p) => `Node in the browser bundle: ${p}`);
  for (const name of sourceFiles()) {
    if (!code.includes(`new URL("./${name}",import.meta.url)`)) problems.push(`the bundle does not name ${name} beside itself`);
  }
  for (const path of Object.keys(result.metafile.inputs)) {
    if (path.startsWith(`${SOURCES_DIR}/`) && !path.endsWith(".ts")) problems.push(`a protocol source file is inside the bundle: ${path}`);
  }
  if (gzipped > GZIP_BUDGET) problems.push(`${kib(gzipped)} gzipped is over the budget of ${kib(GZIP_BUDGET)}`);

  const outKey = relative(root, outfile);
  const parts = largestParts(result.metafile, outKey);
  log(`bundle-browser: ${BROWSER_BUNDLE} ${kib(raw)}, ${kib(gzipped)} gzipped (budget ${kib(GZIP_BUDGET)}); ${sourceFiles().length} protocol source files beside it`);
  log(`bundle-browser: largest parts: ${parts.slice(0, 8).map(([g, n]) => `${g} ${kib(n)}`).join(", ")}`);
  if (problems.length > 0) throw new Error(`bundle-browser failed:\n  ${problems.join("\n  ")}`);
  return { file: outfile, raw, gzipped, parts };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await bundleBrowser();
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }
}
