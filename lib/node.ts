/**
 * `createNode(options)`: wires the layers into one node and returns its `fetch` handler.
 * @module
 */
import { logInternalErrorOnce, type RequestContext } from "./rpc/handler.ts";
import type { RuntimeStats } from "./rpc/services/stats.ts";
import { defaultNodeConfig, type NodeConfig } from "./rpc/services/config.ts";
import { embeddedSources, fetchResource, type ResourceReader } from "./protocols/sources/mod.ts";
import { blake2bWasmReady } from "./crypto/blake2b.ts";
import { applyWrites, genesisContextWrites } from "./protocols/genesis/context.ts";
import { activateProtocol } from "./baker/activate.ts";
import { type Baker, createBaker, keyRing, selectBootstrapKeys } from "./baker/mod.ts";
import { NotHangzhou } from "./baker/block.ts";
import { startEndorser } from "./baker/endorser.ts";
import type { Json } from "./encoding/codec.ts";
import { genesisProtocol } from "./protocols/genesis/protocol.ts";
import { hangzhouProtocol } from "./protocols/hangzhou/protocol.ts";
import { sandboxParameters } from "./protocols/hangzhou/sandbox-parameters.ts";
import { parseProtocolParameters } from "./protocols/hangzhou/constants.ts";
import { hangzhouRpc } from "./rpc/services/hangzhou/mod.ts";
import type { Protocol, ShellOperation } from "./shell/protocol.ts";
import { genesisRpc } from "./rpc/services/genesis.ts";
import { BlockValidator } from "./shell/validator.ts";
import { NodeWorkers } from "./shell/workers-view.ts";
import { nodeDirectory, nodeRpcHandler } from "./rpc/services/mod.ts";
import { operationInjectionServices } from "./rpc/services/injection.ts";
import { mempoolServices } from "./rpc/services/mempool.ts";
import { hangzhouMempoolPlugin } from "./protocols/hangzhou/plugin.ts";
import type { MempoolPlugin } from "./shell/mempool-plugin.ts";
import { Prevalidator } from "./shell/prevalidator.ts";
import { Chain } from "./shell/chain.ts";
import { joinNetwork, type NodeNetwork } from "./shell/distributed-db/mod.ts";
import type { P2pPool } from "./p2p/pool/api.ts";
import { chainIdOf, type GenesisConfig, genesisBlock, SANDBOX_GENESIS } from "./shell/genesis.ts";
import { ProtocolRegistry } from "./shell/protocols.ts";
import type { Context } from "./store/context/mod.ts";
import { type KeyValueStore, StoreWriteError } from "./store/kv.ts";
import { MemoryStore } from "./store/memory.ts";
import type { PrunerOptions, StartContextCollection } from "./store/pruner.ts";
import { startContextCollection } from "./store/context/gc.ts";
import { type HistoryModeInput, toHistoryMode } from "./shell/history-mode.ts";
import { createSyncHeuristic, reportSyncEvents, syncLimits } from "./shell/sync-heuristic.ts";
import { createLogger, type Logger, type LogSink } from "./log.ts";
import { sandboxGuard } from "./sandbox/guard.ts";
import { sandboxClock } from "./sandbox/clock.ts";
import { sandboxServices } from "./rpc/services/sandbox.ts";
import { SandboxSnapshots } from "./sandbox/snapshots.ts";
import { chainState } from "./sandbox/state.ts";
import type { SnapshotExport } from "./store/snapshot/mod.ts";
import { SandboxChanges } from "./sandbox/changes.ts";
import { writeSandboxChanges } from "./protocols/hangzhou/sandbox-changes.ts";
import { Impersonation } from "./sandbox/impersonation.ts";
import { chainTemplateKey, findChainTemplate, keepChainTemplate, startFromTemplate, warmFromTemplate } from "./sandbox/template.ts";

/** How the sandbox baker produces blocks. */
export type BakeMode = { mode: "auto" } | { mode: "manual" } | { mode: "interval"; seconds: number };

export type { HistoryMode, HistoryModeInput, HistoryModeName } from "./shell/history-mode.ts";

