/**
 * Typed path and query arguments (Octez `RPC_arg`, from resto): a name shown in `/describe`, an
 * optional description, a parser and a printer. A parser throws an `Error` whose message is the
 * reason shown to the client.
 * @module
 */
import { parseTimestamp } from "../encoding/time.ts";
import { B58, type Base58Kind, b58tryDecode } from "../encoding/base58.ts";
import { ocamlQuote, parseOcamlInt } from "./ocaml.ts";
import { formatPoint, parseIpAddress } from "../p2p/encoding/point.ts";

/** A typed argument: `parse` throws an Error with the reason on bad text; `print` is its inverse. */
export interface Arg<T> {
  /** Type name, as `/describe` prints it (`{"id":"single","name":…}`). */
  readonly name: string;
  /** Optional description (`descr` in `/describe`). */
  readonly descr?: string;
  /** The value of a path segment or query value; throws an Error whose message says why not. */
  parse(text: string): T;
  /** The text form of a value. */
  print(value: T): string;
}

/** Builds an argument from its name, description, parser and printer. */
export function makeArg<T>(spec: {
  name: string;
  descr?: string;
  parse: (text: string) => T;
  print: (value: T) => string;
}): Arg<T> {
  if (typeof spec.name !== "string" || spec.name === "") throw new TypeError("makeArg: name must be a non-empty string");
  const arg: { name: string; descr?: string; parse: (t: string) => T; print: (v: T) => string } = {
    name: spec.name,
    parse: spec.parse,
    print: spec.print,
  };
  if (spec.descr !== undefined) arg.descr = spec.descr;
  return Object.freeze(arg);
}

/**
 * `parse`, remembering the values of the texts it parsed last (at most `limit`; all forgotten at
 * once when full), for arguments whose parsing costs (Base58Check: two SHA-256 and a base-58
 * decoding) and whose texts clients send again and again. Only successes are remembered; the
 * values are frozen, since requests share them.
 */
export function rememberParses<T>(parse: (text: string) => T, limit = 1024): (text: string) => T {
  const values = new Map<string, T>();
  return (text) => {
    let v = values.get(text);
    if (v === undefined) {
      v = parse(text);
      if (values.size >= limit) values.clear();
      values.set(text, typeof v === "object" && v !== null ? Object.freeze(v) : v);
    }
    return v;
  };
}

/** A copy of `arg` under another name and description (resto's `Arg.like`). */
export function likeArg<T>(arg: Arg<T>, name: string, descr?: string): Arg<T> {
  return makeArg(descr === undefined ? { name, parse: arg.parse, print: arg.print } : { name, descr, parse: arg.parse, print: arg.print });
}

function intOf(bits: number, message: string): (text: string) => bigint {
  return (text) => {
    const v = parseOcamlInt(text, bits);
    if (v === undefined) throw new Error(message);
    return v;
  };
}

const parseInt63 = intOf(63, "Cannot parse integer value");

/** resto's `int` (OCaml native int; here limited to safe JavaScript integers). */
export const intArg: Arg<number> = makeArg({
  name: "int",
  parse(text) {
    const v = parseInt63(text);
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) throw new Error("Cannot parse integer value");
    return Number(v);
  },
  print: (v) => String(v),
});

