/**
 * A node's P2P identity, as Octez's (`src/lib_crypto/crypto_box.ml`, `src/lib_base/p2p_identity.ml`,
 * `src/bin_node/node_identity_file.ml`): an X25519 key pair (NaCl `crypto_box` keys), the peer id
 * (`id…`, Base58Check of the 16-byte BLAKE2b of the public key) and a proof-of-work stamp, a
 * 24-byte nonce such that BLAKE2b-256(public key ‖ stamp), read as a little-endian integer, is
 * at most the target of a difficulty (`--expected-pow`, 26 by default in octez-node).
 *
 * @example
 * ```ts
 * const identity = await generateIdentity(8, { onProgress: (n) => console.log(`${n} attempts`) });
 * const text = identityToJson(identity);          // what octez-node writes as identity.json
 * parseIdentityJson(text, { expectedPow: 8 });    // the same identity, every field checked
 * ```
 * @module
 */
import { x25519 } from "@noble/curves/ed25519.js";
import { blake2b } from "../crypto/blake2b.ts";
import { B58, b58encode, b58tryDecode } from "../encoding/base58.ts";
import { toHex, tryFromHex } from "../encoding/hex.ts";
import { isPeerId } from "./encoding/point-text.ts";

/** Size of X25519 public and secret keys. */
export const KEY_SIZE = 32;
/** Size of a proof-of-work stamp (a crypto_box nonce). */
export const STAMP_SIZE = 24;
/** Size of a peer id (BLAKE2b-128 of the public key). */
export const PEER_ID_SIZE = 16;
/** octez-node's default `--expected-pow` (`node_config_file.ml`). */
export const DEFAULT_EXPECTED_POW = 26;

/** A P2P identity: keys, peer id and proof-of-work stamp. */
export interface Identity {
  /** `id…`: Base58Check of BLAKE2b-128(publicKey). */
  readonly peerId: string;
  /** X25519 public key (32 bytes). */
  readonly publicKey: Uint8Array;
  /** X25519 secret key (32 bytes, as drawn: clamping happens inside X25519). */
  readonly secretKey: Uint8Array;
  /** Proof-of-work stamp (24 bytes). */
  readonly proofOfWorkStamp: Uint8Array;
}

