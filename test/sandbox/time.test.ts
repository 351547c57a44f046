/**
 * The sandbox clock through `node.fetch`: `GET /sandbox/time`, `POST /sandbox/time/increase` and
 * `/sandbox/time/set` move the time the next block is baked at (the later of the clock and the
 * minimal valid time), never before the head; bad values are refused with `sandbox.…` errors and
 * change nothing; the offset is kept across a restart on LMDB; a contract checking `NOW` against
 * a time in its storage fails before `time/increase` and succeeds after (from the second block
 * on: Hangzhou's NOW is the predecessor's timestamp plus the minimal delay). The wall clock is a
 * fixed, settable value (`createNode({ now })`), so every timestamp is exact.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { Origination, Transaction } from "../../lib/encoding/hangzhou/operation.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { toRfc3339 } from "../../lib/encoding/time.ts";
import { aclForAddress } from "../../lib/rpc/acl.ts";
import { createRpcHandler } from "../../lib/rpc/handler.ts";
import { sandboxTimeServices } from "../../lib/rpc/services/sandbox-time.ts";
import { sandboxClock } from "../../lib/sandbox/clock.ts";
import { sandboxGuard } from "../../lib/sandbox/guard.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { openLmdbStore } from "../../platform/store/lmdb.ts";
import { parseAndExpand, parseAndExpandExpression } from "../../lib/michelson/text/mod.ts";
import { BOOTSTRAP, forge, manager } from "../hangzhou/manager-fixture.ts";

/** The fixed wall clock of the tests, in seconds (2023-11-14T22:13:20Z). */
const WALL_S = 1_700_000_000;

async function call(node: { fetch(r: Request): Promise<Response> }, method: string, path: string, body?: unknown) {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** The head's timestamp in seconds. */
async function headTime(node: TezosNode): Promise<number> {
  const header = (await call(node, "GET", "/chains/main/blocks/head/header")).json;
  return Date.parse(header.timestamp) / 1000;
}

/** Bakes one block; the new head's level and timestamp (seconds). */
async function bakeOne(node: TezosNode): Promise<{ level: number; time: number }> {
  const r = await call(node, "POST", "/sandbox/bake");
  assert.is(r.status, 200, r.text);
  const header = (await call(node, "GET", "/chains/main/blocks/head/header")).json;
  return { level: header.level, time: Date.parse(header.timestamp) / 1000 };
}

const Time = suite<{ node: TezosNode; wall: { ms: number } }>("sandbox time");

Time.before.each(async (ctx) => {
  ctx.wall = { ms: WALL_S * 1000 };
  const wall = ctx.wall;
  ctx.node = await createNode({ bake: { mode: "manual" }, now: () => wall.ms });
});
Time.after.each(async (ctx) => {
  await ctx.node.close();
});

Time("GET /sandbox/time answers the wall clock and a zero offset on a fresh sandbox", async ({ node, wall }) => {
  assert.equal((await call(node, "GET", "/sandbox/time")).json, { timestamp: toRfc3339(WALL_S), offset: 0 });
  wall.ms += 12_500; // the clock runs on with the wall clock
  assert.equal((await call(node, "GET", "/sandbox/time")).json, { timestamp: toRfc3339(WALL_S + 12), offset: 0 });
});

Time("time/increase moves the next block's timestamp forward by that many seconds, levels and cycles go on by one", async ({ node }) => {
  const before = (await call(node, "GET", "/chains/main/blocks/head/metadata")).json.level_info;
  const r = await call(node, "POST", "/sandbox/time/increase", { seconds: 3600 });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json, { timestamp: toRfc3339(WALL_S + 3600), offset: 3600 });
  const next = await bakeOne(node);
  assert.is(next.time, WALL_S + 3600);
  assert.is(next.level, before.level + 1);
  const after = (await call(node, "GET", "/chains/main/blocks/head/metadata")).json.level_info;
  assert.is(after.cycle, before.cycle);
  assert.is(after.cycle_position, before.cycle_position + 1);
  // increases add up; the seconds may be given as a decimal string too
  const again = await call(node, "POST", "/sandbox/time/increase", { seconds: "86400" });
  assert.equal(again.json, { timestamp: toRfc3339(WALL_S + 3600 + 86400), offset: 90000 });
  assert.is((await bakeOne(node)).time, WALL_S + 90000);
  // the following block is a minimal delay later (the clock has not moved): Emmy* still rules
  assert.is((await bakeOne(node)).time, WALL_S + 90001);
});

