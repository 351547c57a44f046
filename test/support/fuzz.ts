/**
 * The RPC fuzzer of `test/rpc/fuzz.test.ts` and `bench/fuzz.ts`: a node with some material
 * (blocks, a transfer baked and one pending, an originated contract), every service `/describe`
 * lists (dynamic subtrees described on a concrete path), and requests made from a seeded PRNG:
 * path arguments from a pool of good values per argument name and from mutations, query strings
 * with the service's own fields (good and bad values, unknown and repeated fields), bodies from
 * valid samples (hand-made ones and ones made from the input's JSON schema) and their mutations,
 * binary bodies of random bytes, and now and then an `Accept: application/octet-stream`.
 *
 * Each answer is checked: its status is one Octez's server gives ({@link ALLOWED_STATUSES}), a
 * 500's body is a JSON list of errors (objects with string `kind` and `id`), and no body shows
 * JavaScript internals ({@link JS_INTERNALS}). A request that gets no answer within
 * {@link FuzzOptions.answerTimeoutMs} is a failure too. Each failure keeps the request as it was
 * sent (method, URL, headers, body) so that it can be replayed.
 * @module
 */
import { readFile } from "node:fs/promises";
import { createNode, type TezosNode } from "../../mod.ts";
import { bootstrapSecretKeys } from "../../lib/baker/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";

/** Statuses an answer may have: Octez's (resto's) for a request that may be anything. */
export const ALLOWED_STATUSES: ReadonlySet<number> = new Set([200, 400, 401, 404, 405, 406, 413, 415, 500]);

