/**
 * Applying or building one Hangzhou block (Octez `main.ml` and `apply.ml`): `begin` checks the
 * header (timestamp, proof of work, fitness, baker and signature, commitment) and starts the
 * block (fitness, endorsement rights of the previous level, liquidity baking); operations are
 * applied one by one; `finalize` checks the minimal valid time with the endorsing power
 * included, freezes the baker's deposit, rewards and fees, records the nonce commitment, takes
 * roll snapshots, ends the cycle and steps the voting period, and writes the receipt.
 * @module
 */
import { B58, b58decode, b58encode } from "../../../encoding/base58.ts";
import { decodeBinary, encodeBinary } from "../../../encoding/codec.ts";
import type { ShellHeader } from "../../../encoding/block-header.ts";
import {
  type BlockHeader,
  protocolData as protocolDataCodec,
  type ProtocolDataContents,
  unsignedBlockHeader,
} from "../../../encoding/hangzhou/block-header.ts";
import { blake2b256 } from "../../../crypto/blake2b.ts";
import { operationListHash, operationListListHash } from "../../../crypto/hashes.ts";
import { type OperationContents, validationPass } from "../../../encoding/hangzhou/operation.ts";
import type { BalanceUpdate } from "../../../encoding/hangzhou/receipts/balance-updates.ts";
import { hangzhouBlockMetadata } from "../../../encoding/hangzhou/receipts/block-metadata.ts";
import { type ContentsResult, operationMetadata } from "../../../encoding/hangzhou/receipts/contents-results.ts";
import type { SuccessfulManagerOperationResult } from "../../../encoding/hangzhou/receipts/operation-results.ts";
import { formatPublicKeyHash, publicKeyHash, type PublicKey } from "../../../crypto/keys.ts";
import { failure } from "../../../errors/mod.ts";
import type { BlockResult, Predecessor, ShellOperation, SignatureWaived, ValidationState } from "../../../shell/protocol.ts";
import { currentVotingPeriodInfo, mayStartNewVotingPeriod } from "../amendment.ts";
import { isLastOfCycle, lastAllowedForkLevel, levelFromRaw, maySnapshotRolls } from "../level.ts";
import { bakingRightsOwner, endorsementRights } from "../rights.ts";
import { takePendingMigrationResults } from "../init.ts";
import { cleanupBalanceUpdates, delegatesCycleEnd, freezeDeposit, freezeFees, freezeRewards } from "../storage/frozen.ts";
import { BLOCK_PRIORITY_PATH, encodeUint16 } from "../storage/layout.ts";
import { recordNonceHash } from "../storage/nonce.ts";
import { ProtoContext } from "../storage/proto-context.ts";
import { rememberCache, syncCache } from "../storage/cache.ts";
import { contextRightsSource } from "../storage/rights-source.ts";
import { rollCycleEnd, snapshotRolls } from "../storage/roll.ts";
import { seedCycleEnd } from "../storage/seed.ts";
import { applyActivateAccount, applySeedNonceRevelation } from "./anonymous.ts";
import {
  bakingReward,
  checkBlockSignature,
  checkCommitment,
  checkFitnessGap,
  checkMinimalValidTime,
  checkProofOfWork,
  checkTimestamp,
  fitnessCounter,
  fitnessOf,
} from "./baking.ts";
import { applyEndorsement, type EndorsementState } from "./endorsement.ts";
import { applyDoubleBakingEvidence, applyDoubleEndorsementEvidence } from "./evidence.ts";
import { failingNoop, unwrappedEndorsement } from "./errors.ts";
import { applyLiquidityBakingSubsidy } from "./liquidity-baking.ts";
import { parseOperation } from "./parse.ts";
import { applyManagerOperation, prepareManagerOperation } from "./manager.ts";
import { applyBallot, applyProposals, checkVotingSignature, votingOperationSigner } from "./voting.ts";

/** Hangzhou's `max_operations_ttl`. */
export const MAX_OPERATIONS_TTL = 120;

