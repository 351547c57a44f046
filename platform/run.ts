/**
 * What every entry point does (`platform/{node,deno,bun}/main.ts`): parse the command line, open
 * the store, load the P2P identity and create the pool when P2P is on, create the node, serve it,
 * start P2P, and shut down cleanly on SIGINT or SIGTERM (servers first, then P2P, then the node and
 * its store, then exit 0). `identity …` runs the identity command instead. The runtime's `serve`
 * comes in as an argument, so this file never imports an adapter.
 * @module
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import process from "node:process";
import { z } from "zod";
import { createNode, type NodeOptions, type TezosNode } from "../lib/node.ts";
import type { KeyValueStore } from "../lib/store/kv.ts";
import { MemoryStore } from "../lib/store/memory.ts";
import { type CommandLine, HELP, parseArgs, UsageError } from "./cli.ts";
import type { HttpServer, Serve } from "./serve.ts";
import { ALLOW_ALL, type AclEntry, aclForAddress } from "../lib/rpc/acl.ts";
import { type ConfigFile, readConfigFile } from "./config.ts";
import { configAnswer } from "./config-answer.ts";
import { runIdentityCommand } from "./identity-command.ts";
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
 * Runs the node as the command line asks; returns once it listens (the process then lives until
 * a signal). Every failure to start prints one message on stderr and exits with code 1.
 */
export async function run(argv: readonly string[], platform: RunPlatform): Promise<void> {
  if (argv[0] === "identity") {
    const code = await runIdentityCommand(argv.slice(1), { stdout: (text) => process.stdout.write(text), stderr: process.stderr });
    return process.exit(code);
  }
  let options: CommandLine;
  try {
    const parsed = parseArgs(argv);
    if (parsed.help) {
      process.stdout.write(HELP);
      return process.exit(0);
    }
    options = parsed.options;
  } catch (error) {
    if (error instanceof UsageError) fail(`${error.message}\nRun with --help to list the options.`);
    throw error;
  }
  if (options.serveLimits.headersTimeout !== undefined && runtimeName() === "bun") {
    fail("Option --rpc-headers-timeout cannot be used under Bun: Bun's HTTP server fixes the time a client has to send its request head (about 10 s).");
  }

  const protocolParameters =
    options.protocolParameters === undefined ? undefined : await readParameters(options.protocolParameters);
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

  // P2P: the identity (read, or generated at first start as octez-node does) and the pool, which
  // starts once the RPC servers listen. A signal while the proof of work is searched stops cleanly.
  let p2pPool: NodePool | undefined;
  if (p2p !== undefined) {
    const search = new AbortController();
    const interrupt = () => search.abort();
    process.once("SIGINT", interrupt);
    process.once("SIGTERM", interrupt);
    try {
      p2pPool = await openPool(p2p, options.dataDir, { progress: process.stderr, log: (line) => process.stderr.write(`${line}\n`) }, search.signal);
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
    bake: options.bake,
    ...(options.bakerKeys === undefined ? {} : { bakerKeys: options.bakerKeys }),
    ...(options.synchronisationThreshold === undefined ? {} : { synchronisationThreshold: options.synchronisationThreshold }),
    ...(options.syncLatency === undefined ? {} : { syncLatency: options.syncLatency }),
    activate: options.activate,
    cors: options.cors,
    protocolParameters,
    config: configAnswer(options, file, p2p),
    ...(pool === undefined ? {} : { p2p: pool }),
  };
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
  // Servers first (no new calls), then P2P (node.close() closes the pool too; closing twice is
  // harmless), then the node and its store.
  const closeAll = async (servers: readonly HttpServer[]) => {
    await Promise.all(servers.map((s) => s.close()));
    await pool?.close();
    await node.close();
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

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      console.error(`${signal} again: exiting without waiting.`);
      return process.exit(1);
    }
    stopping = true;
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

const parametersSchema = z.record(z.string(), z.unknown());

/** Reads the `--protocol-parameters` file: a JSON object, passed on as is. */
async function readParameters(path: string): Promise<Record<string, unknown>> {
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
  const parsed = parametersSchema.safeParse(json);
  if (!parsed.success) fail(`Invalid --protocol-parameters "${path}": expected a JSON object.`);
  return parsed.data;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
    cors: {
      origins: given("--cors-origin") ? options.cors.origins : (config.corsOrigins ?? options.cors.origins),
      headers: given("--cors-header") ? options.cors.headers : (config.corsHeaders ?? options.cors.headers),
    },
  };
  return { options: merged, policy: [...allowAll, ...config.acl], file: config };
}