/** What shows a JavaScript error's text or a stack trace in a body. */
export const JS_INTERNALS =
  /TypeError|RangeError|ReferenceError|SyntaxError|Cannot read propert|is not a function|is not iterable|undefined is not|Maximum call stack|at [A-Za-z.]+ \(/;

export const BOOTSTRAP = [
  "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx",
  "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN",
  "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU",
  "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv",
  "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv",
] as const;
/** The liquidity baking contracts (CPMM, LQT token) and the escape dummy. */
export const LB_CONTRACTS = ["KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5", "KT1AafHA1C1vk959wvHWBispY9Y2f3fxBUUo", "KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi"] as const;
const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
const GENESIS_PROTOCOL = "ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im";
const GENESIS_BLOCK = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";
const CHAIN_ID = "NetXdQprcVkpaWU";
const ZERO_SIG = "sigMzJ4GVAvXEd2RjsKGfG2H9QvqTSKCZsuB2KiHbZRGFz72XgF6KaKADznh674fQgBatxw3xdHqTtMHUZAGRprxy64wg1aq";
const EDPK = "edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav";

// ---------------------------------------------------------------------------------------------
// PRNG

/** A seeded PRNG (sfc32): the same seed, the same requests. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 16; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor((this.u32() / 4294967296) * n);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.u32() / 4294967296 < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// The node and its material

function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16));
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What the node holds that requests can name. */
export interface Material {
  /** Hashes of real blocks, oldest first (genesis included). */
  readonly blocks: string[];
  readonly headLevel: number;
  /** Hashes of operations baked, and of the one left in the mempool. */
  readonly operations: string[];
  readonly pending: string;
  /** The next counter of bootstrap4 (which has nothing pending). */
  readonly counter: string;
  /** Signed hex of an operation (the pending transfer), as injected. */
  readonly signedOperation: string;
  /** Unsigned hex of a transfer forged by the node. */
  readonly forgedOperation: string;
  /** Contracts: bootstrap accounts, liquidity baking contracts, the one originated (if any). */
  readonly contracts: string[];
  readonly originated: string | undefined;
  readonly scriptExprs: string[];
  /** The head's shell header and raw header (hex), for forge/parse samples. */
  readonly shellHeader: unknown;
  readonly rawHeader: string;
  readonly protocolDataHex: string;
  /** A baked operation as JSON (`operations/3/0`). */
  readonly operationJson: unknown;
  /** Binary answers of the node (each behind its 4-byte length, as a binary request body is): material for binary bodies. */
  readonly binaries: Uint8Array[];
}

/** The fuzzed node and its material. */
export interface FuzzNode {
  readonly node: TezosNode;
  readonly material: Material;
}

async function json(node: TezosNode, path: string, method = "GET", body?: unknown): Promise<unknown> {
  const init: RequestInit = body === undefined ? { method } : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Forges (the node's RPC), signs (bootstrap1) and injects `contents`; the operation hash and the signed hex. */
async function inject(node: TezosNode, contents: Record<string, unknown>[]): Promise<{ hash: string; hex: string; forged: string }> {
  const head = "/chains/main/blocks/head";
  const src = BOOTSTRAP[0];
  let counter = BigInt((await json(node, `${head}/context/contracts/${src}/counter`)) as string) + 1n;
  const pending = (await json(node, "/chains/main/mempool/pending_operations")) as { applied: { contents: { source?: string }[] }[] };
  for (const op of pending.applied) for (const c of op.contents) if (c.source === src) counter++;
  const op = { branch: await json(node, `${head}/hash`), contents: contents.map((c, i) => ({ source: src, counter: String(counter + BigInt(i)), ...c })) };
  const forged = (await json(node, `${head}/helpers/forge/operations`, "POST", op)) as string;
  const signature = await sign(bootstrapSecretKeys()[0]!, fromHex(forged), genericWatermark());
  const hex = forged + toHex(signature);
  const hash = (await json(node, "/injection/operation", "POST", hex)) as string;
  return { hash, hex, forged };
}

/** A contract: `parameter nat; storage (big_map nat string); code { UNPAIR; SOME; PUSH string "x"; ... }`, simply: the parameter is stored. */
const SCRIPT = {
  code: [
    { prim: "parameter", args: [{ prim: "or", args: [{ prim: "nat", annots: ["%set"] }, { prim: "unit", annots: ["%reset"] }] }] },
    { prim: "storage", args: [{ prim: "pair", args: [{ prim: "big_map", args: [{ prim: "nat" }, { prim: "string" }] }, { prim: "nat" }] }] },
    { prim: "code", args: [[{ prim: "CDR" }, { prim: "NIL", args: [{ prim: "operation" }] }, { prim: "PAIR" }]] },
    { prim: "view", args: [{ string: "get" }, { prim: "unit" }, { prim: "nat" }, [{ prim: "CDR" }, { prim: "CDR" }]] },
  ],
  storage: { prim: "Pair", args: [[{ prim: "Elt", args: [{ int: "1" }, { string: "one" }] }], { int: "7" }] },
};

/**
 * A node in manual baking with: 5 blocks baked after the start, a transfer and an origination
 * baked, then 2 more blocks, and a transfer left in the mempool.
 */
export async function openFuzzNode(options: { rpcWorkBudget?: number } = {}): Promise<FuzzNode> {
  const node = await createNode({
    bake: { mode: "manual" },
    readResource: async (url) => new Uint8Array(await readFile(url)),
    rpcWorkBudget: options.rpcWorkBudget ?? 1000,
  });
  await json(node, "/sandbox/bake?count=5", "POST");
  const transfer = await inject(node, [{ kind: "transaction", fee: "1000", gas_limit: "1520", storage_limit: "0", amount: "1000000", destination: BOOTSTRAP[1] }]);
  let originated: string | undefined;
  let origination: string | undefined;
  try {
    origination = (await inject(node, [{ kind: "origination", fee: "10000", gas_limit: "10000", storage_limit: "2000", balance: "1000000", script: SCRIPT }])).hash;
  } catch (e) {
    console.error(`fuzz: no origination (${e instanceof Error ? e.message : String(e)})`);
  }
  await json(node, "/sandbox/bake", "POST");
  const ops = (await json(node, "/chains/main/blocks/head/operations/3")) as { hash: string; contents: { metadata?: { operation_result?: { originated_contracts?: string[] } } }[] }[];
  for (const op of ops) for (const c of op.contents) originated ??= c.metadata?.operation_result?.originated_contracts?.[0];
  const operationJson = ops[0];
  await json(node, "/sandbox/bake?count=2", "POST");
  const pending = await inject(node, [{ kind: "transaction", fee: "1000", gas_limit: "1520", storage_limit: "0", amount: "2000000", destination: BOOTSTRAP[2] }]);

  const headLevel = (await json(node, "/chains/main/blocks/head/header/shell/level")) as number;
  const blocks: string[] = [];
  for (let l = 0; l <= headLevel; l++) blocks.push((await json(node, `/chains/main/blocks/${l}/hash`)) as string);
  const scriptExprs: string[] = [];
  for (const [data, type] of [
    [{ string: BOOTSTRAP[0] }, { prim: "address" }],
    [{ int: "1" }, { prim: "nat" }],
  ] as const) {
    scriptExprs.push(((await json(node, "/chains/main/blocks/head/helpers/scripts/hash_data", "POST", { data, type })) as { hash: string }).hash);
  }
  const rawHeader = (await json(node, "/chains/main/blocks/head/header/raw")) as string;
  const protocolDataHex = (await json(node, "/chains/main/blocks/head/header/protocol_data/raw")) as string;
  const binaries: Uint8Array[] = [];
  for (const path of [
    "header", "header/shell", "header/protocol_data", "operations/3/0", "operations/0", "context/constants", `context/contracts/${LB_CONTRACTS[0]}/script`,
    `context/contracts/${LB_CONTRACTS[1]}/storage`, "helpers/current_level", "metadata", "hash", "protocols", `context/contracts/${BOOTSTRAP[0]}`,
  ]) {
    const res = await node.fetch(new Request(`http://localhost/chains/main/blocks/head/${path}`, { headers: { accept: "application/octet-stream" } }));
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (res.status === 200) binaries.push(bytes);
  }
  const material: Material = {
    blocks,
    headLevel,
    operations: [transfer.hash, ...(origination === undefined ? [] : [origination])],
    pending: pending.hash,
    signedOperation: pending.hex,
    forgedOperation: pending.forged,
    contracts: [...BOOTSTRAP, ...LB_CONTRACTS, ...(originated === undefined ? [] : [originated])],
    originated,
    scriptExprs,
    counter: String(BigInt((await json(node, `/chains/main/blocks/head/context/contracts/${BOOTSTRAP[3]}/counter`)) as string) + 1n),
    shellHeader: await json(node, "/chains/main/blocks/head/header/shell"),
    rawHeader,
    protocolDataHex,
    operationJson,
    binaries,
  };
  return { node, material };
}

// ---------------------------------------------------------------------------------------------
// The services of /describe

/** One segment of a path template: a constant, or an argument by name. */
export type Segment = string | { readonly arg: string };

/** One query field of a service. */
export interface QueryFieldSpec {
  readonly name: string;
  readonly kind: "flag" | "single" | "optional" | "multi";
  /** The argument's name (`bool` for a flag). */
  readonly arg: string;
}

/** One service as `/describe` lists it, with the full path template. */
export interface ServiceSpec {
  readonly method: string;
  readonly template: readonly Segment[];
  readonly query: readonly QueryFieldSpec[];
  /** The input's JSON schema, when the service declares an input. */
  readonly input: unknown;
  readonly hasInput: boolean;
}

/** A template as text: `/chains/{chain_id}/blocks/{block_id}/hash`. */
export function templateText(t: readonly Segment[]): string {
  return "/" + t.map((s) => (typeof s === "string" ? s : `{${s.arg}}`)).join("/");
}

type Descr = "empty" | { dynamic: string | null } | { static: Record<string, any> };

const SERVICE_KEYS = ["get_service", "post_service", "put_service", "delete_service", "patch_service"];

/**
 * Every service of the node's `/describe`: the tree of `GET /describe?recurse=yes`, and below
 * each dynamic subtree the tree `/describe/<concrete path>?recurse=yes` gives for each of the
 * concrete values in `dynamicValues` (per argument name; the first when none is listed), so
 * that subtrees that depend on their arguments (a block's protocol) are all seen.
 */
export async function collectServices(node: TezosNode, dynamicValues: Record<string, readonly string[]>): Promise<ServiceSpec[]> {
  const out = new Map<string, ServiceSpec>();
  const describe = async (concrete: readonly string[]): Promise<Descr> => {
    const path = concrete.map(encodeURIComponent).join("/");
    return (await json(node, `/describe${path === "" ? "" : "/" + path}?recurse=yes`)) as Descr;
  };
  const walk = async (d: Descr, template: Segment[], concrete: string[], depth: number): Promise<void> => {
    if (d === "empty") return;
    if ("dynamic" in d) {
      if (depth > 3) return;
      return walk(await describe(concrete), template, concrete, depth + 1);
    }
    const s = d.static;
    for (const k of SERVICE_KEYS) {
      const svc = s[k];
      if (svc === undefined) continue;
      const query: QueryFieldSpec[] = (svc.query as { name: string; kind: Record<string, { name: string }> }[]).map((q) => {
        const kind = Object.keys(q.kind)[0] as QueryFieldSpec["kind"];
        return { name: q.name, kind, arg: kind === "flag" ? "bool" : q.kind[kind]!.name };
      });
      const spec: ServiceSpec = { method: svc.meth, template: [...template], query, input: svc.input?.json_schema, hasInput: svc.input !== undefined };
      out.set(`${spec.method} ${templateText(spec.template)}`, spec);
    }
    const sub = s["subdirs"];
    if (sub?.suffixes !== undefined) {
      for (const { name, tree } of sub.suffixes) await walk(tree, [...template, name], [...concrete, name], depth);
    } else if (sub?.dynamic_dispatch !== undefined) {
      const name = sub.dynamic_dispatch.arg.name as string;
      const tree = sub.dynamic_dispatch.tree as Descr;
      const values = typeof tree === "object" && "dynamic" in tree ? (dynamicValues[name] ?? ["x"]) : [dynamicValues[name]?.[0] ?? "x"];
      for (const v of values) await walk(tree, [...template, { arg: name }], [...concrete, v], depth);
    }
  };
  await walk(await describe([]), [], [], 0);
  return [...out.values()];
}

// ---------------------------------------------------------------------------------------------
// Values

/** Good values of path and query arguments, by argument name. */
export function goodValues(m: Material): Record<string, readonly string[]> {
  const some = (n: number) => Array.from({ length: n }, (_, i) => String(i));
  const levels = [...some(m.headLevel + 1), String(m.headLevel + 1), String(m.headLevel + 5)];
  return {
    block_id: ["head", "genesis", "1", "2", "head~1", "head~2", String(m.headLevel), m.blocks[m.blocks.length - 1]!, m.blocks[3]!, "head-1", "genesis+2", "checkpoint", "savepoint", "caboose", GENESIS_BLOCK],
    chain_id: ["main", CHAIN_ID, "test"],
    contract_id: m.contracts,
    pkh: BOOTSTRAP,
    Protocol_hash: [HANGZHOU, GENESIS_PROTOCOL],
    block_hash: m.blocks,
    block_level: levels,
    block_cycle: ["0", "1", "2", "3"],
    list_offset: ["0", "1", "2", "3"],
    operation_offset: ["0", "1"],
    prefix: ["B", "BL", "BLock", "o", "oo", "P", "Pt", "tz1", "tz1K", "KT1", "KT1T", m.blocks[2]!.slice(0, 10), m.operations[0]!.slice(0, 8)],
    constant: ["blocks_per_cycle", "preserved_cycles", "time_between_blocks", "hard_gas_limit_per_operation"],
    string: ["default", "set", "reset", "do", "%default", "xtz_to_token"],
    big_map_id: ["0", "1", "2", "3", "4"],
    script_expr: m.scriptExprs,
    point: ["127.0.0.1:1", "[::1]:1", "127.0.0.1"],
    peer_id: ["idrpUzAbZJS2ua4shqhwEwhXTrtsZK", "idt5qvkLiJ15rb6yJU1bjpGmdyYnPJ"],
    int: ["0", "1", "2", "10", "-1"],
    uint: ["0", "1", "2", "10"],
    int32: ["0", "1", "-1", "2"],
    int64: ["0", "1", "-1"],
    bool: ["", "true", "false", "yes", "no", "y", "n", "t", "f"],
    date: ["0", "1640995200", "2022-01-01T00:00:00Z", String(Math.floor(Date.now() / 1000))],
    block_delay: ["0", "30", "60", "1"],
    count: ["1", "2"],
    context_path: ["v1", "contracts", "big_maps"],
    operation_hash: [m.pending, ...m.operations],
    Operation_hash: [m.pending, ...m.operations],
  };
}

const LONG = "a".repeat(10_000);
const WEIRD_SEGMENTS = [
  "", " ", LONG, "é", "漢字", "🙂", "\u0000", "%00", "..", ".", "-", "-1", "-0", "+1", "0x10", "1e3", "1.5", "NaN", "Infinity",
  "99999999999999999999999999999", "9007199254740993", "2147483648", "-2147483649", "4294967296", "18446744073709551616",
  "head~99999999", "head~-1", "head+1", "head~", "genesis~1", "genesis+99999999", "head-99999999999999999999", "~1", "+", "head~1~1",
  "%", "%zz", "%E9", "%C3%28", "%ff%fe", "a/b", "a%2Fb", "null", "true", "[]", "{}", "'", '"', "\\", "<script>", "tz1", "KT1",
  "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSy", "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU6", "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW3",
  "tz4KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", "sigMzJ4GVAvXEd2RjsKGfG2H9QvqTSKCZsuB2KiHbZRGFz72XgF6KaKADznh674fQgBatxw3xdHqTtMHUZAGRprxy64wg1aq",
  EDPK, "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh", "1.2.3.4:99999", "[::1", "::1:8732", "localhost:-1",
  "__proto__", "constructor", "toString", "hasOwnProperty", "prototype",
];

/** `encodeURIComponent` of a text whose lone surrogates (a cut emoji) become U+FFFD. */
function enc(t: string): string {
  if (typeof t !== "string") throw new TypeError(`not a text: ${JSON.stringify(t)}`);
  return encodeURIComponent(t.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD"));
}

/** Percent-encodes bytes (every byte as `%XX`). */
function percentBytes(b: Uint8Array): string {
  return Array.from(b, (x) => "%" + x.toString(16).padStart(2, "0").toUpperCase()).join("");
}

/** Arguments that are numbers, and the numbers at their edges (OCaml's int32/int64 bounds, prefixes and underscores OCaml reads). */
const NUMERIC_ARGS = new Set(["block_level", "block_cycle", "int", "uint", "int32", "int64", "list_offset", "operation_offset", "big_map_id", "count", "date", "block_delay", "float"]);
const NUMERIC_EDGES = [
  "-1", "0", "-0", "00", "+5", "-2147483648", "-2147483649", "2147483647", "2147483648", "4294967295", "4294967296", "9007199254740991",
  "9007199254740993", "-9007199254740993", "4611686018427387903", "4611686018427387904", "-4611686018427387904", "9223372036854775807",
  "9223372036854775808", "0x7fffffff", "0xffffffff", "0x", "0b101", "0o17", "1_000", "_1", "1e3", "1.0", " 1", "1 ", "١",
];

/** A path segment: a good value for `arg` (as such, percent-encoded), or a mutation. */
function segmentValue(rng: Rng, arg: string, pools: Record<string, readonly string[]>, mustBeGood = false): string {
  const good = pools[arg];
  const r = mustBeGood ? 0 : rng.int(100);
  if (good !== undefined && r < 55) return enc(rng.pick(good));
  if (NUMERIC_ARGS.has(arg) && r < 75) return enc(rng.pick(NUMERIC_EDGES));
  if (r < 70) return rng.pick(WEIRD_SEGMENTS).replace(/[^%A-Za-z0-9._~+-]/gu, (c) => (rng.chance(0.8) ? enc(c) : c));
  if (r < 80) return enc(rng.pick(pools[rng.pick(Object.keys(pools))]!));
  if (r < 88) return percentBytes(rng.bytes(1 + rng.int(40)));
  if (r < 94 && good !== undefined) return mutateText(rng, rng.pick(good));
  return String(rng.pick([-1, 0, 1, 2 ** 31, 2 ** 53, -(2 ** 63), 1e21, rng.int(1e6) - 5e5]));
}

/** A small change to a text: a character changed, dropped, doubled, or the text cut. */
function mutateText(rng: Rng, t: string): string {
  if (t.length === 0) return "x";
  const i = rng.int(t.length);
  switch (rng.int(5)) {
    case 0:
      return enc(t.slice(0, i) + String.fromCharCode(32 + rng.int(95)) + t.slice(i + 1));
    case 1:
      return enc(t.slice(0, i) + t.slice(i + 1));
    case 2:
      return enc(t + t);
    case 3:
      return enc(t.slice(0, i));
    default:
      return enc(t.toUpperCase());
  }
}

/** A query value for an argument: good, or a mutation. */
function queryValue(rng: Rng, arg: string, pools: Record<string, readonly string[]>, good: boolean): string {
  const values = pools[arg];
  if (values !== undefined && (good || rng.chance(0.5))) return enc(rng.pick(values));
  return segmentValue(rng, arg, pools);
}

/** A query string (with its `?`, or empty) for a service: its fields with good values, or (`bad`) also bad ones, repeated and unknown fields. */
function queryString(rng: Rng, svc: ServiceSpec, pools: Record<string, readonly string[]>, bad: boolean): string {
  const parts: string[] = [];
  for (const f of svc.query) {
    if (!rng.chance(0.5)) continue;
    const n = f.kind === "multi" ? 1 + rng.int(3) : bad && rng.chance(0.1) ? 2 : 1; // a repeated non-multi field: 400
    for (let i = 0; i < n; i++) {
      if (f.kind === "flag" && rng.chance(0.4)) parts.push(f.name);
      else parts.push(`${f.name}=${queryValue(rng, f.arg, pools, !bad)}`);
    }
  }
  if (!bad) return parts.length === 0 ? "" : "?" + parts.join("&");
  if (rng.chance(0.15)) parts.push(`${rng.pick(["unknown", "x", "recurse", "__proto__", "constructor", "length", "%zz", "", "a%00b"])}=${segmentValue(rng, "string", pools)}`);
  if (rng.chance(0.05)) parts.push(rng.pick(["&", "=", "==", "&&=&", "%", "a=%", "a=%zz", "a=b=c", ";"]));
  if (parts.length === 0) return rng.chance(0.05) ? "?" : "";
  for (let i = parts.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [parts[i], parts[j]] = [parts[j]!, parts[i]!];
  }
  return "?" + parts.join("&");
}

// ---------------------------------------------------------------------------------------------
// Bodies

const UNIT = { prim: "Unit" };
const PROGRAM = [
  { prim: "parameter", args: [{ prim: "unit" }] },
  { prim: "storage", args: [{ prim: "unit" }] },
  { prim: "code", args: [[{ prim: "CDR" }, { prim: "NIL", args: [{ prim: "operation" }] }, { prim: "PAIR" }]] },
];
const MICHELINE_DATA: readonly { data: unknown; type: unknown }[] = [
  { data: { int: "1" }, type: { prim: "int" } },
  { data: { string: "hello" }, type: { prim: "string" } },
  { data: { bytes: "00ff" }, type: { prim: "bytes" } },
  { data: { prim: "Pair", args: [{ int: "1" }, { prim: "True" }] }, type: { prim: "pair", args: [{ prim: "nat" }, { prim: "bool" }] } },
  { data: [{ int: "1" }, { int: "2" }], type: { prim: "list", args: [{ prim: "int" }] } },
  { data: { string: BOOTSTRAP[0] }, type: { prim: "address" } },
  { data: [{ prim: "Elt", args: [{ int: "1" }, { string: "a" }] }], type: { prim: "map", args: [{ prim: "nat" }, { prim: "string" }] } },
  { data: [{ prim: "DROP" }, { prim: "UNIT" }], type: { prim: "lambda", args: [{ prim: "int" }, { prim: "unit" }] } },
];

export const handSamplesForDebug = (m: Material) => handSamples(m, new Rng(1));
/** Hand-made valid bodies, by the end of a service's path. */
function handSamples(m: Material, rng: Rng): Record<string, () => unknown> {
  const head = m.blocks[m.blocks.length - 1]!;
  const tx = { kind: "transaction", source: BOOTSTRAP[3], fee: "1000", counter: m.counter, gas_limit: "1520", storage_limit: "0", amount: "1", destination: BOOTSTRAP[1] };
  const call = { ...tx, destination: m.originated ?? LB_CONTRACTS[0], parameters: { entrypoint: "set", value: { int: "5" } }, gas_limit: "10000" };
  const op = () => ({ branch: head, contents: [rng.pick([tx, call])] });
  const d = () => rng.pick(MICHELINE_DATA);
  const mode = () => rng.pick(["Readable", "Optimized", "Optimized_legacy"]);
  const run = () => ({ script: PROGRAM, storage: UNIT, input: UNIT, amount: "0", balance: "0", chain_id: CHAIN_ID, ...(rng.chance(0.5) ? { gas: "10000", balance: "100", source: BOOTSTRAP[0], payer: BOOTSTRAP[1], self: LB_CONTRACTS[0], now: "10", level: "3", unparsing_mode: mode() } : {}) });
  return {
    "scripts/pack_data": () => ({ ...d(), ...(rng.chance(0.3) ? { gas: "1000" } : {}) }),
    "scripts/hash_data": () => d(),
    "helpers/hash_data": () => d(),
    "scripts/normalize_data": () => ({ ...d(), unparsing_mode: mode(), ...(rng.chance(0.3) ? { legacy: true } : {}) }),
    "scripts/normalize_type": () => ({ type: d().type }),
    "scripts/normalize_script": () => ({ script: PROGRAM, unparsing_mode: mode() }),
    "scripts/typecheck_code": () => ({ program: PROGRAM, ...(rng.chance(0.3) ? { gas: "10000", legacy: false, show_types: true } : {}) }),
    "helpers/typecheck_code": () => ({ program: PROGRAM }),
    "scripts/typecheck_data": () => ({ ...d(), ...(rng.chance(0.3) ? { gas: "1000", legacy: true } : {}) }),
    "helpers/typecheck_data": () => d(),
    "scripts/run_code": run,
    "scripts/trace_code": run,
    "helpers/run_code": run,
    "helpers/trace_code": run,
    "scripts/run_view": () => ({ contract: LB_CONTRACTS[1], entrypoint: rng.pick(["getTotalSupply", "getBalance"]), input: rng.chance(0.5) ? UNIT : { string: BOOTSTRAP[0] }, chain_id: CHAIN_ID, unparsing_mode: mode() }),
    "scripts/script_size": () => ({ program: PROGRAM, storage: UNIT }),
    "scripts/entrypoint": () => ({ script: PROGRAM, entrypoint: rng.pick(["default", "set", "x"]) }),
    "scripts/entrypoints": () => ({ script: PROGRAM }),
    "scripts/run_operation": () => ({ operation: { ...op(), signature: ZERO_SIG }, chain_id: CHAIN_ID }),
    "helpers/apply_operation": () => ({ operation: { ...op(), signature: ZERO_SIG }, chain_id: CHAIN_ID }),
    "scripts/simulate_operation": () => ({ operation: { ...op(), signature: ZERO_SIG }, chain_id: CHAIN_ID, latency: 10 }),
    "forge/operations": op,
    "parse/operations": () => ({ operations: [{ branch: head, data: m.signedOperation.slice(64) }], check_signature: rng.chance(0.5) }),
    "preapply/operations": () => [{ protocol: HANGZHOU, ...op(), signature: ZERO_SIG }],
    "forge/protocol_data": () => ({ priority: rng.int(3), liquidity_baking_escape_vote: false, ...(rng.chance(0.5) ? { nonce_hash: "nceUFoeQDgkJCmzdMWh19ZjBYqQD3N9fe6bXQ1ZsUKKvMn7iun5Z3", proof_of_work_nonce: "0000000000000000" } : {}) }),
    "parse/block": () => ({ ...(m.shellHeader as object), protocol_data: m.protocolDataHex }),
    "forge/block_header": () => ({ ...(m.shellHeader as object), protocol_data: m.protocolDataHex }),
    "forge_block_header": () => ({ ...(m.shellHeader as object), protocol_data: m.protocolDataHex }),
    "preapply/block": () => ({ protocol_data: { protocol: HANGZHOU, priority: 0, proof_of_work_nonce: "0000000000000000", liquidity_baking_escape_vote: false, signature: ZERO_SIG }, operations: [[], [], [], []] }),
    big_map_get: () => ({ key: { string: BOOTSTRAP[0] }, type: { prim: "address" } }),
    normalized: () => ({ unparsing_mode: mode() }),
    "contracts/rank": () => m.originated ?? LB_CONTRACTS[0],
    "context/seed": () => ({}),
    endorsing_power: () => ({
      endorsement_operation: { branch: head, contents: [{ kind: "endorsement_with_slot", endorsement: { branch: head, operations: { kind: "endorsement", level: m.headLevel }, signature: ZERO_SIG }, slot: rng.int(3) }] },
      chain_id: CHAIN_ID,
    }),
    "injection/operation": () => rng.pick([m.signedOperation, m.forgedOperation, m.signedOperation.slice(0, -2)]),
    inject_operation: () => m.signedOperation,
    "injection/block": () => ({ data: m.rawHeader, operations: [[], [], [], []] }),
    inject_block: () => ({ data: m.rawHeader, operations: [[], [], [], []] }),
    "injection/protocol": () => ({ expected_env_version: 3, components: [{ name: "Main", implementation: `let x = ${rng.int(1000)}\n` }] }),
    inject_protocol: () => ({ expected_env_version: 3, components: [{ name: "Main", implementation: "let y = ()\n" }] }),
    ban_operation: () => m.pending,
    unban_operation: () => m.pending,
    unban_all_operations: () => null,
    filter: () => ({ minimal_fees: "100", minimal_nanotez_per_gas_unit: ["100", "1"], minimal_nanotez_per_byte: ["1000", "1"], allow_script_failure: true }),
    request_operations: () => ({}),
    "proto/operations": () => null,
  };
}

/** Values for JSON-schema definitions that are Octez types, by a fragment of the definition's name. */
function definitionSamples(m: Material): [RegExp, readonly unknown[]][] {
  return [
    [/public_key_hash/i, BOOTSTRAP],
    [/contract_id|address/i, m.contracts],
    [/public_key$/i, [EDPK]],
    [/block_hash/i, m.blocks],
    [/operation_hash$/i, [m.pending]],
    [/protocol_hash/i, [HANGZHOU]],
    [/chain_id/i, [CHAIN_ID]],
    [/signature/i, [ZERO_SIG]],
    [/timestamp/i, ["2022-01-01T00:00:00Z", "1640995200"]],
    [/bignum|mutez|int64|positive/i, ["0", "1", "1000"]],
    [/micheline|expression/i, [{ int: "1" }, UNIT, { prim: "int" }]],
    [/fitness/i, [["02", "00000001", "", "ffffffff", "00000000"]]],
    [/script_expr/i, m.scriptExprs],
    [/cycle_nonce|nonce_hash/i, ["nceUFoeQDgkJCmzdMWh19ZjBYqQD3N9fe6bXQ1ZsUKKvMn7iun5Z3"]],
    [/unistring/i, ["abc"]],
  ];
}

/** A random instance of a JSON schema (draft 4, as data-encoding prints them), depth bounded. */
function fromSchema(rng: Rng, schema: any, root: any, m: Material, depth = 0, name = ""): unknown {
  if (schema === undefined || schema === null || typeof schema !== "object") return null;
  if (depth > 8) return null;
  if (typeof schema.$ref === "string") {
    const def = schema.$ref.replace(/^#\/definitions\//, "");
    for (const [re, vals] of definitionSamples(m)) if (re.test(def) && rng.chance(0.8)) return rng.pick(vals);
    return fromSchema(rng, root?.definitions?.[def], root, m, depth + 1, def);
  }
  if (Array.isArray(schema.enum)) return rng.pick(schema.enum);
  const alts = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alts) && alts.length > 0) return fromSchema(rng, rng.pick(alts), root, m, depth + 1, name);
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return fromSchema(rng, schema.allOf[0], root, m, depth + 1, name);
  const type = Array.isArray(schema.type) ? rng.pick(schema.type) : schema.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      const req = new Set<string>(schema.required ?? []);
      for (const [k, v] of Object.entries(schema.properties ?? {})) {
        if (req.has(k) || rng.chance(0.4)) out[k] = fromSchema(rng, v, root, m, depth + 1, k);
      }
      return out;
    }
    case "array": {
      if (Array.isArray(schema.items)) return schema.items.map((it: unknown) => fromSchema(rng, it, root, m, depth + 1, name));
      const n = rng.int(3);
      return Array.from({ length: n }, () => fromSchema(rng, schema.items, root, m, depth + 1, name));
    }
    case "string":
      if (typeof schema.pattern === "string" && /\[0-9a-fA-F\]/.test(schema.pattern)) return toHex(rng.bytes(rng.int(8)));
      for (const [re, vals] of definitionSamples(m)) if (re.test(name)) return rng.pick(vals);
      return rng.pick(["", "abc", "0", "00", "default", "x".repeat(40)]);
    case "integer": {
      const lo = typeof schema.minimum === "number" ? schema.minimum : -5;
      const hi = typeof schema.maximum === "number" ? schema.maximum : 100;
      return Math.max(lo, Math.min(hi, lo + rng.int(Math.min(1000, Math.max(1, hi - lo + 1)))));
    }
    case "number":
      return rng.int(100);
    case "boolean":
      return rng.chance(0.5);
    case "null":
      return null;
    default:
      return {};
  }
}

/** A JSON value of another kind: for replacing a part of a valid body. */
function randomJson(rng: Rng, depth = 0): unknown {
  switch (rng.int(depth > 2 ? 9 : 12)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick([0, -1, 1, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e308, 1.5, 1e-7, 123456789012345678901234567890]);
    case 3:
      return rng.pick(["", "-1", "0", "1e3", "99999999999999999999999999999999999999", "-99999999999999999999", "0x10", "abc", "zz", "0g", "f", "ffff", LONG, "é🙂", "\u0000", "NaN"]);
    case 4:
      return toHex(rng.bytes(rng.int(50)));
    case 5:
      return rng.pick(WEIRD_SEGMENTS);
    case 6:
      return rng.pick([{ int: "-1" }, { int: "1e3" }, { string: 1 }, { bytes: "zz" }, { bytes: "0" }, { prim: "Unknown" }, { prim: "Pair" }, { prim: "Pair", args: "x" }, { prim: 5 }, { prim: "int", annots: [1] }, { int: "1", string: "x" }]);
    case 7:
      return [];
    case 8:
      return {};
    case 9:
      return [randomJson(rng, depth + 1), randomJson(rng, depth + 1)];
    case 10:
      return { [rng.pick(["kind", "prim", "args", "x", "__proto__", "constructor", "contents", "branch"])]: randomJson(rng, depth + 1) };
    default:
      return deep(rng.pick(["[", "{\"prim\":\"Pair\",\"args\":[", "{\"a\":"]), 50 + rng.int(1200));
  }
}

/** A value nested `n` times (as parsed JSON). */
function deep(opener: string, n: number): unknown {
  let v: unknown = opener === "{\"a\":" ? 1 : [];
  for (let i = 0; i < n; i++) {
    if (opener === "[") v = [v];
    else if (opener === "{\"a\":") v = { a: v };
    else v = { prim: "Pair", args: [v, { int: "1" }] };
  }
  return v;
}

/** Paths to every part of a JSON value: each a list of keys. */
function positions(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = [], limit = 2000): (string | number)[][] {
  if (out.length >= limit) return out;
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => positions(x, [...at, i], out, limit));
  else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) positions(x, [...at, k], out, limit);
  return out;
}

