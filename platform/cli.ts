/**
 * The node's command line, in octez-node's style (`--rpc-addr`, `--data-dir`, `--history-mode`,
 * `--cors-origin`, ...), as a pure function from the argument list to options: no runtime API,
 * no I/O, so each runtime's entry point shares it and tests call it directly. It is what an entry
 * point loads before anything else (`--help` and a bad option are answered from it alone), so it
 * and what it imports stay light: no schema library, no cryptography, no codec.
 *
 * @example
 * ```ts
 * const args = parseArgs(["--rpc-addr", "127.0.0.1:18732", "--memory"]);
 * if (!args.help) console.log(args.options.rpcAddr.port); // 18732
 * ```
 * @module
 */
import type { BakeMode } from "../lib/node.ts";
import { type HistoryMode, parseHistoryMode as parseMode } from "../lib/shell/history-mode.ts";
import { isLogLevel, type LogLevel } from "../lib/log.ts";
import { parseEndpoint } from "../lib/rpc/acl.ts";
import { formatPoint, isPeerId, type P2pPoint, parseIpAddress, parsePoint } from "../lib/p2p/encoding/point-text.ts";
import { findBootstrapAccount, unknownBakerKeyMessage } from "../lib/baker/bootstrap-accounts.ts";
import { MAX_SYNC_LATENCY, MAX_SYNC_THRESHOLD } from "../lib/shell/sync-heuristic.ts";
import type { LogFormat } from "./log-format.ts";
import type { ServeLimits } from "./serve.ts";

/** Where the RPC server listens by default, as octez-node. */
export const DEFAULT_RPC_ADDR = "127.0.0.1:8732";
/** The data directory by default, relative to the working directory. */
export const DEFAULT_DATA_DIR = "./tezos-node-data";
/** The P2P port when an address names none, as octez-node. */
export const DEFAULT_P2P_PORT = 9732;
/** The most `--connections` allows, as octez-node (a configuration file's `p2p.limits` may set more). */
export const MAX_CONNECTIONS_OPTION = 100;

