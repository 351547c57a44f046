/**
 * Timelock chests of protocol 011 Hangzhou (Octez v12 `src/lib_crypto/timelock.ml`), behind the
 * Michelson types `chest` / `chest_key` and the instruction OPEN_CHEST.
 *
 * Scheme. A chest holds an RSA modulus N (its own, at least 2^2001 + 1; Hangzhou has no fixed
 * modulus), a locked value x in [0, N) and a ciphertext. Opening it after `time` means knowing
 * y = x^(2^time) mod N, with a Wesolowski proof π: with ℓ = the next prime above a BLAKE2b hash of
 * (time, N, x, y) and r = 2^time mod ℓ, the key is accepted iff y = π^ℓ · x^r mod N. The symmetric
 * key is BLAKE2b-256 keyed with "Tezoskdftimelockv0" of y's decimal digits; the ciphertext is an
 * NaCl secretbox (XSalsa20-Poly1305, 16-byte tag in front) under a 24-byte nonce.
 *
 * Binary forms (data-encoding, as Michelson `0x…` data):
 *   chest     = n(x) ‖ n(N) ‖ nonce (24 bytes) ‖ box (rest of the bytes, tag ‖ encrypted payload)
 *               with 0 ≤ x < N, N > 2^2001 and a box longer than the 16-byte tag;
 *   chest_key = n(y) ‖ n(π)
 * where n is the Zarith natural (`lib/encoding/zarith.ts`, canonical: no trailing zero byte).
 * @module
 */
import { secretbox } from "@noble/ciphers/salsa.js";
import { blake2bKeyed } from "../../crypto/blake2b.ts";
import { Writer } from "../../encoding/codec.ts";
import { writeN } from "../../encoding/zarith.ts";

/** Length of the secretbox nonce. */
export const CHEST_NONCE_SIZE = 24;
/** Length of the Poly1305 tag in front of the encrypted payload. */
export const CHEST_TAG_SIZE = 16;
/** A chest's RSA modulus must be strictly above this (2^2001). */
export const MIN_RSA_MODULUS = 2n << 2000n;
/**
 * Largest `time` Octez's interpreter passes on (an OCaml `int`, 2^62 − 1); above it OPEN_CHEST
 * answers `Right False`, as for a bogus cipher.
 */
export const MAX_OPEN_CHEST_TIME = (1n << 62n) - 1n;
/** Bit size of the RSA modulus {@link createChestAndKey} makes. */
export const RSA_MODULUS_BITS = 2048;

/** A decoded chest. */
export interface Chest {
  readonly lockedValue: bigint;
  readonly rsaPublic: bigint;
  readonly nonce: Uint8Array;
  /** The secretbox: tag ‖ encrypted payload. */
  readonly ciphertext: Uint8Array;
}

/** A decoded chest key. */
export interface ChestKey {
  readonly unlockedValue: bigint;
  readonly proof: bigint;
}

/** Bytes that are not a chest / chest key (Octez: the constant is ill-typed). */
export class InvalidChestError extends RangeError {
  override name = "InvalidChestError";
}

/** What OPEN_CHEST finds: the payload (`Left bytes`), a bad ciphertext (`Right False`), a bad key (`Right True`). */
export type OpenChestResult = { ok: Uint8Array } | { bogusCipher: true } | { bogusOpening: true };

function bytesArg(name: string, value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  return value;
}

