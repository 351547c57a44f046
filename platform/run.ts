/**
 * What every entry point does once `entry.ts` has read the command line: open the store, load the
 * P2P identity and create the pool when P2P is on, create the node, serve it, start P2P, log the
 * start (and the sandbox's bootstrap accounts), and shut down cleanly on SIGINT or SIGTERM (the
 * node first, so that a long bake answers the blocks it baked, then the servers and P2P, then
 * exit 0). `--print-protocol-parameters` prints the parameters instead. The runtime's `serve`
 * comes in as an argument, so this file never imports an adapter.
 * @module
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import process from "node:process";
import { createNode, type NodeOptions, type TezosNode } from "../lib/node.ts";
import type { Json } from "../lib/encoding/codec.ts";
import { createLogger, type Logger, type LogRecord, type LogSink } from "../lib/log.ts";
import { BOOTSTRAP_ACCOUNTS } from "../lib/baker/bootstrap-accounts.ts";
import { chainIdOf, SANDBOX_GENESIS } from "../lib/shell/genesis.ts";
import { B58, b58encode } from "../lib/encoding/base58.ts";
import type { KeyValueStore } from "../lib/store/kv.ts";
import { MemoryStore } from "../lib/store/memory.ts";
import { type CommandLine, UsageError } from "./cli.ts";
import type { HttpServer, Serve } from "./serve.ts";
import { ALLOW_ALL, type AclEntry, aclForAddress } from "../lib/rpc/acl.ts";
import { type ConfigFile, readConfigFile } from "./config.ts";
import { configAnswer } from "./config-answer.ts";
import { lineSink } from "./log-format.ts";
import { ParametersFileError, printParameters, protocolParameters as parametersOf } from "./protocol-parameters.ts";
import { NO_P2P_CONFIG, type NodePool, openPool, p2pLine, type P2pSettings, p2pSettings } from "./p2p.ts";
import { IdentityFileProblem } from "./identity-file.ts";
import { formatPoint } from "../lib/p2p/encoding/point.ts";
import { readCommitInfo } from "./commit.ts";
import { runtimeStats } from "./stats.ts";
import { readResource } from "./resource.ts";
import { runtimeName } from "./current.ts";

/** What the runtime gives `run`. */
export interface RunPlatform {
  /** The runtime's HTTP adapter. */
  readonly serve: Serve;
}

/**
 * Runs the node as the command line (`parseArgs` of `cli.ts`) asks; returns once it listens (the
 * process then lives until a signal). Every failure to start prints one message on stderr and
 * exits with code 1. Log records go to stderr as `--log-level` and `--log-format` say.
 */