/** What the command line asks for. */
export interface CommandLine {
  /** Interfaces and ports of the RPC servers (one each); port 0 picks a free one. */
  readonly rpcAddrs: readonly RpcAddr[];
  /** Listening addresses (and ports) where every RPC is allowed, whatever Octez's default ACL. */
  readonly allowAllRpc: readonly { readonly address: string; readonly port: number | undefined }[];
  /** Path of an Octez-style configuration file, if given. */
  readonly configFile: string | undefined;
  /** Data directory as given (relative paths are relative to the working directory); absent with `--memory`. */
  readonly dataDir: string | undefined;
  /** Sandbox baker mode. */
  readonly bake: BakeMode;
  /** The bootstrap accounts the baker bakes and endorses for (`--baker-keys`, names or tz1 addresses); all five when absent. */
  readonly bakerKeys: readonly string[] | undefined;
  /** Whether to activate the protocol at first start. */
  readonly activate: boolean;
  /** `--history-mode` (archive, full[:N], rolling[:N]); absent: the data directory's own, full for a new one. */
  readonly historyMode: HistoryMode | undefined;
  /** Switch an existing data directory to `historyMode` where Octez allows it (`--force-history-mode-switch`). */
  readonly forceHistoryModeSwitch: boolean;
  /** Allowed CORS origins and extra allowed headers, in the order given. */
  readonly cors: { readonly origins: readonly string[]; readonly headers: readonly string[] };
  /** Path of a JSON file of protocol parameters for the activation, if given. */
  readonly protocolParameters: string | undefined;
  /** The largest RPC request body, in bytes (`--max-request-body`); the node's default when absent. */
  readonly maxRequestBody: number | undefined;
  /** The work budget of one RPC call, in milliseconds (`--rpc-work-budget SECONDS`); the node's default when absent. */
  readonly rpcWorkBudget: number | undefined;
  /** Limits of the RPC servers (`--max-active-rpc-connections`, …); the adapters' defaults where absent. */
  readonly serveLimits: ServeLimits;
  /** Where to listen for peers (`--net-addr`): a loopback or private address, as octez-node's sandbox. */
  readonly netAddr: P2pPoint | undefined;
  /** Points to connect to and trust (`--peer`), as `addr:port` or `addr:port#peer_id`, in the order given. */
  readonly peers: readonly string[];
  /** `--no-bootstrap-peers`: leave out the configuration file's bootstrap peers. */
  readonly noBootstrapPeers: boolean;
  /** `--private-mode`: only trusted points, and this node's address is not advertised. */
  readonly privateMode: boolean;
  /** `--connections N`: the expected number of connections (min N/2, max 3N/2). */
  readonly connections: number | undefined;
  /** `--expected-pow`: the proof-of-work difficulty asked of peers and of a new identity. */
  readonly expectedPow: number | undefined;
  /** `--synchronisation-threshold N` (or the deprecated `--bootstrap-threshold N`): peers to be in step with to be bootstrapped. */
  readonly synchronisationThreshold: number | undefined;
  /** `--sync-latency SECONDS`: how old the block of a peer in step may be. */
  readonly syncLatency: number | undefined;
  /** `--log-level` (or `-v`: debug): the least severe log records written on stderr; info by default. */
  readonly logLevel: LogLevel;
  /** `--log-format`: text lines for a terminal (default) or one JSON object per line. */
  readonly logFormat: LogFormat;
  /** `--print-protocol-parameters`: print the protocol parameters (the file's over the defaults) and exit. */
  readonly printProtocolParameters: boolean;
  /** `--load-state FILE`: start from this state file (a snapshot), imported before the node starts. */
  readonly loadState: string | undefined;
  /** `--dump-state FILE`: write the chain's state (a snapshot) to this file at exit. */
  readonly dumpState: string | undefined;
  /** The options the command line gave (the others have their defaults; a config file may set them). */
  readonly given: ReadonlySet<string>;
}

/** Where an RPC server listens. */
export interface RpcAddr {
  readonly hostname: string;
  readonly port: number;
}

/** Result of `parseArgs`: either a request for the help text or the options to run with. */
export type ParsedArgs = { readonly help: true } | { readonly help: false; readonly options: CommandLine };

