/**
 * The TCP transport of the runtime running the tests (`platform/net/<runtime>.ts`): byte streams
 * with back-pressure, closing from either side, listeners, connection failures and timeouts,
 * endpoints, the source address, abrupt peers, many connections (descriptors released), and
 * peers in child processes of the other runtimes.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import type { Connection, Listener, Transport } from "../../lib/p2p/transport.ts";
import { type RuntimeName, runtimeName } from "../../platform/current.ts";
import { currentTransport } from "../../platform/net/current.ts";
import { deferred, ROOT, within } from "./process.ts";

const runtime = runtimeName();
const test = suite(`TCP transport of ${runtime}`);
const MiB = 1 << 20;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
let transport: Transport;

/** Rejections and exceptions nobody handled while the suite ran. */
const escaped: unknown[] = [];
const onEscape = (error: unknown) => void escaped.push(error);

test.before(async () => {
  transport = await currentTransport();
  process.on("unhandledRejection", onEscape);
  process.on("uncaughtException", onEscape);
});
test.after(() => {
  process.off("unhandledRejection", onEscape);
  process.off("uncaughtException", onEscape);
});

function randomBytes(n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
  return bytes;
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Writes `bytes` in 64 KiB chunks, counting what the transport took in `progress.taken`. */
async function writeAll(connection: Connection, bytes: Uint8Array, progress = { taken: 0 }): Promise<void> {
  const writer = connection.writable.getWriter();
  try {
    for (let i = 0; i < bytes.length; i += 65536) {
      const chunk = bytes.subarray(i, i + 65536);
      await writer.write(chunk);
      progress.taken += chunk.length;
    }
  } finally {
    writer.releaseLock();
  }
}

/** Reads `n` bytes (fewer if the stream ends first), then releases the reader. */
async function readBytes(connection: Connection, n: number): Promise<Uint8Array> {
  const reader = connection.readable.getReader();
  const out = new Uint8Array(n);
  let got = 0;
  try {
    while (got < n) {
      const { value, done } = await reader.read();
      if (done) break;
      out.set(value.subarray(0, n - got), got);
      got += value.length;
    }
  } finally {
    reader.releaseLock();
  }
  return out.subarray(0, got);
}

/** The next accepted connection of `listener`. */
async function accept(listener: Listener): Promise<Connection> {
  const next = await within(listener.connections[Symbol.asyncIterator]().next(), 5000, "an accepted connection");
  assert.ok(!next.done, "the listener ended");
  return next.value;
}

/** A listener on `host`, a connection to it and its accepted end. */
async function pair(host = "127.0.0.1"): Promise<{ listener: Listener; client: Connection; server: Connection }> {
  const listener = await transport.listen({ host, port: 0 });
  const client = await transport.connect({ host, port: listener.local.port, timeoutMs: 5000 });
  const server = await accept(listener);
  return { listener, client, server };
}

/** Runs `body` with a pair, closing everything afterwards. */
async function withPair(body: (p: { listener: Listener; client: Connection; server: Connection }) => Promise<void>, host?: string): Promise<void> {
  const p = await pair(host);
  try {
    await body(p);
  } finally {
    p.client.close();
    p.server.close();
    await p.listener.close();
    await within(Promise.all([p.client.closed, p.server.closed]), 5000, "both ends closed");
  }
}

/** The result of `reader.read()` on `connection`: done, a chunk, or the error. */
async function readOnce(connection: Connection): Promise<{ done: boolean; error?: unknown }> {
  const reader = connection.readable.getReader();
  try {
    const { done } = await within(reader.read(), 5000, "a read");
    return { done };
  } catch (error) {
    return { done: true, error };
  } finally {
    reader.releaseLock();
  }
}

async function rejects(promise: Promise<unknown>, what: string): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.unreachable(`${what} should have rejected`);
}

