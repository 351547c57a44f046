/**
 * Bundles the edge worker (`platform/edge/worker.ts`) for Cloudflare's workerd: one minified ES
 * module with its source map, `dist/edge/worker.js`, and beside it the protocols' sources that the
 * worker imports as data modules (`*.bin.gz`, copied as they are), and the bundle's metafile
 * (`worker.meta.json`, which `test/edge/` reads to tell whether the bundle is older than its
 * inputs). Fails when anything in the bundle imports a Node built-in module (workerd has none
 * unless told to fake them), naming the importer. Prints the sizes.
 *
 * `node scripts/bundle-edge.mjs [outdir]`, or `bundleEdge()` from another script.
 */
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { basename, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import * as esbuild from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The worker module, relative to the repository. */
export const EDGE_ENTRY = "platform/edge/worker.ts";

/** Node's built-in modules, bare and `node:`-prefixed. */
const BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** A file imported as a data module: left out of the bundle, imported from beside it. */
const DATA_MODULE = /\.bin\.gz$/;

/**
 * Bundles the worker into `outdir` (`dist/edge` of the repository by default) and answers the
 * files written with their sizes in bytes. Rejects, writing nothing more, when a Node built-in
 * is imported.
 * @param {{ outdir?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<{ outdir: string, files: { path: string, bytes: number }[] }>}
 */
export async function bundleEdge(options = {}) {
  const outdir = resolve(root, options.outdir ?? "dist/edge");
  const log = options.log ?? ((line) => console.log(line));
  const outfile = join(outdir, "worker.js");
  /** @type {Map<string, string>} data module name -> source file */
  const data = new Map();
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [EDGE_ENTRY],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    minify: true,
    sourcemap: true,
    metafile: true,
    write: false,
    logLevel: "silent",
    // workerd gives a module no import.meta.url; the node names its data files relative to it,
    // and the worker's reader (platform/edge/sources.ts) answers them by file name
    define: { "import.meta.url": JSON.stringify("file:///worker.js") },
    // what a bundle cannot hold, left for the check below to name (an error here would not)
    external: [...BUILTINS, "cloudflare:*"],
    plugins: [
      {
        name: "data-modules",
        setup(build) {
          build.onResolve({ filter: DATA_MODULE }, (args) => {
            const file = resolve(args.resolveDir, args.path);
            data.set(basename(file), file);
            return { path: `./${basename(file)}`, external: true };
          });
        },
      },
    ],
  });
  const builtins = [];
  for (const [input, { imports }] of Object.entries(result.metafile.inputs)) {
    for (const i of imports) if (BUILTINS.has(i.path)) builtins.push(`${input} imports ${i.path}`);
  }
  if (builtins.length > 0) throw new Error(`the edge bundle must not use Node's built-in modules:\n  ${builtins.join("\n  ")}`);
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const files = [];
  for (const f of result.outputFiles) {
    await writeFile(f.path, f.contents);
    files.push({ path: f.path, bytes: f.contents.length });
  }
  for (const [name, file] of data) {
    await copyFile(file, join(outdir, name));
    files.push({ path: join(outdir, name), bytes: readFileSync(file).length });
  }
  const meta = join(outdir, "worker.meta.json");
  await writeFile(meta, JSON.stringify(result.metafile));
  const code = result.outputFiles.find((f) => f.path === outfile);
  const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
  log(`${relative(root, outfile)}: ${kib(code.contents.length)} (${kib(gzipSync(code.contents).length)} gzipped), ${data.size} data modules ${kib([...data.values()].reduce((n, f) => n + readFileSync(f).length, 0))}`);
  return { outdir, files };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    await bundleEdge({ outdir: process.argv[2] });
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }
}