/** A command line that cannot be run; its message is meant for the user as is. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The `--help` text. */
export const HELP = `Usage: tezos-node [OPTIONS]

Runs a Tezos sandbox node (protocol 011 Hangzhou) serving the Octez RPC interface over HTTP.

Options:
  --rpc-addr HOST:PORT       Listen for RPC on HOST:PORT (default ${DEFAULT_RPC_ADDR}; port 0 picks
                             a free port; IPv6 as [::1]:8732). The port may be left out (8732).
                             Repeatable: one server per address. On a loopback address every RPC
                             is allowed; on any other (0.0.0.0 included) only Octez's safe list.
  --allow-all-rpc ADDR:PORT  Allow every RPC on that listening address. Repeatable.
  --config-file FILE         Octez-style configuration: data-dir, rpc.listen-addrs, rpc.acl,
                             rpc.cors-origin, rpc.cors-headers, p2p.listen-addr,
                             p2p.bootstrap-peers, p2p.expected-proof-of-work, p2p.private-mode,
                             p2p.limits, shell.history_mode, shell.chain_validator.
                             Command-line options win.
  --max-request-body BYTES   Largest RPC request body read (default 8388608); larger: 413.
  --rpc-work-budget SECONDS  Work one RPC call may take (default 5): Michelson runs and rights
                             past it answer node.rpc.work_budget_exceeded.
  --max-active-rpc-connections N
                             Open RPC connections at once (default 1024); one more is refused.
                             Bun counts requests in flight instead (it shows no connections).
  --max-rpc-streams N        Monitor streams open at once (default 256); one more answers 503.
  --rpc-headers-timeout SECONDS
                             Time a client has to send its request head (default 10); 0: none.
                             Not under Bun, which fixes it at about 10 s.
  --rpc-idle-timeout SECONDS Time an idle kept-alive connection stays open (default 60); 0: none.
  --max-rpc-url-length BYTES Longest request URL (default 16384); longer: 414.
  --data-dir DIR             Keep the chain in DIR (default ${DEFAULT_DATA_DIR}). One process per
                             data directory: a second one exits with an error.
  --memory                   Keep everything in memory; no data directory.
  --load-state FILE          Start from a state file (GET /sandbox/state, --dump-state, snapshot
                             export): imported into the data directory (or memory) first. A data
                             directory holding another chain is refused.
  --dump-state FILE          Write the chain's state at its head to FILE at exit (SIGINT,
                             SIGTERM), once the baker stopped; FILE is replaced atomically.
  --history-mode MODE        archive, full[:N] or rolling[:N] (default: the data directory's;
                             full, with 5 additional cycles, for a new one).
                             full drops block metadata below the savepoint, rolling also the
                             blocks below the caboose; N: additional cycles kept (0 to 1000).
  --force-history-mode-switch
                             Switch an existing data directory to --history-mode: archive to
                             full or rolling, full to rolling, or another N in the same mode.
  --bake MODE                auto (a block as soon as an operation is applied; default),
                             manual (only on request), or interval:<seconds>.
  --baker-keys KEYS          The sandbox accounts the baker bakes and endorses for, comma-
                             separated: bootstrap1 ... bootstrap5 or their tz1 addresses (default
                             all five). With some of them, blocks are baked at their slots only.
  --no-activate              Do not activate the protocol at first start; wait for an
                             activation block to be injected.
  --protocol-parameters FILE Protocol parameters for the activation: a JSON file in Octez's
                             sandbox-parameters.json format; the fields it leaves out keep
                             their sandbox defaults.
  --print-protocol-parameters
                             Print the protocol parameters the node activates with (the sandbox
                             defaults, or --protocol-parameters FILE over them) as a complete
                             JSON file to edit, and exit.
  --cors-origin ORIGIN       Allow cross-origin requests from ORIGIN (* for any). Repeatable.
  --cors-header HEADER       Allow HEADER in cross-origin requests. Repeatable.
  --log-level LEVEL          Log error, warn, info (default) or debug records on stderr.
  -v                         Same as --log-level debug.
  --log-format FORMAT        text (default: one line per event, for a terminal) or json (one
                             object per line: time, level, event and the event's fields).
  -h, --help                 Print this text and exit.

P2P options (the node talks to peers only with --net-addr or --peer):
  --net-addr ADDR:PORT       Listen for peers on ADDR:PORT (port 9732 when left out). As octez-node's
                             sandbox, only a loopback or private address: 127.0.0.0/8, ::1,
                             10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7.
  --peer ADDR:PORT[#ID]      Connect to this peer and trust it; with #ID, only if it has that
                             peer id. Repeatable. Without --net-addr the node connects out only.
  --no-bootstrap-peers       Leave out the configuration file's bootstrap peers.
  --private-mode             Only connect to and accept trusted peers (--peer, bootstrap peers);
                             they do not advertise this node.
  --connections N            Expected number of connections (default 50): min N/2, max 3N/2.
                             At most 100.
  --expected-pow FLOAT       Proof-of-work difficulty asked of peers and of a new identity
                             (default 26; 0 for tests), from 0 to 256.
  --synchronisation-threshold N
                             Peers the node must be in step with to be bootstrapped, 0 to 255
                             (default 0: bootstrapped at once, as Octez's sandbox; Octez's own
                             default is 4).
  --bootstrap-threshold N    Deprecated name of --synchronisation-threshold (as octez-node).
  --sync-latency SECONDS     How old, at most, the head of a peer in step may be, 0 to 65535
                             (default 150).

Other commands:
  identity generate [DIFFICULTY]  Create <data-dir>/identity.json (never overwrites one).
  identity show                   Print the peer id of <data-dir>/identity.json.
  identity check [DIFFICULTY]     Check the identity's proof of work against DIFFICULTY.
                                  Each takes --data-dir DIR and --config-file FILE.
`;

