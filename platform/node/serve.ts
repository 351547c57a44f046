/**
 * Serves a fetch handler under Node through `@hono/node-server`: it builds the `Request` lazily
 * (only what the handler reads), writes string and byte bodies without a stream, pipes stream
 * bodies chunk by chunk with back-pressure, cancels them and aborts `request.signal` when the
 * client goes away.
 *
 * Note: `@hono/node-server` replaces the global `Request` and `Response` with its light,
 * compatible classes (its default); that is where its speed comes from.
 * @module
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { type FetchHandler, type HttpServer, type ServeOptions, httpUrl, internalError } from "../serve.ts";

/** Serves `handler` on Node's `node:http`; resolves once the port is bound. */
export async function serve(handler: FetchHandler, options: ServeOptions): Promise<HttpServer> {
  const listener = getRequestListener(handler, { errorHandler: internalError });
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
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
