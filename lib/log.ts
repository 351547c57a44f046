/**
 * The node's log: structured events (a name and fields) at four levels, handed to a sink the
 * embedder gives. No runtime API here: the platform's sink writes lines on stderr
 * (`platform/log-format.ts`), a test's keeps the records, and without a sink nothing is built.
 *
 * @example
 * ```ts
 * const records: LogRecord[] = [];
 * const log = createLogger({ level: "info", write: (r) => records.push(r) });
 * log.info("block_baked", { block_level: 5, hash: "BL…", operations: 1, ms: 12 });
 * log.debug("rpc_request", { method: "GET" }); // below the sink's level: not even built
 * ```
 * @module
 */

/** A record's severity, most severe first. */
export type LogLevel = "error" | "warn" | "info" | "debug";

/** The levels, most severe first. */
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze(["error", "warn", "info", "debug"]);

/** A table row (the bootstrap accounts): column name to cell. */
export type LogRow = Readonly<Record<string, string>>;

/** A field's value: a scalar, or rows of a small table. */
export type LogValue = string | number | boolean | readonly LogRow[];

/**
 * An event's fields. `time`, `level` and `event` are the record's own keys in the JSON form and
 * are not used as field names (a block's level is `block_level`).
 */
export type LogFields = Readonly<Record<string, LogValue | undefined>>;

/** One event. */
export interface LogRecord {
  /** Milliseconds since the epoch. */
  readonly time: number;
  readonly level: LogLevel;
  /** What happened, in snake case: `block_baked`, `operation_refused`, `peer_connected`… */
  readonly event: string;
  /** The event's fields, in the order given; undefined ones are left out. */
  readonly fields: LogFields;
}

/** Where records go, and from which level on. */
export interface LogSink {
  /** The least severe level written: records below it are dropped before they are built. */
  readonly level: LogLevel;
  /** Writes one record; it must not throw (a sink that fails drops the record). */
  write(record: LogRecord): void;
}

/** What the node's parts log through. */
export interface Logger {
  /** Whether records at `level` are written (to skip building costly fields). */
  enabled(level: LogLevel): boolean;
  error(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  debug(event: string, fields?: LogFields): void;
}

const NO_FIELDS: LogFields = Object.freeze({});

/** Whether `level` is at least as severe as `threshold`. */
export function levelPasses(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(threshold);
}

/** Whether `text` names a level. */
export function isLogLevel(text: unknown): text is LogLevel {
  return typeof text === "string" && (LOG_LEVELS as readonly string[]).includes(text);
}

/**
 * A logger writing to `sink` (none: a logger that writes nothing). `now` stamps the records
 * (`Date.now` by default). A sink that throws loses that record only.
 */
export function createLogger(sink: LogSink | undefined, now: () => number = Date.now): Logger {
  if (sink === undefined) return SILENT_LOGGER;
  if (typeof sink !== "object" || sink === null || typeof sink.write !== "function" || !isLogLevel(sink.level)) {
    throw new TypeError("log: expected a sink { level: 'error' | 'warn' | 'info' | 'debug', write(record) }");
  }
  const rank = LOG_LEVELS.indexOf(sink.level);
  const emit = (level: LogLevel, event: string, fields: LogFields | undefined) => {
    if (LOG_LEVELS.indexOf(level) > rank) return;
    try {
      sink.write({ time: now(), level, event, fields: fields ?? NO_FIELDS });
    } catch {
      // a log line is never worth a failure of what it reports
    }
  };
  return {
    enabled: (level) => LOG_LEVELS.indexOf(level) <= rank,
    error: (event, fields) => emit("error", event, fields),
    warn: (event, fields) => emit("warn", event, fields),
    info: (event, fields) => emit("info", event, fields),
    debug: (event, fields) => emit("debug", event, fields),
  };
}

/** A logger that writes nothing: what an embedded node without a `log` sink uses. */
export const SILENT_LOGGER: Logger = Object.freeze({
  enabled: () => false,
  error: () => {},
  warn: () => {},
  info: () => {},
  debug: () => {},
});