/** Octez's `uint`: a natural number. */
export const uintArg: Arg<number> = makeArg({
  name: "uint",
  parse(text) {
    const v = parseOcamlInt(text, 63);
    if (v === undefined || v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error("Cannot parse natural number (number expected)");
    if (v < 0n) throw new Error("Cannot parse natural number (positive number expected)");
    return Number(v);
  },
  print: (v) => String(v),
});

/** resto's `int32`. */
export const int32Arg: Arg<number> = makeArg({
  name: "int32",
  parse: (text) => Number(intOf(32, "Cannot parse int32 value")(text)),
  print: (v) => String(v),
});

/** resto's `int64`, as a bigint. */
export const int64Arg: Arg<bigint> = makeArg({
  name: "int64",
  parse: intOf(64, "Cannot parse int64 value"),
  print: (v) => v.toString(),
});

const FLOAT = /^[+-]?(?:(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?|nan|inf|infinity)$/i;

/** resto's `float`. */
export const floatArg: Arg<number> = makeArg({
  name: "float",
  parse(text) {
    if (!FLOAT.test(text)) throw new Error("Cannot parse float value");
    const t = text.replace(/_/g, "").toLowerCase();
    if (t.endsWith("nan")) return NaN;
    if (t.includes("inf")) return t.startsWith("-") ? -Infinity : Infinity;
    return Number(t);
  },
  print: (v) => String(v),
});

/** resto's boolean reading: ``, `true`, `t`, `yes`, `y` are true; `false`, `f`, `no`, `n` false (any case). */
export function parseBool(text: string): boolean {
  switch (text.toLowerCase()) {
    case "":
    case "true":
    case "t":
    case "yes":
    case "y":
      return true;
    case "false":
    case "f":
    case "no":
    case "n":
      return false;
    default:
      throw new Error("Cannot parse boolean value");
  }
}

/** resto's `bool`, printed `yes`/`no`. */
export const boolArg: Arg<boolean> = makeArg({ name: "bool", parse: parseBool, print: (v) => (v ? "yes" : "no") });

/** resto's `string`: any text. */
export const stringArg: Arg<string> = makeArg({ name: "string", parse: (t) => t, print: (t) => t });

/**
 * An argument for a Base58Check kind, as Octez's hash modules define theirs: `name` is the hash
 * module's name (`block_hash`, `Protocol_hash`, `Operation_hash`…), the value is the checked string.
 */
export function base58Arg(kind: Base58Kind, name: string, descr = `${name} (Base58Check-encoded)`): Arg<string> {
  return makeArg({
    name,
    descr,
    parse(text) {
      if (b58tryDecode(kind, text) === undefined) {
        throw new Error(`failed to decode Base58Check-encoded data (${name}): ${ocamlQuote(text)}`);
      }
      return text;
    },
    print: (v) => v,
  });
}

/** `block_hash` argument. */
export const blockHashArg: Arg<string> = base58Arg(B58.blockHash, "block_hash");
/** A protocol timestamp (Octez `Time.Protocol.rpc_arg`): RFC 3339, or seconds since the epoch. */
export const timestampArg: Arg<number> = makeArg({
  name: "date",
  descr: "A date in seconds from epoch",
  parse(text) {
    const t = /^-?\d+$/.test(text) ? Number(text) : parseTimestamp(text);
    if (t === undefined || !Number.isSafeInteger(t)) throw new Error(`Cannot parse date: ${text}`);
    return t;
  },
  print: (t) => String(t),
});

/** `Protocol_hash` argument. */
export const protocolHashArg: Arg<string> = base58Arg(B58.protocolHash, "Protocol_hash");
/** `Operation_hash` argument. */
export const operationHashArg: Arg<string> = base58Arg(B58.operationHash, "Operation_hash");

/** A chain designator: the main chain, the test chain, or a chain id (Base58Check `Net…`). */
export type ChainRef = { readonly kind: "main" } | { readonly kind: "test" } | { readonly kind: "id"; readonly id: string };

/** Octez's `chain_id` path argument: `main`, `test` or a Base58Check chain id. */
export const chainArg: Arg<ChainRef> = makeArg({
  name: "chain_id",
  descr: "A chain identifier. This is either a chain hash in Base58Check notation or a one the predefined aliases: 'main', 'test'.",
  parse(text): ChainRef {
    if (text === "main") return MAIN;
    if (text === "test") return TEST;
    if (b58tryDecode(B58.chainId, text) === undefined) throw new Error("Cannot parse chain identifier.");
    return { kind: "id", id: text };
  },
  print: (c) => (c.kind === "id" ? c.id : c.kind),
});
const MAIN: ChainRef = Object.freeze({ kind: "main" });
const TEST: ChainRef = Object.freeze({ kind: "test" });

/**
 * A block designator, parsed but not resolved (the shell resolves it), as Octez's
 * `Block_services.block`. `offset` counts predecessors back; a negative offset counts successors.
 */
export type BlockId =
  | { readonly kind: "genesis" }
  | { readonly kind: "head"; readonly offset: number }
  | { readonly kind: "alias"; readonly alias: "checkpoint" | "savepoint" | "caboose"; readonly offset: number }
  | { readonly kind: "hash"; readonly hash: string; readonly offset: number }
  | { readonly kind: "level"; readonly level: number };

const GENESIS: BlockId = Object.freeze({ kind: "genesis" });
const HEAD: BlockId = Object.freeze({ kind: "head", offset: 0 });

function ocamlInt(text: string): number {
  const v = parseOcamlInt(text, 63);
  if (v === undefined || v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) throw new Error();
  return Number(v);
}

function validLevel(text: string): number {
  const v = parseOcamlInt(text, 32);
  if (v === undefined || v < 0n) throw new Error();
  return Number(v);
}

function levelOf(level: number, offset?: number): BlockId {
  if (level === 0) return GENESIS;
  return { kind: "level", level: offset === undefined ? level : (level - offset) | 0 };
}

/**
 * Parses a block identifier with Octez v12's rules (`Block_services.parse_block`): `genesis`,
 * `genesis+N`, `head`, `head~N`/`head-N`, `checkpoint`/`savepoint`/`caboose` with `~N`, `-N` or
 * `+N`, a block hash with the same suffixes, or a level with them. At most one `~`, `-` or `+`.
 * Throws an Error `Cannot parse block identifier: <text>` otherwise.
 */
export function parseBlockId(text: string): BlockId {
  try {
    let delim = "";
    let at = -1;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "~" || c === "-" || c === "+") {
        if (delim !== "") throw new Error();
        delim = c;
        at = i;
      }
    }
    if (delim === "") {
      if (text === "genesis") return GENESIS;
      if (text === "head") return HEAD;
      if (text === "checkpoint" || text === "savepoint" || text === "caboose") return { kind: "alias", alias: text, offset: 0 };
      if (b58tryDecode(B58.blockHash, text) !== undefined) return { kind: "hash", hash: text, offset: 0 };
      return levelOf(validLevel(text));
    }
    const base = text.slice(0, at);
    const n = text.slice(at + 1);
    const back = delim !== "+";
    if (base === "genesis" && !back) return { kind: "level", level: Number(parseOcamlInt(n, 32) ?? ocamlIntFail()) };
    if (base === "head" && back) return { kind: "head", offset: ocamlInt(n) };
    if (base === "checkpoint" || base === "savepoint" || base === "caboose") {
      const k = ocamlInt(n);
      return { kind: "alias", alias: base, offset: back ? k : -k };
    }
    if (b58tryDecode(B58.blockHash, base) !== undefined) {
      const k = ocamlInt(n);
      return { kind: "hash", hash: base, offset: back ? k : -k };
    }
    const offset = validLevel(n);
    return levelOf(validLevel(base), back ? offset : -offset);
  } catch {
    throw new Error(`Cannot parse block identifier: ${text}`);
  }
}

