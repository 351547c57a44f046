/**
 * Synchronisation bench (issue 13): how fast a node takes a chain from a peer, beside how fast it
 * validates the same blocks itself, and how long a new block takes to cross two hops. The baker A
 * runs in its own process, started as a user starts it under this runtime (`npm start`, `bun
 * platform/bun/main.ts`, `deno run -A platform/deno/main.ts`); B and C are `createNode`s in this
 * process, each over a real P2P pool (`lib/p2p`, the runtime's loopback TCP). Nothing is
 * asserted; it prints figures (docs/bench.md keeps them).
 *
 * - **sync**: A bakes `blocks` blocks (`POST /sandbox/bake`, untimed); a fresh follower B
 *   (`activate: false`) connects to A and is timed from `connect` until its head is A's: the
 *   branch asked, the headers fetched by `Get_predecessor_header`, each block's operations by
 *   `Get_operations_for_blocks`, every block validated and stored (`lib/shell/peer-validator.ts`),
 *   its mempool moved to each new head, each new head advertised. This process's CPU time
 *   meanwhile is printed beside (Ed25519 checks run on WebCrypto's threads).
 * - **the node's own validation**: the same blocks, as B stored them, validated in a fresh
 *   process of this runtime (this one remembers the signatures it checked and the operations it
 *   parsed): given in order to a fresh node through `POST /injection/block` (`BlockValidator.inject`,
 *   the call the peer validator makes, the node's mempool following each new head as in the
 *   sync); and, as a ceiling, to a bare `BlockValidator.inject` on a fresh chain (no mempool, no
 *   node), in another fresh process. The ratios of the sync's rate to these say what taking the
 *   blocks from a peer costs (goal ≥ 0.8).
 * - **two hops**: C (private, connected to B alone) joins; A bakes one block at a time, `rounds`
 *   times, and each block's latency is the time from its arrival as A's head to its arrival as B's
 *   head and then C's, read from `/monitor/heads/main` streams (median, lowest, highest; goal
 *   under 100 ms on loopback). Each hop fetches the block's operations, validates and advertises.
 *
 * Run: `npx tsx bench/sync.ts [blocks] [rounds]` (1 000 and 20 by default), `bun bench/sync.ts`,
 * `deno run -A bench/sync.ts`; `npm run bench -- sync [blocks] [rounds]`.
 * @module
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { isMainModule } from "./cli.ts";
import { createNode, type TezosNode } from "../lib/node.ts";
import { applyWrites, genesisContextWrites } from "../lib/protocols/genesis/context.ts";
import { genesisProtocol } from "../lib/protocols/genesis/protocol.ts";
import { hangzhouProtocol } from "../lib/protocols/hangzhou/protocol.ts";
import { Chain } from "../lib/shell/chain.ts";
import { chainIdOf, genesisBlock, SANDBOX_GENESIS } from "../lib/shell/genesis.ts";
import type { Protocol } from "../lib/shell/protocol.ts";
import { BlockValidator } from "../lib/shell/validator.ts";
import { BlockStore } from "../lib/store/block-store.ts";
import type { Context } from "../lib/store/context/mod.ts";
import { MemoryStore } from "../lib/store/memory.ts";
import { B58, b58encode } from "../lib/encoding/base58.ts";
import { fromHex, toHex } from "../lib/encoding/hex.ts";
import { runtimeName } from "../platform/current.ts";
import { closeAll, limits, startPool } from "../test/p2p/pool-support.ts";
import { kill, listening, start, stop, tool } from "../test/platform/process.ts";

/** Settings of the sync bench. */
export interface SyncBenchOptions {
  /** Blocks baked at A and taken by B (default 1 000). */
  readonly blocks?: number;
  /** Blocks timed across two hops (default 20). */
  readonly rounds?: number;
}

/** What the sync bench measured. */
export interface SyncBenchResult {
  /** Blocks B took (every block above genesis: the activation, start-up and baked ones). */
  readonly blocks: number;
  /** Seconds B took to reach A's head from `connect`. */
  readonly syncSeconds: number;
  /** CPU seconds this process (B) used meanwhile, on all its threads. */
  readonly syncCpuSeconds: number;
  /** Seconds a fresh node took to validate the same blocks given through `POST /injection/block`. */
  readonly nodeSeconds: number;
  /** Seconds `BlockValidator.inject` took on the same blocks on a bare chain. */
  readonly bareSeconds: number;
  /** Latency of each block from A's head to B's head, then to C's, in milliseconds, in the order baked. */
  readonly hops: readonly { readonly toB: number; readonly toC: number }[];
}

