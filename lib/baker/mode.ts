/**
 * How the sandbox baker produces blocks: `auto` (a block as soon as operations wait, and the
 * first blocks a fresh sandbox needs), `interval` (one block every n seconds) or `manual` (only
 * on request), with the text forms the command line uses.
 *
 * @example
 * ```ts
 * parseBakerMode("interval:5"); // { mode: "interval", seconds: 5 }
 * formatBakerMode({ mode: "manual" }); // "manual"
 * ```
 * @module
 */

/** A baker mode; the same shape as `createNode`'s `bake` option. */
export type BakerMode = { mode: "auto" } | { mode: "manual" } | { mode: "interval"; seconds: number };

/** The longest interval accepted, in seconds (a day: longer is surely a typo). */
export const MAX_INTERVAL_SECONDS = 86_400;

/**
 * Reads `auto`, `manual` or `interval:<seconds>` (seconds: a positive number, fractions allowed,
 * at most a day). TypeError for a non-string, RangeError for anything else.
 */
export function parseBakerMode(text: string): BakerMode {
  if (typeof text !== "string") throw new TypeError(`baker mode must be a string, got ${typeof text}`);
  if (text === "auto" || text === "manual") return { mode: text };
  const m = /^interval:(\d+(?:\.\d+)?)$/.exec(text);
  if (m !== null) return checkBakerMode({ mode: "interval", seconds: Number(m[1]) });
  throw new RangeError(`Unknown baker mode ${JSON.stringify(text)}: expected "auto", "manual" or "interval:<seconds>"`);
}

/** Checks a mode object (or reads a string with {@link parseBakerMode}); returns it. */
export function checkBakerMode(mode: BakerMode | string): BakerMode {
  if (typeof mode === "string") return parseBakerMode(mode);
  if (mode === null || typeof mode !== "object") throw new TypeError("baker mode must be an object or a string");
  switch (mode.mode) {
    case "auto":
    case "manual":
      return { mode: mode.mode };
    case "interval": {
      const s = mode.seconds;
      if (typeof s !== "number" || Number.isNaN(s)) throw new TypeError(`interval seconds must be a number, got ${String(s)}`);
      if (!(s > 0 && s <= MAX_INTERVAL_SECONDS)) throw new RangeError(`interval seconds must be in (0, ${MAX_INTERVAL_SECONDS}], got ${s}`);
      return { mode: "interval", seconds: s };
    }
    default:
      throw new RangeError(`Unknown baker mode ${JSON.stringify((mode as { mode: unknown }).mode)}`);
  }
}

/** The text form of a mode (inverse of {@link parseBakerMode}). */
export function formatBakerMode(mode: BakerMode): string {
  return mode.mode === "interval" ? `interval:${mode.seconds}` : mode.mode;
}
