/**
 * Acceptance of issue 13, nodes that keep one chain: four nodes started as a user starts them
 * (their command lines, each on its own loopback address, `--expected-pow 0`,
 * `--no-bootstrap-peers`, `--bake manual`), on the three runtimes mixed when `.tools/` has them
 * (A under Node, B under Bun, C under Deno, D under the runtime running this test):
 *
 * - A, a baker holding bootstrap1 and bootstrap2, its blocks asked through `POST /sandbox/bake`;
 * - B, a follower (`--no-activate --peer A`) on a data directory of its own;
 * - C, a follower of B only (`--private-mode --peer B`: it neither dials nor accepts anyone else);
 * - D, a follower of A only (`--private-mode --peer A`) that bakes with bootstrap3 to bootstrap5.
 *
 * The cases, in order, each on the chain the previous left:
 * 1. blocks baked at A reach B and C (two hops): the same block hash at every level on every node;
 * 2. a transfer injected at C reaches A's mempool through B, A bakes it, and C holds it in its
 *    head's manager pass with an applied receipt;
 * 3. B stops (SIGTERM) and starts again on its data directory with the same command while A
 *    bakes: B and C catch up (C is asked to reconnect: the node, as Octez, waits 60 s before
 *    dialing a point that went away);
 * 4. A bans B's peer id: B is cut off and stays behind (its own attempt to reconnect is refused);
 *    A unbans it, B reconnects (`PUT /network/points/<A>`) and catches up, and C with it;
 * 5. A and D ban each other, A bakes 2 blocks and D 4 on their own branches (B and C follow A);
 *    unbanned and reconnected, all four nodes settle on D's longer branch (fitness grows by one
 *    per block); apart again, one block each: joined, each keeps its own head for a while (equal
 *    fitness never switches), until A's branch grows and all four take it.
 * The nodes' `/network/*` answers are validated against `rpc-openapi.json` along the way, and each
 * node exits 0 on SIGTERM at the end. Every wait is bounded and names what it waited for.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { bootstrapSecretKeys } from "../../lib/baker/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { runtimeName, type RuntimeName } from "../../platform/current.ts";
import { OCTEZ_FORMATS } from "../conformance/octez-formats.ts";
import { type HttpMethod, OpenApi } from "../support/openapi.ts";
import { kill, listening, type NodeProcess, start, stop, tool, within } from "./process.ts";

/** The longest any one wait may take. */
const WAIT_MS = 30_000;
const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const BOOTSTRAP3 = "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU";
/** The delegates of A's baker (`--baker-keys bootstrap1,bootstrap2`) and of D's (bootstrap3 to 5). */
const A_DELEGATES = [BOOTSTRAP1, "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN"];
const D_DELEGATES = [BOOTSTRAP3, "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv", "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv"];
const P2P_LINE = /^P2P listening on (\S+):(\d+) \(peer id (id\w+)\)$/m;

const api = OpenApi.load(new URL("../vectors/octez/rpc-openapi.json", import.meta.url));
const FORMATS = OCTEZ_FORMATS;

const unhandled: unknown[] = [];
process.on("unhandledRejection", (e) => unhandled.push(e));

/** How a runtime runs the node's entry point with `args`. */
function commandOf(runtime: RuntimeName, args: readonly string[]): [string, string[]] {
  switch (runtime) {
    case "bun":
      return [tool("bun")!, ["platform/bun/main.ts", ...args]];
    case "deno":
      return [tool("deno")!, ["run", "-A", "platform/deno/main.ts", ...args]];
    default:
      // npm run dev (the sources through tsx) passes SIGTERM on to the node (npx does not)
      return ["npm", ["run", "--silent", "dev", "--", ...args]];
  }
}

const here = runtimeName();
const mixed = tool("bun") !== undefined && tool("deno") !== undefined;
/** Which runtime runs each node. */
const RUNTIMES: Record<"A" | "B" | "C" | "D", RuntimeName> = mixed ? { A: "node", B: "bun", C: "deno", D: here } : { A: here, B: here, C: here, D: here };
/** Loopback addresses of their own for each runtime running the suite (CI may run the three at once). */
const HOST_BASE = { node: 60, bun: 70, deno: 80 }[here];

/** A node of the test: its process, RPC URL, P2P point and peer id. */
interface TestNode {
  readonly name: string;
  readonly runtime: RuntimeName;
  readonly args: readonly string[];
  proc: NodeProcess;
  url: string;
  /** Its listening point, `ADDR:PORT`. */
  point: string;
  peerId: string;
}

