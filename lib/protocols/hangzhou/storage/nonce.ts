/**
 * Seed nonce commitments and revelations (Octez `Nonce_storage`), stored at
 * `cycle/<c>/nonces/<level>` as `nonce_status`: tag 0 Unrevealed (nonce hash 32 ‖ delegate key
 * hash 21 ‖ rewards tez ‖ fees tez) or tag 1 Revealed (the 32-byte nonce).
 * @module
 */
import { B58, b58decode, b58encode } from "../../../encoding/base58.ts";
import { DecodeError, Reader, Writer } from "../../../encoding/codec.ts";
import { readN, writeN } from "../../../encoding/zarith.ts";
import { nonceHash } from "../../../crypto/hashes.ts";
import type { Level } from "../level.ts";
import { inconsistentNonce, previouslyRevealedNonce, storageError, tooEarlyRevelation, tooLateRevelation } from "./errors.ts";
import { cyclePath, decodePkh, encodePkh } from "./layout.ts";
import type { ProtoContext } from "./proto-context.ts";

/** A commitment whose nonce is not revealed yet, with the block's rewards and fees (burnt if never revealed). */
export interface UnrevealedNonce {
  kind: "unrevealed";
  /** `nce…`. */
  nonceHash: string;
  /** The baker that committed (`tz…`). */
  delegate: string;
  rewards: bigint;
  fees: bigint;
}

/** A revealed nonce. */
export interface RevealedNonce {
  kind: "revealed";
  nonce: Uint8Array;
}

/** What a commitment level holds. */
export type NonceStatus = UnrevealedNonce | RevealedNonce;

/** Binary `nonce_status`. */
export function encodeNonceStatus(s: NonceStatus): Uint8Array {
  const w = new Writer();
  if (s.kind === "revealed") {
    if (!(s.nonce instanceof Uint8Array) || s.nonce.length !== 32) throw new RangeError("a nonce is 32 bytes");
    w.u8(1);
    w.raw(s.nonce);
  } else {
    w.u8(0);
    w.raw(b58decode(B58.nonceHash, s.nonceHash));
    w.raw(encodePkh(s.delegate));
    writeN(w, s.rewards);
    writeN(w, s.fees);
  }
  return w.bytes();
}

/** Reads a binary `nonce_status`. */
export function decodeNonceStatus(b: Uint8Array): NonceStatus {
  const r = new Reader(b);
  const tag = r.u8();
  let out: NonceStatus;
  if (tag === 1) out = { kind: "revealed", nonce: r.take(32).slice() };
  else if (tag === 0) {
    const h = b58encode(B58.nonceHash, r.take(32));
    const delegate = decodePkh(r.take(21));
    out = { kind: "unrevealed", nonceHash: h, delegate, rewards: readN(r, 10), fees: readN(r, 10) };
  } else throw new DecodeError(`Unknown nonce status tag ${tag}`);
  if (r.remaining !== 0) throw new DecodeError("Trailing bytes after a nonce status");
  return out;
}

function noncePath(level: Level): string[] {
  return cyclePath(level.cycle, "nonces", String(level.level));
}

/** The status at a level, or `undefined` (no commitment, or already consumed by a cycle end). */
export function findNonce(pc: ProtoContext, level: Level): NonceStatus | undefined {
  const b = pc.find(noncePath(level));
  if (b === undefined) return undefined;
  try {
    return decodeNonceStatus(b);
  } catch {
    throw storageError.error({ corrupted_data: noncePath(level) });
  }
}

/** The status at a level (`Seed.Nonce.get`); `context.storage_error` when there is none. */
export function getNonce(pc: ProtoContext, level: Level): NonceStatus {
  const s = findNonce(pc, level);
  if (s === undefined) throw storageError.error({ missing_key: noncePath(level), function: "get" });
  return s;
}

/** Removes a level's entry (`Seed.Nonce.remove_existing`). */
export function removeNonce(pc: ProtoContext, level: Level): void {
  pc.removeExisting(noncePath(level));
}

/** Records the commitment of the current block (`record_hash`): Unrevealed at the current level. */
export function recordNonceHash(pc: ProtoContext, u: Omit<UnrevealedNonce, "kind">): void {
  pc.init(noncePath(pc.level), encodeNonceStatus({ kind: "unrevealed", ...u }));
}

/**
 * The unrevealed commitment at `level`, checking the revelation is timely (`get_unrevealed`):
 * `nonce.too_early_revelation` during cycle 0 or for a commitment of the current cycle or later,
 * `nonce.too_late_revelation` before the previous cycle, `nonce.previously_revealed`, and
 * `context.storage_error` for a level without commitment.
 */
export function getUnrevealed(pc: ProtoContext, level: Level): UnrevealedNonce {
  const current = pc.level.cycle;
  if (current === 0) throw tooEarlyRevelation.error();
  const revealedCycle = current - 1;
  if (revealedCycle < level.cycle) throw tooEarlyRevelation.error();
  if (level.cycle < revealedCycle) throw tooLateRevelation.error();
  const s = getNonce(pc, level);
  if (s.kind === "revealed") throw previouslyRevealedNonce.error();
  return s;
}

/** Reveals the nonce of `level` (`reveal`): `nonce.inconsistent` unless H(nonce) is the committed hash. */
export function revealNonce(pc: ProtoContext, level: Level, nonce: Uint8Array): void {
  const u = getUnrevealed(pc, level);
  if (!(nonce instanceof Uint8Array) || nonce.length !== 32) throw inconsistentNonce.error();
  if (b58encode(B58.nonceHash, nonceHash(nonce)) !== u.nonceHash) throw inconsistentNonce.error();
  pc.update(noncePath(level), encodeNonceStatus({ kind: "revealed", nonce }));
}
