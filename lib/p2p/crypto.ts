/**
 * The cryptography of an authenticated P2P connection, as Octez's (`src/lib_crypto/crypto_box.ml`,
 * `src/lib_p2p/p2p_socket.ml`): the channel key is NaCl's `crypto_box_beforenm` (X25519 shared
 * secret, then HSalsa20 under a zero nonce); each chunk is sealed with XSalsa20-Poly1305 under
 * that key (`crypto_box_afternm`), its 16-byte tag first; each side keeps one nonce per
 * direction, drawn from the two connection messages and incremented (big-endian) per chunk.
 *
 * @example
 * ```ts
 * const key = channelKey(mySecretKey, theirPublicKey);
 * const { local, remote } = generateNonces({ incoming: false, sentMessage, receivedMessage });
 * const sealed = boxChunk(key, local, payload);       // tag ‖ ciphertext
 * unboxChunk(key, local, sealed);                     // payload, or undefined if forged
 * ```
 * @module
 */
import { x25519 } from "@noble/curves/ed25519.js";
import { hsalsa, xsalsa20poly1305 } from "@noble/ciphers/salsa.js";
import { blake2b } from "../crypto/blake2b.ts";

/** Size of a crypto_box nonce. */
export const NONCE_SIZE = 24;
/** Size of the Poly1305 tag that precedes each chunk's ciphertext. */
export const TAG_SIZE = 16;
/** Size of a channel key. */
export const CHANNEL_KEY_SIZE = 32;

const SIGMA = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]); // "expand 32-byte k"

function checkBytes(what: string, v: unknown, size?: number): Uint8Array {
  if (!(v instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
  if (size !== undefined && v.length !== size) throw new RangeError(`${what} must be ${size} bytes, got ${v.length}`);
  return v;
}

/** A public key whose X25519 product is the neutral element (a low-order point): no channel can be keyed. */
export class InvalidPublicKeyError extends Error {
  override name = "InvalidPublicKeyError";
}

/**
 * The channel key of a connection (NaCl `crypto_box_beforenm`, Octez's `Crypto_box.precompute`):
 * HSalsa20 of the X25519 shared secret under a zero 16-byte nonce. Both ends get the same key.
 * @throws InvalidPublicKeyError for a low-order public key (Octez's HACL* refuses it too).
 */
export function channelKey(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  checkBytes("secretKey", secretKey, 32);
  checkBytes("publicKey", publicKey, 32);
  let shared: Uint8Array;
  try {
    shared = x25519.getSharedSecret(secretKey, publicKey);
  } catch (e) {
    throw new InvalidPublicKeyError(`cannot key a channel with this public key: ${(e as Error).message}`);
  }
  const view = new DataView(shared.buffer, shared.byteOffset, 32);
  const k = new Uint32Array(8);
  for (let i = 0; i < 8; i++) k[i] = view.getUint32(4 * i, true);
  const out = new Uint32Array(8);
  hsalsa(SIGMA, k, new Uint32Array(4), out);
  const key = new Uint8Array(CHANNEL_KEY_SIZE);
  const kv = new DataView(key.buffer);
  for (let i = 0; i < 8; i++) kv.setUint32(4 * i, out[i]!, true);
  return key;
}

const INIT_TO_RESP = new TextEncoder().encode("Init -> Resp");
const RESP_TO_INIT = new TextEncoder().encode("Resp -> Init");

/** The two connection messages of a handshake, each with its 2-byte length prefix, as sent. */
export interface NonceSeeds {
  /** Whether the peer opened the connection (we accepted it). */
  readonly incoming: boolean;
  /** Our connection message, with its length prefix. */
  readonly sentMessage: Uint8Array;
  /** The peer's connection message, with its length prefix. */
  readonly receivedMessage: Uint8Array;
}

/**
 * The nonces of a connection (Octez's `Crypto_box.generate_nonces`): with `init` the connection
 * message of the side that opened the connection and `resp` the other's, each nonce is the first
 * 24 bytes of BLAKE2b-256(init ‖ resp ‖ label); the side that opened the connection takes the
 * "Resp -> Init" nonce for what it sends and "Init -> Resp" for what it receives, the other side
 * the reverse (so one side's local nonce is the other's remote nonce). The labels read as if
 * swapped; this is Octez's behaviour, kept as is.
 */
export function generateNonces(seeds: NonceSeeds): { local: Uint8Array; remote: Uint8Array } {
  const sent = checkBytes("sentMessage", seeds.sentMessage);
  const received = checkBytes("receivedMessage", seeds.receivedMessage);
  const [init, resp] = seeds.incoming ? [received, sent] : [sent, received];
  const initToResp = blake2b(32, init, resp, INIT_TO_RESP).slice(0, NONCE_SIZE);
  const respToInit = blake2b(32, init, resp, RESP_TO_INIT).slice(0, NONCE_SIZE);
  return seeds.incoming ? { local: initToResp, remote: respToInit } : { local: respToInit, remote: initToResp };
}

/**
 * The next nonce: the 24 bytes as a big-endian integer plus one, wrapping at 2^192 (HACL*'s
 * `Nonce.increment`, by 16-bit words from the end, which is the same thing). A new array.
 */
export function incrementNonce(nonce: Uint8Array): Uint8Array {
  const out = checkBytes("nonce", nonce, NONCE_SIZE).slice();
  for (let i = NONCE_SIZE - 1; i >= 0; i--) {
    out[i] = (out[i]! + 1) & 0xff;
    if (out[i] !== 0) break;
  }
  return out;
}

/** Seals one chunk's payload (NaCl `crypto_box_afternm`): the 16-byte tag, then the ciphertext. */
export function boxChunk(key: Uint8Array, nonce: Uint8Array, payload: Uint8Array): Uint8Array {
  checkBytes("key", key, CHANNEL_KEY_SIZE);
  checkBytes("nonce", nonce, NONCE_SIZE);
  return xsalsa20poly1305(key, nonce).encrypt(checkBytes("payload", payload));
}

/** Opens a sealed chunk (tag ‖ ciphertext); `undefined` when it does not authenticate. */
export function unboxChunk(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array): Uint8Array | undefined {
  checkBytes("key", key, CHANNEL_KEY_SIZE);
  checkBytes("nonce", nonce, NONCE_SIZE);
  if (checkBytes("sealed", sealed).length < TAG_SIZE) return undefined;
  try {
    return xsalsa20poly1305(key, nonce).decrypt(sealed);
  } catch {
    return undefined;
  }
}
