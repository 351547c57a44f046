/**
 * Traces (trace_code): for the traced run-script cases of the Octez regression outputs, the
 * tracer is called at the same locations, in the same order, with the same gas spent between two
 * steps as Octez's trace shows (the absolute level also depends on the RPC's own costs before the
 * run, which are not the interpreter's).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { parseScript } from "../../lib/michelson/script/script.ts";
import { execute } from "../../lib/michelson/script/execute.ts";
import { dataText, refJson, runContext, scriptOfFile } from "./script-context.ts";

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
    const ctx = runContext({ balance: c.balance !== undefined ? BigInt(c.balance) : undefined });
    const script = parseScript(ctx, scriptOfFile(c.file));
    try {
      execute(ctx, script, { entrypoint: "default", parameter: dataText(c.input), storage: dataText(c.storage) }, (loc, gas) => {
        got.push([loc, gas]);
      });
    } catch {
      // failing runs (FAILWITH, overflow) still have their trace so far
    }
    assert.equal(got.map((g) => g[0]), exp.map((e) => e[0]));
    const deltas = (l: number[][]) => l.slice(1).map((e, i) => l[i][1] - e[1]);
    assert.equal(deltas(got), deltas(exp));
  });
}

test.run();
