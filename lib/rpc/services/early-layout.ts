/**
 * The paths of the early (pre-June-2018) layout, every line of the specification's rename table,
 * each served as the current path it was renamed to: the request goes on to that path with the
 * old path's arguments mapped, and its answer (status, body, stream) is the old path's. They are
 * services of their own, so `/describe` lists them (each description names its current path).
 *
 * Where the old form took other arguments, they are mapped:
 * - `/blocks/<id>/predecessors?length=N` → `{C}/blocks?head=<hash of id>&length=N`;
 * - `/blocks/<id>/proto/helpers/level/<level>` → `{B}/helpers/current_level?offset=<level − level of id>`;
 * - `/blocks/<id>/proto/helpers/levels/<cycle>` → `{B}/helpers/levels_in_current_cycle?offset=<cycle − cycle of id>`;
 * - `/blocks/<id>/proto/helpers/minimal_timestamp?priority=P` (or `{"priority": P}` in a POST
 *   body) → `{B}/helpers/baking_rights?max_priority=<P + 1>`: the rights up to priority P, each
 *   with its minimal time (`estimated_time`);
 * - `/blocks/<id>/proto/helpers/rights/baking[/delegate/<pkh> | /level/<level>]` →
 *   `{B}/helpers/baking_rights[?delegate=<pkh> | ?level=<level>]`, and the same for
 *   `rights/endorsement` → `endorsing_rights`; the old `max_priority` goes on as is;
 * - `/blocks/<id>/protocol` → `{B}/metadata/next_protocol_hash` (the old service answered the
 *   protocol of the next block, note 13 of the table);
 * - `/blocks` → `{C}/blocks` (its `length`, `head` and `min_date` as they are).
 *
 * Elsewhere the query goes on unchanged. The early layout used POST for reads: each old read path
 * takes GET and POST. Octez v12 serves none of these paths; as they are not in Octez's ACL
 * whitelist, a node listening on a public address refuses them too (`lib/rpc/acl.ts`).
 * @module
 */
import { type Json } from "../../encoding/codec.ts";
import { type Arg, floatArg, intArg, likeArg, stringArg, uintArg } from "../arg.ts";
import { Directory } from "../directory.ts";
import { anyJson } from "../json_any.ts";
import { BodyTooLarge, readBody } from "../media.ts";
import { optional, query } from "../query.ts";
import { type Method, type PathItem, rawService, type ServiceCall, tail } from "../service.ts";

/** Serves a request as the node does (the node's own handler, without access control). */
export type Forward = (request: Request) => Promise<Response>;

/** Where an old path's request goes: the current path (raw segments) and its query. */
interface Target {
  readonly method: Method;
  readonly path: readonly string[];
  readonly search?: URLSearchParams;
  /** A JSON body of its own (the old request's body is not passed on then). */
  readonly body?: string;
}

type Call = ServiceCall<(string | number | string[])[], Record<string, unknown>, unknown, unknown>;

/** One line of the rename table: the old path, the methods it takes, and where it goes. */
interface OldPath {
  readonly from: string;
  /** The current path, `{name}` for an old argument; or a function of the call for mapped arguments. */
  readonly to: string | ((call: Call, node: NodeReads) => Promise<Target | Response>);
  /** Method of the current service (GET when absent). */
  readonly method?: Method;
  /** Methods the old path takes (GET and POST when absent). */
  readonly via?: readonly Method[];
  /** Old query arguments, declared for `/describe` (the query goes on unchanged otherwise). */
  readonly query?: Record<string, string>;
}

/** The reads a mapping makes of the node, through the node's own services. */
interface NodeReads {
  /** The JSON of a GET that answers 200; any other answer is thrown as a {@link ReadAnswer}. */
  json(path: string): Promise<unknown>;
}

/**
 * A read of a mapping that did not answer 200 (a block id that does not parse: 400, an unknown
 * block: 404): the old path answers with that answer, as the current path would.
 */
class ReadAnswer {
  readonly response: Response;
  constructor(response: Response) {
    this.response = response;
  }
}

