/**
 * The `/network/*` services over a fake P2P layer written here (every path and method of Octez
 * v12's OpenAPI, each answer validated against `rpc-openapi.json`, filters, logs and streams that
 * end when the client goes away, bad arguments answered with Octez's messages, 404s where Octez
 * answers them), the node without P2P layer (Octez's disabled answers), `/describe` against the
 * OpenAPI's descriptions and query parameters, and the early layout's `/p2p/*` paths.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { TezosError } from "../../lib/errors/registry.ts";
import { peerIdOf, publicKeyOf } from "../../lib/p2p/identity.ts";
import { connectionRefused } from "../../lib/p2p/pool/errors.ts";
import type {
  AclChange,
  ConnectionView,
  P2pEvent,
  P2pNetwork,
  PeerInfo,
  PeerLogItem,
  PeerMetadata,
  PointInfo,
  PointLogItem,
  Stat,
  StateFilter,
} from "../../lib/p2p/pool/api.ts";
import { announcedVersion } from "../../lib/p2p/version.ts";
import { networkServices } from "../../lib/rpc/services/network.ts";
import { earlyLayoutServices } from "../../lib/rpc/services/early-layout.ts";
import { createRpcHandler, type RpcHandler } from "../../lib/rpc/handler.ts";
import { Directory } from "../../lib/rpc/directory.ts";
import { aclAllows, SECURE } from "../../lib/rpc/acl.ts";
import { OpenApi, type HttpMethod, type OpenApiDocument } from "../support/openapi.ts";
import { OCTEZ_FORMATS } from "../conformance/octez-formats.ts";

// ---- the contract ---------------------------------------------------------------------------

const FILE = new URL("../vectors/octez/rpc-openapi.json", import.meta.url);
const api = OpenApi.load(FILE);

/**
 * The same file with one schema relaxed: Octez v12's point log encoding names three of its cases
 * `rejecting_request` as a fourth (`P2p_point.Pool_event`, tags 4-6), so an entry of those kinds
 * fits several `oneOf` branches of Octez's own schema; there it is an `anyOf`.
 */
const apiForLogs = (() => {
  const doc = JSON.parse(JSON.stringify(api.doc)) as OpenApiDocument & { components: { schemas: Record<string, any> } };
  const items = doc.components.schemas["p2p_point.pool_event"].items;
  const kinds = items.oneOf[1];
  items.oneOf[1] = { anyOf: kinds.oneOf };
  return new OpenApi(doc, "rpc-openapi.json (point log kinds as anyOf)");
})();

const FORMATS = {
  ...OCTEZ_FORMATS,
  "p2p_point.id": (v: unknown) =>
    typeof v === "string" && /^(\d+\.\d+\.\d+\.\d+|\[[0-9a-f:.]+\]):\d+$/.test(v) ? undefined : `${JSON.stringify(v)} is not a point as Octez prints it`,
};

/** Validates a 200 answer of `method path` against the file's schema for that service. */
function conforms(method: HttpMethod, path: string, value: unknown): void {
  const template = api.template(path, method);
  if (template === undefined) throw new Error(`${method} ${path}: no template in the file`);
  const file = template.endsWith("/points/{point}/log") ? apiForLogs : api;
  file.assertValid(value, file.response(template, method), `${method.toUpperCase()} ${path}`, { formats: FORMATS });
}

// ---- a fake P2P layer -----------------------------------------------------------------------

const peer = (n: number) => peerIdOf(publicKeyOf(new Uint8Array(32).fill(n)));
const SELF = peer(1);
const PEER_A = peer(2);
const PEER_B = peer(3);
const UNKNOWN_PEER = peer(4);
const T0 = Date.UTC(2022, 4, 5, 12, 34, 56, 789);

/** Values pushed to whoever watches, each watch ending when its signal aborts. */
class Feed<T> {
  readonly subscribers = new Set<(v: T) => void>();
  /** Watches that ended because their signal aborted. */
  aborted = 0;
  watch(signal: AbortSignal): AsyncIterable<T> {
    const queue: T[] = [];
    let wake: (() => void) | undefined;
    let done = signal.aborted;
    const push = (v: T) => {
      queue.push(v);
      wake?.();
    };
    const end = () => {
      done = true;
      this.subscribers.delete(push);
      wake?.();
    };
    if (!done) this.subscribers.add(push);
    signal.addEventListener("abort", () => {
      this.aborted++;
      end();
    }, { once: true });
    return {
      [Symbol.asyncIterator]: () => ({
        async next(): Promise<IteratorResult<T>> {
          for (;;) {
            if (queue.length > 0) return { value: queue.shift()!, done: false };
            if (done) return { value: undefined, done: true };
            await new Promise<void>((r) => (wake = r));
          }
        },
        async return(): Promise<IteratorResult<T>> {
          end();
          return { value: undefined, done: true };
        },
      }),
    };
  }
  push(v: T): void {
    for (const s of this.subscribers) s(v);
  }
}

function counts() {
  return { branch: 1, head: 2, block_header: 3, operations: 4, protocols: 5, operation_hashes_for_block: 0, operations_for_block: 6, checkpoint: 7, protocol_branch: 8, predecessor_header: 9, other: 10 };
}

function metadata(): PeerMetadata {
  return {
    responses: { sent: counts(), failed: counts(), received: counts(), unexpected: 11, outdated: 0 },
    requests: { sent: counts(), received: counts(), failed: counts(), scheduled: counts() },
    valid_blocks: 12,
    old_heads: 0,
    prevalidator_results: {
      cannot_download: 0,
      cannot_parse: 0,
      refused_by_prefilter: 0,
      refused_by_postfilter: 0,
      applied: 13,
      branch_delayed: 0,
      branch_refused: 0,
      refused: 0,
      duplicate: 0,
      outdated: 0,
    },
    unactivated_chains: 0,
    inactive_chains: 14,
    future_blocks_advertised: 0,
    unadvertised: { block: 15, operations: 0, protocol: 0 },
    advertisements: { sent: { head: 16, branch: 0 }, received: { head: 0, branch: 17 } },
  };
}