/** The baker shown in receipts of blocks built without protocol data (mempool). */
export const ZERO_BAKER = "tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU";

/** How the block is being processed (Octez `validation_mode`). */
export type Mode =
  | { readonly kind: "application"; readonly header: BlockHeader; readonly hash: string }
  | { readonly kind: "full_construction"; readonly contents: ProtocolDataContents }
  | { readonly kind: "partial_construction" }
  /** A partial construction whose manager operations are not signature-checked (`run_operation`). */
  | { readonly kind: "simulation" };

/** The protocol data of a block: the signed header's in application, the given one in construction. */
function contentsOf(mode: Mode): ProtocolDataContents | undefined {
  return mode.kind === "application" ? mode.header : mode.kind === "full_construction" ? mode.contents : undefined;
}

/** A Hangzhou block being applied or built. */
export class HangzhouBlock implements ValidationState {
  private readonly pc: ProtoContext;
  private readonly mode: Mode;
  private readonly chainId: Uint8Array;
  private readonly predecessor: string;
  private readonly baker: string;
  private readonly priority: number;
  private readonly implicitResults: SuccessfulManagerOperationResult[];
  private readonly ema: number;
  private readonly endorsements: EndorsementState;
  /** Which manager operations may carry a wrong signature (the sandbox's impersonation); none when absent. */
  private readonly signatureWaived: SignatureWaived | undefined;
  private opCount = 0;
  /** Hashes of the operations applied, by validation pass, newest first (for the cache nonce of a built block). */
  private opHashes: readonly (OpList | undefined)[] = [undefined, undefined, undefined, undefined];

  private constructor(fields: {
    pc: ProtoContext;
    mode: Mode;
    chainId: Uint8Array;
    predecessor: string;
    baker: string;
    priority: number;
    implicitResults: SuccessfulManagerOperationResult[];
    ema: number;
    endorsements: EndorsementState;
    signatureWaived: SignatureWaived | undefined;
  }) {
    this.pc = fields.pc;
    this.mode = fields.mode;
    this.chainId = fields.chainId;
    this.predecessor = fields.predecessor;
    this.baker = fields.baker;
    this.priority = fields.priority;
    this.implicitResults = fields.implicitResults;
    this.ema = fields.ema;
    this.endorsements = fields.endorsements;
    this.signatureWaived = fields.signatureWaived;
  }

  /**
   * Starts a block on `predecessor` at `timestamp` (Octez `begin_application` /
   * `begin_construction`); `budget`: an RPC's work budget, for the blocks RPCs build;
   * `signatureWaived`: the manager operations accepted with a wrong signature (sandbox impersonation).
   */
  static async begin(
    chainId: Uint8Array,
    predecessor: Predecessor,
    timestamp: number,
    mode: Mode,
    options: { readonly budget?: ProtoContext["budget"]; readonly signatureWaived?: SignatureWaived } = {},
  ): Promise<HangzhouBlock> {
    const pc = ProtoContext.prepare(predecessor.context, {
      level: predecessor.header.level + 1,
      predecessorTimestamp: predecessor.header.timestamp,
      timestamp,
      fitness: fitnessCounter(predecessor.header.fitness),
    });
    pc.budget = options.budget;
    const migration = takePendingMigrationResults(pc);
    const contents = contentsOf(mode);
    const src = contextRightsSource(pc);
    let baker = ZERO_BAKER;
    if (mode.kind === "application" || mode.kind === "full_construction") {
      pc.update(BLOCK_PRIORITY_PATH, encodeUint16(mode.kind === "application" ? mode.header.priority : mode.contents.priority));
      baker = formatPublicKeyHash(publicKeyHash(await checkHeader(pc, chainId, timestamp, mode)));
    }
    pc.fitness += 1n;
    const allowed = endorsementRights(src, levelFromRaw(pc.eras, pc.level.level - 1), pc.constants.endorsers_per_block);
    const lb = applyLiquidityBakingSubsidy(pc, contents?.liquidity_baking_escape_vote ?? false);
    return new HangzhouBlock({
      pc,
      mode,
      chainId,
      predecessor: predecessor.hash,
      baker,
      priority: contents?.priority ?? 0,
      implicitResults: [...migration, ...lb.results],
      ema: lb.ema,
      endorsements: { allowed, used: new Set(), power: 0 },
      signatureWaived: options.signatureWaived,
    });
  }

