/**
 * The package as its users get it: `npm pack` of the repository (which builds `dist/` through
 * `prepare`), a new project in a temporary folder that installs the tarball (with
 * `fake-indexeddb` and `@types/node`, from the registry or npm's cache), then, in that project:
 * - under this Node, Node 24, Bun and Deno (`.tools/`; a missing one fails), `consumer.mjs`
 *   imports every export by the package's name and uses it for real; one test per runtime and
 *   export asserts what it saw, and one that the process ended by itself (nothing left open);
 * - the `tezos-node-ts` command (`bin`): `--help`, and a node in memory answering its head over
 *   HTTP and stopping with code 0 on SIGTERM;
 * - `check.ts` and the exported modules' `@example`s, type-checked by `tsc` (`NodeNext`) against
 *   the tarball's declarations, and each example run (Node 24 strips the types; the Bun and
 *   Deno adapters' examples under Bun and Deno; the browser's with `fake-indexeddb/auto` first).
 * Prints uvu's summary; exits non-zero when a test failed. `node test/package/run.mjs`.
 */
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

globalThis.UVU_DEFER = 1;
globalThis.UVU_QUEUE = [["test/package"]];
const { suite } = await import("uvu");
const assert = await import("uvu/assert");
const { exec } = await import("uvu");

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..");
const tools = join(root, ".tools", "node_modules", ".bin");
const rootPackage = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const work = mkdtempSync(join(tmpdir(), "tezos-node-ts-package-"));
const project = join(work, "consumer");
const installed = join(project, "node_modules", "tezos-node-ts");

const GENESIS = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";
const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
const VALUE = [42, 0, 255];

/** The exported subpaths, each with the built module its `default` names. */
const EXPORTS = Object.entries(rootPackage.exports).filter(([path]) => path !== "./package.json");