type FlagName =
  | "--rpc-addr" | "--allow-all-rpc" | "--config-file" | "--max-request-body" | "--rpc-work-budget"
  | "--max-active-rpc-connections" | "--max-rpc-streams" | "--rpc-headers-timeout" | "--rpc-idle-timeout" | "--max-rpc-url-length" | "--data-dir" | "--memory" | "--history-mode" | "--force-history-mode-switch" | "--bake" | "--no-activate"
  | "--protocol-parameters" | "--cors-origin" | "--cors-header" | "--help"
  | "--net-addr" | "--peer" | "--no-bootstrap-peers" | "--private-mode" | "--connections" | "--expected-pow"
  | "--baker-keys" | "--synchronisation-threshold" | "--bootstrap-threshold" | "--sync-latency"
  | "--log-level" | "-v" | "--log-format" | "--print-protocol-parameters" | "--load-state" | "--dump-state";

/** Each flag: the placeholder of its value (none for switches) and whether it may repeat. */
const FLAGS: Readonly<Record<FlagName, { value?: string; repeat?: true }>> = {
  "--rpc-addr": { value: "HOST:PORT", repeat: true },
  "--allow-all-rpc": { value: "ADDR:PORT", repeat: true },
  "--config-file": { value: "FILE" },
  "--max-request-body": { value: "BYTES" },
  "--rpc-work-budget": { value: "SECONDS" },
  "--max-active-rpc-connections": { value: "N" },
  "--max-rpc-streams": { value: "N" },
  "--rpc-headers-timeout": { value: "SECONDS" },
  "--rpc-idle-timeout": { value: "SECONDS" },
  "--max-rpc-url-length": { value: "BYTES" },
  "--data-dir": { value: "DIR" },
  "--memory": {},
  "--history-mode": { value: "MODE" },
  "--bake": { value: "MODE" },
  "--no-activate": {},
  "--force-history-mode-switch": {},
  "--protocol-parameters": { value: "FILE" },
  "--cors-origin": { value: "ORIGIN", repeat: true },
  "--cors-header": { value: "HEADER", repeat: true },
  "--help": {},
  "--net-addr": { value: "ADDR:PORT" },
  "--peer": { value: "ADDR:PORT[#ID]", repeat: true },
  "--no-bootstrap-peers": {},
  "--private-mode": {},
  "--connections": { value: "N" },
  "--expected-pow": { value: "FLOAT" },
  "--baker-keys": { value: "KEYS" },
  "--synchronisation-threshold": { value: "N" },
  "--bootstrap-threshold": { value: "N" },
  "--sync-latency": { value: "SECONDS" },
  "--log-level": { value: "LEVEL" },
  "-v": {},
  "--log-format": { value: "FORMAT" },
  "--print-protocol-parameters": {},
  "--load-state": { value: "FILE" },
  "--dump-state": { value: "FILE" },
};

/** Short options and the long ones they stand for. */
const SHORT: Readonly<Record<string, FlagName | "--help">> = { "-h": "--help", "-v": "-v" };

const LOG_FORMATS: readonly LogFormat[] = ["text", "json"];

/** A port text (up to five digits, at most 65535), or undefined. */
function portOf(text: string): number | undefined {
  const n = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  return n <= 65535 ? n : undefined;
}

/** A positive number of seconds (digits, an optional fraction), or undefined. */
function secondsOf(text: string): number | undefined {
  const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  return n > 0 ? n : undefined;
}

