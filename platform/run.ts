/**
 * What every entry point does (`platform/{node,deno,bun}/main.ts`): parse the command line, open
 * the store, create the node, serve it, and shut down cleanly on SIGINT or SIGTERM (server first,
 * then the node and its store, then exit 0). The runtime's `serve` comes in as an argument, so
 * this file never imports an adapter.
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
import { type ConfigFile, parseConfigFile } from "./config.ts";
import { readCommitInfo } from "./commit.ts";
import { runtimeStats } from "./stats.ts";
import { readResource } from "./resource.ts";

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

  const protocolParameters =
    options.protocolParameters === undefined ? undefined : await readParameters(options.protocolParameters);
  let policy: AclEntry[] = [];
  ({ options, policy } = await withConfigFile(options));

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
    activate: options.activate,
    cors: options.cors,
    protocolParameters,
  };
  let node: TezosNode;
  // A write the store refuses (full disk, read-only device) ends the node: one line, exit 1; the
  // store keeps its last complete block for the next start.
  let fatal: ((message: string) => void) | undefined;
  nodeOptions.onFatal = (error) => (fatal ?? ((m: string) => fail(m)))(error.message);
  try {
    node = await createNode(nodeOptions);
  } catch (error) {
    await store.close().catch(() => {});
    fail(`Cannot start the node: ${messageOf(error)}`);
  }

  // One server per address; each serves with its address's access policy, as Octez chooses it.
  const servers: HttpServer[] = [];
  for (const { hostname, port } of options.rpcAddrs) {
    const context = { acl: aclForAddress(policy, hostname, port) };
    const server = await platform.serve((request) => node.fetch(request, context), { hostname, port }).catch(async (error) => {
      await Promise.all(servers.map((s) => s.close().catch(() => {})));
      await node.close().catch(() => {});
      fail(`Cannot listen on ${hostname}:${port}: ${messageOf(error)}`);
    });
    servers.push(server);
  }
  const closeServers = () => Promise.all(servers.map((s) => s.close()));
  const where = options.dataDir === undefined ? "in memory" : `data dir ${options.dataDir}`;
  for (const server of servers) console.log(`Node listening on ${server.url} (${where})`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      console.error(`${signal} again: exiting without waiting.`);
      return process.exit(1);
    }
    stopping = true;
    try {
      await closeServers();
      await node.close();
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
      await closeServers().catch(() => {});
      await node.close().catch(() => {});
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
async function withConfigFile(options: CommandLine): Promise<{ options: CommandLine; policy: AclEntry[] }> {
  const allowAll: AclEntry[] = options.allowAllRpc.map(({ address, port }) => ({ address, port, acl: ALLOW_ALL }));
  if (options.configFile === undefined) return { options, policy: allowAll };
  let text: string;
  try {
    text = await readFile(options.configFile, "utf8");
  } catch (error) {
    const reason = (error as { code?: string }).code === "ENOENT" ? "no such file" : messageOf(error);
    fail(`Cannot read --config-file "${options.configFile}": ${reason}.`);
  }
  let config: ConfigFile;
  try {
    config = parseConfigFile(text, options.configFile);
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
  return { options: merged, policy: [...allowAll, ...config.acl] };
}
