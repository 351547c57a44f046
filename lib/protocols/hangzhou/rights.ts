/**
 * Baking and endorsing rights (Octez `Roll_storage.Random`, `Baking`, and the plugin's
 * `helpers/baking_rights` and `helpers/endorsing_rights`): who owns a priority or a slot at a
 * level, drawn from the cycle's seed over the cycle's selected roll snapshot, and the RPC query
 * logic over them. State enters through two small views, {@link RollSnapshot} and
 * {@link RightsSource}, so this module computes without touching storage.
 *
 * @example
 * ```ts
 * const src: RightsSource = { seed: (c) => seeds[c], snapshot: (c) => ({ bound: 2500, owner: (r) => owners[Math.floor(r / 500)] }) };
 * bakingRightsOwner(src, levelFromRaw(eras, 2), 0);              // the public key that bakes level 2 at priority 0
 * endorsementRights(src, levelFromRaw(eras, 1), 256);            // Map pkh → { publicKey, slots }, descending pkh
 * bakingRights(ctx, {});                                         // the default RPC answer
 * ```
 * @module
 */
import { CURVE_TAG, formatPublicKeyHash, parsePublicKeyHash, publicKeyHash, type PublicKey, type PublicKeyHash } from "../../crypto/keys.ts";
import type { Codec } from "../../encoding/core.ts";
import { int32, uint16 } from "../../encoding/integers.ts";
import { publicKeyHash as publicKeyHashCodec } from "../../encoding/keys.ts";
import { list } from "../../encoding/list.ts";
import { obj, opt, req } from "../../encoding/object.ts";
import { timestamp } from "../../encoding/time.ts";
import { utf8 } from "../../encoding/bytes.ts";
import { toHex } from "../../encoding/hex.ts";
import { levelFromRaw, levelsInCycle, type CycleEras, type Level } from "./level.ts";
import { initialize, int32Bytes, sequence, takeInt32 } from "./random.ts";
import { earlierPredecessorTimestamp, minimalTime, type TimingConstants } from "./timing.ts";

/** A cycle's selected roll snapshot, as the rights draw sees it. */
export interface RollSnapshot {
  /** `Last_for_snapshot`: the value of the roll counter when the snapshot was taken; draws fall in [0, bound). */
  readonly bound: number;
  /** The delegate (public key) owning `roll` in the snapshot, `undefined` for a free roll. */
  owner(roll: number): PublicKey | undefined;
  /** An identity of the snapshot's content, when known: rights drawn from it are then remembered. */
  readonly id?: string;
}

/** Where rights find a cycle's seed and roll snapshot; each throws the domain error when it has none. */
export interface RightsSource {
  /** The seed of a cycle (throws `seed.unknown_seed` outside the kept window). */
  seed(cycle: number): Uint8Array;
  /** The selected snapshot of a cycle (throws `contract.manager.no_roll_snapshot_for_cycle` when missing). */
  snapshot(cycle: number): RollSnapshot;
}

/** The two uses of the level draw. */
export type RightsKind = "baking" | "endorsement";

/**
 * A draw gives up after this many rolls without an owner (Octez would loop forever; with any
 * owned roll in the snapshot, reaching it is astronomically unlikely).
 */
export const MAX_DRAWS = 1 << 22;

const USE_BYTES: Readonly<Record<RightsKind, Uint8Array>> = Object.freeze({
  baking: utf8("level baking:"),
  endorsement: utf8("level endorsement:"),
});

/**
 * The random state of one level for one use (`Roll_storage.Random.level_random`):
 * initialize(seed, "level baking:" | "level endorsement:", int32be(cycle_position)).
 */
export function levelRandom(seed: Uint8Array, kind: RightsKind, cyclePosition: number): Uint8Array {
  const use = USE_BYTES[kind];
  if (use === undefined) throw new TypeError(`Unknown rights kind ${JSON.stringify(kind)}`);
  return initialize(seed, use, int32Bytes(cyclePosition));
}

