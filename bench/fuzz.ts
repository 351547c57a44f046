/**
 * The RPC fuzzer at length (`npm run bench -- fuzz [options]`): the requests of
 * `test/rpc/fuzz.test.ts` (test/support/fuzz.ts) by the tens of thousands, on one node, with the
 * same checks (Octez statuses, 500s that are error lists, no JavaScript internals in any body,
 * nothing on stderr, no crash), the heap before and after, the slowest requests, and each class
 * of failure once with a request to replay it.
 *
 * ```sh
 * npm run bench -- fuzz                                   # 50 000 requests, a random seed, 4 at a time
 * npm run bench -- fuzz --requests 200000 --seed 42 --concurrency 1
 * npm run bench -- fuzz --only helpers/scripts            # the services whose path has this text
 * npm run bench -- fuzz --list                            # the services, nothing sent
 * npm run bench -- fuzz --trace /tmp/fuzz.log              # each request written there before it is sent
 * ```
 *
 * Exits with code 1 when a check failed.
 * @module
 */
import { closeSync, openSync, writeSync } from "node:fs";
import process from "node:process";
import { collectServices, openFuzzNode, runFuzz, settledHeapUsed, showRequest, templateText } from "../test/support/fuzz.ts";

/** Settings of the fuzz bench. */
export interface FuzzBenchOptions {
  readonly requests?: number;
  readonly seed?: number;
  readonly concurrency?: number;
  readonly only?: string;
  readonly list?: boolean;
  /** A file that gets each request (one line) before it is sent: its last line names a request that hangs. */
  readonly trace?: string;
}

/** Parses `--requests N --seed S --concurrency C --only TEXT --list --trace FILE`. */
export function parseFuzzArgs(args: readonly string[]): FuzzBenchOptions {
  const out: { requests?: number; seed?: number; concurrency?: number; only?: string; list?: boolean; trace?: string } = {};
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split("=", 2) as [string, string | undefined];
    const value = () => inline ?? args[++i] ?? "";
    const int = (name: string) => {
      const v = Number(value());
      if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${name} takes a non-negative integer`);
      return v;
    };
    if (flag === "--requests") out.requests = int("--requests");
    else if (flag === "--seed") out.seed = int("--seed");
    else if (flag === "--concurrency") out.concurrency = Math.max(1, int("--concurrency"));
    else if (flag === "--only") out.only = value();
    else if (flag === "--list") out.list = true;
    else if (flag === "--trace") out.trace = value();
    else throw new RangeError(`unknown option ${flag} (--requests N, --seed S, --concurrency C, --only TEXT, --list, --trace FILE)`);
  }
  return out;
}

/** Runs the fuzzer; the number of failed checks. */
export async function benchFuzz(options: FuzzBenchOptions = {}): Promise<number> {
  const requests = options.requests ?? 50_000;
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const f = await openFuzzNode();
  try {
    const services = await collectServices(f.node, { block_id: ["head", "genesis", "1"], chain_id: ["main"] });
    if (options.list === true) {
      for (const s of services) console.log(`${s.method.padEnd(6)} ${templateText(s.template)}${s.query.length > 0 ? `?${s.query.map((q) => q.name).join("&")}` : ""}${s.hasInput ? "  (body)" : ""}`);
      console.log(`${services.length} services`);
      return 0;
    }
    console.log(`seed ${seed}, ${requests} requests, ${options.concurrency ?? 4} at a time, over ${services.length} services${options.only === undefined ? "" : ` (only ${JSON.stringify(options.only)})`}`);
    const before = await settledHeapUsed();
    const trace = options.trace === undefined ? undefined : openSync(options.trace, "w");
    const report = await runFuzz(f, services, {
      ...(trace === undefined ? {} : { onRequest: (r, i) => void writeSync(trace, `${i} ${showRequest(r).slice(0, 4000)}\n`) }),
      requests,
      seed,
      concurrency: options.concurrency ?? 4,
      ...(options.only === undefined ? {} : { only: options.only }),
      progressEvery: 10_000,
      onProgress: (done, failures) => console.log(`  ${done} requests, ${failures} failures, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`),
    });
    if (trace !== undefined) closeSync(trace);
    const after = await settledHeapUsed();
    const statuses = [...report.statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${n}`).join(", ");
    const answered = [...report.perService.values()].filter((m) => m.has(200)).length;
    console.log(`${report.requests} requests in ${(report.ms / 1000).toFixed(1)} s (${(report.requests / (report.ms / 1000)).toFixed(0)}/s): ${statuses}`);
    console.log(`services answering 200 at least once: ${answered} of ${report.services}; distinct 500 traces: ${report.errors.size}; distinct 400 reasons: ${report.reasons.size}`);
    console.log(`heap used ${(before / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MiB after the run`);
    console.log("slowest:");
    for (const s of report.slowest.slice(0, 5)) console.log(`  ${s.ms.toFixed(0)} ms  ${showRequest(s.request).slice(0, 200)}`);
    const classes = new Map<string, { n: number; first: (typeof report.failures)[number] }>();
    for (const x of report.failures) {
      const key = `${x.request.service}: ${x.reason}`;
      const c = classes.get(key);
      if (c === undefined) classes.set(key, { n: 1, first: x });
      else c.n++;
    }
    if (classes.size === 0) console.log("no failure");
    for (const [key, { n, first }] of classes) {
      console.log(`FAIL ${n} × ${key}, e.g. status ${first.status}\n  ${showRequest(first.request)}\n  → ${JSON.stringify(first.text.slice(0, 600))}`);
    }
    return report.failures.length;
  } finally {
    await f.node.close();
  }
}

/** `npm run bench -- fuzz …`: sets the exit code. */
export async function runFuzzCli(args: readonly string[]): Promise<void> {
  let options: FuzzBenchOptions;
  try {
    options = parseFuzzArgs(args);
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exitCode = 1;
    return;
  }
  if ((await benchFuzz(options)) > 0) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await runFuzzCli(process.argv.slice(2));
