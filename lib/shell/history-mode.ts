/**
 * History modes, as Octez v12's `History_mode`: `archive` keeps everything; `full` keeps every
 * block but drops block metadata (and, with it, contexts) below the savepoint; `rolling` also
 * drops the blocks below the caboose. Full and rolling keep `additionalCycles` cycles of metadata
 * beyond what the protocol needs; absent, the default (5) applies and follows Octez's default if
 * it ever changes, as Octez's `full` and `rolling` aliases.
 *
 * Text forms (the command line and the stored value): `archive`, `full`, `full:N`, `rolling`,
 * `rolling:N` (Octez's `--history-mode`, also capitalised). JSON (RPC and configuration):
 * `"archive"`, `"full"`, `"rolling"`, `{"full":{"additional_cycles":N}}`,
 * `{"rolling":{"additional_cycles":N}}`.
 * @module
 */

/** The three kinds of history mode. */
export type HistoryModeName = "archive" | "full" | "rolling";

/** A history mode; `additionalCycles` (0 to 1000) only for full and rolling, absent for the default. */
export interface HistoryMode {
  readonly mode: HistoryModeName;
  readonly additionalCycles?: number;
}

/** What callers may give for a history mode: a name, a text form (`full:3`) or the object. */
export type HistoryModeInput = HistoryModeName | `${"full" | "rolling"}:${number}` | HistoryMode;

/** Octez's `default_offset`: additional cycles kept by `full` and `rolling` without a number. */
export const DEFAULT_ADDITIONAL_CYCLES = 5;
/** The largest number of additional cycles (Octez's `ranged_int 0 1_000`). */
export const MAX_ADDITIONAL_CYCLES = 1000;

/** Octez's default history mode: full with the default number of additional cycles. */
export const DEFAULT_HISTORY_MODE: HistoryMode = { mode: "full" };

/** The additional cycles a mode keeps (the default when it names none; 0 for archive). */
export function additionalCycles(m: HistoryMode): number {
  return m.mode === "archive" ? 0 : (m.additionalCycles ?? DEFAULT_ADDITIONAL_CYCLES);
}

/**
 * Parses Octez's text form (`archive`, `full`, `full:N`, `rolling`, `rolling:N`, capitalised or
 * not, and `experimental-rolling`); `undefined` when it is none of them.
 */
export function parseHistoryMode(text: string): HistoryMode | undefined {
  const parts = text.split(":");
  const name = parts[0] === "experimental-rolling" && parts.length === 1 ? "rolling" : parts[0]?.replace(/^[AFR]/, (c) => c.toLowerCase());
  if (name !== "archive" && name !== "full" && name !== "rolling") return undefined;
  if (parts.length === 1) return { mode: name };
  if (parts.length !== 2 || name === "archive" || !/^[0-9]+$/.test(parts[1]!)) return undefined;
  const n = Number(parts[1]);
  if (n > MAX_ADDITIONAL_CYCLES) return undefined;
  return { mode: name, additionalCycles: n };
}

/** The text form: `archive`, `full`, `full:N`, `rolling`, `rolling:N`. */
export function printHistoryMode(m: HistoryMode): string {
  return m.mode === "archive" || m.additionalCycles === undefined ? m.mode : `${m.mode}:${m.additionalCycles}`;
}

/** Octez's `History_mode.pp`: `Archive mode`, `Full mode + 5 extra cycles`, ... */
export function describeHistoryMode(m: HistoryMode): string {
  if (m.mode === "archive") return "Archive mode";
  const n = additionalCycles(m);
  return `${m.mode === "full" ? "Full" : "Rolling"} mode${n === 0 ? "" : ` + ${n} extra cycles`}`;
}

/**
 * A history mode from what a caller gave; RangeError naming the accepted forms when it is none.
 */
export function toHistoryMode(input: HistoryModeInput | string): HistoryMode {
  if (typeof input === "string") {
    const m = parseHistoryMode(input);
    if (m === undefined) throw new RangeError(`Invalid history mode "${input}": expected archive, full, full:N, rolling or rolling:N (N from 0 to ${MAX_ADDITIONAL_CYCLES}).`);
    return m;
  }
  if (typeof input !== "object" || input === null || !["archive", "full", "rolling"].includes(input.mode)) {
    throw new RangeError(`Invalid history mode: expected { mode: "archive" | "full" | "rolling", additionalCycles? }.`);
  }
  const n = input.additionalCycles;
  if (n === undefined || input.mode === "archive") return { mode: input.mode };
  if (!Number.isInteger(n) || n < 0 || n > MAX_ADDITIONAL_CYCLES) {
    throw new RangeError(`Invalid history mode: additionalCycles must be a whole number from 0 to ${MAX_ADDITIONAL_CYCLES}, got ${String(n)}.`);
  }
  return { mode: input.mode, additionalCycles: n };
}

/** Octez's `History_mode.equal`: the default number of cycles equals its explicit value. */
export function sameHistoryMode(a: HistoryMode, b: HistoryMode): boolean {
  return a.mode === b.mode && additionalCycles(a) === additionalCycles(b);
}

/**
 * Whether a store in mode `from` may be switched to `to` (Octez's `switch_history_mode`):
 * archive to full or rolling, full to rolling, or another number of cycles in the same mode.
 */
export function canSwitchHistoryMode(from: HistoryMode, to: HistoryMode): boolean {
  if (from.mode === "archive") return to.mode !== "archive";
  if (from.mode === "full") return to.mode === "rolling" || (to.mode === "full" && from.additionalCycles !== to.additionalCycles);
  return to.mode === "rolling" && from.additionalCycles !== to.additionalCycles;
}

/** Octez's JSON form of a history mode. */
export type HistoryModeJson = "archive" | "full" | "rolling" | { full: { additional_cycles: number } } | { rolling: { additional_cycles: number } };

/** The JSON form (Octez's `history_mode` encoding). */
export function historyModeToJson(m: HistoryMode): HistoryModeJson {
  if (m.mode === "archive" || m.additionalCycles === undefined) return m.mode;
  return m.mode === "full" ? { full: { additional_cycles: m.additionalCycles } } : { rolling: { additional_cycles: m.additionalCycles } };
}

/** Reads the JSON form; `undefined` when `json` is not one. */
export function historyModeFromJson(json: unknown): HistoryMode | undefined {
  if (json === "archive" || json === "full" || json === "rolling") return { mode: json };
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const keys = Object.keys(json);
  if (keys.length !== 1 || (keys[0] !== "full" && keys[0] !== "rolling")) return undefined;
  const inner = (json as Record<string, unknown>)[keys[0]!];
  if (typeof inner !== "object" || inner === null || Array.isArray(inner)) return undefined;
  if (Object.keys(inner).length === 0) return { mode: keys[0] }; // Octez's `dft`: the default cycles
  if (Object.keys(inner).length !== 1) return undefined;
  const n = (inner as Record<string, unknown>)["additional_cycles"];
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > MAX_ADDITIONAL_CYCLES) return undefined;
  return { mode: keys[0], additionalCycles: n };
}
