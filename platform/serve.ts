/**
 * The contract every HTTP adapter of `platform/<runtime>/serve.ts` fulfils, in Hono's adapter
 * model: the node is one `fetch(request)` handler, and each runtime has a `serve` that puts it on
 * a socket. Nothing here imports an adapter; entry points pick theirs and hand it to `run`.
 *
 * Every adapter also keeps hostile clients from exhausting the server: timeouts for slow and idle
 * connections, caps on connections and on streaming responses, and a URL length limit
 * ({@link ServeLimits}). Their defaults are far from what a normal client meets.
 * @module
 */

/** A fetch handler: what `createNode` returns as `node.fetch`. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/**
 * What the server puts up with from its clients. Timeouts are in milliseconds, `0` for none;
 * caps are counts, `Infinity` for none. What each runtime can and cannot apply is said field by
 * field; README.md ("Runtimes") sums it up.
 */
export interface ServeLimits {
  /**
   * Time a client has to send its request line and headers, from the moment it connects (default
   * 10 000). A slower client (slowloris) is disconnected.
   * Node: `server.headersTimeout`, also for every later request on a kept-alive connection (which
   * answers 408 and closes). Deno: the first request must have arrived within this time of the
   * connection; the headers of later requests are bounded by {@link idleTimeout}. Bun: fixed by
   * Bun at about 10 s (its HTTP server gives no setting for it); this value is not used.
   */
  readonly headersTimeout?: number;
  /**
   * Time a kept-alive connection with no request in flight stays open (default 60 000). Never
   * applies to a response in progress: a monitor stream may stay silent for minutes.
   * Node: `server.keepAliveTimeout`. Bun: its `idleTimeout` (whole seconds, 255 at most; Bun counts
   * it from the last byte either way, so it also bounds a slow request body or a handler that is
   * silent that long before answering), switched off while a streaming response is open. Deno:
   * closed once nothing is in flight when no new request has come for this long (checked every
   * quarter of the smaller timeout).
   */
  readonly idleTimeout?: number;
  /**
   * Connections open at once (default 1 024). Node: `server.maxConnections` (a connection over it
   * is closed as soon as accepted). Deno: counted by the adapter, which accepts the connections; one
   * over the cap gets a 503 and is closed. Bun: Bun does not show connections to JavaScript, so the
   * cap applies to requests in flight (`server.pendingRequests`, streaming responses included): one
   * over it gets a 503 and `Connection: close`; idle connections are bounded in time only (by the
   * header timeout and {@link idleTimeout}).
   */
  readonly maxConnections?: number;
  /**
   * Streaming responses (the body is a `ReadableStream`, as the node's monitors) open at once
   * (default 256). The request over it gets a 503 whose body is an error list
   * ({@link tooManyStreams}); its stream is cancelled. Static bodies are not counted and not
   * wrapped: each adapter tells a stream body from a static one without touching it.
   */
  readonly maxStreams?: number;
  /**
   * Longest request target (path and query, as sent) in bytes (default 16 384); a longer one gets
   * 414. Request heads longer than each runtime's own limit are answered before the adapter sees
   * them: Node 431 (its `maxHeaderSize`, set to this limit plus 16 KiB of headers), Bun 431 (16 KiB
   * for the whole head, Bun's `--max-http-header-size`), Deno 400 (64 KiB, or more than 100 header
   * lines).
   */
  readonly maxUrlLength?: number;
}

/** Where to listen, and the limits. Port 0 asks the system for a free port; the handle tells which it got. */
export interface ServeOptions extends ServeLimits {
  /** Interface to bind, e.g. `127.0.0.1`, `::1`, `0.0.0.0`. */
  readonly hostname: string;
  /** TCP port, 0 for any free one. */
  readonly port: number;
}

