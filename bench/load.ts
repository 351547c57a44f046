/**
 * Load bench: N sources keep transfers in flight against a node started as a user starts it,
 * for a fixed time, and the client measures what comes out.
 *
 * ```sh
 * npm run bench -- load [options]      # or: npx tsx bench/load.ts [options]
 * npm run bench -- load --sources 64 --seconds 20 --invalid 0,0.05 --modes auto,interval:1
 * ```
 *
 * **The node** is a separate process per run, started as a user would
 * (`node --import tsx platform/node/main.ts --memory --rpc-addr 127.0.0.1:0 --bake <mode>`; with
 * `--store lmdb`, `--data-dir` on a fresh temporary directory; `--runtime bun|deno` starts the
 * Bun or Deno entry point from `.tools/`). Its URL is read from the line it prints once listening;
 * it is stopped with SIGTERM at the end of the run (and killed if this process dies). This process
 * talks to it only over HTTP on keep-alive connections, with Octez's RPC paths: the injections
 * through `node:http` (`--client fetch`: through the global `fetch`, which costs about twice the
 * CPU per request), everything else through `fetch`. It imports only pure helpers of `lib/`
 * (codecs, keys, signing), never the node.
 *
 * **Setup** (not measured): N Ed25519 keys derived deterministically (BLAKE2b of a label), funded
 * from bootstrap1..5 (batches of up to 100 transactions in one operation), then revealed (one
 * reveal per source), each phase waited for until included. Gas and storage limits are what
 * `helpers/scripts/run_operation` reports consumed, plus 100 gas (as tezos-client and Taquito
 * do); fees are the mempool filter's minimum for that gas and the operation's size (100 mutez +
 * 0.1 mutez per gas unit + 1 mutez per byte).
 *
 * **Load** (`--seconds`, default 20): each source keeps one transfer of 1 mutez (to the next
 * source) in flight: `POST /injection/operation`, wait for the answer, then inject its next
 * counter. The next operation is forged and signed while the current one is in flight (WebCrypto
 * Ed25519). A fraction `--invalid` of the injections is invalid, in turn: a bad counter (one
 * ahead of the expected one, or the one already used), too little balance (a fee above the
 * source's balance: an *amount* above the balance is not an error in Hangzhou, the transfer is
 * included as failed and pays its fee), a bad signature (one byte flipped). Each must be answered
 * with an error; the source then goes on with the counter it expected, so its valid sequence is
 * not disturbed. A transfer answered `counter_in_the_future` (a temporary error: the node has not
 * yet classified the source's previous transfer again after a new head) is sent again, same
 * bytes, after 25 ms, doubling up to 6 times; after that, or after another error, the source goes
 * on from the counter the node says it expects. After the load, a drain (`--drain`, default 10 s)
 * lets the injections in flight be answered and the accepted transfers be included; the
 * injections still unanswered at its end are aborted and counted.
 *
 * **Measured at the client.** A `/monitor/heads/main` stream is followed from the start; for
 * every new head (and any level it skipped, walked back through `header`), the client reads
 * `/chains/main/blocks/<hash>/operation_hashes/3` and matches the hashes with the transfers it
 * injected (hashes computed by the client before sending). It reports:
 * - injected/s: accepted injections (answer 200) answered during the load period, per second;
 * - included/s: its transfers found in heads that arrived during the load period, per second;
 * - inclusion p50/p99/max: from the moment the injection was sent to the arrival of the head that
 *   includes it, over every included transfer (drain included); `left`: accepted but never seen
 *   in a block by the end of the drain;
 * - the injection RPC's own answer time p50/p99;
 * - blocks during the load, transfers per block, the longest gap between consecutive heads as
 *   they arrived at the client (the load period's start and end count as bounds) and between
 *   consecutive block timestamps, and how far the block timestamps run ahead of the wall clock
 *   (`auto` mode bakes blocks less than the minimal delay apart, so their timestamps go ahead);
 * - answers by kind: invalid injections answered with the expected error, with another error,
 *   or accepted; valid injections answered with an error (by error id);
 * - CPU during the load, as % of one core: this process's (user + system, all threads; also per
 *   injection) and its event loop's utilization, so a reader can tell whether the load generator
 *   limits the figures (a warning above 80%); the node's (from `/proc/<pid>/stat`); the other
 *   processes' and the idle time (from `/proc/stat`), since the machine may be shared; the
 *   node's resident memory at the end, and how it exited.
 *
 * The goals of the issue are printed beside the figures: 1 000 included transfers/s, p99
 * inclusion under 2 s in `auto` mode, no gap between blocks longer than twice the interval in
 * `interval:<n>` mode. Each (mode, invalid fraction) pair runs on a fresh node. See
 * `docs/bench.md`.
 * @module
 */
import http from "node:http";
import { cpus, loadavg } from "node:os";
import { performance as perfHooks } from "node:perf_hooks";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { isMainModule } from "./cli.ts";
import { bootstrapSecretKeys } from "../lib/baker/keys.ts";
import { blake2b256 } from "../lib/crypto/blake2b.ts";
import {
  formatPublicKey,
  formatPublicKeyHash,
  formatSignature,
  publicKeyHash,
  publicKeyOf,
  secretKeyFromBytes,
  type SecretKey,
} from "../lib/crypto/keys.ts";
import { sign } from "../lib/crypto/sign.ts";
import { genericWatermark } from "../lib/crypto/watermark.ts";
import { B58, b58encode } from "../lib/encoding/base58.ts";
import { encodeBinary } from "../lib/encoding/codec.ts";
import { operation, type OperationContents, unsignedOperation } from "../lib/encoding/hangzhou/operation.ts";
import { toHex } from "../lib/encoding/hex.ts";
import { machineCpuSeconds, NodeProcess, type NodeRuntime } from "./load-node.ts";

// ---- options ----------------------------------------------------------------------------------

/** Settings of the load bench. */
export interface LoadOptions {
  /** Sources keeping a transfer in flight each (default 64). */
  readonly sources: number;
  /** Seconds of load per run (default 20). */
  readonly seconds: number;
  /** Fractions of invalid injections; one run per fraction and mode (default [0]). */
  readonly invalid: readonly number[];
  /** Bake modes; one run per mode and fraction (default `auto`, `interval:1`). */
  readonly modes: readonly string[];
  /** Longest wait, in seconds, after the load for accepted transfers to be included (default 10). */
  readonly drain: number;
  /** `memory` (`--memory`, default) or `lmdb` (`--data-dir` on a temporary directory). */
  readonly store: "memory" | "lmdb";
  /** Runtime of the node (default `node`). */
  readonly runtime: NodeRuntime;
  /** Repository the node is started from (default: this one). */
  readonly nodeDir: string;
  /** Flags for the node's runtime (`--runtime-flag`, repeatable). */
  readonly runtimeFlags: readonly string[];
  /** Tez given to each source (default 1000). */
  readonly fund: number;
  /** Seconds between progress lines during the load (0: none; default 5). */
  readonly progress: number;
  /**
   * The injections' HTTP client: `node:http` with a keep-alive agent (default), or the global
   * `fetch` (keep-alive too, but about twice the CPU per injection: at 800 injections/s it kept
   * this process's event loop 90% busy and limited the figures).
   */
  readonly client: "fetch" | "http";
}

const REPOSITORY = fileURLToPath(new URL("..", import.meta.url));

/** The defaults of {@link LoadOptions}. */
export const DEFAULT_LOAD_OPTIONS: LoadOptions = Object.freeze({
  sources: 64,
  seconds: 20,
  invalid: [0],
  modes: ["auto", "interval:1"],
  drain: 10,
  store: "memory",
  runtime: "node",
  nodeDir: REPOSITORY,
  runtimeFlags: [],
  fund: 1000,
  progress: 5,
  client: "http",
});

