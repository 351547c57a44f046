/**
 * How the node's log records (`lib/log.ts`) are written as lines (`--log-format`):
 *
 * - `text`, for a terminal: `2026-05-03T12:34:56.789Z INFO  block baked block_level=5 hash=BL… ms=12`
 *   (the time in UTC, the level, the event as words, then `key=value`, a value with spaces or
 *   quotes in JSON quotes); a table field (the bootstrap accounts) follows as aligned lines.
 * - `json`, for a log collector: one object per line, `{"time":…,"level":…,"event":…,…fields}`.
 *
 * No I/O here: {@link lineSink} writes through the function it is given (stderr in `run.ts`).
 * @module
 */
import type { LogLevel, LogRecord, LogRow, LogSink, LogValue } from "../lib/log.ts";

/** The `--log-format` choices. */
export type LogFormat = "text" | "json";

/** The record's own keys in the JSON form; a field of the same name is written as `field_<name>`. */
const RECORD_KEYS = new Set(["time", "level", "event"]);

/** A record as one JSON line (with its newline). */
export function formatJson(record: LogRecord): string {
  const out: Record<string, unknown> = { time: new Date(record.time).toISOString(), level: record.level, event: record.event };
  for (const [key, value] of Object.entries(record.fields)) {
    if (value === undefined) continue;
    out[RECORD_KEYS.has(key) ? `field_${key}` : key] = value;
  }
  return `${JSON.stringify(out)}\n`;
}

/** A record as text: its line, then the lines of its table fields (each line with its newline). */
export function formatText(record: LogRecord): string {
  let line = `${new Date(record.time).toISOString()} ${record.level.toUpperCase().padEnd(5)} ${record.event.replaceAll("_", " ")}`;
  let tables = "";
  for (const [key, value] of Object.entries(record.fields)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) tables += formatTable(value as readonly LogRow[]);
    else line += ` ${key}=${textValue(value as Exclude<LogValue, readonly LogRow[]>)}`;
  }
  return `${line}\n${tables}`;
}

function textValue(value: string | number | boolean): string {
  if (typeof value !== "string") return String(value);
  return value === "" || /[\s"=\\]/.test(value) || /[^\x20-\x7e]/.test(value) ? JSON.stringify(value) : value;
}

/** Rows as aligned columns under a header, indented by two spaces. */
function formatTable(rows: readonly LogRow[]): string {
  if (rows.length === 0) return "";
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? "").length)));
  const line = (cells: readonly string[]) => `  ${cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")}\n`;
  return line(columns) + rows.map((r) => line(columns.map((c) => r[c] ?? ""))).join("");
}

/** A sink writing each record from `level` on as `format` lines through `write`. */
export function lineSink(level: LogLevel, format: LogFormat, write: (text: string) => void): LogSink {
  const formatter = format === "json" ? formatJson : formatText;
  return { level, write: (record) => write(formatter(record)) };
}
