/**
 * Serves a fetch handler under Deno with Deno's HTTP server (the one of `Deno.serve`). Deno aborts
 * `request.signal` and cancels the response stream when the client goes away; `close()` stops
 * accepting and ends every connection at once, which (unlike a graceful shutdown) also ends
 * endless responses such as monitors.
 *
 * `Deno.serve` accepts its connections itself and shows none of them to JavaScript, which leaves
 * no way to cap or time them out. So the adapter accepts the connections (`Deno.listen`) and hands
 * each to the same server through `serveHttpOnConnection`, the function `Deno.serve` is made of
 * (internal: `Deno[Deno.internal]`). Measured against `Deno.serve` (Deno 2.9, loopback): the same
 * CPU time per request on kept-alive connections; about 16 µs more per new connection (accepted
 * in JavaScript: 46 µs for a connection and its one request, against 28, and 55 under Node).
 * The limits ({@link ServeLimits}):
 * - connections: counted at accept; one over the cap gets a 503 and is closed;
 * - headers and idle: a sweep every quarter of the smaller timeout shuts down (gracefully: what
 *   is in flight, a monitor stream among them, runs to its end) a connection whose first request
 *   has not come within the headers timeout, or which has had no new request for the idle
 *   timeout; a graceful shutdown closes an idle connection or one still sending a request head
 *   at once;
 * - streams: a stream body is told from a static one by the response's internal state (found
 *   once, on a probe; reading `response.body` would turn a static body into a stream), and
 *   counted until the response is complete (the handler's `info.completed`);
 * - URL: 414 past the limit; heads over 64 KiB or 100 header lines get Deno's own 400.
 * Should a Deno version lack `serveHttpOnConnection`, the adapter falls back to `Deno.serve` with
 * the stream and URL limits only.
 * A request without `Host` (HTTP/1.0), to which Deno gives `localhost` as host, is served with the
 * listening address as its host.
 *
 * The package's `tezos-node-ts/serve/deno` (under Deno only, `deno run -A`; elsewhere `serve`
 * rejects with a TypeError saying so).
 * @example
 * ```ts
 * import { createNode } from "tezos-node-ts";
 * import { serve } from "tezos-node-ts/serve/deno";
 * const node = await createNode();
 * const server = await serve((request) => node.fetch(request), { hostname: "127.0.0.1", port: 0 });
 * const res = await fetch(`${server.url}/chains/main/blocks/head/header`); // port 0: a free port
 * console.log((await res.json()).level); // 3
 * await server.close(); // ends open streams too
 * await node.close();
 * ```
 * @module
 */
import {
  type FetchHandler,
  type HttpServer,
  type ServeLimits,
  type ServeOptions,
  httpUrl,
  internalError,
  serveLimits,
  targetLength,
  TOO_MANY_CONNECTIONS_BODY,
  tooManyStreams,
  uriTooLong,
} from "../serve.ts";

/** What Deno gives a handler beside the request. */
interface ServeHandlerInfo {
  /** Settles once the response is sent whole (rejects if it could not be). */
  readonly completed: Promise<void>;
}

type DenoHandler = (request: Request, info: ServeHandlerInfo) => Response | Promise<Response>;

/** One connection's server, as `serveHttpOnConnection` returns it. */
interface ConnectionServer {
  readonly finished: Promise<void>;
  shutdown(): Promise<void>;
}

/** A TCP connection of `Deno.listen`. */
interface DenoConn {
  write(bytes: Uint8Array): Promise<number>;
  close(): void;
}

/** The part of Deno's API used here (the project type-checks against Node's types only). */
interface DenoApi {
  serve(
    options: {
      hostname: string;
      port: number;
      signal: AbortSignal;
      onListen(addr: { hostname: string; port: number }): void;
      onError(error: unknown): Response;
    },
    handler: DenoHandler,
  ): { readonly addr: { hostname: string; port: number }; readonly finished: Promise<void> };
  listen(options: { hostname: string; port: number }): {
    readonly addr: { hostname: string; port: number };
    accept(): Promise<DenoConn>;
    close(): void;
  };
  readonly internal: symbol;
  readonly errors: { readonly BadResource: new () => Error; readonly Interrupted: new () => Error };
}

type ServeHttpOnConnection = (
  conn: DenoConn,
  signal: AbortSignal,
  handler: DenoHandler,
  onError: (error: unknown) => Response,
  onListen: (scheme: string) => void,
) => ConnectionServer;

const encoder = new TextEncoder();