/**
 * Parses the arguments that follow the program name.
 * @throws {UsageError} on an unknown option, a missing or bad value, or conflicting options.
 */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const seen = new Map<FlagName, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (/^-v{2,}$/.test(arg)) throw new UsageError(`Option ${arg} is not supported: -v already writes every log record (--log-level debug).`);
    if (/^-[^-]/.test(arg)) {
      if (!Object.hasOwn(SHORT, arg)) throw new UsageError(`Unknown option "${arg}".`);
      if (SHORT[arg] === "--help") return { help: true };
    } else if (!arg.startsWith("--")) {
      throw new UsageError(`Unexpected argument "${arg}".`);
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (!Object.hasOwn(FLAGS, name)) throw new UsageError(`Unknown option "${name}".`);
    const flag = name as FlagName;
    if (flag === "--help") return { help: true };
    const spec = FLAGS[flag];
    let value = "";
    if (spec.value === undefined) {
      if (eq >= 0) throw new UsageError(`Option ${flag} takes no value.`);
    } else if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith("-") && next.length > 1 && !/^-\d/.test(next))) {
        throw new UsageError(`Option ${flag} needs a value (${spec.value}).`);
      }
      value = next;
      i++;
    }
    const values = seen.get(flag) ?? [];
    if (values.length > 0 && !spec.repeat) throw new UsageError(`Option ${flag} is given more than once.`);
    values.push(value);
    seen.set(flag, values);
  }
  const one = (flag: FlagName) => seen.get(flag)?.[0];
  const memory = seen.has("--memory");
  const dataDir = one("--data-dir");
  if (memory && dataDir !== undefined) throw new UsageError("Options --memory and --data-dir cannot be used together.");
  if (dataDir === "") throw new UsageError(`Invalid --data-dir "": expected a directory path.`);
  const protocolParameters = one("--protocol-parameters");
  if (protocolParameters === "") throw new UsageError(`Invalid --protocol-parameters "": expected a file path.`);
  if (seen.has("--bootstrap-threshold") && seen.has("--synchronisation-threshold")) {
    // octez-node's words
    throw new UsageError("--bootstrap-threshold is deprecated; use --synchronisation-threshold instead. Do not use both at the same time.");
  }
  const thresholdFlag = seen.has("--bootstrap-threshold") ? "--bootstrap-threshold" : "--synchronisation-threshold";
  if (seen.has("-v") && seen.has("--log-level")) throw new UsageError("Options -v and --log-level cannot be used together.");
  // (with --config-file, its shell.history_mode may name the mode: checked once the file is read)
  if (seen.has("--force-history-mode-switch") && !seen.has("--history-mode") && !seen.has("--config-file")) {
    throw new UsageError("Option --force-history-mode-switch needs --history-mode: the mode to switch to.");
  }
  return {
    help: false,
    options: {
      rpcAddrs: (seen.get("--rpc-addr") ?? [DEFAULT_RPC_ADDR]).map(parseRpcAddr),
      allowAllRpc: (seen.get("--allow-all-rpc") ?? []).map((text) => {
        try {
          return parseEndpoint(text, "--allow-all-rpc");
        } catch {
          throw new UsageError(`Invalid --allow-all-rpc "${text}": expected ADDR or ADDR:PORT.`);
        }
      }),
      configFile: nonEmpty("--config-file", seen.get("--config-file") ?? [])[0],
      dataDir: memory ? undefined : (dataDir ?? DEFAULT_DATA_DIR),
      bake: parseBake(one("--bake") ?? "auto"),
      bakerKeys: mapDefined(one("--baker-keys"), parseBakerKeys),
      activate: !seen.has("--no-activate"),
      historyMode: seen.has("--history-mode") ? parseHistoryMode(one("--history-mode")!) : undefined,
      forceHistoryModeSwitch: seen.has("--force-history-mode-switch"),
      cors: {
        origins: nonEmpty("--cors-origin", seen.get("--cors-origin") ?? []),
        headers: nonEmpty("--cors-header", seen.get("--cors-header") ?? []),
      },
      protocolParameters,
      maxRequestBody: parseBytes("--max-request-body", one("--max-request-body")),
      rpcWorkBudget: parseBudget(one("--rpc-work-budget")),
      serveLimits: parseServeLimits(one),
      netAddr: mapDefined(one("--net-addr"), (text) => parseNetAddr(text, "--net-addr")),
      peers: (seen.get("--peer") ?? []).map((text) => parsePeer(text, "--peer")),
      noBootstrapPeers: seen.has("--no-bootstrap-peers"),
      privateMode: seen.has("--private-mode"),
      connections: mapDefined(one("--connections"), parseConnections),
      expectedPow: mapDefined(one("--expected-pow"), (text) => parseExpectedPow(text, "--expected-pow")),
      synchronisationThreshold: mapDefined(one(thresholdFlag), (text) => parseWhole(thresholdFlag, text, MAX_SYNC_THRESHOLD, "peers")),
      syncLatency: mapDefined(one("--sync-latency"), (text) => parseWhole("--sync-latency", text, MAX_SYNC_LATENCY, "seconds")),
      logLevel: seen.has("-v") ? "debug" : parseLogLevel(one("--log-level") ?? "info"),
      logFormat: parseLogFormat(one("--log-format") ?? "text"),
      printProtocolParameters: seen.has("--print-protocol-parameters"),
      loadState: nonEmpty("--load-state", seen.get("--load-state") ?? [])[0],
      dumpState: nonEmpty("--dump-state", seen.get("--dump-state") ?? [])[0],
      given: new Set(seen.keys()),
    },
  };
}