const USAGE = `Usage: npx tsx bench/load.ts [options]   (or: npm run bench -- load [options])
  --sources N        sources, each keeping one transfer in flight (default 64)
  --seconds S        seconds of load per run (default 20)
  --invalid F[,F…]   fraction(s) of invalid injections, e.g. 0.05 or 0,0.05 (default 0)
  --modes M[,M…]     bake modes: auto, interval:<seconds> (default auto,interval:1)
  --drain S          at most S seconds after the load for inclusion (default 10)
  --store memory|lmdb  node with --memory (default) or --data-dir on a temporary directory
  --runtime node|bun|deno  runtime of the node (default node; bun/deno from .tools/)
  --node-dir DIR     start the node from that checkout (default: this repository)
  --runtime-flag F   a flag for the node's runtime, repeatable (e.g. --runtime-flag=--cpu-prof)
  --fund TEZ         tez given to each source (default 1000)
  --progress S       a progress line every S seconds during the load (0: none; default 5)
  --client http|fetch  HTTP client of the injections: node:http (default) or global fetch
Each mode × fraction runs on a fresh node; one table at the end.`;

/** Parses the command line (`--flag value` or `--flag=value`); throws with a one-line message. */
export function parseLoadArgs(argv: readonly string[]): LoadOptions | "help" {
  const o: { -readonly [K in keyof LoadOptions]: LoadOptions[K] } = { ...DEFAULT_LOAD_OPTIONS };
  const args = [...argv];
  const number = (flag: string, text: string, min: number, integer = false): number => {
    const n = Number(text);
    if (text.trim() === "" || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
      throw new Error(`${flag}: expected ${integer ? "an integer" : "a number"} ≥ ${min}, got ${JSON.stringify(text)}`);
    }
    return n;
  };
  while (args.length > 0) {
    let flag = args.shift()!;
    if (flag === "--help" || flag === "-h") return "help";
    let value: string | undefined;
    const eq = flag.indexOf("=");
    if (flag.startsWith("--") && eq > 0) {
      value = flag.slice(eq + 1);
      flag = flag.slice(0, eq);
    }
    const take = (): string => {
      if (value !== undefined) return value;
      const v = args.shift();
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "--sources":
        o.sources = number(flag, take(), 1, true);
        break;
      case "--seconds":
        o.seconds = number(flag, take(), 0.1);
        break;
      case "--invalid":
        o.invalid = take()
          .split(",")
          .map((f) => {
            const n = number(flag, f, 0);
            if (n >= 1) throw new Error(`--invalid: a fraction below 1 is expected, got ${f}`);
            return n;
          });
        break;
      case "--modes":
      case "--mode":
        o.modes = take()
          .split(",")
          .map((m) => {
            if (m !== "auto" && !/^interval:\d+(\.\d+)?$/.test(m)) throw new Error(`--modes: auto or interval:<seconds>, got ${JSON.stringify(m)}`);
            return m;
          });
        break;
      case "--drain":
        o.drain = number(flag, take(), 0);
        break;
      case "--store": {
        const s = take();
        if (s !== "memory" && s !== "lmdb") throw new Error(`--store: memory or lmdb, got ${JSON.stringify(s)}`);
        o.store = s;
        break;
      }
      case "--runtime": {
        const r = take();
        if (r !== "node" && r !== "bun" && r !== "deno") throw new Error(`--runtime: node, bun or deno, got ${JSON.stringify(r)}`);
        o.runtime = r;
        break;
      }
      case "--node-dir":
        o.nodeDir = take();
        break;
      case "--runtime-flag":
        o.runtimeFlags = [...o.runtimeFlags, take()];
        break;
      case "--fund":
        o.fund = number(flag, take(), 1);
        break;
      case "--progress":
        o.progress = number(flag, take(), 0);
        break;
      case "--client": {
        const c = take();
        if (c !== "fetch" && c !== "http") throw new Error(`--client: fetch or http, got ${JSON.stringify(c)}`);
        o.client = c;
        break;
      }
      default:
        throw new Error(`unknown option ${JSON.stringify(flag)} (see --help)`);
    }
  }
  return o;
}

// ---- HTTP ---------------------------------------------------------------------------------------

/** An answer of the node: its status (0 when the request itself failed) and body text. */
interface Answer {
  readonly status: number;
  readonly text: string;
}

/** JSON over HTTP to the node; `get`/`post` throw on any status but 200. */
class Rpc {
  readonly base: string;
  private readonly client: "fetch" | "http";
  private readonly agent: http.Agent | undefined;

  constructor(base: string, client: "fetch" | "http" = "fetch") {
    this.base = base;
    this.client = client;
    this.agent = client === "http" ? new http.Agent({ keepAlive: true }) : undefined;
  }

  close(): void {
    this.agent?.destroy();
  }

  async get<T = any>(path: string, timeoutMs?: number): Promise<T> {
    const res = await fetch(this.base + path, timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 1000)}`);
    return JSON.parse(text) as T;
  }

  async post<T = any>(path: string, body: unknown): Promise<T> {
    const res = await fetch(this.base + path, { method: "POST", headers: JSON_HEADERS, body: json(body) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${text.slice(0, 2000)}`);
    return JSON.parse(text) as T;
  }

  /**
   * `POST /injection/operation` with `body`, the operation's hex as a JSON string (bytes: a string
   * body costs `fetch` more CPU); never throws.
   */
  async inject(body: Uint8Array<ArrayBuffer>, cutoff?: Cutoff): Promise<Answer> {
    const url = this.base + "/injection/operation";
    const controller = new AbortController();
    const signal = controller.signal;
    const registered = cutoff?.register(controller);
    try {
      if (this.agent !== undefined) return await post(url, body, this.agent, signal);
      const res = await fetch(url, { method: "POST", headers: JSON_HEADERS, body, signal });
      return { status: res.status, text: await res.text() };
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      return { status: 0, text: `${e instanceof Error ? e.message : String(e)}${cause ? ` (${cause.code ?? cause.message})` : ""}` };
    } finally {
      if (registered !== undefined) cutoff!.unregister(registered);
    }
  }
}

/**
 * Aborts the requests in flight at once. Each request has its own AbortController: `fetch` keeps
 * a listener on a signal it was given until it is collected, so one shared signal collects
 * thousands of listeners.
 */
class Cutoff {
  private readonly live = new Set<AbortController>();
  aborted = false;

  register(controller: AbortController): AbortController {
    if (this.aborted) controller.abort();
    else this.live.add(controller);
    return controller;
  }

  unregister(controller: AbortController): void {
    this.live.delete(controller);
  }

  abort(): void {
    this.aborted = true;
    for (const c of this.live) c.abort();
    this.live.clear();
  }
}

