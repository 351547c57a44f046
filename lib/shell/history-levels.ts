/**
 * Where the savepoint and the caboose go, as Octez v12's store computes them (`store.ml`'s
 * `set_head`, `block_store.ml`'s `merge_stores`, `update_floating_stores`,
 * `compute_new_savepoint`, `compute_new_caboose`, and `switch_history_mode`'s `infer_savepoint`
 * and `infer_caboose`). Octez moves them when the head's last allowed fork level (lafl) passes the
 * cementing highwatermark: once per cycle, the blocks up to the new lafl are "cemented" in cycles
 * and the floating store keeps the blocks from `lafl - max_operations_ttl(lafl block)` up. We
 * keep no cemented files, only the bookkeeping that decides the levels: the highwatermark, the
 * cemented cycles' bounds, and the floating store's lowest level. Pure functions: the chain
 * writes the result with the head that triggered it, and the pruner deletes afterwards.
 * @module
 */
import { additionalCycles, type HistoryMode } from "./history-mode.ts";

/** The bookkeeping of the merges, kept in the chain data (`history_levels`). */
export interface HistoryLevels {
  /** The lafl of the last merge (Octez's cementing highwatermark); undefined until the first head. */
  readonly cementingHighwatermark: number | undefined;
  /** Cemented cycles as [first level, last level], oldest first (the last 1000; rolling: its offset). */
  readonly cycles: readonly (readonly [number, number])[];
  /** Lowest level of Octez's floating store (`min_level_to_preserve` of the last merge). */
  readonly floatingFloor: number;
}

/** A block as hash and level. */
export interface Locator {
  readonly hash: string;
  readonly level: number;
}

/** What the computation reads of the new head's branch. */
export interface BranchReader {
  /** Hash of the new head's ancestor (or itself) at `level`. */
  hashAt(level: number): string | undefined;
  /** The shell's record of a block: its lafl and max operations TTL. */
  record(hash: string): { last_allowed_fork_level: number; max_operations_ttl: number } | undefined;
}

/** The bookkeeping of a new chain. */
export const INITIAL_HISTORY_LEVELS: HistoryLevels = { cementingHighwatermark: undefined, cycles: [], floatingFloor: 0 };

const KEPT_CYCLES = 1000;

/** Encodes the bookkeeping: flag, highwatermark, floor, count, cycles (u32 big-endian each). */
export function encodeHistoryLevels(s: HistoryLevels): Uint8Array {
  const out = new Uint8Array(13 + 8 * s.cycles.length);
  const v = new DataView(out.buffer);
  out[0] = s.cementingHighwatermark === undefined ? 0 : 1;
  v.setUint32(1, s.cementingHighwatermark ?? 0);
  v.setUint32(5, s.floatingFloor);
  v.setUint32(9, s.cycles.length);
  s.cycles.forEach(([a, b], i) => {
    v.setUint32(13 + 8 * i, a);
    v.setUint32(17 + 8 * i, b);
  });
  return out;
}

/** Inverse of `encodeHistoryLevels`; throws on a malformed value. */
export function decodeHistoryLevels(bytes: Uint8Array): HistoryLevels {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 13) throw new Error("Corrupted store: history levels too short");
  const n = v.getUint32(9);
  if (bytes.length !== 13 + 8 * n) throw new Error("Corrupted store: history levels of a wrong length");
  const cycles: [number, number][] = [];
  for (let i = 0; i < n; i++) cycles.push([v.getUint32(13 + 8 * i), v.getUint32(17 + 8 * i)]);
  return { cementingHighwatermark: bytes[0] === 1 ? v.getUint32(1) : undefined, floatingFloor: v.getUint32(5), cycles };
}

/** The outcome of a merge: new bookkeeping and the savepoint and caboose to write with the head. */
export interface MergeResult {
  readonly levels: HistoryLevels;
  readonly savepoint: Locator;
  readonly caboose: Locator;
}

/**
 * What a new head changes (Octez's `set_head` then `merge_stores`): undefined when no merge is
 * due (its lafl is not above the highwatermark), else the new levels. `headLevel` and `headLafl`
 * are the new head's; `reader` reads its branch.
 */