Time("time/set takes RFC 3339 or integer seconds, and the next block is at that time", async ({ node, wall }) => {
  const target = WALL_S + 100_000;
  const r = await call(node, "POST", "/sandbox/time/set", { timestamp: toRfc3339(target) });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json, { timestamp: toRfc3339(target), offset: 100_000 });
  wall.ms += 5000; // the set clock runs on
  assert.is((await bakeOne(node)).time, target + 5);
  const seconds = await call(node, "POST", "/sandbox/time/set", { timestamp: target + 7200 });
  assert.equal(seconds.json, { timestamp: toRfc3339(target + 7200), offset: 7200 + 100_000 - 5 });
  assert.is((await bakeOne(node)).time, target + 7200);
  const text = await call(node, "POST", "/sandbox/time/set", { timestamp: String(target + 9000) });
  assert.is(text.json.timestamp, toRfc3339(target + 9000));
  // an offset from UTC is read as RFC 3339 says
  const zoned = await call(node, "POST", "/sandbox/time/set", { timestamp: toRfc3339(target + 20_000).replace("Z", "+00:00") });
  assert.is(zoned.json.timestamp, toRfc3339(target + 20_000));
});

Time("time/set to the head's own timestamp (as its header shows it) is allowed: the next block comes a minimal delay later", async ({ node }) => {
  await call(node, "POST", "/sandbox/time/increase", { seconds: 600 });
  const head = await bakeOne(node);
  const header = (await call(node, "GET", "/chains/main/blocks/head/header")).json;
  const r = await call(node, "POST", "/sandbox/time/set", { timestamp: header.timestamp });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.timestamp, header.timestamp);
  assert.is((await bakeOne(node)).time, head.time + 1);
});

Time("time/set before the head is refused with sandbox.timestamp_before_head, and nothing changes", async ({ node }) => {
  await call(node, "POST", "/sandbox/time/increase", { seconds: 1000 });
  const head = await bakeOne(node);
  const clock = (await call(node, "GET", "/sandbox/time")).json;
  const r = await call(node, "POST", "/sandbox/time/set", { timestamp: toRfc3339(head.time - 1) });
  assert.is(r.status, 500);
  assert.equal(r.json, [
    { kind: "temporary", id: "sandbox.timestamp_before_head", timestamp: toRfc3339(head.time - 1), head_timestamp: toRfc3339(head.time) },
  ]);
  assert.equal((await call(node, "GET", "/sandbox/time")).json, clock);
  assert.is(await headTime(node), head.time);
  assert.is((await bakeOne(node)).time, head.time + 1);
});

Time("bad bodies are refused with sandbox errors naming the value (400 for a body that is not JSON), and nothing changes", async ({ node }) => {
  const clock = (await call(node, "GET", "/sandbox/time")).json;
  for (const [body, shown] of [
    [{ seconds: 0 }, "0"],
    [{ seconds: -5 }, "-5"],
    [{ seconds: 1.5 }, "1.5"],
    [{ seconds: "ten" }, '"ten"'],
    [{}, "absent"],
    [[3600], "absent"],
    [{ seconds: 253402300799 }, "253402300799"],
  ] as const) {
    const r = await call(node, "POST", "/sandbox/time/increase", body);
    assert.is(r.status, 500, JSON.stringify(body));
    assert.equal(r.json, [{ kind: "permanent", id: "sandbox.invalid_time_increase", seconds: shown }], JSON.stringify(body));
  }
  for (const [body, shown] of [
    [{ timestamp: "tomorrow" }, '"tomorrow"'],
    [{ timestamp: "2023-02-30T00:00:00Z" }, '"2023-02-30T00:00:00Z"'],
    [{ timestamp: true }, "true"],
    [{ timestamp: 1.5 }, "1.5"],
    [{ time: 1 }, "absent"],
  ] as const) {
    const r = await call(node, "POST", "/sandbox/time/set", body);
    assert.is(r.status, 500, JSON.stringify(body));
    assert.equal(r.json, [{ kind: "permanent", id: "sandbox.invalid_timestamp", timestamp: shown }], JSON.stringify(body));
  }
  const past = await call(node, "POST", "/sandbox/time/set", { timestamp: "99999999999999" });
  assert.is(past.json[0].id, "sandbox.invalid_timestamp");
  const notJson = await call(node, "POST", "/sandbox/time/increase", "{seconds: 1");
  assert.is(notJson.status, 400);
  assert.equal((await call(node, "GET", "/sandbox/time")).json, clock);
  assert.is((await call(node, "GET", "/sandbox/time/increase")).status, 405);
});