function checkBytes(what: string, v: unknown, size: number): Uint8Array {
  if (!(v instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
  if (v.length !== size) throw new RangeError(`${what} must be ${size} bytes, got ${v.length}`);
  return v;
}

/** A fresh X25519 key pair: 32 random bytes as the secret key (Octez's `Box.keypair`). */
export function generateKeyPair(): { secretKey: Uint8Array; publicKey: Uint8Array } {
  const secretKey = crypto.getRandomValues(new Uint8Array(KEY_SIZE));
  return { secretKey, publicKey: x25519.getPublicKey(secretKey) };
}

/** The X25519 public key of a secret key (Octez's `Crypto_box.neuterize`). */
export function publicKeyOf(secretKey: Uint8Array): Uint8Array {
  return x25519.getPublicKey(checkBytes("secretKey", secretKey, KEY_SIZE));
}

/** The 16 bytes of a peer id: BLAKE2b-128 of the public key (`Crypto_box.hash`). */
export function peerIdBytes(publicKey: Uint8Array): Uint8Array {
  return blake2b(PEER_ID_SIZE, checkBytes("publicKey", publicKey, KEY_SIZE));
}

/**
 * The peer id of a public key, `id…` (30 characters).
 * @example peerIdOf(publicKey) // "idtqxHUjbjbCfaDn4jczoPGsnhacKX"
 */
export function peerIdOf(publicKey: Uint8Array): string {
  return b58encode(B58.cryptoboxPublicKeyHash, peerIdBytes(publicKey));
}

/** Whether `text` is a well-formed peer id (`id…`). */
export { isPeerId };

// ---------------------------------------------------------------------------------------------
// Proof of work

/**
 * The proof-of-work target of a difficulty, as Octez's `Crypto_box.make_pow_target`: with
 * `shift` and `frac` the integer and fractional parts of the difficulty, `m = 2^54 - 1` when
 * `frac` is 0, else the 64-bit truncation of the double `2 ** (54 - frac)`; the target is
 * `(m << (202 - shift)) | (2^(202 - shift) - 1)` when `shift < 202`, else `m >> (shift - 202)`.
 * A stamp passes when its hash, read as a little-endian integer, is at most the target, so
 * difficulty 0 (target 2^256 - 1) accepts every stamp and each unit halves the chance.
 *
 * OCaml's `**` is the C library's `pow`, correctly rounded for these arguments (glibc, musl);
 * V8's `Math.pow` is off by one unit in the last place for about one difficulty in ten, so the
 * double is computed here with integers instead (see {@link pow2Double}).
 * @throws RangeError when the difficulty is not a number in 0..256.
 * @example powTarget(24) // 2n ** 232n - 1n
 */
export function powTarget(difficulty: number): bigint {
  if (typeof difficulty !== "number" || Number.isNaN(difficulty) || difficulty < 0 || difficulty > 256) {
    throw new RangeError(`proof-of-work difficulty must be a number in 0..256, got ${String(difficulty)}`);
  }
  const shift = Math.trunc(difficulty);
  const frac = difficulty - shift; // exact, as modf
  const m = frac === 0 ? (1n << 54n) - 1n : pow2Double(54 - frac);
  return shift < 202 ? (m << BigInt(202 - shift)) | ((1n << BigInt(202 - shift)) - 1n) : m >> BigInt(shift - 202);
}

const FIXED_BITS = 200n;
const FIXED_ONE = 1n << FIXED_BITS;
let ln2Fixed: bigint | undefined;

/** ln 2 in fixed point (200 fractional bits): the sum of 1/(k·2^k) for k ≥ 1. */
function ln2(): bigint {
  if (ln2Fixed === undefined) {
    let sum = 0n;
    for (let k = 1n; k <= FIXED_BITS + 8n; k++) sum += FIXED_ONE / (k << k);
    ln2Fixed = sum;
  }
  return ln2Fixed;
}

/**
 * The double nearest to 2^y (y between 52 and 1023, where doubles are integers), as an integer: 2^⌊y⌋ times 2^t (t the
 * fractional part of y) rounded to 53 significant bits. 2^t = exp(t·ln 2) is summed in fixed
 * point with 200 fractional bits, far more than the rounding needs (2^t is irrational for a
 * non-integer t, so it is never a tie).
 */
export function pow2Double(y: number): bigint {
  if (!(y >= 52 && y <= 1023)) throw new RangeError(`pow2Double: exponent ${y} out of range`);
  const n = Math.floor(y);
  const t = y - n; // exact
  if (t === 0) return 1n << BigInt(n);
  // t is a double in (0, 1): t·2^1074 is an integer, exactly representable once split.
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, t);
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn) - 1075; // t = mantissa · 2^exponent
  const mantissa = (bits & ((1n << 52n) - 1n)) | (exponent === -1075 ? 0n : 1n << 52n);
  const e = exponent === -1075 ? -1074 : exponent;
  const tFixed = (mantissa << FIXED_BITS) >> BigInt(-e); // t · 2^200, rounded down
  const x = (tFixed * ln2()) >> FIXED_BITS;
  // exp(x), 0 < x < ln 2
  let term = FIXED_ONE;
  let sum = FIXED_ONE;
  for (let k = 1n; term !== 0n; k++) {
    term = (term * x) / (FIXED_ONE * k);
    sum += term;
  }
  const scaled = (sum << 52n) + (FIXED_ONE >> 1n); // 2^t · 2^52, rounded below
  const r = scaled >> FIXED_BITS;
  return r << BigInt(n - 52);
}

/** The target as 32 little-endian bytes, for byte-wise comparison with hashes. */
function targetBytes(target: bigint): Uint8Array {
  if (typeof target !== "bigint" || target < 0n) throw new RangeError("proof-of-work target must be a non-negative bigint");
  const out = new Uint8Array(32);
  if (target >= 1n << 256n) return out.fill(0xff);
  let t = target;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(t & 0xffn);
    t >>= 8n;
  }
  return out;
}

/** Whether `hash` read as a little-endian integer is at most `target` (32 LE bytes). */
function leAtMost(hash: Uint8Array, target: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    const a = hash[i]!;
    const b = target[i]!;
    if (a !== b) return a < b;
  }
  return true;
}

/** A target given as a bigint (from {@link powTarget}) or as a difficulty (a number). */
export type PowTarget = bigint | number;

function toTarget(target: PowTarget): bigint {
  return typeof target === "number" ? powTarget(target) : target;
}

/**
 * Whether `stamp` is a proof of work for `publicKey` at `target` (Octez's
 * `Crypto_box.check_proof_of_work`): BLAKE2b-256(publicKey ‖ stamp) as a little-endian integer
 * is at most the target.
 * @example checkProofOfWork(pk, stamp, powTarget(26))
 */
export function checkProofOfWork(publicKey: Uint8Array, stamp: Uint8Array, target: PowTarget): boolean {
  checkBytes("publicKey", publicKey, KEY_SIZE);
  checkBytes("stamp", stamp, STAMP_SIZE);
  return leAtMost(blake2b(32, publicKey, stamp), targetBytes(toTarget(target)));
}