function ocamlIntFail(): never {
  throw new Error();
}

/** Octez's printing of a block identifier (`Block_services.to_string`). */
export function printBlockId(b: BlockId): string {
  switch (b.kind) {
    case "genesis":
      return "genesis";
    case "head":
      return b.offset === 0 ? "head" : b.offset < 0 ? `head+${-b.offset}` : `head~${b.offset}`;
    case "alias":
      return b.offset === 0 ? b.alias : b.offset < 0 ? `${b.alias}+${-b.offset}` : `${b.alias}~${b.offset}`;
    case "hash":
      return b.offset === 0 ? b.hash : b.offset < 0 ? `${b.hash}+${-b.offset}` : `${b.hash}~${b.offset}`;
    case "level":
      return String(b.level);
  }
}

/** Octez's `block_id` path argument. */
export const blockArg: Arg<BlockId> = makeArg({
  name: "block_id",
  descr:
    "A block identifier. This is either a block hash in Base58Check notation, one the predefined aliases: 'genesis', 'head' or a block level (index in the chain). One might also use 'head~N' or '<hash>~N' where N is an integer to denote the Nth predecessor of the designated block.Also, '<hash>+N' denotes the Nth successor of a block.",
  parse: (() => {
    const remembered = rememberParses(parseBlockId);
    return (text: string) => (text === "head" ? HEAD : remembered(text));
  })(),
  print: printBlockId,
});