/** A block path of the current layout, the block id (from the old path, decoded) encoded again. */
function blockPath(block: unknown, rest: string): string {
  return `/chains/main/blocks/${encodeURIComponent(String(block))}/${rest}`;
}

const B = "/chains/main/blocks/{block}";

/** The specification's rename table (see the module documentation). */
export const EARLY_LAYOUT: readonly OldPath[] = [
  { from: "/blocks", to: "/chains/main/blocks", query: { length: "int", head: "block_hash", min_date: "date" } },
  { from: "/blocks/{block}", to: B },
  { from: "/blocks/{block}/chain_id", to: "/chains/main/chain_id" },
  { from: "/blocks/{block}/complete/{prefix}", to: `${B}/helpers/complete/{prefix}` },
  { from: "/blocks/{block}/fitness", to: `${B}/header/shell/fitness` },
  { from: "/blocks/{block}/hash", to: `${B}/hash` },
  { from: "/blocks/{block}/level", to: `${B}/header/shell/level` },
  { from: "/blocks/{block}/operations", to: `${B}/operations` },
  { from: "/blocks/{block}/preapply", to: `${B}/helpers/preapply/block`, method: "POST", via: ["POST"] },
  { from: "/blocks/{block}/predecessor", to: `${B}/header/shell/predecessor` },
  {
    from: "/blocks/{block}/predecessors",
    query: { length: "int" },
    to: async (call, node) => {
      const search = new URLSearchParams({ head: String(await node.json(blockPath(call.params[0], "hash"))) });
      const length = new URL(call.request.url).searchParams.get("length");
      if (length !== null) search.set("length", length);
      return { method: "GET", path: ["chains", "main", "blocks"], search };
    },
  },
  { from: "/blocks/{block}/protocol", to: `${B}/metadata/next_protocol_hash` },
  { from: "/blocks/{block}/proto/constants", to: `${B}/context/constants` },
  { from: "/blocks/{block}/proto/constants/{name}", to: `${B}/context/constants/{name}` },
  { from: "/blocks/{block}/proto/context/contracts", to: `${B}/context/contracts` },
  { from: "/blocks/{block}/proto/context/contracts/{contract}", to: `${B}/context/contracts/{contract}` },
  { from: "/blocks/{block}/proto/context/level", to: `${B}/metadata/protocol_data` },
  { from: "/blocks/{block}/proto/context/next_level", to: `${B}/helpers/current_level` },
  { from: "/blocks/{block}/proto/context/nonce/{level}", to: `${B}/context/nonces/{level}` },
  { from: "/blocks/{block}/proto/context/voting_period_kind", to: `${B}/metadata/protocol_data` },
  { from: "/blocks/{block}/proto/header", to: `${B}/header/protocol_data` },
  { from: "/blocks/{block}/proto/helpers/apply_operation", to: `${B}/helpers/preapply/operations`, method: "POST", via: ["POST"] },
  { from: "/blocks/{block}/proto/helpers/forge/operations", to: `${B}/helpers/forge/operations`, method: "POST", via: ["POST"] },
  { from: "/blocks/{block}/proto/helpers/forge/protocol_data", to: `${B}/helpers/forge/protocol_data`, method: "POST", via: ["POST"] },
  { from: "/blocks/{block}/proto/helpers/hash_data", to: `${B}/helpers/scripts/hash_data`, method: "POST", via: ["POST"] },
  {
    from: "/blocks/{block}/proto/helpers/level/{level}",
    to: async (call, node) => {
      const [block, level] = call.params as [string, number];
      const current = Number(await node.json(blockPath(block, "header/shell/level")));
      return helper(block, "current_level", { offset: String(level - current) });
    },
  },
  {
    from: "/blocks/{block}/proto/helpers/levels/{cycle}",
    to: async (call, node) => {
      const [block, cycle] = call.params as [string, number];
      const current = (await node.json(blockPath(block, "helpers/current_level"))) as { cycle: number };
      return helper(block, "levels_in_current_cycle", { offset: String(cycle - current.cycle) });
    },
  },
  {
    from: "/blocks/{block}/proto/helpers/minimal_timestamp",
    query: { priority: "int" },
    to: async (call) => {
      const priority = await priorityOf(call);
      if (typeof priority === "string") return new Response(priority, { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });
      return helper(call.params[0] as string, "baking_rights", { max_priority: String(priority + 1) });
    },
  },
  { from: "/blocks/{block}/proto/helpers/parse/block", to: `${B}/helpers/parse/block`, method: "POST", via: ["POST"] },
  { from: "/blocks/{block}/proto/helpers/parse/operations", to: `${B}/helpers/parse/operations`, method: "POST", via: ["POST"] },
  { from: "/blocks/{block}/proto/helpers/rights/baking", to: `${B}/helpers/baking_rights` },
  { from: "/blocks/{block}/proto/helpers/rights/baking/delegate/{pkh}", to: (call) => rights(call, "baking_rights", "delegate") },
  { from: "/blocks/{block}/proto/helpers/rights/baking/level/{level}", to: (call) => rights(call, "baking_rights", "level") },
  { from: "/blocks/{block}/proto/helpers/rights/endorsement", to: `${B}/helpers/endorsing_rights` },
  { from: "/blocks/{block}/proto/helpers/rights/endorsement/delegate/{pkh}", to: (call) => rights(call, "endorsing_rights", "delegate") },
  { from: "/blocks/{block}/proto/helpers/rights/endorsement/level/{level}", to: (call) => rights(call, "endorsing_rights", "level") },
  { from: "/blocks/{block}/proto/helpers/run_code", to: `${B}/helpers/scripts/run_code`, method: "POST", via: ["POST"] },
  { from: "/blocks/{block}/proto/helpers/trace_code", to: `${B}/helpers/scripts/trace_code`, method: "POST", via: ["POST"] },
  { from: "/blocks/{block}/proto/helpers/typecheck_code", to: `${B}/helpers/scripts/typecheck_code`, method: "POST", via: ["POST"] },
  { from: "/blocks/{block}/proto/helpers/typecheck_data", to: `${B}/helpers/scripts/typecheck_data`, method: "POST", via: ["POST"] },
  { from: "/blocks/{block}/proto/operations", to: `${B}/operations` },
  { from: "/blocks/{block}/raw_context/{path*}", to: `${B}/context/raw/bytes/{path*}` },
  { from: "/blocks/{block}/test_chain", to: `${B}/metadata/test_chain_status` },
  { from: "/blocks/{block}/timestamp", to: `${B}/header/shell/timestamp` },
  { from: "/bootstrapped", to: "/monitor/bootstrapped" },
  { from: "/complete/{prefix}", to: "/chains/main/blocks/head/helpers/complete/{prefix}" },
  { from: "/forge_block_header", to: "/chains/main/blocks/head/helpers/forge/block_header", method: "POST", via: ["POST"] },
  { from: "/inject_block", to: "/injection/block", method: "POST", via: ["POST"] },
  { from: "/inject_operation", to: "/injection/operation", method: "POST", via: ["POST"] },
  { from: "/inject_protocol", to: "/injection/protocol", method: "POST", via: ["POST"] },
  { from: "/invalid_blocks", to: "/chains/main/invalid_blocks" },
  { from: "/invalid_blocks/{hash}", to: "/chains/main/invalid_blocks/{hash}" },
  { from: "/invalid_blocks/{hash}/unmark", to: "/chains/main/invalid_blocks/{hash}", method: "DELETE" },
  { from: "/mempool/pending_operations", to: "/chains/main/mempool/pending_operations" },
  { from: "/p2p/connections", to: "/network/connections" },
  { from: "/p2p/connections/{peer}", to: "/network/connections/{peer}" },
  { from: "/p2p/connections/{peer}/kick", to: "/network/connections/{peer}", method: "DELETE" },
  { from: "/p2p/connect/{point}", query: { timeout: "float" }, to: (call) => connectTarget(call) },
  { from: "/p2p/log", to: "/network/log" },
  { from: "/p2p/peers", to: "/network/peers" },
  { from: "/p2p/peers/{peer}", to: "/network/peers/{peer}" },
  { from: "/p2p/peers/{peer}/log", to: "/network/peers/{peer}/log" },
  { from: "/networks/point", to: "/network/points" },
  { from: "/p2p/points", to: "/network/points" },
  { from: "/p2p/points/{point}", to: "/network/points/{point}" },
  { from: "/p2p/points/{point}/log", to: "/network/points/{point}/log" },
  { from: "/p2p/stat", to: "/network/stat" },
  { from: "/p2p/versions", to: "/network/versions" },
  { from: "/workers/peer_validators/{chain}", to: "/workers/chain_validators/{chain}/peers_validators" },
  { from: "/workers/peer_validators/{chain}/{peer}", to: "/workers/chain_validators/{chain}/peers_validators/{peer}" },
];

