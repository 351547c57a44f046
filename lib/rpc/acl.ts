/**
 * Octez's RPC access control (resto's `Acl` and Octez's `RPC_server.Acl`): a policy is either
 * "allow all but" (a blacklist) or "deny all but" (a whitelist) of matchers such as
 * `GET /chains/*\/blocks/*\/context/**`; a request the policy does not allow is answered 401 with
 * an empty body. Which policy applies is chosen by the address the server listens on: the first
 * entry of the configured `rpc.acl` list for that address (and port, when the entry names one),
 * else Octez's default: everything on a loopback address, {@link SECURE} on any other
 * (`0.0.0.0` and `[::]` included).
 *
 * Matchers: an optional method (`GET`, `PUT`, `POST`, `PATCH`, `DELETE`; none: any method), then
 * a path of literal segments (percent-decoded) and `*` (any one segment), optionally ending with
 * `/**` (any suffix, the empty one included).
 *
 * @example
 * ```ts
 * const acl = aclForAddress([], "0.0.0.0", 8732);      // SECURE
 * aclAllows(acl, "GET", ["chains", "main", "blocks", "head", "hash"]); // true
 * aclAllows(acl, "POST", ["injection", "block"]);                       // false
 * ```
 * @module
 */

/** One segment of a matcher's path. */
type Chunk = { readonly literal: string } | "*";

/** A matcher: a method (or any) and a path, exact or followed by any suffix. */
export interface AclMatcher {
  readonly method: "GET" | "PUT" | "POST" | "PATCH" | "DELETE" | undefined;
  readonly path: readonly Chunk[];
  readonly anySuffix: boolean;
}

/** A policy: allow everything but `except` (blacklist), or deny everything but `except` (whitelist). */
export type Acl = { readonly kind: "allow_all" | "deny_all"; readonly except: readonly AclMatcher[] };

/** One entry of a configured policy: the listening address it applies to, and its ACL. */
export interface AclEntry {
  /** The listening address (host; IPv6 without brackets). */
  readonly address: string;
  /** The port, when the entry names one (else any port of that address). */
  readonly port: number | undefined;
  readonly acl: Acl;
}

const METHODS = ["GET", "PUT", "POST", "PATCH", "DELETE"] as const;

/**
 * Reads a matcher as resto does (`Resto_acl.Acl.parse`); a RangeError for an empty text, an
 * unknown method, `**` anywhere but last, or `*`, `?`, `&`, `#`, `=` inside a literal.
 */
