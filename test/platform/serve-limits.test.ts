/**
 * What each runtime's `serve()` puts up with from hostile clients ({@link ServeLimits}), tried
 * through raw `node:net` sockets as an attacker would, each check ending with the server still
 * serving: a request without `Host` (HTTP/1.0), a slowloris client, more connections than the
 * cap, an idle kept-alive connection, a silent stream past the idle timeout, more streams than
 * the cap, over-long URLs and header sections.
 *
 * The adapter of the runtime running the tests is tried in process; under Node, Bun's and Deno's
 * (`.tools/`) are also tried in child processes (`fixtures/serve-limits.ts`), since `npx tsx
 * test/all.ts` is the run that sees all three (under Bun or Deno, the in-process run is that
 * runtime's). Limits are small (20 connections, 3 streams, 1 s timeouts, 2 KiB URLs) and only
 * bounds are asserted on time, with wide margins: a close must come before a deadline, never at
 * an exact time.
 */
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { currentServe, runtimeName } from "../../platform/current.ts";
import type { ServeLimits } from "../../platform/serve.ts";
import { FIRST_CHUNK, limitsApp } from "./fixtures/limits-app.ts";
import { ROOT, tool, within } from "./process.ts";

/** The limits of most checks. */
const LIMITS: ServeLimits = { headersTimeout: 1000, idleTimeout: 1000, maxConnections: 20, maxStreams: 3, maxUrlLength: 2048 };

/** A server under test, in this process or in a child. */
interface Running {
  readonly port: number;
  /** Closes the server (and ends its process); returns what the child wrote on stderr. */
  stop(): Promise<string>;
}

/** A runtime's `serve()`, and how long it takes at most to drop a client still sending its head. */
interface Target {
  readonly name: string;
  /** Bun drops it after a fixed 10 s or so, whatever `headersTimeout` says. */
  readonly headersDeadline: number;
  start(limits: ServeLimits): Promise<Running>;
}

const inProcess: Target = {
  name: `${runtimeName()} (in process)`,
  headersDeadline: runtimeName() === "bun" ? 30_000 : 15_000,
  async start(limits) {
    const serve = await currentServe();
    const server = await serve(limitsApp, { hostname: "127.0.0.1", port: 0, ...limits });
    return {
      port: server.port,
      stop: async () => {
        await within(server.close(), 10_000, "server.close()");
        return "";
      },
    };
  },
};

const FIXTURE = fileURLToPath(new URL("./fixtures/serve-limits.ts", import.meta.url));