/**
 * The old `connect/<point>` (a POST whose body was `{"timeout": seconds}`, or a GET) as
 * `PUT /network/points/<point>?timeout=<seconds>` with the body `{}` the current service takes; the
 * old body's timeout, else the query's, else the current default.
 */
async function connectTarget(call: Call): Promise<Target | Response> {
  const search = new URLSearchParams(new URL(call.request.url).search);
  if (call.request.method === "POST") {
    let text: string;
    try {
      text = new TextDecoder().decode(await readBody(call.request, 64 * 1024));
    } catch (e) {
      if (e instanceof BodyTooLarge) return badBody(e.message);
      throw e;
    }
    if (text.trim() !== "") {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return badBody("not JSON");
      }
      const timeout = (body as { timeout?: unknown } | null)?.timeout;
      if (timeout !== undefined) {
        if (typeof timeout !== "number" || !Number.isFinite(timeout)) return badBody("timeout must be a number of seconds");
        search.set("timeout", String(timeout));
      }
    }
  }
  return { method: "PUT", path: ["network", "points", String(call.params[0])], search, body: "{}" };
}

function badBody(why: string): Response {
  return new Response(`Failed to parse the request body: ${why}`, { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });
}

/** A helper of the block `block` with a query. */
function helper(block: string, name: string, search: Record<string, string>): Target {
  return { method: "GET", path: ["chains", "main", "blocks", block, "helpers", name], search: new URLSearchParams(search) };
}

