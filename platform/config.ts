/**
 * Octez-style configuration files (`--config-file`, as `tezos-node run --config-file`): the
 * fields this node reads, checked, as a pure function of the file's text ({@link parseConfigFile};
 * {@link readConfigFile} reads the file first). Unknown fields are refused rather than ignored, so
 * that nothing a user writes is silently without effect.
 *
 * ```json
 * { "data-dir": "/var/tezos",
 *   "rpc": { "listen-addrs": ["0.0.0.0:8732"], "cors-origin": ["*"], "cors-headers": ["content-type"],
 *            "acl": [{ "address": "0.0.0.0:8732", "blacklist": ["POST /injection/block"] }] },
 *   "p2p": { "listen-addr": "127.0.0.1:19732", "bootstrap-peers": ["127.0.0.1:19733"],
 *            "expected-proof-of-work": 0, "private-mode": true,
 *            "limits": { "min-connections": 1, "expected-connections": 2, "max-connections": 3 } },
 *   "shell": { "history_mode": { "rolling": { "additional_cycles": 2 } },
 *              "chain_validator": { "synchronisation_threshold": 2, "latency": 150 } } }
 * ```
 * @module
 */
import { readFile } from "node:fs/promises";
import type { P2pPoint } from "../lib/p2p/encoding/point.ts";
import { type AclEntry, parseAclPolicy } from "../lib/rpc/acl.ts";
import { type HistoryMode, historyModeFromJson } from "../lib/shell/history-mode.ts";
import { parseExpectedPow, parseNetAddr, parsePeer, parseRpcAddr, type RpcAddr, UsageError } from "./cli.ts";

/** What a configuration file sets. */
export interface ConfigFile {
  readonly dataDir?: string;
  readonly rpcAddrs?: readonly RpcAddr[];
  readonly acl: readonly AclEntry[];
  readonly corsOrigins?: readonly string[];
  readonly corsHeaders?: readonly string[];
  /** `rpc.acl` as written, for `/config`. */
  readonly aclJson?: readonly unknown[];
  /** What the `p2p` section sets. */
  readonly p2p: P2pConfig;
  /** What the `shell` section sets. */
  readonly shell: ShellConfig;
}

/**
 * The `shell` section (Octez's `shell`): the history mode and the chain validator's
 * synchronisation heuristic, each only when the file sets it. Octez's other shell limits
 * (`peer_validator`, `block_validator`, `prevalidator`) are refused: this node has its own.
 */
export interface ShellConfig {
  readonly historyMode?: HistoryMode;
  readonly synchronisationThreshold?: number;
  readonly syncLatency?: number;
}

/** The `p2p` section: each field only when the file sets it. */
export interface P2pConfig {
  readonly listenAddr?: P2pPoint;
  /** Points in Octez's canonical form (`addr:port[#peer_id]`). */
  readonly bootstrapPeers?: readonly string[];
  readonly expectedPow?: number;
  readonly privateMode?: boolean;
  readonly limits: LimitsConfig;
}

/** The `p2p.limits` fields this node reads (times in milliseconds). */
export interface LimitsConfig {
  readonly minConnections?: number;
  readonly expectedConnections?: number;
  readonly maxConnections?: number;
  readonly maxIncomingConnections?: number;
  readonly connectionTimeoutMs?: number;
  readonly authenticationTimeoutMs?: number;
}

const TOP = new Set(["data-dir", "rpc", "p2p", "shell"]);
const SHELL = new Set(["history_mode", "chain_validator"]);
const RPC = new Set(["listen-addrs", "acl", "cors-origin", "cors-headers"]);
const P2P = new Set(["listen-addr", "bootstrap-peers", "expected-proof-of-work", "private-mode", "limits"]);
/** `p2p.limits` counts: Octez's JSON name, ours, and the largest value its encoding takes (uint16, uint8). */
const COUNTS = [
  ["min-connections", "minConnections", 65535],
  ["expected-connections", "expectedConnections", 65535],
  ["max-connections", "maxConnections", 65535],
  ["max-incoming-connections", "maxIncomingConnections", 255],
] as const;
/** `p2p.limits` delays, in seconds in the file (Octez's `Time.System.Span`). */
const DELAYS = [
  ["connection-timeout", "connectionTimeoutMs"],
  ["authentication-timeout", "authenticationTimeoutMs"],
] as const;
const LIMITS = new Set<string>([...COUNTS.map(([k]) => k), ...DELAYS.map(([k]) => k)]);