/** `serve()` of `runtime`, in a child process of that runtime. */
function child(runtime: "bun" | "deno", binary: string): Target {
  return {
    name: `${runtime} (child process)`,
    headersDeadline: runtime === "bun" ? 30_000 : 15_000,
    async start(limits) {
      const args = runtime === "deno" ? ["run", "-A", "--quiet", FIXTURE, JSON.stringify(limits)] : [FIXTURE, JSON.stringify(limits)];
      const proc: ChildProcess = spawn(binary, args, { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      proc.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
      proc.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
      const exited = new Promise<void>((resolve) => proc.on("close", () => resolve()));
      const listening = new Promise<number>((resolve, reject) => {
        const check = () => {
          const match = /listening (\d+)/.exec(stdout);
          if (match) resolve(Number(match[1]));
        };
        proc.stdout!.on("data", check);
        exited.then(() => reject(new Error(`${runtime} exited before listening:\n${stderr}`)));
      });
      let port: number;
      try {
        port = await within(listening, 30_000, `${runtime} to listen`);
      } catch (error) {
        proc.kill("SIGKILL");
        throw error;
      }
      return {
        port,
        async stop() {
          proc.stdin!.end();
          try {
            await within(exited, 10_000, `${runtime} to exit`);
          } catch (error) {
            proc.kill("SIGKILL");
            throw error;
          }
          return stderr;
        },
      };
    },
  };
}

const targets: Target[] = [inProcess];
if (runtimeName() === "node") {
  for (const runtime of ["bun", "deno"] as const) {
    const binary = tool(runtime);
    if (binary === undefined) console.log(`Notice: .tools/node_modules/.bin/${runtime} is absent (.ci/run installs it): ${runtime}'s serve() limits are not tested here.`);
    else targets.push(child(runtime, binary));
  }
}

/** A raw client connection: what it received (latin1, one character a byte) and whether it is closed. */
class Client {
  readonly socket: net.Socket;
  data = "";
  isClosed = false;
  readonly closed: Promise<void>;
  private readonly waiters = new Set<() => void>();

  constructor(port: number) {
    this.socket = net.connect(port, "127.0.0.1");
    this.socket.setEncoding("latin1");
    this.socket.on("data", (text: string) => {
      this.data += text;
      this.wake();
    });
    // A reset is a way to be closed too.
    this.socket.on("error", () => {});
    this.closed = new Promise((resolve) =>
      this.socket.on("close", () => {
        this.isClosed = true;
        this.wake();
        resolve();
      }),
    );
  }

  write(text: string): void {
    if (!this.socket.destroyed) this.socket.write(text, "latin1");
  }

  /** Resolves once `done(data)` holds, or the connection is closed; rejects after `ms`. */
  until(done: (data: string) => boolean, ms: number, what: string): Promise<string> {
    const reached = new Promise<string>((resolve) => {
      const check = () => {
        if (done(this.data) || this.isClosed) {
          this.waiters.delete(check);
          resolve(this.data);
        }
      };
      this.waiters.add(check);
      check();
    });
    return within(reached, ms, what);
  }

  /** Resolves once the server has closed the connection; rejects after `ms`. */
  untilClosed(ms: number, what: string): Promise<void> {
    return within(this.closed, ms, what);
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** The status code of a response's first line. */
function statusOf(data: string): number | undefined {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(data);
  return match === null ? undefined : Number(match[1]);
}

/** The head (lower-cased) and body of a response, once its head is in. */
function split(data: string): { head: string; body: string } | undefined {
  const end = data.indexOf("\r\n\r\n");
  return end < 0 ? undefined : { head: data.slice(0, end).toLowerCase(), body: data.slice(end + 4) };
}

/** Whether a response with `content-length` is in whole. */
function whole(data: string): boolean {
  const parts = split(data);
  if (parts === undefined) return false;
  const length = /\r\ncontent-length: *(\d+)/.exec(parts.head);
  return length !== null && parts.body.length >= Number(length[1]);
}

/** Whether a chunked response has brought its first chunk, `FIRST_CHUNK`. */
function firstChunk(data: string): boolean {
  return split(data)?.body.includes(FIRST_CHUNK) ?? false;
}

/** One request on a connection of its own; the response once whole (or the connection closed). */
async function exchange(port: number, raw: string, ms = 10_000): Promise<string> {
  const client = new Client(port);
  try {
    client.write(raw);
    return await client.until(whole, ms, `the answer to ${JSON.stringify(raw.slice(0, 40))}`);
  } finally {
    client.destroy();
  }
}

/** The body of `GET <path>` on a fresh connection, asserting a 200. */
async function get(port: number, path = "/ok"): Promise<string> {
  const response = await exchange(port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
  assert.is(statusOf(response), 200, `GET ${path}: ${response.slice(0, 200)}`);
  return split(response)!.body;
}

/** `GET <path>` answers 200, once the server has caught up (it may still count what was just closed). */
async function servesAgain(port: number, path: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const client = new Client(port);
    client.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    const data = await client.until(path === "/stream" ? firstChunk : whole, 10_000, `GET ${path}`).catch(() => "");
    client.destroy();
    if (statusOf(data) === 200) return;
    if (Date.now() > deadline) assert.unreachable(`GET ${path} still not served: ${data.slice(0, 200)}`);
    await sleep(100);
  }
}

/** A request for the endless stream, on a connection of its own, once its first chunk is in. */
async function openStream(port: number): Promise<Client> {
  const client = new Client(port);
  client.write(`GET /stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  const data = await client.until(firstChunk, 10_000, "the stream's first chunk");
  assert.is(statusOf(data), 200, data.slice(0, 200));
  return client;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs `body` against a server of `target` with `limits`; the server's stderr must show no error. */
async function withServer(target: Target, limits: ServeLimits, body: (port: number) => Promise<void>): Promise<void> {
  const running = await target.start(limits);
  let stderr = "";
  try {
    await body(running.port);
  } finally {
    stderr = await running.stop();
  }
  assert.not.match(stderr, /Error|\n\s+at /, `the server wrote an error:\n${stderr}`);
}

for (const target of targets) {
  const test = suite(`serve() limits of ${target.name}`);

  test("an HTTP/1.0 request without Host gets 200 and the body, with the listening address as host, and nothing logged", async () => {
    const errors: unknown[] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      await withServer(target, LIMITS, async (port) => {
        const client = new Client(port);
        client.write("GET /no/host?x=1 HTTP/1.0\r\n\r\n");
        await client.untilClosed(10_000, "the HTTP/1.0 answer to end with the connection");
        assert.is(statusOf(client.data), 200, client.data.slice(0, 200));
        assert.is(split(client.data)!.body, `ok http://127.0.0.1:${port}/no/host?x=1`);
        // and again, the server still serving
        assert.is(await get(port), `ok http://127.0.0.1:${port}/ok`);
      });
    } finally {
      console.error = consoleError;
    }
    assert.equal(errors, []);
  });

  test("a slowloris client (a byte of its head every 200 ms) is closed after the headers timeout while a normal client is served", async () => {
    await withServer(target, LIMITS, async (port) => {
      const slow = new Client(port);
      const head = `GET /slow HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: ${"a".repeat(100_000)}`;
      let sent = 0;
      const drip = setInterval(() => slow.write(head[sent++]!), 200);
      try {
        await sleep(300);
        assert.is(await get(port, "/normal"), `ok http://127.0.0.1:${port}/normal`);
        await slow.untilClosed(target.headersDeadline, "the slowloris client to be closed");
        assert.ok(statusOf(slow.data) === undefined || statusOf(slow.data)! >= 400, slow.data.slice(0, 200));
      } finally {
        clearInterval(drip);
        slow.destroy();
      }
      assert.is(await get(port), `ok http://127.0.0.1:${port}/ok`);
    });
  });

  test("connections over the cap are refused or closed, and the node serves again once they are closed", async () => {
    await withServer(target, { ...LIMITS, maxStreams: 100 }, async (port) => {
      const held: Client[] = [];
      const extra: Client[] = [];
      try {
        // 20 connections, each busy with a stream (an idle one would be closed by the timeouts).
        for (let i = 0; i < 20; i++) held.push(await openStream(port));
        for (let i = 0; i < 5; i++) {
          const client = new Client(port);
          client.write(`GET /stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
          extra.push(client);
        }
        for (const client of extra) {
          await client.untilClosed(10_000, "a connection over the cap to be closed");
          // closed at once (Node), or after a 503 (Deno, Bun)
          assert.ok(client.data === "" || statusOf(client.data) === 503, client.data.slice(0, 200));
          if (client.data !== "") assert.match(split(client.data)!.body, /"Too many connections"/);
        }
        for (const client of held) assert.not.ok(client.isClosed, "a connection within the cap was closed");
      } finally {
        for (const client of [...held, ...extra]) client.destroy();
      }
      await servesAgain(port, "/ok");
    });
  });

  test("an idle kept-alive connection is closed after the idle timeout", async () => {
    await withServer(target, LIMITS, async (port) => {
      const client = new Client(port);
      try {
        client.write(`GET /idle HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
        const data = await client.until(whole, 10_000, "the answer");
        assert.is(statusOf(data), 200, data.slice(0, 200));
        // Bun counts its idle timeout in steps of a few seconds.
        await client.untilClosed(20_000, "the idle connection to be closed");
      } finally {
        client.destroy();
      }
      assert.is(await get(port), `ok http://127.0.0.1:${port}/ok`);
    });
  });

  test("a silent streaming response stays open past the idle timeout", async () => {
    await withServer(target, LIMITS, async (port) => {
      const stream = await openStream(port);
      try {
        // Several idle timeouts (and more than Bun's few-second steps).
        await sleep(6000);
        assert.not.ok(stream.isClosed, "the stream was closed");
        // it is still the same answer, waiting for its next chunk
        assert.is(split(stream.data)!.body.split(FIRST_CHUNK).length, 2);
      } finally {
        stream.destroy();
      }
      assert.is(await get(port), `ok http://127.0.0.1:${port}/ok`);
    });
  });

  test("streams over the cap get a 503 with an Octez error list, and a stream closed frees its place", async () => {
    await withServer(target, LIMITS, async (port) => {
      const streams: Client[] = [];
      try {
        for (let i = 0; i < 3; i++) streams.push(await openStream(port));
        const refused = await exchange(port, `GET /stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
        assert.is(statusOf(refused), 503, refused.slice(0, 200));
        const { head, body } = split(refused)!;
        assert.match(head, /\r\ncontent-type: application\/json/);
        assert.equal(JSON.parse(body), [{ kind: "temporary", id: "failure", msg: "Too many open streams" }]);
        // a static answer is no stream: served as ever
        assert.is(await get(port), `ok http://127.0.0.1:${port}/ok`);
        streams.shift()!.destroy();
        await servesAgain(port, "/stream");
      } finally {
        for (const stream of streams) stream.destroy();
      }
    });
  });

  test("an over-long URL gets 414, an enormous URL or header section 414, 431 or 400, and the server still serves", async () => {
    await withServer(target, LIMITS, async (port) => {
      const long = await exchange(port, `GET /${"a".repeat(3000)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      assert.is(statusOf(long), 414, long.slice(0, 200));
      const enormous = {
        "a 200 KB URL": `GET /${"a".repeat(200_000)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
        "a 200 KB header": `GET /ok HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Big: ${"a".repeat(200_000)}\r\n\r\n`,
        "10 000 header lines": `GET /ok HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${"X-Many: a\r\n".repeat(10_000)}\r\n`,
      };
      for (const [what, head] of Object.entries(enormous)) {
        const client = new Client(port);
        try {
          client.write(head);
          const data = await client.until((d) => split(d) !== undefined, 10_000, `the answer to ${what}`);
          assert.ok([414, 431, 400].includes(statusOf(data)!), `${what}: ${data.slice(0, 200)}`);
        } finally {
          client.destroy();
        }
      }
      const fine = `/${"b".repeat(2000)}`;
      assert.is(await get(port, fine), `ok http://127.0.0.1:${port}${fine}`);
    });
  });

  test.run();
}
