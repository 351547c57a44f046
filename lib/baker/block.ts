/**
 * Baking one Hangzhou block on a head, the way Octez's baker forges one: plan it on the head's
 * context (./plan.ts), forge the endorsements and nonce revelations, draw and record a seed nonce
 * when the level expects a commitment, build it with the block validator's `preapply` (which
 * gives the shell header and context hash), find a proof-of-work nonce under the threshold, sign
 * the header under 0x01 ‖ chain id, and inject it.
 *
 * @example
 * ```ts
 * const baked = await bakeBlock({ chain, validator, keys: keyRing(bootstrapSecretKeys()), nonces, now: Date.now });
 * baked.hash; baked.priority; baked.endorsingPower;
 * ```
 * @module
 */
import { blake2b256 } from "../crypto/blake2b.ts";
import { nonceHash } from "../crypto/hashes.ts";
import { formatSignature } from "../crypto/keys.ts";
import { sign } from "../crypto/sign.ts";
import { blockWatermark } from "../crypto/watermark.ts";
import { B58, b58decode, b58encode } from "../encoding/base58.ts";
import type { ShellHeader } from "../encoding/block-header.ts";
import { encodeBinary } from "../encoding/codec.ts";
import { protocolData, unsignedBlockHeader, type ProtocolDataContents } from "../encoding/hangzhou/block-header.ts";
import { ZERO_SIGNATURE } from "../encoding/keys.ts";
import { signedHeaderBytes } from "../protocols/hangzhou/apply/baking.ts";
import { HANGZHOU } from "../protocols/hangzhou/protocol.ts";
import type { Block, Chain } from "../shell/chain.ts";
import { headerBytes, type BlockValidator } from "../shell/validator.ts";
import { checkout } from "../store/context/mod.ts";
import type { HeldKey } from "./keys.ts";
import { drawNonce, type NonceStore } from "./nonces.ts";
import { forgeEndorsementWithSlot, forgeSeedNonceRevelation } from "./operations.ts";
import { planBlock, type BlockPlan } from "./plan.ts";

/** Protocol 011 Hangzhou's hash, the protocol this baker bakes. */
export { HANGZHOU };

/** Number of validation passes of a Hangzhou block. */
const PASSES = 4;

/** Operations per validation pass, as the shell takes them. */
export type OperationPasses = readonly (readonly Uint8Array[])[];

/** What {@link bakeBlock} needs. */
export interface BakeEnv {
  readonly chain: Chain;
  readonly validator: BlockValidator;
  readonly keys: ReadonlyMap<string, HeldKey>;
  readonly nonces: NonceStore;
  /** Wall clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** Operations waiting to be included (a prevalidator's), per pass; added after the baker's own. */
  readonly pending?: (head: Block) => OperationPasses | Promise<OperationPasses>;
}

/** A baked and stored block. */
export interface BakedBlock {
  readonly hash: string;
  readonly level: number;
  readonly priority: number;
  /** `tz…` of the baker. */
  readonly baker: string;
  readonly timestamp: number;
  readonly endorsingPower: number;
  /** `nce…` of the committed nonce, at levels that expect one. */
  readonly seedNonceHash?: string;
  /** Levels whose nonces the block reveals. */
  readonly revealed: readonly number[];
  /** The number of operations in the block, every validation pass together. */
  readonly operations: number;
}

/** Raised when the head cannot be built on by a Hangzhou baker (protocol not activated yet). */
export class NotHangzhou extends Error {
  override name = "NotHangzhou";
}

/** The proof-of-work stamp of a header (first 8 bytes, unsigned, of H(shell ‖ contents ‖ 64 zero bytes)). */
export function proofOfWorkStamp(shell: ShellHeader, contents: ProtocolDataContents): bigint {
  const unsigned = encodeBinary(unsignedBlockHeader, { ...shell, ...contents });
  const buf = new Uint8Array(unsigned.length + 64);
  buf.set(unsigned);
  const h = blake2b256(buf);
  return new DataView(h.buffer, h.byteOffset, 8).getBigUint64(0);
}

/** Proof-of-work nonce number `n`: 4 bytes "tsbk" then `n` as a big-endian uint32. */
export function proofOfWorkNonce(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`proof-of-work counter must be a uint32, got ${n}`);
  const out = new Uint8Array(8);
  out.set([0x74, 0x73, 0x62, 0x6b]);
  new DataView(out.buffer).setUint32(4, n);
  return out;
}

/**
 * The first proof-of-work nonce whose stamp is within `threshold` (read as unsigned 64 bits, so
 * −1 accepts anything). RangeError if none of the 2^32 counters fits.
 */