/** Options of `createNode`; every field has a default. */
export interface NodeOptions {
  /** Where blocks and contexts live; an in-memory store when absent. */
  store?: KeyValueStore;
  /**
   * History mode, as Octez's `--history-mode`: `archive`, `full`, `rolling`, `full:N`,
   * `rolling:N` or `{ mode, additionalCycles }`. Full drops block metadata below the savepoint,
   * rolling also the blocks below the caboose, in the background (`docs/store.md`). Absent: the data directory's own mode (`full`
   * for a new one), as octez-node without `--history-mode`. A data directory keeps its mode:
   * opening it in another fails unless `forceHistoryModeSwitch` and Octez allows the switch.
   * RangeError for a bad mode.
   */
  historyMode?: HistoryModeInput;
  /** Switch an existing data directory to `historyMode` (Octez's `--force-history-mode-switch`). */
  forceHistoryModeSwitch?: boolean;
  /**
   * The context collector the pruner runs once the savepoint moved (full and rolling):
   * `startContextCollection` of `lib/store/context/gc.ts` when absent.
   */
  collectContexts?: StartContextCollection;
  /** Told of each pruning step (what it did, how long it held the event loop); for benches. */
  onPruneStep?: PrunerOptions["onStep"];
  /** Sandbox baker mode; `auto` when absent. */
  bake?: BakeMode;
  /**
   * The sandbox accounts the baker bakes and endorses for: `bootstrap1` … `bootstrap5` or their
   * tz1 addresses; all five when absent (priority 0 at every level). With some of them the baker
   * bakes at their slots only (`docs/baker.md`). RangeError naming an unknown key.
   */
  bakerKeys?: readonly string[];
  /**
   * Peers the node must be in step with to be bootstrapped (Octez's `--synchronisation-threshold`,
   * 0 to 255): 0 when absent, a sandbox bootstrapped from the start, as Octez's sandbox runs.
   */
  synchronisationThreshold?: number;
  /** How old, in seconds, a peer's head may be to count as in step (Octez's `--sync-latency`, 0 to 65535; 150 when absent). */
  syncLatency?: number;
  /** Activate the protocol at first start (default true); false waits for an injected activation block. */
  activate?: boolean;
  /** CORS: allowed origins (`*` allowed) and extra allowed headers. */
  cors?: { origins: readonly string[]; headers: readonly string[] };
  /** Wall clock in milliseconds since the epoch; `Date.now` when absent. */
  now?: () => number;
  /** Protocol parameters JSON used to activate the protocol (the sandbox parameters when absent). */
  protocolParameters?: Record<string, unknown>;
  /** The chain's genesis; Octez's sandbox genesis when absent. */
  genesis?: GenesisConfig;
  /**
   * Called once when the store refuses a write (a full disk, a read-only device): the baker has
   * stopped, the store holds the last complete block, and the node should be closed. Without it
   * the message goes to `console.error`.
   */
  onFatal?: (error: StoreWriteError) => void;
  /**
   * Reads a data file beside a module (the embedded protocols' sources, served by
   * `/protocols/<hash>`), given its `file:` URL (or, bundled in a page, its URL). `fetch` when
   * absent, which reads `file:` URLs under Deno and Bun; under Node pass
   * `(url) => readFile(url)` from `node:fs/promises` (`npm start` does).
   */
  readResource?: ResourceReader;
  /** The commit the node runs from, for `/version` and `/monitor/commit_hash` ("unknown" when absent, as Octez). */
  commit?: { readonly hash: string; readonly date: string };
  /** The runtime's figures for `/stats/gc` and `/stats/memory` (`platform/stats.ts`); what a web page sees when absent. */
  stats?: RuntimeStats;
  /** The largest request body the RPC reads, in bytes (8 MiB by default); larger ones answer 413 unread. */
  maxRequestBody?: number;
  /**
   * The work budget of one RPC call, in milliseconds (5 s by default): Michelson runs and loops
   * over user-given bounds (rights) stop past it with `node.rpc.work_budget_exceeded`.
   */
  rpcWorkBudget?: number;
  /**
   * What `GET /config` answers: the runtime configuration in Octez's configuration-file shape
   * (`platform/config.ts` builds it from the command line and the configuration file);
   * `defaultNodeConfig()` of `lib/rpc/services/config.ts` when absent.
   */
  config?: NodeConfig;
  /**
   * The P2P pool (`createPool` of `lib/p2p/pool/mod.ts`, started by the caller): `/network/*`
   * serves it and the node answers its peers' chain requests; `close()` closes it. Without it,
   * `/network/*` answers as Octez's node without P2P layer.
   */
  p2p?: P2pPool;
  /**
   * Where the node's log records go, from the sink's level on (`lib/log.ts`): blocks baked and
   * validated from peers, operations injected or refused, peers connected and gone, long bakes'
   * progress; at `debug`, each RPC request too. Without it an embedded node logs nothing (only a
   * bug, an unexpected internal error, still reaches `console.error`), so tests and embedders
   * stay quiet; `npm start` gives one writing on stderr (`--log-level`, `--log-format`).
   */
  log?: LogSink;
  /**
   * Called by `close()` once the baker has stopped and the requests in flight are answered,
   * before the store closes, with a function that gives the chain's state at its head as a
   * snapshot (`lib/sandbox/state.ts`): where `--dump-state` writes its file.
   */
  onClosing?: (state: () => SnapshotExport) => Promise<void>;
}