function openDescriptors(): number {
  return readdirSync("/proc/self/fd").length;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- Child processes of each runtime ----

const script = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const tools = join(ROOT, ".tools", "node_modules", ".bin");

/** How to run a TypeScript file under `name`, or undefined if that runtime is not installed. */
function runtimeCommand(name: RuntimeName, file: string, args: string[]): [string, string[]] | undefined {
  const here = name === runtime ? process.execPath : undefined;
  switch (name) {
    case "node":
      return [here ?? "node", ["--import", "tsx", file, ...args]];
    case "bun": {
      const bun = here ?? join(tools, "bun");
      return existsSync(bun) ? [bun, [file, ...args]] : undefined;
    }
    case "deno": {
      const deno = here ?? join(tools, "deno");
      return existsSync(deno) ? [deno, ["run", "-A", "--quiet", file, ...args]] : undefined;
    }
  }
}

/** Starts a fixture under `name`; resolves with the child and the port it printed. */
async function startPeer(name: RuntimeName, fixture: string, args: string[] = []): Promise<{ child: ChildProcess; port: number }> {
  const [cmd, argv] = runtimeCommand(name, script(fixture), args)!;
  const child = spawn(cmd, argv, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const port = deferred<number>();
  child.stdout!.on("data", (d) => {
    out += d;
    const m = /port (\d+)/.exec(out);
    if (m) port.resolve(Number(m[1]));
  });
  child.stderr!.on("data", (d) => (err += d));
  child.on("exit", (code) => port.reject(new Error(`${fixture} under ${name} exited (${code}) before listening: ${err}`)));
  child.on("error", (e) => port.reject(e));
  return { child, port: await within(port.promise, 30_000, `${fixture} under ${name} to listen`) };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  child.kill("SIGKILL");
  return exited;
}

// ---- Listening and connecting ----

test("listen on port 0 reports the real port; endpoints of both ends are right (IPv4)", async () => {
  await withPair(async ({ listener, client, server }) => {
    assert.is(listener.local.host, "127.0.0.1");
    assert.ok(listener.local.port > 0 && listener.local.port < 65536);
    assert.equal(client.remote, { host: "127.0.0.1", port: listener.local.port });
    assert.is(client.local.host, "127.0.0.1");
    assert.ok(client.local.port > 0);
    assert.equal(server.remote, client.local);
    assert.equal(server.local, client.remote);
  });
});

test("endpoints of both ends are right over IPv6 (::1)", async () => {
  let listener: Listener;
  try {
    listener = await transport.listen({ host: "::1", port: 0 });
  } catch {
    console.log("  (no IPv6 loopback on this machine: skipped)");
    return;
  }
  await listener.close();
  await withPair(async ({ listener, client, server }) => {
    assert.equal(listener.local.host, "::1");
    assert.equal(client.remote, { host: "::1", port: listener.local.port });
    assert.is(client.local.host, "::1");
    assert.equal(server.remote, client.local);
    assert.equal(server.local, client.remote);
  }, "::1");
});

test("listen on an address in use rejects with EADDRINUSE naming the address", async () => {
  const listener = await transport.listen({ host: "127.0.0.1", port: 0 });
  try {
    const error = (await rejects(transport.listen({ host: "127.0.0.1", port: listener.local.port }), "listen")) as Error & { code?: string };
    assert.is(error.code, "EADDRINUSE");
    assert.match(error.message, `127.0.0.1:${listener.local.port}`);
    assert.match(error.message, "EADDRINUSE");
  } finally {
    await listener.close();
  }
});

test("a listener's close() stops accepting and ends connections; accepted connections stay open", async () => {
  const listener = await transport.listen({ host: "127.0.0.1", port: 0 });
  const client = await transport.connect({ host: "127.0.0.1", port: listener.local.port });
  const iterator = listener.connections[Symbol.asyncIterator]();
  const first = await within(iterator.next(), 5000, "the first connection");
  assert.ok(!first.done);
  const server = first.value;
  const ended = iterator.next();
  await listener.close();
  await listener.close(); // twice: harmless
  assert.ok((await within(ended, 5000, "the end of connections")).done);
  const error = (await rejects(transport.connect({ host: "127.0.0.1", port: listener.local.port, timeoutMs: 2000 }), "connect")) as { code?: string };
  assert.is(error.code, "ECONNREFUSED");
  // The accepted connection still carries bytes both ways.
  await writeAll(client, encoder.encode("ping"));
  assert.is(decoder.decode(await readBytes(server, 4)), "ping");
  await writeAll(server, encoder.encode("pong"));
  assert.is(decoder.decode(await readBytes(client, 4)), "pong");
  client.close();
  server.close();
  await within(Promise.all([client.closed, server.closed]), 5000, "closed");
});

test("connect to a closed port rejects quickly with ECONNREFUSED naming the address", async () => {
  const listener = await transport.listen({ host: "127.0.0.1", port: 0 });
  const port = listener.local.port;
  await listener.close();
  const started = Date.now();
  const error = (await rejects(transport.connect({ host: "127.0.0.1", port, timeoutMs: 10_000 }), "connect")) as Error & { code?: string };
  assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
  assert.is(error.code, "ECONNREFUSED");
  assert.match(error.message, `connect to 127.0.0.1:${port} failed`);
});

test("connect with timeoutMs to a listener that never accepts (full backlog) rejects after about that time", async () => {
  const { child, port } = await startPeer("node", "net-stall.ts");
  const held: Connection[] = [];
  try {
    // The backlog takes the first attempts; the next one gets no answer at all.
    for (let attempt = 0; attempt < 20; attempt++) {
      const started = Date.now();
      try {
        held.push(await transport.connect({ host: "127.0.0.1", port, timeoutMs: 300 }));
      } catch (error) {
        const elapsed = Date.now() - started;
        assert.is((error as { code?: string }).code, "ETIMEDOUT", String(error));
        assert.match((error as Error).message, `127.0.0.1:${port}`);
        assert.ok(elapsed >= 290 && elapsed < 1500, `rejected after ${elapsed} ms`);
        assert.ok(held.length >= 1, "the backlog took no connection");
        return;
      }
    }
    assert.unreachable("every attempt connected");
  } finally {
    for (const c of held) c.close();
    await stop(child);
  }
});

test("localHost: the source address is bound where the runtime can (bindsLocalAddress)", async () => {
  const listener = await transport.listen({ host: "127.0.0.1", port: 0 });
  try {
    const client = await transport.connect({ host: "127.0.0.1", port: listener.local.port, localHost: "127.0.0.2" });
    const server = await accept(listener);
    const expected = transport.bindsLocalAddress ? "127.0.0.2" : "127.0.0.1";
    assert.is(server.remote.host, expected);
    assert.is(client.local.host, expected);
    client.close();
    server.close();
    await within(Promise.all([client.closed, server.closed]), 5000, "closed");
  } finally {
    await listener.close();
  }
  assert.is(transport.bindsLocalAddress, runtime !== "deno");
});

// ---- Byte streams ----

test("16 MiB each way at once arrives intact", async () => {
  const up = randomBytes(16 * MiB);
  const down = randomBytes(16 * MiB);
  await withPair(async ({ client, server }) => {
    const [, , atServer, atClient] = await within(
      Promise.all([writeAll(client, up), writeAll(server, down), readBytes(server, up.length), readBytes(client, down.length)]),
      60_000,
      "the transfers",
    );
    assert.is(atServer.length, up.length);
    assert.is(atClient.length, down.length);
    assert.is(sha256(atServer), sha256(up));
    assert.is(sha256(atClient), sha256(down));
  });
});

test("a reader that does not read makes the writer wait (back-pressure), then everything arrives", async () => {
  const bytes = randomBytes(16 * MiB);
  await withPair(async ({ client, server }) => {
    const progress = { taken: 0 };
    let finished = false;
    const writing = writeAll(client, bytes, progress).then(() => void (finished = true));
    await sleep(500);
    const takenBeforeReading = progress.taken;
    assert.not.ok(finished, "the writer took all 16 MiB with nobody reading");
    assert.ok(takenBeforeReading < 16 * MiB);
    await sleep(300);
    assert.is(progress.taken, takenBeforeReading, "the writer went on with nobody reading");
    const received = await within(readBytes(server, bytes.length), 30_000, "the 16 MiB");
    await within(writing, 5000, "the writer");
    assert.is(sha256(received), sha256(bytes));
    console.log(`  (${runtime}: ${(takenBeforeReading / MiB).toFixed(1)} MiB taken before the reader read)`);
  });
});

// ---- Closing ----

test("close() ends both directions: the peer's reads end, both `closed` resolve, later writes reject, twice is harmless", async () => {
  await withPair(async ({ client, server }) => {
    client.close();
    client.close();
    const read = await readOnce(server);
    assert.ok(read.done);
    await within(Promise.all([client.closed, server.closed]), 5000, "closed");
    await rejects(client.writable.getWriter().write(encoder.encode("late")), "a write after close");
    await rejects(server.writable.getWriter().write(encoder.encode("late")), "a write after the peer's close");
    assert.ok((await readOnce(client)).done);
  });
});

test("a read pending when the connection is closed ends (done)", async () => {
  await withPair(async ({ client }) => {
    const reader = client.readable.getReader();
    const pending = reader.read();
    await sleep(20);
    client.close();
    assert.ok((await within(pending, 5000, "the pending read")).done);
    await within(client.closed, 5000, "closed");
  });
});

test("the peer's close ends our readable (done) and resolves our `closed`", async () => {
  await withPair(async ({ client, server }) => {
    await writeAll(server, encoder.encode("bye"));
    server.close();
    assert.is(decoder.decode(await readBytes(client, 10)), "bye");
    await within(client.closed, 5000, "our closed");
    await rejects(client.writable.getWriter().write(encoder.encode("late")), "a write after the peer's close");
  });
});

test("the peer's half-close (end of its writes) ends our readable", async () => {
  await withPair(async ({ client, server }) => {
    const writer = server.writable.getWriter();
    await writer.write(encoder.encode("last words"));
    await writer.close();
    assert.is(decoder.decode(await readBytes(client, 100)), "last words");
    await within(Promise.all([client.closed, server.closed]), 5000, "closed");
  });
});

test("cancelling the readable closes the connection", async () => {
  await withPair(async ({ client, server }) => {
    await client.readable.cancel();
    await within(client.closed, 5000, "closed");
    assert.ok((await readOnce(server)).done);
    await within(server.closed, 5000, "the peer's closed");
  });
});

test("aborting the writable closes the connection", async () => {
  await withPair(async ({ client, server }) => {
    await client.writable.abort(new Error("enough"));
    await within(client.closed, 5000, "closed");
    assert.ok((await readOnce(server)).done);
    await within(server.closed, 5000, "the peer's closed");
  });
});

test("a peer resetting mid-write: our writes reject, our reads end, nothing escapes", async () => {
  const bytes = randomBytes(16 * MiB);
  await withPair(async ({ client, server }) => {
    const writing = writeAll(client, bytes);
    await readBytes(server, 100_000);
    server.close(); // unread bytes pending: the system resets the connection
    await rejects(within(writing, 10_000, "the writer"), "the writer");
    await readOnce(client);
    await within(client.closed, 5000, "closed");
  });
  await sleep(50);
  assert.equal(escaped, []);
});

// ---- Many connections ----

test("200 concurrent connections, a message each, all closed: descriptors are released", async () => {
  const listener = await transport.listen({ host: "127.0.0.1", port: 0 });
  // Warm up, so that lazily created descriptors (event loop, pools) are counted before.
  await within(
    (async () => {
      const c = await transport.connect({ host: "127.0.0.1", port: listener.local.port });
      const s = await accept(listener);
      c.close();
      s.close();
      await Promise.all([c.closed, s.closed]);
    })(),
    5000,
    "a warm-up connection",
  );
  await sleep(50);
  const before = openDescriptors();
  const count = 200;
  const served: Promise<Connection>[] = [];
  const iterator = listener.connections[Symbol.asyncIterator]();
  const serving = (async () => {
    for (let i = 0; i < count; i++) {
      const next = await iterator.next();
      if (next.done) break;
      const connection = next.value;
      served.push(
        (async () => {
          const message = await readBytes(connection, 9);
          await writeAll(connection, message);
          return connection;
        })(),
      );
    }
  })();
  const clients = await within(
    Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const c = await transport.connect({ host: "127.0.0.1", port: listener.local.port, timeoutMs: 10_000 });
        const message = `msg ${String(i).padStart(5, "0")}`;
        await writeAll(c, encoder.encode(message));
        assert.is(decoder.decode(await readBytes(c, 9)), message);
        return c;
      }),
    ),
    30_000,
    "200 exchanges",
  );
  await serving;
  const servers = await Promise.all(served);
  const peak = openDescriptors();
  assert.ok(peak >= before + 2 * count, `${peak} descriptors open at the peak, ${before} before`);
  for (const c of clients) c.close();
  await within(Promise.all(servers.map((s) => s.closed)), 10_000, "the accepted ends closed by their peers");
  await within(Promise.all(clients.map((c) => c.closed)), 10_000, "the clients closed");
  await listener.close();
  // Allow for the listener's own descriptor and a moment of the runtime's bookkeeping.
  let after = openDescriptors();
  for (let i = 0; i < 20 && after > before; i++) {
    await sleep(50);
    after = openDescriptors();
  }
  assert.ok(after <= before, `${after} descriptors open after, ${before} before (${peak} at the peak)`);
});

