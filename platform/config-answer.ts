/**
 * What `GET /config` answers for a node started from the command line: the settings it runs with,
 * in the shape of Octez's configuration file (`Node_config_file.encoding`), a field left out where
 * it has octez-node's default, as data-encoding writes a `dft` field. As octez-node after the
 * command line: `rpc.listen-addrs` and `p2p.bootstrap-peers` are always there, and once any
 * connection limit differs from the defaults, `p2p.limits` also carries `connection-timeout`
 * (Octez's default for that field is the authentication timeout, 5 s) and the known-peer tables.
 *
 * Beyond octez-node: `data-dir` is absent with `--memory`; `p2p` is `{}` when P2P is off (no
 * address to listen on, no bootstrap peer); `shell.chain_validator.synchronisation_threshold` is 0
 * unless `--synchronisation-threshold` says otherwise, since the sandbox node is bootstrapped from
 * the start (Octez's default, 4, is left out as Octez leaves it out; so is a latency of 150 s).
 *
 * @example
 * ```ts
 * configAnswer(commandLine, configFile, p2pSettings(commandLine, p2pConfig));
 * // { "data-dir": "./tezos-node-data", rpc: { "listen-addrs": ["127.0.0.1:8732"] }, p2p: {}, shell: {...}, network: "sandbox" }
 * ```
 * @module
 */
import type { Json } from "../lib/encoding/codec.ts";
import { formatPoint } from "../lib/p2p/encoding/point.ts";
import type { ConnectionLimits } from "../lib/p2p/pool/api.ts";
import type { NodeConfig } from "../lib/rpc/services/config.ts";
import type { CommandLine } from "./cli.ts";
import type { ConfigFile } from "./config.ts";
import { DEFAULT_CONNECTION_LIMITS, type P2pSettings } from "./p2p.ts";
import { DEFAULT_EXPECTED_POW } from "../lib/p2p/identity.ts";
import { chainValidatorSection } from "../lib/rpc/services/config.ts";
import { historyModeToJson } from "../lib/shell/history-mode.ts";
import { DEFAULT_SYNC_LATENCY, SANDBOX_SYNC_THRESHOLD } from "../lib/shell/sync-heuristic.ts";

/** The known-peer and known-point tables the pool keeps: (size, target), octez-node's defaults. */
const KNOWN_TABLE: readonly [number, number] = [400, 300];
/** octez-node's `dft` default of `connection-timeout` (its `authentication_timeout`, sic). */
const CONNECTION_TIMEOUT_FIELD_DEFAULT_MS = 5_000;

/** The configuration `/config` answers, from the merged command line, the configuration file and the P2P settings. */
export function configAnswer(options: CommandLine, file: ConfigFile | undefined, p2p: P2pSettings | undefined): NodeConfig {
  const out: Record<string, Json> = {};
  if (options.dataDir !== undefined) out["data-dir"] = options.dataDir;
  out["rpc"] = rpcSection(options, file);
  out["p2p"] = p2p === undefined ? {} : p2pSection(p2p);
  const shell: Record<string, Json> = {};
  const chainValidator = chainValidatorSection(options.synchronisationThreshold ?? SANDBOX_SYNC_THRESHOLD, options.syncLatency ?? DEFAULT_SYNC_LATENCY);
  if (chainValidator !== undefined) shell["chain_validator"] = chainValidator;
  if (options.historyMode !== undefined) shell["history_mode"] = historyModeToJson(options.historyMode);
  if (Object.keys(shell).length > 0) out["shell"] = shell;
  out["network"] = "sandbox";
  return out;
}

function hostPort(host: string, port: number | undefined): string {
  const h = host.includes(":") ? `[${host}]` : host;
  return port === undefined ? h : `${h}:${port}`;
}

function rpcSection(options: CommandLine, file: ConfigFile | undefined): Json {
  const rpc: Record<string, Json> = { "listen-addrs": options.rpcAddrs.map((a) => hostPort(a.hostname, a.port)) };
  if (options.cors.origins.length > 0) rpc["cors-origin"] = [...options.cors.origins];
  if (options.cors.headers.length > 0) rpc["cors-headers"] = [...options.cors.headers];
  // --allow-all-rpc addresses first (Octez puts them in front of the file's policy), as Octez's allow_all.
  const acl: Json[] = [
    ...options.allowAllRpc.map(({ address, port }) => ({ address: hostPort(address, port), blacklist: [] })),
    ...((file?.aclJson ?? []) as Json[]),
  ];
  if (acl.length > 0) rpc["acl"] = acl;
  return rpc;
}

function p2pSection(p2p: P2pSettings): Json {
  const out: Record<string, Json> = {};
  if (p2p.expectedPow !== DEFAULT_EXPECTED_POW) out["expected-proof-of-work"] = p2p.expectedPow;
  out["bootstrap-peers"] = [...p2p.bootstrapPeers];
  if (p2p.listen !== undefined) out["listen-addr"] = formatPoint(p2p.listen);
  if (p2p.privateMode) out["private-mode"] = true;
  const limits = limitsSection(p2p.limits);
  if (limits !== undefined) out["limits"] = limits;
  return out;
}

/** The `limits` object, or undefined when every limit is octez-node's default (the field is left out). */
function limitsSection(l: ConnectionLimits): Json | undefined {
  const d = DEFAULT_CONNECTION_LIMITS;
  const keys = Object.keys(d) as (keyof ConnectionLimits)[];
  if (keys.every((k) => l[k] === d[k])) return undefined;
  const out: Record<string, Json> = {};
  if (l.connectionTimeoutMs !== CONNECTION_TIMEOUT_FIELD_DEFAULT_MS) out["connection-timeout"] = l.connectionTimeoutMs / 1000;
  if (l.authenticationTimeoutMs !== d.authenticationTimeoutMs) out["authentication-timeout"] = l.authenticationTimeoutMs / 1000;
  if (l.minConnections !== d.minConnections) out["min-connections"] = l.minConnections;
  if (l.expectedConnections !== d.expectedConnections) out["expected-connections"] = l.expectedConnections;
  if (l.maxConnections !== d.maxConnections) out["max-connections"] = l.maxConnections;
  if (l.maxIncomingConnections !== d.maxIncomingConnections) out["max-incoming-connections"] = l.maxIncomingConnections;
  out["max_known_points"] = [...KNOWN_TABLE];
  out["max_known_peer_ids"] = [...KNOWN_TABLE];
  return out;
}
