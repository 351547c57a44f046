/**
 * Block-level checks and amounts of Hangzhou's Emmy* baking (Octez `baking.ml`): timestamps,
 * proof of work, fitness, the baker's signature, commitments, and the baking and endorsing
 * rewards. Errors carry Octez's ids and fields.
 * @module
 */
import { B58, b58encode } from "../../../encoding/base58.ts";
import { type BlockHeader, protocolDataContents, unsignedBlockHeader } from "../../../encoding/hangzhou/block-header.ts";
import { shellHeader } from "../../../encoding/block-header.ts";
import { encodeBinary } from "../../../encoding/codec.ts";
import { bool, int31, int64, uint16 } from "../../../encoding/integers.ts";
import { publicKeyHash as pkhCodec } from "../../../encoding/keys.ts";
import { blockHash as blockHashCodec } from "../../../encoding/hashes.ts";
import { obj, opt, req } from "../../../encoding/object.ts";
import { timestamp as timestampCodec } from "../../../encoding/time.ts";
import { blake2b256 } from "../../../crypto/blake2b.ts";
import { formatPublicKeyHash, parseSignature, publicKeyHash, type PublicKey } from "../../../crypto/keys.ts";
import { verify } from "../../../crypto/sign.ts";
import { blockWatermark } from "../../../crypto/watermark.ts";
import type { ErrorDefinition } from "../../../errors/mod.ts";
import type { ParametricConstants } from "../constants.ts";
import { protoError } from "../proto-error.ts";
import { minimalTime, minimalValidTime } from "../timing.ts";

/** `baking.timestamp_too_early`. */
export const timestampTooEarly: ErrorDefinition<{ minimal_time: number; provided_time: number; priority: number; endorsing_power?: number }> =
  protoError({
    id: "baking.timestamp_too_early",
    kind: "permanent",
    title: "Block forged too early",
    description: "The block timestamp is before the minimal valid one.",
    fields: obj(req("minimal_time", timestampCodec), req("provided_time", timestampCodec), req("priority", int31), opt("endorsing_power", int31)),
  });

/** `baking.invalid_fitness_gap`. */
export const invalidFitnessGap: ErrorDefinition<{ maximum: bigint; provided: bigint }> = protoError({
  id: "baking.invalid_fitness_gap",
  kind: "permanent",
  title: "Invalid fitness gap",
  description: "The gap of fitness is out of bounds",
  fields: obj(req("maximum", int64), req("provided", int64)),
});

/** `baking.invalid_block_signature`. */
export const invalidBlockSignature: ErrorDefinition<{ block: string; expected: string }> = protoError({
  id: "baking.invalid_block_signature",
  kind: "permanent",
  title: "Invalid block signature",
  description: "A block was not signed with the expected private key.",
  fields: obj(req("block", blockHashCodec), req("expected", pkhCodec)),
});

/** `baking.insufficient_proof_of_work`. */
export const insufficientProofOfWork: ErrorDefinition = protoError({
  id: "baking.insufficient_proof_of_work",
  kind: "permanent",
  title: "Insufficient block proof-of-work stamp",
  description: "The block's proof-of-work stamp is insufficient",
});

/** `block.invalid_commitment`. */
export const invalidCommitment: ErrorDefinition<{ expected: boolean }> = protoError({
  id: "block.invalid_commitment",
  kind: "permanent",
  title: "Invalid commitment in block header",
  description: "The block header has invalid commitment.",
  fields: obj(req("expected", bool)),
});

/** `invalid_fitness` (a fitness that is not Emmy*'s). */
export const invalidFitness: ErrorDefinition = protoError({
  id: "invalid_fitness",
  kind: "permanent",
  title: "Invalid fitness",
  description: "Fitness representation should be exactly 8 bytes long.",
});

/** `baking.unexpected_endorsement`. */
export const unexpectedEndorsement: ErrorDefinition = protoError({
  id: "baking.unexpected_endorsement",
  kind: "permanent",
  title: "Endorsement from unexpected delegate",
  description: "The operation is signed by a delegate without endorsement rights.",
});

/** `baking.invalid_endorsement_slot`. */
export const invalidEndorsementSlot: ErrorDefinition<{ slot: number }> = protoError({
  id: "baking.invalid_endorsement_slot",
  kind: "permanent",
  title: "Endorsement slot out of range",
  description: "The endorsement slot provided is negative or too high.",
  fields: obj(req("slot", uint16)),
});

/** `baking.unexpected_endorsement_slot`. */
export const unexpectedEndorsementSlot: ErrorDefinition<{ slot: number }> = protoError({
  id: "baking.unexpected_endorsement_slot",
  kind: "permanent",
  title: "Endorsement slot not the smallest possible",
  description: "The endorsement slot provided is not the smallest possible.",
  fields: obj(req("slot", uint16)),
});

/** Emmy* fitness `["01", int64 BE n]`. */
export function fitnessOf(n: bigint): Uint8Array[] {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, n));
  return [Uint8Array.of(1), b];
}