const STAT: Stat = { totalSent: 123456789012, totalRecv: 42, currentInflow: 300, currentOutflow: 0 };
const VERSION = announcedVersion("SANDBOXED_TEZOS");

const CONNECTION: ConnectionView = {
  incoming: true,
  peerId: PEER_A,
  idPoint: { addr: "127.0.0.1", port: 9732 },
  remoteSocketPort: 51234,
  announcedVersion: VERSION,
  private: false,
  localMetadata: { disable_mempool: false, private_node: false },
  remoteMetadata: { disable_mempool: true, private_node: false },
};

const POINT_A = "127.0.0.1:9732";
const POINT_B = "[::1]:9733";
const POINT_UNKNOWN = "10.0.0.1:1";

function points(): Map<string, PointInfo> {
  return new Map<string, PointInfo>([
    [
      POINT_A,
      {
        trusted: true,
        state: { kind: "running", peerId: PEER_A },
        peerId: PEER_A,
        lastEstablishedConnection: [PEER_A, T0],
        lastSeen: [PEER_A, T0 + 1],
        expectedPeerId: PEER_A,
      },
    ],
    [
      POINT_B,
      {
        trusted: false,
        greylistedUntil: T0 + 60_000,
        state: { kind: "disconnected" },
        lastFailedConnection: T0 - 5,
        lastRejectedConnection: [PEER_B, T0 - 4],
        lastDisconnection: [PEER_B, T0 - 3],
        lastMiss: T0 - 2,
      },
    ],
  ]);
}

function peers(): Map<string, PeerInfo> {
  return new Map<string, PeerInfo>([
    [
      PEER_A,
      {
        score: 1,
        trusted: false,
        connMetadata: { disable_mempool: true, private_node: false },
        peerMetadata: metadata(),
        state: "running",
        reachableAt: { addr: "127.0.0.1", port: 9732 },
        stat: STAT,
        lastEstablishedConnection: [{ addr: "127.0.0.1", port: 9732 }, T0],
        lastSeen: [{ addr: "127.0.0.1", port: 9732 }, T0 + 1],
      },
    ],
    [
      PEER_B,
      {
        score: 1,
        trusted: true,
        peerMetadata: metadata(),
        state: "disconnected",
        stat: { totalSent: 0, totalRecv: 0, currentInflow: 0, currentOutflow: 0 },
        lastFailedConnection: [{ addr: "::1" }, T0 - 5],
        lastRejectedConnection: [{ addr: "::1", port: 9733 }, T0 - 4],
        lastDisconnection: [{ addr: "::1", port: 9733 }, T0 - 3],
        lastMiss: [{ addr: "2001:db8::1", port: 1 }, T0 - 2],
      },
    ],
  ]);
}

const POINT_LOG: PointLogItem[] = [
  { at: T0, kind: { event: "outgoing_request" } },
  { at: T0 + 1, kind: { event: "accepting_request", peerId: PEER_A } },
  { at: T0 + 2, kind: { event: "rejecting_request", peerId: PEER_A } },
  { at: T0 + 3, kind: { event: "request_rejected" } },
  { at: T0 + 4, kind: { event: "request_rejected", peerId: PEER_A } },
  { at: T0 + 5, kind: { event: "connection_established", peerId: PEER_A } },
  { at: T0 + 6, kind: { event: "disconnection", peerId: PEER_A } },
  { at: T0 + 7, kind: { event: "external_disconnection", peerId: PEER_A } },
];

const PEER_LOG: PeerLogItem[] = [
  { at: T0, kind: "incoming_request", point: { addr: "127.0.0.1", port: 9732 } },
  { at: T0 + 1, kind: "connection_established", point: { addr: "127.0.0.1", port: 9732 } },
  { at: T0 + 2, kind: "disconnection", point: { addr: "::1" } },
];

/** One event of each kind, as `/network/log` streams them. */
const EVENTS: P2pEvent[] = [
  { event: "too_few_connections" },
  { event: "too_many_connections" },
  { event: "new_point", point: POINT_B },
  { event: "new_peer", peerId: PEER_B },
  { event: "gc_points" },
  { event: "gc_peer_ids" },
  { event: "incoming_connection", point: POINT_A },
  { event: "outgoing_connection", point: POINT_B },
  { event: "authentication_failed", point: POINT_B },
  { event: "accepting_request", point: POINT_A, idPoint: { addr: "127.0.0.1", port: 9732 }, peerId: PEER_A },
  { event: "rejecting_request", point: POINT_A, idPoint: { addr: "127.0.0.1" }, peerId: PEER_A },
  { event: "request_rejected", point: POINT_B },
  { event: "request_rejected", point: POINT_B, identity: [{ addr: "::1", port: 9733 }, PEER_B] },
  { event: "connection_established", idPoint: { addr: "127.0.0.1", port: 9732 }, peerId: PEER_A },
  { event: "disconnection", peerId: PEER_A },
  { event: "external_disconnection", peerId: PEER_A },
  ...(
    [
      "swap_request_received",
      "swap_ack_received",
      "swap_request_sent",
      "swap_ack_sent",
      "swap_request_ignored",
      "swap_success",
      "swap_failure",
      "bootstrap_sent",
      "bootstrap_received",
      "advertise_sent",
      "advertise_received",
    ] as const
  ).map((event) => ({ event, source: PEER_B })),
];

/** A P2P layer in memory: records what the services ask of it. */
class FakeNetwork implements P2pNetwork {
  readonly peerId = SELF;
  readonly announcedVersion = VERSION;
  readonly supportedVersions = [VERSION];
  readonly pointTable = points();
  readonly peerTable = peers();
  readonly calls: [string, ...unknown[]][] = [];
  readonly events$ = new Feed<P2pEvent>();
  readonly pointLog$ = new Feed<PointLogItem>();
  readonly peerLog$ = new Feed<PeerLogItem>();
  banned = new Set<string>([POINT_B, PEER_A]);
  connectFailure: TezosError | undefined;
  greylist: { ips: string[]; notReliableSince?: number } = { ips: ["1.2.3.4", "2001:db8::1"] };