/** A running node: one fetch handler and a close. */
export interface TezosNode {
  /**
   * Serves one RPC request. `context.acl` is the access policy of the address the request came
   * through (`aclForAddress` of `lib/rpc/acl.ts`, as Octez chooses it); without one, every
   * request is allowed.
   */
  fetch(request: Request, context?: RequestContext): Promise<Response>;
  /**
   * Stops the node: the baker first (a `POST /sandbox/bake?count=N` in progress stops at the next
   * block boundary and answers the blocks baked so far), then waits for the requests in flight
   * (at most {@link CLOSE_DRAIN_MS}; new ones answer 503), then stops background work and closes
   * P2P and the store.
   */
  close(): Promise<void>;
  /**
   * Resolves once the history mode's background pruning has caught up with the savepoint and the
   * caboose (at once in archive mode, or when nothing is left to delete).
   */
  pruned(): Promise<void>;
}

/** How long `close()` waits for the requests in flight before it closes the store anyway. */
export const CLOSE_DRAIN_MS = 1000;

/**
 * Opens (or creates) the node's chain in `options.store` and returns its RPC handler.
 *
 * @example
 * ```ts
 * const node = await createNode();
 * const res = await node.fetch(new Request("http://localhost/chains/main/blocks/head/hash"));
 * await res.json(); // "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2"
 * await node.close();
 * ```
 */