export function mergeOnNewHead(
  mode: HistoryMode,
  state: HistoryLevels,
  headLevel: number,
  headLafl: number,
  savepoint: Locator,
  caboose: Locator,
  reader: BranchReader,
): { levels: HistoryLevels; merge?: MergeResult } {
  // Octez's `locked_determine_cementing_highwatermark`: set once the head's lafl reaches the caboose.
  let chw = state.cementingHighwatermark;
  if (chw === undefined) {
    if (headLafl < caboose.level) return { levels: state };
    chw = headLafl;
    state = { ...state, cementingHighwatermark: chw };
  }
  if (headLafl <= chw) return { levels: state };
  const laflHash = reader.hashAt(headLafl);
  const laflRecord = laflHash === undefined ? undefined : reader.record(laflHash);
  if (laflHash === undefined || laflRecord === undefined) return { levels: state };
  // The floating store keeps lafl - max_op_ttl(lafl block) and up, as far as it has blocks.
  const lowestBound = headLafl - laflRecord.max_operations_ttl;
  const minLevel = Math.max(lowestBound, state.floatingFloor, 0);
  const minHash = reader.hashAt(minLevel);
  if (minHash === undefined) return { levels: state };
  const minBlock: Locator = { hash: minHash, level: minLevel };
  const toCement = cyclesToCement(chw, headLevel, headLafl, reader);
  const offset = additionalCycles(mode);
  const newSavepoint = computeNewSavepoint(mode, offset, savepoint, minBlock, state.cycles, toCement, reader);
  const newCaboose = computeNewCaboose(mode, offset, caboose, newSavepoint, minBlock, reader);
  let cycles = [...state.cycles, ...toCement];
  if (mode.mode === "rolling") cycles = offset === 0 ? [] : cycles.slice(-offset);
  else cycles = cycles.slice(-KEPT_CYCLES);
  const levels: HistoryLevels = { cementingHighwatermark: headLafl, cycles, floatingFloor: minLevel };
  return { levels, merge: { levels, savepoint: newSavepoint, caboose: newCaboose } };
}

/**
 * Octez's cycles to cement: one [first, last] per distinct lafl in (chw, headLafl] among the
 * blocks above chw, the first starting after chw (at genesis when chw is genesis's level, 0).
 */
function cyclesToCement(chw: number, headLevel: number, headLafl: number, reader: BranchReader): [number, number][] {
  const lafls = new Set<number>();
  for (let level = headLevel; level > chw; level--) {
    const h = reader.hashAt(level);
    const r = h === undefined ? undefined : reader.record(h);
    if (r === undefined) break;
    if (r.last_allowed_fork_level <= chw) break; // lafls only grow along a branch
    if (r.last_allowed_fork_level <= headLafl) lafls.add(r.last_allowed_fork_level);
  }
  const sorted = [...lafls].sort((a, b) => a - b);
  const out: [number, number][] = [];
  let pred = chw === 0 ? -1 : chw;
  for (const l of sorted) {
    out.push([pred + 1, l]);
    pred = l;
  }
  return out;
}

function computeNewSavepoint(
  mode: HistoryMode,
  offset: number,
  savepoint: Locator,
  minBlock: Locator,
  cemented: readonly (readonly [number, number])[],
  toCement: readonly [number, number][],
  reader: BranchReader,
): Locator {
  if (mode.mode === "archive") return savepoint;
  if (savepoint.level >= minBlock.level) return savepoint;
  if (offset === 0) return minBlock;
  const cycles = [...cemented, ...toCement];
  if (cycles.length < offset) {
    // Octez drags a savepoint that is neither in the cycles being cemented nor in the new
    // floating store (which starts at minBlock, above it) up to minBlock.
    const inCemented = toCement.some(([a, b]) => a <= savepoint.level && savepoint.level <= b);
    return inCemented ? savepoint : minBlock;
  }
  const shifted = cycles[cycles.length - offset]![0];
  if (savepoint.level >= shifted) return savepoint;
  if (shifted >= minBlock.level) return minBlock;
  const hash = reader.hashAt(shifted);
  return hash === undefined ? savepoint : { hash, level: shifted };
}

