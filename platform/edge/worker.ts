/**
 * The node as a Workers module for Cloudflare's workerd: `export default { fetch }` answers every
 * RPC with a sandbox node held in memory (`lib/store/memory.ts`) that bakes only when asked
 * (`POST /sandbox/bake`), made at the first request (workerd allows no I/O, timers or random
 * numbers at a module's top level; `lazy-node.ts`), with its protocols' sources deployed as data
 * modules (`sources.ts`). `scripts/bundle-edge.mjs` bundles it into `dist/edge/`.
 *
 * The node lives in the Durable Object {@link TezosNodeObject}, which the worker binds as
 * `TEZOS_NODE`: one node for every client, whose background work goes on between requests (the
 * mempool following each new head, its classification of the operations a head left pending, the
 * monitor streams), as all the requests of an object share one context. Without the binding the
 * worker answers a `failure` saying so. A node cannot live in a plain worker's isolate: there each
 * request has a context of its own, and workerd either cancels the continuations of a promise made
 * by an ended request (the mempool's loop over new heads, made by the first request, would stop
 * at the second) or, with the flag `no_handle_cross_request_promise_resolution`, runs them in the
 * context of the request that settled the promise, where timers and random numbers are refused
 * once that request has ended (two bakes arriving together fail); the timers a request sets are
 * dropped when it ends; and Cloudflare runs many isolates, each with a chain of its own.
 *
 * The chain lives in the object's memory: a new deployment, or the object dropped after an idle
 * while, starts a new one. Making the node (genesis, activation, two blocks) takes about
 * a third of a second of CPU, more than the free plan's per-request limit.
 *
 * @example
 * ```toml
 * # wrangler.toml beside dist/edge/ (examples/edge/)
 * name = "tezos-node"
 * main = "dist/edge/worker.js"
 * compatibility_date = "2025-09-01"
 * no_bundle = true
 * rules = [{ type = "Data", globs = ["*.bin.gz"] }]
 * durable_objects.bindings = [{ name = "TEZOS_NODE", class_name = "TezosNodeObject" }]
 * migrations = [{ tag = "v1", new_sqlite_classes = ["TezosNodeObject"] }]
 * ```
 * ```js
 * // or in miniflare
 * const mf = new Miniflare({
 *   modules: true, scriptPath: "dist/edge/worker.js", compatibilityDate: "2025-09-01",
 *   modulesRules: [{ type: "ESModule", include: ["**\/*.js"] }, { type: "Data", include: ["**\/*.bin.gz"] }],
 *   durableObjects: { TEZOS_NODE: "TezosNodeObject" },
 * });
 * await (await mf.dispatchFetch("http://node/chains/main/blocks/head/header")).json();
 * ```
 * @module
 */
import { createNode, type TezosNode } from "../../lib/node.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { failureAnswer, lazyNode } from "./lazy-node.ts";
import { readBundledResource } from "./sources.ts";

/** A Durable Object namespace binding, as much of it as the worker uses. */
export interface DurableObjectNamespaceBinding {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

/** The worker's bindings: the node's Durable Object, when the worker is deployed with it. */
export interface EdgeEnv {
  TEZOS_NODE?: DurableObjectNamespaceBinding;
}

/** The answer of a worker deployed without the node's object. */
const UNBOUND =
  "This worker keeps its node in a Durable Object: bind the class TezosNodeObject as TEZOS_NODE (examples/edge/wrangler.toml)";

/** The name of the one object that holds the node. */
const NODE_OBJECT = "main";

/** The node of a worker: in memory, baking on request, its sources read from the data modules. */
export function edgeNode(): Promise<TezosNode> {
  return createNode({ store: new MemoryStore(), bake: { mode: "manual" }, readResource: readBundledResource });
}

/** The Durable Object that holds the node (bind it as `TEZOS_NODE`); made by workerd, one per name. */
export class TezosNodeObject {
  readonly #handle = lazyNode(edgeNode);

  /** Serves one RPC request. */
  async fetch(request: Request): Promise<Response> {
    return uncompressed(await this.#handle(request));
  }
}

/**
 * `answer` marked to be sent as it is, as Octez's node sends its answers: Cloudflare's front (and
 * miniflare, which mimics it) gzips JSON for a client that accepts it, and its gzip holds a
 * monitor stream's chunks back until the stream ends, that is for ever.
 */
function uncompressed(answer: Response): Response {
  if (answer.headers.has("content-encoding")) return answer;
  const marked = new Response(answer.body, answer);
  marked.headers.set("content-encoding", "identity");
  return marked;
}

export default {
  /** Serves one RPC request with the node of the object bound as `TEZOS_NODE`. */
  fetch(request: Request, env: EdgeEnv = {}): Promise<Response> {
    const binding = env.TEZOS_NODE;
    if (binding === undefined) return Promise.resolve(failureAnswer(UNBOUND));
    return binding.get(binding.idFromName(NODE_OBJECT)).fetch(request);
  },
};