/** A POST through `node:http` (`--client http`). */
function post(url: string, body: Uint8Array, agent: http.Agent, signal: AbortSignal): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options: http.RequestOptions = { method: "POST", agent, signal, headers: { ...JSON_HEADERS, "content-length": body.length } };
    const req = http.request(url, options, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

const JSON_HEADERS = { "content-type": "application/json" };

/** JSON with bigints as strings (Octez's encoding of mutez, counters, limits). */
function json(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
}

/** A short name for an error answer: the innermost protocol error id, or the failure's message. */
function errorKind(answer: Answer): string {
  if (answer.status === 0) return `request failed: ${answer.text}`;
  let errors: unknown;
  try {
    errors = JSON.parse(answer.text);
  } catch {
    return `${answer.status} ${shorten(answer.text)}`;
  }
  const texts: string[] = [];
  for (const e of Array.isArray(errors) ? errors : [errors]) {
    if (typeof e !== "object" || e === null) continue;
    const { id, msg } = e as { id?: string; msg?: string };
    if (id === "failure" && typeof msg === "string") {
      const ids = [...msg.matchAll(/"id":"([^"]+)"/g)].map((m) => m[1]!);
      texts.push(ids.length > 0 ? shortId(ids[0]!) : shorten(msg));
    } else if (typeof id === "string") texts.push(shortId(id));
  }
  return texts.length > 0 ? texts.join(", ") : `${answer.status} ${shorten(answer.text)}`;
}

/** The `expected` counter of a counter error, if the answer is one. */
function expectedCounter(answer: Answer): bigint | undefined {
  const m = /counter_in_the_(?:past|future)[^]*?\\?"expected\\?":\\?"(\d+)/.exec(answer.text);
  return m === null ? undefined : BigInt(m[1]!);
}

function shortId(id: string): string {
  return id.replace(/^proto\.\d{3}-\w{8}\./, "");
}

/** First line, hashes elided. */
function shorten(text: string): string {
  return text
    .split("\n")[0]!
    .replace(/\b(?:B|o|tz[123]|KT1|sig|edsig)[1-9A-HJ-NP-Za-km-z]{30,}/g, "…")
    .slice(0, 120);
}

// ---- accounts and operations -----------------------------------------------------------------

/** A signing account. */
interface Account {
  readonly sk: SecretKey;
  readonly pkh: string;
  readonly pk: string;
}

function accountOf(sk: SecretKey): Account {
  const pk = publicKeyOf(sk);
  return { sk, pkh: formatPublicKeyHash(publicKeyHash(pk)), pk: formatPublicKey(pk) };
}

/** N Ed25519 accounts, the same for every run: seed i = BLAKE2b-256("tezos-node-ts load bench <i>"). */
function deriveAccounts(n: number): Account[] {
  const encoder = new TextEncoder();
  return Array.from({ length: n }, (_, i) => accountOf(secretKeyFromBytes("ed25519", blake2b256(encoder.encode(`tezos-node-ts load bench ${i}`)))));
}

/** A forged and signed operation. */
interface Signed {
  /** Its hex as a JSON string, the body of `POST /injection/operation`. */
  readonly body: Uint8Array<ArrayBuffer>;
  readonly hash: string;
  readonly size: number;
}

const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef");

/** `"<hex>"` as bytes. */
function jsonHex(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(bytes.length * 2 + 2);
  out[0] = 0x22;
  for (let i = 0; i < bytes.length; i++) {
    out[1 + 2 * i] = HEX_DIGITS[bytes[i]! >> 4]!;
    out[2 + 2 * i] = HEX_DIGITS[bytes[i]! & 15]!;
  }
  out[out.length - 1] = 0x22;
  return out;
}

/**
 * Forges `contents` on `branch` and signs them (generic watermark). The signed bytes are the
 * unsigned ones followed by the 64-byte signature; `corrupt` flips one byte of the signature.
 */
async function forge(sk: SecretKey, branch: string, contents: OperationContents[], corrupt = false): Promise<Signed> {
  const unsigned = encodeBinary(unsignedOperation, { branch, contents });
  const signature = await sign(sk, unsigned, genericWatermark());
  const bytes = new Uint8Array(unsigned.length + signature.length);
  bytes.set(unsigned);
  bytes.set(signature, unsigned.length);
  if (corrupt) bytes[unsigned.length + 17]! ^= 0x01;
  return { body: jsonHex(bytes), hash: b58encode(B58.operationHash, blake2b256(bytes)), size: bytes.length };
}

/** Checks once that {@link forge} gives what the `operation` codec gives. */
async function checkForge(sk: SecretKey, branch: string, contents: OperationContents[]): Promise<void> {
  const signed = await forge(sk, branch, contents);
  const signature = await sign(sk, encodeBinary(unsignedOperation, { branch, contents }), genericWatermark());
  const expected = `"${toHex(encodeBinary(operation, { branch, contents, signature: formatSignature(signature) }))}"`;
  if (new TextDecoder().decode(signed.body) !== expected) throw new Error("forge: the signed bytes differ from the operation codec's");
}

/** The mempool filter's minimal fee (Octez's defaults): 100 mutez + 100 nanotez/gas + 1000 nanotez/byte. */
function minimalFee(gasLimit: bigint, size: number): bigint {
  return 100n + (gasLimit * 100n + 999n) / 1000n + BigInt(size);
}

/** The limits and fee of one kind of content, learned by simulation. */
interface Limits {
  readonly gas: bigint;
  readonly storage: bigint;
}

const GAS_MARGIN = 100n;

/** Runs `contents` through `run_operation` and returns, per content, consumed gas + 100 and the storage used. */
async function simulate(rpc: Rpc, chainId: string, branch: string, contents: OperationContents[], originationSize: bigint): Promise<Limits[]> {
  const result = await rpc.post<{ contents: { metadata: { operation_result: Record<string, unknown> } }[] }>(
    "/chains/main/blocks/head/helpers/scripts/run_operation",
    { operation: { branch, contents, signature: formatSignature(new Uint8Array(64)) }, chain_id: chainId },
  );
  return result.contents.map((c, i) => {
    const r = c.metadata.operation_result;
    if (r["status"] !== "applied") throw new Error(`simulation of content ${i}: ${json(r).slice(0, 1000)}`);
    const milligas = BigInt((r["consumed_milligas"] as string | undefined) ?? "0");
    const paid = BigInt((r["paid_storage_size_diff"] as string | undefined) ?? "0");
    const allocated = r["allocated_destination_contract"] === true ? originationSize : 0n;
    return { gas: (milligas + 999n) / 1000n + GAS_MARGIN, storage: paid + allocated };
  });
}

/** Sets the first content's fee to the minimum for the whole operation (size included). */
async function withMinimalFee(sk: SecretKey, branch: string, contents: OperationContents[]): Promise<OperationContents[]> {
  const gas = contents.reduce((sum, c) => sum + (c as { gas_limit: bigint }).gas_limit, 0n);
  let fee = 0n;
  for (let i = 0; i < 4; i++) {
    const withFee = [{ ...contents[0]!, fee } as OperationContents, ...contents.slice(1)];
    const need = minimalFee(gas, (await forge(sk, branch, withFee)).size);
    if (need <= fee) return withFee;
    fee = need;
  }
  return [{ ...contents[0]!, fee } as OperationContents, ...contents.slice(1)];
}

// ---- heads ------------------------------------------------------------------------------------

/** A block seen at the client. */
interface Head {
  readonly hash: string;
  readonly level: number;
  readonly predecessor: string;
  /** Block timestamp, ms since the epoch. */
  readonly timestamp: number;
  /** `performance.now()` when its line (or the line of the head that revealed it) arrived. */
  readonly arrival: number;
  /** `Date.now()` then. */
  readonly arrivalWall: number;
  /** Whether it was not announced itself but found walking back from a later head. */
  readonly walked: boolean;
  /** Manager operations it holds. */
  managerOps: number;
  /** Of which the load's transfers. */
  ours: number;
}

interface HeaderJson {
  hash: string;
  level: number;
  predecessor: string;
  timestamp: string;
}

/**
 * Follows `/monitor/heads/main`; for every new head, in order (and every level it skipped), reads
 * its manager operations' hashes and hands them to `onBlock`.
 */
class HeadFollower {
  readonly heads: Head[] = [];
  reconnects = 0;
  readonly errors: string[] = [];
  onBlock: (head: Head, hashes: readonly string[]) => void = () => {};
  private readonly abort = new AbortController();
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private first: (() => void) | undefined;
  private readonly rpc: Rpc;

  constructor(rpc: Rpc) {
    this.rpc = rpc;
  }

  /** The last head processed. */
  get latest(): Head | undefined {
    return this.heads[this.heads.length - 1];
  }

  /** Starts following; resolves once the first head is processed. */
  start(): Promise<void> {
    const first = new Promise<void>((resolve) => (this.first = resolve));
    void this.follow();
    return first;
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  /** Resolves once every head received so far is processed. */
  settled(): Promise<void> {
    return this.queue;
  }

  private async follow(): Promise<void> {
    while (!this.stopped) {
      try {
        const res = await fetch(`${this.rpc.base}/monitor/heads/main`, { signal: this.abort.signal });
        if (res.status !== 200 || res.body === null) throw new Error(`/monitor/heads/main: ${res.status}`);
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const arrival = performance.now();
          const arrivalWall = Date.now();
          buffer += decoder.decode(value, { stream: true });
          let i: number;
          while ((i = buffer.indexOf("\n")) >= 0) {
            const line = buffer.slice(0, i).trim();
            buffer = buffer.slice(i + 1);
            if (line === "") continue;
            const header = JSON.parse(line) as HeaderJson;
            this.queue = this.queue.then(() => this.process(header, arrival, arrivalWall)).catch((e) => this.fail(e));
          }
        }
      } catch (e) {
        if (this.stopped) return;
        this.fail(e);
      }
      if (this.stopped) return;
      this.reconnects++;
      await sleep(100);
    }
  }

  private fail(e: unknown): void {
    if (this.stopped) return;
    const text = e instanceof Error ? e.message : String(e);
    if (this.errors.length < 20) this.errors.push(text);
  }

  private async process(header: HeaderJson, arrival: number, arrivalWall: number): Promise<void> {
    const last = this.latest;
    if (last !== undefined && header.level <= last.level) return; // seen already (a reconnection)
    const chain: { header: HeaderJson; walked: boolean }[] = [{ header, walked: false }];
    if (last !== undefined) {
      // Levels the stream skipped: walk back to the last head seen.
      let h = header;
      while (h.level > last.level + 1) {
        h = await this.rpc.get<HeaderJson>(`/chains/main/blocks/${h.predecessor}/header`);
        chain.unshift({ header: h, walked: true });
      }
    }
    for (const { header: h, walked } of chain) {
      const hashes = await this.rpc.get<string[]>(`/chains/main/blocks/${h.hash}/operation_hashes/3`);
      const head: Head = {
        hash: h.hash,
        level: h.level,
        predecessor: h.predecessor,
        timestamp: Date.parse(h.timestamp),
        arrival,
        arrivalWall,
        walked,
        managerOps: hashes.length,
        ours: 0,
      };
      this.heads.push(head);
      this.onBlock(head, hashes);
    }
    this.first?.();
    this.first = undefined;
  }
}

// ---- setup ------------------------------------------------------------------------------------

/** What the load's transfers look like. */
interface TransferPlan {
  readonly gasLimit: bigint;
  readonly storageLimit: bigint;
  readonly fee: bigint;
  readonly size: number;
  readonly revealGas: bigint;
  readonly fundGas: bigint;
  readonly fundStorage: bigint;
  /** The sources' next counters. */
  readonly counters: bigint[];
}

/** Hashes the follower should see; resolves once all are included. */
class InclusionWaiter {
  private readonly wanted = new Set<string>();
  private resolve: (() => void) | undefined;

  expect(hashes: Iterable<string>): void {
    for (const h of hashes) this.wanted.add(h);
  }

  seen(hash: string): void {
    if (this.wanted.delete(hash) && this.wanted.size === 0) this.resolve?.();
  }

  async wait(what: string, timeoutMs: number): Promise<void> {
    if (this.wanted.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve) => (this.resolve = resolve)),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${what}: ${this.wanted.size} operations not included after ${timeoutMs / 1000} s`)), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      this.resolve = undefined;
    }
  }
}

const FUND_BATCH = 100;

/** Funds and reveals the sources; learns the limits of a transfer. */
async function setup(rpc: Rpc, follower: HeadFollower, waiter: InclusionWaiter, sources: readonly Account[], options: LoadOptions): Promise<TransferPlan> {
  const chainId = await rpc.get<string>("/chains/main/chain_id");
  const constants = await rpc.get<{ origination_size: number }>("/chains/main/blocks/head/context/constants");
  const originationSize = BigInt(constants.origination_size);
  const branch = () => follower.latest!.hash;
  const counterOf = async (pkh: string) => BigInt(await rpc.get<string>(`/chains/main/blocks/head/context/contracts/${pkh}/counter`));
  const boots = bootstrapSecretKeys().map(accountOf);
  const bootCounters = await Promise.all(boots.map((b) => counterOf(b.pkh)));
  const amount = BigInt(Math.round(options.fund * 1e6));

  // Funding: batches of transfers from bootstrap1..5 to the new accounts.
  const fundContent = (from: Account, counter: bigint, to: string, gas: bigint, storage: bigint): OperationContents => ({
    kind: "transaction",
    source: from.pkh,
    fee: 0n,
    counter,
    gas_limit: gas,
    storage_limit: storage,
    amount,
    destination: to,
  });
  const [fundLimits] = await simulate(rpc, chainId, branch(), [fundContent(boots[0]!, bootCounters[0]! + 1n, sources[0]!.pkh, 10_000n, 1_000n)], originationSize);
  const funding: Signed[] = [];
  for (let b = 0; b * FUND_BATCH < sources.length; b++) {
    const from = b % boots.length;
    const batch = sources.slice(b * FUND_BATCH, (b + 1) * FUND_BATCH);
    const contents = batch.map((to) => fundContent(boots[from]!, (bootCounters[from]! += 1n), to.pkh, fundLimits!.gas, fundLimits!.storage));
    funding.push(await forge(boots[from]!.sk, branch(), await withMinimalFee(boots[from]!.sk, branch(), contents)));
  }
  waiter.expect(funding.map((s) => s.hash));
  for (const op of funding) {
    const answer = await rpc.inject(op.body);
    if (answer.status !== 200) throw new Error(`funding rejected: ${answer.status} ${answer.text.slice(0, 1000)}`);
  }
  await waiter.wait("funding", 60_000);

  // Reveals: one operation per source.
  const counters = await mapLimit(sources, 16, (s) => counterOf(s.pkh));
  const revealContent = (s: Account, counter: bigint, gas: bigint): OperationContents => ({
    kind: "reveal",
    source: s.pkh,
    fee: 0n,
    counter,
    gas_limit: gas,
    storage_limit: 0n,
    public_key: s.pk,
  });
  const [revealLimits] = await simulate(rpc, chainId, branch(), [revealContent(sources[0]!, counters[0]! + 1n, 10_000n)], originationSize);
  const reveals = await mapLimit(sources, 16, async (s, i) =>
    forge(s.sk, branch(), await withMinimalFee(s.sk, branch(), [revealContent(s, counters[i]! + 1n, revealLimits!.gas)])),
  );
  waiter.expect(reveals.map((s) => s.hash));
  await mapLimit(reveals, 16, async (op) => {
    const answer = await rpc.inject(op.body);
    if (answer.status !== 200) throw new Error(`reveal rejected: ${answer.status} ${answer.text.slice(0, 1000)}`);
  });
  await waiter.wait("reveals", 60_000);

  // The load's transfer: source i to source i+1, 1 mutez.
  const next = counters.map((c) => c + 2n);
  const [transferLimits] = await simulate(rpc, chainId, branch(), [transfer(sources, 0, next[0]!, 10_000n, 0n, 0n, 1n)], originationSize);
  // The fee for the largest transfer of the run (counters up to 2^21, 3 bytes), fixed for the run.
  const template = await withMinimalFee(sources[0]!.sk, branch(), [transfer(sources, 0, 1n << 20n, transferLimits!.gas, transferLimits!.storage, 0n, 1n)]);
  const fee = (template[0] as { fee: bigint }).fee;
  await checkForge(sources[0]!.sk, branch(), template);
  const size = (await forge(sources[0]!.sk, branch(), template)).size;
  return {
    gasLimit: transferLimits!.gas,
    storageLimit: transferLimits!.storage,
    fee,
    size,
    revealGas: revealLimits!.gas,
    fundGas: fundLimits!.gas,
    fundStorage: fundLimits!.storage,
    counters: next,
  };
}

/** A transfer of `amount` mutez from source `i` to source `i + 1`. */
function transfer(sources: readonly Account[], i: number, counter: bigint, gas: bigint, storage: bigint, fee: bigint, amount: bigint): OperationContents {
  return {
    kind: "transaction",
    source: sources[i]!.pkh,
    fee,
    counter,
    gas_limit: gas,
    storage_limit: storage,
    amount,
    destination: sources[(i + 1) % sources.length]!.pkh,
  };
}

// ---- load -------------------------------------------------------------------------------------

/** The kinds of invalid injections. */
const INVALID_KINDS = ["counter ahead", "counter used", "balance", "signature"] as const;
type InvalidKind = (typeof INVALID_KINDS)[number];

/** The order invalid injections take: bad counter, too little balance, bad signature, in turn. */
const INVALID_ROTATION: readonly InvalidKind[] = ["counter ahead", "balance", "signature", "counter used", "balance", "signature"];

/** The error each kind must be answered with. */
const EXPECTED_ERRORS: Record<InvalidKind, readonly string[]> = {
  "counter ahead": ["contract.counter_in_the_future"],
  "counter used": ["contract.counter_in_the_past"],
  balance: ["contract.balance_too_low"],
  signature: ["operation.invalid_signature"],
};

/** One run's figures. */
export interface LoadResult {
  readonly mode: string;
  readonly invalid: number;
  readonly sources: number;
  readonly seconds: number;
  readonly plan: TransferPlan;
  /** Accepted (200) valid injections sent during the load, answered by the end of the drain. */
  readonly accepted: number;
  /** Of which answered during the load. */
  readonly acceptedInLoad: number;
  /** Injections sent during the load and still unanswered at the end of the drain. */
  readonly unanswered: number;
  /** All injections answered during the load, valid and invalid, retries included. */
  readonly answered: number;
  /** Valid injections sent again after `counter_in_the_future`. */
  readonly retries: number;
  /** Valid transfers given up after an error (and retries). */
  readonly givenUp: number;
  readonly injectedPerSecond: number;
  /** Transfers found in heads that arrived during the load. */
  readonly includedInLoad: number;
  readonly includedPerSecond: number;
  /** Transfers included by the end of the drain. */
  readonly includedTotal: number;
  /** Accepted, never seen in a block. */
  readonly left: number;
  readonly drainSeconds: number;
  /** Injection to inclusion, ms. */
  readonly latency: Percentiles;
  /** Injection RPC answer time, ms (valid injections). */
  readonly injectRpc: Percentiles;
  readonly blocks: number;
  readonly walkedBlocks: number;
  readonly transfersPerBlock: { readonly mean: number; readonly max: number };
  /** Longest time between consecutive heads at the client, s. */
  readonly maxGapClient: number;
  /** Longest difference between consecutive block timestamps, s. */
  readonly maxGapTimestamps: number;
  /** Block timestamp minus wall clock at arrival, s: at the end of the load, and the largest. */
  readonly clockLead: { readonly end: number; readonly max: number };
  readonly invalidAnswers: Record<InvalidKind, { sent: number; expected: number; accepted: number; other: Record<string, number> }>;
  /** Valid injections answered with an error, by error. */
  readonly validErrors: Record<string, number>;
  /** Answers by HTTP status (0: the request failed). */
  readonly statuses: Record<number, number>;
  /** Invalid injections found in a block (must be 0). */
  readonly invalidIncluded: number;
  readonly hashMismatches: number;
  /** This process: CPU (% of one core, all threads) and event-loop utilization (%), during the load. */
  readonly benchCpu: number;
  /** This process's CPU µs per injection answered during the load. */
  readonly benchCpuPerInjection: number;
  readonly benchElu: number;
  /** The node: CPU (% of one core) during the load, resident memory at the end (MiB). */
  readonly nodeCpu: number | undefined;
  readonly nodeRss: number | undefined;
  /** Other processes' CPU and the idle CPU during the load, % of one core (from `/proc/stat`). */
  readonly otherCpu: number | undefined;
  readonly idleCpu: number | undefined;
  /** The machine's 1-minute load average before and after the load. */
  readonly loadAverage: readonly [number, number];
  readonly client: "fetch" | "http";
  readonly mempool: Record<string, number> | undefined;
  readonly monitorReconnects: number;
  readonly monitorErrors: readonly string[];
  readonly nodeStderrLines: number;
  readonly nodeOutput: readonly string[];
  readonly nodeExit: string;
}

interface Percentiles {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { n: 0, p50: NaN, p99: NaN, max: NaN };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]! };
}

/** A source during the load. */
interface SourceState {
  readonly index: number;
  readonly account: Account;
  /** The counter of its next valid transfer. */
  counter: bigint;
  failuresInARow: number;
}

/** What the sources and the follower share during the load. */
class LoadState {
  start = 0;
  end = 0;
  readonly pending = new Map<string, number>(); // hash → send time
  readonly invalidHashes = new Set<string>();
  readonly latencies: number[] = [];
  readonly injectRpc: number[] = [];
  accepted = 0;
  acceptedInLoad = 0;
  answered = 0;
  /** Injections still unanswered at the end of the drain (aborted then). */
  unanswered = 0;
  /** Aborts the injections still in flight at the end of the drain. */
  readonly cutoff = new Cutoff();
  /** Injections sent again after `counter_in_the_future`. */
  retries = 0;
  /** Valid transfers given up after an error (and retries). */
  givenUp = 0;
  includedInLoad = 0;
  includedTotal = 0;
  invalidIncluded = 0;
  hashMismatches = 0;
  readonly validErrors: Record<string, number> = {};
  /** Answers by HTTP status (0: the request failed). */
  readonly statuses: Record<number, number> = {};
  readonly invalidAnswers = Object.fromEntries(
    INVALID_KINDS.map((k) => [k, { sent: 0, expected: 0, accepted: 0, other: {} as Record<string, number> }]),
  ) as LoadResult["invalidAnswers"];
  private invalidTurn = 0;
  private seed = 0x9e3779b9;

  readonly rpc: Rpc;
  readonly node: NodeProcess;
  readonly follower: HeadFollower;
  readonly sources: readonly Account[];
  readonly plan: TransferPlan;
  readonly invalid: number;

  constructor(rpc: Rpc, node: NodeProcess, follower: HeadFollower, sources: readonly Account[], plan: TransferPlan, invalid: number) {
    this.rpc = rpc;
    this.node = node;
    this.follower = follower;
    this.sources = sources;
    this.plan = plan;
    this.invalid = invalid;
  }

  /** A deterministic pseudo-random number in [0, 1) (mulberry32). */
  random(): number {
    let t = (this.seed = (this.seed + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  nextInvalidKind(): InvalidKind {
    return INVALID_ROTATION[this.invalidTurn++ % INVALID_ROTATION.length]!;
  }

  branch(): string {
    return this.follower.latest!.hash;
  }

  onBlock(head: Head, hashes: readonly string[]): void {
    for (const hash of hashes) {
      const sent = this.pending.get(hash);
      if (sent !== undefined) {
        this.pending.delete(hash);
        this.latencies.push(head.arrival - sent);
        this.includedTotal++;
        if (head.arrival <= this.end) this.includedInLoad++;
        head.ours++;
      } else if (this.invalidHashes.has(hash)) this.invalidIncluded++;
    }
  }
}

/** A valid transfer of source `s` at `counter`. */
function validTransfer(state: LoadState, s: SourceState, counter: bigint): Promise<Signed & { counter: bigint }> {
  const { gasLimit, storageLimit, fee } = state.plan;
  return forge(s.account.sk, state.branch(), [transfer(state.sources, s.index, counter, gasLimit, storageLimit, fee, 1n)]).then((op) => ({ ...op, counter }));
}

/** Injects, retrying the same bytes (up to 3 times) when the request itself failed. */
async function injectRetrying(state: LoadState, body: Uint8Array<ArrayBuffer>): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const answer = await state.rpc.inject(body, state.cutoff);
    if (answer.status !== 0 || attempt >= 3 || state.cutoff.aborted) return answer;
    if (state.node.hasExited !== undefined) throw new Error(`the node exited during the load: ${json(state.node.hasExited)}`);
    await sleep(100);
  }
}

/** One source: transfers one after the other until the end of the load, some of them invalid. */
async function sourceLoop(state: LoadState, s: SourceState): Promise<void> {
  let ready: (Signed & { counter: bigint }) | undefined;
  while (performance.now() < state.end) {
    if (state.invalid > 0 && state.random() < state.invalid) {
      await injectInvalid(state, s);
      continue;
    }
    const op = ready !== undefined && ready.counter === s.counter ? ready : await validTransfer(state, s, s.counter);
    ready = undefined;
    const next = validTransfer(state, s, s.counter + 1n); // signed while this one is in flight
    next.catch(() => {});
    state.pending.set(op.hash, performance.now());
    let answer: Answer;
    for (let retry = 0; ; retry++) {
      const t = performance.now();
      answer = await injectRetrying(state, op.body);
      if (state.cutoff.aborted && answer.status === 0) {
        state.pending.delete(op.hash);
        state.unanswered++;
        return;
      }
      state.injectRpc.push(performance.now() - t);
      state.answered++;
      state.statuses[answer.status] = (state.statuses[answer.status] ?? 0) + 1;
      if (answer.status === 200) break;
      const kind = errorKind(answer);
      state.validErrors[kind] = (state.validErrors[kind] ?? 0) + 1;
      // A counter in the future is a temporary error: the node has not (re)applied the source's
      // previous transfer yet (after a new head, the mempool classifies its operations again in
      // the background). Send the same bytes again a little later, as a client would.
      if (kind !== "contract.counter_in_the_future" || retry >= TEMPORARY_RETRIES || performance.now() >= state.end) break;
      state.retries++;
      await sleep(25 * 2 ** retry);
    }
    if (answer.status === 200) {
      if (answer.text.trim() !== `"${op.hash}"`) state.hashMismatches++;
      state.accepted++;
      if (performance.now() <= state.end) state.acceptedInLoad++;
      s.counter++;
      s.failuresInARow = 0;
      ready = await next;
      continue;
    }
    if (answer.status !== 0) state.pending.delete(op.hash); // a failed request may still have reached the node
    state.givenUp++;
    // The counter the node expects: after a counter in the past, or a counter in the future that
    // retries did not cure (the previous transfer is lost), go on from there.
    const expected = expectedCounter(answer);
    if (expected !== undefined) s.counter = expected;
    if (++s.failuresInARow >= 50) {
      state.validErrors["(source stopped after 50 failures in a row)"] = (state.validErrors["(source stopped after 50 failures in a row)"] ?? 0) + 1;
      return;
    }
    await sleep(20);
  }
}

/** Retries of a transfer answered `counter_in_the_future` (25 ms, doubling: 1.6 s in all). */
const TEMPORARY_RETRIES = 6;

/** One invalid injection by source `s`; the answer is tallied; `s.counter` is not used up. */
async function injectInvalid(state: LoadState, s: SourceState): Promise<void> {
  const kind = state.nextInvalidKind();
  const { gasLimit, storageLimit, fee } = state.plan;
  // Amount 2 mutez: never the bytes of a valid transfer (which the node would answer as known).
  let contents: OperationContents;
  switch (kind) {
    case "counter ahead": // one after the counter the node expects
      contents = transfer(state.sources, s.index, s.counter + 1n, gasLimit, storageLimit, fee, 2n);
      break;
    case "counter used": // the counter of the source's last accepted transfer
      contents = transfer(state.sources, s.index, s.counter - 1n, gasLimit, storageLimit, fee, 2n);
      break;
    case "balance":
      contents = transfer(state.sources, s.index, s.counter, gasLimit, storageLimit, 10n ** 15n, 2n); // fee above any balance
      break;
    case "signature":
      contents = transfer(state.sources, s.index, s.counter, gasLimit, storageLimit, fee, 2n);
      break;
  }
  const op = await forge(s.account.sk, state.branch(), [contents], kind === "signature");
  state.invalidHashes.add(op.hash);
  const answer = await injectRetrying(state, op.body);
  if (state.cutoff.aborted && answer.status === 0) {
    state.unanswered++;
    return;
  }
  state.answered++;
  state.statuses[answer.status] = (state.statuses[answer.status] ?? 0) + 1;
  const tally = state.invalidAnswers[kind];
  tally.sent++;
  if (answer.status === 200) {
    tally.accepted++;
    return; // the source's next valid transfer learns the counter the node expects
  }
  const error = errorKind(answer);
  if (EXPECTED_ERRORS[kind].includes(error)) tally.expected++;
  else tally.other[error] = (tally.other[error] ?? 0) + 1;
}

/** One run: a fresh node in `mode`, setup, load, drain, figures. */
async function runOnce(options: LoadOptions, mode: string, invalid: number): Promise<LoadResult> {
  const say = (text: string) => console.log(`[${mode}${invalid > 0 ? `, ${pct(invalid)} invalid` : ""}] ${text}`);
  const node = await NodeProcess.start({ bake: mode, store: options.store, dir: options.nodeDir, runtime: options.runtime, runtimeFlags: options.runtimeFlags });
  say(`node ${node.pid} listening on ${node.url}`);
  const rpc = new Rpc(node.url, options.client);
  const follower = new HeadFollower(rpc);
  let stopped: Awaited<ReturnType<NodeProcess["stop"]>> | undefined;
  try {
    const waiter = new InclusionWaiter();
    follower.onBlock = (_head, hashes) => hashes.forEach((h) => waiter.seen(h));
    await withTimeout(follower.start(), 30_000, "no head from /monitor/heads/main");
    const sources = deriveAccounts(options.sources);
    const t0 = performance.now();
    const plan = await setup(rpc, follower, waiter, sources, options);
    say(
      `setup: ${sources.length} sources funded (gas ${plan.fundGas}, storage ${plan.fundStorage}) and revealed (gas ${plan.revealGas}) in ` +
        `${((performance.now() - t0) / 1000).toFixed(1)} s; transfer: gas_limit ${plan.gasLimit}, storage_limit ${plan.storageLimit}, ` +
        `fee ${plan.fee} mutez, ${plan.size} bytes`,
    );

    const state = new LoadState(rpc, node, follower, sources, plan, invalid);
    follower.onBlock = (head, hashes) => state.onBlock(head, hashes);
    const states: SourceState[] = sources.map((account, index) => ({ index, account, counter: plan.counters[index]!, failuresInARow: 0 }));
    const nodeCpu0 = node.cpuSeconds();
    const machine0 = machineCpuSeconds();
    const load0 = loadavg()[0]!;
    const cpu0 = process.cpuUsage();
    const elu0 = perfHooks.eventLoopUtilization();
    state.start = performance.now();
    state.end = state.start + options.seconds * 1000;
    const progress =
      options.progress > 0
        ? setInterval(() => {
            const t = (performance.now() - state.start) / 1000;
            say(
              `t=${t.toFixed(0)} s: ${state.accepted} accepted (${(state.accepted / t).toFixed(0)}/s), ${state.includedTotal} included ` +
                `(${(state.includedTotal / t).toFixed(0)}/s), ${state.pending.size} pending, head level ${follower.latest?.level}`,
            );
          }, options.progress * 1000)
        : undefined;
    let fatal: unknown;
    const loops = states.map((s) => sourceLoop(state, s).catch((e: unknown) => void (fatal ??= e)));
    try {
      await sleep(options.seconds * 1000);
    } finally {
      clearInterval(progress);
    }
    const cpu = process.cpuUsage(cpu0);
    const elu = perfHooks.eventLoopUtilization(elu0);
    const nodeCpu1 = node.cpuSeconds();
    const machine1 = machineCpuSeconds();
    const loadMs = performance.now() - state.start;
    const answeredInLoad = state.answered;
    // Drain: the injections in flight get their answers and the accepted transfers are
    // included, until `drain` seconds after the load; the injections still unanswered then are
    // aborted.
    const deadline = state.end + options.drain * 1000;
    await Promise.race([Promise.all(loops), sleep(deadline - performance.now())]);
    state.cutoff.abort();
    await Promise.all(loops);
    if (fatal !== undefined) throw fatal;
    while (state.pending.size > 0 && performance.now() < deadline) {
      if (node.hasExited !== undefined) break;
      await sleep(50);
    }
    await Promise.race([follower.settled(), sleep(2000)]);
    const drainSeconds = (performance.now() - state.end) / 1000;
    follower.stop();
    let mempool: Record<string, number> | undefined;
    try {
      const m = await rpc.get<Record<string, unknown[]>>("/chains/main/mempool/pending_operations", 10_000);
      mempool = Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Array.isArray(v) ? v.length : 0]));
    } catch {
      mempool = undefined;
    }
    const nodeRss = node.rssMiB();

    // Blocks of the load period.
    const inLoad = follower.heads.filter((h) => h.arrival > state.start && h.arrival <= state.end);
    const before = follower.heads.filter((h) => h.arrival <= state.start).pop();
    const arrivals = [state.start, ...inLoad.map((h) => h.arrival), state.end];
    let maxGapClient = 0;
    for (let i = 1; i < arrivals.length; i++) maxGapClient = Math.max(maxGapClient, arrivals[i]! - arrivals[i - 1]!);
    const stamps = [...(before === undefined ? [] : [before]), ...inLoad].map((h) => h.timestamp);
    let maxGapTimestamps = 0;
    for (let i = 1; i < stamps.length; i++) maxGapTimestamps = Math.max(maxGapTimestamps, stamps[i]! - stamps[i - 1]!);
    const leads = inLoad.map((h) => (h.timestamp - h.arrivalWall) / 1000);
    const nodeExit = await node.stop();
    stopped = nodeExit;

    return {
      mode,
      invalid,
      sources: sources.length,
      seconds: options.seconds,
      plan,
      accepted: state.accepted,
      answered: state.answered,
      retries: state.retries,
      givenUp: state.givenUp,
      acceptedInLoad: state.acceptedInLoad,
      unanswered: state.unanswered,
      injectedPerSecond: state.acceptedInLoad / (loadMs / 1000),
      includedInLoad: state.includedInLoad,
      includedPerSecond: state.includedInLoad / (loadMs / 1000),
      includedTotal: state.includedTotal,
      left: state.pending.size,
      drainSeconds,
      latency: percentiles(state.latencies),
      injectRpc: percentiles(state.injectRpc),
      blocks: inLoad.length,
      walkedBlocks: inLoad.filter((h) => h.walked).length,
      transfersPerBlock: {
        mean: inLoad.length === 0 ? 0 : inLoad.reduce((s, h) => s + h.ours, 0) / inLoad.length,
        max: Math.max(0, ...inLoad.map((h) => h.ours)),
      },
      maxGapClient: maxGapClient / 1000,
      maxGapTimestamps: maxGapTimestamps / 1000,
      clockLead: { end: leads.length === 0 ? NaN : leads[leads.length - 1]!, max: leads.length === 0 ? NaN : Math.max(...leads) },
      invalidAnswers: state.invalidAnswers,
      validErrors: state.validErrors,
      statuses: state.statuses,
      invalidIncluded: state.invalidIncluded,
      hashMismatches: state.hashMismatches,
      benchCpu: ((cpu.user + cpu.system) / 1000 / loadMs) * 100,
      benchCpuPerInjection: (cpu.user + cpu.system) / Math.max(1, answeredInLoad),
      benchElu: elu.utilization * 100,
      nodeCpu: nodeCpu0 === undefined || nodeCpu1 === undefined ? undefined : ((nodeCpu1 - nodeCpu0) * 1000 * 100) / loadMs,
      nodeRss,
      otherCpu:
        machine0 === undefined || machine1 === undefined || nodeCpu0 === undefined || nodeCpu1 === undefined
          ? undefined
          : ((machine1.busy - machine0.busy - (nodeCpu1 - nodeCpu0) - (cpu.user + cpu.system) / 1e6) * 1000 * 100) / loadMs,
      idleCpu: machine0 === undefined || machine1 === undefined ? undefined : ((machine1.idle - machine0.idle) * 1000 * 100) / loadMs,
      loadAverage: [load0, loadavg()[0]!],
      client: options.client,
      mempool,
      monitorReconnects: follower.reconnects,
      monitorErrors: follower.errors,
      nodeStderrLines: node.log.stderrLines,
      nodeOutput: node.log.lines.slice(-20),
      nodeExit: `${nodeExit.code === null ? `signal ${nodeExit.signal}` : `code ${nodeExit.code}`}${nodeExit.killed ? " (killed after 15 s)" : ""}`,
    };
  } finally {
    follower.stop();
    rpc.close();
    if (stopped === undefined) {
      const exit = await node.stop();
      if (node.log.lines.length > 0) say(`node output (last lines):\n  ${node.log.lines.slice(-20).join("\n  ")}`);
      say(`node stopped: ${exit.code === null ? `signal ${exit.signal}` : `code ${exit.code}`}`);
    }
  }
}

// ---- report -----------------------------------------------------------------------------------

function pct(x: number): string {
  return `${+(x * 100).toFixed(1)}%`;
}

function fixed(x: number | undefined, digits = 0): string {
  return x === undefined || Number.isNaN(x) ? "-" : x.toFixed(digits);
}

/** Prints the table of all runs, then each run's answers and anomalies. */
export function printLoadResults(results: readonly (LoadResult | { mode: string; invalid: number; error: string })[]): void {
  const columns: [string, number][] = [
    ["mode", 11],
    ["invalid", 7],
    ["src", 4],
    ["injected/s", 10],
    ["included/s", 10],
    ["p50 ms", 7],
    ["p99 ms", 7],
    ["max ms", 7],
    ["left", 5],
    ["blocks", 6],
    ["tx/blk", 7],
    ["gap s", 6],
    ["ts gap s", 8],
    ["inj p50/p99 ms", 14],
    ["errors", 6],
    ["bench CPU", 9],
    ["node CPU", 8],
  ];
  const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(columns[i]![1]) : c.padStart(columns[i]![1]))).join("  ");
  console.log(row(columns.map(([name]) => name)));
  for (const r of results) {
    if ("error" in r) {
      console.log(row([r.mode, pct(r.invalid), ...columns.slice(2).map(() => "")]).trimEnd() + `  failed: ${r.error.split("\n")[0]}`);
      continue;
    }
    console.log(
      row([
        r.mode,
        pct(r.invalid),
        String(r.sources),
        fixed(r.injectedPerSecond, 1),
        fixed(r.includedPerSecond, 1),
        fixed(r.latency.p50),
        fixed(r.latency.p99),
        fixed(r.latency.max),
        String(r.left),
        String(r.blocks),
        fixed(r.transfersPerBlock.mean, 1),
        fixed(r.maxGapClient, 2),
        fixed(r.maxGapTimestamps, 0),
        `${fixed(r.injectRpc.p50, 1)}/${fixed(r.injectRpc.p99)}`,
        String(Object.values(r.validErrors).reduce((a, b) => a + b, 0) + INVALID_KINDS.reduce((a, k) => a + r.invalidAnswers[k].accepted, 0)),
        `${fixed(r.benchCpu)}%`,
        r.nodeCpu === undefined ? "-" : `${fixed(r.nodeCpu)}%`,
      ]),
    );
  }
  console.log(
    "(injected/s: accepted injections answered during the load; included/s: transfers in heads that arrived during the load; p50/p99/max: injection sent → head\n" +
      " including it seen; left: accepted, not included by the end of the drain; gap: longest time between heads at the client; ts gap:\n" +
      " longest between block timestamps; inj: injection RPC answer time; errors: valid injections answered with an error, and invalid\n" +
      " ones accepted; CPU: % of one core during the load, bench = this process)",
  );
  for (const r of results) {
    if ("error" in r) {
      console.log(`\n${r.mode}, ${pct(r.invalid)} invalid: failed: ${r.error}`);
      continue;
    }
    console.log(`\n${r.mode}, ${pct(r.invalid)} invalid, ${r.sources} sources, ${r.seconds} s:`);
    console.log(
      `  ${r.accepted} accepted of ${r.answered} answered injections (${r.acceptedInLoad} answered during the load` +
        `${r.unanswered > 0 ? `, ${r.unanswered} still unanswered at the end of the drain` : ""}; by status: ` +
        `${Object.entries(r.statuses).map(([status, n]) => `${status === "0" ? "no answer" : status} ×${n}`).join(", ")}); ${r.includedInLoad} included during the load, ` +
        `${r.includedTotal} by the end of the drain (${r.drainSeconds.toFixed(1)} s after the load), ${r.left} left; largest block ${r.transfersPerBlock.max} transfers` +
        (r.walkedBlocks > 0 ? `; ${r.walkedBlocks} blocks not announced by the monitor (found walking back)` : ""),
    );
    console.log(
      `  block timestamps ahead of the wall clock: ${fixed(r.clockLead.end, 1)} s at the end of the load (max ${fixed(r.clockLead.max, 1)} s); ` +
        `node RSS ${fixed(r.nodeRss)} MiB at the end; node exit: ${r.nodeExit}`,
    );
    console.log(
      `  CPU during the load, % of one core: node ${fixed(r.nodeCpu)}, bench ${fixed(r.benchCpu)} (${r.client}, ${fixed(r.benchCpuPerInjection)} µs per injection; ` +
        `event loop ${fixed(r.benchElu)}% busy), ` +
        `other processes ${fixed(r.otherCpu)}, idle ${fixed(r.idleCpu)} (${cpus().length} cores); load average ${r.loadAverage.map((l) => l.toFixed(1)).join(" → ")}`,
    );
    if (r.invalid > 0) {
      const parts = INVALID_KINDS.map((k) => {
        const t = r.invalidAnswers[k];
        const other = Object.entries(t.other).map(([e, n]) => `${n}× ${e}`);
        return `${k} ${t.expected}/${t.sent} refused as expected${t.accepted > 0 ? `, ${t.accepted} ACCEPTED` : ""}${other.length > 0 ? `, other: ${other.join(", ")}` : ""}`;
      });
      console.log(`  invalid injections: ${parts.join("; ")}`);
    }
    const errors = Object.entries(r.validErrors).sort((a, b) => b[1] - a[1]);
    console.log(
      `  valid injections answered with an error: ${errors.length === 0 ? "none" : errors.map(([e, n]) => `${n}× ${e}`).join("; ")}` +
        (r.retries > 0 || r.givenUp > 0 ? ` (${r.retries} sent again after counter_in_the_future, ${r.givenUp} transfers given up)` : ""),
    );
    const anomalies = [
      r.benchElu > 80 ? `this process's event loop was ${r.benchElu.toFixed(0)}% busy: the load generator may have limited the figures` : "",
      r.invalidIncluded > 0 ? `${r.invalidIncluded} invalid operations included in blocks` : "",
      r.hashMismatches > 0 ? `${r.hashMismatches} answers with another hash than the client's` : "",
      r.monitorReconnects > 0 ? `the heads monitor ended ${r.monitorReconnects} times` : "",
      r.monitorErrors.length > 0 ? `monitor errors: ${r.monitorErrors.join(" | ")}` : "",
      r.nodeStderrLines > 0 ? `the node wrote ${r.nodeStderrLines} lines to stderr, last: ${r.nodeOutput.filter((l) => l.startsWith("[stderr]")).slice(-5).join(" / ")}` : "",
    ].filter((a) => a !== "");
    if (anomalies.length > 0) console.log(`  anomalies: ${anomalies.join("; ")}`);
    console.log(
      `  mempool at the end: ${r.mempool === undefined ? "no answer within 10 s" : Object.entries(r.mempool).map(([k, n]) => `${k} ${n}`).join(", ")}`,
    );
    console.log(`  goals: ${goals(r).join(", ")}`);
  }
}

