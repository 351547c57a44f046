/**
 * The remaining gas of every traced run-script case of Octez's python tests (cases.json with
 * `trace_stack`, recorded in regtest-outputs.json) through the node's own
 * `helpers/scripts/trace_code`: at every trace step, the location and the remaining gas equal the
 * recorded ones, milligas for milligas. This covers what Hangzhou charges before the first
 * instruction (global constants expansion, type checking of the script, the typed IR's size,
 * the parameter and storage parsing, `collect_lazy_storage`) and every instruction's cost.
 *
 * Cases in {@link EXCEPTIONS} are known to differ, with the reason; they are checked to still
 * differ so that the list shrinks when they get fixed.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Json } from "../../lib/encoding/codec.ts";
import { contractText, dataOf, milligasOf, reference, regtestOutputs, sandbox, scriptOf } from "./conformance-support.ts";

interface RunCase {
  id: string;
  file?: string;
  script?: string;
  storage: string;
  input: string;
  expected_error?: string;
  balance?: string;
  gas?: number;
  trace_stack?: boolean;
  regtest_output_key?: string;
  placeholders?: { [k: string]: string };
}

/** Traced cases whose gas differs from Octez's, and why. */
const EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ["run-0282", "sapling_state values are not supported by this node"],
]);

/** Steps of a recorded trace: location and remaining gas (any indentation: emitted operations indent it). */
function recordedSteps(output: string): { location: number; gas: bigint }[] | undefined {
  const at = output.search(/\n\s*trace\n/);
  if (at < 0) return undefined;
  let body = output.slice(at + 1);
  body = body.slice(body.indexOf("\n") + 1);
  const blank = body.indexOf("\n\n");
  if (blank >= 0) body = body.slice(0, blank + 1);
  return [...body.matchAll(/^\s*- location: (\d+) \(remaining gas: ([0-9.]+) units remaining\)$/gm)].map((m) => ({
    location: Number(m[1]),
    gas: milligasOf(m[2]!),
  }));
}

const cases = reference<{ cases: RunCase[] }>("cases.json").cases.filter((c) =>
  c.trace_stack === true && c.placeholders === undefined && c.regtest_output_key !== undefined
);
const outputs = regtestOutputs();

/** Where the trace first differs from the recorded one, or `undefined` when it is the same. */
async function firstDifference(node: Awaited<ReturnType<typeof sandbox>>, c: RunCase): Promise<string | undefined> {
  const recorded = recordedSteps(outputs.get(c.regtest_output_key!) ?? "");
  if (recorded === undefined) return "no recorded trace";
  const body: { [k: string]: Json } = {
    script: scriptOf(c.file !== undefined ? contractText(c.file) : c.script!) as Json,
    storage: dataOf(c.storage) as Json,
    input: dataOf(c.input) as Json,
    amount: "50000",
    balance: c.balance ?? "4000000000000",
    chain_id: "NetXdQprcVkpaWU",
  };
  if (c.gas !== undefined) body.gas = String(c.gas);
  const r = await node.post("/helpers/scripts/trace_code", body);
  if (r.status !== 200) return `HTTP ${r.status}: ${r.text.slice(0, 200)}`;
  const trace = r.json.trace as { location: number; gas: string }[];
  if (trace.length !== recorded.length) return `${trace.length} steps, recorded ${recorded.length}`;
  for (let i = 0; i < trace.length; i++) {
    const got = trace[i]!;
    const exp = recorded[i]!;
    if (got.location !== exp.location) return `step ${i}: location ${got.location}, recorded ${exp.location}`;
    if (BigInt(got.gas) !== exp.gas) return `step ${i} (location ${got.location}): ${got.gas} milligas left, recorded ${exp.gas}`;
  }
  return undefined;
}

test("every traced run-script case leaves the recorded remaining gas after every instruction", async () => {
  const node = await sandbox();
  const wrong: string[] = [];
  const fixed: string[] = [];
  let exact = 0;
  for (const c of cases) {
    if (c.expected_error !== undefined) continue; // a failing run prints no trace
    const d = await firstDifference(node, c);
    if (d === undefined) exact++;
    if (EXCEPTIONS.has(c.id)) {
      if (d === undefined) fixed.push(c.id);
    } else if (d !== undefined) {
      wrong.push(`${c.id} ${c.file ?? "(inline)"}: ${d}`);
    }
  }
  assert.equal(wrong, [], `${wrong.length} traces differ from Octez's`);
  assert.equal(fixed, [], "listed as exceptions but now exact: remove them from EXCEPTIONS");
  assert.ok(exact >= 350, `${exact} exact traces`);
});

test.run();
