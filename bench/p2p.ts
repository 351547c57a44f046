/**
 * P2P bench: what the P2P layer (`lib/p2p`) costs on this machine, under Node, Bun and Deno side
 * by side. Nothing is asserted; it prints figures (docs/bench.md keeps them).
 *
 * - **Handshakes per second**: `authenticate` on both sides (`lib/p2p/socket.ts`: connection
 *   messages, proof-of-work check, channel key, nonces, metadata, Ack), one handshake after the
 *   other for `seconds`, both sides in this process; over real loopback TCP (the runtime's
 *   transport, `platform/net/`: listen, connect, handshake, close) and over an in-memory pair of
 *   connections (`test/p2p/memory-connection.ts`), which leaves the handshake's own work.
 *   Each figure here and of the throughput is the best of `rounds`, the things compared measured
 *   alternately (a busy machine moves single runs by half).
 * - **Encrypted throughput of one connection** (MB/s, 10^6 bytes): messages of `messageBytes`
 *   through one authenticated channel over loopback TCP, one way, then both ways at once (the
 *   sum of both directions), each byte sealed by the writer and opened by the reader in this one
 *   process; beside it, in the same run, the bare crypto_box: XSalsa20-Poly1305 of
 *   `@noble/ciphers` sealing then opening the same bytes in chunks of the channel's size (65 517
 *   bytes). The ratio channel / bare says what framing, chunking, queues and TCP add to the
 *   cipher.
 * - **Identity generation at 26 bits**: the hash rate of `lib/p2p/identity.ts`'s proof-of-work
 *   search (`generateProofOfWork` at an unreachable target for a fixed number of attempts, a few
 *   rounds: lowest and highest rate), the expected seconds for difficulty 26 (2^26 attempts on
 *   average, at those rates), and since the number of attempts is geometric, the time within
 *   which half and nine in ten of the searches end (ln 2 and ln 10 times the mean). Then actual
 *   searches at a lower difficulty (`checkDifficulty`, counting up from a known stamp so that the
 *   attempts are known exactly) check the rate.
 *
 * Run: `npx tsx bench/p2p.ts` (this runtime, then Bun and Deno from `.tools/` as child processes
 * with `--json`), `--only` for this runtime alone (`bun bench/p2p.ts --only`,
 * `deno run -A bench/p2p.ts --only`); `npm run bench -- p2p`.
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { isMainModule, runtimeBenchArgs } from "./cli.ts";
import { xsalsa20poly1305 } from "@noble/ciphers/salsa.js";
import { x25519 } from "@noble/curves/ed25519.js";
import { blake2bWasmReady } from "../lib/crypto/blake2b.ts";
import { variableBytes } from "../lib/encoding/bytes.ts";
import { generateIdentity, generateKeyPair, generateProofOfWork, type Identity } from "../lib/p2p/identity.ts";
import { authenticate, CHUNK_MAX_PAYLOAD, type AuthenticatedChannel, type AuthenticateOptions } from "../lib/p2p/socket.ts";
import type { Connection, Transport } from "../lib/p2p/transport.ts";
import { runtimeName, type RuntimeName } from "../platform/current.ts";
import { currentTransport } from "../platform/net/current.ts";
import { connectionPair } from "../test/p2p/memory-connection.ts";

/** Settings of the P2P bench. */
export interface P2pBenchOptions {
  /** Seconds of each handshake loop (default 1). */
  readonly seconds?: number;
  /** Rounds of the handshake and throughput measures; the best of each counts (default 3). */
  readonly rounds?: number;
  /** Size of each message of the throughput runs (default 1 MiB). */
  readonly messageBytes?: number;
  /** Bytes sent in each direction by each throughput run (default 32 MiB). */
  readonly totalBytes?: number;
  /** Attempts of each hash-rate round (default 1 000 000). */
  readonly powAttempts?: number;
  /** Hash-rate rounds (default 3). */
  readonly powRounds?: number;
  /** Difficulty of the actual searches (default 18). */
  readonly checkDifficulty?: number;
  /** Actual searches (default 4). */
  readonly checkSearches?: number;
  /** Runtimes to measure: this one in process, the others as child processes (default all three). */
  readonly runtimes?: readonly RuntimeName[];
}

