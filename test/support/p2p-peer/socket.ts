/**
 * A TCP connection for the test peer, on `node:net` (which Node, Bun and Deno all provide):
 * exact reads over a byte queue, writes that resolve once the runtime took the bytes, and a way
 * to see the other end close. Nothing here throws asynchronously: a reset or an error only ends
 * the connection, and reads then reject with {@link PeerClosedError}.
 * @module
 */
import * as net from "node:net";

/** The other end closed (or the connection failed) before the bytes asked for arrived. */
export class PeerClosedError extends Error {
  override name = "PeerClosedError";
}

/** Where to connect. */
export interface DialOptions {
  readonly host: string;
  readonly port: number;
  /** The local address to connect from (Node and Bun honour it). */
  readonly localAddress?: string;
  /** Give up connecting after this many milliseconds (default 10 000). */
  readonly timeoutMs?: number;
}

/** One TCP connection. */
export class PeerSocket {
  private readonly socket: net.Socket;
  private queue: Uint8Array[] = [];
  private queued = 0;
  private ended = false;
  private waiter: (() => void) | undefined;
  /** Resolves once the other end ended its writes or the connection is gone. */
  readonly remoteEnded: Promise<void>;
  /** Resolves once the socket is released. */
  readonly closed: Promise<void>;
  /** The other end's address and port. */
  readonly remote: { host: string; port: number };
  /** This end's address and port. */
  readonly local: { host: string; port: number };

  /** Wraps a connected socket (a dialled one, or one a `net.Server` accepted). */
  constructor(socket: net.Socket) {
    this.socket = socket;
    const unmap = (h: string | undefined) => (h ?? "").replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
    this.remote = { host: unmap(socket.remoteAddress), port: socket.remotePort ?? 0 };
    this.local = { host: unmap(socket.localAddress), port: socket.localPort ?? 0 };
    socket.setNoDelay(true);
    let onEnded!: () => void;
    this.remoteEnded = new Promise<void>((r) => (onEnded = r));
    this.closed = new Promise<void>((r) => socket.once("close", () => r()));
    const finish = () => {
      this.ended = true;
      onEnded();
      this.wake();
    };
    socket.on("data", (data: Uint8Array) => {
      this.queue.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      this.queued += data.byteLength;
      this.wake();
    });
    socket.on("end", finish);
    socket.on("error", finish);
    socket.on("close", finish);
  }

  /** Connects to `host:port`. */
  static dial(options: DialOptions): Promise<PeerSocket> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: options.host, port: options.port, localAddress: options.localAddress, allowHalfOpen: true });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`connect to ${options.host}:${options.port}: no answer within ${options.timeoutMs ?? 10_000} ms`));
      }, options.timeoutMs ?? 10_000);
      socket.once("error", (e) => {
        clearTimeout(timer);
        socket.destroy();
        reject(e);
      });
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.removeAllListeners("error");
        resolve(new PeerSocket(socket));
      });
    });
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  /** Bytes received and not read yet. */
  get buffered(): number {
    return this.queued;
  }

  /** Exactly `n` bytes; rejects with {@link PeerClosedError} if the connection ends first. */
  async read(n: number): Promise<Uint8Array> {
    while (this.queued < n) {
      if (this.ended) throw new PeerClosedError(`the connection ended after ${this.queued} of ${n} bytes`);
      await new Promise<void>((r) => (this.waiter = r));
    }
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const head = this.queue[0]!;
      const k = Math.min(head.length, n - at);
      out.set(head.subarray(0, k), at);
      at += k;
      if (k === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(k);
    }
    this.queued -= n;
    return out;
  }

  /** Everything until the other end closes (what it still sent), bounded by `limit` bytes. */
  async readToEnd(limit = 1 << 20): Promise<Uint8Array> {
    while (!this.ended && this.queued <= limit) await new Promise<void>((r) => (this.waiter = r));
    return this.read(Math.min(this.queued, limit));
  }

  /** Sends bytes; resolves once the runtime took them, rejects if the connection is gone. */
  write(bytes: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.socket.destroyed) return reject(new PeerClosedError("the connection is closed"));
      this.socket.write(bytes, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Ends our writes (FIN); reads go on. */
  end(): void {
    this.socket.end();
  }

  /** Releases the socket. */
  destroy(): void {
    this.socket.destroy();
  }

  /** Whether the other end ended or the connection is gone. */
  get isEnded(): boolean {
    return this.ended;
  }
}