/** `v` with one part (picked at random, the whole included) replaced by `make()`. */
function mutateAt(rng: Rng, v: unknown, make: () => unknown): unknown {
  const copy = structuredClone(v);
  const pos = rng.pick(positions(copy));
  if (pos.length === 0) return make();
  let parent: any = copy;
  for (const k of pos.slice(0, -1)) parent = parent[k];
  parent[pos[pos.length - 1]!] = make();
  return copy;
}

/** JSON text of a well-formed value nested 1 000 to 200 000 deep (arrays, objects, Micheline pairs or sequences). */
function deepText(rng: Rng): string {
  const n = rng.pick([1_000, 5_000, 20_000, 100_000, 200_000]);
  switch (rng.int(5)) {
    case 0:
      return "[".repeat(n) + "]".repeat(n);
    case 1:
      return '{"a":'.repeat(n) + "1" + "}".repeat(n);
    case 2:
      return '{"prim":"Pair","args":['.repeat(n) + '{"int":"1"}' + ',{"int":"2"}]}'.repeat(n);
    case 3:
      return "[".repeat(n) + '{"prim":"UNIT"}' + "]".repeat(n);
    default:
      return '{"prim":"pair","args":['.repeat(n) + '{"prim":"int"}' + ',{"prim":"nat"}]}'.repeat(n);
  }
}