/** What one runtime measured. */
export interface P2pBenchRow {
  readonly runtime: RuntimeName;
  readonly version: string;
  /** Handshakes per second, both sides in this process. */
  readonly handshakes: { readonly tcp: number; readonly memory: number; readonly x25519: number };
  /** MB/s through one channel over loopback TCP: one way, and both ways at once (sum). */
  readonly channel: { readonly oneWay: number; readonly bothWays: number; readonly messageBytes: number };
  /** MB/s of the bare crypto_box over the same bytes: seal alone, seal then open. */
  readonly bare: { readonly seal: number; readonly sealOpen: number };
  /** Proof-of-work hashes per second: lowest and highest round. */
  readonly powRate: { readonly low: number; readonly high: number };
  /** The actual searches: difficulty, attempts in all, seconds in all. */
  readonly search: { readonly difficulty: number; readonly searches: number; readonly attempts: number; readonly seconds: number };
}

const RUNTIMES: readonly RuntimeName[] = ["node", "bun", "deno"];
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const CHAIN = "SANDBOXED_TEZOS";
const MB = 1e6;

/** Runs the bench under this runtime and, as child processes, under the other `runtimes`; prints one table. */
export async function benchP2p(options: P2pBenchOptions = {}): Promise<P2pBenchRow[]> {
  const here = runtimeName();
  const rows: P2pBenchRow[] = [];
  console.log(`Machine: ${machine()}`);
  for (const runtime of options.runtimes ?? RUNTIMES) {
    if (runtime === here) {
      console.log(`== ${runtime} (${runtimeVersion()}), in this process`);
      rows.push(await benchHere(options));
      continue;
    }
    const command = commandOf(runtime);
    if (command === undefined) {
      console.log(`== ${runtime}: skipped (not installed in .tools/)`);
      continue;
    }
    console.log(`== ${runtime}, child process`);
    rows.push(await benchChild(command, options));
  }
  printTable(rows);
  return rows;
}

/** The bench under this runtime. */
async function benchHere(options: P2pBenchOptions): Promise<P2pBenchRow> {
  const {
    seconds = 1,
    rounds = 3,
    messageBytes = 1 << 20,
    totalBytes = 32 << 20,
    powAttempts = 1_000_000,
    powRounds = 3,
    checkDifficulty = 18,
    checkSearches = 4,
  } = options;
  await blake2bWasmReady;
  const transport = await currentTransport();
  const a = await generateIdentity(0);
  const b = await generateIdentity(0);

  // Each figure is the best of `rounds`, the rounds of the things compared alternating, so that
  // neither always runs on a busier or quieter machine.
  let tcp = 0;
  let memory = 0;
  for (let i = 0; i < rounds; i++) {
    tcp = Math.max(tcp, await handshakesOverTcp(transport, a, b, seconds));
    memory = Math.max(memory, await handshakesInMemory(a, b, seconds));
  }
  console.log(`handshakes: ${tcp.toFixed(0)}/s over loopback TCP, ${memory.toFixed(0)}/s in memory`);
  const x25519Rate = sharedSecretsPerSecond(a, b);
  let oneWay = 0;
  let bothWays = 0;
  let bare = { seal: 0, sealOpen: 0 };
  for (let i = 0; i < rounds; i++) {
    oneWay = Math.max(oneWay, await channelThroughput(transport, a, b, messageBytes, totalBytes, false));
    const box = bareCryptoBox(totalBytes);
    bare = { seal: Math.max(bare.seal, box.seal), sealOpen: Math.max(bare.sealOpen, box.sealOpen) };
    bothWays = Math.max(bothWays, await channelThroughput(transport, a, b, messageBytes, totalBytes, true));
  }
  console.log(`channel: ${oneWay.toFixed(1)} MB/s one way, ${bothWays.toFixed(1)} MB/s both ways; bare crypto_box seal+open ${bare.sealOpen.toFixed(1)} MB/s`);

  const rates: number[] = [];
  for (let i = 0; i < powRounds; i++) rates.push(await powRate(powAttempts));
  console.log(`proof-of-work hashes: ${rates.map((r) => `${(r / 1e3).toFixed(0)}k`).join(", ")} per second`);
  const search = await actualSearches(checkDifficulty, checkSearches);
  console.log(`${search.searches} searches at difficulty ${search.difficulty}: ${search.attempts} attempts in ${search.seconds.toFixed(2)} s`);

  return {
    runtime: runtimeName(),
    version: runtimeVersion(),
    handshakes: { tcp, memory, x25519: x25519Rate },
    channel: { oneWay, bothWays, messageBytes },
    bare,
    powRate: { low: Math.min(...rates), high: Math.max(...rates) },
    search,
  };
}