export async function run(commandLine: CommandLine, platform: RunPlatform): Promise<void> {
  let options = commandLine;
  const sink = startingSink(lineSink(options.logLevel, options.logFormat, (text) => void process.stderr.write(text)));
  const log = createLogger(sink);
  if (options.serveLimits.headersTimeout !== undefined && runtimeName() === "bun") {
    fail("Option --rpc-headers-timeout cannot be used under Bun: Bun's HTTP server fixes the time a client has to send its request head (about 10 s).");
  }

  const protocolParameters =
    options.protocolParameters === undefined ? undefined : await readParameters(options.protocolParameters);
  if (options.printProtocolParameters) {
    const { sandboxParameters } = await import("../lib/protocols/hangzhou/sandbox-parameters.ts");
    process.stdout.write(printParameters(protocolParameters ?? sandboxParameters()));
    return process.exit(0);
  }
  let policy: AclEntry[] = [];
  let file: ConfigFile | undefined;
  ({ options, policy, file } = await withConfigFile(options));
  let p2p: P2pSettings | undefined;
  try {
    p2p = p2pSettings(options, file?.p2p ?? NO_P2P_CONFIG, options.configFile);
  } catch (error) {
    if (error instanceof UsageError) fail(error.message);
    throw error;
  }

  let store: KeyValueStore = new MemoryStore();
  if (options.dataDir !== undefined) {
    // Loaded only when needed, so that `--memory` runs without LMDB's native module.
    const { openLmdbStore } = await import("./store/lmdb.ts");
    try {
      store = await openLmdbStore(resolve(options.dataDir));
    } catch (error) {
      fail(messageOf(error));
    }
  }
  if (options.loadState !== undefined) {
    // --load-state: the state file into the store before the node opens it (platform/state-file.ts)
    const { loadState } = await import("./state-file.ts");
    try {
      const loaded = await loadState(options.loadState, store);
      const h = loaded.header;
      if (loaded.imported) log.info("state_loaded", { file: options.loadState, block: h.block_hash, block_level: h.level });
      else log.info("state_already_loaded", { file: options.loadState, block: h.block_hash, head: loaded.head.hash, head_level: loaded.head.level });
    } catch (error) {
      await store.close().catch(() => {});
      fail(messageOf(error));
    }
  }

  // P2P: the identity (read, or generated at first start as octez-node does) and the pool, which
  // starts once the RPC servers listen. A signal while the proof of work is searched stops cleanly.
  let p2pPool: NodePool | undefined;
  if (p2p !== undefined) {
    const search = new AbortController();
    const interrupt = () => search.abort();
    process.once("SIGINT", interrupt);
    process.once("SIGTERM", interrupt);
    try {
      p2pPool = await openPool(p2p, options.dataDir, { progress: process.stderr, log: (line) => log.info("p2p", { msg: line.replace(/^p2p: /, "") }) }, search.signal);
    } catch (error) {
      await store.close().catch(() => {});
      if (search.signal.aborted) {
        process.stderr.write("Stopped while generating the identity; nothing was written.\n");
        return process.exit(0);
      }
      fail(error instanceof IdentityFileProblem ? error.message : `Cannot start P2P: ${messageOf(error)}`);
    } finally {
      process.off("SIGINT", interrupt);
      process.off("SIGTERM", interrupt);
    }
  }
  const pool = p2pPool?.pool;

  const commit = await readCommitInfo();
  const nodeOptions: NodeOptions = {
    readResource,
    stats: runtimeStats(),
    ...(options.maxRequestBody === undefined ? {} : { maxRequestBody: options.maxRequestBody }),
    ...(options.rpcWorkBudget === undefined ? {} : { rpcWorkBudget: options.rpcWorkBudget }),
    ...(commit === undefined ? {} : { commit }),
    store,
    historyMode: options.historyMode,
    forceHistoryModeSwitch: options.forceHistoryModeSwitch,
    bake: options.bake,
    ...(options.bakerKeys === undefined ? {} : { bakerKeys: options.bakerKeys }),
    ...(options.synchronisationThreshold === undefined ? {} : { synchronisationThreshold: options.synchronisationThreshold }),
    ...(options.syncLatency === undefined ? {} : { syncLatency: options.syncLatency }),
    activate: options.activate,
    cors: options.cors,
    protocolParameters,
    config: configAnswer(options, file, p2p),
    ...(pool === undefined ? {} : { p2p: pool }),
    log: sink,
  };
  const dumpFile = options.dumpState;
  if (dumpFile !== undefined) {
    // --dump-state: the state at exit, once the baker has stopped (platform/state-file.ts)
    nodeOptions.onClosing = async (state) => {
      const { dumpState } = await import("./state-file.ts");
      try {
        const h = await dumpState(dumpFile, state);
        log.info("state_dumped", { file: dumpFile, block: h.block_hash, block_level: h.level });
      } catch (error) {
        process.stderr.write(`${messageOf(error)}\n`);
      }
    };
  }
  let node: TezosNode;
  // A write the store refuses (full disk, read-only device) ends the node: one line, exit 1; the
  // store keeps its last complete block for the next start.
  let fatal: ((message: string) => void) | undefined;
  nodeOptions.onFatal = (error) => (fatal ?? ((m: string) => fail(m)))(error.message);
  try {
    node = await createNode(nodeOptions);
  } catch (error) {
    await pool?.close().catch(() => {});
    await store.close().catch(() => {});
    fail(`Cannot start the node: ${messageOf(error)}`);
  }
  // The node first: its baker stops at the next block boundary, the requests in flight get
  // their answers (a long bake the blocks baked so far) and new ones a 503, then P2P and the
  // store close. Then the servers, which end the connections still open (monitor streams), and
  // P2P (node.close() closed the pool already; closing twice is harmless).
  const closeAll = async (servers: readonly HttpServer[]) => {
    await node.close();
    await Promise.all(servers.map((s) => s.close()));
    await pool?.close();
  };

  // One server per address; each serves with its address's access policy, as Octez chooses it.
  const servers: HttpServer[] = [];
  for (const { hostname, port } of options.rpcAddrs) {
    const context = { acl: aclForAddress(policy, hostname, port) };
    const server = await platform.serve((request) => node.fetch(request, context), { hostname, port, ...options.serveLimits }).catch(async (error) => {
      await closeAll(servers).catch(() => {});
      fail(`Cannot listen on ${hostname}:${port}: ${messageOf(error)}`);
    });
    servers.push(server);
  }
  const where = options.dataDir === undefined ? "in memory" : `data dir ${options.dataDir}`;
  for (const server of servers) console.log(`Node listening on ${server.url} (${where})`);
  if (p2p !== undefined && p2pPool !== undefined) {
    try {
      await p2pPool.pool.start();
    } catch (error) {
      await closeAll(servers).catch(() => {});
      fail(p2p.listen === undefined ? `Cannot start P2P: ${messageOf(error)}` : `Cannot listen for peers on ${formatPoint(p2p.listen)}: ${messageOf(error)}`);
    }
    console.log(p2pLine(p2p, p2pPool));
  }
  sink.started();
  await logStart(node, log, {
    rpc: servers.map((s) => s.url).join(","),
    dataDir: options.dataDir,
    bootstrapAccounts: protocolParameters?.["bootstrap_accounts"],
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      console.error(`${signal} again: exiting without waiting.`);
      return process.exit(1);
    }
    stopping = true;
    log.info("node_stopping", { signal });
    try {
      await closeAll(servers);
    } catch (error) {
      fail(`Error while shutting down: ${messageOf(error)}`);
    }
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  // LMDB rejects a second, internal promise when a commit fails after all (the disk filled up
  // between the space check and the write): the write's own failure is reported already.
  process.on("unhandledRejection", (reason) => {
    if ((reason as { commitError?: unknown } | null)?.commitError !== undefined) return;
    process.stderr.write(`Unexpected error: ${messageOf(reason)}\n`);
    process.exit(1);
  });
  fatal = (message) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${message}\n`);
    void (async () => {
      await closeAll(servers).catch(() => {});
      process.exit(1);
    })();
  };
}

/**
 * Reads the `--protocol-parameters` file: Octez's sandbox-parameters.json format, the fields it
 * gives over the sandbox defaults, each checked (`protocol-parameters.ts`).
 */
async function readParameters(path: string): Promise<Record<string, Json>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const reason = (error as { code?: string }).code === "ENOENT" ? "no such file" : messageOf(error);
    fail(`Cannot read --protocol-parameters "${path}": ${reason}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    fail(`Invalid --protocol-parameters "${path}": not JSON (${messageOf(error)}).`);
  }
  try {
    return parametersOf(json, path);
  } catch (error) {
    if (error instanceof ParametersFileError) fail(error.message);
    throw error;
  }
}