/** `v` with one part changed: replaced by another kind of value, dropped, or an unknown field added. */
function mutateJson(rng: Rng, v: unknown): unknown {
  const copy = structuredClone(v);
  const pos = rng.pick(positions(copy));
  if (pos.length === 0) return randomJson(rng);
  let parent: any = copy;
  for (const k of pos.slice(0, -1)) parent = parent[k];
  const key = pos[pos.length - 1]!;
  const r = rng.int(10);
  if (r < 6) parent[key] = randomJson(rng);
  else if (r < 7) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else if (r < 8) {
    if (Array.isArray(parent)) for (let i = 0, n = 1 + rng.int(30); i < n; i++) parent.push(structuredClone(parent[key as number]));
    else parent["unknown_" + rng.int(9)] = randomJson(rng);
  } else if (r < 9) {
    const x = parent[key];
    if (typeof x === "string") parent[key] = rng.pick([x + x, x.slice(0, rng.int(x.length + 1)), x.toUpperCase(), x + "0", "-" + x, x.replace(/./, "z")]);
    else if (typeof x === "number") parent[key] = rng.pick([-x, x * 1e10, x + 0.5, -1, 2 ** 32, Number.MAX_SAFE_INTEGER + 2]);
    else parent[key] = randomJson(rng);
  } else {
    parent[key] = deep("[", 100 + rng.int(1200));
  }
  return copy;
}

