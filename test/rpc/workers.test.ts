/**
 * `/workers/*` over the node's real workers:
 *
 * - a node made by `createNode` (manual baking, a clock that moves a millisecond at each read):
 *   blocks baked, a transfer injected, a spoiled block refused, then every `/workers/*` path
 *   answered, validated against `rpc-openapi.json`, and read: the block validator's requests as
 *   Octez's events in its backlog (the last validation is the last block baked, each request
 *   treated after the previous one completed), statuses running since the node started, nothing
 *   waiting at rest; a block validation held at its store write, with an injection waiting behind
 *   it, as `current_request` and `pending_requests`; Octez's 404 for an unknown chain or peer and
 *   400 for a malformed one; the early layout's `/workers/peer_validators` paths; `/describe`;
 * - a prevalidator whose protocol lets an operation through only when the test says so: its
 *   requests shown as Octez's kinds while they wait (`inject` treated, `ban`, `arrived` and `flush`
 *   waiting, then `leftover`), through the same services;
 * - `NodeWorkers` as the chain validator uses it: its record's requests and events, a peer
 *   validator added, listed with its pipeline, then removed, the distributed DB's counts given;
 * - `lib/shell/worker.ts` alone: queue order, statuses, crash with errors, closing and closed,
 *   the backlog's levels and bounds, the hooks of a component with its own queue.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { BOOTSTRAP_SECRET_KEYS, createBaker } from "../../lib/baker/mod.ts";
import { parseSecretKey } from "../../lib/crypto/keys.ts";
import { blockHash } from "../../lib/crypto/hashes.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import type { Transaction } from "../../lib/encoding/hangzhou/operation.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { hangzhouMempoolPlugin } from "../../lib/protocols/hangzhou/plugin.ts";
import { genesisProtocol } from "../../lib/protocols/genesis/protocol.ts";
import { HANGZHOU, hangzhouProtocol } from "../../lib/protocols/hangzhou/protocol.ts";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { createRpcHandler } from "../../lib/rpc/handler.ts";
import { workerServices } from "../../lib/rpc/services/workers.ts";
import { hashOperation } from "../../lib/shell/operations.ts";
import { Prevalidator } from "../../lib/shell/prevalidator.ts";
import type { Protocol, ValidationState } from "../../lib/shell/protocol.ts";
import { Worker, type WorkerStatus } from "../../lib/shell/worker.ts";
import { NodeWorkers } from "../../lib/shell/workers-view.ts";
import type { KeyValueStore, WriteOp } from "../../lib/store/kv.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { OCTEZ_FORMATS } from "../conformance/octez-formats.ts";
import { withFloatTimespans } from "../conformance/octez-schemas.ts";
import { openSandbox } from "../baker/sandbox.ts";
import { BOOTSTRAP, forge, manager } from "../hangzhou/manager-fixture.ts";
import { OpenApi } from "../support/openapi.ts";

type Obj = { [k: string]: any };

const api = OpenApi.load(new URL("../vectors/octez/rpc-openapi.json", import.meta.url));
const FORMATS = OCTEZ_FORMATS;
const CHAIN = "NetXdQprcVkpaWU";
/** A well-formed chain id that is not the node's, a peer id that no worker has, an operation hash. */
const OTHER_CHAIN = b58encode(B58.chainId, Uint8Array.of(1, 2, 3, 4));
const PEER = b58encode(B58.cryptoboxPublicKeyHash, new Uint8Array(16).fill(7));
const BANNED = b58encode(B58.operationHash, new Uint8Array(32).fill(9));
const START = Date.parse("2022-05-05T12:00:00.000Z");
const LEVELS = ["debug", "info", "notice", "warning", "error", "fatal"];

/** A clock that moves one millisecond at each read, from `start`. */
function steppingClock(start: number): { now: () => number; peek: () => number } {
  let t = start;
  return { now: () => ++t, peek: () => t };
}

/** Milliseconds of a `timestamp.system` text. */
function ms(text: string): number {
  return Date.parse(text.replace(/-00:00$/, "Z"));
}

async function call(handler: (r: Request) => Promise<Response>, method: string, path: string, body?: unknown): Promise<{ status: number; text: string; json?: any }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await handler(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** A 200 answer of a GET, validated against the file (Octez's floats as numbers). */
async function ok(handler: (r: Request) => Promise<Response>, path: string): Promise<any> {
  const r = await call(handler, "GET", path);
  assert.is(r.status, 200, `GET ${path}: ${r.text}`);
  const template = api.template(path);
  assert.ok(template !== undefined && template.startsWith("/workers"), `${path} is not a /workers path of the file`);
  api.assertValid(r.json, withFloatTimespans(api, template), `GET ${path}`, { formats: FORMATS });
  return r.json;
}

/** Lets the event loop turn until `cond` holds, at most `turns` times. */
async function settle(cond: () => boolean | Promise<boolean>, what: string, turns = 2000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 0));
  }
  throw new Error(`never: ${what}`);
}

