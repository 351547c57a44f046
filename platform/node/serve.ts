/**
 * Serves a fetch handler under Node through `@hono/node-server`: it builds the `Request` lazily
 * (only what the handler reads), writes string and byte bodies without a stream, pipes stream
 * bodies chunk by chunk with back-pressure, cancels them and aborts `request.signal` when the
 * client goes away.
 *
 * The limits ({@link ServeLimits}) are `node:http`'s own settings (`headersTimeout`,
 * `keepAliveTimeout`, `maxConnections`, `maxHeaderSize`), plus two checks here: the URL length
 * before the handler, and the number of open streaming responses after it. A request without
 * `Host` (HTTP/1.0) is served with the listening address as its host.
 *
 * Note: `@hono/node-server` replaces the global `Request` and `Response` with its light,
 * compatible classes (its default); that is where its speed comes from.
 *
 * The package's `tezos-node-ts/serve/node` (under Node only; elsewhere `serve` rejects with a
 * TypeError saying so).
 * @example
 * ```ts
 * import { createNode } from "tezos-node-ts";
 * import { serve } from "tezos-node-ts/serve/node";
 * const node = await createNode();
 * const server = await serve((request) => node.fetch(request), { hostname: "127.0.0.1", port: 0 });
 * const res = await fetch(`${server.url}/chains/main/blocks/head/header`); // port 0: a free port
 * console.log((await res.json()).level); // 3
 * await server.close(); // ends open streams too
 * await node.close();
 * ```
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener, type Http2Bindings, type HttpBindings, RequestError } from "@hono/node-server";
import {
  type FetchHandler,
  type HttpServer,
  type ServeLimits,
  type ServeOptions,
  httpAuthority,
  httpUrl,
  internalError,
  serveLimits,
  tooManyStreams,
} from "../serve.ts";

/** Room for the header fields beyond the request line in `node:http`'s `maxHeaderSize`. */
const HEADER_FIELDS_SIZE = 16 * 1024;

/** The largest `maxHeaderSize` `node:http` takes (its parser counts in 32 bits). */
const MAX_HEADER_SIZE = 2 ** 31 - 1;

/** The adapter's types, for its users (the package exports this module alone). */
export type { FetchHandler, HttpServer, Serve, ServeLimits, ServeOptions } from "../serve.ts";

/**
 * Serves `handler` on Node's `node:http`; resolves once the port is bound. Under Bun or Deno it
 * rejects with a TypeError: their `node:http` would serve, but the global `Request` and `Response`
 * replaced (see above) would break `Bun.serve` and `Deno.serve` in the same process.
 */
export async function serve(handler: FetchHandler, options: ServeOptions): Promise<HttpServer> {
  const g = globalThis as { Bun?: unknown; Deno?: unknown };
  if (g.Bun !== undefined || g.Deno !== undefined) {
    throw new TypeError(`serve from tezos-node-ts/serve/node runs only under Node (under ${g.Bun !== undefined ? "Bun: tezos-node-ts/serve/bun" : "Deno: tezos-node-ts/serve/deno"})`);
  }
  const limits = serveLimits(options);
  const server = createServer({
    maxHeaderSize: Math.min(limits.maxUrlLength + HEADER_FIELDS_SIZE, MAX_HEADER_SIZE),
    headersTimeout: limits.headersTimeout,
    // The whole request (headers and body) within Node's default of 5 minutes, or the headers timeout if longer.
    requestTimeout: limits.headersTimeout === 0 ? 300_000 : Math.max(300_000, limits.headersTimeout),
    keepAliveTimeout: limits.idleTimeout,
    // How often Node looks for connections past the headers timeout (its default is 30 s).
    connectionsCheckingInterval: checkingInterval(limits),
  });
  server.maxConnections = limits.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  // Created once the port is known: the host of a request that names none (HTTP/1.0 without Host).
  const listener = getRequestListener(limitStreams(handler, limits), {
    hostname: httpAuthority(options.hostname, port),
    errorHandler: requestError,
  });
  // Now that the light classes are the globals (getRequestListener put them there).
  cacheKey ??= findCacheKey();
  const maxUrlLength = limits.maxUrlLength;
  server.on("request", (incoming: IncomingMessage, outgoing: ServerResponse) => {
    if ((incoming.url?.length ?? 0) > maxUrlLength) {
      outgoing.writeHead(414, { connection: "close", "content-length": 0 }).end();
      return;
    }
    void listener(incoming, outgoing);
  });
  let closing: Promise<void> | undefined;
  return {
    hostname: options.hostname,
    port,
    url: httpUrl(options.hostname, port),
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Endless responses (monitors) would keep `close` waiting forever: end them now.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** A request `@hono/node-server` cannot turn into a `Request` (a malformed Host or URL) is the client's error: 400, nothing logged. */
function requestError(error: unknown): Response {
  if (error instanceof RequestError) return new Response(null, { status: 400 });
  return internalError(error);
}

/** Node checks the headers timeout every this many milliseconds: a quarter of it, between 100 ms and 30 s. */
function checkingInterval(limits: Required<ServeLimits>): number {
  if (limits.headersTimeout === 0) return 30_000;
  return Math.min(30_000, Math.max(100, Math.floor(limits.headersTimeout / 4)));
}

/**
 * `handler`, with a 503 for a streaming response over `limits.maxStreams`. A streaming response is
 * told from a static one by the light `Response` of `@hono/node-server`, which keeps its body as
 * given (see {@link bodyOf}): static bodies are neither read nor wrapped.
 */
function limitStreams(handler: FetchHandler, limits: Required<ServeLimits>): (request: Request, bindings: HttpBindings | Http2Bindings) => Response | Promise<Response> {
  const max = limits.maxStreams;
  let open = 0;
  const check = (response: Response, outgoing: HttpBindings["outgoing"] | Http2Bindings["outgoing"]): Response => {
    const body = bodyOf(response);
    if (body === null || typeof (body as ReadableStream).getReader !== "function") return response;
    if (open >= max) {
      (body as ReadableStream).cancel().catch(() => {});
      return tooManyStreams();
    }
    open++;
    outgoing.once("close", () => open--);
    return response;
  };
  return (request, bindings) => {
    const response = handler(request);
    if (response instanceof Promise) return response.then((r) => check(r, bindings.outgoing));
    return check(response, bindings.outgoing);
  };
}

/**
 * The body a `Response` was made with, without materializing it. `@hono/node-server`'s light
 * `Response` keeps `[status, body, headers]` under a private symbol (found once, on a probe);
 * reading `response.body` instead would make it build a full `Response` (its slow path) and
 * would show a stream for a string body as well. A full `Response` (`fetch`'s, or a light one
 * whose body something has read) answers its `body`. Should a version of `@hono/node-server` keep
 * its bodies otherwise, no response counts as a stream (rather than every one going the slow way).
 */
function bodyOf(response: Response): unknown {
  if (cacheKey == null) return null;
  const cache = (response as unknown as Record<symbol, unknown[] | undefined>)[cacheKey];
  return cache !== undefined ? (cache[1] ?? null) : response.body;
}

/** The symbol under which the light `Response` keeps what it was made with (null: not looked for yet). */
let cacheKey: symbol | undefined | null = null;

function findCacheKey(): symbol | undefined {
  const probe = new ReadableStream();
  const response = new Response(probe) as unknown as Record<symbol, unknown>;
  for (const key of Object.getOwnPropertySymbols(response)) {
    const value = response[key];
    if (Array.isArray(value) && value[1] === probe) return key;
  }
  return undefined;
}