function computeNewCaboose(mode: HistoryMode, offset: number, caboose: Locator, newSavepoint: Locator, minBlock: Locator, _reader: BranchReader): Locator {
  if (mode.mode !== "rolling") return caboose;
  if (caboose.level >= minBlock.level) return caboose;
  if (minBlock.level < newSavepoint.level || offset === 0) return minBlock;
  return newSavepoint;
}

/**
 * The savepoint and caboose after a history-mode switch (Octez's `switch_history_mode` with
 * `infer_savepoint` and `infer_caboose`), and the bookkeeping's cycles trimmed for the new mode.
 * `head` carries the current head's lafl and max operations TTL.
 */
export function levelsAfterSwitch(
  from: HistoryMode,
  to: HistoryMode,
  state: HistoryLevels,
  head: { level: number; lafl: number; ttl: number },
  savepoint: Locator,
  caboose: Locator,
  reader: BranchReader,
): MergeResult {
  const target = additionalCycles(to);
  const cycles = state.cycles;
  const n = cycles.length;
  const at = (level: number, fallback: Locator): Locator => {
    const hash = reader.hashAt(level);
    return hash === undefined ? fallback : { hash, level };
  };
  const preserved = Math.max(0, head.lafl - head.ttl);
  // infer_savepoint: the expected savepoint from the cemented cycles, or the current one.
  const expected = n === 0 || target > n ? savepoint.level : target === 0 ? cycles[n - 1]![1] + 1 : cycles[n - target]![0];
  const newSavepoint = at(Math.max(Math.min(preserved, expected), savepoint.level), savepoint);
  let newCaboose = caboose;
  if (to.mode === "rolling") {
    if (from.mode === "archive") newCaboose = newSavepoint;
    else if (from.mode === "full") {
      const expectedCaboose = n === 0 || target > n ? undefined : target === 0 ? cycles[n - 1]![1] + 1 : cycles[n - target]![0];
      newCaboose = expectedCaboose === undefined ? newSavepoint : at(Math.min(expectedCaboose, preserved), newSavepoint);
    } else newCaboose = additionalCycles(from) < target ? caboose : newSavepoint;
  }
  const kept = to.mode === "rolling" ? (target === 0 ? [] : cycles.slice(-target)) : cycles;
  return { levels: { ...state, cycles: kept }, savepoint: newSavepoint, caboose: newCaboose };
}

/**
 * `merge` with its savepoint and caboose held at `pin` where they would pass it: a sandbox
 * snapshot's block keeps its metadata and its context (a root of the context collection, which
 * keeps the savepoint's block and up) and stays above the caboose. The next merge after the pin
 * is gone moves them on (`computeNewSavepoint` starts from the savepoint as it is).
 */
export function holdAtPin(merge: MergeResult, pin: Locator | undefined): MergeResult {
  if (pin === undefined) return merge;
  const savepoint = merge.savepoint.level > pin.level ? pin : merge.savepoint;
  const caboose = merge.caboose.level > pin.level ? pin : merge.caboose;
  return savepoint === merge.savepoint && caboose === merge.caboose ? merge : { ...merge, savepoint, caboose };
}

/**
 * The bookkeeping after a sandbox revert to a block whose lafl is `targetLafl`: as if the merges
 * of the forgotten blocks had gone no further than the target's branch allows (the
 * highwatermark and the cemented cycles down to `targetLafl`, the floating floor down to the
 * savepoint), so that the next merges follow the new blocks rather than wait for the chain to
 * pass the forgotten head's level.
 */
export function levelsAfterRevert(state: HistoryLevels, targetLafl: number, savepointLevel: number): HistoryLevels {
  const chw = state.cementingHighwatermark;
  if (chw === undefined || chw <= targetLafl) return state;
  return {
    cementingHighwatermark: targetLafl,
    cycles: state.cycles.filter(([, last]) => last <= targetLafl),
    floatingFloor: Math.min(state.floatingFloor, savepointLevel),
  };
}