/** `HOST:PORT`, `HOST` (port 8732), `[IPv6]:PORT` or `[IPv6]`. */
export function parseRpcAddr(text: string): RpcAddr {
  const match = /^\[([0-9A-Fa-f:.]+)\](?::(.*))?$/.exec(text) ?? /^([A-Za-z0-9.-]+)(?::(.*))?$/.exec(text);
  const port = portOf(match?.[2] ?? "8732");
  if (!match || port === undefined) {
    throw new UsageError(`Invalid --rpc-addr "${text}": expected HOST:PORT with a port from 0 to 65535.`);
  }
  return { hostname: match[1]!, port };
}

function mapDefined<T>(text: string | undefined, parse: (text: string) => T): T | undefined {
  return text === undefined ? undefined : parse(text);
}

/**
 * Whether an IP address text names a loopback or private address, where octez-node's sandbox may
 * listen for peers: 127.0.0.0/8, ::1, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7.
 */
export function isSandboxAddress(host: string): boolean {
  const b = parseIpAddress(host);
  if (b === undefined) return false;
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) {
    const [x, y] = [b[12]!, b[13]!];
    return x === 127 || x === 10 || (x === 172 && (y & 0xf0) === 16) || (x === 192 && y === 168);
  }
  const loopback = b.subarray(0, 15).every((x) => x === 0) && b[15] === 1;
  return loopback || (b[0]! & 0xfe) === 0xfc;
}

/**
 * Splits `ADDR[:PORT][#ID]` as octez-node reads a P2P address: an IPv4 address, a bracketed IPv6
 * address (or a bare one without port), or `localhost` (127.0.0.1); the port is 9732 when left
 * out. `undefined` when the text is none of these.
 */
function splitP2pAddr(text: string): { point: P2pPoint; peerId: string | undefined } | undefined {
  const hash = text.indexOf("#");
  const peerId = hash < 0 ? undefined : text.slice(hash + 1);
  let rest = hash < 0 ? text : text.slice(0, hash);
  if (peerId !== undefined && !isPeerId(peerId)) return undefined;
  if (/^localhost(:|$)/i.test(rest)) rest = `127.0.0.1${rest.slice("localhost".length)}`;
  // A bare address (no port): an IPv4 address without a colon, or an IPv6 address.
  if (parseIpAddress(rest) !== undefined) rest = rest.includes(":") ? `[${rest}]:${DEFAULT_P2P_PORT}` : `${rest}:${DEFAULT_P2P_PORT}`;
  else if (/^\[[^\]]*\]$/.test(rest)) rest = `${rest}:${DEFAULT_P2P_PORT}`;
  const point = parsePoint(rest);
  return point === undefined ? undefined : { point, peerId };
}