/**
 * The owner drawn from a level's random state for an offset (priority or slot): draws in
 * [0, snapshot.bound) from sequence(state, offset) until a roll with an owner comes up.
 */
export function ownerFromLevelRandom(state: Uint8Array, snapshot: RollSnapshot, offset: number, stateKey: string = toHex(state)): PublicKey {
  const bound = snapshot.bound;
  if (typeof bound !== "number" || !Number.isInteger(bound)) throw new TypeError(`snapshot bound must be an integer, got ${String(bound)}`);
  if (bound <= 0) throw new RangeError(`snapshot bound must be positive, got ${bound}`);
  const draws = drawsOf(state, stateKey, offset, bound);
  for (let i = 0; i < MAX_DRAWS; i++) {
    const value = draws.at(i);
    if (value < 0) continue; // the |−2^31| corner case: no roll has a negative id
    const owner = snapshot.owner(value);
    if (owner !== undefined) return owner;
  }
  throw new RangeError(`No roll with an owner after ${MAX_DRAWS} draws (bound ${bound})`);
}

/**
 * The rolls drawn from sequence(state, offset) in [0, bound), computed once and remembered: the
 * draws depend only on these three values, while which drawn roll has an owner depends on the
 * snapshot. Every block asks for the same 256 endorsement slots several times (baker, mempool,
 * construction, application), so this saves most of the hashing.
 */
class Draws {
  private seq: Uint8Array;
  private readonly values: number[] = [];
  private readonly bound: number;
  constructor(state: Uint8Array, offset: number, bound: number) {
    this.seq = sequence(state, offset);
    this.bound = bound;
  }
  at(i: number): number {
    while (this.values.length <= i) {
      const { value, next } = takeInt32(this.seq, this.bound);
      this.seq = next;
      this.values.push(value);
    }
    return this.values[i]!;
  }
}

const DRAWS_CACHE_SIZE = 16_384;
const drawsCache = new Map<string, Draws>();


function drawsOf(state: Uint8Array, stateKey: string, offset: number, bound: number): Draws {
  const key = `${stateKey}:${offset}:${bound}`;
  let d = drawsCache.get(key);
  if (d === undefined) {
    if (drawsCache.size >= DRAWS_CACHE_SIZE) drawsCache.delete(drawsCache.keys().next().value!);
    d = new Draws(state, offset, bound);
    drawsCache.set(key, d);
  }
  return d;
}

/**
 * The owner of `offset` (priority or slot) at a level (`Roll_storage.Random.owner`), from the
 * cycle's seed and snapshot.
 */
export function rightsOwner(seed: Uint8Array, snapshot: RollSnapshot, kind: RightsKind, cyclePosition: number, offset: number): PublicKey {
  return ownerFromLevelRandom(levelRandom(seed, kind, cyclePosition), snapshot, offset);
}

/** The delegate that bakes `level` at `priority` (`baking_rights_owner`). */
export function bakingRightsOwner(src: RightsSource, level: Level, priority: number): PublicKey {
  return rightsOwner(src.seed(level.cycle), src.snapshot(level.cycle), "baking", level.cycle_position, priority);
}

/** The delegate owning endorsement `slot` at `level` (`endorsement_rights_owner`). */
export function endorsementRightsOwner(src: RightsSource, level: Level, slot: number): PublicKey {
  return rightsOwner(src.seed(level.cycle), src.snapshot(level.cycle), "endorsement", level.cycle_position, slot);
}

/** The bakers of `level` by priority 0, 1, 2, … (`Baking.baking_priorities`), lazily and without end. */
export function* bakingPriorities(src: RightsSource, level: Level): Generator<PublicKey, never, undefined> {
  const state = levelRandom(src.seed(level.cycle), "baking", level.cycle_position);
  const key = toHex(state);
  const snapshot = src.snapshot(level.cycle);
  for (let priority = 0; ; priority++) yield ownerFromLevelRandom(state, snapshot, priority, key);
}