/** Reads and checks a configuration file; a UsageError naming the file (and the field) for anything wrong. */
export async function readConfigFile(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const reason = (error as { code?: string }).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new UsageError(`Cannot read --config-file "${path}": ${reason}.`);
  }
  return parseConfigFile(text, path);
}

/** Reads a configuration file's text; a UsageError naming the file and the field for anything wrong. */
export function parseConfigFile(text: string, path: string): ConfigFile {
  const fail = (why: string): never => {
    throw new UsageError(`Invalid --config-file "${path}": ${why}.`);
  };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return fail(`not JSON (${(e as Error).message})`);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) return fail("expected a JSON object");
  const top = json as Record<string, unknown>;
  for (const k of Object.keys(top)) if (!TOP.has(k)) fail(`unknown or unsupported field "${k}" (this node reads ${[...TOP].join(", ")})`);
  const dataDir = top["data-dir"];
  if (dataDir !== undefined && (typeof dataDir !== "string" || dataDir === "")) fail(`"data-dir" must be a non-empty string`);
  const rpc = top["rpc"] ?? {};
  if (rpc === null || typeof rpc !== "object" || Array.isArray(rpc)) return fail(`"rpc" must be an object`);
  const r = rpc as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!RPC.has(k)) fail(`unknown or unsupported field "rpc.${k}" (this node reads rpc.${[...RPC].join(", rpc.")})`);
  const strings = (name: string): string[] | undefined => {
    const v = r[name];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string" && x !== "")) fail(`"rpc.${name}" must be a list of non-empty strings`);
    return v as string[];
  };
  const listen = strings("listen-addrs");
  let acl: AclEntry[] = [];
  if (r["acl"] !== undefined) {
    try {
      acl = parseAclPolicy(r["acl"]);
    } catch (e) {
      fail((e as Error).message);
    }
  }
  const origins = strings("cors-origin");
  const headers = strings("cors-headers");
  return {
    ...(typeof dataDir === "string" ? { dataDir } : {}),
    ...(listen === undefined ? {} : { rpcAddrs: listen.map(parseRpcAddr) }),
    acl,
    ...(r["acl"] === undefined ? {} : { aclJson: r["acl"] as unknown[] }),
    ...(origins === undefined ? {} : { corsOrigins: origins }),
    ...(headers === undefined ? {} : { corsHeaders: headers }),
    p2p: parseP2pSection(top["p2p"], fail),
    shell: parseShellSection(top["shell"], fail),
  };
}

/**
 * The `shell` section with Octez's encodings: `history_mode` as `/config/history_mode` shows it
 * ("archive", "full", "rolling", or `{"full"|"rolling": {"additional_cycles": N}}`), and
 * `chain_validator` as `{synchronisation_threshold (uint8), latency (uint16)}` or the
 * deprecated `{bootstrap_threshold}`; `fail` for anything else.
 */
function parseShellSection(section: unknown, fail: (why: string) => never): ShellConfig {
  if (section === undefined) return {};
  if (section === null || typeof section !== "object" || Array.isArray(section)) return fail(`"shell" must be an object`);
  const sh = section as Record<string, unknown>;
  for (const k of Object.keys(sh)) if (!SHELL.has(k)) fail(`unknown or unsupported field "shell.${k}" (this node reads shell.${[...SHELL].join(", shell.")})`);
  const out: { -readonly [K in keyof ShellConfig]: ShellConfig[K] } = {};
  if (sh["history_mode"] !== undefined) {
    const mode = historyModeFromJson(sh["history_mode"]);
    if (mode === undefined) fail(`"shell.history_mode" must be "archive", "full", "rolling" or {"full"|"rolling": {"additional_cycles": N}}`);
    out.historyMode = mode;
  }
  const cv = sh["chain_validator"];
  if (cv !== undefined) {
    if (cv === null || typeof cv !== "object" || Array.isArray(cv)) return fail(`"shell.chain_validator" must be an object`);
    const c = cv as Record<string, unknown>;
    const legacy = Object.keys(c).length === 1 && c["bootstrap_threshold"] !== undefined;
    for (const k of Object.keys(c)) {
      if (!legacy && k !== "synchronisation_threshold" && k !== "latency") fail(`unknown or unsupported field "shell.chain_validator.${k}" (this node reads synchronisation_threshold and latency, or the deprecated bootstrap_threshold alone)`);
    }
    const int = (name: string, max: number): number | undefined => {
      const v = c[name];
      if (v === undefined) return undefined;
      if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > max) fail(`"shell.chain_validator.${name}" must be an integer from 0 to ${max}`);
      return v as number;
    };
    const threshold = legacy ? int("bootstrap_threshold", 255) : int("synchronisation_threshold", 255);
    const latency = int("latency", 65535);
    if (threshold !== undefined) out.synchronisationThreshold = threshold;
    if (latency !== undefined) out.syncLatency = latency;
  }
  return out;
}

