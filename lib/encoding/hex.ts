/**
 * Lowercase hexadecimal, the JSON form of bytes in Octez.
 * @module
 */

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  if (c >= 65 && c <= 70) return c - 55; // A-F
  return -1;
}

/**
 * Lowercase hex of `bytes`.
 * @example toHex(Uint8Array.of(1, 171)) // "01ab"
 */
export function toHex(bytes: Uint8Array): string {
  if (bytes.length <= FLAT_BELOW) {
    let s = "";
    for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]!];
    return s;
  }
  // One flat string: a `+=` loop gives a tree of concatenations (some 30 objects for a 32-byte
  // hash) that stays as is in a map key or a decoded context directory.
  const digits = new Uint8Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    digits[2 * i] = DIGITS[b >> 4]!;
    digits[2 * i + 1] = DIGITS[b & 15]!;
  }
  return ascii.decode(digits);
}

/** Byte counts whose hex is short enough for the engine to make one flat string of it (12 characters). */
const FLAT_BELOW = 6;
const DIGITS = Uint8Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
const ascii = new TextDecoder();

/** Bytes of a hex string (either case), or `undefined` if it is not one (odd length, bad digit). */
export function tryFromHex(text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = nibble(text.charCodeAt(2 * i));
    const lo = nibble(text.charCodeAt(2 * i + 1));
    if (hi < 0 || lo < 0) return undefined;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/**
 * Bytes of a hex string; throws a TypeError on a non-string, odd length or a non-hex digit.
 * @example fromHex("01ab") // Uint8Array [1, 171]
 */
export function fromHex(text: string): Uint8Array {
  if (typeof text !== "string") throw new TypeError(`fromHex: expected a string, got ${typeof text}`);
  const out = tryFromHex(text);
  if (out === undefined) throw new TypeError(`Invalid hex string ${JSON.stringify(text.length > 40 ? text.slice(0, 40) + "..." : text)}`);
  return out;
}
