/**
 * What the P2P layer needs of the network: TCP connections as byte streams, a listener and a
 * dialer. `lib/` never opens a socket itself; each runtime's `platform/net/<runtime>.ts` gives a
 * {@link Transport} over that runtime's own TCP sockets (`platform/net/node.ts`, `deno.ts`,
 * `bun.ts`). A browser has no sockets: the node runs without P2P there.
 *
 * @example
 * ```ts
 * const listener = await transport.listen({ host: "127.0.0.1", port: 0 });
 * const conn = await transport.connect({ host: "127.0.0.1", port: listener.port });
 * const writer = conn.writable.getWriter();
 * await writer.write(new Uint8Array([1, 2, 3]));
 * ```
 * @module
 */

/** An address and a port. */
export interface Endpoint {
  /** IPv4 dotted quad or IPv6 text (no brackets). */
  readonly host: string;
  readonly port: number;
}

/**
 * One TCP connection. Bytes arrive on `readable` in chunks of any size; `writable` takes chunks
 * (a write resolves once the runtime took the bytes: back-pressure). `close()` ends both
 * directions at once (pending reads end, pending writes fail); `closed` resolves when the
 * connection is gone, whoever closed it. Closing twice is harmless.
 */
export interface Connection {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array>;
  /** The other end's address and port. */
  readonly remote: Endpoint;
  /** This end's address and port. */
  readonly local: Endpoint;
  close(): void;
  readonly closed: Promise<void>;
}

/** A listening TCP socket: each accepted connection, in order, until it is closed. */
export interface Listener {
  /** The bound address and port (the real port when 0 was asked). */
  readonly local: Endpoint;
  /** Accepted connections; ends when the listener is closed. */
  readonly connections: AsyncIterable<Connection>;
  /** Stops accepting (connections already accepted stay open). */
  close(): Promise<void>;
}

/** Options of {@link Transport.connect}. */
export interface ConnectOptions extends Endpoint {
  /** Give up after this many milliseconds (the connection attempt is aborted). */
  readonly timeoutMs?: number;
  /**
   * The local address to connect from, where the runtime can choose it (Node and Bun can; where it
   * cannot, the system picks, and the other end sees that address).
   */
  readonly localHost?: string;
}

/** The runtime's TCP. */
export interface Transport {
  /** Listens on `host:port` (port 0: a free one); rejects when the address cannot be bound. */
  listen(at: Endpoint): Promise<Listener>;
  /** Connects to `host:port`; rejects on refusal, unreachable host or timeout. */
  connect(options: ConnectOptions): Promise<Connection>;
  /** Whether `connect` honours `localHost` on this runtime. */
  readonly bindsLocalAddress: boolean;
}