/**
 * The protocol fitness counter of a fitness (Octez `Fitness_repr.to_int64`): `["01", 8 bytes]`
 * → n; the genesis-era `["00", …]` and `[]` → 0; anything else → `invalid_fitness`.
 */
export function fitnessCounter(fitness: readonly Uint8Array[]): bigint {
  if (fitness.length === 0) return 0n;
  if (fitness.length === 2 && fitness[0]!.length === 1) {
    if (fitness[0]![0] === 0) return 0n;
    if (fitness[0]![0] === 1 && fitness[1]!.length === 8) {
      return new DataView(fitness[1]!.buffer, fitness[1]!.byteOffset, 8).getBigInt64(0);
    }
  }
  throw invalidFitness.error();
}

/** `check_timestamp`: the block is not earlier than the minimal time of its priority. */
export function checkTimestamp(c: ParametricConstants, priority: number, timestamp: number, predecessorTimestamp: number): void {
  const minimal = minimalTime(c, priority, predecessorTimestamp);
  if (timestamp < minimal) throw timestampTooEarly.error({ minimal_time: minimal, provided_time: timestamp, priority });
}

/** `check_minimal_valid_time`: at finalisation, with the endorsing power included. */
export function checkMinimalValidTime(c: ParametricConstants, priority: number, endorsingPower: number, timestamp: number, predecessorTimestamp: number): void {
  const minimal = minimalValidTime(c, priority, endorsingPower, predecessorTimestamp);
  if (timestamp < minimal) {
    throw timestampTooEarly.error({ minimal_time: minimal, provided_time: timestamp, priority, endorsing_power: endorsingPower });
  }
}

/** The header's bytes with a zero signature: what the proof of work is computed over. */
function stampBytes(header: BlockHeader): Uint8Array {
  const unsigned = encodeBinary(unsignedBlockHeader, header);
  const out = new Uint8Array(unsigned.length + 64);
  out.set(unsigned);
  return out;
}

/** `check_proof_of_work_stamp`: the first 8 bytes of the stamp hash, unsigned, within the threshold. */
export function checkProofOfWork(c: ParametricConstants, header: BlockHeader): void {
  const threshold = BigInt.asUintN(64, c.proof_of_work_threshold);
  const h = blake2b256(stampBytes(header));
  const stamp = new DataView(h.buffer, h.byteOffset, 8).getBigUint64(0);
  if (stamp > threshold) throw insufficientProofOfWork.error();
}

/** `check_fitness_gap`: the announced fitness is the predecessor's plus exactly one. */
export function checkFitnessGap(predecessorFitness: bigint, header: BlockHeader): void {
  const announced = fitnessCounter(header.fitness);
  const gap = announced - predecessorFitness;
  if (gap !== 1n) throw invalidFitnessGap.error({ maximum: 1n, provided: gap });
}

/** The bytes a baker signs: shell header ‖ unsigned protocol data. */
export function signedHeaderBytes(header: BlockHeader): Uint8Array {
  const shell = encodeBinary(shellHeader, header);
  const contents = encodeBinary(protocolDataContents, header);
  const out = new Uint8Array(shell.length + contents.length);
  out.set(shell);
  out.set(contents, shell.length);
  return out;
}

/** `check_signature`: the header is signed by `baker` under 0x01 ‖ chain id. */
export async function checkBlockSignature(header: BlockHeader, hash: string, chainId: Uint8Array, baker: PublicKey): Promise<void> {
  const ok = await verify(baker, parseSignature(header.signature), signedHeaderBytes(header), blockWatermark(chainId));
  if (!ok) throw invalidBlockSignature.error({ block: hash, expected: formatPublicKeyHash(publicKeyHash(baker)) });
}

/** `seed_nonce_hash` is present exactly at levels that expect a commitment. */
export function checkCommitment(expected: boolean, header: BlockHeader): void {
  if ((header.seed_nonce_hash !== undefined) !== expected) throw invalidCommitment.error({ expected });
}

/** `reward_for_priority`: the list's entry for `priority`, its last one beyond, 0 for an empty list. */
export function rewardForPriority(rewards: readonly bigint[], priority: number): bigint {
  if (rewards.length === 0) return 0n;
  return rewards[Math.min(Math.max(priority, 0), rewards.length - 1)]!;
}

/** `baking_reward`: per included endorsement slot, by the block's priority. */
export function bakingReward(c: ParametricConstants, priority: number, includedEndorsements: number): bigint {
  return rewardForPriority(c.baking_reward_per_endorsement, priority) * BigInt(includedEndorsements);
}

/** `endorsing_reward`: per slot of the endorser, by the priority of the including block. */
export function endorsingReward(c: ParametricConstants, blockPriority: number, slots: number): bigint {
  return rewardForPriority(c.endorsement_reward, blockPriority) * BigInt(slots);
}

/** Base58 block hash of raw header bytes (helper for errors). */
export function blockHashOf(bytes: Uint8Array): string {
  return b58encode(B58.blockHash, blake2b256(bytes));
}
