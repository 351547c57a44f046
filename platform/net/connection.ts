/**
 * What the three TCP adapters (`node.ts`, `deno.ts`, `bun.ts`) share: turning a runtime's socket,
 * seen through the small {@link RawSocket} interface, into a {@link Connection} with the same
 * semantics everywhere, a queue for accepted connections, and errors that name what failed.
 *
 * Semantics (the same on every runtime):
 * - `readable` pauses the socket while its one-chunk queue is full (back-pressure towards the
 *   peer); `writable`'s writes resolve once the runtime took every byte (no buffering beyond the
 *   runtime's own small one).
 * - The end of the peer's writes (FIN) ends `readable` and then the whole connection, once the
 *   write under way (if any) is done: TCP cannot tell a peer's half-close from its close, and P2P
 *   peers never half-close. Closing `writable` is our half-close: reads go on until the peer's end.
 * - `close()`, cancelling `readable` or aborting `writable` release the socket at once: reads
 *   end (queued chunks are still delivered), the write under way and later ones reject.
 * - A socket error the runtime reports (a reset...) errors `readable` and `writable` with it; a
 *   write the runtime fails rejects with its error and releases the socket (`readable` ends).
 * - `closed` never rejects; it resolves once the runtime released the socket.
 * @module
 */
import type { Connection, Endpoint } from "../../lib/p2p/transport.ts";

/** A runtime's socket as the adapters show it to {@link wrapSocket}. */
export interface RawSocket {
  /** Delivers (again) incoming bytes to {@link SocketEvents.data}. */
  resume(): void;
  /** Stops delivering incoming bytes until `resume()`. */
  pause(): void;
  /** Hands `chunk` (never empty) to the runtime; resolves once it took all of it. */
  write(chunk: Uint8Array): Promise<void>;
  /** Ends our writes (FIN); reads go on. Must not throw. */
  shutdown(): void;
  /** Releases the socket now; `closed()` follows. Must not throw; idempotent. */
  destroy(): void;
}

/** What an adapter reports about its socket, to the {@link Connection} built on it. */
export interface SocketEvents {
  /** Bytes arrived (the chunk is the connection's: the adapter must not reuse its memory). */
  data(chunk: Uint8Array): void;
  /** The peer's end of writes (FIN). */
  end(): void;
  /** A socket error (reset, broken pipe...). */
  error(error: unknown): void;
  /** The runtime released the socket. */
  closed(): void;
}

/** An error of the transport, with the system's code (`ECONNREFUSED`, `ETIMEDOUT`...) if any. */
export class NetError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "NetError";
    this.code = code;
  }
}

/** `host:port`, IPv6 hosts in brackets. */
export function formatEndpoint(at: Endpoint): string {
  return at.host.includes(":") ? `[${at.host}]:${at.port}` : `${at.host}:${at.port}`;
}

/** A {@link NetError} for `what` (`"connect to"`, `"listen on"`) at `at`, caused by `cause`. */
export function netError(what: string, at: Endpoint, cause: unknown): NetError {
  const code = (cause as { code?: unknown } | null)?.code;
  const text = cause instanceof Error ? cause.message : String(cause);
  const codeText = typeof code === "string" ? code : undefined;
  const detail = codeText !== undefined && !text.includes(codeText) ? `${codeText} (${text})` : text;
  return new NetError(`${what} ${formatEndpoint(at)} failed: ${detail}`, codeText, cause);
}

/** The {@link NetError} of a connection attempt given up after `ms`. */
export function timeoutError(at: Endpoint, ms: number): NetError {
  return new NetError(`connect to ${formatEndpoint(at)} failed: ETIMEDOUT (no answer within ${ms} ms)`, "ETIMEDOUT");
}

/** An endpoint as a {@link Endpoint}: IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`) as IPv4. */
export function endpoint(host: string | undefined, port: number | undefined): Endpoint {
  const h = host ?? "";
  return { host: /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(h) ? h.slice(7) : h, port: port ?? 0 };
}