/** Comparison of key hashes as Octez's maps order them: curve (ed25519 < secp256k1 < p256), then the hash bytes. */
export function comparePublicKeyHashes(a: PublicKeyHash, b: PublicKeyHash): number {
  const t = CURVE_TAG[a.curve] - CURVE_TAG[b.curve];
  if (t !== 0) return t;
  const n = Math.min(a.bytes.length, b.bytes.length);
  for (let i = 0; i < n; i++) if (a.bytes[i] !== b.bytes[i]) return a.bytes[i]! - b.bytes[i]!;
  return a.bytes.length - b.bytes.length;
}

const pkhCache = new WeakMap<PublicKey, { hash: PublicKeyHash; text: string }>();

function pkhOf(pk: PublicKey): { hash: PublicKeyHash; text: string } {
  let v = pkhCache.get(pk);
  if (v === undefined) {
    const hash = publicKeyHash(pk);
    v = { hash, text: formatPublicKeyHash(hash) };
    pkhCache.set(pk, v);
  }
  return v;
}

/** One delegate's endorsement rights at a level. */
export interface EndorsementSlots {
  /** The delegate's key. */
  publicKey: PublicKey;
  /** Its slots, ascending; their count is its endorsing power. */
  slots: number[];
}

/**
 * The endorsement rights of a level (`Baking.endorsement_rights`): slots 0..endorsersPerBlock−1
 * drawn one by one, grouped by delegate. The map is keyed by `tz…` and iterates in descending
 * key-hash order (the order of the `endorsing_rights` RPC); slots are ascending.
 */
export function endorsementRights(src: RightsSource, level: Level, endorsersPerBlock: number): Map<string, EndorsementSlots> {
  if (!Number.isInteger(endorsersPerBlock) || endorsersPerBlock < 0 || endorsersPerBlock > 0xffff) {
    throw new RangeError(`endorsers_per_block must be in [0, 65535], got ${endorsersPerBlock}`);
  }
  const state = levelRandom(src.seed(level.cycle), "endorsement", level.cycle_position);
  const key = toHex(state);
  const snapshot = src.snapshot(level.cycle);
  const memoKey = snapshot.id === undefined ? undefined : `${key}:${snapshot.bound}:${snapshot.id}:${endorsersPerBlock}`;
  const memo = memoKey === undefined ? undefined : rightsCache.get(memoKey);
  if (memo !== undefined) return copyRights(memo);
  const byPkh = new Map<string, EndorsementSlots & { hash: PublicKeyHash }>();
  for (let slot = 0; slot < endorsersPerBlock; slot++) {
    const pk = ownerFromLevelRandom(state, snapshot, slot, key);
    const { hash, text } = pkhOf(pk);
    const e = byPkh.get(text);
    if (e === undefined) byPkh.set(text, { publicKey: pk, slots: [slot], hash });
    else e.slots.push(slot);
  }
  const sorted = [...byPkh.entries()].sort((a, b) => comparePublicKeyHashes(b[1].hash, a[1].hash));
  const rights = new Map(sorted.map(([k, v]) => [k, { publicKey: v.publicKey, slots: v.slots }]));
  if (memoKey !== undefined) {
    if (rightsCache.size >= RIGHTS_CACHE_SIZE) rightsCache.delete(rightsCache.keys().next().value!);
    rightsCache.set(memoKey, copyRights(rights));
  }
  return rights;
}

/** Endorsement rights by (level random state, bound, snapshot identity, slots): every block asks four times. */
const RIGHTS_CACHE_SIZE = 256;
const rightsCache = new Map<string, Map<string, EndorsementSlots>>();

function copyRights(rights: ReadonlyMap<string, EndorsementSlots>): Map<string, EndorsementSlots> {
  return new Map([...rights].map(([k, v]) => [k, { publicKey: v.publicKey, slots: [...v.slots] }]));
}

// ---------------------------------------------------------------------------------------------
// RPC query logic (plugin `Baking_rights`, `Endorsing_rights`)