/**
 * Reads the address to listen for peers on (`--net-addr`, a configuration file's
 * `p2p.listen-addr`, named by `where`): see {@link splitP2pAddr}; port 0 picks a free port. Only
 * a loopback or private address ({@link isSandboxAddress}), as octez-node's sandbox.
 * @throws {UsageError} naming `where` and what is wrong.
 */
export function parseNetAddr(text: string, where: string): P2pPoint {
  const split = splitP2pAddr(text);
  if (split === undefined || split.peerId !== undefined) {
    throw new UsageError(`Invalid ${where} "${text}": expected ADDR:PORT with an IP address (such as 127.0.0.1:9732 or [::1]:9732).`);
  }
  if (!isSandboxAddress(split.point.host)) {
    throw new UsageError(
      `Invalid ${where} "${text}": a sandbox node listens for peers only on a loopback or private address ` +
        `(127.0.0.0/8, ::1, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7), not on ${split.point.host}.`,
    );
  }
  return split.point;
}

/**
 * Reads a peer (`--peer`, an entry of a configuration file's `p2p.bootstrap-peers`, named by
 * `where`) as octez-node does, `ADDR[:PORT][#PEER_ID]` (port 9732 when left out), and gives it
 * back in Octez's canonical form (`127.0.0.1:9732`, `[::1]:9732#id…`).
 * @throws {UsageError} naming `where` and what is wrong.
 */
export function parsePeer(text: string, where: string): string {
  const split = splitP2pAddr(text);
  if (split === undefined || split.point.port === 0) {
    throw new UsageError(
      `Invalid ${where} "${text}": expected ADDR:PORT or ADDR:PORT#PEER_ID with an IP address, a port from 1 to 65535 and a peer id (id…).`,
    );
  }
  return formatPoint(split.point) + (split.peerId === undefined ? "" : `#${split.peerId}`);
}

/**
 * Reads a proof-of-work difficulty (`--expected-pow`, a configuration file's
 * `p2p.expected-proof-of-work`, or `identity generate DIFFICULTY`): a decimal number from 0 to
 * 256, as octez-node's check of its configuration.
 * @throws {UsageError} naming `where`.
 */
export function parseExpectedPow(text: string, where: string): number {
  const n = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0 && n <= 256)) {
    throw new UsageError(`Invalid ${where} "${text}": the expected proof-of-work must be a number between 0 and 256 (inclusive).`);
  }
  return n;
}

/** `--connections N`: a whole number from 0 to 100, as octez-node. */
function parseConnections(text: string): number {
  const n = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (Number.isNaN(n)) throw new UsageError(`Invalid --connections "${text}": expected a whole number of connections.`);
  if (n > MAX_CONNECTIONS_OPTION) {
    throw new UsageError(
      `Invalid --connections "${text}": the number of expected connections is limited to ${MAX_CONNECTIONS_OPTION} (a configuration file's p2p.limits may set more).`,
    );
  }
  return n;
}

/**
 * A whole number from 0 to `max` (`--synchronisation-threshold`, `--sync-latency`): octez-node
 * reads any integer there, but its configuration (what `/config` answers) holds a uint8 threshold
 * and a uint16 latency, so larger or negative values are refused here.
 */
function parseWhole(flag: FlagName, text: string, max: number, unit: string): number {
  const n = /^\d{1,6}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0 && n <= max)) throw new UsageError(`Invalid ${flag} "${text}": expected a whole number of ${unit} from 0 to ${max}.`);
  return n;
}

/** `--baker-keys`: comma-separated bootstrap account names or tz1 addresses, each known. */
function parseBakerKeys(text: string): string[] {
  const keys = text.split(",").map((k) => k.trim());
  if (keys.includes("")) {
    throw new UsageError(`Invalid --baker-keys "${text}": expected comma-separated accounts (bootstrap1 ... bootstrap5 or their tz1 addresses).`);
  }
  const unknown = keys.find((k) => findBootstrapAccount(k) === undefined);
  if (unknown !== undefined) throw new UsageError(`Invalid --baker-keys "${text}": ${unknownBakerKeyMessage(unknown)}.`);
  return keys;
}

