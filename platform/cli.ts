/**
 * The node's command line, in octez-node's style (`--rpc-addr`, `--data-dir`, `--history-mode`,
 * `--cors-origin`, ...), as a pure function from the argument list to options: no runtime API,
 * no I/O, so each runtime's entry point shares it and tests call it directly.
 *
 * @example
 * ```ts
 * const args = parseArgs(["--rpc-addr", "127.0.0.1:18732", "--memory"]);
 * if (!args.help) console.log(args.options.rpcAddr.port); // 18732
 * ```
 * @module
 */
import { z } from "zod";
import type { BakeMode, HistoryMode } from "../lib/node.ts";
import { parseEndpoint } from "../lib/rpc/acl.ts";

/** Where the RPC server listens by default, as octez-node. */
export const DEFAULT_RPC_ADDR = "127.0.0.1:8732";
/** The data directory by default, relative to the working directory. */
export const DEFAULT_DATA_DIR = "./tezos-node-data";

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
  /** Whether to activate the protocol at first start. */
  readonly activate: boolean;
  /** History mode of a new data directory. */
  readonly historyMode: HistoryMode;
  /** Allowed CORS origins and extra allowed headers, in the order given. */
  readonly cors: { readonly origins: readonly string[]; readonly headers: readonly string[] };
  /** Path of a JSON file of protocol parameters for the activation, if given. */
  readonly protocolParameters: string | undefined;
  /** The largest RPC request body, in bytes (`--max-request-body`); the node's default when absent. */
  readonly maxRequestBody: number | undefined;
  /** The work budget of one RPC call, in milliseconds (`--rpc-work-budget SECONDS`); the node's default when absent. */
  readonly rpcWorkBudget: number | undefined;
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
                             rpc.cors-origin, rpc.cors-headers. Command-line options win.
  --max-request-body BYTES   Largest RPC request body read (default 8388608); larger: 413.
  --rpc-work-budget SECONDS  Work one RPC call may take (default 5): Michelson runs and rights
                             past it answer node.rpc.work_budget_exceeded.
  --data-dir DIR             Keep the chain in DIR (default ${DEFAULT_DATA_DIR}). One process per
                             data directory: a second one exits with an error.
  --memory                   Keep everything in memory; no data directory.
  --history-mode MODE        archive, full or rolling (default full).
  --bake MODE                auto (a block as soon as an operation is applied; default),
                             manual (only on request), or interval:<seconds>.
  --no-activate              Do not activate the protocol at first start; wait for an
                             activation block to be injected.
  --protocol-parameters FILE Protocol parameters (JSON) for the activation.
  --cors-origin ORIGIN       Allow cross-origin requests from ORIGIN (* for any). Repeatable.
  --cors-header HEADER       Allow HEADER in cross-origin requests. Repeatable.
  --help                     Print this text and exit.
`;

type FlagName =
  | "--rpc-addr" | "--allow-all-rpc" | "--config-file" | "--max-request-body" | "--rpc-work-budget" | "--data-dir" | "--memory" | "--history-mode" | "--bake" | "--no-activate"
  | "--protocol-parameters" | "--cors-origin" | "--cors-header" | "--help";

/** Each flag: the placeholder of its value (none for switches) and whether it may repeat. */
const FLAGS: Readonly<Record<FlagName, { value?: string; repeat?: true }>> = {
  "--rpc-addr": { value: "HOST:PORT", repeat: true },
  "--allow-all-rpc": { value: "ADDR:PORT", repeat: true },
  "--config-file": { value: "FILE" },
  "--max-request-body": { value: "BYTES" },
  "--rpc-work-budget": { value: "SECONDS" },
  "--data-dir": { value: "DIR" },
  "--memory": {},
  "--history-mode": { value: "MODE" },
  "--bake": { value: "MODE" },
  "--no-activate": {},
  "--protocol-parameters": { value: "FILE" },
  "--cors-origin": { value: "ORIGIN", repeat: true },
  "--cors-header": { value: "HEADER", repeat: true },
  "--help": {},
};

const historyModeSchema = z.enum(["archive", "full", "rolling"]);
const portSchema = z.string().regex(/^\d{1,5}$/).transform(Number).pipe(z.number().max(65535));
const secondsSchema = z.string().regex(/^\d+(\.\d+)?$/).transform(Number).pipe(z.number().positive());

/**
 * Parses the arguments that follow the program name.
 * @throws {UsageError} on an unknown option, a missing or bad value, or conflicting options.
 */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const seen = new Map<FlagName, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) throw new UsageError(`Unexpected argument "${arg}".`);
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
      if (next === undefined || next.startsWith("--")) {
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
      activate: !seen.has("--no-activate"),
      historyMode: parseHistoryMode(one("--history-mode") ?? "full"),
      cors: {
        origins: nonEmpty("--cors-origin", seen.get("--cors-origin") ?? []),
        headers: nonEmpty("--cors-header", seen.get("--cors-header") ?? []),
      },
      protocolParameters,
      maxRequestBody: parseBytes("--max-request-body", one("--max-request-body")),
      rpcWorkBudget: parseBudget(one("--rpc-work-budget")),
      given: new Set(seen.keys()),
    },
  };
}

/** `HOST:PORT`, `HOST` (port 8732), `[IPv6]:PORT` or `[IPv6]`. */
export function parseRpcAddr(text: string): RpcAddr {
  const match = /^\[([0-9A-Fa-f:.]+)\](?::(.*))?$/.exec(text) ?? /^([A-Za-z0-9.-]+)(?::(.*))?$/.exec(text);
  const port = portSchema.safeParse(match?.[2] ?? "8732");
  if (!match || !port.success) {
    throw new UsageError(`Invalid --rpc-addr "${text}": expected HOST:PORT with a port from 0 to 65535.`);
  }
  return { hostname: match[1]!, port: port.data };
}

/** A positive byte count (at most 1 GiB), or undefined when the option is absent. */
function parseBytes(flag: FlagName, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 2 ** 30)) throw new UsageError(`Invalid ${flag} "${text}": expected a number of bytes from 1 to 1073741824.`);
  return n;
}

/** Seconds (fractions allowed, up to an hour) as milliseconds, or undefined when absent. */
function parseBudget(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const s = secondsSchema.safeParse(text);
  if (!s.success || s.data > 3600) throw new UsageError(`Invalid --rpc-work-budget "${text}": expected seconds, more than 0 and at most 3600.`);
  return Math.round(s.data * 1000);
}

function parseBake(text: string): BakeMode {
  if (text === "auto" || text === "manual") return { mode: text };
  const seconds = text.startsWith("interval:") ? secondsSchema.safeParse(text.slice(9)) : undefined;
  if (!seconds?.success) {
    throw new UsageError(`Invalid --bake "${text}": expected auto, manual or interval:<seconds> (seconds > 0).`);
  }
  return { mode: "interval", seconds: seconds.data };
}

function parseHistoryMode(text: string): HistoryMode {
  const mode = historyModeSchema.safeParse(text);
  if (!mode.success) throw new UsageError(`Invalid --history-mode "${text}": expected archive, full or rolling.`);
  return mode.data;
}

function nonEmpty(flag: FlagName, values: string[]): string[] {
  if (values.includes("")) throw new UsageError(`Invalid ${flag} "": expected a non-empty value.`);
  return values;
}