/** What the rights RPCs read at block B: its level and timestamp, the constants, the state views. */
export interface RightsRpcContext {
  /** The chain's cycle eras. */
  readonly eras: CycleEras;
  /** The constants (timing ones and endorsers_per_block). */
  readonly constants: TimingConstants;
  /** B's level (the RPC's "current level"). */
  readonly current: Level;
  /** B's timestamp, seconds. */
  readonly timestamp: number;
  /** Seeds and snapshots. */
  readonly source: RightsSource;
  /** The revealed public key of an implicit account, `undefined` if it has none (filters `delegate=`). */
  managerKey(pkh: string): PublicKey | undefined;
}

/** `helpers/baking_rights` query. */
export interface BakingRightsQuery {
  level?: readonly number[];
  cycle?: readonly number[];
  delegate?: readonly string[];
  max_priority?: number;
  all?: boolean;
}

/** One entry of the `helpers/baking_rights` answer. */
export interface BakingRight {
  level: number;
  delegate: string;
  priority: number;
  estimated_time?: number;
}

/** `helpers/endorsing_rights` query. */
export interface EndorsingRightsQuery {
  level?: readonly number[];
  cycle?: readonly number[];
  delegate?: readonly string[];
}

/** One entry of the `helpers/endorsing_rights` answer. */
export interface EndorsingRight {
  level: number;
  delegate: string;
  slots: number[];
  estimated_time?: number;
}

/** Codec of a baking right (level, delegate, priority uint16, optional estimated_time). */
export const bakingRight: Codec<BakingRight> = obj(
  req("level", int32),
  req("delegate", publicKeyHashCodec),
  req("priority", uint16),
  opt("estimated_time", timestamp),
);

/** Codec of the `helpers/baking_rights` answer. */
export const bakingRightsList: Codec<BakingRight[]> = list(bakingRight);

/** Codec of an endorsing right (level, delegate, slots uint16 list, optional estimated_time). */
export const endorsingRight: Codec<EndorsingRight> = obj(
  req("level", int32),
  req("delegate", publicKeyHashCodec),
  req("slots", list(uint16)),
  opt("estimated_time", timestamp),
);

/** Codec of the `helpers/endorsing_rights` answer. */
export const endorsingRightsList: Codec<EndorsingRight[]> = list(endorsingRight);

/** A requested level with the predecessor time assumed for it (absent for levels ≤ B's). */
export interface RequestedLevel {
  level: Level;
  predecessorTime?: number;
}

/**
 * The levels a rights query asks for (plugin `requested_levels`): `fallback` when neither
 * `level` nor `cycle` is given; otherwise the given levels and every level of the given cycles,
 * deduplicated and ascending, each future one (> B's level) with the time of its predecessor
 * assuming blocks every minimal_block_delay after B.
 */
export function requestedLevels(
  ctx: RightsRpcContext,
  cycles: readonly number[],
  levels: readonly number[],
  fallback: RequestedLevel,
): RequestedLevel[] {
  if (levels.length === 0 && cycles.length === 0) return [fallback];
  const byLevel = new Map<number, Level>();
  for (const l of levels) byLevel.set(l, levelFromRaw(ctx.eras, l));
  for (const c of cycles) for (const l of levelsInCycle(ctx.eras, c)) byLevel.set(l.level, l);
  const sorted = [...byLevel.values()].sort((a, b) => a.level - b.level);
  return sorted.map((level) =>
    level.level <= ctx.current.level
      ? { level }
      : { level, predecessorTime: earlierPredecessorTimestamp(ctx.constants, ctx.current.level, ctx.timestamp, level.level) },
  );
}

function right(level: Level, delegate: string, priority: number, pred: number | undefined, c: TimingConstants): BakingRight {
  const r: BakingRight = { level: level.level, delegate, priority };
  if (pred !== undefined) r.estimated_time = minimalTime(c, priority, pred);
  return r;
}

/** The highest baking priority: priorities are 16-bit (`uint16` in headers and answers). */
export const MAX_PRIORITY = 0xffff;