/** A request body: how it is sent. */
export interface BodySpec {
  readonly contentType: string | undefined;
  /** The body: text, or bytes for binary media. */
  readonly body: string | Uint8Array | undefined;
}

/** A valid-looking body for a service: a hand-made sample if its path has one, else one from its input schema. */
function sampleBody(rng: Rng, svc: ServiceSpec, m: Material, hand: Record<string, () => unknown>): unknown {
  const path = svc.template.filter((s): s is string => typeof s === "string").join("/");
  const keys = Object.keys(hand).filter((k) => path.endsWith(k));
  if (keys.length > 0 && (svc.input === undefined || rng.chance(0.75))) return hand[keys.sort((a, b) => b.length - a.length)[0]!]!();
  if (svc.input !== undefined) return fromSchema(rng, svc.input, svc.input, m);
  return rng.chance(0.5) ? {} : null;
}

function body(rng: Rng, svc: ServiceSpec, m: Material, hand: Record<string, () => unknown>, valid: boolean): BodySpec {
  if (valid) return { contentType: "application/json", body: JSON.stringify(sampleBody(rng, svc, m, hand)) };
  const r = 10 + rng.int(90);
  const jsonType = rng.chance(0.9) ? "application/json" : rng.pick(["application/json; charset=utf-8", "APPLICATION/JSON", "text/plain", "application/bson", "application/x-www-form-urlencoded"]);
  if (r < 30) return { contentType: jsonType, body: JSON.stringify(sampleBody(rng, svc, m, hand)) };
  if (r < 70) return { contentType: jsonType, body: JSON.stringify(mutateJson(rng, sampleBody(rng, svc, m, hand))) };
  if (r < 78) {
    const text = JSON.stringify(sampleBody(rng, svc, m, hand));
    return { contentType: jsonType, body: text.slice(0, rng.int(text.length)) };
  }
  if (r < 84) return { contentType: jsonType, body: JSON.stringify(randomJson(rng)) };
  if (r < 85) {
    // nested deeper than a recursive reader goes, and not closed
    const n = 100 + rng.int(20_000);
    const open = rng.pick(["[", '{"a":', '{"prim":"Pair","args":[', '{"script":{"code":[', '{"data":']);
    return { contentType: jsonType, body: open.repeat(n) + "1" };
  }
  if (r < 88) {
    // a valid sample with one part replaced by a well-formed value nested thousands deep
    const MARK = "\u0000deep\u0000";
    const sample = mutateAt(rng, sampleBody(rng, svc, m, hand), () => MARK);
    return { contentType: jsonType, body: JSON.stringify(sample).replace(JSON.stringify(MARK), () => deepText(rng)) };
  }
  if (r < 90) return { contentType: rng.pick([undefined, jsonType]), body: rng.pick(["", " ", "nul", "{", "[1,]", "\"\\u00\"", "\uFFFF", "1".repeat(400), "-", "1e99999"]) };
  // binary
  const len = rng.int(200);
  const data = rng.bytes(len);
  let bytes: Uint8Array;
  if (rng.chance(0.6)) {
    bytes = new Uint8Array(4 + len);
    new DataView(bytes.buffer).setUint32(0, rng.chance(0.8) ? len : rng.u32());
    bytes.set(data, 4);
  } else bytes = data;
  if (m.binaries.length > 0 && rng.chance(0.35)) {
    bytes = rng.pick(m.binaries).slice();
    const k = rng.int(4);
    if (k === 1 && bytes.length > 4) bytes[4 + rng.int(bytes.length - 4)] ^= 1 << rng.int(8);
    else if (k === 2) bytes = bytes.slice(0, rng.int(bytes.length + 1));
    else if (k === 3 && bytes.length > 4) bytes[4 + rng.int(bytes.length - 4)] = rng.int(256);
  } else if (rng.chance(0.15)) {
    const hex = fromHex(m.signedOperation);
    bytes = new Uint8Array(4 + hex.length);
    new DataView(bytes.buffer).setUint32(0, hex.length);
    bytes.set(hex, 4);
    if (rng.chance(0.5)) bytes[4 + rng.int(hex.length)] ^= 1 << rng.int(8);
  }
  return { contentType: "application/octet-stream", body: bytes };
}

