import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { shellOperation } from "../../lib/shell/operations.ts";
import { encodeBinary } from "../../lib/encoding/codec.ts";
import { operation, type OperationContents } from "../../lib/encoding/hangzhou/operation.ts";
import { TezosError } from "../../lib/errors/mod.ts";
import { failure } from "../../lib/errors/core.ts";
import { classOfTrace, JsonTraceItem, parseError, printTrace } from "../../lib/shell/mempool-errors.ts";
import {
  DEFAULT_FILTER_CONFIG,
  enoughFees,
  filterConfigFromJson,
  filterConfigToJson,
  hangzhouMempoolPlugin,
  preFilter,
} from "../../lib/protocols/hangzhou/plugin.ts";

const capture = JSON.parse(
  readFileSync(new URL("../vectors/octez/examples/hangzhou-sandbox-mempool.json", import.meta.url), "utf8"),
) as { exchanges: { path: string; response?: { refused?: [string, { contents: Record<string, string>[] }][] } }[] };

const BRANCH = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";
const SIG = "sigMzJ4GVAvXEd2RjsKGfG2H9QvqTSKCZsuB2KiHbZRGFz72XgF6KaKADznh674fQgBatxw3xdHqTtMHUZAGRprxy64wg1aq";

/** The capture's transfer (fee, counter and limits as Octez showed them), from bootstrap1 to bootstrap2. */
function transfer(fee: bigint, gas = 1040n): OperationContents {
  return {
    kind: "transaction",
    source: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx",
    fee,
    counter: 1n,
    gas_limit: gas,
    storage_limit: 257n,
    amount: 1000000n,
    destination: "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN",
  } as OperationContents;
}

function parsed(contents: OperationContents[]) {
  const bytes = encodeBinary(operation, { branch: BRANCH, contents, signature: SIG });
  const p = hangzhouMempoolPlugin.parse(bytes, shellOperation(bytes));
  return { data: p.data, branch: BRANCH, size: p.size };
}

const ctx = { predecessor: BRANCH, level: 10 };

test("the capture's zero-fee transfer is refused as fees_too_low and its 1000-mutez twin passes, with the default filter", () => {
  const refused = capture.exchanges.find((e) => e.path === "/chains/main/mempool/pending_operations")!.response!.refused![0]![1];
  assert.is(refused.contents[0]!["fee"], "0");
  const zero = preFilter(DEFAULT_FILTER_CONFIG, parsed([transfer(0n)]), ctx);
  assert.equal(zero.passed ? zero : { class: zero.class, trace: zero.trace.map((t) => t.toJson()) }, {
    class: "refused",
    trace: [{ kind: "permanent", id: "proto.011-PtHangz2.prefilter.fees_too_low" }],
  });
  assert.equal(preFilter(DEFAULT_FILTER_CONFIG, parsed([transfer(1000n)]), ctx), { passed: true, priority: "low" });
});

test("the fee threshold is minimal_fees + gas price × gas limit + byte price × size, to the mutez", () => {
  const size = parsed([transfer(0n)]).size;
  // branch 32, tag 1, source 21, fee 0 (1), counter 1 (1), gas 1040 (2), storage 257 (2),
  // amount 1000000 (3), destination 22, no parameters (1), signature 64
  assert.is(size, 32 + 1 + 21 + 1 + 1 + 2 + 2 + 3 + 22 + 1 + 64);
  // 100 mutez + 100 nanotez × 1040 gas + 1000 nanotez × size bytes = 100 + 104 + size mutez.
  const threshold = 100n + 104n + BigInt(size);
  const op = (fee: bigint) => ({ ...parsed([transfer(fee)]), size });
  assert.is(preFilter(DEFAULT_FILTER_CONFIG, op(threshold), ctx).passed, true);
  assert.is(preFilter(DEFAULT_FILTER_CONFIG, op(threshold - 1n), ctx).passed, false);
  // The capture's POSTed configuration: 50 mutez, 201/5 nanotez per gas unit, 56/3 per byte.
  const config = filterConfigFromJson({ minimal_fees: "50", minimal_nanotez_per_gas_unit: ["201", "5"], minimal_nanotez_per_byte: ["56", "3"], allow_script_failure: false });
  const gas = 1000n;
  // 50000 + 201·1000/5 + 56·size/3 nanotez
  const nanotez = (50000n * 15n + 201n * gas * 3n + 56n * BigInt(size) * 5n) / 15n;
  const need = (nanotez + 999n) / 1000n;
  assert.is(enoughFees(config, [transfer(need, gas)], size), true);
  assert.is(enoughFees(config, [transfer(need - 1n, gas)], size), false);
});