/** Adds one to a 24-byte nonce, big-endian, in place (wrapping at 2^192). */
function incrementInPlace(b: Uint8Array, from: number, to: number): void {
  for (let i = to - 1; i >= from; i--) {
    b[i] = (b[i]! + 1) & 0xff;
    if (b[i] !== 0) return;
  }
}

/** Options of {@link generateProofOfWork}. */
export interface ProofOfWorkOptions {
  /** Attempts between two yields to the event loop (default 10 000, as Octez). */
  readonly yieldEvery?: number;
  /** Called at each yield with the number of attempts so far. */
  readonly onProgress?: (attempts: number) => void;
  /** Stops the search: the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Gives up after this many attempts (the promise resolves to `undefined`), as Octez's `?max`. */
  readonly maxAttempts?: number;
  /** First stamp to try (default: random, as Octez); the next ones count up from it. */
  readonly start?: Uint8Array;
}

/**
 * Searches a proof-of-work stamp for `publicKey` (Octez's `Crypto_box.generate_proof_of_work`):
 * from a random 24-byte nonce, counting up (big-endian) until one passes the target; yields to
 * the event loop every `yieldEvery` attempts so that a command line can print progress and a
 * signal can stop it. Each difficulty unit doubles the expected work (2^d attempts on average).
 * @returns the stamp, or `undefined` when `maxAttempts` ran out.
 * @example const stamp = await generateProofOfWork(pk, 26, { onProgress: (n) => log(n) });
 */