/** A positive byte count (at most 1 GiB), or undefined when the option is absent. */
function parseBytes(flag: FlagName, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 2 ** 30)) throw new UsageError(`Invalid ${flag} "${text}": expected a number of bytes from 1 to 1073741824.`);
  return n;
}

/** A whole number from 1 to 1 000 000, or undefined when the option is absent. */
function parseCount(flag: FlagName, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 1_000_000)) throw new UsageError(`Invalid ${flag} "${text}": expected a whole number from 1 to 1000000.`);
  return n;
}

/** Seconds (fractions allowed, 0 for none, up to a day) as milliseconds, or undefined when absent. */
function parseTimeout(flag: FlagName, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d{1,5}(\.\d{1,3})?$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0 && n <= 86_400)) throw new UsageError(`Invalid ${flag} "${text}": expected seconds from 0 (none) to 86400.`);
  return Math.round(n * 1000);
}

/** The RPC servers' limits the command line sets. */
function parseServeLimits(one: (flag: FlagName) => string | undefined): ServeLimits {
  const limits: { -readonly [K in keyof ServeLimits]: ServeLimits[K] } = {};
  const maxConnections = parseCount("--max-active-rpc-connections", one("--max-active-rpc-connections"));
  if (maxConnections !== undefined) limits.maxConnections = maxConnections;
  const maxStreams = parseCount("--max-rpc-streams", one("--max-rpc-streams"));
  if (maxStreams !== undefined) limits.maxStreams = maxStreams;
  const headersTimeout = parseTimeout("--rpc-headers-timeout", one("--rpc-headers-timeout"));
  if (headersTimeout !== undefined) limits.headersTimeout = headersTimeout;
  const idleTimeout = parseTimeout("--rpc-idle-timeout", one("--rpc-idle-timeout"));
  if (idleTimeout !== undefined) limits.idleTimeout = idleTimeout;
  const text = one("--max-rpc-url-length");
  if (text !== undefined) {
    const n = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
    if (!(n >= 256 && n <= 1_048_576)) throw new UsageError(`Invalid --max-rpc-url-length "${text}": expected a number of bytes from 256 to 1048576.`);
    limits.maxUrlLength = n;
  }
  return limits;
}

/** Seconds (fractions allowed, up to an hour) as milliseconds, or undefined when absent. */
function parseBudget(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const s = secondsOf(text);
  if (s === undefined || s > 3600) throw new UsageError(`Invalid --rpc-work-budget "${text}": expected seconds, more than 0 and at most 3600.`);
  return Math.round(s * 1000);
}

function parseBake(text: string): BakeMode {
  if (text === "auto" || text === "manual") return { mode: text };
  const seconds = text.startsWith("interval:") ? secondsOf(text.slice(9)) : undefined;
  if (seconds === undefined) {
    throw new UsageError(`Invalid --bake "${text}": expected auto, manual or interval:<seconds> (seconds > 0).`);
  }
  return { mode: "interval", seconds };
}

function parseHistoryMode(text: string): HistoryMode {
  const mode = parseMode(text);
  if (mode === undefined) throw new UsageError(`Invalid --history-mode "${text}": expected archive, full, full:N, rolling or rolling:N (N from 0 to 1000).`);
  return mode;
}

function parseLogLevel(text: string): LogLevel {
  if (!isLogLevel(text)) throw new UsageError(`Invalid --log-level "${text}": expected error, warn, info or debug.`);
  return text;
}

function parseLogFormat(text: string): LogFormat {
  const format = LOG_FORMATS.find((f) => f === text);
  if (format === undefined) throw new UsageError(`Invalid --log-format "${text}": expected text or json.`);
  return format;
}

function nonEmpty(flag: FlagName, values: string[]): string[] {
  if (values.includes("")) throw new UsageError(`Invalid ${flag} "": expected a non-empty value.`);
  return values;
}
