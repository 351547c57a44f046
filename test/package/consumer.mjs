/**
 * A consumer of the installed package, run by `run.mjs` inside a throw-away project whose
 * `node_modules` holds the packed tarball, under Node, Bun or Deno alike. It imports every export
 * of `tezos-node-ts` by its package name and uses each for real (a node in memory answering its
 * head and baking, LMDB on disk, IndexedDB on `fake-indexeddb` where the runtime has none, the
 * runtime's own HTTP adapter on a free port answering a real request), then prints one line,
 * `RESULTS <json>`: per export, `{ ok: true, value }` with what it saw, or `{ ok: false, error }`.
 * `run.mjs` asserts the values. Everything it opens it closes, so that the process ends by itself.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const runtime = typeof globalThis.Bun !== "undefined" ? "bun" : typeof globalThis.Deno !== "undefined" ? "deno" : "node";
const results = {};

/** Runs one export's use; its value or its error goes into `results[name]`. */
async function use(name, fn) {
  try {
    results[name] = { ok: true, value: await fn() };
  } catch (error) {
    results[name] = { ok: false, error: String(error?.stack ?? error) };
  }
}

/** The JSON of `node.fetch(path)` (with `init`), with its status. */
async function call(node, path, init) {
  const res = await node.fetch(new Request(`http://node${path}`, init));
  return { status: res.status, json: await res.json() };
}

const KEY = new Uint8Array([1, 2, 3]);
const VALUE = new Uint8Array([42, 0, 255]);

await use(".", async () => {
  const { createNode, StoreWriteError } = await import("tezos-node-ts");
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const genesis = await call(node, "/chains/main/blocks/genesis/hash");
    const head = await call(node, "/chains/main/blocks/head/header");
    const baked = await call(node, "/sandbox/bake?count=2", { method: "POST" });
    const after = await call(node, "/chains/main/blocks/head/header");
    // read from the data files the package carries beside its modules
    const sources = await call(node, `/protocols/${head.json.protocol}`);
    return {
      genesis: genesis.json,
      level: head.json.level,
      protocol: head.json.protocol,
      bakeStatus: baked.status,
      baked: baked.json,
      levelAfter: after.json.level,
      headAfter: after.json.hash,
      storeWriteError: typeof StoreWriteError,
      sources: { status: sources.status, env: sources.json.expected_env_version, components: sources.json.components?.length },
    };
  } finally {
    await node.close();
  }
});

await use("./stores/memory", async () => {
  const { MemoryStore } = await import("tezos-node-ts/stores/memory");
  const store = new MemoryStore();
  await store.write([{ key: KEY, value: VALUE }]);
  const got = store.get(KEY);
  await store.write([{ key: KEY }]);
  const deleted = store.get(KEY);
  await store.close();
  return { got: got && [...got], deleted: deleted === undefined, size: store.size };
});

await use("./stores/lmdb", async () => {
  const { openLmdbStore } = await import("tezos-node-ts/stores/lmdb");
  const { createNode } = await import("tezos-node-ts");
  const dir = mkdtempSync(join(tmpdir(), "tezos-consumer-lmdb-"));
  try {
    let store = await openLmdbStore(dir);
    await store.write([{ key: KEY, value: VALUE }]);
    const got = store.get(KEY);
    await store.close();
    store = await openLmdbStore(dir);
    const reopened = store.get(KEY);
    await store.close();
    const files = readdirSync(dir).sort();
    // A node on it keeps its chain across a restart.
    const chainDir = join(dir, "chain");
    let node = await createNode({ store: await openLmdbStore(chainDir), bake: { mode: "manual" } });
    await call(node, "/sandbox/bake", { method: "POST" });
    const head = (await call(node, "/chains/main/blocks/head/header")).json;
    await node.close();
    node = await createNode({ store: await openLmdbStore(chainDir), bake: { mode: "manual" } });
    const headAgain = (await call(node, "/chains/main/blocks/head/header")).json;
    await node.close();
    return { got: got && [...got], reopened: reopened && [...reopened], files, level: head.level, restarted: headAgain.hash === head.hash };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

await use("./stores/indexeddb", async () => {
  const native = typeof globalThis.indexedDB !== "undefined";
  if (!native) await import("fake-indexeddb/auto");
  const { openIndexedDbStore } = await import("tezos-node-ts/stores/indexeddb");
  const name = `tezos-consumer-${runtime}`;
  let store = await openIndexedDbStore(name);
  await store.write([{ key: KEY, value: VALUE }]);
  const got = store.get(KEY);
  await store.close();
  store = await openIndexedDbStore(name);
  const reopened = store.get(KEY);
  await store.write([{ key: KEY }]);
  await store.close();
  return { native, got: got && [...got], reopened: reopened && [...reopened] };
});

/** Serves a node with `serve` on a free loopback port and asks for its head over HTTP. */
async function serveNode(serve) {
  const { createNode } = await import("tezos-node-ts");
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const server = await serve((request) => node.fetch(request), { hostname: "127.0.0.1", port: 0 });
    try {
      const res = await fetch(`${server.url}/chains/main/blocks/head/header`);
      const header = await res.json();
      return { served: true, status: res.status, level: header.level, port: server.port, url: server.url };
    } finally {
      await server.close();
    }
  } finally {
    await node.close();
  }
}

/** Another runtime's adapter: it must load; serving with it must fail with a clear error. */
async function foreignAdapter(serve) {
  if (typeof serve !== "function") throw new Error(`serve is ${typeof serve}`);
  try {
    const server = await serve(() => new Response("x"), { hostname: "127.0.0.1", port: 0 });
    await server.close();
    return { loaded: true, served: true };
  } catch (error) {
    return { loaded: true, served: false, error: String(error?.message ?? error) };
  }
}

for (const adapter of ["node", "bun", "deno"]) {
  await use(`./serve/${adapter}`, async () => {
    const { serve } = await import(`tezos-node-ts/serve/${adapter}`);
    return adapter === runtime ? serveNode(serve) : foreignAdapter(serve);
  });
}

await use("./testing", async () => {
  const { startSandbox } = await import("tezos-node-ts/testing");
  const sandbox = await startSandbox({ bake: { mode: "manual" } });
  let port;
  try {
    port = Number(new URL(sandbox.url).port);
    const res = await fetch(`${sandbox.url}/chains/main/blocks/head/header`);
    const header = await res.json();
    const baked = await sandbox.bake(2);
    const after = await (await fetch(`${sandbox.url}/chains/main/blocks/head/hash`)).json();
    return { url: sandbox.url, port, status: res.status, level: header.level, accounts: sandbox.accounts.map((a) => a.address), baked: baked.length, headAfter: after === baked[1] };
  } finally {
    await sandbox.close();
  }
});

await use("./browser", async () => {
  const browser = await import("tezos-node-ts/browser");
  const exported = { createNode: typeof browser.createNode, openIndexedDbStore: typeof browser.openIndexedDbStore };
  const node = await browser.createNode({ bake: { mode: "manual" } });
  try {
    const head = await call(node, "/chains/main/blocks/head/header");
    return { exported, level: head.json.level, protocol: head.json.protocol };
  } finally {
    await node.close();
  }
});

console.log(`RESULTS ${JSON.stringify({ runtime, results })}`);
