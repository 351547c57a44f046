/**
 * Traces (trace_code): for the traced run-script cases of the Octez regression outputs, the
 * tracer is called at the same locations, in the same order, with the same gas spent between two
 * steps as Octez's trace shows (the absolute level also depends on the RPC's own costs before the
 * run, which are not the interpreter's), and the same variable annotations on the stack items
 * (Octez shows the stack type of the instruction that comes next: at the end of a branch, that of
 * the conditional's continuation; at the end of a loop body, that of the loop).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { parseScript } from "../../lib/michelson/script/script.ts";
import { execute } from "../../lib/michelson/script/execute.ts";
import { dataText, refJson, runContext, scriptOfFile } from "./script-context.ts";
import { recordedTrace } from "./conformance-support.ts";

const test = suite("script-trace");
const cases = refJson("cases.json").cases as any[];
const outputs = refJson("regtest-outputs.json").outputs as Record<string, { output: string }>;

// Recorded outputs holding two runs (a success then a failure), and runs whose cost before the
// first step includes lazy storage or contract-creation costs this layer does not charge.
const SKIP = new Set(["opcodes/packunpack.tz", "opcodes/check_signature.tz", "opcodes/sapling_empty_state.tz", "opcodes/create_contract.tz"]);

for (const c of cases) {
  if (!c.trace_stack || c.regtest_output_key === undefined || c.placeholders !== undefined || c.file === undefined || SKIP.has(c.file)) continue;
  const out = outputs[c.regtest_output_key]?.output;
  if (out === undefined) continue;
  test(`${c.id} ${c.file} on ${String(c.input).slice(0, 40)} traces the recorded steps`, () => {
    const exp = [...out.matchAll(/- location: (\d+) \(remaining gas: ([\d.]+) units remaining\)/g)].map((m) => [Number(m[1]), Math.round(Number(m[2]) * 1000)]);
    const got: number[][] = [];
    const annots: (string | undefined)[][] = [];
    const ctx = runContext({ balance: c.balance !== undefined ? BigInt(c.balance) : undefined });
    const script = parseScript(ctx, scriptOfFile(c.file));
    try {
      execute(ctx, script, { entrypoint: "default", parameter: dataText(c.input), storage: dataText(c.storage) }, (loc, gas, stack) => {
        got.push([loc, gas]);
        annots.push(stack.map((i) => (i.annot === undefined ? undefined : "@" + i.annot)));
      });
    } catch {
      // failing runs (FAILWITH, overflow) still have their trace so far
    }
    assert.equal(got.map((g) => g[0]), exp.map((e) => e[0]));
    const deltas = (l: number[][]) => l.slice(1).map((e, i) => l[i][1] - e[1]);
    assert.equal(deltas(got), deltas(exp));
    assert.equal(annots, recordedTrace(out)!.map((step) => step.stack.map((i) => i.annot)));
  });
}

test.run();
