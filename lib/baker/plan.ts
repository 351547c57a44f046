/**
 * What the sandbox baker puts in the next block, decided on the context of the current head H
 * (Hangzhou's state after H), as Octez's baker decides it:
 *
 * - level L = H.level + 1 and its level info (cycle, expected commitment);
 * - priority: the best p = 0, 1, 2, … whose owner at L (`bakingRightsOwner`) is a held key;
 * - endorsers: every held delegate with endorsing rights at H.level, with all its slots (the
 *   operation names the smallest) — none when H is not a Hangzhou block (the activation block);
 * - revelations: the nonces this baker committed to in the previous cycle that the context still
 *   holds unrevealed (a revelation is only valid in the cycle right after the commitment's);
 * - timestamp: the later of the wall clock and the minimal valid time for (p, endorsing power),
 *   never before the minimal time of p nor at H's own timestamp (see DESIGN.md, sandbox time).
 *
 * Pure: reads the context, draws nothing.
 *
 * @example
 * ```ts
 * const plan = planBlock({ context, head: { hash, level: 5, timestamp: t, endorsable: true }, keys, now: nowSeconds });
 * plan.priority;        // 0 when a held key bakes first
 * plan.endorsingPower;  // 256 when every bootstrap key is held
 * ```
 * @module
 */
import { B58, b58decode } from "../encoding/base58.ts";
import { formatPublicKeyHash, publicKeyHash, type PublicKey } from "../crypto/keys.ts";
import type { ParametricConstants } from "../protocols/hangzhou/constants.ts";
import { firstLevelInCycle, levelFromRaw, levelsWithCommitmentsInCycle, type Level } from "../protocols/hangzhou/level.ts";
import { bakingPriorities, endorsementRights } from "../protocols/hangzhou/rights.ts";
import { contextRightsSource } from "../protocols/hangzhou/storage/rights-source.ts";
import { findNonce } from "../protocols/hangzhou/storage/nonce.ts";
import { ProtoContext } from "../protocols/hangzhou/storage/proto-context.ts";
import { minimalTime, minimalValidTime } from "../protocols/hangzhou/timing.ts";
import type { Context } from "../store/context/mod.ts";
import type { HeldKey } from "./keys.ts";

/** The highest priority a Hangzhou header can carry (uint16). */
export const MAX_PRIORITY = 0xffff;

/** Most operations of validation pass 2 (anonymous operations) in a Hangzhou block. */
export const MAX_ANONYMOUS_OPERATIONS = 132;

/** The head the next block builds on, as the plan needs it. */
export interface PlanHead {
  readonly hash: string;
  readonly level: number;
  /** Seconds. */
  readonly timestamp: number;
  /** Whether H can be endorsed: false for the activation block (a genesis-protocol block). */
  readonly endorsable: boolean;
}

/** What {@link planBlock} reads. */
export interface PlanInput {
  /** H's context (a Hangzhou context). */
  readonly context: Context;
  readonly head: PlanHead;
  /** The held keys by `tz…`. */
  readonly keys: ReadonlyMap<string, HeldKey>;
  /** Wall clock, seconds. */
  readonly now: number;
  /** This baker's nonce committed at `level` with hash `hash` (raw 32 bytes), if any. */
  readonly nonce?: (level: number, hash: Uint8Array) => Uint8Array | undefined;
  /** Highest priority tried (default {@link MAX_PRIORITY}). */
  readonly maxPriority?: number;
}

/** A held delegate endorsing H, with its slots (ascending). */
export interface PlannedEndorsement {
  readonly key: HeldKey;
  readonly slots: readonly number[];
}

/** A nonce to reveal. */
export interface PlannedRevelation {
  readonly level: number;
  readonly nonce: Uint8Array;
}

/** The next block, as decided by {@link planBlock}. */
export interface BlockPlan {
  /** Level info of the new block. */
  readonly level: Level;
  readonly priority: number;
  readonly baker: HeldKey;
  readonly endorsements: readonly PlannedEndorsement[];
  /** Number of endorsement slots included. */
  readonly endorsingPower: number;
  readonly revelations: readonly PlannedRevelation[];
  /** Earliest valid time for this priority and endorsing power, seconds. */
  readonly minimalValidTime: number;
  /** The block's timestamp, seconds. */
  readonly timestamp: number;
  /** The constants of H's context. */
  readonly constants: ParametricConstants;
  /** Commitments below this level can no longer be revealed (first level of the previous cycle; 0 in cycle 0). */
  readonly forgetBelow: number;
}