export async function createNode(options: NodeOptions = {}): Promise<TezosNode> {
  await blake2bWasmReady; // the fast hashes from the first block on (noble's where WebAssembly is refused)
  const keys = selectBootstrapKeys(options.bakerKeys);
  const limits = syncLimits(options.synchronisationThreshold, options.syncLatency);
  let baker: Baker | undefined;
  let network: NodeNetwork | undefined;
  let failed = false;
  const now = options.now ?? Date.now;
  const log = createLogger(options.log, now);
  // A memory-store sandbox starts from the chain an earlier node made with the same parameters (lib/sandbox/template.ts).
  const store = options.store ?? new MemoryStore();
  const templateKey = chainTemplateKey(options as Record<string, unknown>, [...keyRing(keys).keys()]);
  const template = templateKey === undefined ? undefined : findChainTemplate(templateKey);
  if (template !== undefined) startFromTemplate(template, store as MemoryStore);
  const kv = reportingWriteFailures(store, (error) => {
    if (failed) return;
    failed = true;
    void baker?.stop();
    if (options.onFatal !== undefined) options.onFatal(error);
    else if (options.log !== undefined) log.error("store_write_refused", { msg: error.message });
    else console.error(error.message);
  });
  const genesis = options.genesis ?? SANDBOX_GENESIS;
  // a sandbox chain: the baker runs ahead of the clock, the /sandbox/… controls work (docs/sandbox.md)
  const sandbox = genesis.chainName === SANDBOX_GENESIS.chainName;
  const prepareGenesis = (ctx: Context) =>
    applyWrites(ctx, genesisContextWrites(genesis.protocol, { genesis_pubkey: genesis.genesisPubkey }));
  const historyMode = options.historyMode === undefined ? undefined : toHistoryMode(options.historyMode);
  const chain = await Chain.open(kv, chainIdOf(genesis), genesisBlock(kv, genesis, prepareGenesis), historyMode, {
    forceHistoryModeSwitch: options.forceHistoryModeSwitch === true,
    pruner: {
      collectContexts: options.collectContexts ?? ((store, roots) => startContextCollection(store, roots)),
      ...(options.onPruneStep === undefined ? {} : { onStep: options.onPruneStep }),
      // A write the store refused (a full disk) is the node's fatal error, reported once above.
      onError: (error) => {
        if (!(error instanceof StoreWriteError)) log.warn("pruning_failed", { msg: error instanceof Error ? error.message : String(error) });
      },
    },
  });
  // What decides block times reads the sandbox clock (the wall clock moved by /sandbox/time…,
  // docs/sandbox.md); logs, worker records and the sync heuristic keep the wall clock.
  const clock = sandboxClock({ store: kv, wall: now, headTimestamp: () => chain.head.header.timestamp });
  const embedded = new Map<string, Protocol>([genesisProtocol, hangzhouProtocol].map((p) => [p.hash, p]));
  const read = options.readResource ?? fetchResource;
  const protocols = new ProtocolRegistry(chain.store, [...embedded.keys()], (hash) => embeddedSources(hash, read));
  const sync = createSyncHeuristic({ ...limits, now });
  // the sandbox's impersonation waives signatures in its blocks and mempool (docs/sandbox.md)
  const impersonation = new Impersonation(kv, (h) => chain.block(h) !== undefined);
  const waivers = sandbox ? impersonation : undefined;
  // the sandbox's state changes, written into the next block the node builds (docs/sandbox.md, State)
  const changes = await SandboxChanges.open({
    chain,
    writers: (p) => (sandbox && p === hangzhouProtocol.hash ? writeSandboxChanges : undefined),
  });
  const validator = new BlockValidator(chain, (h) => embedded.get(h), { now, log, ...(waivers === undefined ? {} : { signatures: waivers }), prepareContext: changes.prepareContext });
  // the sandbox's snapshots pin their blocks from the first head on (docs/sandbox.md)
  const snapshots = SandboxSnapshots.open({ chain, mempool: { reset: (move) => prevalidator.reset(move) }, validator, clock });
  const rpcs = new Map([genesisRpc(clock.now), hangzhouRpc(clock.now)].map((r) => [r.hash, r]));
  const blockRpc = (h: string) => rpcs.get(h);
  if (options.protocolParameters !== undefined) checkParameters(options.protocolParameters);
  if (options.activate !== false && chain.head.hash === chain.genesis.hash) {
    await activateProtocol({
      chain,
      validator,
      protocol: hangzhouProtocol.hash,
      parameters: (options.protocolParameters as Json | undefined) ?? sandboxParameters(),
      timestamp: Math.max(Math.floor(clock.now() / 1000), chain.genesis.header.timestamp + 1),
    });
  }
  if (template !== undefined) warmFromTemplate(template, chain.store.kv);
  // The mempool: each applied operation asks the baker for a block (auto mode); the baker takes
  // the applied operations but the endorsements of its own delegates, which it makes itself.
  const plugins = new Map<string, MempoolPlugin>([[hangzhouMempoolPlugin.protocol, hangzhouMempoolPlugin]]);
  const prevalidator = new Prevalidator({
    chain,
    validator,
    protocols: (h) => embedded.get(h),
    plugins: (h) => plugins.get(h),
    now: clock.now,
    ...(waivers === undefined ? {} : { signatureWaived: waivers.building }),
    onApplied: (op) => {
      // on a network, endorsements alone ask for no block: they arrive at every head (the
      // endorsers of the other nodes), and an auto baker would answer each with a new head
      if (options.p2p === undefined || !isEndorsement(op.shell)) baker?.notify();
      network?.chainValidator.mempoolChanged();
    },
  });
  await prevalidator.start();
  const ownEndorsers = new Set(keyRing(keys).keys());
  baker = createBaker({
    chain,
    validator,
    keys,
    now: clock.now,
    mode: options.bake ?? { mode: "auto" },
    // a follower (P2P on, no activation of its own) takes its first blocks from the network
    topUp: !(options.p2p !== undefined && options.activate === false),
    // a block that writes state changes takes no mempool operation: they were checked on the state before
    pending: (head) => (changes.carriesChanges(head) ? [] : prevalidator.pending(head, { excludeEndorsers: ownEndorsers })),
    log,
    ...(options.log === undefined ? {} : { onError: (e: unknown) => log.error("baker_failed", { msg: e instanceof Error ? e.message : String(e) }) }),
  });
  await baker.start();
  // a node of a network holding some of the delegates (--baker-keys) endorses every new head
  // through its mempool, as Octez's endorser daemon, so that the other nodes' blocks hold them
  // (a node holding every key endorses in its own blocks, as before: docs/baker.md)
  const endorser = options.p2p === undefined || options.bakerKeys === undefined ? undefined : startEndorser({ chain, keys: keyRing(keys), inject: (bytes) => prevalidator.inject(bytes), log });
  if (templateKey !== undefined && template === undefined && !failed) keepChainTemplate(templateKey, store as MemoryStore, chain);
  // the workers' records; `workers.chainValidator` is the chain validator's (workers-view.ts)
  const workers = new NodeWorkers({
    chainId: chain.chainId,
    now,
    blockValidator: validator.worker,
    prevalidator: prevalidator.worker,
  });
  // the chain validator's record tells the synchronisation status and the bootstrapping, as Octez's
  const stopSyncEvents = reportSyncEvents(sync, (e) => workers.chainValidator.record(e));
  const shell = { chain, protocols, genesis, validator, workers, blockRpc, baker, commit: options.commit, stats: options.stats, workBudgetMs: options.rpcWorkBudget, config: options.config ?? defaultNodeConfig(limits), sync, log };
  const p2p = options.p2p;
  // the sandbox baker runs ahead of the clock (README, Sandbox time): its followers take its
  // heads from that future; other chains keep Octez's 5 s rule
  network = p2p === undefined ? undefined : joinNetwork({ chain, validator, prevalidator, protocols, pool: p2p, now: clock.now, workers, isBootstrapped: () => sync.isBootstrapped(), onPeerHead: (timestamp, peerId) => sync.update({ timestamp, peerId }), ...(sandbox ? { maxFutureS: Infinity } : {}) });
  const guard = sandboxGuard({ sandbox, chainName: genesis.chainName, peers: () => p2p?.connections().length ?? 0 });
  const directory = nodeDirectory(shell, p2p)
    .merge(sandboxServices({ shell, guard, clock, clockMoved: () => bakeInAutoMode(baker), impersonation: { impersonation, reclassifyMempool: () => prevalidator.reclassify() }, state: { changes, bakeInAutoMode: () => bakeInAutoMode(baker) }, snapshots }))
    .merge(operationInjectionServices(shell, prevalidator))
    .merge(mempoolServices(shell, prevalidator, { hash: hangzhouMempoolPlugin.protocol, dataCodec: hangzhouMempoolPlugin.dataCodec }));
  const handler = nodeRpcHandler(directory, {
    cors: options.cors,
    ...(options.maxRequestBody === undefined ? {} : { maxBodySize: options.maxRequestBody }),
    // a refused store write is the node's fatal error, told once through onFatal: not a bug to log
    onInternalError: (error, request) => {
      if (!(error instanceof StoreWriteError)) logInternalErrorOnce(error, request);
    },
  });
  const stopPeerEvents = p2p === undefined ? () => {} : logPeerChanges(p2p, log);
  const serve = log.enabled("debug") ? loggingRequests(handler, log) : handler;
  // Requests in flight, which close() waits for (bounded) before it closes the store.
  let inFlight = 0;
  let drained: (() => void) | undefined;
  let closed = false;
  return {
    pruned: () => chain.pruner.idle(),
    fetch(request, context) {
      if (closed) return Promise.resolve(shuttingDown());
      inFlight++;
      return serve(request, context).finally(() => {
        if (--inFlight === 0) drained?.();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await baker?.stop(); // a long bake ends at its next block, and its request answers
      if (inFlight > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          drained = resolve;
          timer = setTimeout(resolve, CLOSE_DRAIN_MS);
        });
        clearTimeout(timer);
      }
      if (options.onClosing !== undefined) {
        try {
          await options.onClosing(() => chainState(chain, genesis, snapshots));
        } catch (error) {
          console.error(error instanceof Error ? error.message : String(error));
        }
      }
      stopPeerEvents();
      network?.close();
      stopSyncEvents();
      await p2p?.close();
      await endorser?.stop();
      await prevalidator.stop();
      await workers.close();
      await changes.close();
      await chain.close();
      protocols.added.close();
      await kv.close();
    },
  };
}