/** `rights/<kind>/delegate/<pkh>` or `/level/<level>`: the merged service with that argument, and the rest of the query. */
function rights(call: Call, service: string, by: "delegate" | "level"): Promise<Target> {
  const [block, value] = call.params as [string, string | number];
  const search = new URLSearchParams(new URL(call.request.url).search);
  search.set(by, String(value));
  return Promise.resolve({ method: "GET", path: ["chains", "main", "blocks", block, "helpers", service], search });
}

/**
 * The old `minimal_timestamp`'s priority: the query's (checked by the query parser), or a POST
 * body's `{"priority": n}`; 0 when absent. A text (the 400's reason) for a body that is not that.
 */
async function priorityOf(call: Call): Promise<number | string> {
  const inQuery = call.query["priority"] as number | undefined;
  if (inQuery !== undefined) return inQuery;
  if (call.request.method !== "POST") return 0;
  let text: string;
  try {
    text = new TextDecoder().decode(await readBody(call.request, 64 * 1024));
  } catch (e) {
    if (e instanceof BodyTooLarge) return `Failed to parse the request body: ${e.message}`;
    throw e;
  }
  if (text.trim() === "") return 0;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "Failed to parse the request body: not JSON";
  }
  const p = (body as { priority?: unknown } | null)?.priority;
  if (p === undefined) return 0;
  if (typeof p !== "number" || !Number.isInteger(p) || p < 0 || p > 0xffff) return "Failed to parse the request body: priority must be an integer in [0, 65535]";
  return p;
}

type Piece = { readonly literal: string } | { readonly name: string; readonly rest: boolean };

function pieces(pattern: string): Piece[] {
  return pattern
    .split("/")
    .filter((s) => s !== "")
    .map((s) => {
      const m = /^\{([A-Za-z_]+)(\*)?\}$/.exec(s);
      return m === null ? { literal: s } : { name: m[1]!, rest: m[2] === "*" };
    });
}

