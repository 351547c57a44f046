/**
 * Cycle seeds (Octez `Seed_repr`, `Seed_storage`): the initial seeds of cycles 0..p+1, the seed
 * computed at a cycle's end from the nonces revealed during the previous cycle, and the window
 * of cycles whose seed a context keeps.
 *
 * @example
 * ```ts
 * const seeds = initialSeeds(2 + 2); // cycles 0..3 of the sandbox (preserved_cycles 2)
 * const next = seedFromRevelations(seeds[3]!, [nonceAt8, undefined, nonceAt4]); // highest level first
 * ```
 * @module
 */
import { blake2b256 } from "../../crypto/blake2b.ts";
import { int32 } from "../../encoding/integers.ts";
import { obj, req } from "../../encoding/object.ts";
import type { ErrorDefinition } from "../../errors/mod.ts";
import { protoError } from "./proto-error.ts";
import { SEED_SIZE } from "./random.ts";

const ZERO_32 = new Uint8Array(SEED_SIZE);

function check32(what: string, b: Uint8Array): Uint8Array {
  if (!(b instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
  if (b.length !== SEED_SIZE) throw new RangeError(`${what} must be ${SEED_SIZE} bytes, got ${b.length}`);
  return b;
}

/** The seed that follows `seed` when nothing is revealed (`deterministic_seed`): H(seed ‖ 32 zero bytes). */
export function deterministicSeed(seed: Uint8Array): Uint8Array {
  return blake2b256(check32("seed", seed), ZERO_32);
}

/** A seed mixed with one revealed 32-byte nonce (`Seed_repr.nonce`): H(seed ‖ nonce). */
export function mixNonce(seed: Uint8Array, nonce: Uint8Array): Uint8Array {
  return blake2b256(check32("seed", seed), check32("nonce", nonce));
}

/**
 * The first `count` seeds (`Seed_repr.initial_seeds`), for cycles 0..count−1 (Octez stores
 * preserved_cycles + 2 of them at activation): s0 = H(""), s(i+1) = H(s(i) ‖ 32 zero bytes).
 */
export function initialSeeds(count: number): Uint8Array[] {
  if (typeof count !== "number" || !Number.isInteger(count)) throw new TypeError(`count must be an integer, got ${String(count)}`);
  if (count < 1 || count > 256) throw new RangeError(`count must be in [1, 256], got ${count}`);
  const out = [blake2b256()];
  while (out.length < count) out.push(deterministicSeed(out[out.length - 1]!));
  return out;
}

/**
 * The seed of cycle c + p + 1, computed at the end of cycle c ≥ 1 (`compute_for_cycle`):
 * start from H(seed(c + p) ‖ 32 zero bytes), then mix in each revealed nonce of the commitment
 * levels of cycle c − 1, **highest level first**; `undefined` entries (unrevealed nonces) are
 * skipped.
 */
export function seedFromRevelations(previousSeed: Uint8Array, revealedHighestFirst: readonly (Uint8Array | undefined)[]): Uint8Array {
  if (!Array.isArray(revealedHighestFirst)) throw new TypeError("revealed nonces must be an array");
  let seed = deterministicSeed(previousSeed);
  for (const nonce of revealedHighestFirst) if (nonce !== undefined) seed = mixNonce(seed, nonce);
  return seed;
}

/** Cycles whose seed a context keeps: `[oldest, latest]`. */
export interface SeedWindow {
  oldest: number;
  latest: number;
}

/**
 * The cycles whose seed is available while the current cycle is `currentCycle`
 * (`Seed_storage.for_cycle`): from max(0, current − p) to current + p (current + p + 1 in cycle 0).
 */
export function seedWindow(currentCycle: number, preservedCycles: number): SeedWindow {
  if (!Number.isInteger(currentCycle) || currentCycle < 0) throw new RangeError(`current cycle must be a non-negative integer, got ${currentCycle}`);
  if (!Number.isInteger(preservedCycles) || preservedCycles < 0) throw new RangeError(`preserved_cycles must be a non-negative integer, got ${preservedCycles}`);
  return {
    oldest: Math.max(0, currentCycle - preservedCycles),
    latest: currentCycle === 0 ? preservedCycles + 1 : currentCycle + preservedCycles,
  };
}

/** Fields of `seed.unknown_seed`. */
export interface UnknownSeed {
  oldest: number;
  requested: number;
  latest: number;
}

/** `proto.011-PtHangz2.seed.unknown_seed` {oldest, requested, latest}: the requested seed is not available. */
export const unknownSeed: ErrorDefinition<UnknownSeed> = protoError({
  id: "seed.unknown_seed",
  kind: "permanent",
  title: "Unknown seed",
  description: "The requested seed is not available",
  fields: obj(req("oldest", int32), req("requested", int32), req("latest", int32)),
});

/** Throws `seed.unknown_seed` unless the seed of `cycle` is in the window of `currentCycle`. */
export function checkSeedAvailable(currentCycle: number, preservedCycles: number, cycle: number): void {
  const { oldest, latest } = seedWindow(currentCycle, preservedCycles);
  if (!(oldest <= cycle && cycle <= latest)) throw unknownSeed.error({ oldest, requested: cycle, latest });
}