/** Whether an operation is a consensus operation (an endorsement: Hangzhou's validation pass 0). */
function isEndorsement(op: ShellOperation): boolean {
  try {
    return hangzhouProtocol.acceptablePasses(op)[0] === 0;
  } catch {
    return false; // not Hangzhou's: the mempool applied it under another protocol
  }
}

/**
 * In `auto` mode, bakes one block (after a sandbox control: a move of the clock, a state change;
 * docs/sandbox.md) and answers true; nothing in the other modes, nor before the protocol is
 * activated (false).
 */
async function bakeInAutoMode(baker: Baker | undefined): Promise<boolean> {
  if (baker?.mode.mode !== "auto") return false;
  try {
    await baker.bake();
    return true;
  } catch (e) {
    if (e instanceof NotHangzhou) return false;
    throw e;
  }
}

/**
 * Refuses protocol parameters that Hangzhou cannot read, naming the field, before anything is
 * activated (the activation block would fail with a bare `failure`).
 */
function checkParameters(parameters: Record<string, unknown>): void {
  try {
    parseProtocolParameters(parameters as Json);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new RangeError(`Invalid protocol parameters: ${why}`, { cause: e });
  }
}

/** `kv`, telling `report` of each write it refuses with a {@link StoreWriteError} (then rethrown). */
function reportingWriteFailures(kv: KeyValueStore, report: (error: StoreWriteError) => void): KeyValueStore {
  return {
    get: (key) => kv.get(key),
    range: (range) => kv.range(range),
    close: () => kv.close(),
    async write(ops) {
      try {
        await kv.write(ops);
      } catch (e) {
        if (e instanceof StoreWriteError) report(e);
        throw e;
      }
    },
  };
}