// ---------------------------------------------------------------------------------------------
// Requests and checks

/** One request as sent: enough to replay it. */
export interface FuzzRequest {
  readonly service: string;
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array | undefined;
}

/** A request as a line to replay: method, URL, headers, body (bytes in hex). */
export function showRequest(r: FuzzRequest): string {
  const body = r.body === undefined ? "" : typeof r.body === "string" ? (r.body.length > 2000 ? JSON.stringify(r.body.slice(0, 2000)) + `… (${r.body.length} chars)` : JSON.stringify(r.body)) : `hex:${toHex(r.body)}`;
  return `${r.method} ${r.url} ${JSON.stringify(r.headers)} ${body}`;
}

/** Builds request number `i` for a service. */
export function makeRequest(rng: Rng, svc: ServiceSpec, pools: Record<string, readonly string[]>, m: Material, hand: Record<string, () => unknown>): FuzzRequest {
  // What goes wrong: nothing (a valid request, as far as the pools and samples go), one thing
  // (a path argument, the query, the body, the headers or the method), or anything.
  const mode = rng.pick(["valid", "valid", "path", "query", "body", "body", "body", "headers", "anything", "anything"] as const);
  const args = svc.template.filter((x) => typeof x !== "string").length;
  const badArg = mode === "path" ? rng.int(Math.max(1, args) + 1) : -1; // == args: the static part (a changed segment, an extra one)
  const segs: string[] = [];
  let k = 0;
  for (const s of svc.template) {
    if (typeof s === "string") segs.push((mode === "path" && badArg === args && rng.chance(0.2)) || (mode === "anything" && rng.chance(0.02)) ? mutateText(rng, s) : s);
    else if (s.arg === "count") segs.push(rng.pick(["1", "0", "x"]));
    else segs.push(segmentValue(rng, s.arg, pools, !(mode === "anything" || (mode === "path" && badArg === k++))));
  }
  if ((mode === "path" && badArg === args && rng.chance(0.5)) || (mode === "anything" && rng.chance(0.04))) segs.push(rng.pick(["x", "..", "%00", "0", "raw", LONG.slice(0, 300)]));
  let query = queryString(rng, svc, pools, mode === "query" || mode === "anything");
  // the sandbox baker: a few blocks at most
  if (svc.template.join("/") === "sandbox/bake") query = rng.chance(0.5) ? "" : `?count=${rng.pick(["1", "2", "0", "-1", "x", "10001", "99999999999", "1&count=1"])}`;
  let method = svc.method;
  if ((mode === "headers" && rng.chance(0.2)) || (mode === "anything" && rng.chance(0.03))) method = rng.pick(["GET", "POST", "PUT", "DELETE", "PATCH"]);
  const headers: Record<string, string> = {};
  if (mode === "valid" ? rng.chance(0.2) : mode === "headers" || (mode === "anything" && rng.chance(0.1))) {
    headers["accept"] = mode === "valid" ? "application/octet-stream" : rng.pick(["application/octet-stream", "application/octet-stream", "text/html", "*/*;q=0.1, application/octet-stream", "application/json;q=0", "image/*", ""]);
  }
  let b: BodySpec = { contentType: undefined, body: undefined };
  if (method !== "GET" && (svc.hasInput || method === "POST" || rng.chance(0.2))) b = body(rng, svc, m, hand, !(mode === "body" || mode === "anything"));
  if (b.contentType !== undefined) headers["content-type"] = mode === "headers" && rng.chance(0.3) ? rng.pick(["text/plain", "application/bson", "", "application/octet-stream"]) : b.contentType;
  return { service: `${svc.method} ${templateText(svc.template)}`, method, url: `http://localhost/${segs.join("/")}${query}`, headers, body: b.body };
}