/** Waits until `cond()` holds, polling every `everyMs`; fails after `capMs`. */
async function until(cond: () => Promise<boolean>, what: string, capMs: number, everyMs = 5): Promise<void> {
  const end = Date.now() + capMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** How the bench asks a node: a path and a request, the response. */
type Rpc = (path: string, init?: RequestInit) => Promise<Response>;

/** The RPC of a node in this process (its fetch handler). */
const rpcOf = (node: TezosNode): Rpc => (path, init) => node.fetch(new Request(`http://localhost${path}`, init));

/** A 200 answer's JSON, or an error. */
async function json(rpc: Rpc, path: string, init?: RequestInit): Promise<any> {
  const res = await rpc(path, init);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${init?.method ?? "GET"} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const headHash = (rpc: Rpc) => json(rpc, "/chains/main/blocks/head/hash") as Promise<string>;

/**
 * The heads a node announces on `/monitor/heads/main`, each with the `performance.now()` at which
 * it was read: `arrival(hash)` resolves with the time `hash` became the head.
 */
function headArrivals(rpc: Rpc, signal: AbortSignal): { arrival(hash: string): Promise<number> } {
  const seen = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  void (async () => {
    const res = await rpc("/monitor/heads/main", { signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const at = performance.now();
        buffered += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf("\n")) >= 0) {
          const { hash } = JSON.parse(buffered.slice(0, nl)) as { hash: string };
          buffered = buffered.slice(nl + 1);
          seen.set(hash, at);
          waiting.get(hash)?.(at);
          waiting.delete(hash);
        }
      }
    } catch {
      // aborted at the end of the bench
    }
  })();
  return {
    arrival: (hash) => {
      const at = seen.get(hash);
      return at !== undefined ? Promise.resolve(at) : new Promise((resolve) => waiting.set(hash, resolve));
    },
  };
}

/** The baker A as the bench talks to it: its RPC, its P2P point, and how it ends. */
interface Baker {
  readonly rpc: Rpc;
  readonly point: string;
  close(): Promise<void>;
}