/** Little-endian bytes → non-negative bigint, in linear time (hex through the engine's parser). */
function fromBitsLE(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  let hex = "0x";
  for (let i = bytes.length - 1; i >= 0; i--) hex += HEX[bytes[i]!];
  return BigInt(hex);
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * Reads Zarith naturals (data-encoding `n`: 7 bits a byte, least significant group first, high
 * bit = more follows, no trailing zero group) from `bytes` at `pos`; linear in their size.
 */
function readNats(bytes: Uint8Array, what: string, count: number): { values: bigint[]; pos: number } {
  const values: bigint[] = [];
  let pos = 0;
  for (let k = 0; k < count; k++) {
    const start = pos;
    while (pos < bytes.length && (bytes[pos]! & 0x80) !== 0) pos++;
    if (pos >= bytes.length) throw new InvalidChestError(`Invalid ${what}: truncated natural number`);
    if (bytes[pos] === 0 && pos > start) throw new InvalidChestError(`Invalid ${what}: non-canonical natural number (trailing zero byte)`);
    pos++;
    // Repack the 7-bit groups into little-endian bytes.
    const out = new Uint8Array(Math.ceil(((pos - start) * 7) / 8));
    let acc = 0;
    let bits = 0;
    let o = 0;
    for (let i = start; i < pos; i++) {
      acc |= (bytes[i]! & 0x7f) << bits;
      bits += 7;
      if (bits >= 8) {
        out[o++] = acc & 0xff;
        acc >>>= 8;
        bits -= 8;
      }
    }
    if (bits > 0 && o < out.length) out[o] = acc & 0xff;
    values.push(fromBitsLE(out));
  }
  return { values, pos };
}

/** Decodes chest bytes; {@link InvalidChestError} when Octez's `chest_encoding` refuses them. */
export function decodeChest(bytes: Uint8Array): Chest {
  bytesArg("chest", bytes);
  const { values: [lockedValue, rsaPublic], pos } = readNats(bytes, "chest", 2);
  if (bytes.length - pos < CHEST_NONCE_SIZE) throw new InvalidChestError("Invalid chest: truncated nonce");
  const nonce = bytes.slice(pos, pos + CHEST_NONCE_SIZE);
  const ciphertext = bytes.slice(pos + CHEST_NONCE_SIZE);
  if (ciphertext.length <= CHEST_TAG_SIZE) throw new InvalidChestError("Invalid chest: the ciphertext has a negative size");
  if (lockedValue! >= rsaPublic!) throw new InvalidChestError("Invalid chest: locked value is not in the rsa group");
  if (rsaPublic! <= MIN_RSA_MODULUS) throw new InvalidChestError("Invalid chest: rsa modulus is too small");
  return { lockedValue: lockedValue!, rsaPublic: rsaPublic!, nonce, ciphertext };
}

/** Encodes a chest (inverse of {@link decodeChest}). */
export function encodeChest(chest: Chest): Uint8Array {
  const out = new Writer();
  writeN(out, chest.lockedValue);
  writeN(out, chest.rsaPublic);
  const nonce = bytesArg("nonce", chest.nonce);
  if (nonce.length !== CHEST_NONCE_SIZE) throw new RangeError(`nonce must be ${CHEST_NONCE_SIZE} bytes, got ${nonce.length}`);
  const head = out.bytes();
  const ciphertext = bytesArg("ciphertext", chest.ciphertext);
  const all = new Uint8Array(head.length + nonce.length + ciphertext.length);
  all.set(head);
  all.set(nonce, head.length);
  all.set(ciphertext, head.length + nonce.length);
  return all;
}

/** Decodes chest key bytes; {@link InvalidChestError} when they are not exactly two Zarith naturals. */
export function decodeChestKey(bytes: Uint8Array): ChestKey {
  bytesArg("chest key", bytes);
  const { values: [unlockedValue, proof], pos } = readNats(bytes, "chest_key", 2);
  if (pos !== bytes.length) throw new InvalidChestError(`Invalid chest_key: ${bytes.length - pos} unexpected trailing bytes`);
  return { unlockedValue: unlockedValue!, proof: proof! };
}

/** Encodes a chest key (inverse of {@link decodeChestKey}). */
export function encodeChestKey(key: ChestKey): Uint8Array {
  const out = new Writer();
  writeN(out, key.unlockedValue);
  writeN(out, key.proof);
  return out.bytes();
}

/** Size of the payload a chest would give (ciphertext minus tag): the OPEN_CHEST gas parameter. */
export function chestPlaintextSize(chest: Uint8Array): number {
  return decodeChest(chest).ciphertext.length - CHEST_TAG_SIZE;
}

// ---------------------------------------------------------------------------------------------
// Arithmetic

/** base^exp mod m (exp ≥ 0, m > 0). */
export function modPow(base: bigint, exp: bigint, m: bigint): bigint {
  if (m === 1n) return 0n;
  let result = 1n;
  let b = ((base % m) + m) % m;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % m;
    e >>= 1n;
    if (e > 0n) b = (b * b) % m;
  }
  return result;
}

const SMALL_PRIMES: number[] = [];
for (let i = 2; SMALL_PRIMES.length < 200; i++) if (SMALL_PRIMES.every((p) => i % p !== 0)) SMALL_PRIMES.push(i);
const SMALL_PRIMES_BIG = SMALL_PRIMES.map(BigInt);
/** Miller–Rabin bases: the first 25 primes (GMP's `nextprime` also runs 25 rounds). */
const MR_BASES = SMALL_PRIMES_BIG.slice(0, 25);