/** A check that failed, with the request to replay it. */
export interface FuzzFailure {
  readonly request: FuzzRequest;
  readonly status: number | undefined;
  readonly reason: string;
  readonly text: string;
}

/** Decoded text of a body: UTF-8 (lossy), and for a binary 500, the JSON text inside. */
function bodyText(bytes: Uint8Array, contentType: string | null, status: number): { text: string; errorJson?: string } {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (status === 500 && contentType === "application/octet-stream") {
    if (bytes.length < 8) return { text, errorJson: "" };
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const outer = v.getUint32(0);
    const inner = v.getUint32(4);
    if (outer !== bytes.length - 4 || inner !== bytes.length - 8) return { text, errorJson: "" };
    return { text, errorJson: new TextDecoder().decode(bytes.subarray(8)) };
  }
  return status === 500 ? { text, errorJson: text } : { text };
}

/** Why a 500's body is not an Octez error list, or undefined if it is one. */
function notAnErrorList(text: string): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return "500 whose body is not JSON";
  }
  if (!Array.isArray(v)) return "500 whose body is not a JSON list";
  if (v.length === 0) return "500 with an empty error list";
  for (const e of v) {
    if (e === null || typeof e !== "object" || typeof (e as { kind?: unknown }).kind !== "string" || typeof (e as { id?: unknown }).id !== "string") {
      return "500 with an error that has no string kind and id";
    }
  }
  return undefined;
}

/** Reads a body whole, or its first chunk only for a stream (`monitor`), within `timeoutMs`. */
async function readAnswer(res: Response, streaming: boolean, timeoutMs: number): Promise<{ bytes: Uint8Array; timedOut: boolean }> {
  if (res.body === null) return { bytes: new Uint8Array(0), timedOut: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
  try {
    for (;;) {
      const r = await Promise.race([reader.read(), deadline]);
      if (r === "timeout") {
        timedOut = true;
        break;
      }
      if (r.done) break;
      chunks.push(r.value);
      if (streaming) break;
    }
  } finally {
    clearTimeout(timer);
    if (timedOut || streaming) await reader.cancel().catch(() => {});
  }
  const n = chunks.reduce((a, c) => a + c.length, 0);
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return { bytes: out, timedOut };
}

/** Settings of one run. */
export interface FuzzOptions {
  readonly requests: number;
  readonly seed: number;
  /** Longest wait for an answer (headers and body; streams: first chunk) before it is a failure (default 15 s). */
  readonly answerTimeoutMs?: number;
  /** Requests in flight at once (default 1: one after the other). */
  readonly concurrency?: number;
  /** Only the services whose template contains this text. */
  readonly only?: string;
  /** Called with each request before it is sent (to find one that never lets go of the event loop). */
  readonly onRequest?: (request: FuzzRequest, index: number) => void;
  /** Called every `progressEvery` requests. */
  readonly onProgress?: (done: number, failures: number) => void;
  readonly progressEvery?: number;
}

/** What a run found. */
export interface FuzzReport {
  readonly requests: number;
  readonly services: number;
  readonly statuses: Map<number, number>;
  /** The distinct errors of 500 answers (the ids of the trace, and a failure's message), with a request that got each. */
  readonly errors: Map<string, FuzzRequest>;
  /** The distinct texts of 400 answers (digits as N), with a request that got each. */
  readonly reasons: Map<string, FuzzRequest>;
  /** Statuses per service (`METHOD /template`). */
  readonly perService: Map<string, Map<number, number>>;
  readonly failures: FuzzFailure[];
  /** Requests per service template, slowest requests. */
  readonly slowest: { request: FuzzRequest; ms: number }[];
  readonly ms: number;
}

/**
 * What the node writes on stderr while a run goes on, and the promises nobody waited on and the
 * exceptions nobody caught: the node must print no stack trace and crash on nothing a request
 * carries. Undone by `stop()`.
 */
function watchProcess(): { stop(): { stderr: string[]; crashes: string[] } } {
  const stderr: string[] = [];
  const crashes: string[] = [];
  const error = console.error;
  const warn = console.warn;
  console.error = (...args: unknown[]) => void stderr.push(args.map((a) => (a instanceof Error ? (a.stack ?? a.message) : String(a))).join(" "));
  console.warn = console.error;
  const proc = globalThis.process as NodeJS.Process | undefined;
  const write = proc?.stderr?.write;
  if (proc?.stderr !== undefined && write !== undefined) {
    proc.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
      stderr.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk as Uint8Array));
      return (write as (...a: unknown[]) => boolean).call(proc.stderr, chunk, ...rest);
    }) as typeof proc.stderr.write;
  }
  const onRejection = (e: unknown) => void crashes.push(`unhandled rejection: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  const onException = (e: unknown) => void crashes.push(`uncaught exception: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  proc?.on?.("unhandledRejection", onRejection);
  proc?.on?.("uncaughtException", onException);
  return {
    stop() {
      console.error = error;
      console.warn = warn;
      if (proc?.stderr !== undefined && write !== undefined) proc.stderr.write = write;
      proc?.off?.("unhandledRejection", onRejection);
      proc?.off?.("uncaughtException", onException);
      return { stderr, crashes };
    },
  };
}

/**
 * Streamed answers (Octez's monitors and logs, and the early layout's `/bootstrapped`, which is
 * `/monitor/bootstrapped`: it waits as long as the node is not bootstrapped, as after a fuzzed
 * `PATCH /chains/main {"bootstrapped": false}`): only their first chunk is read, within a short time.
 */