/** The `p2p` section, with Octez's types and bounds; `fail` for anything wrong. */
function parseP2pSection(section: unknown, fail: (why: string) => never): P2pConfig {
  if (section === undefined) return { limits: {} };
  const object = (v: unknown, name: string): Record<string, unknown> => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return fail(`"${name}" must be an object`);
    return v as Record<string, unknown>;
  };
  const p = object(section, "p2p");
  for (const k of Object.keys(p)) if (!P2P.has(k)) fail(`unknown or unsupported field "p2p.${k}" (this node reads p2p.${[...P2P].join(", p2p.")})`);
  // Addresses and numbers are read by the command line's parsers; their message names the field.
  const within = <T>(read: () => T): T => {
    try {
      return read();
    } catch (e) {
      return fail((e as Error).message.replace(/^Invalid /, "").replace(/\.$/, ""));
    }
  };
  const out: { -readonly [K in keyof P2pConfig]: P2pConfig[K] } = { limits: {} };
  const listen = p["listen-addr"];
  if (listen !== undefined) {
    if (typeof listen !== "string") fail(`"p2p.listen-addr" must be a string`);
    out.listenAddr = within(() => parseNetAddr(listen as string, "p2p.listen-addr"));
  }
  const peers = p["bootstrap-peers"];
  if (peers !== undefined) {
    if (!Array.isArray(peers) || !peers.every((x) => typeof x === "string")) fail(`"p2p.bootstrap-peers" must be a list of strings`);
    out.bootstrapPeers = (peers as string[]).map((text, i) => within(() => parsePeer(text, `p2p.bootstrap-peers[${i}]`)));
  }
  const pow = p["expected-proof-of-work"];
  if (pow !== undefined) {
    if (typeof pow !== "number") fail(`"p2p.expected-proof-of-work" must be a number`);
    out.expectedPow = within(() => parseExpectedPow(String(pow), "p2p.expected-proof-of-work"));
  }
  const privateMode = p["private-mode"];
  if (privateMode !== undefined) {
    if (typeof privateMode !== "boolean") fail(`"p2p.private-mode" must be true or false`);
    out.privateMode = privateMode as boolean;
  }
  if (p["limits"] !== undefined) {
    const l = object(p["limits"], "p2p.limits");
    for (const k of Object.keys(l)) {
      if (!LIMITS.has(k)) fail(`unknown or unsupported field "p2p.limits.${k}" (this node reads p2p.limits.${[...LIMITS].join(", p2p.limits.")})`);
    }
    const limits: { -readonly [K in keyof LimitsConfig]: LimitsConfig[K] } = {};
    for (const [name, key, max] of COUNTS) {
      const v = l[name];
      if (v === undefined) continue;
      if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > max) fail(`"p2p.limits.${name}" must be a whole number from 0 to ${max}`);
      limits[key] = v as number;
    }
    for (const [name, key] of DELAYS) {
      const v = l[name];
      if (v === undefined) continue;
      if (typeof v !== "number" || !(v > 0) || v > 86_400) fail(`"p2p.limits.${name}" must be a number of seconds, more than 0 and at most 86400`);
      limits[key] = Math.round((v as number) * 1000);
    }
    out.limits = limits;
  }
  return out;
}