/** The raw 503 written to a connection over the cap, before any request is read. */
const TOO_MANY_CONNECTIONS_BYTES = encoder.encode(
  "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n" +
    `content-length: ${encoder.encode(TOO_MANY_CONNECTIONS_BODY).length}\r\nconnection: close\r\n\r\n${TOO_MANY_CONNECTIONS_BODY}`,
);

/** The adapter's types, for its users (the package exports this module alone). */
export type { FetchHandler, HttpServer, Serve, ServeLimits, ServeOptions } from "../serve.ts";

/** Serves `handler` on Deno's HTTP server; resolves once the port is bound. */
export async function serve(handler: FetchHandler, options: ServeOptions): Promise<HttpServer> {
  const deno = (globalThis as unknown as { Deno?: DenoApi }).Deno;
  if (deno === undefined) {
    const here = (globalThis as { Bun?: unknown }).Bun !== undefined ? "Bun: tezos-node-ts/serve/bun" : "Node: tezos-node-ts/serve/node";
    throw new TypeError(`serve from tezos-node-ts/serve/deno runs only under Deno (under ${here})`);
  }
  const limits = serveLimits(options);
  const serveHttpOnConnection = (deno as unknown as Record<symbol, { serveHttpOnConnection?: ServeHttpOnConnection } | undefined>)[deno.internal]
    ?.serveHttpOnConnection;
  if (typeof serveHttpOnConnection !== "function") return serveAll(deno, handler, options, limits);

  const listener = deno.listen({ hostname: options.hostname, port: options.port });
  const port = listener.addr.port;
  const url = httpUrl(options.hostname, port);
  const serveOne = limitRequests(handler, limits, url, port);

  /** An open connection: its server, and what the sweep knows of it. */
  interface Connection {
    readonly server: ConnectionServer;
    /** Ends the connection now, what is in flight included. */
    readonly close: () => void;
    readonly acceptedAt: number;
    /** Requests so far (the handler counts them). */
    requests: number;
    /** `requests` at the last sweep, and since when it has not changed. */
    seen: number;
    seenSince: number;
    shuttingDown: boolean;
  }
  const connections = new Set<Connection>();
  let closed = false;

  const accept = (conn: DenoConn): void => {
    if (connections.size >= limits.maxConnections) {
      conn.write(TOO_MANY_CONNECTIONS_BYTES).then(
        () => conn.close(),
        () => conn.close(),
      );
      return;
    }
    const hardClose = closer();
    const now = Date.now();
    const state = { acceptedAt: now, requests: 0, seen: 0, seenSince: now, shuttingDown: false } as Connection;
    const onRequest: DenoHandler = (request, info) => {
      state.requests++;
      return serveOne(request, info);
    };
    const server = serveHttpOnConnection(conn, hardClose.signal, onRequest, internalError, () => {});
    Object.assign(state, { server, close: hardClose.close });
    connections.add(state);
    // A connection reset by its client rejects `finished`: it is over all the same.
    const over = () => connections.delete(state);
    server.finished.then(over, over);
  };

  const acceptLoop = (async () => {
    while (!closed) {
      let conn: DenoConn;
      try {
        conn = await listener.accept();
      } catch (error) {
        if (closed || error instanceof deno.errors.BadResource || error instanceof deno.errors.Interrupted) return;
        // Out of file descriptors, most likely: wait a little for some to be freed.
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      if (closed) {
        conn.close();
        return;
      }
      accept(conn);
    }
  })();

  const { headersTimeout, idleTimeout } = limits;
  const timeouts = [headersTimeout, idleTimeout].filter((t) => t > 0);
  const sweep = () => {
    const now = Date.now();
    for (const c of connections) {
      if (c.shuttingDown) continue;
      if (c.requests !== c.seen) {
        c.seen = c.requests;
        c.seenSince = now;
        continue;
      }
      const late =
        c.requests === 0
          ? headersTimeout > 0 && now - c.acceptedAt >= headersTimeout
          : idleTimeout > 0 && now - c.seenSince >= idleTimeout;
      if (late) {
        c.shuttingDown = true;
        c.server.shutdown().catch(() => {});
      }
    }
  };
  const sweeper = timeouts.length === 0 ? undefined : setInterval(sweep, Math.max(50, Math.floor(Math.min(...timeouts) / 4)));

  let closing: Promise<void> | undefined;
  return {
    hostname: options.hostname,
    port,
    url,
    close() {
      closing ??= (async () => {
        closed = true;
        clearInterval(sweeper);
        listener.close();
        await acceptLoop;
        const finished = [...connections].map((c) => {
          c.close();
          return c.server.finished.catch(() => {});
        });
        await Promise.all(finished);
      })();
      return closing;
    },
  };
}

/** Without `serveHttpOnConnection`: `Deno.serve`, with the stream and URL limits only. */
async function serveAll(deno: DenoApi, handler: FetchHandler, options: ServeOptions, limits: Required<ServeLimits>): Promise<HttpServer> {
  const stop = new AbortController();
  let server: ReturnType<DenoApi["serve"]> | undefined;
  let serveOne: DenoHandler = () => new Response(null, { status: 503 });
  await new Promise<void>((resolve, reject) => {
    try {
      server = deno.serve(
        {
          hostname: options.hostname,
          port: options.port,
          signal: stop.signal,
          onListen: () => resolve(),
          onError: internalError,
        },
        (request, info) => serveOne(request, info),
      );
    } catch (error) {
      reject(error);
    }
  });
  const finished = server!.finished;
  const port = server!.addr.port;
  const url = httpUrl(options.hostname, port);
  serveOne = limitRequests(handler, limits, url, port);
  return {
    hostname: options.hostname,
    port,
    url,
    close() {
      stop.abort();
      return finished;
    },
  };
}

/**
 * What the adapter hands Deno's per-connection server as its `signal`. The server listens to it
 * for a hard close (`op_http_cancel`), which throws once the connection is gone: an aborted
 * `AbortSignal` would throw from inside its event dispatch, where nothing can catch it (an
 * uncaught error), at any connection that ends while the server closes. This stand-in keeps the
 * listener for the adapter to call itself, in a `try`.
 */
function closer(): { signal: AbortSignal; close(): void } {
  let listener: (() => void) | undefined;
  const signal = {
    aborted: false,
    addEventListener(_type: string, callback: () => void) {
      listener = callback;
    },
    removeEventListener() {},
  } as unknown as AbortSignal;
  return {
    signal,
    close() {
      try {
        listener?.();
      } catch {
        // the connection has ended already
      }
    },
  };
}

/**
 * `handler` with the per-request limits: 414 past the URL limit, a 503 for a stream over the
 * stream cap, and the listening address as the host of a request without `Host`.
 */
function limitRequests(handler: FetchHandler, limits: Required<ServeLimits>, origin: string, port: number): DenoHandler {
  const { maxStreams, maxUrlLength } = limits;
  // Deno's URL for a request without Host; a request naming that host itself starts so too.
  const noHost = `http://localhost:${port}/`;
  const rehost = !origin.startsWith("http://localhost:");
  let openStreams = 0;
  const streamEnded = () => openStreams--;
  const checked = (response: Response, info: ServeHandlerInfo): Response => {
    const body = streamBody(response);
    if (body === undefined) return response;
    if (openStreams >= maxStreams) {
      body.cancel().catch(() => {});
      return tooManyStreams();
    }
    openStreams++;
    info.completed.then(streamEnded, streamEnded);
    return response;
  };
  return (request, info) => {
    const url = request.url;
    if (url.length > maxUrlLength && targetLength(url) > maxUrlLength) return uriTooLong();
    if (rehost && url.startsWith(noHost) && !request.headers.has("host")) {
      request = new Request(origin + url.slice(noHost.length - 1), request);
    }
    const response = handler(request);
    if (response instanceof Promise) return response.then((r) => checked(r, info));
    return checked(response, info);
  };
}

/**
 * The stream a response was made with, if it was made with one. Deno keeps the body of a
 * response in its internal state (under a symbol found once, on a probe): a stream for a stream
 * body, the bytes or nothing (a string is kept aside) for a static one. `response.body` would make
 * a stream of any body, and slow the sending of a static one.
 */
function streamBody(response: Response): ReadableStream | undefined {
  if (innerKey === undefined) return undefined;
  const inner = (response as unknown as Record<symbol, { body?: { streamOrStatic?: unknown } | null } | undefined>)[innerKey];
  const body = inner?.body?.streamOrStatic;
  return body instanceof ReadableStream ? body : undefined;
}

/** The symbol of a Deno `Response`'s internal state (undefined if this Deno keeps it otherwise). */
const innerKey: symbol | undefined = (() => {
  const probe = new ReadableStream();
  const response = new Response(probe) as unknown as Record<symbol, { body?: { streamOrStatic?: unknown } | null } | undefined>;
  for (const key of Object.getOwnPropertySymbols(response)) {
    const value = response[key];
    if (typeof value === "object" && value !== null && value.body?.streamOrStatic === probe) return key;
  }
  return undefined;
})();