  stat(): Stat {
    return STAT;
  }
  connections(): ConnectionView[] {
    return [CONNECTION];
  }
  connection(peerId: string): ConnectionView | undefined {
    return peerId === PEER_A ? CONNECTION : undefined;
  }
  async disconnect(peerId: string, options?: { wait?: boolean }): Promise<boolean> {
    this.calls.push(["disconnect", peerId, options?.wait]);
    return peerId === PEER_A;
  }
  points(filter: readonly StateFilter[] = []): [string, PointInfo][] {
    this.calls.push(["points", [...filter]]);
    return [...this.pointTable].filter(([, i]) => filter.length === 0 || filter.includes(i.state.kind));
  }
  point(point: string): PointInfo | undefined {
    return this.pointTable.get(point);
  }
  async connect(point: string, options?: { timeoutMs?: number }): Promise<void> {
    this.calls.push(["connect", point, options?.timeoutMs]);
    if (this.connectFailure !== undefined) throw this.connectFailure;
  }
  patchPoint(point: string, change: { acl?: AclChange; peerId?: string }): PointInfo | undefined {
    this.calls.push(["patchPoint", point, change]);
    return this.pointTable.get(point);
  }
  pointBanned(point: string): boolean {
    return this.banned.has(point);
  }
  pointLog(point: string): PointLogItem[] | undefined {
    return this.pointTable.has(point) ? POINT_LOG : undefined;
  }
  watchPoint(_point: string, signal: AbortSignal): AsyncIterable<PointLogItem> {
    return this.pointLog$.watch(signal);
  }
  peers(filter: readonly StateFilter[] = []): [string, PeerInfo][] {
    this.calls.push(["peers", [...filter]]);
    return [...this.peerTable].filter(([, i]) => filter.length === 0 || filter.includes(i.state));
  }
  peer(peerId: string): PeerInfo | undefined {
    return this.peerTable.get(peerId);
  }
  patchPeer(peerId: string, change: { acl?: AclChange }): PeerInfo | undefined {
    this.calls.push(["patchPeer", peerId, change]);
    return this.peerTable.get(peerId);
  }
  peerBanned(peerId: string): boolean {
    return this.banned.has(peerId);
  }
  peerLog(peerId: string): PeerLogItem[] | undefined {
    return this.peerTable.has(peerId) ? PEER_LOG : undefined;
  }
  watchPeer(_peerId: string, signal: AbortSignal): AsyncIterable<PeerLogItem> {
    return this.peerLog$.watch(signal);
  }
  clearGreylist(): void {
    this.calls.push(["clearGreylist"]);
  }
  greylistedIps(): { ips: string[]; notReliableSince?: number } {
    return this.greylist;
  }
  greylistedPeers(): string[] {
    return [PEER_B];
  }
  events(signal: AbortSignal): AsyncIterable<P2pEvent> {
    return this.events$.watch(signal);
  }
}

// ---- requests -------------------------------------------------------------------------------

function handlerOver(network: P2pNetwork | undefined): RpcHandler {
  let handler: RpcHandler | undefined;
  const dir = new Directory().merge(networkServices(network, VERSION)).merge(earlyLayoutServices(() => (r) => handler!(r)));
  handler = createRpcHandler(dir);
  return handler;
}

interface Answer {
  status: number;
  text: string;
  json?: unknown;
}

async function call(fetch: RpcHandler, method: string, path: string, body?: unknown): Promise<Answer> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** A 200 answer's JSON, validated against the file. */
async function ok(fetch: RpcHandler, method: HttpMethod, path: string, body?: unknown): Promise<unknown> {
  const r = await call(fetch, method.toUpperCase(), path, body);
  assert.is(r.status, 200, `${method} ${path}: ${r.text}`);
  conforms(method, path, r.json);
  return r.json;
}

/** resto's 400 for a path argument that does not parse. */
function badArg(after: string, reason: string, type: string): string {
  return `Failed to parsed an argument in path. After "${after}", the value "${reason}" is not acceptable for type "${type}"`;
}

/** An open streamed answer: its chunks one at a time (JSON values), and its end. */
async function open(fetch: RpcHandler, path: string, signal?: AbortSignal) {
  const res = await fetch(new Request(`http://localhost${path}`, signal === undefined ? {} : { signal }));
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  let buffered = "";
  const decoder = new TextDecoder();
  return {
    reader,
    async next(): Promise<unknown> {
      for (;;) {
        const nl = buffered.indexOf("\n");
        if (nl >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          return JSON.parse(line);
        }
        const r = await reader.read();
        if (r.done) throw new Error(`${path}: the stream ended`);
        buffered += decoder.decode(r.value, { stream: true });
      }
    },
  };
}

const OCTEZ_DISABLED = [{ kind: "permanent", id: "node.p2p_pool.disabled" }];

// ---- tests ----------------------------------------------------------------------------------

const t = suite("/network/* over a P2P layer");

t("every path and method of the file's /network is served, and nothing else", async () => {
  const fetch = handlerOver(new FakeNetwork());
  const ours = await describedServices(fetch);
  const theirs: string[] = [];
  for (const [template, item] of Object.entries(api.doc.paths)) {
    if (!template.startsWith("/network")) continue;
    for (const m of Object.keys(item)) theirs.push(`${m.toUpperCase()} ${template}`);
  }
  assert.equal(ours.map((s) => `${s.method} ${s.template}`).sort(), theirs.sort());
});