/** Waits for the node's "P2P listening on" line. */
async function p2pLine(proc: NodeProcess): Promise<RegExpExecArray> {
  const seen = new Promise<RegExpExecArray>((resolve, reject) => {
    const check = () => {
      const m = P2P_LINE.exec(proc.output().stdout);
      if (m) resolve(m);
    };
    proc.child.stdout!.on("data", check);
    check();
    proc.exited.then((exit) => reject(new Error(`The node exited (${exit.code ?? exit.signal}) before listening for peers:\n${exit.stderr}`)));
  });
  return within(seen, WAIT_MS, "the node's 'P2P listening on' line");
}

/** Starts a node with `args` under its runtime and waits for its RPC and P2P lines. */
async function launch(name: string, runtime: RuntimeName, args: readonly string[]): Promise<TestNode> {
  const [command, argv] = commandOf(runtime, args);
  const proc = start(command, argv);
  nodes.push(proc);
  const url = await listening(proc, WAIT_MS * 2);
  const [, host, port, peerId] = await p2pLine(proc);
  return { name, runtime, args, proc, url, point: `${host}:${port}`, peerId: peerId! };
}

/** A port free a moment ago on `host` (bound to 0, then released). */
async function freePort(host: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function call(node: TestNode, path: string, init?: RequestInit): Promise<{ status: number; text: string }> {
  const what = `${init?.method ?? "GET"} ${path} at ${node.name}`;
  const res = await within(fetch(`${node.url}${path}`, init), WAIT_MS, what);
  return { status: res.status, text: await within(res.text(), WAIT_MS, `the body of ${what}`) };
}

/** A 200 answer's JSON, or an error with the answer. */
async function rpc(node: TestNode, path: string, init?: RequestInit): Promise<any> {
  const { status, text } = await call(node, path, init);
  if (status !== 200) throw new Error(`${init?.method ?? "GET"} ${path} at ${node.name}: ${status} ${text.slice(0, 500)}`);
  return text === "" ? undefined : JSON.parse(text);
}

/** A request with a JSON body. */
function withBody(method: "POST" | "PUT", body: unknown): RequestInit {
  return { method, body: JSON.stringify(body), headers: { "content-type": "application/json" } };
}

function post(node: TestNode, path: string, body: unknown): Promise<any> {
  return rpc(node, path, withBody("POST", body));
}

/** Asks `node` to connect to `point` now (`PUT /network/points/<point>`, Octez's body `{}`). */
async function connect(node: TestNode, point: string): Promise<void> {
  assert.equal(await rpc(node, `/network/points/${point}?timeout=10`, withBody("PUT", {})), {});
}

/** A `/network` answer, validated against Octez's OpenAPI. */
async function network(node: TestNode, path: string, method: HttpMethod = "get"): Promise<any> {
  const value = await rpc(node, path, { method: method.toUpperCase() });
  const template = api.template(path.split("?")[0]!, method);
  assert.ok(template !== undefined, `${path} in rpc-openapi.json`);
  api.assertValid(value, api.response(template!, method), `${method.toUpperCase()} ${path} at ${node.name}`, { formats: FORMATS });
  return value;
}

interface Head {
  readonly hash: string;
  readonly level: number;
}

async function headOf(node: TestNode): Promise<Head> {
  const h = (await rpc(node, "/chains/main/blocks/head/header")) as Head;
  return { hash: h.hash, level: h.level };
}

/** Waits (bounded) until `check` holds, asking again every 50 ms; the failure names `what` and the last state. */
async function eventually<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean, ms = WAIT_MS): Promise<T> {
  const end = Date.now() + ms;
  let last: T | undefined;
  for (;;) {
    last = await read();
    if (check(last)) return last;
    if (Date.now() > end) throw new Error(`Timed out after ${ms} ms waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until every node's head is `head`, then checks they hold the same hash at every level. */
async function converged(on: readonly TestNode[], head: Head, why: string): Promise<void> {
  await Promise.all(on.map((n) => eventually(`${n.name}'s head to be ${head.hash} (level ${head.level}): ${why}`, () => headOf(n), (h) => h.hash === head.hash)));
  for (let level = 0; level <= head.level; level++) {
    const hashes = await Promise.all(on.map((n) => rpc(n, `/chains/main/blocks/${level}/hash`) as Promise<string>));
    assert.equal(hashes, on.map(() => hashes[0]), `the same block at level ${level} on ${on.map((n) => n.name).join(", ")} (${why})`);
  }
}

async function bake(node: TestNode, count: number): Promise<Head> {
  const before = await headOf(node);
  const hashes = (await rpc(node, `/sandbox/bake?count=${count}`, { method: "POST" })) as string[];
  assert.is(hashes.length, count);
  const after = await headOf(node);
  assert.equal(after, { hash: hashes[count - 1]!, level: before.level + count }, `${node.name} baked ${count} blocks on its head`);
  return after;
}

async function bakerOf(node: TestNode, level: number): Promise<string> {
  return ((await rpc(node, `/chains/main/blocks/${level}/metadata`)) as { baker: string }).baker;
}

/** Makes `a` and `b` ban each other's peer id and waits until they are apart. */
async function partition(a: TestNode, b: TestNode): Promise<void> {
  assert.equal(await rpc(a, `/network/peers/${b.peerId}/ban`), {});
  assert.equal(await rpc(b, `/network/peers/${a.peerId}/ban`), {});
  await unlinked(a, b);
}

/** Lifts the bans of {@link partition} and has `b` dial `a` again. */
async function rejoin(a: TestNode, b: TestNode): Promise<void> {
  assert.equal(await rpc(a, `/network/peers/${b.peerId}/unban`), {});
  assert.equal(await rpc(b, `/network/peers/${a.peerId}/unban`), {});
  await connect(b, a.point);
  await linked(a, b);
}

async function connectedPeers(node: TestNode): Promise<string[]> {
  return ((await network(node, "/network/connections")) as { peer_id: string }[]).map((c) => c.peer_id);
}

/** Waits until `a` and `b` are connected to each other, as both see it. */
async function linked(a: TestNode, b: TestNode): Promise<void> {
  await eventually(`${a.name} to see ${b.name} connected`, () => connectedPeers(a), (ids) => ids.includes(b.peerId));
  await eventually(`${b.name} to see ${a.name} connected`, () => connectedPeers(b), (ids) => ids.includes(a.peerId));
}

/** Waits until neither of `a` and `b` sees the other connected. */
async function unlinked(a: TestNode, b: TestNode): Promise<void> {
  await eventually(`${a.name} to drop ${b.name}`, () => connectedPeers(a), (ids) => !ids.includes(b.peerId));
  await eventually(`${b.name} to drop ${a.name}`, () => connectedPeers(b), (ids) => !ids.includes(a.peerId));
}

/** Forges at `node` a 1 tez transfer from bootstrap1 to bootstrap3, signs it here, injects it there. */
async function injectTransfer(node: TestNode): Promise<string> {
  const head = "/chains/main/blocks/head";
  const counter = BigInt((await rpc(node, `${head}/context/contracts/${BOOTSTRAP1}/counter`)) as string) + 1n;
  const forged = (await post(node, `${head}/helpers/forge/operations`, {
    branch: await rpc(node, `${head}/hash`),
    contents: [{ kind: "transaction", source: BOOTSTRAP1, fee: "1000", counter: String(counter), gas_limit: "1520", storage_limit: "0", amount: "1000000", destination: BOOTSTRAP3 }],
  })) as string;
  const signature = await sign(bootstrapSecretKeys()[0]!, fromHex(forged), genericWatermark());
  return (await post(node, "/injection/operation", forged + toHex(signature))) as string;
}

/** Every process started, killed at the end whatever happens. */
const nodes: NodeProcess[] = [];
let A: TestNode;
let B: TestNode;
let C: TestNode;
let D: TestNode;
let dataDir = "";

const net = suite(`network: nodes that keep one chain (A ${RUNTIMES.A}, B ${RUNTIMES.B}, C ${RUNTIMES.C}, D ${RUNTIMES.D})`);

// uvu drops an error thrown by a `before` hook without a word: print it.
net.before(() =>
  startNodes().catch((e: unknown) => {
    console.error(`Starting the nodes failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    for (const p of nodes) kill(p);
    throw e;
  }),
);

async function startNodes(): Promise<void> {
  if (!mixed) console.log(`Notice: .tools/node_modules/.bin/bun or deno is absent (.ci/run installs them): the four nodes run under ${here} alone.`);
  const host = (n: number) => `127.0.0.${HOST_BASE + n}`;
  const common = ["--rpc-addr", "127.0.0.1:0", "--expected-pow", "0", "--no-bootstrap-peers", "--bake", "manual"];
  A = await launch("A", RUNTIMES.A, [...common, "--memory", "--net-addr", `${host(1)}:0`, "--baker-keys", "bootstrap1,bootstrap2"]);
  // B restarts on the same point: its port is chosen here
  dataDir = mkdtempSync(join(tmpdir(), "network-test-"));
  const follower = [...common, "--no-activate"];
  [B, D] = await Promise.all([
    launch("B", RUNTIMES.B, [...follower, "--data-dir", dataDir, "--net-addr", `${host(2)}:${await freePort(host(2))}`, "--peer", A.point]),
    launch("D", RUNTIMES.D, [...follower, "--memory", "--net-addr", `${host(4)}:0`, "--private-mode", "--peer", A.point, "--baker-keys", "bootstrap3,bootstrap4,bootstrap5"]),
  ]);
  C = await launch("C", RUNTIMES.C, [...follower, "--memory", "--net-addr", `${host(3)}:0`, "--private-mode", "--peer", B.point]);
}

net.after(async () => {
  try {
    for (const n of [C, D, B, A]) {
      if (n === undefined) continue;
      assert.ok(n.proc.child.exitCode === null && n.proc.child.signalCode === null, `${n.name} ran to the end:\n${n.proc.output().stderr}`);
      const exit = await stop(n.proc);
      assert.is(exit.code, 0, `${n.name} exits 0 on SIGTERM:\n${exit.stderr}`);
      assert.not.match(exit.stderr, /Unexpected error|unhandled|Internal error/i, `${n.name}'s errors`);
    }
  } finally {
    for (const p of nodes) kill(p);
    if (dataDir !== "") rmSync(dataDir, { recursive: true, force: true });
  }
  assert.equal(unhandled, [], "no unhandled rejection in the test");
});

net("1. blocks baked at A reach B and C (C through B): the same block at every level", async () => {
  await linked(A, B);
  await linked(B, C);
  await linked(A, D);
  // C and D, in private mode, are connected to their trusted peer alone
  assert.equal(await connectedPeers(C), [B.peerId]);
  assert.equal(await connectedPeers(D), [A.peerId]);
  const head = await bake(A, 3);
  await converged([A, B, C, D], head, "after A baked 3 blocks");
  const more = await bake(A, 2);
  await converged([A, B, C, D], more, "after A baked 2 more");
});

net("/network answers of the four nodes fit rpc-openapi.json", async () => {
  for (const n of [A, B, C, D]) {
    assert.is(await network(n, "/network/self"), n.peerId);
    await network(n, "/network/stat");
    await network(n, "/network/points");
    await network(n, "/network/peers");
    await network(n, "/network/greylist/peers");
    await network(n, "/network/greylist/ips");
  }
  const [onA] = ((await network(A, "/network/connections")) as { peer_id: string; incoming: boolean }[]).filter((c) => c.peer_id === B.peerId);
  assert.is(onA?.incoming, true, "B dialed A");
  assert.is(((await network(C, `/network/connections/${B.peerId}`)) as { incoming: boolean }).incoming, false, "C dialed B");
  assert.is(((await network(B, `/network/peers/${C.peerId}`)) as { state: string }).state, "running");
  assert.is(await network(A, `/network/peers/${B.peerId}/banned`), false);
  assert.is(((await network(B, `/network/points/${A.point}`)) as { trusted: boolean }).trusted, true, "--peer trusts the point");
});

net("2. a transfer injected at C reaches A's mempool, A bakes it, C holds it with an applied receipt", async () => {
  const hash = await injectTransfer(C);
  type Pending = { applied: { hash: string }[] };
  await eventually(`the transfer ${hash} applied in A's mempool`, () => rpc(A, "/chains/main/mempool/pending_operations") as Promise<Pending>, (p) => p.applied.some((o) => o.hash === hash));
  const head = await bake(A, 1);
  assert.ok(((await rpc(A, "/chains/main/blocks/head/operation_hashes/3")) as string[]).includes(hash), "A baked the transfer");
  await converged([A, B, C, D], head, "after A baked the transfer");
  assert.equal(await rpc(C, "/chains/main/blocks/head/operation_hashes/3"), [hash]);
  const op = (await rpc(C, "/chains/main/blocks/head/operations/3/0")) as { hash: string; contents: { metadata: { operation_result: { status: string } } }[] };
  assert.is(op.hash, hash);
  assert.is(op.contents[0]!.metadata.operation_result.status, "applied");
  // (the endorsements of the new head by A's and D's delegates stay there until the next block)
  await eventually("the transfer to leave C's mempool", () => rpc(C, "/chains/main/mempool/pending_operations") as Promise<Pending>, (p) => !p.applied.some((o) => o.hash === hash));
});

net("3. B restarts on its data directory while A bakes: B and C catch up", async () => {
  const before = await headOf(B);
  const exit = await stop(B.proc);
  assert.is(exit.code, 0, `B exits 0 on SIGTERM:\n${exit.stderr}`);
  const head = await bake(A, 3);
  B = await launch("B", B.runtime, B.args);
  // the chain B kept: it starts from its stored head, then follows A
  assert.ok((await headOf(B)).level >= before.level, "B starts from the head it stored");
  await linked(A, B);
  // C would dial B again only after Octez's 60 s disconnection delay: ask it now
  await connect(C, B.point);
  await linked(B, C);
  await converged([A, B, C, D], head, "after B restarted");
});

net("4. A bans B: B falls behind and stays there; unbanned and reconnected, B and C catch up", async () => {
  assert.equal(await rpc(A, `/network/peers/${B.peerId}/ban`), {});
  await unlinked(A, B);
  assert.is(await network(A, `/network/peers/${B.peerId}/banned`), true);
  const behind = await headOf(B);
  const head = await bake(A, 2);
  // B's own attempt to reach A is refused while the ban holds
  const again = await call(B, `/network/points/${A.point}?timeout=5`, withBody("PUT", {}));
  assert.is(again.status, 500, `A refuses B while banned: ${again.text}`);
  assert.match(again.text, /"node\.p2p_socket\.rejected_socket_connection"/, "A closes the handshake of a banned peer");
  assert.not.ok((await connectedPeers(A)).includes(B.peerId), "no connection from B while banned");
  // for a while (bounded): B and C do not move
  for (let i = 0; i < 10; i++) {
    assert.equal(await headOf(B), behind, "B stays behind while banned");
    assert.equal(await headOf(C), behind, "C, behind B, too");
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(await rpc(A, `/network/peers/${B.peerId}/unban`), {});
  assert.is(await network(A, `/network/peers/${B.peerId}/banned`), false);
  await connect(B, A.point);
  await linked(A, B);
  await converged([A, B, C, D], head, "after A unbanned B");
});

net("5. A and D, partitioned, bake 2 and 4 blocks: joined again, all settle on D's longer branch", async () => {
  const fork = await headOf(A);
  await partition(A, D);
  const [onA, onD] = await Promise.all([bake(A, 2), bake(D, 4)]);
  assert.is(onA.level, fork.level + 2);
  assert.is(onD.level, fork.level + 4);
  assert.is.not(await rpc(A, `/chains/main/blocks/${fork.level + 1}/hash`), await rpc(D, `/chains/main/blocks/${fork.level + 1}/hash`), "two branches from the fork");
  // each baker's blocks are its own delegates'
  for (let level = fork.level + 1; level <= onD.level; level++) assert.ok(D_DELEGATES.includes(await bakerOf(D, level)), `D baked level ${level} with its keys`);
  for (let level = fork.level + 1; level <= onA.level; level++) assert.ok(A_DELEGATES.includes(await bakerOf(A, level)), `A baked level ${level} with its keys`);
  await converged([A, B, C], onA, "B and C follow A while D is cut off");
  const fitness = async (n: TestNode, level: number) => ((await rpc(n, `/chains/main/blocks/${level}/header`)) as { fitness: string[] }).fitness;
  const last = (f: string[]) => BigInt(`0x${f[f.length - 1]}`);
  assert.is(last(await fitness(D, onD.level)) - last(await fitness(A, onA.level)), 2n, "fitness: one per block");
  await rejoin(A, D);
  await converged([A, B, C, D], onD, "after A and D joined again");
  // A's blocks of its short branch are known to it still, no longer on its chain
  assert.is(((await rpc(A, `/chains/main/blocks/${onA.hash}/header`)) as Head).level, onA.level);
});

net("5b. equal fitness never switches: A and D, apart, bake one block each and keep their own once joined", async () => {
  const fork = await headOf(A);
  await partition(A, D);
  const [onA, onD] = await Promise.all([bake(A, 1), bake(D, 1)]);
  assert.is.not(onA.hash, onD.hash);
  await converged([A, B, C], onA, "B and C follow A");
  await rejoin(A, D);
  // each has the other's branch in front of it now (a new connection asks the branch): for a while (bounded), neither moves
  for (let i = 0; i < 10; i++) {
    assert.equal([await headOf(A), await headOf(D)], [onA, onD], "the same fitness: each keeps its head");
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.is((await headOf(A)).level, fork.level + 1);
  // one more block on A's branch: D switches to it
  const head = await bake(A, 1);
  await converged([A, B, C, D], head, "after A baked on its branch");
});

net.run();
