/**
 * The node's P2P settings as octez-node settles them (`src/bin_node/node_shared_arg.ml`,
 * `node_config_file.ml`, `node_config_validation.ml`): the command line over the configuration
 * file's `p2p` section over Octez's defaults, checked; the identity the node runs with
 * (`<data-dir>/identity.json`, created at first start as `tezos-node run` does); and the
 * {@link PoolOptions} that start the pool.
 *
 * P2P runs when there is an address to listen on (`--net-addr`, `p2p.listen-addr`) or a peer to
 * connect to (`--peer`, `p2p.bootstrap-peers`); without either the node serves RPC only.
 *
 * @example
 * ```ts
 * const settings = p2pSettings(commandLine, configFile?.p2p ?? NO_P2P_CONFIG); // undefined: P2P is off
 * if (settings) {
 *   const p2p = await openPool(settings, commandLine.dataDir, { progress: process.stderr, log: console.error });
 *   await p2p.pool.start();
 *   console.log(p2pLine(settings, p2p)); // P2P listening on 127.0.0.1:9732 (peer id id…)
 * }
 * ```
 * @module
 */
import { formatPoint, type P2pPoint } from "../lib/p2p/encoding/point.ts";
import { checkProofOfWork, DEFAULT_EXPECTED_POW, type Identity, powTarget } from "../lib/p2p/identity.ts";
import type { ConnectionLimits, P2pPool, PoolOptions } from "../lib/p2p/pool/api.ts";
import { createPool, limitsForConnections } from "../lib/p2p/pool/mod.ts";
import { currentTransport } from "./net/current.ts";
import type { Endpoint, Transport } from "../lib/p2p/transport.ts";
import { SANDBOX_GENESIS } from "../lib/shell/genesis.ts";
import { type CommandLine, UsageError } from "./cli.ts";
import type { P2pConfig } from "./config.ts";
import {
  generateIdentityFile,
  generateMemoryIdentity,
  identityPath,
  type ProgressSink,
  readIdentityFile,
} from "./identity-file.ts";
import { lstat } from "node:fs/promises";

/** P2P as the node runs it. */
export interface P2pSettings {
  /** Where to listen for peers; none: outgoing connections only. */
  readonly listen: P2pPoint | undefined;
  /** Points to connect to and trust (`addr:port[#peer_id]`): the configuration file's, then `--peer`'s. */
  readonly bootstrapPeers: readonly string[];
  /** The proof-of-work difficulty asked of peers (and of a new identity). */
  readonly expectedPow: number;
  readonly privateMode: boolean;
  readonly limits: ConnectionLimits;
}

/** A configuration file without a `p2p` section. */
export const NO_P2P_CONFIG: P2pConfig = Object.freeze({ limits: Object.freeze({}) });

/** octez-node's `default_p2p_limits`, the part the pool takes. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = Object.freeze({
  minConnections: 10,
  expectedConnections: 50,
  maxConnections: 100,
  maxIncomingConnections: 20,
  connectionTimeoutMs: 10_000,
  authenticationTimeoutMs: 5_000,
});

/** The size and target of octez-node's tables of known peers and points (`max_known_peer_ids`). */
const DEFAULT_KNOWN_TARGET = 300;

/**
 * What `--connections N` sets, as octez-node: min N/2 (1 when N is 1), expected N, max 3N/2,
 * rounded down (`limitsForConnections`). (octez-node also sets its peer tables to 8N entries,
 * target 6N, and its synchronisation threshold to max(N/4, 2); this sandbox node is bootstrapped
 * from the start.)
 */
export function connectionsLimits(n: number): Pick<ConnectionLimits, "minConnections" | "expectedConnections" | "maxConnections"> {
  const { minConnections, expectedConnections, maxConnections } = limitsForConnections(n);
  return { minConnections, expectedConnections, maxConnections };
}

/** The command-line options that mean nothing without P2P. */
const P2P_ONLY_FLAGS = ["--private-mode", "--connections", "--expected-pow"] as const;

/**
 * Settles P2P from the command line (which wins) and the configuration file's `p2p` section
 * (`configFile` names it in messages), as octez-node: bootstrap peers are the file's (none
 * with `--no-bootstrap-peers`) then `--peer`'s; private mode if either says so; `--connections`
 * replaces the file's three bounds. `undefined` when P2P is off (nothing to listen on, no peer).
 * @throws {UsageError} when limits contradict each other (min > expected > max, as octez-node's
 * configuration check), or a P2P-only option is given while P2P is off.
 */
export function p2pSettings(cli: CommandLine, file: P2pConfig, configFile?: string): P2pSettings | undefined {
  const listen = cli.netAddr ?? file.listenAddr;
  const bootstrapPeers = [...(cli.noBootstrapPeers ? [] : (file.bootstrapPeers ?? [])), ...cli.peers];
  if (listen === undefined && bootstrapPeers.length === 0) {
    const flag = P2P_ONLY_FLAGS.find((f) => cli.given.has(f));
    if (flag !== undefined) throw new UsageError(`Option ${flag} needs P2P: give --net-addr ADDR:PORT (or --peer ADDR:PORT).`);
    return undefined;
  }
  const limits: ConnectionLimits = {
    ...DEFAULT_CONNECTION_LIMITS,
    ...file.limits,
    ...(cli.connections === undefined ? {} : connectionsLimits(cli.connections)),
  };
  if (cli.connections === undefined) checkFileLimits(limits, configFile ?? "");
  return {
    listen,
    bootstrapPeers,
    expectedPow: cli.expectedPow ?? file.expectedPow ?? DEFAULT_EXPECTED_POW,
    privateMode: cli.privateMode || file.privateMode === true,
    limits,
  };
}