/** Runs a command to its end: `{ code, signal, stdout, stderr }`; killed after `timeoutMs`. */
function run(command, args, { cwd = project, timeoutMs = 300_000, env } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs} ms)`;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (error) => (stderr += `\n${error.message}`));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** `what` failed: its command's output, for the failure message. */
function failure(what, r) {
  return `${what}: exit ${r.code ?? r.signal}\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`;
}

/** A step every later test needs; its failure is remembered and repeated by them. */
function once(fn) {
  let promise;
  return () => (promise ??= fn());
}

/** The repository's HEAD commit now. */
const head = () => spawnSync("git", ["-C", root, "rev-parse", "HEAD"], { encoding: "utf8" }).stdout.trim();

/** HEAD before and after `npm pack` (others may commit meanwhile): the build records one of them. */
const packedFrom = [];

const pack = once(async () => {
  const dest = join(work, "pack");
  mkdirSync(dest);
  packedFrom.push(head());
  const r = await run("npm", ["pack", "--pack-destination", dest], { cwd: root });
  packedFrom.push(head());
  if (r.code !== 0) throw new Error(failure("npm pack", r));
  const tarballs = readdirSync(dest).filter((name) => name.endsWith(".tgz"));
  if (tarballs.length !== 1) throw new Error(`npm pack left ${tarballs.join(", ") || "no tarball"}`);
  return join(dest, tarballs[0]);
});

const install = once(async () => {
  const tarball = await pack();
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2));
  const dev = rootPackage.devDependencies;
  const r = await run("npm", [
    "install", "--no-audit", "--no-fund", "--prefer-offline",
    tarball, `fake-indexeddb@${dev["fake-indexeddb"]}`, `@types/node@${dev["@types/node"]}`,
  ]);
  if (r.code !== 0) throw new Error(failure("npm install <tarball>", r));
  for (const name of ["consumer.mjs", "check.ts"]) copyFileSync(join(here, name), join(project, name));
});

/** The runtimes: name, binary (undefined: missing), arguments before the script. */
const RUNTIMES = [
  ["node", process.execPath, []],
  ["node24", join(tools, "node"), []],
  ["bun", join(tools, "bun"), []],
  ["deno", join(tools, "deno"), ["run", "-A"]],
];

/** The adapter a runtime serves with. */
const ownAdapter = (runtime) => (runtime.startsWith("node") ? "node" : runtime);

const consumerRuns = new Map();
/** `consumer.mjs` under `runtime`, once: its results and how the process ended. */
function consume([name, binary, args]) {
  if (!consumerRuns.has(name)) {
    consumerRuns.set(name, (async () => {
      if (!existsSync(binary)) throw new Error(`${name}: ${binary} is missing (.ci/run installs it into .tools/)`);
      await install();
      const r = await run(binary, [...args, "consumer.mjs"], { timeoutMs: 240_000 });
      const line = r.stdout.split("\n").find((l) => l.startsWith("RESULTS "));
      if (line === undefined) throw new Error(failure(`${name} consumer.mjs printed no results`, r));
      const { runtime, results } = JSON.parse(line.slice("RESULTS ".length));
      return { runtime, results, exit: r };
    })());
  }
  return consumerRuns.get(name);
}

/** What `consumer.mjs` saw of `path` under the runtime; fails with its error. */
async function seen(runtime, path) {
  const { results } = await consume(runtime);
  const result = results[path];
  if (result === undefined) throw new Error(`no result for ${path}`);
  if (!result.ok) throw new Error(`${path} under ${runtime[0]}: ${result.error}`);
  return result.value;
}

/** The assertions on each export's use, by subpath. */
const CHECKS = {
  ".": (v) => {
    assert.is(v.genesis, GENESIS);
    assert.is(v.level, 3);
    assert.is(v.protocol, HANGZHOU);
    assert.is(v.bakeStatus, 200);
    assert.is(v.baked.length, 2);
    assert.match(v.baked[1], /^B[1-9A-HJ-NP-Za-km-z]{50}$/);
    assert.is(v.levelAfter, 5);
    assert.is(v.headAfter, v.baked[1]);
    assert.is(v.storeWriteError, "function");
    assert.equal(v.sources, { status: 200, env: 3, components: 97 }); // Hangzhou's sources, from dist/
  },
  "./stores/memory": (v) => {
    assert.equal(v.got, VALUE);
    assert.is(v.deleted, true);
    assert.is(v.size, 0);
  },
  "./stores/lmdb": (v) => {
    assert.equal(v.got, VALUE);
    assert.equal(v.reopened, VALUE);
    assert.ok(v.files.includes("store.mdb"), `files: ${v.files}`);
    assert.is(v.level, 4);
    assert.is(v.restarted, true);
  },
  "./stores/indexeddb": (v) => {
    assert.equal(v.got, VALUE);
    assert.equal(v.reopened, VALUE);
  },
  "./testing": (v) => {
    assert.is(v.url, `http://127.0.0.1:${v.port}`);
    assert.is(v.status, 200);
    assert.is(v.level, 3);
    assert.equal(v.accounts, ["tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN", "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU", "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv", "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv"]);
    assert.is(v.baked, 2);
    assert.is(v.headAfter, true);
  },
  "./browser": (v) => {
    assert.equal(v.exported, { createNode: "function", openIndexedDbStore: "function" });
    assert.is(v.level, 3);
    assert.is(v.protocol, HANGZHOU);
  },
};

/** Serving with the runtime's own adapter: a real request answered. */
function checkServed(v) {
  assert.is(v.served, true);
  assert.is(v.status, 200);
  assert.is(v.level, 3);
  assert.ok(v.port > 0);
  assert.is(v.url, `http://127.0.0.1:${v.port}`);
}

/**
 * Another runtime's adapter: it loads everywhere (so that code naming all three, or its types,
 * works anywhere), and refuses to serve with an error naming its runtime and the one to use.
 * (Node's, on `node:http`, would serve under Bun and Deno, but `@hono/node-server` replaces the
 * global `Response`, after which `Bun.serve` and `Deno.serve` refuse the node's answers.)
 */