export function findProofOfWork(shell: ShellHeader, contents: ProtocolDataContents, threshold: bigint): Uint8Array {
  const limit = BigInt.asUintN(64, threshold);
  for (let n = 0; n <= 0xffffffff; n++) {
    const nonce = proofOfWorkNonce(n);
    if (limit === 0xffffffffffffffffn || proofOfWorkStamp(shell, { ...contents, proof_of_work_nonce: nonce }) <= limit) return nonce;
  }
  throw new RangeError("No proof-of-work nonce meets the threshold");
}

async function forgeOperations(env: BakeEnv, head: Block, plan: BlockPlan, chainId: Uint8Array): Promise<Uint8Array[][]> {
  const passes: Uint8Array[][] = Array.from({ length: PASSES }, () => []);
  for (const e of plan.endorsements) {
    passes[0]!.push(await forgeEndorsementWithSlot(e.key.secretKey, chainId, head.hash, head.header.level, e.slots[0]!));
  }
  for (const r of plan.revelations) passes[2]!.push(forgeSeedNonceRevelation(head.hash, r.level, r.nonce));
  if (env.pending !== undefined) {
    const more = await env.pending(head);
    more.forEach((pass, i) => {
      if (i >= PASSES) throw new RangeError(`pending operations name validation pass ${i}; Hangzhou has ${PASSES}`);
      passes[i]!.push(...pass);
    });
  }
  return passes;
}

/**
 * What the held keys would bake on `head` now (`planBlock` on its context): priority, baker,
 * endorsements, timestamp. NotHangzhou when the head's next protocol is not Hangzhou.
 */
export function planOnHead(env: BakeEnv, head: Block = env.chain.head): BlockPlan {
  if (head.info.next_protocol !== HANGZHOU) {
    throw new NotHangzhou(
      `Cannot bake on block ${head.hash} (level ${head.header.level}): its next protocol is ${head.info.next_protocol}, not Hangzhou; activate the protocol first`,
    );
  }
  const context = checkout(env.chain.store.kv, b58decode(B58.contextHash, head.header.context));
  if (context === undefined) throw new Error(`The context of block ${head.hash} is missing from the store`);
  return planBlock({
    context,
    head: { hash: head.hash, level: head.header.level, timestamp: head.header.timestamp, endorsable: head.info.protocol === HANGZHOU },
    keys: env.keys,
    now: Math.floor(env.now() / 1000),
    nonce: (level, hash) => env.nonces.find(level, hash),
  });
}

/**
 * Bakes one block on `head` (the current head by default), injects it, and describes it. `plan`
 * is {@link planOnHead}'s on that head when the caller has made it already.
 */
export async function bakeBlock(env: BakeEnv, head: Block = env.chain.head, plan: BlockPlan = planOnHead(env, head)): Promise<BakedBlock> {
  const chainId = b58decode(B58.chainId, env.chain.chainId);
  const operations = await forgeOperations(env, head, plan, chainId);

  let seedNonceHash: string | undefined;
  if (plan.level.expected_commitment) {
    const nonce = drawNonce();
    seedNonceHash = b58encode(B58.nonceHash, nonceHash(nonce));
    await env.nonces.put(plan.level.level, nonce); // durable before the commitment is
  }
  const contents: ProtocolDataContents = {
    priority: plan.priority,
    proof_of_work_nonce: proofOfWorkNonce(0),
    ...(seedNonceHash === undefined ? {} : { seed_nonce_hash: seedNonceHash }),
    liquidity_baking_escape_vote: false,
  };
  const unsignedData = encodeBinary(protocolData, { ...contents, signature: ZERO_SIGNATURE });
  const { shell } = await env.validator.preapply(head, plan.timestamp, unsignedData, operations);
  contents.proof_of_work_nonce = findProofOfWork(shell, contents, plan.constants.proof_of_work_threshold);
  const signature = await sign(
    plan.baker.secretKey,
    signedHeaderBytes({ ...shell, ...contents, signature: ZERO_SIGNATURE }),
    blockWatermark(chainId),
  );
  const data = encodeBinary(protocolData, { ...contents, signature: formatSignature(signature) });
  const hash = await env.validator.inject(headerBytes(shell, data), operations);
  if (plan.forgetBelow > 0) await env.nonces.prune(plan.forgetBelow);
  return {
    hash,
    level: plan.level.level,
    priority: plan.priority,
    baker: plan.baker.pkh,
    timestamp: shell.timestamp,
    endorsingPower: plan.endorsingPower,
    ...(seedNonceHash === undefined ? {} : { seedNonceHash }),
    revealed: plan.revelations.map((r) => r.level),
    operations: operations.reduce((sum, pass) => sum + pass.length, 0),
  };
}
