/**
 * A TypeScript consumer of the installed package, type-checked by `run.mjs` with `tsc` (module and
 * resolution `NodeNext`, strict, library declarations checked too) against the `.d.ts` files of
 * the tarball: every export resolves to real types, and the `@ts-expect-error` lines prove that
 * the types refuse what they must (they are not `any`). Never run.
 */
import { createNode, type KeyValueStore, type NodeOptions, StoreWriteError, type TezosNode } from "tezos-node-ts";
import { type LmdbStore, openLmdbStore } from "tezos-node-ts/stores/lmdb";
import { openIndexedDbStore } from "tezos-node-ts/stores/indexeddb";
import { MemoryStore } from "tezos-node-ts/stores/memory";
import { serve as serveNode } from "tezos-node-ts/serve/node";
import { serve as serveBun } from "tezos-node-ts/serve/bun";
import { serve as serveDeno } from "tezos-node-ts/serve/deno";
import * as browser from "tezos-node-ts/browser";
import { type Sandbox, startSandbox } from "tezos-node-ts/testing";

const options: NodeOptions = { store: new MemoryStore(), historyMode: "rolling", bake: { mode: "interval", seconds: 2 } };
const node: TezosNode = await createNode(options);
const response: Response = await node.fetch(new Request("http://node/chains/main/blocks/head/header"));
const lmdb: LmdbStore = await openLmdbStore("/tmp/x");
const stores: KeyValueStore[] = [lmdb, await openIndexedDbStore("x"), new MemoryStore()];
const value: Uint8Array | undefined = stores[0]!.get(new Uint8Array([1]));
const error: Error = new StoreWriteError("full", "no_space");
for (const serve of [serveNode, serveBun, serveDeno]) {
  const server = await serve((request) => node.fetch(request), { hostname: "127.0.0.1", port: 0 });
  const url: string = server.url;
  const port: number = server.port;
  await server.close();
  void url, port;
}
const sandbox: Sandbox = await startSandbox({ bake: { mode: "manual" } });
const sandboxUrl: string = sandbox.url;
const hashes: string[] = await sandbox.bake(2);
const secret: string = sandbox.accounts[0]!.secretKey;
const sandboxNode: TezosNode = sandbox.node;
await sandbox.close();
void sandboxUrl, hashes, secret, sandboxNode;
const browserNode: TezosNode = await browser.createNode({ bake: { mode: "manual" } });
const browserStore: KeyValueStore = await browser.openIndexedDbStore("x");
await node.close();
void response, value, error, browserNode, browserStore;

// @ts-expect-error: not a history mode
await createNode({ historyMode: "everything" });
// @ts-expect-error: a sandbox has its own memory store
await startSandbox({ store: new MemoryStore() });
// @ts-expect-error: the store needs a directory
await openLmdbStore();
// @ts-expect-error: a key is bytes
new MemoryStore().get("key");
// @ts-expect-error: the handler takes a request
await serveNode(() => 1, { hostname: "127.0.0.1", port: 0 });
