/**
 * The test peer's cryptography, written from Octez's `src/lib_crypto/crypto_box.ml` and NaCl's
 * definitions, on the noble libraries directly (no code of `lib/`):
 * - key pairs are X25519 (`@noble/curves`); a peer id is `id…`, the Base58Check (prefix
 *   `99 67`) of the 16-byte BLAKE2b of the public key;
 * - the channel key is NaCl's `crypto_box_beforenm`: HSalsa20 (written out here, from the
 *   Salsa20 specification) of the X25519 shared secret under a zero 16-byte input;
 * - a chunk is `crypto_box_afternm`: XSalsa20-Poly1305 (`@noble/ciphers`), tag first;
 * - the nonces come from the two connection messages as sent (length prefix included): the first
 *   24 bytes of BLAKE2b-256(initiator's ‖ responder's ‖ label), labels `Init -> Resp` and
 *   `Resp -> Init`; the initiator sends under the `Resp -> Init` one.
 * @module
 */
import { x25519 } from "@noble/curves/ed25519.js";
import { xsalsa20poly1305 } from "@noble/ciphers/salsa.js";
import { blake2b } from "@noble/hashes/blake2.js";
import bs58check from "bs58check";
import { concat } from "./bytes.ts";

/** Bytes of a crypto_box nonce, and of a proof-of-work stamp. */
export const NONCE_BYTES = 24;
/** Bytes of a Poly1305 tag. */
export const TAG_BYTES = 16;

/** Base58Check prefix of a peer id (`id`). */
const PEER_ID_PREFIX = Uint8Array.of(153, 103);

/** A fresh X25519 key pair. */
export function keyPair(): { secretKey: Uint8Array; publicKey: Uint8Array } {
  const secretKey = crypto.getRandomValues(new Uint8Array(32));
  return { secretKey, publicKey: x25519.getPublicKey(secretKey) };
}

/** The X25519 public key of a secret key. */
export function publicKeyOf(secretKey: Uint8Array): Uint8Array {
  return x25519.getPublicKey(secretKey);
}

/** `id…`: the peer id of a public key. */
export function peerId(publicKey: Uint8Array): string {
  return bs58check.encode(concat(PEER_ID_PREFIX, blake2b(publicKey, { dkLen: 16 })));
}

function rotl(x: number, n: number): number {
  return (x << n) | (x >>> (32 - n));
}

/**
 * HSalsa20: the Salsa20 state of `key` (32 bytes) and `input` (16 bytes), twenty rounds, no
 * feed-forward, and words 0, 5, 10, 15, 6, 7, 8, 9 of the result as 32 bytes.
 */
export function hsalsa20(key: Uint8Array, input: Uint8Array): Uint8Array {
  if (key.length !== 32 || input.length !== 16) throw new RangeError("hsalsa20: a 32-byte key and a 16-byte input");
  const word = (b: Uint8Array, i: number) => (b[4 * i]! | (b[4 * i + 1]! << 8) | (b[4 * i + 2]! << 16) | (b[4 * i + 3]! << 24)) >>> 0;
  // "expand 32-byte k", as four little-endian words
  const x = [
    0x61707865, word(key, 0), word(key, 1), word(key, 2),
    word(key, 3), 0x3320646e, word(input, 0), word(input, 1),
    word(input, 2), word(input, 3), 0x79622d32, word(key, 4),
    word(key, 5), word(key, 6), word(key, 7), 0x6b206574,
  ];
  const quarter = (a: number, b: number, c: number, d: number) => {
    x[b] = (x[b]! ^ rotl((x[a]! + x[d]!) | 0, 7)) >>> 0;
    x[c] = (x[c]! ^ rotl((x[b]! + x[a]!) | 0, 9)) >>> 0;
    x[d] = (x[d]! ^ rotl((x[c]! + x[b]!) | 0, 13)) >>> 0;
    x[a] = (x[a]! ^ rotl((x[d]! + x[c]!) | 0, 18)) >>> 0;
  };
  for (let round = 0; round < 20; round += 2) {
    // columns
    quarter(0, 4, 8, 12);
    quarter(5, 9, 13, 1);
    quarter(10, 14, 2, 6);
    quarter(15, 3, 7, 11);
    // rows
    quarter(0, 1, 2, 3);
    quarter(5, 6, 7, 4);
    quarter(10, 11, 8, 9);
    quarter(15, 12, 13, 14);
  }
  const out = new Uint8Array(32);
  [0, 5, 10, 15, 6, 7, 8, 9].forEach((w, i) => {
    const v = x[w]!;
    out[4 * i] = v & 0xff;
    out[4 * i + 1] = (v >>> 8) & 0xff;
    out[4 * i + 2] = (v >>> 16) & 0xff;
    out[4 * i + 3] = v >>> 24;
  });
  return out;
}

/** NaCl's `crypto_box_beforenm`: HSalsa20 of the X25519 shared secret under zeros. */
export function channelKey(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  return hsalsa20(x25519.getSharedSecret(secretKey, publicKey), new Uint8Array(16));
}

const INIT_TO_RESP = new TextEncoder().encode("Init -> Resp");
const RESP_TO_INIT = new TextEncoder().encode("Resp -> Init");

/**
 * The nonces of one side: `sent` and `received` are the two connection messages with their length
 * prefixes; `initiator` says whether this side opened the TCP connection.
 */
export function sessionNonces(initiator: boolean, sent: Uint8Array, received: Uint8Array): { send: Uint8Array; receive: Uint8Array } {
  const seed = initiator ? concat(sent, received) : concat(received, sent);
  const initToResp = blake2b(concat(seed, INIT_TO_RESP), { dkLen: 32 }).slice(0, NONCE_BYTES);
  const respToInit = blake2b(concat(seed, RESP_TO_INIT), { dkLen: 32 }).slice(0, NONCE_BYTES);
  return initiator ? { send: respToInit, receive: initToResp } : { send: initToResp, receive: respToInit };
}

/** The nonce after `nonce`: plus one, as a 192-bit big-endian integer. */
export function nextNonce(nonce: Uint8Array): Uint8Array {
  const out = Uint8Array.from(nonce);
  let i = out.length - 1;
  while (i >= 0 && out[i] === 0xff) out[i--] = 0;
  if (i >= 0) out[i]!++;
  return out;
}

/** `crypto_box_afternm`: tag ‖ ciphertext. */
export function seal(key: Uint8Array, nonce: Uint8Array, plain: Uint8Array): Uint8Array {
  return xsalsa20poly1305(key, nonce).encrypt(plain);
}

/** `crypto_box_open_afternm`: the plaintext, or `undefined` when the tag is wrong. */
export function open(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array): Uint8Array | undefined {
  if (sealed.length < TAG_BYTES) return undefined;
  try {
    return xsalsa20poly1305(key, nonce).decrypt(sealed);
  } catch {
    return undefined;
  }
}
