/**
 * The seed nonces the sandbox baker committed to, kept in the node's store (table
 * `bakerNonces`, 0x18) so that a restarted node still reveals them. Key: chain id (4) ‖ level
 * (u32, big-endian) ‖ nonce hash (32); value: the 32-byte nonce. Keying by the hash lets the
 * baker find the nonce of whatever commitment the chain holds at a level (after a reorganisation
 * the context tells which one counts).
 *
 * A nonce is written before the block that commits to it is injected: a crash between the two
 * leaves an unused entry, never a commitment whose nonce is lost.
 *
 * @example
 * ```ts
 * const nonces = new NonceStore(kv, chainIdBytes);
 * const nonce = drawNonce();
 * await nonces.put(8, nonce);
 * nonces.find(8, nonceHash(nonce)); // nonce
 * await nonces.prune(9);            // forget levels below 9
 * ```
 * @module
 */
import { nonceHash } from "../crypto/hashes.ts";
import type { KeyValueStore, WriteOp } from "../store/kv.ts";
import { key, prefixRange, Table, u32 } from "../store/tables.ts";

/** Size of a seed nonce and of its hash. */
export const NONCE_SIZE = 32;

/** A fresh random 32-byte seed nonce (what the Octez baker draws too). */
export function drawNonce(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(NONCE_SIZE));
}

function checkBytes(what: string, b: unknown, size: number): Uint8Array {
  if (!(b instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
  if (b.length !== size) throw new RangeError(`${what} must be ${size} bytes, got ${b.length}`);
  return b;
}

function checkLevel(level: unknown): number {
  if (typeof level !== "number" || !Number.isInteger(level)) throw new TypeError(`level must be an integer, got ${String(level)}`);
  if (level < 0 || level > 0x7fffffff) throw new RangeError(`level must be in [0, 2^31 - 1], got ${level}`);
  return level;
}

/** The baker's committed seed nonces of one chain, in a key-value store. */
export class NonceStore {
  readonly kv: KeyValueStore;
  readonly chainId: Uint8Array;

  constructor(kv: KeyValueStore, chainId: Uint8Array) {
    if (kv === null || typeof kv !== "object" || typeof kv.get !== "function") throw new TypeError("kv must be a KeyValueStore");
    this.kv = kv;
    this.chainId = checkBytes("chainId", chainId, 4).slice();
  }

  private key(level: number, hash: Uint8Array): Uint8Array {
    return key(Table.bakerNonces, this.chainId, u32(checkLevel(level)), checkBytes("nonce hash", hash, NONCE_SIZE));
  }

  /** The write that records `nonce` as committed at `level` (to join another atomic write). */
  putOp(level: number, nonce: Uint8Array): WriteOp {
    checkBytes("nonce", nonce, NONCE_SIZE);
    return { key: this.key(level, nonceHash(nonce)), value: nonce.slice() };
  }

  /** Records `nonce` as committed at `level`; resolves once durable. */
  async put(level: number, nonce: Uint8Array): Promise<void> {
    await this.kv.write([this.putOp(level, nonce)]);
  }

  /** The nonce committed at `level` whose hash is `hash` (raw 32 bytes), if this baker drew it. */
  find(level: number, hash: Uint8Array): Uint8Array | undefined {
    const v = this.kv.get(this.key(level, hash));
    return v === undefined ? undefined : v.slice();
  }

  /** Every recorded nonce, ascending by level: `{ level, nonce }`. */
  list(): { level: number; nonce: Uint8Array }[] {
    const prefix = key(Table.bakerNonces, this.chainId);
    const out: { level: number; nonce: Uint8Array }[] = [];
    for (const [k, v] of this.kv.range(prefixRange(prefix))) {
      const level = new DataView(k.buffer, k.byteOffset + prefix.length, 4).getUint32(0);
      out.push({ level, nonce: v.slice() });
    }
    return out;
  }

  /** Forgets every nonce committed below `level` (revealed, or too late to reveal). */
  async prune(level: number): Promise<void> {
    const lt = key(Table.bakerNonces, this.chainId, u32(checkLevel(level)));
    const ops: WriteOp[] = [];
    for (const [k] of this.kv.range({ gte: key(Table.bakerNonces, this.chainId), lt })) ops.push({ key: k });
    if (ops.length > 0) await this.kv.write(ops);
  }
}