  /**
   * A copy of this block that goes on independently (Octez's validation states are values): the
   * same immutable context and per-block state, its own endorsements and counters.
   */
  fork(): HangzhouBlock {
    const copy = new HangzhouBlock({
      pc: this.pc.clone(),
      mode: this.mode,
      chainId: this.chainId,
      predecessor: this.predecessor,
      baker: this.baker,
      priority: this.priority,
      implicitResults: this.implicitResults,
      ema: this.ema,
      endorsements: { allowed: this.endorsements.allowed, used: new Set(this.endorsements.used), power: this.endorsements.power },
      signatureWaived: this.signatureWaived,
    });
    copy.opCount = this.opCount;
    copy.opHashes = this.opHashes;
    return copy;
  }

  /** Checks ahead the signature of a manager operation (see {@link prepareManagerOperation}). */
  async prepare(op: ShellOperation): Promise<void> {
    let parsed;
    try {
      parsed = parseOperation(op);
    } catch {
      return;
    }
    if (parsed.contents.length > 0 && "fee" in parsed.contents[0]!) await prepareManagerOperation(this.pc, op, parsed.contents, parsed.signature);
  }

  /** Applies one operation; its receipt (`operation.alpha.result`) in binary. */
  async applyOperation(op: ShellOperation): Promise<Uint8Array> {
    const { contents, signature } = parseOperation(op);
    this.pc.initOriginationNonce(b58decode(B58.operationHash, op.hash));
    try {
      const results = await this.applyContents(op, contents, signature);
      this.opCount++;
      const pass = validationPass(contents) ?? 3;
      if (pass < this.opHashes.length) this.opHashes = this.opHashes.map((list, i) => (i === pass ? { hash: op.hash, next: list } : list));
      return encodeBinary(operationMetadata, results);
    } finally {
      this.pc.unsetOriginationNonce();
      this.pc.setGasUnlimited();
    }
  }

  private async applyContents(op: ShellOperation, contents: readonly OperationContents[], signature: string | undefined): Promise<ContentsResult[]> {
    const first = contents[0]!;
    if (contents.length > 1 && !("fee" in first)) throw failure.error({ msg: "A batch of non-manager operations" });
    switch (first.kind) {
      case "endorsement_with_slot":
        return [
          await applyEndorsement(this.pc, this.endorsements, this.chainId, this.predecessor, this.priority, { branch: op.branch, signature }, first),
        ];
      case "endorsement":
        throw unwrappedEndorsement.error();
      case "seed_nonce_revelation":
        return [applySeedNonceRevelation(this.pc, this.baker, first)];
      case "activate_account":
        return [applyActivateAccount(this.pc, first)];
      case "proposals":
      case "ballot": {
        await checkVotingSignature(votingOperationSigner(this.pc, first), { branch: op.branch, signature }, first);
        return [first.kind === "proposals" ? applyProposals(this.pc, first) : applyBallot(this.pc, first)];
      }
      case "failing_noop":
        throw failingNoop.error();
      case "double_endorsement_evidence":
        return [await applyDoubleEndorsementEvidence(this.pc, this.chainId, this.baker, first)];
      case "double_baking_evidence":
        return [await applyDoubleBakingEvidence(this.pc, this.chainId, this.baker, first)];
      default:
        return applyManagerOperation(this.pc, this.chainId, this.baker, op, contents, signature, {
          checkSignature: this.mode.kind !== "simulation",
          ...(this.signatureWaived === undefined ? {} : { signatureWaived: this.signatureWaived }),
        });
    }
  }