Time("the time services are listed by /describe as sandbox-only services", async ({ node }) => {
  const d = (await call(node, "GET", "/describe/sandbox/time?recurse=yes")).json;
  assert.match(d.static.get_service.description, /^Sandbox only \(not an Octez service\):/);
  const increase = (await call(node, "GET", "/describe/sandbox/time/increase")).json.static.post_service;
  assert.match(increase.description, /^Sandbox only \(not an Octez service\):/);
  const set = (await call(node, "GET", "/describe/sandbox/time/set")).json.static.post_service;
  assert.match(set.description, /^Sandbox only \(not an Octez service\):/);
});

/** `parameter unit; storage timestamp`: fails unless NOW is at or past the stored time. */
const NOT_BEFORE = "parameter unit; storage timestamp; code { CDR; DUP; NOW; COMPARE; GE; IF {} {FAIL}; NIL operation; PAIR }";

/** bootstrap1's origination of {@link NOT_BEFORE} with `notBefore` (seconds) in its storage. */
const originateNotBefore = (notBefore: number) => (counter: bigint) => [
  manager<Origination>({
    kind: "origination",
    source: BOOTSTRAP[0]!.pkh,
    counter,
    balance: 0n,
    script: { code: parseAndExpand(NOT_BEFORE), storage: parseAndExpandExpression(String(notBefore)) },
    gas_limit: 10_000n,
    storage_limit: 1_000n,
  }),
];

/** bootstrap1's call of the contract `kt1` with Unit. */
const callOf = (kt1: string) => (counter: bigint) => [
  manager<Transaction>({ kind: "transaction", source: BOOTSTRAP[0]!.pkh, counter, amount: 0n, destination: kt1, parameters: { entrypoint: "default", value: { prim: "Unit" } }, gas_limit: 10_000n }),
];

/** Injects `contents` signed by bootstrap1 (at its next counter); the operation's hash. */
async function inject(node: TezosNode, contents: (counter: bigint) => (Origination | Transaction)[]): Promise<string> {
  const source = BOOTSTRAP[0]!;
  const counter = BigInt((await call(node, "GET", `/chains/main/blocks/head/context/contracts/${source.pkh}/counter`)).json);
  const branch = (await call(node, "GET", "/chains/main/blocks/head/hash")).json as string;
  const injected = await call(node, "POST", "/injection/operation", JSON.stringify(toHex(await forge(source.sk, branch, contents(counter + 1n)))));
  assert.is(injected.status, 200, injected.text);
  return injected.json as string;
}

/** The results of operation `hash`'s contents if the head holds it. */
async function resultsInHead(node: TezosNode, hash: string): Promise<any[] | undefined> {
  const ops = (await call(node, "GET", "/chains/main/blocks/head/operations/3")).json as any[];
  return ops.find((o) => o.hash === hash)?.contents.map((c: any) => c.metadata.operation_result);
}

/** Injects `contents` signed by bootstrap1 and bakes them; the receipts of the operation's contents. */
async function injectAndBake(node: TezosNode, contents: (counter: bigint) => (Origination | Transaction)[]) {
  const hash = await inject(node, contents);
  await bakeOne(node);
  const results = await resultsInHead(node, hash);
  assert.ok(results, "the operation is in the block");
  return results!;
}

