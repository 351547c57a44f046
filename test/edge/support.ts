/**
 * The edge suite's worker: `dist/edge/worker.js` in miniflare's workerd, its node's Durable Object
 * bound as `examples/edge/wrangler.toml` binds it (or not), and the sandbox's keys for signing in the test (bootstrap1 of Octez's sandbox, signed here with
 * noble's ed25519, not the node's code).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { ed25519 } from "@noble/curves/ed25519.js";
import { blake2b } from "@noble/hashes/blake2.js";
import bs58check from "bs58check";

const DIST = fileURLToPath(new URL("../../dist/edge/", import.meta.url));

/** What `examples/edge/wrangler.toml` sets that miniflare needs: the compatibility date and the object's binding. */
const EXAMPLE = readFileSync(new URL("../../examples/edge/wrangler.toml", import.meta.url), "utf8");

function setting(pattern: RegExp): string {
  const m = pattern.exec(EXAMPLE);
  if (m === null) throw new Error(`examples/edge/wrangler.toml: no ${pattern.source}`);
  return m[1]!;
}

/** The compatibility date of `examples/edge/wrangler.toml`. */
export const COMPATIBILITY_DATE = setting(/^compatibility_date = "([^"]+)"$/m);
const BINDING = setting(/^\[\[durable_objects\.bindings\]\]\nname = "([^"]+)"$/m);
const OBJECT_CLASS = setting(/^\[\[durable_objects\.bindings\]\]\nname = "[^"]+"\nclass_name = "([^"]+)"$/m);

/** A running worker: requests through miniflare's `dispatchFetch`. */
export class EdgeWorker {
  private readonly mf: Miniflare;

  private constructor(mf: Miniflare) {
    this.mf = mf;
  }

  /** Starts the bundle as `examples/edge/wrangler.toml` deploys it (without the node's object when `bound` is false). */
  static async start(bound = true): Promise<EdgeWorker> {
    const mf = new Miniflare({
      modules: true,
      modulesRoot: DIST,
      scriptPath: `${DIST}worker.js`,
      modulesRules: [
        { type: "ESModule", include: ["**/*.js"] },
        { type: "Data", include: ["**/*.bin.gz"] },
      ],
      compatibilityDate: COMPATIBILITY_DATE,
      ...(bound ? { durableObjects: { [BINDING]: OBJECT_CLASS } } : {}),
    });
    await mf.ready;
    return new EdgeWorker(mf);
  }

  /** The answer to one request at `path`. */
  async fetch(path: string, init?: { method?: string; body?: string; headers?: Record<string, string> }): Promise<Response> {
    return (await this.mf.dispatchFetch(`http://node${path}`, init)) as unknown as Response;
  }

  /** The JSON answer at `path`, failing on any status but 200. */
  async json<T = unknown>(path: string, init?: { method?: string; body?: unknown }): Promise<T> {
    const body = init?.body === undefined ? undefined : JSON.stringify(init.body);
    const res = await this.fetch(path, { method: init?.method ?? "GET", body, headers: body === undefined ? {} : { "content-type": "application/json" } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${init?.method ?? "GET"} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** Stops workerd. */
  async close(): Promise<void> {
    await this.mf.dispose();
  }
}

/** Octez's sandbox genesis block and chain id, and the two protocols a sandbox node embeds. */
export const GENESIS_BLOCK = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";
export const SANDBOX_CHAIN_ID = "NetXdQprcVkpaWU";
export const GENESIS_PROTOCOL = "ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im";
export const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";

/** bootstrap1 of Octez's sandbox (its key as `src/bin_client/tezos-init-sandboxed-client.sh` imports it). */
export const BOOTSTRAP1 = { pkh: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", sk: "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh" };

const PREFIX = {
  edsk: [13, 15, 58, 7],
  tz1: [6, 161, 159],
  operation: [5, 116],
  protocol: [2, 170],
} as const;

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function b58(prefix: readonly number[], bytes: Uint8Array): string {
  return bs58check.encode(concat(Uint8Array.from(prefix), bytes));
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** The ed25519 seed of an `edsk` secret key (its 32-byte form). */
export function seedOf(edsk: string): Uint8Array {
  const raw = bs58check.decode(edsk);
  if (raw.length !== 36 || PREFIX.edsk.some((b, i) => raw[i] !== b)) throw new Error("not a 32-byte edsk key");
  return raw.slice(4);
}

/** The tz1 address of an ed25519 seed. */
export function tz1Of(seed: Uint8Array): string {
  return b58(PREFIX.tz1, blake2b(ed25519.getPublicKey(seed), { dkLen: 20 }));
}

/** A forged operation signed with `seed` (watermark 3, generic operation): its hex and its hash. */
export function signOperation(forgedHex: string, seed: Uint8Array): { signed: string; hash: string } {
  const bytes = Uint8Array.from(Buffer.from(forgedHex, "hex"));
  const signature = ed25519.sign(blake2b(concat(Uint8Array.of(3), bytes), { dkLen: 32 }), seed);
  const signed = concat(bytes, signature);
  return { signed: hex(signed), hash: b58(PREFIX.operation, blake2b(signed, { dkLen: 32 })) };
}

/** The protocol hash of a binary protocol record (the hash of its bytes, as Octez's `Protocol.hash`). */
export function protocolHashOf(record: Uint8Array): string {
  return b58(PREFIX.protocol, blake2b(record, { dkLen: 32 }));
}

/**
 * Reads one newline-ended JSON value after another from a streamed answer; a value that has not
 * come in `guardMs` fails (a held-back stream would otherwise leave nothing for the process to
 * wait on, and it would end without uvu's summary).
 */
export function jsonLines(body: ReadableStream<Uint8Array>, guardMs = 10_000): { next(): Promise<unknown>; cancel(): Promise<void> } {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const read = async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const guard = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no line of the stream within ${guardMs} ms`)), guardMs);
    });
    try {
      return await Promise.race([reader.read(), guard]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    async next() {
      while (!text.includes("\n")) {
        const { value, done } = await read();
        if (done) throw new Error("the stream ended");
        text += decoder.decode(value, { stream: true });
      }
      const at = text.indexOf("\n");
      const line = text.slice(0, at);
      text = text.slice(at + 1);
      return JSON.parse(line);
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}