/** A baker in its own process, started as a user starts it under this runtime. */
async function bakerProcess(): Promise<Baker> {
  const args = ["--memory", "--rpc-addr", "127.0.0.1:0", "--net-addr", "127.0.0.91:0", "--expected-pow", "0", "--no-bootstrap-peers", "--bake", "manual"];
  const rt = runtimeName();
  const bin = rt === "node" ? "npm" : tool(rt);
  if (bin === undefined) throw new Error(`.tools/node_modules/.bin/${rt} is absent`);
  const argv = rt === "node" ? ["start", "--silent", "--", ...args] : rt === "bun" ? ["platform/bun/main.ts", ...args] : ["run", "-A", "platform/deno/main.ts", ...args];
  const proc = start(bin, argv);
  try {
    const url = await listening(proc);
    const line = /P2P listening on (\S+) \(peer id/;
    const end = Date.now() + 30_000;
    let m: RegExpExecArray | null;
    while ((m = line.exec(proc.output().stdout)) === null) {
      if (Date.now() > end) throw new Error(`no 'P2P listening on' line from the baker:\n${proc.output().stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return {
      rpc: (path, init) => fetch(`${url}${path}`, init),
      point: m[1]!,
      async close() {
        await stop(proc).catch(() => kill(proc));
      },
    };
  } catch (e) {
    kill(proc);
    throw e;
  }
}

/** Runs the bench, prints its figures, and returns them. */
export async function benchSync(options: SyncBenchOptions = {}): Promise<SyncBenchResult> {
  const { blocks = 1_000, rounds = 20 } = options;
  if (!Number.isInteger(blocks) || blocks < 1) throw new RangeError(`blocks must be a positive integer, got ${blocks}`);
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`rounds must be a positive integer, got ${rounds}`);
  const stopStreams = new AbortController();
  const nodes: TezosNode[] = [];
  const A = await bakerProcess();
  try {
    // A bakes, 100 blocks a request (untimed)
    const t0 = performance.now();
    for (let left = blocks; left > 0; left -= 100) await json(A.rpc, `/sandbox/bake?count=${Math.min(100, left)}`, { method: "POST" });
    const bakeSeconds = (performance.now() - t0) / 1000;
    const target = (await json(A.rpc, "/chains/main/blocks/head/header")) as { hash: string; level: number };
    console.log(`A baked ${blocks} blocks in ${bakeSeconds.toFixed(1)} s; its chain holds ${target.level} blocks above genesis (${runtimeName()})`);

    // sync: a fresh follower B in this process, from connect to A's head
    const kvB = new MemoryStore();
    const b = await startPool(92, { limits: limits(0, 2, 4) });
    const B = await createNode({ store: kvB, bake: { mode: "manual" }, activate: false, p2p: b.pool });
    nodes.push(B);
    const t1 = performance.now();
    const cpu1 = process.cpuUsage();
    await b.pool.connect(A.point);
    await until(async () => (await headHash(rpcOf(B))) === target.hash, "B at A's head", 600_000);
    const syncSeconds = (performance.now() - t1) / 1000;
    const used = process.cpuUsage(cpu1);
    const syncCpuSeconds = (used.user + used.system) / 1e6;

    // the same blocks, as B stored them, validated without the network: by a fresh node, then by a bare validator
    const store = new BlockStore(kvB, chainIdOf(SANDBOX_GENESIS));
    const chain: StoredBlock[] = [];
    for (let level = 1; level <= target.level; level++) {
      const hash = store.hashAtLevel(level)!;
      chain.push({ bytes: store.header(hash)!, operations: store.operations(hash)! });
    }
    const nodeSeconds = await validateElsewhere(chain, "node");
    const bareSeconds = await validateElsewhere(chain, "bare");

    // two hops: C behind B alone
    const c = await startPool(93, { limits: limits(0, 1, 2), privateMode: true, bootstrapPeers: [b.point] });
    const C = await createNode({ bake: { mode: "manual" }, activate: false, p2p: c.pool });
    nodes.push(C);
    await c.pool.connect(b.point);
    await until(async () => (await headHash(rpcOf(C))) === target.hash, "C at A's head", 600_000);
    const atA = headArrivals(A.rpc, stopStreams.signal);
    const atB = headArrivals(rpcOf(B), stopStreams.signal);
    const atC = headArrivals(rpcOf(C), stopStreams.signal);
    await atA.arrival(target.hash); // the stream is open
    const hops: { toB: number; toC: number }[] = [];
    for (let i = 0; i < rounds; i++) {
      const [hash] = (await json(A.rpc, "/sandbox/bake", { method: "POST" })) as string[];
      const [atHome, first, second] = await Promise.all([atA.arrival(hash!), atB.arrival(hash!), atC.arrival(hash!)]);
      hops.push({ toB: first - atHome, toC: second - atHome });
    }
    const cPeers = c.pool.connections().map((v) => v.peerId);
    if (cPeers.length !== 1 || cPeers[0] !== b.identity.peerId) throw new Error(`C is connected to ${cPeers.join(", ")}, not to B alone`);

    const result: SyncBenchResult = { blocks: target.level, syncSeconds, syncCpuSeconds, nodeSeconds, bareSeconds, hops };
    print(result);
    return result;
  } finally {
    stopStreams.abort();
    for (const n of nodes.reverse()) await n.close();
    await closeAll();
    await A.close();
  }
}

/** A block as A stored it: its header's bytes and its operations' bytes by pass. */
interface StoredBlock {
  readonly bytes: Uint8Array;
  readonly operations: Uint8Array[][];
}

/**
 * Seconds a fresh node (`createNode`, not activated, its prevalidator following each new head as
 * when it syncs) takes to validate `chain` given block after block through `POST /injection/block`,
 * which calls `BlockValidator.inject`.
 */
async function injectIntoNode(chain: readonly StoredBlock[]): Promise<number> {
  const node = await createNode({ bake: { mode: "manual" }, activate: false });
  try {
    const bodies = chain.map((b) =>
      JSON.stringify({
        data: toHex(b.bytes),
        operations: b.operations.map((pass) => pass.map((op) => ({ branch: b58encode(B58.blockHash, op.subarray(0, 32)), data: toHex(op.subarray(32)) }))),
      }),
    );
    const t = performance.now();
    for (const body of bodies) {
      const res = await node.fetch(new Request("http://localhost/injection/block", { method: "POST", body, headers: { "content-type": "application/json" } }));
      if (res.status !== 200) throw new Error(`POST /injection/block: ${res.status} ${(await res.text()).slice(0, 300)}`);
      await res.arrayBuffer();
    }
    return (performance.now() - t) / 1000;
  } finally {
    await node.close();
  }
}

/** Seconds `BlockValidator.inject` takes on `chain`, block after block, on a fresh chain. */
async function injectAlone(chain: readonly StoredBlock[]): Promise<number> {
  const kv = new MemoryStore();
  const prepare = (ctx: Context) => applyWrites(ctx, genesisContextWrites(SANDBOX_GENESIS.protocol, { genesis_pubkey: SANDBOX_GENESIS.genesisPubkey }));
  const fresh = await Chain.open(kv, chainIdOf(SANDBOX_GENESIS), genesisBlock(kv, SANDBOX_GENESIS, prepare), "full");
  const embedded = new Map<string, Protocol>([genesisProtocol, hangzhouProtocol].map((p) => [p.hash, p]));
  const validator = new BlockValidator(fresh, (h) => embedded.get(h));
  try {
    const t = performance.now();
    for (const b of chain) await validator.inject(b.bytes, b.operations, { force: true });
    return (performance.now() - t) / 1000;
  } finally {
    fresh.close();
    await kv.close();
  }
}

function print(r: SyncBenchResult): void {
  const rate = (seconds: number) => `${r.blocks} blocks in ${seconds.toFixed(2)} s, ${(r.blocks / seconds).toFixed(1)} blocks/s`;
  console.log(`sync from a peer (B from A):            ${rate(r.syncSeconds)} (CPU of this process meanwhile: ${r.syncCpuSeconds.toFixed(2)} s)`);
  console.log(`a fresh node's own (POST /injection/block): ${rate(r.nodeSeconds)}`);
  console.log(`bare BlockValidator.inject:               ${rate(r.bareSeconds)}`);
  console.log(`ratio sync / the node's own: ${(r.nodeSeconds / r.syncSeconds).toFixed(2)}; sync / bare inject: ${(r.bareSeconds / r.syncSeconds).toFixed(2)} (goal >= 0.8)`);
  const stats = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    return `median ${s[Math.floor((s.length - 1) / 2)]!.toFixed(1)} ms, lowest ${s[0]!.toFixed(1)}, highest ${s[s.length - 1]!.toFixed(1)}`;
  };
  console.log(`a block A -> B (${r.hops.length} blocks): ${stats(r.hops.map((h) => h.toB))}`);
  console.log(`a block A -> B -> C: ${stats(r.hops.map((h) => h.toC))} (goal < 100 ms)`);
}

/**
 * Seconds a fresh process of this runtime takes to validate `chain` (`node`: {@link injectIntoNode},
 * `bare`: {@link injectAlone}). A fresh process: this one remembers the signatures it checked and
 * the operations it parsed while B synced (`lib/crypto/sign.ts`, `apply/parse.ts`), which a node
 * validating these blocks for the first time has not.
 */
async function validateElsewhere(chain: readonly StoredBlock[], how: "node" | "bare"): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), "tezos-bench-sync-"));
  try {
    const file = join(dir, "chain.json");
    await writeFile(file, JSON.stringify(chain.map((b) => ({ header: toHex(b.bytes), operations: b.operations.map((pass) => pass.map(toHex)) }))));
    const rt = runtimeName();
    const script = fileURLToPath(import.meta.url);
    const argv = rt === "node" ? ["--import", "tsx", script] : rt === "bun" ? [script] : ["run", "-A", script];
    const child = start(process.execPath, [...argv, "--validate", how, file]);
    const exit = await child.exited;
    const seconds = /^seconds (\S+)$/m.exec(exit.stdout)?.[1];
    if (exit.code !== 0 || seconds === undefined) throw new Error(`the ${how} validation process failed (${exit.code}):\n${exit.stderr}`);
    return Number(seconds);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `[blocks] [rounds]` from a command line (or, for {@link validateElsewhere}, `--validate node|bare FILE`). */
export async function runSyncCli(args: readonly string[]): Promise<SyncBenchResult | undefined> {
  if (args[0] === "--validate") {
    const chain = (JSON.parse(await readFile(args[2]!, "utf8")) as { header: string; operations: string[][] }[]).map((b) => ({
      bytes: fromHex(b.header),
      operations: b.operations.map((pass) => pass.map(fromHex)),
    }));
    console.log(`seconds ${args[1] === "node" ? await injectIntoNode(chain) : await injectAlone(chain)}`);
    return undefined;
  }
  const [blocks, rounds] = args;
  return benchSync({ ...(blocks === undefined ? {} : { blocks: Number(blocks) }), ...(rounds === undefined ? {} : { rounds: Number(rounds) }) });
}

if (isMainModule(import.meta)) {
  await runSyncCli(process.argv.slice(2));
  process.exit(0);
}