/** Builds the {@link Connection} over `raw`; the adapter reports to the returned events. */
export function wrapSocket(raw: RawSocket, remote: Endpoint, local: Endpoint): { connection: Connection; events: SocketEvents } {
  let reader!: ReadableStreamDefaultController<Uint8Array>;
  let writer!: WritableStreamDefaultController;
  let readsOver = false; // readable closed, errored or cancelled
  let writesOver: Error | undefined; // why writes now fail
  let writing: { reject(error: unknown): void } | undefined;
  let peerEnded = false;
  let localEnded = false;
  let released = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  const endReads = (error?: unknown) => {
    if (readsOver) return;
    readsOver = true;
    if (error === undefined) reader.close();
    else reader.error(error);
  };
  const endWrites = (error: Error) => {
    if (writesOver !== undefined) return;
    writesOver = error;
    writer.error(error);
    writing?.reject(error);
  };
  const release = () => {
    if (released) return;
    released = true;
    raw.destroy();
  };
  const close = () => {
    endReads();
    endWrites(new NetError("connection closed", "ECONNCLOSED"));
    release();
  };
  // After the peer's end: close once the write under way is done.
  const finishAfterPeerEnd = () => {
    if (!peerEnded || writing !== undefined) return;
    endWrites(new NetError("connection closed by the peer", "EPIPE"));
    release();
  };

  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      reader = controller;
    },
    pull() {
      raw.resume();
    },
    cancel() {
      readsOver = true;
      close();
    },
  });
  const writable = new WritableStream<Uint8Array>({
    start(controller) {
      writer = controller;
    },
    async write(chunk) {
      if (writesOver !== undefined) throw writesOver;
      if (chunk.byteLength === 0) return;
      try {
        await new Promise<void>((resolve, reject) => {
          writing = { reject };
          raw.write(chunk).then(resolve, reject);
        });
      } catch (error) {
        if (writesOver === undefined) {
          endReads();
          endWrites(error instanceof Error ? error : new NetError(String(error), undefined));
          release();
        }
        throw writesOver;
      } finally {
        writing = undefined;
        finishAfterPeerEnd();
      }
    },
    close() {
      localEnded = true;
      writesOver ??= new NetError("connection's writes were ended", "EPIPE");
      if (peerEnded) release();
      else raw.shutdown();
    },
    abort() {
      close();
    },
  });

  const events: SocketEvents = {
    data(chunk) {
      if (readsOver) return;
      reader.enqueue(chunk);
      if ((reader.desiredSize ?? 0) <= 0) raw.pause();
    },
    end() {
      peerEnded = true;
      endReads();
      if (localEnded) release();
      else finishAfterPeerEnd();
    },
    error(error) {
      const err = error instanceof Error ? error : new NetError(String(error), undefined);
      endReads(err);
      endWrites(err);
      release();
    },
    closed() {
      released = true;
      endReads();
      endWrites(new NetError("connection closed", "ECONNCLOSED"));
      resolveClosed();
    },
  };
  const connection: Connection = { readable, writable, remote, local, close, closed };
  return { connection, events };
}

/**
 * Accepted connections waiting for the listener's consumer (one consumer). Once ended, the
 * waiting ones are closed (never handed out, nobody else could close them) and iteration ends.
 */
export class ConnectionQueue implements AsyncIterable<Connection> {
  #items: Connection[] = [];
  #waiting: ((result: IteratorResult<Connection>) => void) | undefined;
  #ended = false;

  /** Hands `connection` to the consumer (closes it if the queue has ended). */
  push(connection: Connection): void {
    if (this.#ended) return connection.close();
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting) waiting({ value: connection, done: false });
    else this.#items.push(connection);
  }

  /** Ends the iteration; closes the connections not yet handed out. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const connection of this.#items.splice(0)) connection.close();
    this.#waiting?.({ value: undefined, done: true });
    this.#waiting = undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<Connection> {
    return {
      next: () => {
        const item = this.#items.shift();
        if (item) return Promise.resolve({ value: item, done: false });
        if (this.#ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.#waiting = resolve));
      },
      return: () => {
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
