/**
 * Cycle seeds in the context (Octez `Seed_storage`): `cycle/<c>/random_seed`, the initial seeds
 * stored at activation, the window of seeds rights may use, and the seed of cycle c + p + 1
 * computed at the end of cycle c from the nonces revealed during cycle c − 1.
 * @module
 */
import { levelsWithCommitmentsInCycle } from "../level.ts";
import { checkSeedAvailable, deterministicSeed, initialSeeds, mixNonce } from "../seed.ts";
import { cyclePath } from "./layout.ts";
import { removeNonce, getNonce, type UnrevealedNonce } from "./nonce.ts";
import type { ProtoContext } from "./proto-context.ts";

function seedPath(cycle: number): string[] {
  return cyclePath(cycle, "random_seed");
}

/** The stored seed of a cycle (`Seed.For_cycle.get`); `context.storage_error` if absent. */
export function getSeed(pc: ProtoContext, cycle: number): Uint8Array {
  return pc.get(seedPath(cycle));
}

/** Stores the seed of a new cycle (`Seed.For_cycle.init`). */
export function initSeed(pc: ProtoContext, cycle: number, seed: Uint8Array): void {
  if (!(seed instanceof Uint8Array) || seed.length !== 32) throw new RangeError("a seed is 32 bytes");
  pc.init(seedPath(cycle), seed);
}

/**
 * The seed of a cycle as rights see it (`Seed_storage.for_cycle`): `seed.unknown_seed` outside
 * [max(0, current − p), current + p] (current + p + 1 during cycle 0).
 */
export function seedForCycle(pc: ProtoContext, cycle: number): Uint8Array {
  checkSeedAvailable(pc.level.cycle, pc.constants.preserved_cycles, cycle);
  return getSeed(pc, cycle);
}

/** Stores the initial seeds of cycles 0 … p + 1 (`Seed_storage.init`). */
export function initSeeds(pc: ProtoContext): void {
  initialSeeds(pc.constants.preserved_cycles + 2).forEach((s, c) => initSeed(pc, c, s));
}

/**
 * Computes and stores the seed of `cycle` (`compute_for_cycle`): H(seed(cycle − 1) ‖ 0³²), then
 * the revealed nonces of `revealedCycle`'s commitment levels mixed in from the highest level
 * down; every nonce entry of that cycle is removed. Returns the unrevealed commitments in
 * ascending level order (for the burns of the cycle end).
 */
export function computeSeedForCycle(pc: ProtoContext, revealedCycle: number, cycle: number): UnrevealedNonce[] {
  if (cycle <= 0) throw new RangeError("computeSeedForCycle: cycle must be positive");
  let seed = deterministicSeed(getSeed(pc, cycle - 1));
  const unrevealed: UnrevealedNonce[] = [];
  const levels = levelsWithCommitmentsInCycle(pc.eras, revealedCycle).reverse();
  for (const level of levels) {
    const status = getNonce(pc, level);
    removeNonce(pc, level);
    if (status.kind === "revealed") seed = mixNonce(seed, status.nonce);
    else unrevealed.unshift(status);
  }
  initSeed(pc, cycle, seed);
  return unrevealed;
}

/**
 * The seeds' part of the end of cycle `lastCycle` (`Seed_storage.cycle_end`): deletes the seed of
 * lastCycle − p, and for lastCycle ≥ 1 computes the seed of lastCycle + p + 1 from the
 * revelations of lastCycle − 1. Returns the unrevealed commitments (ascending levels).
 */
export function seedCycleEnd(pc: ProtoContext, lastCycle: number): UnrevealedNonce[] {
  const p = pc.constants.preserved_cycles;
  if (lastCycle - p >= 0) pc.removeExisting(seedPath(lastCycle - p));
  if (lastCycle < 1) return [];
  return computeSeedForCycle(pc, lastCycle - 1, lastCycle + p + 1);
}