function options(connection: Connection, incoming: boolean, identity: Identity): AuthenticateOptions {
  return { connection, incoming, identity, chainName: CHAIN, powTarget: 0, announcedPort: incoming ? 0 : 9732, timeoutMs: 10_000 };
}

/** Both sides of one handshake; throws if either refuses. */
async function handshake<M>(dialled: Connection, accepted: Connection, a: Identity, b: Identity, extra: Partial<AuthenticateOptions<M>> = {}) {
  const [ra, rb] = await Promise.all([
    authenticate<M>({ ...(options(dialled, false, a) as AuthenticateOptions<M>), ...extra }),
    authenticate<M>({ ...(options(accepted, true, b) as AuthenticateOptions<M>), ...extra }),
  ]);
  if (!ra.ok) throw new Error(`handshake refused: ${ra.refusal.message}`);
  if (!rb.ok) throw new Error(`handshake refused: ${rb.refusal.message}`);
  return [ra.channel, rb.channel] as const;
}

/** Handshakes per second over loopback TCP: connect, both handshakes, close; one after the other. */
async function handshakesOverTcp(transport: Transport, a: Identity, b: Identity, seconds: number): Promise<number> {
  const listener = await transport.listen({ host: "127.0.0.1", port: 0 });
  const accepted = listener.connections[Symbol.asyncIterator]();
  const once = async () => {
    const [dialled, next] = await Promise.all([transport.connect({ host: "127.0.0.1", port: listener.local.port }), accepted.next()]);
    const [ca, cb] = await handshake(dialled, next.value as Connection, a, b);
    ca.close();
    cb.close();
  };
  try {
    return await perSecond(once, seconds);
  } finally {
    await listener.close();
  }
}

/** Handshakes per second over in-memory connections. */
function handshakesInMemory(a: Identity, b: Identity, seconds: number): Promise<number> {
  return perSecond(async () => {
    const [x, y] = connectionPair();
    const [ca, cb] = await handshake(x, y, a, b);
    ca.close();
    cb.close();
  }, seconds);
}

/** X25519 shared secrets per second (`@noble/curves`): a handshake computes one on each side. */
function sharedSecretsPerSecond(a: Identity, b: Identity): number {
  for (let i = 0; i < 50; i++) x25519.getSharedSecret(a.secretKey, b.publicKey);
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < 500) {
    for (let i = 0; i < 10; i++) x25519.getSharedSecret(a.secretKey, b.publicKey);
    count += 10;
  }
  return count / ((performance.now() - start) / 1000);
}

/** How many times per second `once` completes, one call after the other, after a short warm-up. */
async function perSecond(once: () => Promise<void>, seconds: number): Promise<number> {
  for (let i = 0; i < 20; i++) await once();
  let count = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    await once();
    count++;
  }
  return count / ((performance.now() - start) / 1000);
}

/**
 * MB/s through one channel over loopback TCP: `totalBytes` in messages of `messageBytes` from the
 * dialler to the acceptor, and with `bothWays` as much the other way at the same time (the figure
 * is then the sum of both directions). Bodies are bytes (`variableBytes`), so no codec work but a
 * copy. The first message of each direction is a warm-up outside the measure.
 */
