/**
 * The operations the sandbox baker puts in its own blocks: the endorsements of its delegates
 * (`endorsement_with_slot`, validation pass 0) and the revelations of its seed nonces
 * (`seed_nonce_revelation`, pass 2), forged in Hangzhou's binary encoding.
 *
 * - Endorsement (HANGZHOU-FACTS §5): the inner endorsement `{branch: B, endorsement {level:
 *   B.level}}` is signed by the delegate under 0x02 ‖ chain id; the wrapper has the same branch,
 *   the delegate's smallest slot, and no signature (64 zero bytes).
 * - Revelation (§7): `{level, nonce}`, unsigned (64 zero bytes).
 *
 * @example
 * ```ts
 * const op = await forgeEndorsementWithSlot(key, chainId, head.hash, head.header.level, slots[0]);
 * const rev = forgeSeedNonceRevelation(head.hash, 8, nonce);
 * ```
 * @module
 */
import { endorsementWatermark } from "../crypto/watermark.ts";
import { formatSignature, type SecretKey } from "../crypto/keys.ts";
import { sign } from "../crypto/sign.ts";
import { encodeBinary } from "../encoding/codec.ts";
import { inlinedEndorsement, operation, type Endorsement } from "../encoding/hangzhou/operation.ts";

/** The bytes a delegate signs to endorse block `branch` at `level`: branch ‖ 0x00 ‖ int32 level. */
export function endorsementSignedBytes(branch: string, level: number): Uint8Array {
  return encodeBinary(inlinedEndorsement, { branch, operations: endorsementOf(level) });
}

function checkLevel(level: number): number {
  if (typeof level !== "number" || !Number.isInteger(level)) throw new TypeError(`level must be an integer, got ${String(level)}`);
  if (level < 0 || level > 0x7fffffff) throw new RangeError(`level must be in [0, 2^31 - 1], got ${level}`);
  return level;
}

function endorsementOf(level: number): Endorsement {
  return { kind: "endorsement", level: checkLevel(level) };
}

function checkSlot(slot: number): number {
  if (typeof slot !== "number" || !Number.isInteger(slot)) throw new TypeError(`slot must be an integer, got ${String(slot)}`);
  if (slot < 0 || slot > 0xffff) throw new RangeError(`slot must be in [0, 65535], got ${slot}`);
  return slot;
}

/**
 * An `endorsement_with_slot` operation wrapping an endorsement signature (64 bytes) already made
 * over {@link endorsementSignedBytes}.
 */
export function endorsementWithSlotBytes(branch: string, level: number, slot: number, signature: Uint8Array): Uint8Array {
  const endorsement = { branch, operations: endorsementOf(level), signature: formatSignature(signature) };
  return encodeBinary(operation, {
    branch,
    contents: [{ kind: "endorsement_with_slot", endorsement, slot: checkSlot(slot) }],
  });
}

/**
 * The endorsement of block `branch` (at `level`) by the holder of `secretKey`, with its
 * smallest slot, ready for validation pass 0.
 */
export async function forgeEndorsementWithSlot(
  secretKey: SecretKey,
  chainId: Uint8Array,
  branch: string,
  level: number,
  slot: number,
): Promise<Uint8Array> {
  checkSlot(slot);
  const signature = await sign(secretKey, endorsementSignedBytes(branch, level), endorsementWatermark(chainId));
  return endorsementWithSlotBytes(branch, level, slot, signature);
}

/** The (unsigned) revelation of the seed nonce committed at `level`, on block `branch`. */
export function forgeSeedNonceRevelation(branch: string, level: number, nonce: Uint8Array): Uint8Array {
  if (!(nonce instanceof Uint8Array)) throw new TypeError("nonce must be a Uint8Array");
  if (nonce.length !== 32) throw new RangeError(`nonce must be 32 bytes, got ${nonce.length}`);
  return encodeBinary(operation, { branch, contents: [{ kind: "seed_nonce_revelation", level: checkLevel(level), nonce }] });
}
