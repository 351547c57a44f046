/**
 * Byte I/O on a {@link Connection}: reads of an exact number of bytes across whatever pieces the
 * runtime delivers, writes, byte counters per direction, and one idempotent close. Every failure
 * of the stream (end, error, close from either side) comes out as a {@link P2pError} of kind
 * `connection-closed`; nothing else escapes.
 * @module
 */
import { P2pError } from "./errors.ts";
import type { Connection } from "./transport.ts";

const EMPTY = new Uint8Array(0);

/** Exact reads and writes on a connection, with counters. */
export class Wire {
  /** The connection underneath. */
  readonly connection: Connection;
  /** Bytes written to the connection so far. */
  bytesSent = 0;
  /** Bytes received from the connection so far. */
  bytesReceived = 0;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private pieces: Uint8Array[] = [];
  private offset = 0; // into pieces[0]
  private buffered = 0;
  private ended: string | undefined;

  /** Takes the connection's streams (they must not be locked). */
  constructor(connection: Connection) {
    this.connection = connection;
    this.reader = connection.readable.getReader();
    this.writer = connection.writable.getWriter();
  }

  /** Whether the wire was closed (here) or ended (there). */
  get isClosed(): boolean {
    return this.ended !== undefined;
  }

  /** The next `n` bytes; rejects with `connection-closed` if the stream ends first. */
  async read(n: number): Promise<Uint8Array> {
    while (this.buffered < n) {
      if (this.ended !== undefined) throw new P2pError("connection-closed", this.ended);
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await this.reader.read();
      } catch (e) {
        this.end(`connection failed: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      if (r.done) {
        this.end("the connection was closed");
        continue;
      }
      const piece = r.value;
      if (!(piece instanceof Uint8Array) || piece.length === 0) continue;
      this.pieces.push(piece);
      this.buffered += piece.length;
      this.bytesReceived += piece.length;
    }
    return this.take(n);
  }

  private take(n: number): Uint8Array {
    if (n === 0) return EMPTY;
    const first = this.pieces[0]!;
    if (first.length - this.offset >= n) {
      const out = first.subarray(this.offset, this.offset + n);
      this.offset += n;
      if (this.offset === first.length) {
        this.pieces.shift();
        this.offset = 0;
      }
      this.buffered -= n;
      return out;
    }
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const p = this.pieces[0]!;
      const k = Math.min(p.length - this.offset, n - at);
      out.set(p.subarray(this.offset, this.offset + k), at);
      at += k;
      this.offset += k;
      if (this.offset === p.length) {
        this.pieces.shift();
        this.offset = 0;
      }
    }
    this.buffered -= n;
    return out;
  }

  /** Writes `bytes` (kept as is: do not change them afterwards); rejects with `connection-closed`. */
  async write(bytes: Uint8Array): Promise<void> {
    if (this.ended !== undefined) throw new P2pError("connection-closed", this.ended);
    try {
      await this.writer.write(bytes);
    } catch (e) {
      this.end(`connection failed: ${e instanceof Error ? e.message : String(e)}`);
      throw new P2pError("connection-closed", this.ended!);
    }
    this.bytesSent += bytes.length;
  }

  private end(why: string): void {
    if (this.ended === undefined) {
      this.ended = why;
      this.release();
    }
  }

  /** Closes the connection (both directions); pending and later reads and writes fail. Idempotent. */
  close(why = "the connection was closed here"): void {
    if (this.ended === undefined) this.ended = why;
    this.release();
  }

  private released = false;

  private release(): void {
    if (this.released) return;
    this.released = true;
    try {
      this.connection.close();
    } catch {
      // closing twice, or a runtime that throws on close: the connection is gone either way
    }
    // Some runtimes throw here rather than reject (Node 20 cancelling a terminated TransformStream).
    try {
      this.reader.cancel().catch(() => {});
    } catch {
      // the readable side is gone already
    }
    try {
      this.writer.abort().catch(() => {});
    } catch {
      // the writable side is gone already
    }
  }
}