async function channelThroughput(transport: Transport, a: Identity, b: Identity, messageBytes: number, totalBytes: number, bothWays: boolean): Promise<number> {
  const listener = await transport.listen({ host: "127.0.0.1", port: 0 });
  const accepted = listener.connections[Symbol.asyncIterator]();
  const [dialled, next] = await Promise.all([transport.connect({ host: "127.0.0.1", port: listener.local.port }), accepted.next()]);
  const [ca, cb] = await handshake<Uint8Array>(dialled, next.value as Connection, a, b, { messageEncoding: variableBytes });
  const message = crypto.getRandomValues(new Uint8Array(Math.min(messageBytes, 65_536))).slice();
  const body = new Uint8Array(messageBytes);
  for (let at = 0; at < body.length; at += message.length) body.set(message.subarray(0, Math.min(message.length, body.length - at)), at);
  const count = Math.max(1, Math.floor(totalBytes / messageBytes));
  const stream = async (from: AuthenticatedChannel<Uint8Array>, to: AuthenticatedChannel<Uint8Array>, n: number) => {
    const sending = (async () => {
      for (let i = 0; i < n; i++) await from.writeMessage(body);
    })();
    for (let i = 0; i < n; i++) {
      const got = await to.readMessage();
      if (got.length !== messageBytes) throw new Error(`a message of ${got.length} bytes arrived, ${messageBytes} sent`);
    }
    await sending;
  };
  try {
    await Promise.all([stream(ca, cb, 1), bothWays ? stream(cb, ca, 1) : undefined]);
    const start = performance.now();
    await Promise.all([stream(ca, cb, count), bothWays ? stream(cb, ca, count) : undefined]);
    const s = (performance.now() - start) / 1000;
    return ((bothWays ? 2 : 1) * count * messageBytes) / MB / s;
  } finally {
    ca.close();
    cb.close();
    await listener.close();
  }
}

/** MB/s of XSalsa20-Poly1305 (`@noble/ciphers`) over `totalBytes` in chunks of the channel's size: seal, and seal then open. */
function bareCryptoBox(totalBytes: number): { seal: number; sealOpen: number } {
  const key = crypto.getRandomValues(new Uint8Array(32));
  const nonce = crypto.getRandomValues(new Uint8Array(24));
  const chunk = crypto.getRandomValues(new Uint8Array(CHUNK_MAX_PAYLOAD));
  const chunks = Math.max(1, Math.floor(totalBytes / CHUNK_MAX_PAYLOAD));
  const bytes = chunks * CHUNK_MAX_PAYLOAD;
  for (let i = 0; i < 20; i++) xsalsa20poly1305(key, nonce).decrypt(xsalsa20poly1305(key, nonce).encrypt(chunk)); // warm-up
  let start = performance.now();
  for (let i = 0; i < chunks; i++) {
    nonce[23] = i & 0xff;
    xsalsa20poly1305(key, nonce).encrypt(chunk);
  }
  const seal = bytes / MB / ((performance.now() - start) / 1000);
  start = performance.now();
  for (let i = 0; i < chunks; i++) {
    nonce[23] = i & 0xff;
    const sealed = xsalsa20poly1305(key, nonce).encrypt(chunk);
    xsalsa20poly1305(key, nonce).decrypt(sealed);
  }
  const sealOpen = bytes / MB / ((performance.now() - start) / 1000);
  return { seal, sealOpen };
}

/** Hashes per second of `generateProofOfWork`: `attempts` tries at a target no stamp meets. */
async function powRate(attempts: number): Promise<number> {
  const { publicKey } = generateKeyPair();
  const start = performance.now();
  const found = await generateProofOfWork(publicKey, 0n, { maxAttempts: attempts });
  const s = (performance.now() - start) / 1000;
  // Target 0: only a hash of 32 zero bytes would pass.
  if (found !== undefined) throw new Error("a stamp met target 0");
  return attempts / s;
}

/**
 * `searches` actual searches at `difficulty`, each counting up from a random stamp it knows, so
 * that its attempts are the found stamp minus the start, plus one (as 192-bit integers).
 */
async function actualSearches(difficulty: number, searches: number): Promise<P2pBenchRow["search"]> {
  let attempts = 0;
  let seconds = 0;
  const asInteger = (b: Uint8Array) => b.reduce((n, x) => (n << 8n) | BigInt(x), 0n);
  for (let i = 0; i < searches; i++) {
    const { publicKey } = generateKeyPair();
    const start = crypto.getRandomValues(new Uint8Array(24));
    start[0] = 0; // far from the wrap at 2^192
    const t = performance.now();
    const stamp = await generateProofOfWork(publicKey, difficulty, { start: start.slice() });
    seconds += (performance.now() - t) / 1000;
    attempts += Number(asInteger(stamp!) - asInteger(start)) + 1;
  }
  return { difficulty, searches, attempts, seconds };
}