t("/describe lists each service with Octez's description and query parameters", async () => {
  const fetch = handlerOver(new FakeNetwork());
  for (const s of await describedServices(fetch)) {
    const op = (api.doc.paths[s.template] as Record<string, { description?: string; parameters?: { name: string; in: string }[] }>)[s.method.toLowerCase()]!;
    assert.is(s.description, op.description, `${s.method} ${s.template}`);
    const query = (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
    assert.equal(s.query, query, `${s.method} ${s.template}: query`);
  }
});

t("self, versions, stat: the node's answers, validated", async () => {
  const fetch = handlerOver(new FakeNetwork());
  assert.is(await ok(fetch, "get", "/network/self"), SELF);
  assert.equal(await ok(fetch, "get", "/network/version"), { chain_name: "SANDBOXED_TEZOS", distributed_db_version: 2, p2p_version: 1 });
  assert.equal(await ok(fetch, "get", "/network/versions"), [{ chain_name: "SANDBOXED_TEZOS", distributed_db_version: 2, p2p_version: 1 }]);
  assert.equal(await ok(fetch, "get", "/network/stat"), { total_sent: "123456789012", total_recv: "42", current_inflow: 300, current_outflow: 0 });
});

t("connections: the list, one by peer id (404 when none), DELETE with and without ?wait", async () => {
  const net = new FakeNetwork();
  const fetch = handlerOver(net);
  const expected = {
    incoming: true,
    peer_id: PEER_A,
    id_point: { addr: "::ffff:127.0.0.1", port: 9732 },
    remote_socket_port: 51234,
    announced_version: { chain_name: "SANDBOXED_TEZOS", distributed_db_version: 2, p2p_version: 1 },
    private: false,
    local_metadata: { disable_mempool: false, private_node: false },
    remote_metadata: { disable_mempool: true, private_node: false },
  };
  assert.equal(await ok(fetch, "get", "/network/connections"), [expected]);
  assert.equal(await ok(fetch, "get", `/network/connections/${PEER_A}`), expected);
  const unknown = await call(fetch, "GET", `/network/connections/${UNKNOWN_PEER}`);
  assert.equal([unknown.status, unknown.text], [404, ""]);
  assert.equal(await ok(fetch, "delete", `/network/connections/${PEER_A}`), {});
  assert.equal(await ok(fetch, "delete", `/network/connections/${UNKNOWN_PEER}?wait`), {});
  assert.equal(await ok(fetch, "delete", `/network/connections/${PEER_A}?wait=false`), {});
  assert.equal(net.calls, [
    ["disconnect", PEER_A, false],
    ["disconnect", UNKNOWN_PEER, true],
    ["disconnect", PEER_A, false],
  ]);
});

t("points: the list with repeated ?filter, one point (404 when unknown), PATCH, banned, the deprecated rule changes", async () => {
  const net = new FakeNetwork();
  const fetch = handlerOver(net);
  const all = (await ok(fetch, "get", "/network/points")) as [string, unknown][];
  assert.equal(all.map(([p]) => p), [POINT_A, POINT_B]);
  assert.equal(all[0]![1], {
    trusted: true,
    state: { event_kind: "running", p2p_peer_id: PEER_A },
    p2p_peer_id: PEER_A,
    last_established_connection: [PEER_A, "2022-05-05T12:34:56.789-00:00"],
    last_seen: [PEER_A, "2022-05-05T12:34:56.790-00:00"],
    expected_peer_id: PEER_A,
  });
  // the state's peer, as Octez derives p2p_peer_id; a disconnected point has none
  assert.equal(all[1]![1], {
    trusted: false,
    greylisted_until: "2022-05-05T12:35:56.789-00:00",
    state: { event_kind: "disconnected" },
    last_failed_connection: "2022-05-05T12:34:56.784-00:00",
    last_rejected_connection: [PEER_B, "2022-05-05T12:34:56.785-00:00"],
    last_disconnection: [PEER_B, "2022-05-05T12:34:56.786-00:00"],
    last_miss: "2022-05-05T12:34:56.787-00:00",
  });
  const some = (await ok(fetch, "get", "/network/points?filter=disconnected&filter=requested")) as [string, unknown][];
  assert.equal(some.map(([p]) => p), [POINT_B]);
  assert.equal(net.calls.splice(0), [["points", []], ["points", ["disconnected", "requested"]]]);
  const bad = await call(fetch, "GET", "/network/points?filter=gone");
  assert.equal([bad.status, bad.text], [400, `Failed to parse the query string: Failed to parse argument 'filter' ("gone"): Invalid state: gone`]);

  assert.equal(await ok(fetch, "get", `/network/points/${POINT_A}`), all[0]![1]);
  // a point is given in any of its forms and reaches the pool in canonical form
  assert.equal(await ok(fetch, "get", `/network/points/${encodeURIComponent("[::ffff:127.0.0.1]:9732")}`), all[0]![1]);
  assert.equal(await ok(fetch, "get", `/network/points/${encodeURIComponent("[0:0::1]:9733")}`), all[1]![1]);
  assert.is((await call(fetch, "GET", `/network/points/${POINT_UNKNOWN}`)).status, 404);

  assert.equal(await ok(fetch, "patch", `/network/points/${POINT_A}`, { acl: "trust", peer_id: PEER_A }), all[0]![1]);
  assert.equal(await ok(fetch, "patch", `/network/points/${POINT_A}`, {}), all[0]![1]);
  const patched = await call(fetch, "PATCH", `/network/points/${POINT_UNKNOWN}`, { acl: "ban" });
  assert.equal([patched.status, patched.text], [404, ""]);
  assert.equal(net.calls.splice(0), [
    ["patchPoint", POINT_A, { acl: "trust", peerId: PEER_A }],
    ["patchPoint", POINT_A, {}],
    ["patchPoint", POINT_UNKNOWN, { acl: "ban" }],
  ]);
  const wrong = await call(fetch, "PATCH", `/network/points/${POINT_A}`, { acl: "forbid" });
  assert.is(wrong.status, 400);
  assert.match(wrong.text, /^Failed to parse the request body: /);
  const wrongId = await call(fetch, "PATCH", `/network/points/${POINT_A}`, { peer_id: "idNot" });
  assert.is(wrongId.status, 400);
  assert.equal(net.calls, [], "a refused body changes nothing");

  // banned: the pool's answer, false for a trusted point whatever the pool says (Octez)
  assert.is(await ok(fetch, "get", `/network/points/${POINT_B}/banned`), true);
  net.banned.add(POINT_A);
  assert.is(await ok(fetch, "get", `/network/points/${POINT_A}/banned`), false);
  assert.is(await ok(fetch, "get", `/network/points/${POINT_UNKNOWN}/banned`), false);

  for (const acl of ["ban", "unban", "trust", "untrust"] as const) {
    assert.equal(await ok(fetch, "get", `/network/points/${POINT_UNKNOWN}/${acl}`), {});
  }
  assert.equal(net.calls.splice(0), [
    ["patchPoint", POINT_UNKNOWN, { acl: "ban" }],
    ["patchPoint", POINT_UNKNOWN, { acl: "unban" }],
    ["patchPoint", POINT_UNKNOWN, { acl: "trust" }],
    ["patchPoint", POINT_UNKNOWN, { acl: "untrust" }],
  ]);
});

t("PUT /network/points/<point>: ?timeout (10 s by default, seconds as floats), the body {}, the pool's error", async () => {
  const net = new FakeNetwork();
  const fetch = handlerOver(net);
  assert.equal(await ok(fetch, "put", `/network/points/${POINT_UNKNOWN}`, {}), {});
  assert.equal(await ok(fetch, "put", `/network/points/${POINT_UNKNOWN}?timeout=2.5`, {}), {});
  assert.equal(await ok(fetch, "put", `/network/points/${POINT_UNKNOWN}?timeout=0`, {}), {});
  assert.equal(net.calls.splice(0), [
    ["connect", POINT_UNKNOWN, 10_000],
    ["connect", POINT_UNKNOWN, 2_500],
    ["connect", POINT_UNKNOWN, 1],
  ]);
  const badTimeout = await call(fetch, "PUT", `/network/points/${POINT_UNKNOWN}?timeout=soon`, {});
  assert.equal([badTimeout.status, badTimeout.text], [400, `Failed to parse the query string: Failed to parse argument 'timeout' ("soon"): failed to parse timespan: "soon"`]);
  const notEmpty = await call(fetch, "PUT", `/network/points/${POINT_UNKNOWN}`, { timeout: 3 });
  assert.is(notEmpty.status, 400);
  const noBody = await call(fetch, "PUT", `/network/points/${POINT_UNKNOWN}`);
  assert.is(noBody.status, 400);
  assert.equal(net.calls, []);
  net.connectFailure = connectionRefused.error(undefined);
  const refused = await call(fetch, "PUT", `/network/points/${POINT_UNKNOWN}`, {});
  assert.equal([refused.status, refused.json], [500, [{ kind: "permanent", id: "node.p2p_pool.connection_refused" }]]);
});

t("peers: the list with ?filter (no 'requested' for peers), one peer, PATCH, banned, the deprecated rule changes", async () => {
  const net = new FakeNetwork();
  const fetch = handlerOver(net);
  const all = (await ok(fetch, "get", "/network/peers")) as [string, Record<string, unknown>][];
  assert.equal(all.map(([p]) => p), [PEER_A, PEER_B]);
  const a = all[0]![1];
  assert.equal(
    [a["score"], a["trusted"], a["state"], a["reachable_at"], a["stat"], a["conn_metadata"]],
    [1, false, "running", { addr: "::ffff:127.0.0.1", port: 9732 }, { total_sent: "123456789012", total_recv: "42", current_inflow: 300, current_outflow: 0 }, { disable_mempool: true, private_node: false }],
  );
  const meta = a["peer_metadata"] as Record<string, any>;
  assert.equal(meta["responses"]["sent"], { branch: "1", head: "2", block_header: "3", operations: "4", protocols: "5", operation_hashes_for_block: "0", operations_for_block: "6", checkpoint: "7", protocol_branch: "8", predecessor_header: "9", other: "10" });
  assert.equal([meta["valid_blocks"], meta["unadvertised"], meta["advertisements"]], ["12", { block: "15", operations: "0", protocol: "0" }, { sent: { head: "16", branch: "0" }, received: { head: "0", branch: "17" } }]);
  assert.equal(a["last_seen"], [{ addr: "::ffff:127.0.0.1", port: 9732 }, "2022-05-05T12:34:56.790-00:00"]);
  const b = all[1]![1];
  assert.equal([b["score"], b["last_failed_connection"], b["last_miss"], "conn_metadata" in b, "reachable_at" in b], [1, [{ addr: "::1" }, "2022-05-05T12:34:56.784-00:00"], [{ addr: "2001:db8::1", port: 1 }, "2022-05-05T12:34:56.787-00:00"], false, false]);
  assert.equal(((await ok(fetch, "get", "/network/peers?filter=running")) as [string][]).map(([p]) => p), [PEER_A]);
  assert.equal(net.calls.splice(0), [["peers", []], ["peers", ["running"]]]);
  const requested = await call(fetch, "GET", "/network/peers?filter=requested");
  assert.equal([requested.status, requested.text], [400, `Failed to parse the query string: Failed to parse argument 'filter' ("requested"): Invalid state: requested`]);

  assert.equal(await ok(fetch, "get", `/network/peers/${PEER_A}`), a);
  assert.is((await call(fetch, "GET", `/network/peers/${UNKNOWN_PEER}`)).status, 404);
  assert.equal(await ok(fetch, "patch", `/network/peers/${PEER_B}`, { acl: "open" }), b);
  assert.is((await call(fetch, "PATCH", `/network/peers/${UNKNOWN_PEER}`, { acl: "ban" })).status, 404);
  assert.equal(net.calls.splice(0), [["patchPeer", PEER_B, { acl: "open" }], ["patchPeer", UNKNOWN_PEER, { acl: "ban" }]]);
  assert.is((await call(fetch, "PATCH", `/network/peers/${PEER_B}`, { acl: 1 })).status, 400);
  assert.equal(net.calls, []);

  assert.is(await ok(fetch, "get", `/network/peers/${PEER_A}/banned`), true);
  net.banned.add(PEER_B);
  assert.is(await ok(fetch, "get", `/network/peers/${PEER_B}/banned`), false, "trusted: never banned");
  assert.is(await ok(fetch, "get", `/network/peers/${UNKNOWN_PEER}/banned`), false);
  for (const acl of ["ban", "unban", "trust", "untrust"] as const) assert.equal(await ok(fetch, "get", `/network/peers/${PEER_B}/${acl}`), {});
  assert.equal(net.calls.splice(0), (["ban", "unban", "trust", "untrust"] as const).map((acl) => ["patchPeer", PEER_B, { acl }]));
});

t("greylists: the addresses as Octez prints them (IPv4 as ::ffff:a.b.c.d), not_reliable_since, the peers, clearing", async () => {
  const net = new FakeNetwork();
  const fetch = handlerOver(net);
  assert.equal(await ok(fetch, "get", "/network/greylist/ips"), { ips: ["::ffff:1.2.3.4", "2001:db8::1"], not_reliable_since: null });
  net.greylist = { ips: [], notReliableSince: 0 };
  assert.equal(await ok(fetch, "get", "/network/greylist/ips"), { ips: [], not_reliable_since: "1970-01-01T00:00:00.000-00:00" });
  assert.equal(await ok(fetch, "get", "/network/greylist/peers"), [PEER_B]);
  assert.equal(await ok(fetch, "get", "/network/greylist/clear"), {});
  assert.equal(await ok(fetch, "delete", "/network/greylist"), {});
  assert.equal(net.calls, [["clearGreylist"], ["clearGreylist"]]);
});

t("logs: the list (an unknown point or peer: []), with ?monitor the list then each new entry, ending when the client goes away", async () => {
  const net = new FakeNetwork();
  const fetch = handlerOver(net);
  const pointLog = (await ok(fetch, "get", `/network/points/${POINT_A}/log`)) as unknown[];
  assert.equal(pointLog, [
    ["2022-05-05T12:34:56.789-00:00", { event_kind: "outgoing_request" }],
    ["2022-05-05T12:34:56.790-00:00", { event_kind: "accepting_request", p2p_peer_id: PEER_A }],
    ["2022-05-05T12:34:56.791-00:00", { event_kind: "rejecting_request", p2p_peer_id: PEER_A }],
    ["2022-05-05T12:34:56.792-00:00", { event_kind: "request_rejected" }],
    ["2022-05-05T12:34:56.793-00:00", { event_kind: "request_rejected", p2p_peer_id: PEER_A }],
    // Octez v12 prints these three kinds under the name of the fourth
    ["2022-05-05T12:34:56.794-00:00", { event_kind: "rejecting_request", p2p_peer_id: PEER_A }],
    ["2022-05-05T12:34:56.795-00:00", { event_kind: "rejecting_request", p2p_peer_id: PEER_A }],
    ["2022-05-05T12:34:56.796-00:00", { event_kind: "rejecting_request", p2p_peer_id: PEER_A }],
  ]);
  assert.equal(await ok(fetch, "get", `/network/points/${POINT_UNKNOWN}/log`), []);
  assert.equal(await ok(fetch, "get", `/network/points/${POINT_UNKNOWN}/log?monitor`), []);
  assert.equal(await ok(fetch, "get", `/network/peers/${PEER_A}/log`), [
    { kind: "incoming_request", timestamp: "2022-05-05T12:34:56.789-00:00", addr: "::ffff:127.0.0.1", port: 9732 },
    { kind: "connection_established", timestamp: "2022-05-05T12:34:56.790-00:00", addr: "::ffff:127.0.0.1", port: 9732 },
    { kind: "disconnection", timestamp: "2022-05-05T12:34:56.791-00:00", addr: "::1" },
  ]);
  assert.equal(await ok(fetch, "get", `/network/peers/${UNKNOWN_PEER}/log?monitor=yes`), []);

  const points = await open(fetch, `/network/points/${POINT_A}/log?monitor`);
  const first = await points.next();
  conforms("get", `/network/points/${POINT_A}/log`, first);
  assert.equal(first, pointLog);
  net.pointLog$.push({ at: 0, kind: { event: "outgoing_request" } });
  const second = await points.next();
  conforms("get", `/network/points/${POINT_A}/log`, second);
  assert.equal(second, [["1970-01-01T00:00:00.000-00:00", { event_kind: "outgoing_request" }]]);
  await points.reader.cancel();
  assert.equal([net.pointLog$.aborted, net.pointLog$.subscribers.size], [1, 0]);

  const ac = new AbortController();
  const peersLog = await open(fetch, `/network/peers/${PEER_A}/log?monitor`, ac.signal);
  assert.is((await peersLog.next() as unknown[]).length, 3);
  net.peerLog$.push({ at: T0, kind: "external_disconnection", point: { addr: "::1", port: 1 } });
  const next = await peersLog.next();
  conforms("get", `/network/peers/${PEER_A}/log`, next);
  assert.equal(next, [{ kind: "external_disconnection", timestamp: "2022-05-05T12:34:56.789-00:00", addr: "::1", port: 1 }]);
  const pending = peersLog.reader.read();
  ac.abort();
  assert.equal(await pending, { done: true, value: undefined });
  assert.equal([net.peerLog$.aborted, net.peerLog$.subscribers.size], [1, 0]);
});

t("/network/log streams the pool's events, each of Octez's kinds, until the client goes away", async () => {
  const net = new FakeNetwork();
  const fetch = handlerOver(net);
  const log = await open(fetch, "/network/log");
  for (const e of EVENTS) net.events$.push(e);
  const got: unknown[] = [];
  for (let i = 0; i < EVENTS.length; i++) {
    const v = await log.next();
    conforms("get", "/network/log", v);
    got.push(v);
  }
  assert.equal(got.slice(9, 14), [
    { event: "accepting_request", point: POINT_A, id_point: { addr: "::ffff:127.0.0.1", port: 9732 }, peer_id: PEER_A },
    { event: "rejecting_request", point: POINT_A, id_point: { addr: "::ffff:127.0.0.1" }, peer_id: PEER_A },
    { event: "request_rejected", point: POINT_B },
    { event: "request_rejected", point: POINT_B, identity: [{ addr: "::1", port: 9733 }, PEER_B] },
    { event: "connection_established", id_point: { addr: "::ffff:127.0.0.1", port: 9732 }, peer_id: PEER_A },
  ]);
  assert.equal(got.map((e) => (e as { event: string }).event), EVENTS.map((e) => e.event));
  await log.reader.cancel();
  assert.equal([net.events$.aborted, net.events$.subscribers.size], [1, 0]);
});

t("bad points and peer ids: 400 with Octez's reason, nothing asked of the pool", async () => {
  const net = new FakeNetwork();
  const fetch = handlerOver(net);
  const cases: [string, string, string, string][] = [
    ["/network/points/localhost:9732", "network/points/localhost:9732", "P2p_point.of_string", "point"],
    ["/network/points/1.2.3.4", "network/points/1.2.3.4", "P2p_point.of_string_exn: no port", "point"],
    ["/network/points/1.2.3.4:65536/log", "network/points/1.2.3.4:65536", "Parsing of '1.2.3.4:65536' failed: port '65536' not in range [0-65535].\n", "point"],
    ["/network/points/1.2.3.4:99999999999999999999", "network/points/1.2.3.4:99999999999999999999", "int_of_string", "point"],
    ["/network/points/::1:9732", "network/points/::1:9732", "Parsing of '::1:9732' failed: expected <addr>[:<port>][#<peer_id>].\n", "point"],
    [
      `/network/points/${encodeURIComponent("1.2.3.4:1#idBad")}`,
      "network/points/1.2.3.4:1#idBad",
      "Parsing of '1.2.3.4:1#idBad' failed: peer id 'idBad' is not valid (b58 format expected).\n",
      "point",
    ],
    ["/network/points/01.2.3.4:1", "network/points/01.2.3.4:1", "P2p_point.of_string", "point"],
    ["/network/peers/idBad", "network/peers/idBad", 'failed to decode Base58Check-encoded data (Crypto_box.Public_key_hash): "idBad"', "peer_id"],
    ["/network/connections/tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", "network/connections/tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", 'failed to decode Base58Check-encoded data (Crypto_box.Public_key_hash): "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx"', "peer_id"],
  ];
  for (const [path, after, reason, type] of cases) {
    const r = await call(fetch, "GET", path);
    assert.equal([r.status, r.text], [400, badArg(after, reason, type)], path);
  }
  const r = await call(fetch, "PATCH", "/network/points/localhost:1", {});
  assert.equal([r.status, r.text], [400, badArg("network/points/localhost:1", "P2p_point.of_string", "point")]);
  // a point with a peer id suffix is that point
  assert.equal(await ok(fetch, "get", `/network/points/${encodeURIComponent(`127.0.0.1:9732#${PEER_A}`)}`), (await ok(fetch, "get", `/network/points/${POINT_A}`)));
  assert.equal(net.calls, []);
});

t("the early layout's /p2p/* paths answer as the /network/* paths they were renamed to", async () => {
  const net = new FakeNetwork();
  const fetch = handlerOver(net);
  const same = async (old: string, current: string, method = "GET", currentMethod = "GET") => {
    const a = await call(fetch, method, old);
    const b = await call(fetch, currentMethod, current, currentMethod === "PUT" ? {} : undefined);
    assert.equal([a.status, a.text], [b.status, b.text], `${method} ${old} as ${currentMethod} ${current}`);
    assert.is(a.status, 200, old);
  };
  await same("/p2p/connections", "/network/connections");
  await same(`/p2p/connections/${PEER_A}`, `/network/connections/${PEER_A}`);
  await same(`/p2p/connections/${PEER_A}`, `/network/connections/${PEER_A}`, "POST");
  await same(`/p2p/connections/${PEER_A}/kick`, `/network/connections/${PEER_A}`, "GET", "DELETE");
  await same("/p2p/peers", "/network/peers");
  await same(`/p2p/peers/${PEER_A}`, `/network/peers/${PEER_A}`);
  await same(`/p2p/peers/${PEER_A}/log`, `/network/peers/${PEER_A}/log`);
  await same("/networks/point", "/network/points");
  await same("/p2p/points?filter=running", "/network/points?filter=running");
  await same(`/p2p/points/${POINT_A}`, `/network/points/${POINT_A}`);
  await same(`/p2p/points/${POINT_A}/log`, `/network/points/${POINT_A}/log`);
  await same("/p2p/stat", "/network/stat");
  await same("/p2p/versions", "/network/versions");
  const kicked = net.calls.filter((c) => c[0] === "disconnect");
  assert.equal(kicked, [["disconnect", PEER_A, false], ["disconnect", PEER_A, false]]);
  // connect: the old GET and POST carry no body; the current PUT takes {}
  net.calls.splice(0);
  for (const method of ["GET", "POST"]) {
    const r = await call(fetch, method, `/p2p/connect/${POINT_UNKNOWN}`);
    assert.equal([r.status, r.text], [200, "{}\n"], `${method} /p2p/connect`);
  }
  const posted = await call(fetch, "POST", `/p2p/connect/${POINT_UNKNOWN}`, { timeout: 3 });
  assert.equal([posted.status, posted.text], [200, "{}\n"]);
  assert.equal((await call(fetch, "GET", `/p2p/connect/${POINT_UNKNOWN}?timeout=0.5`)).status, 200);
  const wrong = await call(fetch, "POST", `/p2p/connect/${POINT_UNKNOWN}`, { timeout: "soon" });
  assert.equal([wrong.status, wrong.text], [400, "Failed to parse the request body: timeout must be a number of seconds"]);
  assert.equal(net.calls, [
    ["connect", POINT_UNKNOWN, 10_000],
    ["connect", POINT_UNKNOWN, 10_000],
    ["connect", POINT_UNKNOWN, 3_000],
    ["connect", POINT_UNKNOWN, 500],
  ]);
  // a stream goes on as a stream
  const log = await open(fetch, "/p2p/log");
  net.events$.push({ event: "gc_points" });
  assert.equal(await log.next(), { event: "gc_points" });
  await log.reader.cancel();
  assert.is(net.events$.aborted, 1);
});

t("Octez's secure ACL serves, of /network, only self, stat, version(s) and the greylists' ips and peers", () => {
  // src/lib_rpc_http/RPC_server.ml at v12.4: the secure whitelist's /network entries
  const allowed = ["GET /network/greylist/ips", "GET /network/greylist/peers", "GET /network/self", "GET /network/stat", "GET /network/version", "GET /network/versions"];
  for (const [template, item] of Object.entries(api.doc.paths)) {
    if (!template.startsWith("/network")) continue;
    for (const m of Object.keys(item)) {
      const concrete = template.replace("{point}", POINT_A).replace("{peer_id}", PEER_A);
      const key = `${m.toUpperCase()} ${template}`;
      assert.is(aclAllows(SECURE, m.toUpperCase(), concrete.split("/").filter((x) => x !== "")), allowed.includes(key), key);
    }
  }
});

t.run();

const d = suite("/network/* without a P2P layer (Octez's disabled layer)");

d("each path answers as Octez's node with its P2P layer disabled", async () => {
  const fetch = handlerOver(undefined);
  assert.equal(await ok(fetch, "get", "/network/version"), { chain_name: "SANDBOXED_TEZOS", distributed_db_version: 2, p2p_version: 1 });
  assert.equal(await ok(fetch, "get", "/network/versions"), [{ chain_name: "SANDBOXED_TEZOS", distributed_db_version: 2, p2p_version: 1 }]);
  const disabled = [
    ["GET", "/network/self"],
    ["GET", "/network/stat"],
    ["PUT", `/network/points/${POINT_A}`],
    ["GET", "/network/connections"],
    ["GET", "/network/peers"],
    ["GET", `/network/peers/${PEER_A}`],
    ["GET", `/network/peers/${PEER_A}/log`],
    ["GET", `/network/peers/${PEER_A}/log?monitor`],
    ["GET", `/network/peers/${PEER_A}/ban`],
    ["GET", `/network/peers/${PEER_A}/unban`],
    ["GET", `/network/peers/${PEER_A}/trust`],
    ["GET", `/network/peers/${PEER_A}/untrust`],
    ["GET", `/network/peers/${PEER_A}/banned`],
    ["GET", "/network/greylist/peers"],
    ["GET", "/network/points"],
    ["GET", `/network/points/${POINT_A}`],
    ["GET", `/network/points/${POINT_A}/log`],
    ["GET", `/network/points/${POINT_A}/log?monitor`],
    ["GET", `/network/points/${POINT_A}/ban`],
    ["GET", `/network/points/${POINT_A}/unban`],
    ["GET", `/network/points/${POINT_A}/trust`],
    ["GET", `/network/points/${POINT_A}/untrust`],
    ["GET", `/network/points/${POINT_A}/banned`],
    ["GET", "/network/greylist/ips"],
    ["GET", "/network/greylist/clear"],
  ];
  for (const [method, path] of disabled) {
    const r = await call(fetch, method!, path!, method === "PUT" ? {} : undefined);
    assert.equal([r.status, r.json], [500, OCTEZ_DISABLED], `${method} ${path}`);
  }
  for (const [method, path, body] of [
    ["GET", `/network/connections/${PEER_A}`],
    ["PATCH", `/network/points/${POINT_A}`, { acl: "ban" }],
    ["PATCH", `/network/peers/${PEER_A}`, { acl: "trust" }],
  ] as [string, string, unknown?][]) {
    const r = await call(fetch, method, path, body);
    assert.equal([r.status, r.text], [404, ""], `${method} ${path}`);
  }
  assert.equal(await ok(fetch, "delete", `/network/connections/${PEER_A}?wait`), {});
  const clear = await call(fetch, "DELETE", "/network/greylist");
  assert.equal([clear.status, clear.json], [500, [{ kind: "temporary", id: "failure", msg: "The P2P layer is disabled." }]]);
  // bad arguments are still refused first
  assert.is((await call(fetch, "GET", "/network/points/nowhere")).status, 400);
});

d("/network/log is open and silent, and ends when the client goes away", async () => {
  const fetch = handlerOver(undefined);
  const ac = new AbortController();
  const log = await open(fetch, "/network/log", ac.signal);
  const first = log.reader.read();
  ac.abort();
  assert.equal(await first, { done: true, value: undefined });
});

d.run();

// ---- /describe ------------------------------------------------------------------------------

interface Described {
  method: string;
  template: string;
  description: string | undefined;
  query: string[];
}

/** The services below `/network` as `/describe/network?recurse=yes` lists them, with OpenAPI-style templates. */
async function describedServices(fetch: RpcHandler): Promise<Described[]> {
  const out: Described[] = [];
  const walk = (tree: any, path: string[]) => {
    const node = tree?.static;
    if (node === undefined) return;
    for (const [key, svc] of Object.entries(node)) {
      if (!key.endsWith("_service")) continue;
      const s = svc as { meth: string; description?: string; query: { name: string }[] };
      out.push({ method: s.meth, template: "/" + path.join("/"), description: s.description, query: s.query.map((q) => q.name) });
    }
    const sub = node.subdirs;
    if (sub?.suffixes !== undefined) for (const { name, tree: t } of sub.suffixes) walk(t, [...path, name]);
    if (sub?.dynamic_dispatch !== undefined) walk(sub.dynamic_dispatch.tree, [...path, `{${sub.dynamic_dispatch.arg.name}}`]);
  };
  const r = await call(fetch, "GET", "/describe/network?recurse=yes");
  assert.is(r.status, 200, r.text);
  walk(r.json, ["network"]);
  return out;
}