test("the filter configuration prints and reads as Octez's: defaults, include_default, rationals kept unreduced", () => {
  assert.equal(filterConfigToJson(DEFAULT_FILTER_CONFIG, true), {
    minimal_fees: "100",
    minimal_nanotez_per_gas_unit: ["100", "1"],
    minimal_nanotez_per_byte: ["1000", "1"],
    allow_script_failure: true,
  });
  assert.equal(filterConfigToJson(DEFAULT_FILTER_CONFIG, false), {});
  const c = filterConfigFromJson({ minimal_nanotez_per_gas_unit: ["200", "2"] });
  assert.equal(filterConfigToJson(c, false), { minimal_nanotez_per_gas_unit: ["200", "2"] });
  assert.throws(() => filterConfigFromJson({ minimal_fees: "1", extra: 1 }), (e: unknown) => e instanceof TypeError);
  assert.throws(() => filterConfigFromJson({ minimal_nanotez_per_byte: ["1", "0"] }), (e: unknown) => e instanceof RangeError);
  assert.throws(() => filterConfigFromJson(null), (e: unknown) => e instanceof TypeError);
});

test("endorsements: of the head pass first, of older blocks are branch delayed, more than two levels back outdated", () => {
  const endorsement = (branch: string, level: number) =>
    ({ data: { contents: [{ kind: "endorsement_with_slot", endorsement: { branch, operations: { kind: "endorsement", level }, signature: SIG }, slot: 0 }] }, branch, size: 100 }) as never;
  assert.equal(preFilter(DEFAULT_FILTER_CONFIG, endorsement(BRANCH, 9), ctx), { passed: true, priority: "high" });
  const other = "BKiHLREqU3JkXfzEDYAkmmfX48gBDtYhMrpA98s7Aq4SzbUAB6M";
  const delayed = preFilter(DEFAULT_FILTER_CONFIG, endorsement(other, 8), ctx);
  assert.is(delayed.passed ? "passed" : delayed.class, "branch_delayed");
  const outdated = preFilter(DEFAULT_FILTER_CONFIG, endorsement(other, 7), ctx);
  assert.is(outdated.passed ? "passed" : outdated.class, "outdated");
  const noop = preFilter(DEFAULT_FILTER_CONFIG, { data: { contents: [{ kind: "failing_noop", arbitrary: "x" }] }, branch: BRANCH, size: 50 } as never, ctx);
  assert.equal(noop.passed ? noop : noop.trace.map((t) => t.toJson()), [{ kind: "temporary", id: "proto.011-PtHangz2.prefilter.wrong_operation" }]);
});

test("a trace is refused if any error is permanent, else branch refused if any is a branch error, else branch delayed", () => {
  const item = (kind: string) => new JsonTraceItem({ kind, id: `x.${kind}` });
  assert.is(classOfTrace([item("temporary"), item("permanent"), item("branch")]), "refused");
  assert.is(classOfTrace([item("temporary"), item("branch")]), "branch_refused");
  assert.is(classOfTrace([item("temporary")]), "branch_delayed");
  assert.is(classOfTrace([]), "branch_delayed");
});

test("traces print as Octez's pp_print_trace: the error, or the first one then the whole trace oldest first", () => {
  assert.is(printTrace([parseError.create(undefined)]), "Error:\n  Operation parsing error in prevalidation.\n");
  const two = new TezosError([failure.create({ msg: "outer" }), failure.create({ msg: "inner" })]);
  assert.is(printTrace(two.trace), "Error:\n  outer,\n  trace:\n  inner\n  outer\n");
  assert.is(printTrace([new JsonTraceItem({ kind: "branch", id: "proto.x", pkh: "tz1" })]), 'Error:\n  {"id":"proto.x","description":"","data":{"pkh":"tz1"}}\n');
});

test.run();