const STREAMING = /\/monitor|\/log(\?|$)|[?&]monitor(=|&|$)|^https?:\/\/[^/]+\/bootstrapped(\?|$)/;

/** A stack trace's lines, or the node's one-line report of an exception that was not a Tezos error. */
const STACK_OR_INTERNAL = /\n\s+at \S|^RPC internal error/m;

/**
 * Runs `options.requests` requests over the services (`options.concurrency` at a time, 1 by
 * default), checking each answer, then what the process printed and threw meanwhile.
 */
export async function runFuzz(f: FuzzNode, services: readonly ServiceSpec[], options: FuzzOptions): Promise<FuzzReport> {
  const rng = new Rng(options.seed);
  const pools = goodValues(f.material);
  const hand = handSamples(f.material, rng);
  const targets = options.only === undefined ? services : services.filter((s) => templateText(s.template).includes(options.only!) || `${s.method} ${templateText(s.template)}`.includes(options.only!));
  const statuses = new Map<number, number>();
  const perService = new Map<string, Map<number, number>>();
  const errors = new Map<string, FuzzRequest>();
  const reasons = new Map<string, FuzzRequest>();
  const failures: FuzzFailure[] = [];
  const slowest: { request: FuzzRequest; ms: number }[] = [];
  const timeout = options.answerTimeoutMs ?? 15_000;
  const start = performance.now();
  let order: ServiceSpec[] = [];
  let next = 0;
  let done = 0;

  /** The next request, in the same order whatever the concurrency. */
  const nextRequest = (): FuzzRequest | undefined => {
    if (next >= options.requests || targets.length === 0) return undefined;
    if (order.length === 0) {
      order = [...targets];
      for (let k = order.length - 1; k > 0; k--) {
        const j = rng.int(k + 1);
        [order[k], order[j]] = [order[j]!, order[k]!];
      }
    }
    const req = makeRequest(rng, order.pop()!, pools, f.material, hand);
    // not inside the optional call: `f?.(x++)` skips the increment when f is missing
    const index = next++;
    options.onRequest?.(req, index);
    return req;
  };

  const one = async (req: FuzzRequest): Promise<void> => {
    const streaming = STREAMING.test(req.url);
    const t0 = performance.now();
    const fail = (status: number | undefined, reason: string, text: string) => failures.push({ request: req, status, reason, text: text.slice(0, 1000) });
    const init: RequestInit = { method: req.method, headers: req.headers };
    if (req.body !== undefined) init.body = req.body as BodyInit;
    let request: Request;
    try {
      request = new Request(req.url, init);
    } catch {
      return; // a request the runtime's own Request refuses is no request a client can send
    }
    let res: Response | "timeout";
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      res = await Promise.race([f.node.fetch(request), new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeout)))]);
    } catch (e) {
      return void fail(undefined, `fetch rejected: ${e instanceof Error ? e.message : String(e)}`, "");
    } finally {
      clearTimeout(timer);
    }
    if (res === "timeout") return void fail(undefined, `no answer within ${timeout} ms`, "");
    const { bytes, timedOut } = await readAnswer(res, streaming, streaming ? 300 : timeout);
    const ms = performance.now() - t0;
    slowest.push({ request: req, ms });
    if (slowest.length > 40) {
      slowest.sort((a, b) => b.ms - a.ms);
      slowest.length = 20;
    }
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    let mine = perService.get(req.service);
    if (mine === undefined) perService.set(req.service, (mine = new Map()));
    mine.set(res.status, (mine.get(res.status) ?? 0) + 1);
    const { text, errorJson } = bodyText(bytes, res.headers.get("content-type"), res.status);
    if (timedOut && !streaming) fail(res.status, `body not read within ${timeout} ms`, text);
    if (!ALLOWED_STATUSES.has(res.status)) fail(res.status, `status ${res.status}`, text);
    if (errorJson !== undefined) {
      const why = notAnErrorList(errorJson);
      if (why !== undefined) fail(res.status, why, text);
      else {
        const trace = JSON.parse(errorJson) as { id: string; msg?: unknown }[];
        // the handler's last line of defence answered: a JavaScript exception with no proper answer
        if (trace.some((e) => e.id === "failure" && e.msg === "Internal error")) fail(res.status, "an exception that is not a Tezos error (the generic Internal error)", text);
        const key = trace.map((e) => (typeof e.msg === "string" ? `${e.id} ${JSON.stringify(e.msg.replace(/\d+/g, "N").slice(0, 120))}` : e.id)).join(" / ");
        if (!errors.has(key)) errors.set(key, req);
      }
    }
    if (res.status === 400) {
      const key = text.replace(/"[^"]*"/g, '"…"').replace(/\d+/g, "N").slice(0, 160);
      if (!reasons.has(key)) reasons.set(key, req);
    }
    const internal = JS_INTERNALS.exec(text);
    if (internal !== null && !(res.status === 200 && /^\/protocols\/[^/]+$/.test(new URL(req.url).pathname))) {
      fail(res.status, `JavaScript internals in the body: ${JSON.stringify(internal[0])}`, text.slice(Math.max(0, internal.index - 300), internal.index + 300));
    }
    done++;
    if (options.onProgress !== undefined && done % (options.progressEvery ?? 500) === 0) options.onProgress(done, failures.length);
  };

  const watch = watchProcess();
  let printed: { stderr: string[]; crashes: string[] };
  try {
    const worker = async () => {
      for (let req = nextRequest(); req !== undefined; req = nextRequest()) await one(req);
    };
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, worker));
    await new Promise((r) => setTimeout(r, 50)); // rejections nobody waited on show up a moment later
  } finally {
    printed = watch.stop();
  }
  const none: FuzzRequest = { service: "(the process)", method: "", url: "", headers: {}, body: undefined };
  for (const c of printed.crashes) failures.push({ request: none, status: undefined, reason: "the process crashed", text: c.slice(0, 2000) });
  const traces = printed.stderr.filter((t) => STACK_OR_INTERNAL.test(t));
  for (const t of traces.slice(0, 20)) failures.push({ request: none, status: undefined, reason: "a stack trace or an internal error on stderr", text: t.slice(0, 2000) });
  slowest.sort((a, b) => b.ms - a.ms);
  return { requests: next, services: targets.length, statuses, errors, reasons, perService, failures, slowest: slowest.slice(0, 10), ms: performance.now() - start };
}

// ---------------------------------------------------------------------------------------------
// Memory

/** A full garbage collection, where the runtime offers one (Node: through `--expose-gc` set at run time; Bun: `Bun.gc`). */
export async function collectGarbage(): Promise<boolean> {
  const g = globalThis as { Bun?: { gc(full: boolean): void }; gc?: () => void };
  if (g.Bun !== undefined) {
    g.Bun.gc(true);
    return true;
  }
  if (typeof g.gc === "function") {
    g.gc();
    return true;
  }
  if (typeof (globalThis as { Deno?: unknown }).Deno === "undefined") {
    try {
      const v8 = await import("node:v8");
      const vm = await import("node:vm");
      v8.setFlagsFromString("--expose-gc");
      const gc = vm.runInNewContext("gc") as () => void;
      gc();
      return true;
    } catch {
      return false;
    }
  }
  return false;
}

/** Heap used, in bytes, after a collection and a moment's wait. */
export async function settledHeapUsed(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 100));
    await collectGarbage();
  }
  return process.memoryUsage().heapUsed;
}
