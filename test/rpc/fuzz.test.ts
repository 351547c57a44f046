/**
 * Fuzzing of every service `/describe` lists (test/support/fuzz.ts): random and mutated path
 * arguments, query strings and bodies, a few thousand requests on a node with blocks, a pending
 * transfer and an originated contract. Every answer has a status Octez's server gives, every 500
 * is a JSON list of errors, no body shows JavaScript internals; afterwards the node still answers
 * and its heap is back near where it was.
 *
 * `FUZZ_REQUESTS=<n>` (default 3000) and `FUZZ_SEED=<n>` (default: random, printed) change the
 * run; `FUZZ_ONLY=<text>` keeps the services whose path contains the text. More in
 * `npm run bench -- fuzz`.
 */
import { writeSync } from "node:fs";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { collectGarbage, collectServices, type FuzzNode, type FuzzRequest, openFuzzNode, runFuzz, settledHeapUsed, showRequest, templateText } from "../support/fuzz.ts";

const REQUESTS = Number(process.env["FUZZ_REQUESTS"] ?? 3000);
const SEED = process.env["FUZZ_SEED"] !== undefined ? Number(process.env["FUZZ_SEED"]) : Math.floor(Math.random() * 2 ** 31);
/** Heap growth allowed after the run (caches of blocks, contexts, answers and parsed URLs are bounded well below). */
const HEAP_BOUND = 96 * 1024 * 1024;

const fuzz = suite<{ f: FuzzNode }>("rpc fuzz");
fuzz.before(async (ctx) => {
  ctx.f = await openFuzzNode();
});
fuzz.after(async (ctx) => {
  await ctx.f.node.close();
});

fuzz(`every service of /describe answers bad requests as Octez (seed ${SEED})`, async ({ f }) => {
  const m = f.material;
  const services = await collectServices(f.node, { block_id: ["head", "genesis", "1"], chain_id: ["main"] });
  assert.ok(services.length > 200, `${services.length} services`);
  const before = await settledHeapUsed();
  // FUZZ_TRACE=1: each request on stderr before it is sent (the last one shows a request that hangs the node)
  const trace = process.env["FUZZ_TRACE"] === "1" ? (r: FuzzRequest, i: number) => writeSync(2, `${i} ${showRequest(r).slice(0, 3000)}\n`) : undefined;
  const report = await runFuzz(f, services, { requests: REQUESTS, seed: SEED, only: process.env["FUZZ_ONLY"], ...(trace === undefined ? {} : { onRequest: trace }) });
  const after = await settledHeapUsed();
  const statuses = [...report.statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${n}`).join(", ");
  console.log(
    `  fuzz: seed ${SEED}, ${report.requests} requests over ${report.services} services in ${(report.ms / 1000).toFixed(1)} s (${statuses}); ` +
      `heap ${(before / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MiB; material: head ${m.headLevel}, contract ${m.originated ?? "none"}`,
  );
  // one request to replay per class of failure (service and reason)
  const classes = new Map<string, { n: number; first: (typeof report.failures)[number] }>();
  for (const x of report.failures) {
    const key = `${x.request.service}: ${x.reason}`;
    const c = classes.get(key);
    if (c === undefined) classes.set(key, { n: 1, first: x });
    else c.n++;
  }
  for (const [key, { n, first: x }] of [...classes].slice(0, 40)) {
    console.log(`  FAIL ${n} × ${key}, e.g. status ${x.status}\n    ${showRequest(x.request)}\n    → ${JSON.stringify(x.text.slice(0, 600))}`);
  }
  assert.is(report.failures.length, 0, `${report.failures.length} failures (seed ${SEED}):\n${[...classes].map(([k, c]) => `  ${c.n} × ${k}`).join("\n")}`);

  const head = await f.node.fetch(new Request("http://localhost/chains/main/blocks/head/hash"));
  assert.is(head.status, 200);
  assert.match(await head.text(), /^"B[1-9A-HJ-NP-Za-km-z]{50}"\n$/);
  // the heap is compared only where a collection can be forced (Deno needs --v8-flags=--expose-gc,
  // as .ci/run and the README give it); without one it measures garbage, not what the node keeps
  if (await collectGarbage()) assert.ok(after - before < HEAP_BOUND, `heap grew by ${((after - before) / 2 ** 20).toFixed(1)} MiB`);
  else console.log("  Notice: no garbage collection can be forced in this runtime: the heap is not compared.");
  void templateText;
});

fuzz.run();
