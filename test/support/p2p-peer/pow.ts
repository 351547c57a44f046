/**
 * Proof of work for the test peer, for whole difficulties only (what tests use), from Octez's
 * `Crypto_box.make_pow_target` and `check_proof_of_work`: for a whole difficulty `d` the target is
 * 2^(256-d) - 1, so a stamp passes when BLAKE2b-256(public key ‖ stamp), read as a little-endian
 * integer, has its `d` highest bits at zero. The peer can also make a stamp that misses a target
 * on purpose.
 * @module
 */
import { blake2b } from "@noble/hashes/blake2.js";
import { concat } from "./bytes.ts";
import { keyPair, NONCE_BYTES, peerId } from "./crypto.ts";

/** A peer's identity: keys, peer id, proof-of-work stamp. */
export interface PeerIdentity {
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
  /** `id…` */
  readonly peerId: string;
  readonly stamp: Uint8Array;
}

function checkDifficulty(difficulty: number): void {
  if (!Number.isInteger(difficulty) || difficulty < 0 || difficulty > 64) {
    throw new RangeError(`the test peer handles whole difficulties from 0 to 64, not ${difficulty}`);
  }
}

/** Leading zero bits of `hash` read as a little-endian integer (its last byte is the most significant). */
function leadingZeroBits(hash: Uint8Array): number {
  let bits = 0;
  for (let i = hash.length - 1; i >= 0; i--) {
    const b = hash[i]!;
    if (b === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(b) - 24;
  }
  return bits;
}

/** Whether `stamp` is a proof of work of whole difficulty `difficulty` for `publicKey`. */
export function meetsDifficulty(publicKey: Uint8Array, stamp: Uint8Array, difficulty: number): boolean {
  checkDifficulty(difficulty);
  return leadingZeroBits(blake2b(concat(publicKey, stamp), { dkLen: 32 })) >= difficulty;
}

/** A stamp for `publicKey`: one that meets `difficulty` (`miss` false) or one that misses it (`miss` true). */
export function findStamp(publicKey: Uint8Array, difficulty: number, miss = false): Uint8Array {
  checkDifficulty(difficulty);
  if (miss && difficulty === 0) throw new RangeError("every stamp meets difficulty 0");
  const stamp = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  for (;;) {
    if (meetsDifficulty(publicKey, stamp, difficulty) !== miss) return stamp;
    let i = NONCE_BYTES - 1;
    while (i >= 0 && stamp[i] === 0xff) stamp[i--] = 0;
    if (i >= 0) stamp[i]!++;
  }
}

/**
 * A fresh identity whose stamp meets `difficulty`; with `missing`, one whose stamp misses
 * `missing` (and still meets `difficulty`, which must be lower).
 */
export function makeIdentity(difficulty = 0, options: { missing?: number } = {}): PeerIdentity {
  const { secretKey, publicKey } = keyPair();
  let stamp: Uint8Array;
  if (options.missing === undefined) stamp = findStamp(publicKey, difficulty);
  else {
    if (options.missing <= difficulty) throw new RangeError("makeIdentity: `missing` must exceed `difficulty`");
    do stamp = findStamp(publicKey, difficulty);
    while (meetsDifficulty(publicKey, stamp, options.missing));
  }
  return { secretKey, publicKey, peerId: peerId(publicKey), stamp };
}