/** Runs `command` (this file under another runtime, `--json`) and reads its row. */
function benchChild(command: readonly string[], options: P2pBenchOptions): Promise<P2pBenchRow> {
  const args = [...command.slice(1), "--json", "--options", JSON.stringify({ ...options, runtimes: undefined })];
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, args, { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (out += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code !== 0) return reject(new Error(`${command[0]} exited with ${code ?? signal}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").pop() ?? "") as P2pBenchRow);
      } catch {
        reject(new Error(`${command[0]}: no JSON row on stdout`));
      }
    });
  });
}

/** The command that runs this file under `runtime`, or undefined when that runtime is absent. */
function commandOf(runtime: RuntimeName): string[] | undefined {
  if (runtime === "node") return [runtimeName() === "node" ? process.execPath : "node", "--import", "tsx", SELF];
  const bin = `${ROOT}.tools/node_modules/.bin/${runtime}`;
  if (!existsSync(bin)) return undefined;
  return runtime === "bun" ? [bin, SELF] : [bin, "run", "-A", SELF];
}

function runtimeVersion(): string {
  const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } };
  if (g.Bun !== undefined) return `Bun ${g.Bun.version}`;
  if (g.Deno !== undefined) return `Deno ${g.Deno.version.deno}`;
  return `Node ${process.versions.node}`;
}

function machine(): string {
  const list = cpus();
  return `${list[0]?.model ?? "unknown CPU"}, ${list.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
}

/** One table, a column per runtime. */
function printTable(rows: readonly P2pBenchRow[]): void {
  const col = 22;
  const label = 46;
  const line = (name: string, cell: (r: P2pBenchRow) => string) => console.log(`${name.padEnd(label)}${rows.map((r) => cell(r).padStart(col)).join("")}`);
  const n = (x: number, digits = 0) => x.toFixed(digits);
  const range = (lo: number, hi: number, digits = 0) => (lo.toFixed(digits) === hi.toFixed(digits) ? lo.toFixed(digits) : `${lo.toFixed(digits)}–${hi.toFixed(digits)}`);
  const mean26 = (r: P2pBenchRow) => [2 ** 26 / r.powRate.high, 2 ** 26 / r.powRate.low] as const;
  console.log();
  line("", (r) => r.version);
  line("handshakes/s, loopback TCP (both sides)", (r) => n(r.handshakes.tcp));
  line("handshakes/s, in memory (both sides)", (r) => n(r.handshakes.memory));
  line("X25519 shared secrets/s (two per handshake)", (r) => n(r.handshakes.x25519));
  line(`channel MB/s, one way (${rows[0]?.channel.messageBytes ?? 0}-byte messages)`, (r) => n(r.channel.oneWay, 1));
  line("channel MB/s, both ways at once (sum)", (r) => n(r.channel.bothWays, 1));
  line("bare crypto_box MB/s, seal", (r) => n(r.bare.seal, 1));
  line("bare crypto_box MB/s, seal + open", (r) => n(r.bare.sealOpen, 1));
  line("ratio channel one way / bare seal + open", (r) => (r.channel.oneWay / r.bare.sealOpen).toFixed(2));
  line("proof of work, hashes/s (lowest–highest)", (r) => range(r.powRate.low / 1e3, r.powRate.high / 1e3) + "k");
  line("26 bits: mean seconds (2^26 / rate)", (r) => range(...mean26(r)));
  line("26 bits: half of the searches within (s)", (r) => range(Math.LN2 * mean26(r)[0], Math.LN2 * mean26(r)[1]));
  line("26 bits: nine in ten within (s)", (r) => range(Math.LN10 * mean26(r)[0], Math.LN10 * mean26(r)[1]));
  line("actual searches: difficulty × count", (r) => `${r.search.difficulty} × ${r.search.searches}`);
  line("actual searches: hashes/s (attempts / time)", (r) => `${n(r.search.attempts / r.search.seconds / 1e3)}k`);
  line("actual searches: attempts / 2^d per search", (r) => (r.search.attempts / r.search.searches / 2 ** r.search.difficulty).toFixed(2));
  console.log("(MB = 10^6 bytes; both sides of each handshake and both ends of each channel run in the one process measured)");
}

if (isMainModule(import.meta)) {
  const { json, only, options } = runtimeBenchArgs<P2pBenchOptions>(process.argv.slice(2));
  if (json) {
    // The row as the one line of stdout; the progress goes to stderr.
    process.stdout.write(`${JSON.stringify(await benchHere(options))}\n`);
  } else {
    await benchP2p(only ? { ...options, runtimes: [runtimeName()] } : options);
  }
  // Connections of the loops may leave timers of the runtime behind; the bench is over.
  process.exit(0);
}
