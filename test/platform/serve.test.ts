/**
 * The HTTP adapter of the runtime running the tests (Node, Deno or Bun) serving a small handler
 * on a loopback port chosen by the system.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { currentServe, runtimeName } from "../../platform/current.ts";
import type { FetchHandler, HttpServer } from "../../platform/serve.ts";
import { deferred, within } from "./process.ts";

const test = suite(`serve() of ${runtimeName()}`);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function withServer(handler: FetchHandler, body: (server: HttpServer) => Promise<void>): Promise<void> {
  const serve = await currentServe();
  const server = await serve(handler, { hostname: "127.0.0.1", port: 0 });
  try {
    await body(server);
  } finally {
    await within(server.close(), 10_000, "server.close()");
  }
}

test("serve() binds a free port when asked for port 0 and reports it in its url", async () => {
  await withServer(() => new Response("ok"), async (server) => {
    assert.ok(server.port > 0 && server.port < 65536);
    assert.is(server.url, `http://127.0.0.1:${server.port}`);
    assert.is(server.hostname, "127.0.0.1");
  });
});

test("a GET reaches the handler with its path, query and headers and gets status, headers and body back", async () => {
  const seen: string[] = [];
  await withServer(
    (request) => {
      seen.push(request.method, new URL(request.url).pathname, new URL(request.url).search, request.headers.get("accept") ?? "");
      return new Response('"BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2"\n', {
        status: 200,
        headers: { "content-type": "application/json", "x-test": "yes" },
      });
    },
    async (server) => {
      const res = await fetch(`${server.url}/chains/main/blocks/genesis/hash?x=1`, { headers: { accept: "application/json" } });
      assert.is(res.status, 200);
      assert.is(res.headers.get("content-type"), "application/json");
      assert.is(res.headers.get("x-test"), "yes");
      assert.is(await res.text(), '"BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2"\n');
    },
  );
  assert.equal(seen, ["GET", "/chains/main/blocks/genesis/hash", "?x=1", "application/json"]);
});

test("a POST body of 1 MiB arrives whole", async () => {
  const sent = new Uint8Array(1 << 20).map((_, i) => (i * 7) & 0xff);
  await withServer(
    async (request) => {
      const got = new Uint8Array(await request.arrayBuffer());
      const same = got.length === sent.length && got.every((b, i) => b === sent[i]);
      return Response.json({ length: got.length, same, type: request.headers.get("content-type") });
    },
    async (server) => {
      const res = await fetch(`${server.url}/injection/operation`, {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
        body: sent,
      });
      assert.equal(await res.json(), { length: 1 << 20, same: true, type: "application/octet-stream" });
    },
  );
});

test("a streamed response reaches the client chunk by chunk, before the stream ends", async () => {
  const firstReceived = deferred<void>();
  await withServer(
    () =>
      new Response(
        new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(encoder.encode('{"level":1}\n'));
            // The second chunk exists only once the client has read the first.
            await firstReceived.promise;
            controller.enqueue(encoder.encode('{"level":2}\n'));
            controller.close();
          },
        }),
        { headers: { "content-type": "application/json" } },
      ),
    async (server) => {
      const res = await fetch(`${server.url}/monitor/heads/main`);
      const reader = res.body!.getReader();
      const first = await within(reader.read(), 10_000, "the first chunk");
      assert.is(decoder.decode(first.value), '{"level":1}\n');
      firstReceived.resolve();
      const second = await within(reader.read(), 10_000, "the second chunk");
      assert.is(decoder.decode(second.value), '{"level":2}\n');
      assert.is((await reader.read()).done, true);
    },
  );
});

test("a client that goes away aborts request.signal and cancels the producer", async () => {
  const aborted = deferred<void>();
  const cancelled = deferred<void>();
  let produced = 0;
  await withServer(
    (request) => {
      request.signal.addEventListener("abort", () => aborted.resolve());
      return new Response(
        new ReadableStream<Uint8Array>({
          async pull(controller) {
            await new Promise((r) => setTimeout(r, 1));
            controller.enqueue(encoder.encode(`${JSON.stringify({ n: ++produced })}\n`));
          },
          cancel() {
            cancelled.resolve();
          },
        }),
      );
    },
    async (server) => {
      const client = new AbortController();
      const res = await fetch(`${server.url}/monitor/heads/main`, { signal: client.signal });
      const reader = res.body!.getReader();
      const first = await within(reader.read(), 10_000, "the first chunk");
      assert.match(decoder.decode(first.value), /^\{"n":1\}\n/);
      client.abort();
      await within(aborted.promise, 10_000, "request.signal to abort");
      // A cancelled stream is never pulled again: the producer has stopped.
      await within(cancelled.promise, 10_000, "the stream to be cancelled");
      assert.ok(produced >= 1);
    },
  );
});

test("a handler that throws gives a 500, and the server keeps serving", async () => {
  const errors = console.error;
  console.error = () => {};
  try {
    await withServer(
      (request) => {
        if (request.url.endsWith("/boom")) throw new Error("boom");
        return new Response("fine");
      },
      async (server) => {
        const res = await fetch(`${server.url}/boom`);
        assert.is(res.status, 500);
        await res.arrayBuffer();
        assert.is(await (await fetch(`${server.url}/ok`)).text(), "fine");
      },
    );
  } finally {
    console.error = errors;
  }
});

test("close() ends an endless stream, aborting its request.signal, and frees the port", async () => {
  const serve = await currentServe();
  const aborted = deferred<void>();
  const server = await serve(
    (request) => {
      request.signal.addEventListener("abort", () => aborted.resolve());
      return new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode("[]\n"));
          },
        }),
      );
    },
    { hostname: "127.0.0.1", port: 0 },
  );
  const res = await fetch(`${server.url}/monitor/valid_blocks`);
  const reader = res.body!.getReader();
  assert.is(decoder.decode((await within(reader.read(), 10_000, "the first chunk")).value), "[]\n");
  await within(server.close(), 10_000, "server.close() with an open stream");
  await within(aborted.promise, 10_000, "request.signal to abort on close");
  const end = await within(reader.read().then(() => "ended", () => "ended"), 10_000, "the client to see the end");
  assert.is(end, "ended");
  // The port is free again: a new server binds it.
  const again = await serve(() => new Response("again"), { hostname: "127.0.0.1", port: server.port });
  assert.is(await (await fetch(`${again.url}/`)).text(), "again");
  await again.close();
});

test("serve() rejects when the port is taken", async () => {
  await withServer(() => new Response("first"), async (server) => {
    const serve = await currentServe();
    let failed: unknown;
    try {
      const second = await serve(() => new Response("second"), { hostname: "127.0.0.1", port: server.port });
      await second.close();
    } catch (error) {
      failed = error;
    }
    assert.instance(failed, Error);
  });
});

test.run();
