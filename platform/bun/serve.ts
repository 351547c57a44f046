/**
 * Serves a fetch handler under Bun with `Bun.serve`. Bun aborts `request.signal` and cancels the
 * response stream when the client goes away; `close()` is `stop(true)`, which also ends open
 * connections (endless monitor responses among them).
 *
 * The limits ({@link ServeLimits}), as far as `Bun.serve` lets JavaScript apply them:
 * - headers: Bun closes a connection whose request head is not in after about 10 s, a fixed time
 *   (`headersTimeout` is not used); heads over 16 KiB get 431 (`bun --max-http-header-size`);
 * - idle: Bun's own `idleTimeout`, switched off (`server.timeout(request, 0)`) for the time a
 *   streaming response is open, and set back when it ends;
 * - connections: Bun does not show connections to JavaScript, so the cap applies to requests in
 *   flight (`server.pendingRequests`, open streams included);
 * - streams: counted by the adapter. `response.body` is a `ReadableStream` for every body under
 *   Bun, and nothing public tells a stream body from a static one, so the first `serve` replaces
 *   the global `Response` with a subclass that notes which responses are made with a stream (at no
 *   measurable cost; `instanceof Response` holds for every response as before). Only stream
 *   bodies are wrapped, to know when they end.
 * A request without `Host` (HTTP/1.0), whose URL Bun leaves relative, is served with the listening
 * address as its host.
 *
 * The package's `tezos-node-ts/serve/bun` (under Bun only; elsewhere `serve` rejects with a
 * TypeError saying so).
 * @example
 * ```ts
 * import { createNode } from "tezos-node-ts";
 * import { serve } from "tezos-node-ts/serve/bun";
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
  type ServeOptions,
  httpUrl,
  internalError,
  serveLimits,
  targetLength,
  tooManyConnections,
  tooManyStreams,
  uriTooLong,
} from "../serve.ts";

/** The part of Bun's server used here. */
interface BunServer {
  readonly port: number;
  readonly pendingRequests: number;
  /** Idle timeout of the connection of `request`, in seconds (0: none), from now on. */
  timeout(request: Request, seconds: number): void;
  stop(closeActiveConnections: boolean): Promise<void>;
}

/** The part of Bun's API used here (the project type-checks against Node's types only). */
interface BunServe {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout: number;
    fetch(request: Request, server: BunServer): Response | Promise<Response>;
    error(error: unknown): Response;
  }): BunServer;
}

/** Bun's largest `idleTimeout`, in seconds. */
const MAX_IDLE_SECONDS = 255;

/** The adapter's types, for its users (the package exports this module alone). */
export type { FetchHandler, HttpServer, Serve, ServeLimits, ServeOptions } from "../serve.ts";

/** Serves `handler` with `Bun.serve`; resolves once the port is bound. */
export async function serve(handler: FetchHandler, options: ServeOptions): Promise<HttpServer> {
  const bun = (globalThis as unknown as { Bun?: BunServe }).Bun;
  if (bun === undefined) {
    const here = (globalThis as { Deno?: unknown }).Deno !== undefined ? "Deno: tezos-node-ts/serve/deno" : "Node: tezos-node-ts/serve/node";
    throw new TypeError(`serve from tezos-node-ts/serve/bun runs only under Bun (under ${here})`);
  }
  const limits = serveLimits(options);
  markStreamResponses();
  // Bun counts in whole seconds; a timeout under one second is one second.
  const idleSeconds = limits.idleTimeout === 0 ? 0 : Math.min(MAX_IDLE_SECONDS, Math.max(1, Math.round(limits.idleTimeout / 1000)));
  const { maxConnections, maxStreams, maxUrlLength } = limits;
  let base = "";
  let openStreams = 0;

  /** `response`, or the 503 for a stream over the cap; an accepted stream is counted until it ends. */
  const checked = (response: Response, request: Request, server: BunServer): Response => {
    if (!streamResponses.has(response)) return response;
    const body = response.body!;
    if (openStreams >= maxStreams) {
      body.cancel().catch(() => {});
      return tooManyStreams();
    }
    openStreams++;
    // A monitor may stay silent for minutes: no idle timeout while the stream is open.
    if (idleSeconds !== 0) server.timeout(request, 0);
    return new Response(
      tracked(body, () => {
        openStreams--;
        // Back to the idle timeout for what follows on the connection (set before the last chunk
        // goes: once the response is over, Bun ignores it). A client gone has no connection left.
        if (idleSeconds !== 0) {
          try {
            server.timeout(request, idleSeconds);
          } catch {
            // the connection is closed already
          }
        }
      }),
      response,
    );
  };

  const server = bun.serve({
    hostname: options.hostname,
    port: options.port,
    idleTimeout: idleSeconds,
    fetch(request, server) {
      if (server.pendingRequests > maxConnections) return tooManyConnections();
      let url = request.url;
      let served = request;
      // Bun leaves the URL of a request without Host relative ("/path").
      if (url.charCodeAt(0) === 47) {
        url = base + url;
        served = new Request(url, request);
      }
      if (url.length > maxUrlLength && targetLength(url) > maxUrlLength) return uriTooLong();
      const response = handler(served);
      // `request` (Bun's own) names the connection to `server.timeout`.
      if (response instanceof Promise) return response.then((r) => checked(r, request, server));
      return checked(response, request, server);
    },
    error: internalError,
  });
  base = httpUrl(options.hostname, server.port);
  let closing: Promise<void> | undefined;
  return {
    hostname: options.hostname,
    port: server.port,
    url: base,
    close() {
      closing ??= server.stop(true);
      return closing;
    },
  };
}

/** The responses made with a stream body (see {@link markStreamResponses}). */
const streamResponses = new WeakSet<Response>();

/**
 * Replaces the global `Response` (once) with a subclass that adds the responses made with a stream
 * body (a `ReadableStream` or an async iterable, which Bun also streams) to {@link streamResponses}.
 * `instanceof Response` stays true of every response, the subclass's and Bun's own (`fetch`'s).
 */
function markStreamResponses(): void {
  const Native = globalThis.Response;
  if ((Native as { [MARKED]?: true })[MARKED]) return;
  class Response extends Native {
    static readonly [MARKED] = true;
    constructor(body?: BodyInit | null, init?: ResponseInit) {
      super(body, init);
      if (typeof body === "object" && body !== null && (body instanceof ReadableStream || Symbol.asyncIterator in body)) {
        streamResponses.add(this);
      }
    }
    static override [Symbol.hasInstance](value: unknown): boolean {
      return value instanceof Native;
    }
  }
  Object.defineProperty(globalThis, "Response", { value: Response, writable: true, configurable: true, enumerable: false });
}

const MARKED = Symbol("stream responses marked");

/** `body` as a stream of its own that calls `ended` once, when it ends or is cancelled. */
function tracked(body: ReadableStream<Uint8Array>, ended: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    ended();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (error) {
        end();
        controller.error(error);
        return;
      }
      if (step.done) {
        end();
        controller.close();
      } else controller.enqueue(step.value);
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
}