function checkForeign(adapter, runtime, v) {
  assert.is(v.loaded, true);
  assert.is(v.served, false);
  assert.match(v.error, new RegExp(`runs only under ${{ node: "Node", bun: "Bun", deno: "Deno" }[adapter]} \\(under ${{ node: "Node", bun: "Bun", deno: "Deno" }[runtime]}: tezos-node-ts/serve/${runtime}\\)`));
}

const test = suite("package");

test("npm pack: dist/ with the data files and the sources, no tests", async () => {
  const tarball = await pack();
  const r = spawnSync("tar", ["tzf", tarball], { encoding: "utf8" });
  assert.is(r.status, 0, r.stderr);
  const files = new Set(r.stdout.split("\n").filter(Boolean).map((f) => f.replace(/^package\//, "")));
  for (const file of [
    "package.json", "README.md", "dist/mod.js", "dist/mod.d.ts", "dist/mod.js.map", "mod.ts",
    "dist/platform/node/bin.js", "dist/platform/node/main.js",
    "dist/lib/protocols/sources/PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx.bin.gz",
    "dist/lib/protocols/sources/ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im.bin.gz",
    ...EXPORTS.flatMap(([, target]) => [target.default.slice(2), target.types.slice(2)]),
  ]) assert.ok(files.has(file), `${file} is not in the tarball`);
  const stray = [...files].filter((f) => /^(test|bench|scratch|scripts|node_modules|\.tools)\//.test(f) || f.startsWith("tsconfig"));
  assert.equal(stray, []);
});

test("npm install <tarball> in a new project", async () => {
  await install();
  assert.ok(existsSync(join(installed, "dist", "mod.js")));
  assert.ok(existsSync(join(project, "node_modules", ".bin", "tezos-node-ts")));
  // prepare does not run on a tarball's install: the installed package has no TypeScript tool chain to need
  assert.not.ok(existsSync(join(installed, "node_modules", "typescript")));
});

for (const runtime of RUNTIMES) {
  const [name] = runtime;
  for (const [path] of EXPORTS) {
    const adapter = /^\.\/serve\/(\w+)$/.exec(path)?.[1];
    test(`${name}: import "tezos-node-ts${path.slice(1)}" and use it`, async () => {
      const value = await seen(runtime, path);
      if (adapter === undefined) CHECKS[path](value);
      else if (adapter === ownAdapter(name)) checkServed(value);
      else checkForeign(adapter, ownAdapter(name), value);
    });
  }
  test(`${name}: the consumer ends by itself, everything closed`, async () => {
    const { runtime: seenRuntime, exit } = await consume(runtime);
    assert.is(seenRuntime, ownAdapter(name));
    assert.is(exit.code, 0, failure("consumer.mjs", exit));
  });
}

test("bin: npx tezos-node-ts --help", async () => {
  await install();
  const r = await run("npx", ["--no-install", "tezos-node-ts", "--help"], { timeoutMs: 60_000 });
  assert.is(r.code, 0, failure("tezos-node-ts --help", r));
  assert.match(r.stdout, /^Usage: /);
  assert.match(r.stdout, /--memory/);
});

test("bin: tezos-node-ts --memory serves its head and stops with 0 on SIGTERM", async () => {
  await install();
  const child = spawn(join(project, "node_modules", ".bin", "tezos-node-ts"), ["--memory", "--rpc-addr", "127.0.0.1:0"], {
    cwd: project,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  try {
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not listening within 60 s:\n${output}`)), 60_000);
      const look = (chunk) => {
        output += chunk;
        const m = /Node listening on (http:\/\/\S+)/.exec(output);
        if (m !== null) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child.stdout.on("data", look);
      child.stderr.on("data", look);
      exited.then(() => reject(new Error(`exited before listening:\n${output}`)));
    });
    const header = await (await fetch(`${url}/chains/main/blocks/head/header`)).json();
    assert.is(header.level, 3);
    assert.is(header.protocol, HANGZHOU);
    // the commit the tarball was built from, recorded by the build (not the git around the project)
    const version = await (await fetch(`${url}/version`)).json();
    assert.is(version.version.major, 12);
    assert.ok(packedFrom.includes(version.commit_info.commit_hash), `${version.commit_info.commit_hash} not in ${packedFrom}`);
  } finally {
    child.kill("SIGTERM");
  }
  assert.equal(await exited, { code: 0, signal: null }, output);
});

/**
 * The `@example` of a built module's doc comment (its first, `@module` one), as TypeScript; for a
 * declaration file that only re-exports another (`export * from "…"`), that one's.
 */
function moduleExample(dts) {
  const text = readFileSync(dts, "utf8");
  const reexport = /^export \* from "(\.{1,2}\/[^"]+)\.js";\s*$/.exec(text);
  if (reexport !== null) return moduleExample(join(dirname(dts), `${reexport[1]}.d.ts`));
  const doc = /\/\*\*([\s\S]*?)\*\//.exec(text)?.[1];
  if (doc === undefined || !doc.includes("@module")) throw new Error(`${dts}: no module doc comment`);
  const lines = doc.split("\n").map((l) => l.replace(/^\s*\* ?/, ""));
  const start = lines.findIndex((l) => l.startsWith("@example"));
  if (start < 0) throw new Error(`${dts}: no @example in its module doc comment`);
  const open = lines.indexOf("```ts", start);
  const close = lines.indexOf("```", open + 1);
  if (open < 0 || close < 0) throw new Error(`${dts}: the @example is not a \`\`\`ts block`);
  return lines.slice(open + 1, close).join("\n") + "\n";
}

/** Each exported module's example, written as `examples/<name>.ts`: [subpath, file or why not]. */
const examples = once(async () => {
  await install();
  const pkg = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
  mkdirSync(join(project, "examples"), { recursive: true });
  return Object.entries(pkg.exports)
    .filter(([path]) => path !== "./package.json")
    .map(([path, target]) => {
      const name = path === "." ? "main" : path.slice(2).replaceAll("/", "-");
      const file = join("examples", `${name}.ts`);
      try {
        writeFileSync(join(project, file), moduleExample(join(installed, target.types)));
        return [path, file];
      } catch (error) {
        return [path, error];
      }
    });
});

test("types: tsc (NodeNext, strict) checks check.ts and the examples against the package's declarations", async () => {
  await examples();
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2023", "DOM", "DOM.Iterable"],
      types: ["node"], strict: true, noEmit: true, skipLibCheck: false, allowImportingTsExtensions: false,
    },
    include: ["check.ts", "examples"],
  }, null, 2));
  const tsc = join(dirname(fileURLToPath(import.meta.resolve("typescript/package.json"))), "bin", "tsc");
  const r = await run(process.execPath, [tsc, "-p", "tsconfig.json"]);
  assert.is(r.code, 0, failure("tsc -p tsconfig.json", r));
});

for (const [path, runtimeName] of [
  [".", "node24"], ["./stores/lmdb", "node24"], ["./stores/indexeddb", "node24"], ["./stores/memory", "node24"],
  ["./serve/node", "node24"], ["./serve/bun", "bun"], ["./serve/deno", "deno"], ["./browser", "node24"],
  ["./testing", "node24"], ["./testing", "bun"], ["./testing", "deno"],
]) {
  test(`example of "tezos-node-ts${path.slice(1)}" runs under ${runtimeName}`, async () => {
    const file = (await examples()).find(([p]) => p === path)?.[1];
    assert.ok(file !== undefined, `${path} is not exported`);
    if (file instanceof Error) throw file;
    const [, binary, args] = RUNTIMES.find(([n]) => n === runtimeName);
    if (!existsSync(binary)) throw new Error(`${runtimeName}: ${binary} is missing`);
    // The browser's example runs as in a page: with an IndexedDB (fake-indexeddb's) before it.
    const page = path === "./browser" ? ["--import", "fake-indexeddb/auto"] : [];
    const r = await run(binary, [...args, ...page, file], { timeoutMs: 120_000 });
    assert.is(r.code, 0, failure(file, r));
  });
}

test.run();
try {
  await exec();
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(process.exitCode ?? 0);