/** A gate: each `wait` passes while permits remain, else waits for `allow`. */
class Gate {
  private permits = Infinity;
  private waiters: (() => void)[] = [];
  /** How many callers are waiting. */
  get waiting(): number {
    return this.waiters.length;
  }
  close(): void {
    this.permits = 0;
  }
  allow(n: number): void {
    this.permits += n;
    while (this.permits > 0 && this.waiters.length > 0) {
      this.permits--;
      this.waiters.shift()!();
    }
  }
  async wait(): Promise<void> {
    if (this.permits > 0) {
      this.permits--;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}

/** A store whose writes wait at `gate`; `writes` counts the writes that arrived. */
function gatedStore(gate: Gate): KeyValueStore & { writes: number } {
  const inner = new MemoryStore();
  const store = {
    writes: 0,
    get: (key: Uint8Array) => inner.get(key),
    range: (options: Parameters<KeyValueStore["range"]>[0]) => inner.range(options),
    close: () => inner.close(),
    async write(ops: readonly WriteOp[]) {
      store.writes++;
      await gate.wait();
      await inner.write(ops);
    },
  };
  return store;
}

/** A transfer of 1 tez from bootstrap<from + 1> to the next bootstrap account on `branch`. */
function transfer(branch: string, counter: bigint, from = 0): Promise<Uint8Array> {
  const c = manager<Transaction>({
    kind: "transaction",
    source: BOOTSTRAP[from]!.pkh,
    counter,
    amount: 1_000_000n,
    destination: BOOTSTRAP[from + 1]!.pkh,
    fee: 1000n,
    gas_limit: 1520n,
    storage_limit: 0n,
  });
  return forge(BOOTSTRAP[from]!.sk, branch, [c]);
}

/** The error `p` rejects with, checked by `check` (fails if it resolves). */
async function rejects(p: Promise<unknown>, check: RegExp | ((e: any) => boolean)): Promise<void> {
  try {
    await p;
  } catch (e) {
    const good = check instanceof RegExp ? check.test(String((e as Error)?.message ?? e)) : check(e);
    assert.ok(good, `unexpected rejection: ${String((e as Error)?.stack ?? e)}`);
    return;
  }
  assert.unreachable("should have rejected");
}

function emptyBacklog(backlog: Obj[]): void {
  assert.equal(backlog, LEVELS.map((level) => ({ level, events: [] })));
}

// ---- a node --------------------------------------------------------------------------------

const N = suite<{ node: TezosNode; clock: ReturnType<typeof steppingClock>; started: number; gate: Gate; store: ReturnType<typeof gatedStore> }>(
  "/workers of a node",
);
N.before.each(async (ctx) => {
  ctx.clock = steppingClock(START);
  ctx.started = ctx.clock.peek();
  ctx.gate = new Gate();
  ctx.store = gatedStore(ctx.gate);
  ctx.node = await createNode({ bake: { mode: "manual" }, now: ctx.clock.now, store: ctx.store });
});
N.after.each(async (ctx) => {
  ctx.gate.allow(Infinity);
  await ctx.node.close();
});

N("every path answers the workers' records after blocks, an injection and a refused block", async ({ node, started }) => {
  const f = (r: Request) => node.fetch(r);
  const startLevel = (await call(f, "GET", "/chains/main/blocks/head/header/shell/level")).json as number;
  const baked = (await call(f, "POST", "/sandbox/bake?count=3")).json as string[];
  assert.is(baked.length, 3);
  const counter = BigInt((await call(f, "GET", `/chains/main/blocks/head/context/contracts/${BOOTSTRAP[0]!.pkh}/counter`)).json);
  const op = await transfer(baked[2]!, counter + 1n);
  const injected = await call(f, "POST", "/injection/operation", toHex(op));
  assert.equal([injected.status, injected.json], [200, hashOperation(op)]);
  // a block whose signature is spoiled: refused, the worker goes on
  assert.equal((await call(f, "GET", "/chains/main/blocks/2/operation_hashes")).json, [[], [], [], []]);
  const raw = (await call(f, "GET", "/chains/main/blocks/2/header/raw")).json as string;
  const spoiled = raw.slice(0, -2) + (raw.endsWith("00") ? "01" : "00");
  const refused = await call(f, "POST", "/injection/block", { data: spoiled, operations: [[], [], [], []] });
  assert.is(refused.status, 500);
  const spoiledHash = b58encode(B58.blockHash, blockHash(Uint8Array.from(spoiled.match(/../g)!.map((b) => parseInt(b, 16)))));

  // the block validator: every request an event at notice level, in order, one at a time
  const bv = await ok(f, "/workers/block_validator");
  assert.equal(bv.status.phase, "running");
  assert.ok(ms(bv.status.since) > started, "running since after the node started");
  assert.equal(bv.pending_requests, []);
  assert.not.ok("current_request" in bv);
  assert.equal(bv.backlog.map((l: Obj) => l.level), LEVELS);
  const notice = bv.backlog[2].events as Obj[];
  assert.equal(bv.backlog.filter((l: Obj) => l.level !== "notice").map((l: Obj) => l.events), [[], [], [], [], []]);
  // from the activation (level 1) to the last block baked: a pre-application then a validation each; then the spoiled block
  const levels = Array.from({ length: startLevel + 3 }, (_, i) => i + 1);
  assert.equal(notice.map((e) => Object.keys(e)[0]), [...levels.flatMap(() => ["preapplication_success", "successful_validation"]), "failed_validation"]);
  assert.equal(notice.filter((e) => e.preapplication_success).map((e) => e.preapplication_success), levels.map((level) => ({ chain_id: CHAIN, level })));
  const validations = notice.filter((e) => e.successful_validation).map((e) => e.successful_validation);
  assert.equal(validations.slice(-3).map((v) => v.block), baked, "the validations of the baked blocks, the last one last");
  assert.equal(validations, (await Promise.all(levels.map(async (l) => (await call(f, "GET", `/chains/main/blocks/${l}/hash`)).json))).map((block) => ({ block, chain_id: CHAIN })));
  const failure = notice.at(-1)!;
  assert.equal(failure.failed_validation, { block: spoiledHash, chain_id: CHAIN });
  assert.equal(failure.errors[0].id, "validator.invalid_block");
  let previousEnd = ms(bv.status.since);
  for (const e of notice) {
    const { pushed, treated, completed } = e.status as { pushed: string; treated: number; completed: number };
    assert.ok(treated >= 0 && completed > 0, JSON.stringify(e.status));
    assert.ok(ms(pushed) + treated * 1000 >= previousEnd, `treated after the previous request completed: ${JSON.stringify(e)}`);
    previousEnd = ms(pushed) + Math.round(treated * 1000) + Math.round(completed * 1000);
  }
  assert.equal(bv.status.phase, "running", "a refused block does not stop the worker");

  // the chain validator: the node's chain, running, nothing asked of it yet
  const cvs = await ok(f, "/workers/chain_validators");
  assert.equal(cvs.map((c: Obj) => [c.chain_id, c.status.phase, c.information.instances, c.information.queue_length, c.pipelines]), [[CHAIN, "running", 1, 0, 0]]);
  assert.equal(cvs[0].information.status, cvs[0].status);
  assert.ok(ms(cvs[0].status.since) > started);
  for (const chain of ["main", CHAIN]) {
    const cv = await ok(f, `/workers/chain_validators/${chain}`);
    assert.equal(cv.status, cvs[0].status);
    assert.equal(cv.pending_requests, []);
    assert.not.ok("current_request" in cv);
    // a node alone (threshold 0) is bootstrapped from the start, and says so as Octez's chain
    // validator does: Bootstrapped, then its synchronisation status, at notice level
    assert.equal(cv.backlog, LEVELS.map((level) => ({ level, events: level === "notice" ? [{ bootstrapped: {} }, "synced"] : [] })));
    // no P2P layer: the distributed DB reads from no connection and asks nothing
    const none = { table_length: 0, scheduler_length: 0 };
    assert.equal(await ok(f, `/workers/chain_validators/${chain}/ddb`), {
      p2p_readers: 0,
      active_chains: 1,
      operation_db: none,
      operations_db: none,
      block_header_db: none,
      active_connections: 0,
      active_peers: 0,
    });
    assert.equal(await ok(f, `/workers/chain_validators/${chain}/peers_validators`), []);
  }

  // the prevalidator: running since it started, its requests all done
  const pvs = await ok(f, "/workers/prevalidators");
  assert.equal(pvs.map((p: Obj) => [p.chain_id, p.status.phase, p.information.instances, p.information.queue_length, p.pipelines]), [[CHAIN, "running", 1, 0, 0]]);
  assert.ok(ms(pvs[0].status.since) > ms(bv.status.since), "the prevalidator starts after the block validator");
  for (const chain of ["main", CHAIN]) {
    const pv = await ok(f, `/workers/prevalidators/${chain}`);
    assert.equal(pv.status, pvs[0].status);
    assert.equal(pv.pending_requests, []);
    assert.not.ok("current_request" in pv);
    emptyBacklog(pv.backlog); // Octez's prevalidator records no events
  }
  // the injected transfer is in the mempool
  assert.equal(((await call(f, "GET", "/chains/main/mempool/pending_operations")).json as Obj).applied.map((o: Obj) => o.hash), [hashOperation(op)]);
});

N("unknown chains and peers: 404 as Octez's Not_found; malformed ones: 400; a foreign chain has no peer validators", async ({ node }) => {
  const f = (r: Request) => node.fetch(r);
  for (const path of [
    "/workers/chain_validators/test",
    `/workers/chain_validators/${OTHER_CHAIN}`,
    "/workers/chain_validators/test/ddb",
    `/workers/chain_validators/${OTHER_CHAIN}/ddb`,
    "/workers/chain_validators/test/peers_validators",
    `/workers/chain_validators/main/peers_validators/${PEER}`,
    `/workers/chain_validators/${OTHER_CHAIN}/peers_validators/${PEER}`,
    "/workers/prevalidators/test",
    `/workers/prevalidators/${OTHER_CHAIN}`,
  ]) {
    const r = await call(f, "GET", path);
    assert.equal([r.status, r.text], [404, ""], path);
  }
  assert.equal(await ok(f, `/workers/chain_validators/${OTHER_CHAIN}/peers_validators`), []);
  const badChain = await call(f, "GET", "/workers/prevalidators/mainnet");
  assert.equal(
    [badChain.status, badChain.text],
    [400, `Failed to parsed an argument in path. After "workers/prevalidators/mainnet", the value "Cannot parse chain identifier." is not acceptable for type "chain_id"`],
  );
  const badPeer = await call(f, "GET", "/workers/chain_validators/main/peers_validators/idtooshort");
  assert.is(badPeer.status, 400);
  assert.match(badPeer.text, /is not acceptable for type "peer_id"/);
  // the early layout's paths go on as the current ones
  assert.equal((await call(f, "GET", "/workers/peer_validators/main")).json, []);
  assert.equal(await call(f, "GET", `/workers/peer_validators/main/${PEER}`), { status: 404, text: "", json: undefined });
  assert.is((await call(f, "GET", "/workers/peer_validators/test")).status, 404);
  // only GET
  assert.is((await call(f, "POST", "/workers/block_validator")).status, 405);
});

N("a validation held at its store write is the current request, an injection waits behind it", async ({ node, gate, store }) => {
  const f = (r: Request) => node.fetch(r);
  await call(f, "POST", "/sandbox/bake");
  const raw = (await call(f, "GET", "/chains/main/blocks/head/header/raw")).json as string;
  const spoiled = raw.slice(0, -2) + (raw.endsWith("00") ? "01" : "00");
  gate.close();
  const writesBefore = store.writes;
  const bake = call(f, "POST", "/sandbox/bake");
  await settle(() => store.writes > writesBefore, "the baked block's store write");
  const injection = call(f, "POST", "/injection/block", { data: spoiled, operations: [[], [], [], []] });
  let held: Obj = {};
  await settle(async () => (held = await ok(f, "/workers/block_validator")).pending_requests.length === 1, "the injection waiting");
  const current = held.current_request as Obj;
  assert.equal(Object.keys(current.request), ["block", "chain_id"]);
  assert.is(current.request.chain_id, CHAIN);
  assert.ok(ms(current.pushed) <= ms(current.treated));
  const waiting = held.pending_requests[0] as Obj;
  assert.equal(waiting.request.chain_id, CHAIN);
  assert.ok(ms(waiting.pushed) > ms(current.treated), "pushed while the other was treated");
  assert.equal((await ok(f, "/workers/block_validator")).pending_requests, held.pending_requests);
  gate.allow(Infinity);
  const [baked] = (await bake).json as string[];
  assert.is(current.request.block, baked, "the request held was the baked block's validation");
  assert.is((await injection).status, 500);
  const atRest = await ok(f, "/workers/block_validator");
  assert.equal(atRest.pending_requests, []);
  assert.not.ok("current_request" in atRest);
  const last = atRest.backlog[2].events.at(-1) as Obj;
  assert.equal(last.failed_validation, waiting.request);
  assert.is(last.status.pushed, waiting.pushed);
});

N("/describe lists the workers' services with Octez's descriptions", async ({ node }) => {
  const f = (r: Request) => node.fetch(r);
  const expected: Record<string, string> = {
    "workers/block_validator": "Introspect the state of the block_validator worker.",
    "workers/chain_validators": "Lists the chain validator workers and their status.",
    "workers/chain_validators/main": "Introspect the state of a chain validator worker.",
    "workers/chain_validators/main/ddb": "Introspect the state of the DDB attached to a chain validator worker.",
    "workers/chain_validators/main/peers_validators": "Lists the peer validator workers and their status.",
    [`workers/chain_validators/main/peers_validators/${PEER}`]: "Introspect the state of a peer validator worker.",
    "workers/prevalidators": "Lists the Prevalidator workers and their status.",
    "workers/prevalidators/main": "Introspect the state of prevalidator workers.",
  };
  for (const [path, description] of Object.entries(expected)) {
    const d = await call(f, "GET", `/describe/${path}`);
    assert.is(d.status, 200, path);
    assert.is(d.json.static.get_service.description, description, path);
    assert.ok(d.json.static.get_service.output.json_schema !== undefined, path);
  }
});

N.run();

// ---- a prevalidator's requests ------------------------------------------------------------

/** `protocol` whose validation states apply an operation only once `gate` lets them. */
function gatedProtocol(protocol: Protocol, gate: Gate): Protocol {
  const wrap = (vs: ValidationState): ValidationState => ({
    async applyOperation(op) {
      await gate.wait();
      return vs.applyOperation(op);
    },
    finalize: (shell) => vs.finalize(shell),
    ...(vs.prepare === undefined ? {} : { prepare: (op: Parameters<NonNullable<ValidationState["prepare"]>>[0]) => vs.prepare!(op) }),
    fork: () => wrap(vs.fork()),
  });
  return { ...protocol, beginConstruction: async (env) => wrap(await protocol.beginConstruction(env)) };
}

const P = suite("the prevalidator's requests");

P("inject, ban, arrived, flush and leftover shown as Octez's requests while they wait, nothing at rest", async () => {
  const sb = await openSandbox();
  const gate = new Gate();
  const clock = steppingClock(START);
  const protocols = new Map([genesisProtocol, gatedProtocol(hangzhouProtocol, gate)].map((p) => [p.hash, p]));
  const pv = new Prevalidator({
    chain: sb.chain,
    validator: sb.validator,
    protocols: (h) => protocols.get(h),
    plugins: (h) => (h === HANGZHOU ? hangzhouMempoolPlugin : undefined),
    now: clock.now,
  });
  assert.is(pv.worker.status.phase, "launching");
  await pv.start();
  // blocks without the mempool's operations: an applied transfer goes back to pending at each new head
  const baker = createBaker({ chain: sb.chain, validator: sb.validator, keys: BOOTSTRAP_SECRET_KEYS.map(parseSecretKey), mode: "manual" });
  await baker.start();
  const workers = new NodeWorkers({ chainId: sb.chain.chainId, now: clock.now, blockValidator: sb.validator.worker, prevalidator: pv.worker });
  const handler = createRpcHandler(workerServices(workers, sb.chain.chainId));
  const branch = sb.chain.head.hash;
  try {
    const running = pv.worker.status as Extract<WorkerStatus, { phase: "running" }>;
    assert.is(running.phase, "running");
    const op = await transfer(branch, 1n);
    const fromPeer = await transfer(branch, 1n, 1);
    gate.close();
    const injected = pv.inject(op);
    const banned = pv.ban(BANNED);
    pv.arrived(fromPeer); // as the distributed DB hands over an operation a peer sent
    await settle(() => gate.waiting === 1, "the injection at the protocol");
    const block = await baker.bake(); // validated by the sandbox's own validator: not gated
    let state: Obj = {};
    await settle(async () => (state = await ok(handler, "/workers/prevalidators/main")).pending_requests.length === 3, "the flush waiting");
    assert.equal(state.current_request.request, { request: "inject", operation: { branch, data: toHex(op.subarray(32)) } });
    assert.equal(
      state.pending_requests.map((p: Obj) => p.request),
      [
        { request: "ban", operation_hash: BANNED },
        { request: "arrived", operation_hash: hashOperation(fromPeer), operation: { branch, data: toHex(fromPeer.subarray(32)) } },
        { request: "flush", block, event: "increment" },
      ],
    );
    assert.ok(ms(state.current_request.pushed) <= ms(state.current_request.treated));
    const pushed = state.pending_requests.map((p: Obj) => ms(p.pushed));
    assert.ok(pushed[0] < pushed[1] && pushed[1] < pushed[2], "in push order");
    emptyBacklog(state.backlog);
    const [listed] = await ok(handler, "/workers/prevalidators");
    assert.equal([listed.information.queue_length, listed.pipelines], [3, 3]);

    gate.allow(1); // the injection's application; the flush then puts the transfer back in pending
    assert.is(await injected, hashOperation(op));
    await banned;
    await settle(async () => (state = await ok(handler, "/workers/prevalidators/main")).current_request?.request.request === "leftover", "the leftover batch");
    assert.equal(state.current_request.request, { request: "leftover" });
    assert.equal(state.pending_requests, []);

    gate.allow(Infinity);
    await pv.idle();
    const rest = await ok(handler, "/workers/prevalidators/main");
    assert.equal([rest.pending_requests, "current_request" in rest, rest.status], [[], false, state.status]);
    assert.equal(pv.view().applied.map((a) => a.op.hash), [hashOperation(op), hashOperation(fromPeer)]);
  } finally {
    gate.allow(Infinity);
    await baker.stop();
    await pv.stop();
    await workers.close();
    await sb.close();
  }
  assert.is(pv.worker.status.phase, "closed");
  await rejects(pv.inject(await transfer(branch, 2n)), (e: any) => e.trace?.[0]?.id === "worker.closed");
});

P.run();

// ---- the chain validator's and peer validators' records --------------------------------------

const V = suite("NodeWorkers: the records a chain validator drives");

V("the chain validator's requests and events, peer validators added and removed, the ddb counts", async () => {
  const clock = steppingClock(START);
  const workers = new NodeWorkers({
    chainId: CHAIN,
    now: clock.now,
    blockValidator: new Worker({ name: { base: "validator-block" }, now: clock.now }),
    prevalidator: new Worker({ name: { base: "prevalidator" }, now: clock.now }),
  });
  const handler = createRpcHandler(workerServices(workers, CHAIN));
  const block = b58encode(B58.blockHash, new Uint8Array(32).fill(3));
  // as Octez's chain validator: a processed block recorded with its request's status and outcome
  workers.chainValidator.setHandlers({
    onCompletion: (request, status, result) => {
      const r = result as { outcome: "increment"; level: number };
      workers.chainValidator.record({ kind: "processed_block", request, status, outcome: r.outcome, fitness: [Uint8Array.of(2)], level: r.level, timestamp: 1_600_000_000 });
    },
    onError: (request, status, e) => {
      workers.chainValidator.record({ kind: "request_failure", request, status, errors: [{ kind: "temporary", id: "failure", msg: String(e) }] });
      return "continue";
    },
  });
  assert.equal(await workers.chainValidator.push({ kind: "hash", hash: block }, async () => ({ outcome: "increment", level: 5 })), { outcome: "increment", level: 5 });
  await rejects(workers.chainValidator.push({ kind: "peer_id", peer_id: PEER }, () => Promise.reject(new Error("gone"))), /gone/);
  workers.chainValidator.record({ kind: "notify_head", peer_id: PEER }); // debug: not kept
  workers.chainValidator.record({ kind: "sync_status", sync_status: "synced" });
  const state = await ok(handler, "/workers/chain_validators/main");
  assert.equal(state.backlog[2].events, [
    { processed_block: { request: { hash: block }, status: state.backlog[2].events[0].processed_block.status, outcome: "increment", fitness: ["02"], level: 5, timestamp: "2020-09-13T12:26:40Z" } },
    { request_failure: { failed_validation: { peer_id: PEER }, status: state.backlog[2].events[1].request_failure.status, errors: [{ kind: "temporary", id: "failure", msg: "Error: gone" }] } },
    "synced",
  ]);
  assert.equal(state.backlog[0].events, []);

  const pv = workers.addPeerValidator(PEER, () => ({ fetched_headers: 12, fetched_blocks: 3 }));
  assert.throws(() => workers.addPeerValidator(PEER), /has a peer validator already/);
  pv.setHandlers({ onCompletion: (request, status) => pv.record({ kind: "request", request, status }) });
  await pv.push({ kind: "new_branch", block, locators: 7 }, async () => undefined);
  const [listed] = await ok(handler, "/workers/chain_validators/main/peers_validators");
  assert.equal([listed.peer_id, listed.status.phase, listed.information.instances, listed.pipelines], [PEER, "running", 1, { fetched_headers: 12, fetched_blocks: 3 }]);
  const peerState = await ok(handler, `/workers/chain_validators/main/peers_validators/${PEER}`);
  assert.equal(peerState.backlog[1].events.map((e: Obj) => e.request), [{ request: "new_branch", block, locators: 7 }]);
  await workers.removePeerValidator(PEER);
  assert.is(pv.status.phase, "closed");
  assert.equal(await ok(handler, "/workers/chain_validators/main/peers_validators"), []);
  assert.is((await call(handler, "GET", `/workers/chain_validators/main/peers_validators/${PEER}`)).status, 404);

  const none = { table_length: 0, scheduler_length: 0 };
  assert.equal((await ok(handler, "/workers/chain_validators/main/ddb")).p2p_readers, 0);
  workers.useDdb(() => ({ p2p_readers: 2, active_chains: 1, operation_db: { table_length: 4, scheduler_length: 1 }, operations_db: none, block_header_db: none, active_connections: 2, active_peers: 1 }));
  assert.equal((await ok(handler, "/workers/chain_validators/main/ddb")).operation_db, { table_length: 4, scheduler_length: 1 });
  await workers.close();
  assert.is(workers.chainValidator.status.phase, "closed");
});

V.run();

// ---- the worker record ---------------------------------------------------------------------

const W = suite("lib/shell/worker.ts");

function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((a, b) => ((resolve = a), (reject = b)));
  return { promise, resolve, reject };
}

W("requests run one at a time in push order; pending, current and statuses from the clock", async () => {
  const clock = steppingClock(1000);
  const completed: [string, object][] = [];
  const w = new Worker<string, string>({ name: { base: "test" }, now: clock.now, onCompletion: (r, s) => completed.push([r, s]) });
  assert.equal(w.status, { phase: "launching", since: 1001 });
  w.started();
  assert.equal(w.status, { phase: "running", since: 1002 });
  const order: string[] = [];
  const gates = [deferred(), deferred(), deferred()];
  const results = ["a", "b", "c"].map((r, i) =>
    w.push(r, async () => {
      order.push(`start ${r}`);
      await gates[i]!.promise;
      order.push(`end ${r}`);
      return i;
    }),
  );
  // pushed at 1003, 1004, 1005; nothing treated before the current turn ends
  assert.equal(w.pendingRequests(), [
    { pushed: 1003, request: "a" },
    { pushed: 1004, request: "b" },
    { pushed: 1005, request: "c" },
  ]);
  assert.is(w.currentRequest(), undefined);
  await settle(() => w.currentRequest() !== undefined, "a treated");
  assert.equal(w.currentRequest(), { pushed: 1003, treated: 1006, request: "a" });
  assert.equal(w.pendingRequests().map((p) => p.request), ["b", "c"]);
  assert.equal(w.information(3), { instances: 3, status: w.status, queue_length: 2 });
  gates[2]!.resolve();
  gates[1]!.resolve();
  gates[0]!.resolve();
  assert.equal(await Promise.all(results), [0, 1, 2]);
  assert.equal(order, ["start a", "end a", "start b", "end b", "start c", "end c"]);
  assert.equal(completed[0], ["a", { pushed: 1003, treated: 3, completed: 1 }]);
  assert.equal(completed.map(([r]) => r), ["a", "b", "c"]);
  assert.equal([w.pendingRequests(), w.currentRequest()], [[], undefined]);
});

W("a failed request rejects its push and the worker goes on; onError's crash crashes it with the errors", async () => {
  const clock = steppingClock(0);
  const errors: string[] = [];
  const w = new Worker<string>({
    name: { base: "validator-block" },
    now: clock.now,
    onError: (r, _s, e) => {
      errors.push(`${r}: ${(e as Error).message}`);
      return r === "fatal" ? "crash" : "continue";
    },
  });
  w.started();
  const birth = (w.status as { since: number }).since;
  await rejects(w.push("bad", () => Promise.reject(new Error("no"))), /no/);
  assert.is(w.status.phase, "running");
  const gate = deferred();
  const fatal = w.push("fatal", async () => {
    await gate.promise;
    throw new Error("disk gone");
  });
  const after = w.push("after", async () => "never run");
  gate.resolve();
  await rejects(fatal, /disk gone/);
  const s = w.status as Extract<WorkerStatus, { phase: "crashed" }>;
  assert.equal([s.phase, s.birth, s.errors], ["crashed", birth, [{ kind: "temporary", id: "failure", msg: "disk gone" }]]);
  assert.ok(s.since > birth);
  // the request that waited, and any later one, fail with Octez's worker.closed
  const closed = { kind: "permanent", id: "worker.closed", worker: ["validator-block", ""] };
  await rejects(after, (e: any) => JSON.stringify(e.toJson()) === JSON.stringify([closed]));
  await rejects(w.push("later", async () => 1), (e: any) => JSON.stringify(e.toJson()) === JSON.stringify([closed]));
  assert.throws(() => w.pushed("later"), (e: any) => e.trace[0].id === "worker.closed");
  assert.equal(errors, ["bad: no", "fatal: disk gone"]);
  assert.equal(w.pendingRequests(), []);
  w.crash(new Error("again"));
  assert.equal(w.status, s, "a crashed worker stays as it crashed");
});

W("close: closing while the current request finishes, the waiting ones fail, then closed", async () => {
  const clock = steppingClock(0);
  const w = new Worker<string>({ name: { base: "prevalidator", name: CHAIN }, now: clock.now });
  w.started();
  const birth = (w.status as { since: number }).since;
  const gate = deferred<string>();
  const current = w.push("current", () => gate.promise);
  const waiting = w.push("waiting", async () => "never run");
  await settle(() => w.currentRequest() !== undefined, "current treated");
  const closing = w.close();
  const during = w.status as Extract<WorkerStatus, { phase: "closing" }>;
  assert.equal([during.phase, during.birth], ["closing", birth]);
  assert.equal(w.pendingRequests(), []);
  await rejects(waiting, (e: any) => e.trace[0].id === "worker.closed" && e.trace[0].fields.name === CHAIN);
  gate.resolve("done");
  assert.is(await current, "done");
  await closing;
  const closed = w.status as Extract<WorkerStatus, { phase: "closed" }>;
  assert.equal([closed.phase, closed.birth], ["closed", birth]);
  assert.ok(closed.since > during.since);
  await w.close(); // again: nothing
  assert.equal(w.status, closed);
  assert.throws(() => w.started(), /started while closed/);
});

W("the backlog: six levels in order, events below the backlog level dropped, each level a bounded ring", () => {
  const levelOf = (e: string) => e.split(":")[0] as "debug" | "info" | "notice" | "warning" | "error" | "fatal";
  const w = new Worker<string, string>({ name: { base: "test" }, now: () => 0, level: levelOf, backlogSize: 3 });
  for (let i = 1; i <= 5; i++) w.record(`notice:${i}`);
  w.record("debug:1");
  w.record("fatal:1");
  w.record("info:1");
  assert.equal(w.backlog(), [
    { level: "debug", events: [] },
    { level: "info", events: ["info:1"] },
    { level: "notice", events: ["notice:3", "notice:4", "notice:5"] },
    { level: "warning", events: [] },
    { level: "error", events: [] },
    { level: "fatal", events: ["fatal:1"] },
  ]);
  const all = new Worker<string, string>({ name: { base: "test" }, now: () => 0, level: levelOf, backlogLevel: "debug" });
  all.record("debug:1");
  assert.equal(all.backlog()[0], { level: "debug", events: ["debug:1"] });
  const defaults = new Worker<string, string>({ name: { base: "test" }, now: () => 0 });
  for (let i = 0; i < 301; i++) defaults.record(`e${i}`);
  const info = defaults.backlog()[1]!;
  assert.equal([info.level, info.events.length, info.events[0], info.events.at(-1)], ["info", 300, "e1", "e300"]);
  assert.throws(() => new Worker({ name: { base: "x" }, now: () => 0, backlogSize: 0 }), /backlogSize/);
});

W("hooks of a component with its own queue: pushed then treat, one at a time", async () => {
  const clock = steppingClock(0);
  const w = new Worker<string>({ name: { base: "test" }, now: clock.now });
  w.started();
  const a = w.pushed("a");
  const b = w.pushed("b");
  assert.equal(w.pendingRequests().map((p) => p.request), ["a", "b"]);
  const gate = deferred();
  const treating = w.treat(a, () => gate.promise);
  await rejects(w.treat(b, async () => 1), /already being treated/);
  assert.equal(w.currentRequest()?.request, "a");
  gate.resolve();
  await treating;
  assert.is(await w.treat(b, async () => 2), 2);
  assert.equal([w.pendingRequests(), w.currentRequest()], [[], undefined]);
});

W.run();
