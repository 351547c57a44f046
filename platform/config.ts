/**
 * Octez-style configuration files (`--config-file`, as `tezos-node run --config-file`): the
 * fields this node reads, checked, as a pure function of the file's text. Unknown fields are
 * refused rather than ignored, so that nothing a user writes is silently without effect.
 *
 * ```json
 * { "data-dir": "/var/tezos",
 *   "rpc": { "listen-addrs": ["0.0.0.0:8732"], "cors-origin": ["*"], "cors-headers": ["content-type"],
 *            "acl": [{ "address": "0.0.0.0:8732", "blacklist": ["POST /injection/block"] }] } }
 * ```
 * @module
 */
import { type AclEntry, parseAclPolicy } from "../lib/rpc/acl.ts";
import { parseRpcAddr, type RpcAddr, UsageError } from "./cli.ts";

/** What a configuration file sets. */
export interface ConfigFile {
  readonly dataDir?: string;
  readonly rpcAddrs?: readonly RpcAddr[];
  readonly acl: readonly AclEntry[];
  readonly corsOrigins?: readonly string[];
  readonly corsHeaders?: readonly string[];
}

const TOP = new Set(["data-dir", "rpc"]);
const RPC = new Set(["listen-addrs", "acl", "cors-origin", "cors-headers"]);

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
    ...(origins === undefined ? {} : { corsOrigins: origins }),
    ...(headers === undefined ? {} : { corsHeaders: headers }),
  };
}
