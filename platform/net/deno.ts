/**
 * TCP for the P2P layer on Deno, with `Deno.listen` and `Deno.connect`. Reads are a loop of
 * `conn.read` into a 64 KiB buffer that runs while the readable wants data; a write loops over
 * `conn.write` (which may take part of a chunk) until the system took every byte. `timeoutMs`
 * aborts the attempt through `Deno.connect`'s `signal`. Connections are accepted only as the
 * listener's consumer asks for them (until then they wait in the system's backlog). Nagle's
 * algorithm is off (`setNoDelay`), as on Node (see `node.ts`); Bun's sockets have it off already.
 *
 * `localHost` is ignored (`bindsLocalAddress` is false): `Deno.ConnectOptions` has no local
 * address or port (only `hostname`, `port`, `transport`, `signal` and the Happy Eyeballs
 * settings), so the system picks the source address.
 * @module
 */
import type { Connection, ConnectOptions, Endpoint, Listener, Transport } from "../../lib/p2p/transport.ts";
import { endpoint, netError, timeoutError, wrapSocket } from "./connection.ts";

/** The part of a `Deno.TcpConn` used here. */
interface DenoConn {
  read(buffer: Uint8Array): Promise<number | null>;
  write(data: Uint8Array): Promise<number>;
  closeWrite(): Promise<void>;
  close(): void;
  setNoDelay(noDelay?: boolean): void;
  readonly localAddr: { hostname: string; port: number };
  readonly remoteAddr: { hostname: string; port: number };
}

/** The part of Deno's API used here (the project type-checks against Node's types only). */
interface DenoNet {
  listen(options: { hostname: string; port: number }): {
    readonly addr: { hostname: string; port: number };
    accept(): Promise<DenoConn>;
    close(): void;
  };
  connect(options: { hostname: string; port: number; signal?: AbortSignal }): Promise<DenoConn>;
}

const deno = () => (globalThis as unknown as { Deno: DenoNet }).Deno;

/** Bytes asked of each `conn.read`. */
const READ_SIZE = 64 * 1024;

function wrap(conn: DenoConn): Connection {
  conn.setNoDelay(true);
  let paused = true;
  let reading = false;
  let gone = false;
  const buffer = new Uint8Array(READ_SIZE);
  const pump = async () => {
    if (reading) return;
    reading = true;
    try {
      while (!paused && !gone) {
        const n = await conn.read(buffer);
        if (gone) return;
        if (n === null) return events.end();
        if (n > 0) events.data(buffer.slice(0, n));
      }
    } catch (error) {
      // A read pending when we close rejects (Interrupted); that is no error of the connection.
      if (!gone) events.error(error);
    } finally {
      reading = false;
    }
  };
  const write = async (chunk: Uint8Array) => {
    for (let done = 0; done < chunk.byteLength; ) done += await conn.write(chunk.subarray(done));
  };
  const { connection, events } = wrapSocket(
    {
      resume() {
        paused = false;
        void pump();
      },
      pause: () => void (paused = true),
      write,
      shutdown: () => void conn.closeWrite().catch(() => {}),
      destroy() {
        if (gone) return;
        gone = true;
        try {
          conn.close();
        } catch {
          // Already closed.
        }
        events.closed();
      },
    },
    endpoint(conn.remoteAddr.hostname, conn.remoteAddr.port),
    endpoint(conn.localAddr.hostname, conn.localAddr.port),
  );
  return connection;
}

async function listen(at: Endpoint): Promise<Listener> {
  let listener: ReturnType<DenoNet["listen"]>;
  try {
    listener = deno().listen({ hostname: at.host, port: at.port });
  } catch (error) {
    throw netError("listen on", at, error);
  }
  let closed = false;
  let pending: Promise<unknown> = Promise.resolve();
  async function* accept(): AsyncGenerator<Connection> {
    while (!closed) {
      const next = listener.accept();
      pending = next.catch(() => {});
      try {
        yield wrap(await next);
      } catch {
        if (closed) return;
        // Out of descriptors and the like: wait a little rather than spin.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
  return {
    local: endpoint(listener.addr.hostname, listener.addr.port),
    connections: { [Symbol.asyncIterator]: accept },
    async close() {
      if (closed) return pending.then(() => {});
      closed = true;
      listener.close();
      // Deno frees the socket once the accept under way has been rejected.
      await pending;
    },
  };
}

async function connect(options: ConnectOptions): Promise<Connection> {
  const abort = new AbortController();
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => abort.abort(), options.timeoutMs);
  try {
    return wrap(await deno().connect({ hostname: options.host, port: options.port, signal: abort.signal }));
  } catch (error) {
    throw abort.signal.aborted ? timeoutError(options, options.timeoutMs!) : netError("connect to", options, error);
  } finally {
    // Deno's docs say the signal also closes an established connection (2.9 only aborts the
    // attempt); either way it must not fire later.
    clearTimeout(timer);
  }
}

/** Deno's TCP (`Deno.listen`/`Deno.connect`); `localHost` is ignored. */
export const transport: Transport = { listen, connect, bindsLocalAddress: false };