/** Raised when none of the held keys may bake the next block. */
export class NoBakingRights extends Error {
  override name = "NoBakingRights";
}

const pkhCache = new WeakMap<PublicKey, string>();

function pkhOf(pk: PublicKey): string {
  let v = pkhCache.get(pk);
  if (v === undefined) {
    v = formatPublicKeyHash(publicKeyHash(pk));
    pkhCache.set(pk, v);
  }
  return v;
}

function checkSeconds(what: string, t: number): number {
  if (typeof t !== "number" || !Number.isSafeInteger(t)) throw new TypeError(`${what} must be an integer number of seconds, got ${String(t)}`);
  return t;
}

/**
 * The held delegates with endorsing rights at `level` (H's level, read on the context `pc`
 * prepared for the level after it), with their slots: what a block on H includes of them, and
 * what an endorser on a network injects for H.
 */
export function heldEndorsements(pc: ProtoContext, level: number, keys: ReadonlyMap<string, HeldKey>): PlannedEndorsement[] {
  const out: PlannedEndorsement[] = [];
  const rights = endorsementRights(contextRightsSource(pc), levelFromRaw(pc.eras, level), pc.constants.endorsers_per_block);
  for (const [pkh, { slots }] of rights) {
    const k = keys.get(pkh);
    if (k !== undefined) out.push({ key: k, slots });
  }
  return out;
}

/** Decides the next block on H (see the module documentation). */
export function planBlock(input: PlanInput): BlockPlan {
  const { head, keys } = input;
  const now = checkSeconds("now", input.now);
  checkSeconds("head timestamp", head.timestamp);
  const maxPriority = input.maxPriority ?? MAX_PRIORITY;
  if (!Number.isInteger(maxPriority) || maxPriority < 0 || maxPriority > MAX_PRIORITY) {
    throw new RangeError(`maxPriority must be in [0, ${MAX_PRIORITY}], got ${maxPriority}`);
  }
  if (keys.size === 0) throw new NoBakingRights("The baker holds no key");
  const pc = ProtoContext.prepare(input.context, {
    level: head.level + 1,
    predecessorTimestamp: head.timestamp,
    timestamp: head.timestamp,
    fitness: 0n,
  });
  const c = pc.constants;
  const level = pc.level;
  const src = contextRightsSource(pc);

  let priority = -1;
  let baker: HeldKey | undefined;
  const owners = bakingPriorities(src, level);
  for (let p = 0; p <= maxPriority; p++) {
    const k = keys.get(pkhOf(owners.next().value));
    if (k !== undefined) {
      priority = p;
      baker = k;
      break;
    }
  }
  if (baker === undefined) {
    throw new NoBakingRights(`None of the held keys may bake level ${level.level} at priorities 0..${maxPriority}`);
  }

  const endorsements = head.endorsable ? heldEndorsements(pc, head.level, keys) : [];
  const endorsingPower = endorsements.reduce((sum, e) => sum + e.slots.length, 0);

  const revelations: PlannedRevelation[] = [];
  if (level.cycle >= 1 && input.nonce !== undefined) {
    for (const l of levelsWithCommitmentsInCycle(pc.eras, level.cycle - 1)) {
      if (revelations.length >= MAX_ANONYMOUS_OPERATIONS) break;
      const s = findNonce(pc, l);
      if (s === undefined || s.kind !== "unrevealed") continue;
      const nonce = input.nonce(l.level, b58decode(B58.nonceHash, s.nonceHash));
      if (nonce !== undefined) revelations.push({ level: l.level, nonce });
    }
  }

  const valid = minimalValidTime(c, priority, endorsingPower, head.timestamp);
  const timestamp = Math.max(now, valid, minimalTime(c, priority, head.timestamp), head.timestamp + 1);
  const forgetBelow = level.cycle >= 1 ? firstLevelInCycle(pc.eras, level.cycle - 1).level : 0;
  return { level, priority, baker, endorsements, endorsingPower, revelations, minimalValidTime: valid, timestamp, constants: c, forgetBelow };
}