/**
 * Octez's `peer_id` argument (`P2p_peer.Id.rpc_arg`, resto's `like` of the
 * `Crypto_box.Public_key_hash` argument): a Base58Check peer id `id…`; the error names the hash
 * module, as Octez's does.
 */
export const peerIdArg: Arg<string> = likeArg(
  base58Arg(B58.cryptoboxPublicKeyHash, "Crypto_box.Public_key_hash"),
  "peer_id",
  "A cryptographic node identity (Base58Check-encoded)",
);

/** `addr:port` with an optional `#peer id`, as Octez's point lexer reads it (`point_parser.mll`). */
const POINT_TEXT = /^(\[[a-fA-F0-9:.]+\]|[a-zA-Z0-9.-]+|_?)(?::([0-9]+))?(?:#([a-zA-Z0-9]+))?$/;

/** Whether an address ends with a dotted quad that has an octet with a leading zero (`ipaddr` refuses octal). */
function octalOctet(addr: string): boolean {
  const quad = /(?:^|:)([0-9]+\.[0-9]+\.[0-9]+\.[0-9]+)$/.exec(addr);
  return quad !== null && quad[1]!.split(".").some((o) => /^0[0-9]/.test(o));
}

/**
 * A point's canonical text (`a.b.c.d:port`, `[v6]:port`) from a path segment, as Octez's
 * `P2p_point.Id.of_string`: the lexer's form first (`Parsing of '<text>' failed: <why>.` and a
 * newline, as Octez formats it), then a port is required, then the address must be an IP address
 * (no host names). A `#peer_id` suffix is checked, then ignored. Throws an Error with Octez's text.
 */
export function parsePointText(text: string): string {
  const m = POINT_TEXT.exec(text);
  const failed = (why: string) => new Error(`Parsing of '${text}' failed: ${why}.\n`);
  if (m === null) throw failed("expected <addr>[:<port>][#<peer_id>]");
  const [, rawAddr, portText, id] = m;
  let port: number | undefined;
  if (portText !== undefined) {
    const p = parseOcamlInt(portText, 63);
    if (p === undefined) throw new Error("int_of_string");
    if (p > 65535n) throw failed(`port '${p}' not in range [0-65535]`);
    port = Number(p);
  }
  if (id !== undefined && b58tryDecode(B58.cryptoboxPublicKeyHash, id) === undefined) {
    throw failed(`peer id '${id}' is not valid (b58 format expected)`);
  }
  if (port === undefined) throw new Error("P2p_point.of_string_exn: no port");
  const addr = rawAddr!.startsWith("[") ? rawAddr!.slice(1, -1) : rawAddr!;
  if (parseIpAddress(addr) === undefined || octalOctet(addr)) throw new Error("P2p_point.of_string");
  return formatPoint({ host: addr, port });
}

/** Octez's `point` argument (`P2p_point.Id.rpc_arg`): the point's canonical text. */
export const pointArg: Arg<string> = makeArg({
  name: "point",
  descr: "A network point (ipv4:port or [ipv6]:port).",
  parse: parsePointText,
  print: (p) => p,
});

/**
 * Octez's `timespan` argument (`Time.System.Span.rpc_arg`): seconds as OCaml's `float_of_string`
 * reads them, finite; the value in seconds.
 */
export const timespanArg: Arg<number> = makeArg({
  name: "timespan",
  descr: "A span of time in seconds",
  parse(text) {
    let v: number;
    try {
      v = floatArg.parse(text);
    } catch {
      throw new Error(`failed to parse timespan: ${ocamlQuote(text)}`);
    }
    if (!Number.isFinite(v)) throw new Error(`failed to parse timespan: ${ocamlQuote(text)}`);
    return v;
  },
  print: (v) => String(v),
});