/** octez-node's checks of the connection bounds a configuration file sets. */
function checkFileLimits(l: ConnectionLimits, configFile: string): void {
  const fail = (why: string): never => {
    throw new UsageError(`Invalid --config-file "${configFile}": ${why}.`);
  };
  if (l.minConnections > l.expectedConnections) {
    fail(
      `the minimum number of connections found in field 'p2p.limits.min-connections' (${l.minConnections}) is greater than ` +
        `the expected number of connections found in field 'p2p.limits.expected-connections' (${l.expectedConnections})`,
    );
  }
  if (l.expectedConnections > l.maxConnections) {
    fail(
      `the expected number of connections found in field 'p2p.limits.expected-connections' (${l.expectedConnections}) is greater than ` +
        `the maximum number of connections found in field 'p2p.limits.max-connections' (${l.maxConnections})`,
    );
  }
  if (l.maxConnections > DEFAULT_KNOWN_TARGET) {
    fail(
      `the maximum number of connections found in field 'p2p.limits.max-connections' (${l.maxConnections}) is greater than ` +
        `the ${DEFAULT_KNOWN_TARGET} peers the node keeps track of (octez-node's max_known_peer_ids target)`,
    );
  }
}

/**
 * The identity the node runs with, as `tezos-node run`: `<dataDir>/identity.json` when it is
 * there (checked; a warning on `progress` when its proof of work is below `expectedPow`, which
 * peers asking for it will refuse), else a new one meeting `expectedPow`, written there; with no
 * data directory (`--memory`), a new one in memory for this run.
 * @throws {IdentityFileProblem} for an unreadable or invalid file.
 */
export async function loadIdentity(
  dataDir: string | undefined,
  expectedPow: number,
  progress: ProgressSink,
  signal?: AbortSignal,
): Promise<Identity> {
  if (dataDir === undefined) return generateMemoryIdentity(expectedPow, progress, signal);
  const path = identityPath(dataDir);
  const exists = await lstat(path).then(() => true, (error: { code?: string }) => error.code !== "ENOENT");
  if (!exists) return generateIdentityFile(path, expectedPow, progress, signal);
  const identity = await readIdentityFile(path);
  if (!checkProofOfWork(identity.publicKey, identity.proofOfWorkStamp, powTarget(expectedPow))) {
    progress.write(
      `Warning: the identity in '${path}' has less proof of work than --expected-pow ${expectedPow.toFixed(2)}; ` +
        "peers that expect it will refuse this node.\n",
    );
  }
  return identity;
}

/**
 * `transport`, telling `onListen` where each listener it opens is bound: the port the system
 * picked when port 0 was asked, for the line the node prints.
 */
export function reportingListen(transport: Transport, onListen: (local: Endpoint) => void): Transport {
  return {
    bindsLocalAddress: transport.bindsLocalAddress,
    connect: (options) => transport.connect(options),
    async listen(at) {
      const listener = await transport.listen(at);
      onListen(listener.local);
      return listener;
    },
  };
}

/** The pool's options: the sandbox's chain name, these settings, this identity and transport. */
export function poolOptions(settings: P2pSettings, identity: Identity, transport: Transport, log: (line: string) => void): PoolOptions {
  return {
    transport,
    identity,
    chainName: SANDBOX_GENESIS.chainName,
    ...(settings.listen === undefined ? {} : { listen: settings.listen }),
    expectedPow: settings.expectedPow,
    bootstrapPeers: settings.bootstrapPeers,
    privateMode: settings.privateMode,
    limits: settings.limits,
    log,
  };
}

/** The pool a node runs, with its identity and, once it listens, the bound address. */
export interface NodePool {
  readonly pool: P2pPool;
  readonly identity: Identity;
  /** Where the pool listens once started (the real port when port 0 was asked); none before or without `listen`. */
  listening(): Endpoint | undefined;
}

/**
 * Loads the identity ({@link loadIdentity}) and creates the pool over the runtime's TCP, not yet
 * started. Pool log lines go to `log`.
 * @throws {IdentityFileProblem} for an unreadable or invalid identity file.
 */
export async function openPool(
  settings: P2pSettings,
  dataDir: string | undefined,
  out: { readonly progress: ProgressSink; readonly log: (line: string) => void },
  signal?: AbortSignal,
): Promise<NodePool> {
  const identity = await loadIdentity(dataDir, settings.expectedPow, out.progress, signal);
  let bound: Endpoint | undefined;
  const transport = reportingListen(await currentTransport(), (local) => (bound = local));
  const pool = await createPool(poolOptions(settings, identity, transport, out.log));
  return { pool, identity, listening: () => bound };
}

/**
 * The line the node prints once P2P runs: `P2P listening on 127.0.0.1:9732 (peer id id…)`, or,
 * without an address to listen on, `P2P without listening, connecting to 127.0.0.1:9732 (peer id id…)`.
 */
export function p2pLine(settings: P2pSettings, p2p: NodePool): string {
  const at = p2p.listening();
  if (at !== undefined) return `P2P listening on ${formatPoint(at)} (peer id ${p2p.identity.peerId})`;
  return `P2P without listening, connecting to ${settings.bootstrapPeers.join(", ")} (peer id ${p2p.identity.peerId})`;
}