/**
 * The `helpers/baking_rights` answer. Default level: B's level + 1 (estimated from B's time).
 * Priorities 0..max_priority inclusive (default 64, or 8 when `cycle` is given; at most
 * {@link MAX_PRIORITY}: no priority lies beyond). Without `delegate`: every priority, then,
 * unless `all`, only each delegate's first. With `delegate`: only delegates with a revealed key,
 * first priority each (all of them with `all`), stopping early once every one was found.
 */
export function bakingRights(ctx: RightsRpcContext, q: BakingRightsQuery): BakingRight[] {
  const out: BakingRight[] = [];
  for (const r of bakingRightsSteps(ctx, q)) if (r !== undefined) out.push(r);
  return out;
}

/**
 * {@link bakingRights} one step at a time: each step (a priority looked at) yields its right, or
 * `undefined` when it gives none, so that a caller can bound and pace the work.
 */
export function* bakingRightsSteps(ctx: RightsRpcContext, q: BakingRightsQuery): Generator<BakingRight | undefined, void> {
  const cycles = q.cycle ?? [];
  const fallbackLevel = levelFromRaw(ctx.eras, ctx.current.level + 1);
  const levels = requestedLevels(ctx, cycles, q.level ?? [], { level: fallbackLevel, predecessorTime: ctx.timestamp });
  const maxPrio = Math.min(q.max_priority ?? (cycles.length === 0 ? 64 : 8), MAX_PRIORITY);
  const all = q.all === true;
  if (q.delegate === undefined || q.delegate.length === 0) {
    for (const { level, predecessorTime } of levels) {
      const seen = new Set<string>();
      const owners = bakingPriorities(ctx.source, level);
      for (let priority = 0; priority <= maxPrio; priority++) {
        const pkh = pkhOf(owners.next().value).text;
        if (!all) {
          if (seen.has(pkh)) {
            yield undefined;
            continue;
          }
          seen.add(pkh);
        }
        yield right(level, pkh, priority, predecessorTime, ctx.constants);
      }
    }
    return;
  }
  const wanted: string[] = [];
  for (const d of q.delegate) {
    const pk = ctx.managerKey(d);
    if (pk !== undefined) wanted.push(formatPublicKeyHash(parsePublicKeyHash(d)));
  }
  for (const { level, predecessorTime } of levels) {
    let remaining = wanted;
    const owners = bakingPriorities(ctx.source, level);
    for (let priority = 0; remaining.length > 0 && priority <= maxPrio; priority++) {
      const pkh = pkhOf(owners.next().value).text;
      if (!remaining.includes(pkh)) {
        yield undefined;
        continue;
      }
      yield right(level, pkh, priority, predecessorTime, ctx.constants);
      if (!all) remaining = remaining.filter((d) => d !== pkh);
    }
  }
}

/**
 * The `helpers/endorsing_rights` answer. Default level: B's level, with B's timestamp as
 * estimated time; requested levels as {@link requestedLevels} (estimated time = the assumed
 * predecessor time, absent for levels ≤ B's). Per level, delegates in descending key-hash order;
 * `delegate` filters the result.
 */
export function endorsingRights(ctx: RightsRpcContext, q: EndorsingRightsQuery): EndorsingRight[] {
  return [...endorsingRightsSteps(ctx, q)].flat();
}

/** {@link endorsingRights} one level at a time: each step yields that level's rights. */
export function* endorsingRightsSteps(ctx: RightsRpcContext, q: EndorsingRightsQuery): Generator<EndorsingRight[], void> {
  const levels = requestedLevels(ctx, q.cycle ?? [], q.level ?? [], { level: ctx.current, predecessorTime: ctx.timestamp });
  const filter = q.delegate === undefined || q.delegate.length === 0 ? undefined : new Set(q.delegate);
  for (const { level, predecessorTime } of levels) {
    const out: EndorsingRight[] = [];
    for (const [delegate, { slots }] of endorsementRights(ctx.source, level, ctx.constants.endorsers_per_block)) {
      if (filter !== undefined && !filter.has(delegate)) continue;
      const r: EndorsingRight = { level: level.level, delegate, slots };
      if (predecessorTime !== undefined) r.estimated_time = predecessorTime;
      out.push(r);
    }
    yield out;
  }
}
