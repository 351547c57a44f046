/**
 * TCP for the P2P layer on Bun, with `Bun.listen` and `Bun.connect`. Bun's sockets share one set
 * of handlers; each socket's `data` holds its state. `socket.write` takes what the system accepts
 * now and returns how many bytes that was (Bun keeps nothing back), so a write loops, waiting for
 * the `drain` handler, until every byte was taken; reads pause and resume with the readable's
 * queue (`socket.pause()`/`resume()`). Sockets are half-open capable (`allowHalfOpen`): without
 * it Bun closes a socket as soon as the peer's FIN arrives, before our last write went out.
 *
 * `localHost` is honoured: `Bun.connect` takes `localAddress` (Bun's own `node:net` passes it
 * there), though Bun's type declarations do not list it.
 *
 * `Bun.connect` cannot be aborted: after `timeoutMs` the promise rejects and the attempt is left
 * to the system (a connection that completes later is closed at once).
 * @module
 */
import type { Connection, ConnectOptions, Endpoint, Listener, Transport } from "../../lib/p2p/transport.ts";
import { ConnectionQueue, endpoint, NetError, netError, type SocketEvents, timeoutError, wrapSocket } from "./connection.ts";

/** Per-socket state, in the socket's `data`. */
interface State {
  connection: Connection;
  events: SocketEvents;
  /** The write waiting for room. */
  drain?: { resolve(): void; reject(error: unknown): void };
}

/** The part of a Bun `Socket` used here. */
interface BunSocket {
  data: State | undefined;
  write(data: Uint8Array): number;
  shutdown(): void;
  end(): void;
  pause(): void;
  resume(): void;
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly localAddress: string;
  readonly localPort: number;
}

/** Bun's socket handlers, shared by all sockets of a listener or a `connect`. */
interface Handlers {
  binaryType: "uint8array";
  open(socket: BunSocket): void;
  data(socket: BunSocket, data: Uint8Array): void;
  drain(socket: BunSocket): void;
  end(socket: BunSocket): void;
  error(socket: BunSocket, error: Error): void;
  close(socket: BunSocket, error?: Error): void;
}

/** The part of Bun's API used here (the project type-checks against Node's types only). */
interface BunNet {
  listen(options: { hostname: string; port: number; allowHalfOpen: boolean; socket: Handlers }): {
    readonly hostname: string;
    readonly port: number;
    stop(closeActiveConnections?: boolean): void;
  };
  connect(options: {
    hostname: string;
    port: number;
    allowHalfOpen: boolean;
    localAddress?: string;
    socket: Handlers;
  }): Promise<BunSocket>;
}

const bun = () => (globalThis as unknown as { Bun: BunNet }).Bun;

function attach(socket: BunSocket): State {
  const write = async (chunk: Uint8Array) => {
    for (let done = 0; ; ) {
      const n = socket.write(done === 0 ? chunk : chunk.subarray(done));
      if (n < 0) throw new NetError("connection closed", "ECONNCLOSED");
      done += n;
      if (done >= chunk.byteLength) return;
      await new Promise<void>((resolve, reject) => (state.drain = { resolve, reject }));
    }
  };
  const { connection, events } = wrapSocket(
    {
      resume: () => socket.resume(),
      pause: () => socket.pause(),
      write,
      shutdown: () => socket.shutdown(),
      // `end()` closes at once (FIN); `terminate()` would reset the connection.
      destroy: () => socket.end(),
    },
    endpoint(socket.remoteAddress, socket.remotePort),
    endpoint(socket.localAddress, socket.localPort),
  );
  socket.pause();
  const state: State = { connection, events };
  socket.data = state;
  return state;
}

/** Handlers for sockets that `open` hands to `opened`. */
function handlers(opened: (socket: BunSocket) => void): Handlers {
  const takeDrain = (socket: BunSocket) => {
    const drain = socket.data?.drain;
    if (socket.data) socket.data.drain = undefined;
    return drain;
  };
  return {
    binaryType: "uint8array",
    open: opened,
    data: (socket, data) => socket.data?.events.data(data),
    drain: (socket) => takeDrain(socket)?.resolve(),
    end: (socket) => socket.data?.events.end(),
    error: (socket, error) => socket.data?.events.error(error),
    close(socket, error) {
      const state = socket.data;
      if (!state) return;
      takeDrain(socket)?.reject(error ?? new NetError("connection closed", "ECONNCLOSED"));
      if (error) state.events.error(error);
      state.events.closed();
    },
  };
}

async function listen(at: Endpoint): Promise<Listener> {
  const queue = new ConnectionQueue();
  let server: ReturnType<BunNet["listen"]>;
  try {
    server = bun().listen({
      hostname: at.host,
      port: at.port,
      allowHalfOpen: true,
      socket: handlers((socket) => queue.push(attach(socket).connection)),
    });
  } catch (error) {
    throw netError("listen on", at, error);
  }
  const local = endpoint(at.host, server.port);
  let closing: Promise<void> | undefined;
  return {
    local,
    connections: queue,
    close() {
      closing ??= Promise.resolve().then(() => {
        server.stop(false);
        queue.end();
      });
      return closing;
    },
  };
}

async function connect(options: ConnectOptions): Promise<Connection> {
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const attempt = bun()
    .connect({
      hostname: options.host,
      port: options.port,
      allowHalfOpen: true,
      ...(options.localHost === undefined ? {} : { localAddress: options.localHost }),
      socket: handlers((socket) => {
        const state = attach(socket);
        if (timedOut) state.connection.close();
      }),
    })
    .then(
      (socket) => socket.data!.connection,
      (error) => {
        throw netError("connect to", options, error);
      },
    );
  if (options.timeoutMs === undefined) return attempt;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(timeoutError(options, options.timeoutMs!));
    }, options.timeoutMs);
  });
  attempt.catch(() => {}); // after a timeout nobody awaits it
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Bun's TCP (`Bun.listen`/`Bun.connect`); binds `localHost`. */
export const transport: Transport = { listen, connect, bindsLocalAddress: true };
