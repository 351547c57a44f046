/**
 * The contract every HTTP adapter of `platform/<runtime>/serve.ts` fulfils, in Hono's adapter
 * model: the node is one `fetch(request)` handler, and each runtime has a `serve` that puts it on
 * a socket. Nothing here imports an adapter; entry points pick theirs and hand it to `run`.
 * @module
 */

/** A fetch handler: what `createNode` returns as `node.fetch`. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** Where to listen. Port 0 asks the system for a free port; the handle tells which it got. */
export interface ServeOptions {
  /** Interface to bind, e.g. `127.0.0.1`, `::1`, `0.0.0.0`. */
  readonly hostname: string;
  /** TCP port, 0 for any free one. */
  readonly port: number;
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

/** `http://host:port` with IPv6 literals in brackets. */
export function httpUrl(hostname: string, port: number): string {
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return `http://${host}:${port}`;
}

/** The plain 500 answer an adapter gives when the handler throws: the node itself never should. */
export function internalError(error: unknown): Response {
  console.error("Unhandled error in the RPC handler:", error);
  return new Response(null, { status: 500 });
}
