/**
 * Helpers of the pool tests: pools on loopback addresses of their own (127.0.0.N where the
 * runtime binds the source address of outgoing connections; 127.0.0.1 on Deno, which cannot), an
 * event recorder, waiting for a condition with a generous cap, raw TCP peers.
 */
import process from "node:process";
import { suite, type Test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readdirSync } from "node:fs";
import type { P2pEvent, P2pPool, ConnectionLimits, PoolOptions } from "../../lib/p2p/pool/api.ts";
import { createPool } from "../../lib/p2p/pool/mod.ts";
import type { PoolTuning } from "../../lib/p2p/pool/limits.ts";
import { generateIdentity, type Identity } from "../../lib/p2p/identity.ts";
import type { Connection, Transport } from "../../lib/p2p/transport.ts";
import { currentTransport } from "../../platform/net/current.ts";
import { TezosError } from "../../lib/errors/registry.ts";

export const CHAIN = "SANDBOXED_TEZOS";

let transportPromise: Promise<Transport> | undefined;
/** The runtime's TCP. */
export function transport(): Promise<Transport> {
  return (transportPromise ??= currentTransport());
}

/** The loopback address pool `n` uses (127.0.0.1 on a runtime that cannot bind the source address). */
export async function hostOf(n: number): Promise<string> {
  return (await transport()).bindsLocalAddress ? `127.0.0.${n}` : "127.0.0.1";
}

/** Limits for tests: small numbers, the given timeouts. */
export function limits(min: number, expected: number, max: number, extra: Partial<ConnectionLimits> = {}): ConnectionLimits {
  return {
    minConnections: min,
    expectedConnections: expected,
    maxConnections: max,
    maxIncomingConnections: 20,
    connectionTimeoutMs: 5_000,
    authenticationTimeoutMs: 5_000,
    ...extra,
  };
}

/** Fast settings for tests (Octez's defaults otherwise). */
export const FAST: Partial<PoolTuning> = {
  timeBetweenLookingForPeersMs: 100,
  reconnection: { factor: 1.2, initialDelayMs: 100, disconnectionDelayMs: 300, increaseCapMs: 1_000 },
};

/** A pool of the test and what it logged. */
export interface TestPool {
  readonly pool: P2pPool;
  readonly identity: Identity;
  readonly host: string;
  /** Its listening point text (after start). */
  point: string;
  readonly events: P2pEvent[];
  readonly lines: string[];
  readonly stop: AbortController;
}

const open: TestPool[] = [];

/** A pool listening on 127.0.0.`n` (port chosen by the system), started, its events recorded. */
export async function startPool(
  n: number,
  options: { limits?: ConnectionLimits; privateMode?: boolean; tuning?: Partial<PoolTuning>; bootstrapPeers?: string[]; listen?: boolean } = {},
): Promise<TestPool> {
  const host = await hostOf(n);
  const port = await freePort(host);
  const identity = await generateIdentity(0);
  const lines: string[] = [];
  const poolOptions: PoolOptions = {
    transport: await transport(),
    identity,
    chainName: CHAIN,
    expectedPow: 0,
    bootstrapPeers: options.bootstrapPeers ?? [],
    privateMode: options.privateMode ?? false,
    limits: options.limits ?? limits(0, 1, 2),
    log: (line) => lines.push(line),
    ...(options.listen === false ? {} : { listen: { host, port } }),
  };
  const pool = await createPool(poolOptions, { ...FAST, ...options.tuning });
  const stop = new AbortController();
  const events: P2pEvent[] = [];
  const t: TestPool = { pool, identity, host, point: "", events, lines, stop };
  void (async () => {
    for await (const e of pool.events(stop.signal)) events.push(e);
  })();
  await pool.start();
  t.point = `${host}:${port}`;
  open.push(t);
  return t;
}