  /** Ends the block (Octez `finalize_block`). */
  finalize(shell?: ShellHeader): Promise<BlockResult> {
    const pc = this.pc;
    const c = pc.constants;
    const contents = contentsOf(this.mode);
    const base = {
      fitness: fitnessOf(pc.fitness),
      maxOperationsTtl: MAX_OPERATIONS_TTL,
      lastAllowedForkLevel: lastAllowedForkLevel(pc.eras, pc.level, c.preserved_cycles),
    };
    if (contents === undefined) {
      const metadata = this.metadata(ZERO_BAKER, null, [], [], 0n);
      return Promise.resolve({ ...base, context: pc.context, message: "", metadata });
    }
    const power = this.endorsements.power;
    checkMinimalValidTime(c, contents.priority, power, pc.timestamp, pc.predecessorTimestamp);
    const baker = this.baker;
    const deposit = c.block_security_deposit;
    freezeDeposit(pc, baker, deposit);
    const reward = bakingReward(c, contents.priority, power);
    pc.addRewards(reward);
    freezeFees(pc, baker, pc.fees);
    freezeRewards(pc, baker, pc.rewards);
    if (contents.seed_nonce_hash !== undefined) {
      recordNonceHash(pc, { nonceHash: contents.seed_nonce_hash, delegate: baker, rewards: pc.rewards, fees: pc.fees });
    }
    if (maySnapshotRolls(pc.level, c.blocks_per_roll_snapshot)) snapshotRolls(pc);
    let cycleEnd: BalanceUpdate[] = [];
    let deactivated: string[] = [];
    if (isLastOfCycle(pc.eras, pc.level)) {
      const cycle = pc.level.cycle;
      const unrevealed = seedCycleEnd(pc, cycle);
      rollCycleEnd(pc, cycle);
      const end = delegatesCycleEnd(pc, cycle, unrevealed);
      cycleEnd = end.balanceUpdates;
      deactivated = end.deactivated;
    }
    mayStartNewVotingPeriod(pc);
    const cycle = pc.level.cycle;
    const balanceUpdates = cleanupBalanceUpdates([
      { kind: "contract", contract: baker, change: -deposit, origin: "block" },
      { kind: "freezer", category: "deposits", delegate: baker, cycle, change: deposit, origin: "block" },
      { kind: "freezer", category: "rewards", delegate: baker, cycle, change: reward, origin: "block" },
      ...cycleEnd,
    ]);
    const consumedGas = c.hard_gas_limit_per_block * 1000n - pc.remainingBlockGas;
    const metadata = this.metadata(baker, contents.seed_nonce_hash ?? null, deactivated, balanceUpdates, consumedGas);
    const message = `lvl ${pc.level.level}, fit 1:${pc.fitness}, prio ${contents.priority}, ${this.opCount} ops`;
    // the cache's entries of this block take its nonce; the domain goes into the context
    const operationsHash = shell?.operations_hash ??
      (this.mode.kind === "application" ? this.mode.header.operations_hash : b58encode(B58.operationListListHash, operationListListHash(
        this.opHashes.map((list) => operationListHash(listHashes(list).map((h) => b58decode(B58.operationHash, h)))),
      )));
    const synced = syncCache(pc.cache, pc.context, cacheNonce(this.predecessor, operationsHash, contents));
    pc.cache = synced.state;
    pc.context = synced.context;
    rememberCache(pc.context, pc.cache);
    return Promise.resolve({ ...base, context: pc.context, message, metadata });
  }

  private metadata(baker: string, nonceHash: string | null, deactivated: string[], balanceUpdates: BalanceUpdate[], consumedGas: bigint): Uint8Array {
    return encodeBinary(hangzhouBlockMetadata, {
      baker,
      level_info: this.pc.level,
      voting_period_info: currentVotingPeriodInfo(this.pc),
      nonce_hash: nonceHash,
      consumed_gas: consumedGas,
      deactivated,
      balance_updates: balanceUpdates,
      liquidity_baking_escape_ema: this.ema,
      implicit_operations_results: this.implicitResults,
    });
  }
}