/** The limits every adapter applies when `ServeOptions` leaves them out. */
export const SERVE_DEFAULTS: Readonly<Required<ServeLimits>> = Object.freeze({
  headersTimeout: 10_000,
  idleTimeout: 60_000,
  maxConnections: 1024,
  maxStreams: 256,
  maxUrlLength: 16 * 1024,
});

/**
 * The limits of `options` with the defaults filled in. Throws a `RangeError` unless each is a
 * whole number of 0 or more (or `Infinity`, but for a timeout).
 */
export function serveLimits(options: ServeLimits): Required<ServeLimits> {
  const limits = { ...SERVE_DEFAULTS };
  for (const key of Object.keys(SERVE_DEFAULTS) as (keyof ServeLimits)[]) {
    const value = options[key];
    if (value === undefined) continue;
    const timeout = key === "headersTimeout" || key === "idleTimeout";
    if (typeof value !== "number" || !(Number.isSafeInteger(value) || (!timeout && value === Infinity)) || value < 0) {
      const what = timeout ? "a whole number of milliseconds (0 for none)" : "a whole number (Infinity for none)";
      throw new RangeError(`ServeOptions.${key} must be ${what}, not ${String(value)}`);
    }
    limits[key] = value;
  }
  return limits;
}

/** A listening server. */
export interface HttpServer {
  /** The bound interface, as given. */
  readonly hostname: string;
  /** The bound port (the real one when 0 was asked). */
  readonly port: number;
  /** `http://host:port`, IPv6 hosts in brackets. */
  readonly url: string;
  /**
   * Stops accepting connections and ends the open ones, including endless streams (monitors):
   * their `request.signal` aborts. Resolves once the socket is closed.
   */
  close(): Promise<void>;
}

/** Serves `handler` on `options`; resolves once the socket is bound. */
export type Serve = (handler: FetchHandler, options: ServeOptions) => Promise<HttpServer>;

/** `host:port` with IPv6 literals in brackets: the authority of the server's URLs. */
export function httpAuthority(hostname: string, port: number): string {
  return `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
}

/** `http://host:port` with IPv6 literals in brackets. */
export function httpUrl(hostname: string, port: number): string {
  return `http://${httpAuthority(hostname, port)}`;
}

/** The plain 500 answer an adapter gives when the handler throws: the node itself never should. */
export function internalError(error: unknown): Response {
  console.error("Unhandled error in the RPC handler:", error);
  return new Response(null, { status: 500 });
}

/** Octez's shape of an error answer: a JSON list of errors, here one temporary `failure`. */
function failureBody(msg: string): string {
  return `${JSON.stringify([{ kind: "temporary", id: "failure", msg }])}\n`;
}

/** The body of the 503 answered to a streaming request over {@link ServeLimits.maxStreams}. */
export const TOO_MANY_STREAMS_BODY = failureBody("Too many open streams");

/** The body of the 503 answered over {@link ServeLimits.maxConnections}. */
export const TOO_MANY_CONNECTIONS_BODY = failureBody("Too many connections");

/** The 503 answered to a streaming request over {@link ServeLimits.maxStreams}. */
export function tooManyStreams(): Response {
  return new Response(TOO_MANY_STREAMS_BODY, { status: 503, headers: { "content-type": "application/json" } });
}

/** The 503 answered over {@link ServeLimits.maxConnections}; the connection closes after it. */
export function tooManyConnections(): Response {
  return new Response(TOO_MANY_CONNECTIONS_BODY, {
    status: 503,
    headers: { "content-type": "application/json", connection: "close" },
  });
}

/** The 414 answered to a request target over {@link ServeLimits.maxUrlLength}. */
export function uriTooLong(): Response {
  return new Response(null, { status: 414, headers: { connection: "close" } });
}

/**
 * Length of the request target (path and query) of an absolute URL, as `request.url` gives it
 * under Bun and Deno; called only when the whole URL is already over the limit.
 */
export function targetLength(url: string): number {
  const slash = url.indexOf("/", url.indexOf("//") + 2);
  return slash < 0 ? 0 : url.length - slash;
}