export async function generateProofOfWork(
  publicKey: Uint8Array,
  target: PowTarget,
  options: ProofOfWorkOptions = {},
): Promise<Uint8Array | undefined> {
  checkBytes("publicKey", publicKey, KEY_SIZE);
  const goal = targetBytes(toTarget(target));
  const yieldEvery = options.yieldEvery ?? 10_000;
  if (!Number.isInteger(yieldEvery) || yieldEvery < 1) throw new RangeError("yieldEvery must be a positive integer");
  const max = options.maxAttempts ?? Infinity;
  const signal = options.signal;
  const buf = new Uint8Array(KEY_SIZE + STAMP_SIZE);
  buf.set(publicKey, 0);
  buf.set(options.start !== undefined ? checkBytes("start", options.start, STAMP_SIZE) : crypto.getRandomValues(new Uint8Array(STAMP_SIZE)), KEY_SIZE);
  let attempts = 0;
  for (;;) {
    signal?.throwIfAborted();
    const stop = Math.min(attempts + yieldEvery, max);
    while (attempts < stop) {
      attempts++;
      if (leAtMost(blake2b(32, buf), goal)) return buf.slice(KEY_SIZE);
      incrementInPlace(buf, KEY_SIZE, KEY_SIZE + STAMP_SIZE);
    }
    if (attempts >= max) return undefined;
    options.onProgress?.(attempts);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** Options of {@link generateIdentity}. */
export type GenerateIdentityOptions = ProofOfWorkOptions;

/**
 * A new identity whose stamp meets `difficulty` (octez-node `identity generate`).
 * @example const id = await generateIdentity(26);
 */
export async function generateIdentity(difficulty: PowTarget, options: GenerateIdentityOptions = {}): Promise<Identity> {
  const { secretKey, publicKey } = generateKeyPair();
  const stamp = await generateProofOfWork(publicKey, difficulty, options);
  if (stamp === undefined) throw new RangeError(`no proof of work found within ${options.maxAttempts} attempts`);
  return { peerId: peerIdOf(publicKey), publicKey, secretKey, proofOfWorkStamp: stamp };
}

// ---------------------------------------------------------------------------------------------
// identity.json

/** A bad identity file; `field` names the offending field when there is one. */
export class IdentityFileError extends Error {
  override name = "IdentityFileError";
  /** `peer_id`, `public_key`, `secret_key` or `proof_of_work_stamp`, or another key found in the file. */
  readonly field: string | undefined;
  constructor(message: string, field?: string) {
    super(message);
    this.field = field;
  }
}

const FIELDS = ["peer_id", "public_key", "secret_key", "proof_of_work_stamp"] as const;

function hexField(obj: Record<string, unknown>, field: string, size: number): Uint8Array {
  const v = obj[field];
  if (v === undefined) throw new IdentityFileError(`identity file: missing field "${field}"`, field);
  if (typeof v !== "string") throw new IdentityFileError(`identity file: "${field}" must be a string of ${2 * size} hex digits`, field);
  const b = tryFromHex(v);
  if (b === undefined || b.length !== size) {
    throw new IdentityFileError(`identity file: "${field}" must be ${size} bytes as ${2 * size} hex digits`, field);
  }
  return b;
}

/** Options of {@link parseIdentityJson}. */
export interface ParseIdentityOptions {
  /** Also require the stamp to meet this difficulty (octez-node's check at start-up). */
  readonly expectedPow?: number;
}

/**
 * Reads an identity.json text as octez-node does (`Node_identity_file.read`): the JSON object
 * `{peer_id?, public_key, secret_key, proof_of_work_stamp}` (keys and stamp as hex, the peer id
 * as `id…`, computed from the public key when absent; no other field), then checks that the peer
 * id is the public key's, that the secret key gives the public key, and, if asked, the proof of
 * work.
 * @throws IdentityFileError naming the field at fault.
 * @example parseIdentityJson(identityFileText, { expectedPow: 26 })
 */
export function parseIdentityJson(text: string, options: ParseIdentityOptions = {}): Identity {
  if (typeof text !== "string") throw new TypeError("parseIdentityJson: text must be a string");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new IdentityFileError(`identity file is not JSON: ${(e as Error).message}`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new IdentityFileError("identity file: expected a JSON object");
  const obj = json as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    if (!(FIELDS as readonly string[]).includes(k)) throw new IdentityFileError(`identity file: unexpected field "${k}"`, k);
  }
  const publicKey = hexField(obj, "public_key", KEY_SIZE);
  const secretKey = hexField(obj, "secret_key", KEY_SIZE);
  const proofOfWorkStamp = hexField(obj, "proof_of_work_stamp", STAMP_SIZE);
  const computed = peerIdOf(publicKey);
  const given = obj["peer_id"];
  if (given !== undefined) {
    if (typeof given !== "string" || !isPeerId(given)) {
      throw new IdentityFileError(`identity file: "peer_id" must be a peer id (id…, Base58Check), got ${JSON.stringify(given)}`, "peer_id");
    }
    if (given !== computed) {
      throw new IdentityFileError(`identity file: "peer_id" ${given} does not match the public key (whose peer id is ${computed})`, "peer_id");
    }
  }
  let derived: Uint8Array;
  try {
    derived = x25519.getPublicKey(secretKey);
  } catch {
    throw new IdentityFileError(`identity file: "secret_key" is not an X25519 secret key`, "secret_key");
  }
  if (toHex(derived) !== toHex(publicKey)) {
    throw new IdentityFileError(`identity file: "secret_key" does not match "public_key" (secret key/public key pair is not valid)`, "secret_key");
  }
  if (options.expectedPow !== undefined && !checkProofOfWork(publicKey, proofOfWorkStamp, powTarget(options.expectedPow))) {
    throw new IdentityFileError(
      `identity file: "proof_of_work_stamp" is not a sufficient proof of work (expected level: ${options.expectedPow.toFixed(2)})`,
      "proof_of_work_stamp",
    );
  }
  return { peerId: computed, publicKey, secretKey, proofOfWorkStamp };
}

/**
 * The identity.json text octez-node writes (`Data_encoding.Json.to_string ~minify:false`, which
 * lays out within 78 columns): the short fields on their key's line, the 64-digit keys on the
 * next line, no final newline.
 * @example
 * ```
 * { "peer_id": "idtqxHUjbjbCfaDn4jczoPGsnhacKX",
 *   "public_key":
 *     "a072c7b3e477142689cadee638078b377df5e5793e3cea529d0b718cde59f212",
 *   "secret_key":
 *     "d37c77a8643c7f7fce9219e9769ed4dd23bc542265da47a64a2613bd199ad74e",
 *   "proof_of_work_stamp": "0cfe810d9b4591f0f50721b6811f2981a4274e9d0593bbd0" }
 * ```
 */
export function identityToJson(identity: Identity): string {
  checkBytes("publicKey", identity.publicKey, KEY_SIZE);
  checkBytes("secretKey", identity.secretKey, KEY_SIZE);
  checkBytes("proofOfWorkStamp", identity.proofOfWorkStamp, STAMP_SIZE);
  if (!isPeerId(identity.peerId)) throw new TypeError(`peerId must be a peer id, got ${JSON.stringify(identity.peerId)}`);
  const fields: [string, string][] = [
    ["peer_id", identity.peerId],
    ["public_key", toHex(identity.publicKey)],
    ["secret_key", toHex(identity.secretKey)],
    ["proof_of_work_stamp", toHex(identity.proofOfWorkStamp)],
  ];
  const MARGIN = 78;
  const lines = fields.map(([k, v], i) => {
    const lead = i === 0 ? "{ " : "  ";
    const end = i === fields.length - 1 ? " }" : ",";
    const key = `${JSON.stringify(k)}:`;
    const value = JSON.stringify(v);
    const oneLine = `${lead}${key} ${value}${end}`;
    return oneLine.length <= MARGIN ? oneLine : `${lead}${key}\n    ${value}${end}`;
  });
  return lines.join("\n");
}
