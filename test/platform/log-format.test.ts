/**
 * The logger (lib/log.ts: levels, a sink's threshold, a failing sink) and the two line formats
 * of platform/log-format.ts, on records made here.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createLogger, type LogRecord, SILENT_LOGGER } from "../../lib/log.ts";
import { formatJson, formatText, lineSink } from "../../platform/log-format.ts";

const T = Date.UTC(2026, 4, 3, 12, 34, 56, 789);

test("a logger writes the records at and above its sink's level, stamped by its clock, and builds nothing below", () => {
  const records: LogRecord[] = [];
  const log = createLogger({ level: "warn", write: (r) => records.push(r) }, () => T);
  log.debug("a");
  log.info("b", { x: 1 });
  log.warn("c", { x: 2 });
  log.error("d");
  assert.equal(records, [
    { time: T, level: "warn", event: "c", fields: { x: 2 } },
    { time: T, level: "error", event: "d", fields: {} },
  ]);
  assert.equal([log.enabled("debug"), log.enabled("info"), log.enabled("warn"), log.enabled("error")], [false, false, true, true]);
  assert.is(createLogger(undefined), SILENT_LOGGER);
  assert.is(SILENT_LOGGER.enabled("error"), false);
});

test("a sink that throws loses its record, not the caller's work; a malformed sink is refused", () => {
  const log = createLogger({ level: "debug", write: () => { throw new Error("disk full"); } });
  log.info("x");
  assert.throws(() => createLogger({ level: "loud", write: () => {} } as never), /expected a sink/);
  assert.throws(() => createLogger({ level: "info" } as never), /expected a sink/);
});

test("text: UTC time, padded level, the event in words, key=value with quotes where needed, undefined left out", () => {
  const line = formatText({
    time: T,
    level: "info",
    event: "operation_refused",
    fields: { hash: "ooABC", error: "proto.011-PtHangz2.operation.invalid_signature", msg: 'Unknown branch (BLx), "quoted"', n: 3, ok: false, none: undefined, empty: "" },
  });
  assert.is(line, '2026-05-03T12:34:56.789Z INFO  operation refused hash=ooABC error=proto.011-PtHangz2.operation.invalid_signature msg="Unknown branch (BLx), \\"quoted\\"" n=3 ok=false empty=""\n');
  assert.is(formatText({ time: T, level: "error", event: "x", fields: { a: "b=c", b: "é" } }), '2026-05-03T12:34:56.789Z ERROR x a="b=c" b="é"\n');
});

test("text: a table field follows its line as aligned columns", () => {
  const text = formatText({ time: T, level: "info", event: "bootstrap_accounts", fields: { accounts: [{ name: "b1", address: "tz1abc" }, { name: "bootstrap2", address: "tz1d" }] } });
  assert.is(text, "2026-05-03T12:34:56.789Z INFO  bootstrap accounts\n  name        address\n  b1          tz1abc\n  bootstrap2  tz1d\n");
});

test("json: one object, time level event first, then the fields; a field named like a record key is renamed", () => {
  const line = formatJson({ time: T, level: "debug", event: "rpc_request", fields: { method: "GET", level: 5, none: undefined, rows: [{ a: "1" }] } });
  assert.ok(line.endsWith("}\n") && !line.slice(0, -1).includes("\n"));
  assert.equal(JSON.parse(line), { time: "2026-05-03T12:34:56.789Z", level: "debug", event: "rpc_request", method: "GET", field_level: 5, rows: [{ a: "1" }] });
  assert.equal(Object.keys(JSON.parse(line)), ["time", "level", "event", "method", "field_level", "rows"]);
});

test("lineSink() writes each record in its format through the function given", () => {
  const out: string[] = [];
  const log = createLogger(lineSink("info", "json", (t) => out.push(t)), () => T);
  log.debug("hidden");
  log.info("node_stopping", { signal: "SIGINT" });
  assert.equal(out, ['{"time":"2026-05-03T12:34:56.789Z","level":"info","event":"node_stopping","signal":"SIGINT"}\n']);
});

test.run();
