/**
 * Two {@link Connection}s joined in memory, for P2P tests without sockets: each direction is a
 * TransformStream whose readable side buffers up to `bufferBytes` (like a kernel's socket
 * buffers, so that both ends may write before reading). `close()` on either end ends both
 * directions, as a TCP close would: the other end reads what was already sent, then the end.
 */
import type { Connection, Endpoint } from "../../lib/p2p/transport.ts";

interface Pipe {
  readonly stream: TransformStream<Uint8Array, Uint8Array>;
  terminate(): void;
}

function pipe(bufferBytes: number): Pipe {
  let controller!: TransformStreamDefaultController<Uint8Array>;
  const stream = new TransformStream<Uint8Array, Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      // a copy, so that the writer may reuse its buffer as a socket write would let it
      transform(chunk, c) {
        c.enqueue(chunk.slice());
      },
    },
    undefined,
    new ByteLengthQueuingStrategy({ highWaterMark: bufferBytes }),
  );
  return {
    stream,
    terminate() {
      try {
        controller.terminate();
      } catch {
        // already ended
      }
    },
  };
}

/** Options of {@link connectionPair}. */
export interface PairOptions {
  /** Bytes each direction holds before writes wait for the reader (default 4 MiB). */
  readonly bufferBytes?: number;
}

/** Two connected ends: `[a, b]`, where `a` dialled `b`. */
export function connectionPair(options: PairOptions = {}): [Connection, Connection] {
  const bufferBytes = options.bufferBytes ?? 4 * 1024 * 1024;
  const ab = pipe(bufferBytes);
  const ba = pipe(bufferBytes);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const close = () => {
    ab.terminate();
    ba.terminate();
    resolveClosed();
  };
  const aEnd: Endpoint = { host: "127.0.0.1", port: 40001 };
  const bEnd: Endpoint = { host: "127.0.0.2", port: 9732 };
  const a: Connection = { readable: ba.stream.readable, writable: ab.stream.writable, local: aEnd, remote: bEnd, close, closed };
  const b: Connection = { readable: ab.stream.readable, writable: ba.stream.writable, local: bEnd, remote: aEnd, close, closed };
  return [a, b];
}
