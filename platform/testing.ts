/**
 * `startSandbox()`: a fresh sandbox chain per test, over real HTTP. It starts a node on a memory
 * store (in a few milliseconds once the process has started one with the same options: see
 * `lib/sandbox/template.ts`), serves it with the runtime's own adapter (Node, Bun or Deno) on a
 * free loopback port, and hands back its URL, the node, the bootstrap accounts with their secret
 * keys, a `bake` and a `close`. For uvu, Vitest, Jest or any runner: start one in `beforeEach`,
 * close it in `afterEach` (docs/sandbox.md, "A chain per test").
 *
 * The package's `tezos-node-ts/testing`.
 * @example
 * ```ts
 * import { startSandbox } from "tezos-node-ts/testing";
 * const sandbox = await startSandbox();
 * const res = await fetch(`${sandbox.url}/chains/main/blocks/head/header`);
 * console.log((await res.json()).level); // 3
 * console.log(sandbox.accounts[0]!.address); // tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx (bootstrap1)
 * const [hash] = await sandbox.bake(); // one block at once, whatever the bake mode
 * console.log(hash?.startsWith("B")); // true
 * await sandbox.close(); // the port and the node
 * ```
 * @module
 */
import { createNode } from "../mod.ts";
import type { NodeOptions, TezosNode } from "../lib/node.ts";
import { BOOTSTRAP_ACCOUNTS, type BootstrapAccount } from "../lib/baker/bootstrap-accounts.ts";
import { aclForAddress } from "../lib/rpc/acl.ts";
import { currentServe } from "./current.ts";
import type { HttpServer } from "./serve.ts";

/** Options of {@link startSandbox}: the node's (but its store, always a new memory store, and P2P), and where to listen. */
export interface SandboxOptions extends Omit<NodeOptions, "store" | "p2p"> {
  /** The interface to listen on; `127.0.0.1` when absent. A non-loopback one gets Octez's default secure ACL. */
  readonly hostname?: string;
  /** The port; 0 (a free one, the default) when absent. */
  readonly port?: number;
}

/** A bootstrap account of the sandbox: `bootstrap1` … `bootstrap5`, with its keys as text. */
export type SandboxAccount = BootstrapAccount;

/** A running sandbox: a node served over HTTP. */
export interface Sandbox {
  /** `http://127.0.0.1:<port>`: the base of the RPCs (Taquito's `new TezosToolkit(url)`). */
  readonly url: string;
  /** The node itself (`node.fetch` answers without going through HTTP). */
  readonly node: TezosNode;
  /**
   * The bootstrap accounts the chain was activated with (all five unless `protocolParameters`
   * says otherwise), with their secret keys (`edsk…`), in order.
   */
  readonly accounts: readonly SandboxAccount[];
  /** Bakes `count` blocks at once (1 by default; `POST /sandbox/bake`), whatever the bake mode; their hashes, oldest first. */
  bake(count?: number): Promise<string[]>;
  /** Closes the HTTP server (its port is free again) and the node. Closing twice is harmless. */
  close(): Promise<void>;
}

/**
 * Starts a sandbox node on a new memory store and serves it on a free loopback port (see the
 * module documentation). Rejects as `createNode` does for bad options, and when the port cannot
 * be bound (the node is closed then).
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { hostname = "127.0.0.1", port = 0, ...nodeOptions } = options;
  const given = nodeOptions as NodeOptions;
  if (given.store !== undefined || given.p2p !== undefined) throw new TypeError("startSandbox: a sandbox has its own memory store and no P2P; use createNode for those");
  const serve = await currentServe();
  const node = await createNode(nodeOptions);
  // the command line's policy without configured entries: everything on loopback, Octez's secure set elsewhere
  const context = { acl: aclForAddress([], hostname, port) };
  let server: HttpServer;
  try {
    server = await serve((request) => node.fetch(request, context), { hostname, port });
  } catch (error) {
    await node.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url: server.url,
    node,
    accounts: accountsOf(options.protocolParameters),
    bake: (count = 1) => bake(node, count),
    close() {
      closing ??= server.close().finally(() => node.close());
      return closing;
    },
  };
}

/** `POST /sandbox/bake?count=n` on `node`; the hashes, or the node's error. */
async function bake(node: TezosNode, count: number): Promise<string[]> {
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`bake: count must be a whole number of 1 or more, not ${String(count)}`);
  const res = await node.fetch(new Request(`http://localhost/sandbox/bake?count=${count}`, { method: "POST" }));
  const body = (await res.json()) as unknown;
  if (res.status !== 200) throw new Error(`bake: ${res.status} ${JSON.stringify(body)}`);
  return body as string[];
}

/** The bootstrap accounts whose keys the parameters' `bootstrap_accounts` name (all when absent). */
function accountsOf(parameters: Record<string, unknown> | undefined): SandboxAccount[] {
  const listed = parameters?.["bootstrap_accounts"];
  if (!Array.isArray(listed)) return [...BOOTSTRAP_ACCOUNTS];
  const keys = new Set(listed.map((entry) => (Array.isArray(entry) ? entry[0] : undefined)));
  return BOOTSTRAP_ACCOUNTS.filter((a) => keys.has(a.publicKey) || keys.has(a.address));
}
