/**
 * Serves a fetch handler under Deno with `Deno.serve`. Deno aborts `request.signal` and cancels
 * the response stream when the client goes away; `close()` aborts the server's own signal, which
 * (unlike `shutdown()`) also ends endless responses such as monitors.
 * @module
 */
import { type FetchHandler, type HttpServer, type ServeOptions, httpUrl, internalError } from "../serve.ts";

/** The part of Deno's API used here (the project type-checks against Node's types only). */
interface DenoServe {
  serve(
    options: {
      hostname: string;
      port: number;
      signal: AbortSignal;
      onListen(addr: { hostname: string; port: number }): void;
      onError(error: unknown): Response;
    },
    handler: FetchHandler,
  ): { readonly addr: { hostname: string; port: number }; readonly finished: Promise<void> };
}

/** Serves `handler` with `Deno.serve`; resolves once the port is bound. */
export async function serve(handler: FetchHandler, options: ServeOptions): Promise<HttpServer> {
  const deno = (globalThis as unknown as { Deno: DenoServe }).Deno;
  const stop = new AbortController();
  let server: ReturnType<DenoServe["serve"]> | undefined;
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
        handler,
      );
    } catch (error) {
      reject(error);
    }
  });
  const finished = server!.finished;
  const port = server!.addr.port;
  return {
    hostname: options.hostname,
    port,
    url: httpUrl(options.hostname, port),
    close() {
      stop.abort();
      return finished;
    },
  };
}