/** Whether n is (with overwhelming probability) prime: trial division, then Miller–Rabin on 25 fixed bases. */
export function isProbablePrime(n: bigint): boolean {
  if (n < 2n) return false;
  for (const p of SMALL_PRIMES_BIG) {
    if (n === p) return true;
    if (n % p === 0n) return false;
  }
  let d = n - 1n;
  let s = 0;
  while ((d & 1n) === 0n) {
    d >>= 1n;
    s++;
  }
  outer: for (const a of MR_BASES) {
    let x = modPow(a, d, n);
    if (x === 1n || x === n - 1n) continue;
    for (let i = 1; i < s; i++) {
      x = (x * x) % n;
      if (x === n - 1n) continue outer;
    }
    return false;
  }
  return true;
}

/** The smallest prime strictly greater than n (Zarith `Z.nextprime`). */
export function nextPrime(n: bigint): bigint {
  if (n < 2n) return 2n;
  let c = n + 1n;
  if ((c & 1n) === 0n) {
    if (c === 2n) return 2n;
    c += 1n;
  }
  for (;; c += 2n) if (isProbablePrime(c)) return c;
}

/**
 * Zarith `Z.to_bits` of a non-negative integer as GMP builds it on 64-bit machines: little-endian
 * bytes padded with zeros to a whole number of 8-byte limbs; zero gives no bytes.
 */
export function zarithToBits(v: bigint): Uint8Array {
  if (v < 0n) throw new RangeError("zarithToBits: negative value");
  if (v === 0n) return new Uint8Array(0);
  let hex = v.toString(16);
  if (hex.length % 2 === 1) hex = "0" + hex;
  const size = hex.length / 2;
  const out = new Uint8Array(Math.ceil(size / 8) * 8);
  for (let i = 0; i < size; i++) out[i] = parseInt(hex.slice(hex.length - 2 * i - 2, hex.length - 2 * i), 16);
  return out;
}

const HASH_SEPARATOR = Uint8Array.of(0xff, 0x00, 0xff, 0x00, 0xff, 0x00, 0xff, 0x00);
const HASH_PERSONALIZATION = Uint8Array.of(32);
const KDF_KEY = new TextEncoder().encode("Tezoskdftimelockv0");

/**
 * ℓ: the next prime above the little-endian integer of BLAKE2b-256, keyed with the single byte
 * 0x20, of time (decimal) ‖ sep ‖ bits(N) ‖ sep ‖ bits(x) ‖ sep ‖ bits(y), sep = (ff 00)×4.
 */
export function hashToPrime(rsaPublic: bigint, time: bigint, lockedValue: bigint, unlockedValue: bigint): bigint {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [enc.encode(time.toString())];
  for (const v of [rsaPublic, lockedValue, unlockedValue]) parts.push(HASH_SEPARATOR, zarithToBits(v));
  return nextPrime(fromBitsLE(blake2bKeyed(32, HASH_PERSONALIZATION, ...parts)));
}

/** Whether π proves y = x^(2^time) mod N (Wesolowski): y = π^ℓ · x^(2^time mod ℓ) mod N. */
export function verifyTimeLock(rsaPublic: bigint, time: bigint, lockedValue: bigint, unlockedValue: bigint, proof: bigint): boolean {
  const l = hashToPrime(rsaPublic, time, lockedValue, unlockedValue);
  const r = modPow(2n, time, l);
  return unlockedValue === (modPow(proof, l, rsaPublic) * modPow(lockedValue, r, rsaPublic)) % rsaPublic;
}

/** The secretbox key of an unlocked value: BLAKE2b-256 keyed "Tezoskdftimelockv0" of its decimal digits. */
export function unlockedValueToSymmetricKey(unlockedValue: bigint): Uint8Array {
  return blake2bKeyed(32, KDF_KEY, new TextEncoder().encode(unlockedValue.toString()));
}

// ---------------------------------------------------------------------------------------------
// OPEN_CHEST

/**
 * OPEN_CHEST on the chest key, chest and time as on the stack: `{ ok: payload }` (Michelson
 * `Left payload`), `{ bogusOpening: true }` when the key's value or proof is wrong (`Right True`),
 * `{ bogusCipher: true }` when the proof holds but the ciphertext does not decrypt (`Right False`).
 * A time above {@link MAX_OPEN_CHEST_TIME} gives `bogusCipher` (Octez answers `Right False`).
 * Throws {@link InvalidChestError} on malformed bytes, RangeError on a negative time.
 */