/**
 * Logs `node_started` (RPC address, chain, head, history mode, data directory) and, on the
 * sandbox chain, its bootstrap accounts as a table: those funded by the parameters file, or all
 * five. Read through the node's own RPC, as a client would.
 */
async function logStart(node: TezosNode, log: Logger, at: { rpc: string; dataDir: string | undefined; bootstrapAccounts: Json | undefined }): Promise<void> {
  if (!log.enabled("info")) return;
  const read = async (path: string) => (await node.fetch(new Request(`http://localhost${path}`))).json() as Promise<Record<string, Json>>;
  const header = await read("/chains/main/blocks/head/header");
  const mode = (await read("/config/history_mode"))["history_mode"];
  log.info("node_started", {
    rpc: at.rpc,
    chain: String(header["chain_id"]),
    head_level: Number(header["level"]),
    head: String(header["hash"]),
    history_mode: typeof mode === "string" ? mode : JSON.stringify(mode),
    data_dir: at.dataDir ?? "memory",
  });
  if (header["chain_id"] !== b58encode(B58.chainId, chainIdOf(SANDBOX_GENESIS))) return;
  const funded = Array.isArray(at.bootstrapAccounts) ? new Set(at.bootstrapAccounts.map((a) => (Array.isArray(a) ? a[0] : undefined))) : undefined;
  const accounts = BOOTSTRAP_ACCOUNTS.filter((a) => funded === undefined || funded.has(a.publicKey) || funded.has(a.address));
  if (accounts.length === 0) return;
  log.info("bootstrap_accounts", {
    accounts: accounts.map((a) => ({ name: a.name, address: a.address, "public key": a.publicKey, "secret key": a.secretKey })),
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `sink`, holding the info and debug records until `started()` (the blocks a fresh sandbox bakes
 * while the node opens), then writing them: a node that cannot start (a port in use) prints its
 * one-line reason alone. Warnings and errors go through at once.
 */
function startingSink(sink: LogSink): LogSink & { started(): void } {
  let held: LogRecord[] | undefined = [];
  return {
    level: sink.level,
    write(record) {
      if (held !== undefined && (record.level === "info" || record.level === "debug")) held.push(record);
      else sink.write(record);
    },
    started() {
      const records = held ?? [];
      held = undefined;
      for (const record of records) sink.write(record);
    },
  };
}

/** Prints `message` on stderr and exits with code 1. */
function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  return process.exit(1);
}

/**
 * The command line with what `--config-file` sets where the command line is silent (Octez:
 * options override the file), and the ACL policy: `--allow-all-rpc` addresses first, then the
 * file's `rpc.acl`.
 */
async function withConfigFile(options: CommandLine): Promise<{ options: CommandLine; policy: AclEntry[]; file: ConfigFile | undefined }> {
  const allowAll: AclEntry[] = options.allowAllRpc.map(({ address, port }) => ({ address, port, acl: ALLOW_ALL }));
  if (options.configFile === undefined) return { options, policy: allowAll, file: undefined };
  let config: ConfigFile;
  try {
    config = await readConfigFile(options.configFile);
  } catch (error) {
    fail(messageOf(error));
  }
  const given = (flag: string) => options.given.has(flag);
  const merged: CommandLine = {
    ...options,
    ...(!given("--rpc-addr") && config.rpcAddrs !== undefined && config.rpcAddrs.length > 0 ? { rpcAddrs: config.rpcAddrs } : {}),
    ...(!given("--data-dir") && !given("--memory") && config.dataDir !== undefined ? { dataDir: config.dataDir } : {}),
    ...(!given("--history-mode") && config.shell.historyMode !== undefined ? { historyMode: config.shell.historyMode } : {}),
    ...(!given("--synchronisation-threshold") && !given("--bootstrap-threshold") && config.shell.synchronisationThreshold !== undefined ? { synchronisationThreshold: config.shell.synchronisationThreshold } : {}),
    ...(!given("--sync-latency") && config.shell.syncLatency !== undefined ? { syncLatency: config.shell.syncLatency } : {}),
    cors: {
      origins: given("--cors-origin") ? options.cors.origins : (config.corsOrigins ?? options.cors.origins),
      headers: given("--cors-header") ? options.cors.headers : (config.corsHeaders ?? options.cors.headers),
    },
  };
  if (merged.forceHistoryModeSwitch && merged.historyMode === undefined) {
    fail("Option --force-history-mode-switch needs --history-mode (or shell.history_mode in the configuration file): the mode to switch to.");
  }
  return { options: merged, policy: [...allowAll, ...config.acl], file: config };
}