export function parseAclMatcher(text: string): AclMatcher {
  if (text.length === 0) throw new RangeError("an ACL matcher cannot be empty");
  let method: AclMatcher["method"];
  let offset = 0;
  if (text[0] !== "/" && text[0] !== " ") {
    method = METHODS.find((m) => text.length > m.length && text.startsWith(m));
    if (method === undefined) throw new RangeError(`invalid method in ACL matcher ${JSON.stringify(text)}`);
    offset = method.length;
  }
  const slash = text.indexOf("/", offset);
  if (slash < 0 || text.slice(offset, slash).trim() !== "") throw new RangeError(`invalid method in ACL matcher ${JSON.stringify(text)}`);
  const segments = text.slice(slash).split("/").filter((s) => s !== "");
  const path: Chunk[] = [];
  let anySuffix = false;
  for (const s of segments) {
    if (anySuffix) throw new RangeError(`"**" can only end an ACL matcher: ${JSON.stringify(text)}`);
    if (s === "**") anySuffix = true;
    else if (s === "*") path.push("*");
    else {
      if (/[*?&#=]/.test(s)) throw new RangeError(`${JSON.stringify(s.match(/[*?&#=]/)![0])} must be percent-encoded in ACL matcher ${JSON.stringify(text)}`);
      path.push({ literal: decodeURIComponent(s) });
    }
  }
  return { method, path, anySuffix };
}

/** Whether `matcher` matches a request's method and (decoded) path segments. */
function matches(m: AclMatcher, method: string, segments: readonly string[]): boolean {
  if (m.method !== undefined && m.method !== method) return false;
  if (segments.length < m.path.length || (!m.anySuffix && segments.length !== m.path.length)) return false;
  for (let i = 0; i < m.path.length; i++) {
    const c = m.path[i]!;
    if (c !== "*" && c.literal !== segments[i]) return false;
  }
  return true;
}

/** Whether `acl` lets a request through. */
export function aclAllows(acl: Acl, method: string, segments: readonly string[]): boolean {
  const listed = acl.except.some((m) => matches(m, method, segments));
  return acl.kind === "deny_all" ? listed : !listed;
}

/** Everything allowed (Octez's `allow_all`). */
export const ALLOW_ALL: Acl = Object.freeze({ kind: "allow_all", except: [] });

/** Octez v12's `secure` policy (`lib_rpc_http/RPC_server.ml`): the reads a public node may serve. */
export const SECURE: Acl = Object.freeze({
  kind: "deny_all",
  except: [
    "GET /chains/*/blocks",
    "GET /chains/*/blocks/*",
    "GET /chains/*/blocks/*/context/**",
    "GET /chains/*/blocks/*/hash",
    "GET /chains/*/blocks/*/header",
    "GET /chains/*/blocks/*/header/**",
    "GET /chains/*/blocks/*/helpers/current_level",
    "GET /chains/*/blocks/*/live_blocks",
    "GET /chains/*/blocks/*/metadata",
    "GET /chains/*/blocks/*/metadata_hash",
    "GET /chains/*/blocks/*/minimal_valid_time",
    "GET /chains/*/blocks/*/operation_hashes",
    "GET /chains/*/blocks/*/operation_hashes/**",
    "GET /chains/*/blocks/*/operation_metadata_hash",
    "GET /chains/*/blocks/*/operations",
    "GET /chains/*/blocks/*/operations/**",
    "GET /chains/*/blocks/*/operations_metadata_hash",
    "GET /chains/*/blocks/*/protocols",
    "GET /chains/*/blocks/*/required_endorsements",
    "GET /chains/*/blocks/*/votes/**",
    "GET /chains/*/chain_id",
    "GET /chains/*/checkpoint",
    "GET /chains/*/invalid_blocks",
    "GET /chains/*/invalid_blocks/*",
    "GET /chains/*/is_bootstrapped",
    "GET /chains/*/mempool/filter",
    "GET /chains/*/mempool/monitor_operations",
    "GET /chains/*/mempool/pending_operations",
    "GET /config/network/user_activated_protocol_overrides",
    "GET /config/network/user_activated_upgrades",
    "GET /describe/**",
    "GET /errors",
    "GET /monitor/**",
    "GET /network/greylist/ips",
    "GET /network/greylist/peers",
    "GET /network/self",
    "GET /network/stat",
    "GET /network/version",
    "GET /network/versions",
    "GET /protocols",
    "GET /protocols/*",
    "GET /protocols/*/environment",
    "GET /version",
    "POST /chains/*/blocks/*/context/contracts/*/big_map_get",
    "POST /chains/*/blocks/*/endorsing_power",
    "POST /injection/operation",
  ].map(parseAclMatcher),
});

/** Whether a listening address is a loopback one (127.0.0.0/8, `::1`, `localhost`): Octez's "interface" scope. */
export function isLoopback(address: string): boolean {
  const a = address.toLowerCase();
  return a === "localhost" || a === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a) || /^::ffff:127\./.test(a);
}

/**
 * The policy of a server listening on `address:port`: the first configured entry for that
 * address (and that port, or any port), else everything on a loopback address, else
 * {@link SECURE} (Octez `find_policy`, then `default`).
 */
export function aclForAddress(policy: readonly AclEntry[], address: string, port: number): Acl {
  const entry = policy.find((e) => sameAddress(e.address, address) && (e.port === undefined || e.port === port));
  if (entry !== undefined) return entry.acl;
  return isLoopback(address) ? ALLOW_ALL : SECURE;
}

function sameAddress(a: string, b: string): boolean {
  const norm = (x: string) => (x === "localhost" ? "127.0.0.1" : x.toLowerCase());
  return norm(a) === norm(b);
}

/**
 * Reads Octez's `rpc.acl` (config file): a list of `{address: "host[:port]", whitelist: [...]}`
 * (deny all but) or `{address, blacklist: [...]}` (allow all but). A RangeError naming the entry
 * for anything else.
 */
export function parseAclPolicy(json: unknown): AclEntry[] {
  if (!Array.isArray(json)) throw new RangeError("rpc.acl must be a list");
  return json.map((e, i) => {
    const where = `rpc.acl[${i}]`;
    if (e === null || typeof e !== "object") throw new RangeError(`${where} must be an object`);
    const { address, whitelist, blacklist, ...rest } = e as Record<string, unknown>;
    if (Object.keys(rest).length > 0) throw new RangeError(`${where}: unexpected field ${Object.keys(rest)[0]}`);
    if (typeof address !== "string") throw new RangeError(`${where}.address must be a string`);
    const list = whitelist ?? blacklist;
    if ((whitelist === undefined) === (blacklist === undefined) || !Array.isArray(list) || !list.every((m) => typeof m === "string")) {
      throw new RangeError(`${where} needs either a whitelist or a blacklist, a list of strings`);
    }
    const except = list.map((m: string, j: number) => {
      try {
        return parseAclMatcher(m);
      } catch (err) {
        throw new RangeError(`${where}.${whitelist !== undefined ? "whitelist" : "blacklist"}[${j}]: ${(err as Error).message}`);
      }
    });
    return { ...parseEndpoint(address, where), acl: { kind: whitelist !== undefined ? "deny_all" : "allow_all", except } };
  });
}

/** `host`, `host:port`, `[v6]` or `[v6]:port` (Octez's `addr_port_id`, without a peer id). */
export function parseEndpoint(text: string, where = "address"): { address: string; port: number | undefined } {
  const m = /^\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?$/.exec(text) ?? /^([A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(text);
  const port = m?.[2] === undefined ? undefined : Number(m[2]);
  if (m === null || (port !== undefined && port > 65535)) throw new RangeError(`${where}: invalid address ${JSON.stringify(text)}`);
  return { address: m[1]!, port };
}