Time("a contract checking NOW against a future time in its storage fails before time/increase and succeeds after", async ({ node }) => {
  const notBefore = WALL_S + 3600;
  const [originated] = await injectAndBake(node, originateNotBefore(notBefore));
  assert.is(originated.status, "applied");
  const kt1 = originated.originated_contracts[0] as string;
  const callIt = callOf(kt1);
  const [early] = await injectAndBake(node, callIt);
  assert.is(early.status, "failed");
  assert.ok(early.errors.some((e: { id: string }) => e.id === "proto.011-PtHangz2.michelson_v1.script_rejected"), JSON.stringify(early.errors));

  await call(node, "POST", "/sandbox/time/increase", { seconds: 3600 });
  // Hangzhou's NOW is the predecessor's timestamp plus minimal_block_delay (Script_timestamp.now):
  // the block baked at the moved time still runs with the old one, the block after it with the new
  const [sameNow] = await injectAndBake(node, callIt);
  assert.is(sameNow.status, "failed");
  assert.is(await headTime(node), notBefore);
  const [late] = await injectAndBake(node, callIt);
  assert.is(late.status, "applied", JSON.stringify(late.errors));
  assert.is(await headTime(node), notBefore + 1);
  assert.equal((await call(node, "GET", `/chains/main/blocks/head/context/contracts/${kt1}/storage`)).json, { string: toRfc3339(notBefore) });
});

Time("a revert sets the clock back to the time of its snapshot, from which it runs on (as Hardhat's evm_revert)", async ({ node, wall }) => {
  await bakeOne(node);
  const snapshot = (await call(node, "POST", "/sandbox/snapshot")).json;
  assert.equal((await call(node, "GET", "/sandbox/time")).json, { timestamp: toRfc3339(WALL_S), offset: 0 });
  // the sandbox's first blocks run a few seconds ahead of this fixed wall clock: the clock is set
  // back to the snapshot's time, but never before its head
  const back = Math.max(WALL_S, await headTime(node));
  await call(node, "POST", "/sandbox/time/increase", { seconds: 3600 });
  await bakeOne(node);
  wall.ms += 100_000; // the wall clock ran on meanwhile
  const r = await call(node, "POST", "/sandbox/revert", { id: snapshot.id });
  assert.is(r.status, 200, r.text);
  assert.equal((await call(node, "GET", "/sandbox/time")).json, { timestamp: toRfc3339(back), offset: back - (WALL_S + 100) });
  wall.ms += 5_000;
  assert.is((await bakeOne(node)).time, back + 5, "the next block is at that time plus what ran since the revert");
  // a snapshot whose head is ahead of the clock: the clock goes back to that head, not before
  assert.is((await bakeOne(node)).time, back + 6, "a second after the previous block, ahead of the clock");
  const second = (await call(node, "POST", "/sandbox/snapshot")).json;
  await bakeOne(node);
  await call(node, "POST", "/sandbox/revert", { id: second.id });
  assert.is((await call(node, "GET", "/sandbox/time")).json.timestamp, toRfc3339(back + 6));
});

Time("a value nested 100 000 levels deep is refused with the service's error, cut short, not an internal error (seen by the RPC fuzz)", async ({ node }) => {
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  for (const [path, field, id] of [["/sandbox/time/increase", "seconds", "sandbox.invalid_time_increase"], ["/sandbox/time/set", "timestamp", "sandbox.invalid_timestamp"]] as const) {
    const r = await call(node, "POST", path, `{"${field}":${deep}}`);
    assert.is(r.status, 500, r.text);
    assert.equal(r.json, [{ kind: "permanent", id, [field]: `${"[".repeat(77)}...` }]);
  }
  assert.equal((await call(node, "GET", "/sandbox/time")).json, { timestamp: toRfc3339(WALL_S), offset: 0 });
});

