/**
 * TCP for the P2P layer on Node, with `node:net`. Sockets are half-open capable
 * (`allowHalfOpen`) so that `connection.ts` decides when a connection ends; reads pause and
 * resume with the readable's queue; a write resolves in `socket.write`'s callback, once Node
 * handed the bytes to the system. `connect` binds `localHost` (`localAddress`) and gives up after
 * `timeoutMs` by destroying the socket. Nagle's algorithm is off (`setNoDelay`): the P2P layer
 * writes each message as it is sent, and an answer of several small messages (the passes of
 * `Operations_for_blocks`) otherwise waits for the peer's delayed ACK, 40 ms on Linux, at every hop.
 * @module
 */
import * as net from "node:net";
import type { Connection, ConnectOptions, Endpoint, Listener, Transport } from "../../lib/p2p/transport.ts";
import { ConnectionQueue, endpoint, netError, timeoutError, wrapSocket } from "./connection.ts";

function wrap(socket: net.Socket): Connection {
  socket.setNoDelay(true);
  const { connection, events } = wrapSocket(
    {
      resume: () => socket.resume(),
      pause: () => socket.pause(),
      write: (chunk) => new Promise((resolve, reject) => socket.write(chunk, (error) => (error ? reject(error) : resolve()))),
      shutdown: () => void socket.end(),
      destroy: () => void socket.destroy(),
    },
    endpoint(socket.remoteAddress, socket.remotePort),
    endpoint(socket.localAddress, socket.localPort),
  );
  socket.pause();
  // Node's chunks are Buffers over a fresh allocation; hand out plain Uint8Array views of them.
  socket.on("data", (data: Buffer) => events.data(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)));
  socket.on("end", () => events.end());
  socket.on("error", (error) => events.error(error));
  socket.on("close", () => events.closed());
  return connection;
}

async function listen(at: Endpoint): Promise<Listener> {
  const queue = new ConnectionQueue();
  const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) => {
    // A socket reset before we see it has no addresses; drop it.
    if (socket.remoteAddress === undefined) return void socket.destroy();
    queue.push(wrap(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(netError("listen on", at, error)));
    server.listen({ host: at.host, port: at.port }, () => resolve());
  });
  // Later errors (a failed accept) are Node's to log and retry; they must not throw.
  server.on("error", () => {});
  const address = server.address() as net.AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    local: endpoint(address.address, address.port),
    connections: queue,
    close() {
      // `server.close()` frees the port at once; its callback waits for accepted sockets to end.
      closing ??= Promise.resolve().then(() => {
        server.close();
        queue.end();
      });
      return closing;
    },
  };
}

function connect(options: ConnectOptions): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({
      host: options.host,
      port: options.port,
      localAddress: options.localHost,
      allowHalfOpen: true,
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            socket.destroy();
            reject(timeoutError(options, options.timeoutMs!));
          }, options.timeoutMs);
    const failed = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(netError("connect to", options, error));
    };
    socket.once("error", failed);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.off("error", failed);
      resolve(wrap(socket));
    });
  });
}

/** Node's TCP (`node:net`); binds `localHost`. */
export const transport: Transport = { listen, connect, bindsLocalAddress: true };