/**
 * The checks `begin_application` makes on a header (Octez `Apply.begin_application` and
 * `begin_full_construction`): timestamp for the priority, and in application the proof of work,
 * the fitness gap, the baker's signature and the seed nonce commitment. The baker's key.
 */
async function checkHeader(
  pc: ProtoContext,
  chainId: Uint8Array,
  timestamp: number,
  mode: Extract<Mode, { kind: "application" | "full_construction" }>,
): Promise<PublicKey> {
  const contents = mode.kind === "application" ? mode.header : mode.contents;
  checkTimestamp(pc.constants, contents.priority, timestamp, pc.predecessorTimestamp);
  if (mode.kind === "application") {
    checkProofOfWork(pc.constants, mode.header);
    checkFitnessGap(pc.fitness, mode.header);
  }
  const owner = bakingRightsOwner(contextRightsSource(pc), pc.level, contents.priority);
  if (mode.kind === "application") {
    await checkBlockSignature(mode.header, mode.hash, chainId, owner);
    checkCommitment(pc.level.expected_commitment, mode.header);
  }
  return owner;
}

/**
 * Checks a signed header on `predecessor` as {@link HangzhouBlock.begin} does in application,
 * without applying anything (the block validator's check of a block it built itself).
 */
export async function checkApplicationHeader(chainId: Uint8Array, predecessor: Predecessor, mode: Extract<Mode, { kind: "application" }>): Promise<void> {
  const pc = ProtoContext.prepare(predecessor.context, {
    level: predecessor.header.level + 1,
    predecessorTimestamp: predecessor.header.timestamp,
    timestamp: mode.header.timestamp,
    fitness: fitnessCounter(predecessor.header.fitness),
  });
  await checkHeader(pc, chainId, mode.header.timestamp, mode);
}

/** A persistent list of operation hashes, newest first (shared between forks). */
interface OpList {
  readonly hash: string;
  readonly next: OpList | undefined;
}

/** The hashes of a list, oldest first. */
function listHashes(list: OpList | undefined): string[] {
  const out: string[] = [];
  for (let l = list; l !== undefined; l = l.next) out.push(l.hash);
  return out.reverse();
}

const ZERO_CONTEXT_HASH = b58encode(B58.contextHash, new Uint8Array(32));
const ZERO_SIGNATURE = new Uint8Array(64);
const ZERO_POW_NONCE = new TextEncoder().encode("00000000");

/**
 * The cache nonce of a block (Octez `cache_nonce_from_block_header`): the hash of its header with
 * the context hash, fitness, proto level, level, validation passes, timestamp, proof of work
 * nonce ("0" × 8) and signature (zero) blanked, so that the block built by a baker and the block
 * applied by a validator give their cache entries the same nonce.
 */
export function cacheNonce(predecessor: string, operationsHash: string, contents: ProtocolDataContents): Uint8Array {
  const unsigned = encodeBinary(unsignedBlockHeader, {
    level: 0,
    proto: 0,
    predecessor,
    timestamp: 0,
    validation_pass: 0,
    operations_hash: operationsHash,
    fitness: [],
    context: ZERO_CONTEXT_HASH,
    priority: contents.priority,
    proof_of_work_nonce: ZERO_POW_NONCE,
    ...(contents.seed_nonce_hash === undefined ? {} : { seed_nonce_hash: contents.seed_nonce_hash }),
    liquidity_baking_escape_vote: contents.liquidity_baking_escape_vote,
  });
  const bytes = new Uint8Array(unsigned.length + ZERO_SIGNATURE.length);
  bytes.set(unsigned);
  bytes.set(ZERO_SIGNATURE, unsigned.length);
  return blake2b256(bytes);
}

/** Decodes a Hangzhou header's protocol data bytes. */
export function parseProtocolData(bytes: Uint8Array): ReturnType<typeof protocolDataCodec.read> {
  return decodeBinary(protocolDataCodec, bytes);
}