Time("the default ACL answers the time services only on loopback: 401 on a public address, nothing changed", async ({ node }) => {
  const open = aclForAddress([], "127.0.0.1", 8732);
  const secure = aclForAddress([], "192.0.2.7", 8732);
  const ask = (path: string, acl: typeof open, body?: unknown) =>
    node.fetch(new Request(`http://localhost${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } }), { acl });
  assert.is((await ask("/sandbox/time/increase", secure, { seconds: 60 })).status, 401);
  assert.is((await ask("/sandbox/time/set", secure, { timestamp: WALL_S + 600 })).status, 401);
  assert.is((await ask("/sandbox/time", secure)).status, 401);
  assert.equal(await (await ask("/sandbox/time", open)).json(), { timestamp: toRfc3339(WALL_S), offset: 0 });
});

Time.run();

const Auto = suite<{ node: TezosNode; wall: { ms: number } }>("sandbox time in auto bake mode");

Auto.before.each(async (ctx) => {
  ctx.wall = { ms: WALL_S * 1000 };
  const wall = ctx.wall;
  ctx.node = await createNode({ bake: { mode: "auto" }, now: () => wall.ms });
});
Auto.after.each(async (ctx) => {
  await ctx.node.close();
});

/** Injects `contents` signed by bootstrap1 and waits (bounded) for the auto baker's block with it; the receipts. */
async function injectAndWait(node: TezosNode, contents: (counter: bigint) => (Origination | Transaction)[]) {
  const hash = await inject(node, contents);
  for (let tries = 0; tries < 2000; tries++) {
    const results = await resultsInHead(node, hash);
    if (results !== undefined) return results;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("the operation was not baked");
}

Auto("a move of the clock bakes a block at the moved time at once, so the next operation sees NOW moved", async ({ node }) => {
  const notBefore = WALL_S + 3600;
  const [originated] = await injectAndWait(node, originateNotBefore(notBefore));
  const kt1 = originated.originated_contracts[0] as string;
  const callIt = callOf(kt1);
  assert.is((await injectAndWait(node, callIt))[0].status, "failed", "NOW is before the stored time");

  const { level } = (await call(node, "GET", "/chains/main/blocks/head/header")).json;
  const r = await call(node, "POST", "/sandbox/time/increase", { seconds: 3600 });
  assert.equal(r.json, { timestamp: toRfc3339(notBefore), offset: 3600 });
  const header = (await call(node, "GET", "/chains/main/blocks/head/header")).json;
  assert.equal([header.level, Date.parse(header.timestamp) / 1000], [level + 1, notBefore], "one block, at the moved time, before the answer");
  const [late] = await injectAndWait(node, callIt);
  assert.is(late.status, "applied", JSON.stringify(late.errors));

  // time/set bakes too, at the time set
  const set = await call(node, "POST", "/sandbox/time/set", { timestamp: notBefore + 500 });
  assert.is(set.status, 200, set.text);
  const after = (await call(node, "GET", "/chains/main/blocks/head/header")).json;
  assert.equal([after.level, Date.parse(after.timestamp) / 1000], [level + 3, notBefore + 500]);
});

Auto.run();

const Kept = suite("sandbox time kept");

Kept("the offset is kept across a restart on LMDB: the next block after it is still at the moved time", async () => {
  const dir = await mkdtemp(join(tmpdir(), "tezos-sandbox-time-"));
  const wall = { ms: WALL_S * 1000 };
  try {
    let node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" }, now: () => wall.ms });
    await call(node, "POST", "/sandbox/time/increase", { seconds: 5000 });
    await node.close();
    wall.ms += 10_000;
    node = await createNode({ store: await openLmdbStore(dir), bake: { mode: "manual" }, now: () => wall.ms });
    try {
      assert.equal((await call(node, "GET", "/sandbox/time")).json, { timestamp: toRfc3339(WALL_S + 5010), offset: 5000 });
      assert.is((await bakeOne(node)).time, WALL_S + 5010);
    } finally {
      await node.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Kept("time controls work while P2P peers are connected (only state changes are refused then), not on a chain that is not a sandbox", async () => {
  const store = new MemoryStore();
  const clock = sandboxClock({ store, wall: () => WALL_S * 1000, headTimestamp: () => WALL_S });
  const withPeers = createRpcHandler(sandboxTimeServices({ clock, guard: sandboxGuard({ sandbox: true, peers: () => 3 }) }));
  const r = await call({ fetch: withPeers }, "POST", "/sandbox/time/increase", { seconds: 60 });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json, { timestamp: toRfc3339(WALL_S + 60), offset: 60 });
  const other = createRpcHandler(sandboxTimeServices({ clock, guard: sandboxGuard({ sandbox: false, chainName: "TEZOS_MAINNET", peers: () => 0 }) }));
  for (const [method, path, body] of [["GET", "/sandbox/time", undefined], ["POST", "/sandbox/time/increase", { seconds: 60 }], ["POST", "/sandbox/time/set", { timestamp: WALL_S + 600 }]] as const) {
    const refused = await call({ fetch: other }, method, path, body);
    assert.is(refused.status, 500, path);
    assert.equal(refused.json, [{ kind: "permanent", id: "sandbox.not_a_sandbox", chain_name: "TEZOS_MAINNET" }], path);
  }
  assert.is(clock.offset(), 60);
  await store.close();
});

Kept.run();