/** The issue's goals, met or not. */
function goals(r: LoadResult): string[] {
  const out = [`included ≥ 1000/s: ${r.includedPerSecond >= 1000 ? "met" : "NOT met"} (${r.includedPerSecond.toFixed(0)}/s)`];
  if (r.mode === "auto") out.push(`p99 < 2 s: ${r.latency.p99 < 2000 ? "met" : "NOT met"} (${(r.latency.p99 / 1000).toFixed(2)} s)`);
  const interval = /^interval:(.+)$/.exec(r.mode);
  if (interval !== null) {
    const limit = 2 * Number(interval[1]);
    out.push(`gap ≤ ${limit} s: ${r.maxGapClient <= limit && r.maxGapTimestamps <= limit ? "met" : "NOT met"} (client ${r.maxGapClient.toFixed(2)} s, timestamps ${r.maxGapTimestamps.toFixed(0)} s)`);
  }
  if (r.left > 0) out.push(`${r.left} accepted transfers never included`);
  return out;
}

// ---- entry points -----------------------------------------------------------------------------

/** Runs every mode × invalid fraction on a fresh node each, prints the table, returns the figures. */
export async function benchLoad(partial: Partial<LoadOptions> = {}): Promise<(LoadResult | { mode: string; invalid: number; error: string })[]> {
  const options: LoadOptions = { ...DEFAULT_LOAD_OPTIONS, ...partial };
  console.log(
    `load bench: ${options.sources} sources, ${options.seconds} s per run, modes ${options.modes.join(", ")}, invalid ` +
      `${options.invalid.map(pct).join(", ")}, node on ${options.runtime} (${options.store}) from ${options.nodeDir}`,
  );
  const results: (LoadResult | { mode: string; invalid: number; error: string })[] = [];
  for (const mode of options.modes) {
    for (const invalid of options.invalid) {
      try {
        results.push(await runOnce(options, mode, invalid));
      } catch (e) {
        const error = e instanceof Error ? (e.stack ?? e.message) : String(e);
        console.log(`[${mode}] failed: ${error}`);
        results.push({ mode, invalid, error: e instanceof Error ? e.message : String(e) });
      }
    }
  }
  console.log("");
  printLoadResults(results);
  return results;
}

/** The command line: parses `argv`, runs, sets the exit code (1 on a bad command line or a failed run). */
export async function runLoadCli(argv: readonly string[]): Promise<void> {
  let options: LoadOptions | "help";
  try {
    options = parseLoadArgs(argv);
  } catch (e) {
    console.error(`load bench: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
    return;
  }
  if (options === "help") {
    console.log(USAGE);
    return;
  }
  const results = await benchLoad(options);
  if (results.some((r) => "error" in r)) process.exitCode = 1;
}

// ---- helpers ----------------------------------------------------------------------------------

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** `f` over `items`, at most `limit` at a time, results in order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, f: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

if (isMainModule(import.meta)) await runLoadCli(process.argv.slice(2));
