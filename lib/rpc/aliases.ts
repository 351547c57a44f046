/**
 * Path aliases for the early (pre-June-2018) layout: an old path is rewritten to its current
 * path and method before routing. Patterns use `{name}` for one segment and `{name*}` (last)
 * for the rest of the path; the target reuses the names.
 * @module
 */
import type { Method } from "./service.ts";

/** One alias: `from` (old path pattern) is served as `method` (default GET) on `to`. */
export interface PathAlias {
  /** Old path pattern, e.g. `/blocks/{block}/hash`. */
  readonly from: string;
  /** New path pattern, e.g. `/chains/main/blocks/{block}/hash`. */
  readonly to: string;
  /** Method of the new service; GET when absent. */
  readonly method?: Method;
  /** Methods accepted on the old path; GET and POST (the early layout used POST) when absent. */
  readonly via?: readonly string[];
}

type Piece = { readonly literal: string } | { readonly name: string; readonly rest: boolean };

function compile(pattern: string): Piece[] {
  return pattern
    .split("/")
    .filter((s) => s !== "")
    .map((s, i, all) => {
      const m = /^\{([A-Za-z_][A-Za-z0-9_]*)(\*)?\}$/.exec(s);
      if (m === null) {
        if (s.includes("{") || s.includes("}")) throw new TypeError(`alias: bad segment ${JSON.stringify(s)} in ${pattern}`);
        return { literal: s };
      }
      if (m[2] === "*" && i !== all.length - 1) throw new TypeError(`alias: {${m[1]}*} must be last in ${pattern}`);
      return { name: m[1]!, rest: m[2] === "*" };
    });
}

interface Compiled {
  readonly alias: PathAlias;
  readonly from: Piece[];
  readonly to: Piece[];
  readonly method: Method;
  readonly via: ReadonlySet<string>;
}

/** Compiled aliases, indexed by first segment so unrelated requests cost one map lookup. */
export class AliasTable {
  private readonly byFirst = new Map<string, Compiled[]>();
  /** The aliases, in declaration order. */
  readonly aliases: readonly PathAlias[];

  constructor(aliases: readonly PathAlias[]) {
    this.aliases = aliases;
    for (const alias of aliases) {
      const from = compile(alias.from);
      const to = compile(alias.to);
      const first = from[0];
      if (first === undefined || !("literal" in first)) throw new TypeError(`alias: ${alias.from} must start with a static segment`);
      const names = new Set(from.flatMap((p) => ("name" in p ? [p.name] : [])));
      for (const p of to) if ("name" in p && !names.has(p.name)) throw new TypeError(`alias: {${p.name}} of ${alias.to} is not in ${alias.from}`);
      const c: Compiled = { alias, from, to, method: alias.method ?? "GET", via: new Set(alias.via ?? ["GET", "POST"]) };
      const list = this.byFirst.get(first.literal);
      if (list === undefined) this.byFirst.set(first.literal, [c]);
      else list.push(c);
    }
  }

  /** The method and segments a request on an old path is served as, or undefined if no alias applies. */
  resolve(method: string, segments: readonly string[]): { method: Method; segments: string[] } | undefined {
    if (segments.length === 0) return undefined;
    const list = this.byFirst.get(segments[0]!);
    if (list === undefined) return undefined;
    for (const c of list) {
      if (!c.via.has(method) && method !== "OPTIONS") continue;
      const bound = match(c.from, segments);
      if (bound === undefined) continue;
      const out: string[] = [];
      for (const p of c.to) {
        if ("literal" in p) out.push(p.literal);
        else {
          const v = bound.get(p.name)!;
          if (typeof v === "string") out.push(v);
          else out.push(...v);
        }
      }
      return { method: c.method, segments: out };
    }
    return undefined;
  }
}

function match(pattern: readonly Piece[], segments: readonly string[]): Map<string, string | string[]> | undefined {
  const bound = new Map<string, string | string[]>();
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if ("literal" in p) {
      if (segments[i] !== p.literal) return undefined;
    } else if (p.rest) {
      bound.set(p.name, segments.slice(i));
      return bound;
    } else {
      const s = segments[i];
      if (s === undefined) return undefined;
      bound.set(p.name, s);
    }
  }
  return pattern.length === segments.length ? bound : undefined;
}

const B = "/chains/main/blocks/{block}";

/**
 * The one-to-one rows of the specification's rename table (old layout → current layout). Rows
 * whose meaning changed (old `/blocks`, `/blocks/<id>/predecessors`, `/blocks/<id>/protocol`,
 * the merged rights and level helpers) are left out: no single current path answers them.
 */
export const EARLY_LAYOUT_ALIASES: readonly PathAlias[] = [
  { from: "/blocks/{block}", to: B },
  { from: "/blocks/{block}/chain_id", to: "/chains/main/chain_id" },
  { from: "/blocks/{block}/complete/{prefix}", to: `${B}/helpers/complete/{prefix}` },
  { from: "/blocks/{block}/fitness", to: `${B}/header/shell/fitness` },
  { from: "/blocks/{block}/hash", to: `${B}/hash` },
  { from: "/blocks/{block}/level", to: `${B}/header/shell/level` },
  { from: "/blocks/{block}/operations", to: `${B}/operations` },
  { from: "/blocks/{block}/preapply", to: `${B}/helpers/preapply/block`, method: "POST", via: ["POST"] },
  { from: "/blocks/{block}/predecessor", to: `${B}/header/shell/predecessor` },
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
  { from: "/blocks/{block}/proto/helpers/parse/block", to: `${B}/helpers/parse/block`, method: "POST", via: ["POST"] },
  { from: "/blocks/{block}/proto/helpers/parse/operations", to: `${B}/helpers/parse/operations`, method: "POST", via: ["POST"] },
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
  { from: "/p2p/connect/{point}", to: "/network/points/{point}", method: "PUT" },
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