// ---- Peers in other processes and runtimes ----

for (const peer of ["node", "deno", "bun"] as const) {
  test(`a peer listening in a child process under ${peer}: 4 MiB echoed intact`, async () => {
    if (runtimeCommand(peer, "", []) === undefined) {
      console.log(`  (${peer} is not installed: skipped)`);
      return;
    }
    const { child, port } = await startPeer(peer, "net-peer.ts", ["echo"]);
    try {
      const bytes = randomBytes(4 * MiB);
      const client = await transport.connect({ host: "127.0.0.1", port, timeoutMs: 5000 });
      const [, echoed] = await within(Promise.all([writeAll(client, bytes), readBytes(client, bytes.length)]), 30_000, "the echo");
      assert.is(sha256(echoed), sha256(bytes));
      client.close();
      await within(client.closed, 5000, "closed");
    } finally {
      await stop(child);
    }
  });
}

test(`a peer process that dies with unread bytes (reset): our writes reject, nothing escapes`, async () => {
  const other = (["node", "deno", "bun"] as const).find((r) => r !== runtime && runtimeCommand(r, "", []) !== undefined);
  const { child, port } = await startPeer(other ?? runtime, "net-peer.ts", ["reset"]);
  try {
    const client = await transport.connect({ host: "127.0.0.1", port, timeoutMs: 5000 });
    const reading = readOnce(client);
    await rejects(within(writeAll(client, randomBytes(16 * MiB)), 20_000, "the writer"), "the writer");
    await reading;
    await within(client.closed, 5000, "closed");
  } finally {
    await stop(child);
  }
  await sleep(50);
  assert.equal(escaped, []);
});

test.run();
