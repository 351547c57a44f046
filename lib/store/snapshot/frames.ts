/**
 * Frames and sections over byte streams: `FrameWriter` lays frames out into chunks while keeping
 * the section and file digests; `FrameReader` reads them back from an async iterable of chunks,
 * checking each section's count and digest at its end and the file's digest at the end.
 * @module
 */
import { createDigest, type Digest, sameBytes } from "./digest.ts";
import { Frame, MAGIC, MAX_FRAME, SECTION_NAMES, type SectionId, SnapshotError } from "./format.ts";

/** Output chunks are cut at about this size. */
const CHUNK = 1024 * 1024;

function frameHead(tag: number, length: number): Uint8Array {
  const h = new Uint8Array(5);
  h[0] = tag;
  new DataView(h.buffer).setUint32(1, length);
  return h;
}

/** Lays frames out; `take()` hands the bytes written so far over in chunks of about 1 MiB. */
export class FrameWriter {
  #file: Digest;
  #section: Digest;
  #count = 0;
  #parts: Uint8Array[] = [];
  #pending = 0;
  /** Bytes written so far, magic included. */
  bytes = 0;

  private constructor(file: Digest, section: Digest) {
    this.#file = file;
    this.#section = section;
    this.#push(MAGIC, false);
  }

  /** A writer that has written the magic bytes. */
  static async create(): Promise<FrameWriter> {
    return new FrameWriter(await createDigest(), await createDigest());
  }

  #push(b: Uint8Array, section: boolean): void {
    this.#file.update(b);
    if (section) this.#section.update(b);
    this.#parts.push(b);
    this.#pending += b.length;
    this.bytes += b.length;
  }

  /** Writes one frame of the current section. */
  frame(tag: number, payload: Uint8Array): void {
    if (payload.length > MAX_FRAME) throw new RangeError(`snapshot frame of ${payload.length} bytes exceeds ${MAX_FRAME}`);
    this.#push(frameHead(tag, payload.length), true);
    this.#push(payload, true);
    this.#count++;
  }

  /** Closes section `id` with its count and digest; the next frames start a new section. */
  async endSection(id: SectionId): Promise<void> {
    const p = new Uint8Array(37);
    p[0] = id;
    new DataView(p.buffer).setUint32(1, this.#count);
    p.set(this.#section.digest(), 5);
    this.#push(frameHead(Frame.sectionEnd, p.length), false);
    this.#push(p, false);
    this.#section = await createDigest();
    this.#count = 0;
  }

  /** Writes the end frame (the digest of every byte before it). */
  end(): void {
    const d = this.#file.digest();
    const head = frameHead(Frame.end, 32);
    this.#parts.push(head, d);
    this.#pending += 37;
    this.bytes += 37;
  }

  /** Whether a chunk's worth of bytes is waiting. */
  get full(): boolean {
    return this.#pending >= CHUNK;
  }

  /** The bytes written since the last call, as one chunk (empty when none). */
  take(): Uint8Array {
    const out = new Uint8Array(this.#pending);
    let at = 0;
    for (const p of this.#parts) {
      out.set(p, at);
      at += p.length;
    }
    this.#parts = [];
    this.#pending = 0;
    return out;
  }
}

/** Reads frames from a stream of chunks; every inconsistency is a `SnapshotError`. */
export class FrameReader {
  #source: AsyncIterator<Uint8Array>;
  #chunk: Uint8Array = new Uint8Array(0);
  #at = 0;
  #file: Digest;
  #section: Digest;
  #count = 0;
  #where: string = SECTION_NAMES[1];
  /** Bytes read so far. */
  bytes = 0;

  private constructor(source: AsyncIterable<Uint8Array>, file: Digest, section: Digest) {
    this.#source = source[Symbol.asyncIterator]();
    this.#file = file;
    this.#section = section;
  }

  /**
   * A reader positioned after the magic bytes.
   * @throws {SnapshotError} when the stream does not start with them.
   */
  static async open(source: AsyncIterable<Uint8Array>): Promise<FrameReader> {
    const r = new FrameReader(source, await createDigest(), await createDigest());
    let magic: Uint8Array;
    try {
      magic = await r.#read(MAGIC.length);
    } catch {
      throw new SnapshotError("it is not a tezos-node snapshot (it is shorter than the format's magic bytes)");
    }
    if (!sameBytes(magic, MAGIC)) throw new SnapshotError("it is not a tezos-node snapshot (its first bytes are not the format's magic bytes)");
    r.#file.update(magic);
    return r;
  }

  async #read(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      if (this.#at === this.#chunk.length) {
        const next = await this.#source.next();
        if (next.done) throw new SnapshotError(`the file is truncated (it ends in the ${this.#where} section, after ${this.bytes} bytes)`);
        if (!(next.value instanceof Uint8Array)) throw new TypeError("snapshot source: chunks must be Uint8Arrays");
        this.#chunk = next.value;
        this.#at = 0;
        continue;
      }
      const k = Math.min(n - filled, this.#chunk.length - this.#at);
      out.set(this.#chunk.subarray(this.#at, this.#at + k), filled);
      this.#at += k;
      filled += k;
    }
    this.bytes += n;
    return out;
  }

  async #frame(): Promise<{ tag: number; head: Uint8Array; payload: Uint8Array }> {
    const head = await this.#read(5);
    const length = new DataView(head.buffer).getUint32(1);
    if (length > MAX_FRAME) throw new SnapshotError(`a frame of the ${this.#where} section claims ${length} bytes (corrupt length)`);
    return { tag: head[0]!, head, payload: await this.#read(length) };
  }

  /**
   * The next frame of section `id`: its payload when its tag is one of `tags`, `undefined` at
   * the section's end once its count and digest check.
   */
  async next(id: SectionId, tags: readonly number[]): Promise<{ tag: number; payload: Uint8Array } | undefined> {
    this.#where = SECTION_NAMES[id];
    const { tag, head, payload } = await this.#frame();
    this.#file.update(head);
    this.#file.update(payload);
    if (tag === Frame.sectionEnd) {
      if (payload.length !== 37 || payload[0] !== id) throw new SnapshotError(`the ${this.#where} section ends with a malformed section end`);
      const count = new DataView(payload.buffer, payload.byteOffset).getUint32(1);
      if (count !== this.#count) throw new SnapshotError(`the ${this.#where} section holds ${this.#count} frames but its end says ${count}`);
      if (!sameBytes(payload.subarray(5), this.#section.digest())) {
        throw new SnapshotError(`the ${this.#where} section's digest does not match its content (the file is corrupt)`);
      }
      this.#section = await createDigest();
      this.#count = 0;
      return undefined;
    }
    if (!tags.includes(tag)) throw new SnapshotError(`unexpected frame tag 0x${tag.toString(16).padStart(2, "0")} in the ${this.#where} section`);
    this.#section.update(head);
    this.#section.update(payload);
    this.#count++;
    return { tag, payload };
  }

  /** Reads the end frame and checks the file's digest and that nothing follows. */
  async end(): Promise<void> {
    this.#where = "end";
    const expected = this.#file.digest();
    const { tag, payload } = await this.#frame();
    if (tag !== Frame.end || payload.length !== 32) throw new SnapshotError("the file does not close with an end frame");
    if (!sameBytes(payload, expected)) throw new SnapshotError("the file's final digest does not match its content (the file is corrupt)");
    while (this.#at === this.#chunk.length) {
      const next = await this.#source.next();
      if (next.done) return;
      this.#chunk = next.value;
      this.#at = 0;
    }
    throw new SnapshotError("bytes follow the end frame");
  }
}