/** The answer to a request that arrives while the node closes: 503, Octez's error list. */
function shuttingDown(): Response {
  const body = JSON.stringify([{ kind: "temporary", id: "failure", msg: "The node is shutting down" }]);
  return new Response(body, { status: 503, headers: { "content-type": "application/json" } });
}

/** `handler`, telling each request at debug level: method, path, status and time. */
function loggingRequests(handler: (request: Request, context?: RequestContext) => Promise<Response>, log: Logger) {
  return async (request: Request, context?: RequestContext): Promise<Response> => {
    const started = performance.now();
    const response = await handler(request, context);
    const url = new URL(request.url);
    log.debug("rpc_request", { method: request.method, path: url.pathname + url.search, status: response.status, ms: Math.round(performance.now() - started) });
    return response;
  };
}

/** Tells each peer connected (with its address) and gone; the function that stops it. */
function logPeerChanges(p2p: P2pPool, log: Logger): () => void {
  const points = new Map<string, string>();
  return p2p.onPeerChange((link, change) => {
    if (change === "connected") {
      const connection = p2p.connection(link.peerId);
      const point = connection === undefined ? undefined : `${connection.idPoint.addr.includes(":") ? `[${connection.idPoint.addr}]` : connection.idPoint.addr}:${connection.idPoint.port ?? connection.remoteSocketPort}`;
      if (point !== undefined) points.set(link.peerId, point);
      log.info("peer_connected", { peer: link.peerId, point, incoming: connection?.incoming });
    } else {
      log.info("peer_disconnected", { peer: link.peerId, point: points.get(link.peerId) });
      points.delete(link.peerId);
    }
  });
}