const ARG_NAMES: Record<string, string> = {
  block: "block_id",
  prefix: "prefix",
  name: "constant",
  contract: "contract_id",
  level: "block_level",
  cycle: "block_cycle",
  pkh: "pkh",
  hash: "block_hash",
  peer: "peer_id",
  point: "point",
  chain: "chain_id",
  path: "context_path",
};

/** One argument per name (levels and cycles are integers): the paths that share a prefix share its argument. */
const ARGS = new Map<string, Arg<unknown>>(
  Object.entries(ARG_NAMES).map(([k, name]) => [k, k === "level" || k === "cycle" ? likeArg(intArg, name) : likeArg(stringArg, name)]),
);

/** The old path as service path items: static segments, and text arguments named as the specification names them. */
function pathItems(from: Piece[]): PathItem[] {
  return from.map((p) => {
    if ("literal" in p) return p.literal;
    const arg = ARGS.get(p.name)!;
    return p.rest ? tail(arg) : arg;
  });
}

/** The request the old path's call goes on as. */
async function targetOf(row: OldPath, from: Piece[], call: Call, node: NodeReads): Promise<Target | Response> {
  if (typeof row.to === "function") return row.to(call, node);
  const bound = new Map<string, string | string[]>();
  let i = 0;
  for (const p of from) {
    if ("literal" in p) continue;
    const v = call.params[i++]!;
    bound.set(p.name, Array.isArray(v) ? v : String(v));
  }
  const path: string[] = [];
  for (const p of pieces(row.to)) {
    if ("literal" in p) path.push(p.literal);
    else {
      const v = bound.get(p.name)!;
      if (Array.isArray(v)) path.push(...v);
      else path.push(v);
    }
  }
  return { method: row.method ?? "GET", path, search: new URL(call.request.url).searchParams };
}

/** The early layout's services over `forward` (the node's own handler, given once it exists). */
export function earlyLayoutServices(forward: () => Forward): Directory<void> {
  const dir = new Directory();
  const reads: NodeReads = {
    async json(path) {
      const res = await forward()(new Request(`http://localhost${path}`));
      if (res.status !== 200) throw new ReadAnswer(res);
      return (await res.json()) as Json;
    },
  };
  for (const row of EARLY_LAYOUT) {
    const from = pieces(row.from);
    const target = typeof row.to === "string" ? row.to : "(mapped, see the module documentation)";
    const description = `Early layout: served as ${row.method ?? "GET"} ${target.replaceAll("{", "<").replaceAll("}", ">")}.`;
    const q = row.query === undefined ? undefined : query(Object.fromEntries(Object.entries(row.query).map(([k, t]) => [k, optional<unknown>(t === "int" ? uintArg : t === "float" ? floatArg : stringArg)])));
    for (const method of row.via ?? ["GET", "POST"]) {
      dir.register(
        rawService({
          method,
          path: pathItems(from),
          description,
          ...(q === undefined ? {} : { query: q }),
          output: anyJson(),
          handler: async (call) => {
            let t: Target | Response;
            try {
              t = await targetOf(row, from, call as unknown as Call, reads);
            } catch (e) {
              if (e instanceof ReadAnswer) return e.response;
              throw e;
            }
            if (t instanceof Response) return t;
            const url = new URL(call.request.url);
            const search = t.search?.toString() ?? "";
            const target = `${url.origin}/${t.path.map(encodeURIComponent).join("/")}${search === "" ? "" : `?${search}`}`;
            // the body goes on as a stream: the current path reads it, within its size limit
            const body = t.body ?? (t.method === "GET" || t.method === "DELETE" ? undefined : call.request.body);
            const headers = new Headers(call.request.headers);
            if (t.body !== undefined) {
              headers.delete("content-length");
              headers.set("content-type", "application/json");
            }
            const init = { method: t.method, headers, body, signal: call.request.signal, duplex: "half" };
            return forward()(new Request(target, init as RequestInit));
          },
        }),
      );
    }
  }
  return dir;
}