/** A port free on `host` now (the system's choice for a listener opened and closed at once). */
export async function freePort(host: string): Promise<number> {
  const l = await (await transport()).listen({ host, port: 0 });
  const port = l.local.port;
  await l.close();
  return port;
}

/** Closes every pool opened by {@link startPool} (test teardown). */
export async function closeAll(): Promise<void> {
  const all = open.splice(0);
  await Promise.all(all.map(async (t) => {
    await t.pool.close();
    t.stop.abort();
  }));
}

/** Waits until `cond()` holds, polling; fails after `capMs` (a cap, not a timing). */
export async function until(cond: () => boolean, what: string, capMs = 20_000): Promise<void> {
  const end = Date.now() + capMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The error a promise rejects with (fails if it resolves). */
export async function rejection(p: Promise<unknown>, what: string): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error(`${what} should have failed`);
}

/** The JSON of a TezosError's first item. */
export function firstError(e: unknown): Record<string, unknown> {
  if (!(e instanceof TezosError)) throw new Error(`not a TezosError: ${e instanceof Error ? e.stack : String(e)}`);
  return e.trace[0]!.toJson() as Record<string, unknown>;
}

/** A raw TCP connection from 127.0.0.`n` (where the runtime can choose). */
export async function rawConnect(n: number, to: string): Promise<Connection> {
  const t = await transport();
  const colon = to.lastIndexOf(":");
  return t.connect({ host: to.slice(0, colon), port: Number(to.slice(colon + 1)), ...(t.bindsLocalAddress ? { localHost: `127.0.0.${n}` } : {}) });
}

/** The first bytes the other side sends, or `undefined` if it closes first. */
export async function firstBytes(connection: Connection): Promise<Uint8Array | undefined> {
  const reader = connection.readable.getReader();
  try {
    const { value, done } = await reader.read();
    return done ? undefined : value;
  } catch {
    return undefined;
  } finally {
    reader.releaseLock();
  }
}

/** Open file descriptors of this process (Linux), or `undefined`. */
export function openDescriptors(): number | undefined {
  return existsSync("/proc/self/fd") ? readdirSync("/proc/self/fd").length : undefined;
}

/**
 * A uvu suite of pool tests: fails if a rejection or exception escapes while it runs, and (unless
 * `closeEach` is false) closes the pools of {@link startPool} after each test.
 */
export function poolSuite(name: string, options: { closeEach?: boolean } = {}): Test {
  const test = suite(name);
  let escapes: ReturnType<typeof watchEscapes>;
  test.before(() => void (escapes = watchEscapes()));
  if (options.closeEach !== false) test.after.each(closeAll);
  test.after(() => {
    escapes.stop();
    assert.equal(escapes.escaped.map(String), [], "nothing escaped");
  });
  return test;
}

/** Rejections and exceptions nobody handled while a suite ran. */
export function watchEscapes(): { escaped: unknown[]; stop(): void } {
  const escaped: unknown[] = [];
  const on = (e: unknown) => void escaped.push(e);
  process.on("unhandledRejection", on);
  process.on("uncaughtException", on);
  return {
    escaped,
    stop() {
      process.off("unhandledRejection", on);
      process.off("uncaughtException", on);
    },
  };
}

/** The event variant whose `event` names include `E`. */
type EventOf<E extends P2pEvent["event"]> = P2pEvent extends infer V ? V extends { event: infer K } ? E extends K ? V & { event: E } : never : never : never;

/** The events of a kind. */
export function eventsOf<E extends P2pEvent["event"]>(t: TestPool, event: E): EventOf<E>[] {
  return t.events.filter((e) => e.event === event) as EventOf<E>[];
}

/** Reads and drops everything until the other side ends the connection. */
export async function drainUntilClosed(connection: Connection): Promise<void> {
  const reader = connection.readable.getReader();
  try {
    for (;;) if ((await reader.read()).done) break;
  } catch {
    // reset: closed too
  } finally {
    reader.releaseLock();
  }
  await connection.closed;
}
