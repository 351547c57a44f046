/**
 * Serves a fetch handler under Bun with `Bun.serve`. Bun aborts `request.signal` and cancels the
 * response stream when the client goes away; `close()` is `stop(true)`, which also ends open
 * connections (endless monitor responses among them).
 * @module
 */
import { type FetchHandler, type HttpServer, type ServeOptions, httpUrl, internalError } from "../serve.ts";

/** The part of Bun's API used here (the project type-checks against Node's types only). */
interface BunServe {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout: number;
    fetch: FetchHandler;
    error(error: unknown): Response;
  }): { readonly port: number; stop(closeActiveConnections: boolean): Promise<void> };
}

/** Serves `handler` with `Bun.serve`; resolves once the port is bound. */
export async function serve(handler: FetchHandler, options: ServeOptions): Promise<HttpServer> {
  const bun = (globalThis as unknown as { Bun: BunServe }).Bun;
  const server = bun.serve({
    hostname: options.hostname,
    port: options.port,
    // Bun closes a connection silent for 10 s by default; a monitor may be silent much longer.
    idleTimeout: 0,
    fetch: handler,
    error: internalError,
  });
  let closing: Promise<void> | undefined;
  return {
    hostname: options.hostname,
    port: server.port,
    url: httpUrl(options.hostname, server.port),
    close() {
      closing ??= server.stop(true);
      return closing;
    },
  };
}