export function openChest(chestKey: Uint8Array, chest: Uint8Array, time: bigint): OpenChestResult {
  const key = decodeChestKey(chestKey);
  const box = decodeChest(chest);
  if (typeof time !== "bigint") throw new TypeError("time must be a bigint");
  if (time < 0n) throw new RangeError("Timelock: trying to open with a negative time");
  if (time > MAX_OPEN_CHEST_TIME) return { bogusCipher: true };
  if (!verifyTimeLock(box.rsaPublic, time, box.lockedValue, key.unlockedValue, key.proof)) return { bogusOpening: true };
  try {
    return { ok: secretbox(unlockedValueToSymmetricKey(key.unlockedValue), box.nonce).open(box.ciphertext) };
  } catch {
    return { bogusCipher: true };
  }
}

// ---------------------------------------------------------------------------------------------
// Creating chests (tests, clients)

/** A source of random bytes (default: `crypto.getRandomValues`). */
export type RandomBytes = (size: number) => Uint8Array;

const defaultRng: RandomBytes = (size) => crypto.getRandomValues(new Uint8Array(size));

function randomPrime(bits: number, rng: RandomBytes): bigint {
  const size = bits / 8;
  for (;;) {
    const bytes = rng(size);
    bytes[size - 1]! |= 0x80; // top bit set: the product of two such primes has `2 * bits` bits
    bytes[0]! |= 1;
    const candidate = fromBitsLE(bytes);
    if (isProbablePrime(candidate)) return candidate;
  }
}

function timeArg(time: unknown): bigint {
  const t = typeof time === "number" && Number.isSafeInteger(time) ? BigInt(time) : time;
  if (typeof t !== "bigint") throw new TypeError("time must be a bigint or a safe integer");
  if (t < 0n || t > MAX_OPEN_CHEST_TIME) throw new RangeError(`time must be in 0..${MAX_OPEN_CHEST_TIME}`);
  return t;
}

/**
 * A chest locking `payload` for `time` and its key, as Octez's `create_chest_and_chest_key`: a
 * fresh 2048-bit RSA modulus (two 1024-bit primes with the top bit set), a locked value drawn
 * from 272 random bytes mod N, the key and proof computed with the factorisation. The proof needs
 * 2^time / ℓ, a `time`-bit number: keep `time` to what a test needs (thousands, not billions).
 * @param rng a deterministic source makes reproducible chests (tests).
 */
export function createChestAndKey(payload: Uint8Array, time: bigint | number, rng: RandomBytes = defaultRng): { chest: Uint8Array; chestKey: Uint8Array } {
  bytesArg("payload", payload);
  const t = timeArg(time);
  const p = randomPrime(RSA_MODULUS_BITS / 2, rng);
  let q = randomPrime(RSA_MODULUS_BITS / 2, rng);
  while (q === p) q = randomPrime(RSA_MODULUS_BITS / 2, rng);
  const n = p * q;
  const phi = (p - 1n) * (q - 1n);
  const lockedValue = fromBitsLE(rng(RSA_MODULUS_BITS / 8 + 16)) % n;
  const unlockedValue = modPow(lockedValue, modPow(2n, t, phi), n);
  const l = hashToPrime(n, t, lockedValue, unlockedValue);
  const proof = modPow(lockedValue, ((1n << t) / l) % phi, n);
  const nonce = rng(CHEST_NONCE_SIZE).slice();
  const ciphertext = secretbox(unlockedValueToSymmetricKey(unlockedValue), nonce).seal(payload);
  return {
    chest: encodeChest({ lockedValue, rsaPublic: n, nonce, ciphertext }),
    chestKey: encodeChestKey({ unlockedValue, proof }),
  };
}

/**
 * The key of a chest computed without the factorisation (Octez `create_chest_key`): `time`
 * sequential squarings, then the proof π = x^(2^time / ℓ) mod N. Linear in `time`.
 */
export function createChestKey(chest: Uint8Array, time: bigint | number): Uint8Array {
  const { lockedValue, rsaPublic } = decodeChest(chest);
  const t = timeArg(time);
  let unlockedValue = lockedValue;
  for (let i = 0n; i < t; i++) unlockedValue = (unlockedValue * unlockedValue) % rsaPublic;
  const l = hashToPrime(rsaPublic, t, lockedValue, unlockedValue);
  const proof = modPow(lockedValue, (1n << t) / l, rsaPublic);
  return encodeChestKey({ unlockedValue, proof });
}
