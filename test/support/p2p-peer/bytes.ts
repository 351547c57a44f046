/**
 * Byte helpers of the test peer: hex, concatenation, and a cursor for Octez's binary
 * (`Data_encoding`) layouts, big-endian throughout. Written for the peer alone: it shares no code
 * with `lib/` so that what it checks is checked by a second implementation.
 * @module
 */

/** Bytes of a hex string (even length, no prefix). */
export function hex(text: string): Uint8Array {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) throw new RangeError(`not hex: ${text.slice(0, 40)}`);
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

/** The parts one after the other. */
export function concat(...parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Whether two byte arrays hold the same bytes. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A big-endian unsigned integer of `size` bytes (1, 2 or 4). */
export function uint(value: number, size: 1 | 2 | 4): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value >= 2 ** (8 * size)) throw new RangeError(`${value} is not a uint${8 * size}`);
  const out = new Uint8Array(size);
  for (let i = size - 1, v = value; i >= 0; i--, v = Math.floor(v / 256)) out[i] = v % 256;
  return out;
}

/** Bytes with their 4-byte length first (Octez's `dynamic_size`, `string`, `bytes`). */
export function sized(bytes: Uint8Array): Uint8Array {
  return concat(uint(bytes.length, 4), bytes);
}

/** A decoding failure of the peer's own codecs. */
export class PeerDecodeError extends Error {
  override name = "PeerDecodeError";
}

/** Reads fields in order from a byte array; every read checks that the bytes are there. */
export class Cursor {
  private at = 0;
  private readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  /** Bytes not read yet. */
  get remaining(): number {
    return this.bytes.length - this.at;
  }

  /** The next `n` bytes. */
  take(n: number): Uint8Array {
    if (n < 0 || n > this.remaining) throw new PeerDecodeError(`needs ${n} bytes, ${this.remaining} left`);
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  uint8(): number {
    return this.take(1)[0]!;
  }

  uint16(): number {
    const b = this.take(2);
    return (b[0]! << 8) | b[1]!;
  }

  int16(): number {
    const v = this.uint16();
    return v >= 0x8000 ? v - 0x10000 : v;
  }

  uint32(): number {
    const b = this.take(4);
    return ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
  }

  int32(): number {
    return this.uint32() | 0;
  }

  /** Octez's `bool`: written 0x00 or 0xff, read as "not zero" (data-encoding's reader). */
  bool(): boolean {
    return this.uint8() !== 0;
  }

  /** A 4-byte length, then that many bytes. */
  sized(): Uint8Array {
    return this.take(this.uint32());
  }

  /** Fails unless every byte was read (Octez's `Extra_bytes`). */
  end(): void {
    if (this.remaining !== 0) throw new PeerDecodeError(`${this.remaining} extra bytes`);
  }
}
