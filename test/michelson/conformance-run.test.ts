/**
 * Octez's run-script conformance cases (`test/vectors/michelson/cases.json`, from the python
 * tests of v12.4 for protocol 011) through the node's own `helpers/scripts/run_code` and
 * `trace_code` at the sandbox's level 1, with the client's defaults (amount 0.05 tez, balance
 * 4 000 000 tez unless the case says, chain NetXdQprcVkpaWU). Each case checks the new storage
 * (structurally, against the client's printed text), the `big_map diff` lines, the expected
 * error, and for traced cases the stack after every instruction against the recorded regression
 * output (locations, values, annotations and the remaining gas, to the milligas).
 *
 * Cases whose `placeholders` name a contract on chain (a KT1 originated from a reference contract
 * with a given storage) run on the head of an in-process sandbox node where bootstrap1 originated
 * those contracts (signed operations injected through the RPCs, then `POST /sandbox/bake`), with
 * the originated addresses put in place of the placeholders.
 *
 * Counts are printed per source file. Every case not named in {@link REFERENCE_WRONG} (wrong
 * reference value) or {@link PENDING} (work not done yet, with its owner) must pass;
 * `MICHELSON_CONFORMANCE=lenient` checks only that {@link PASS_FLOOR} cases pass.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Json } from "../../lib/encoding/codec.ts";
import type { Micheline } from "../../lib/encoding/micheline.ts";
import { printMicheline } from "../../lib/michelson/text/mod.ts";
import {
  type BlockRpc,
  chainWithContracts,
  clientValue,
  contractText,
  dataOf,
  errorMatches,
  milligasOf,
  recordedTrace,
  reference,
  regtestOutputs,
  report,
  sameMicheline,
  sandbox,
  scriptOf,
  substitute,
} from "./conformance-support.ts";

interface RunCase {
  id: string;
  source_file: string;
  file?: string;
  script?: string;
  storage: string;
  input: string;
  expected_storage?: string;
  expected_big_map_diff?: string[];
  expected_error?: string;
  balance?: string;
  gas?: number;
  trace_stack?: boolean;
  regtest_output_key?: string;
  placeholders?: { [k: string]: string };
}

/** Cases whose reference value is wrong, with the reason (none found so far). */
const REFERENCE_WRONG: ReadonlyMap<string, string> = new Map<string, string>([]);

/** Why each case of {@link PENDING} does not pass yet, by the owner of the missing work. */
const PENDING_REASONS = {
  sapling: "ENGINE: sapling_state values (SAPLING_EMPTY_STATE) are not implemented",
} as const;

/** Cases that fail for work not done yet (not failures of the runner or of the RPCs), with why. */
const PENDING: ReadonlyMap<string, keyof typeof PENDING_REASONS> = new Map<string, keyof typeof PENDING_REASONS>([
  ["run-0282", "sapling"], // opcodes/sapling_empty_state.tz
]);

/** Fewer passing cases than this fails the test even with `MICHELSON_CONFORMANCE=lenient`. */
const PASS_FLOOR = 969;

/** Strict unless `MICHELSON_CONFORMANCE=lenient`: then only the floor is checked. */
const STRICT = (globalThis as { process?: { env?: { [k: string]: string | undefined } } }).process?.env?.MICHELSON_CONFORMANCE !== "lenient";

const cases = reference<{ cases: RunCase[] }>("cases.json").cases;
const outputs = regtestOutputs();

/** The client's `big_map diff` line of a legacy diff item. */
function diffLine(d: { action: string; big_map?: string; key?: Micheline; value?: Micheline; key_type?: Micheline; value_type?: Micheline; source_big_map?: string; destination_big_map?: string }): string {
  const map = (id: string) => (BigInt(id) < 0n ? `temp(${-BigInt(id)})` : `map(${id})`);
  const p = (m: Micheline) => printMicheline(m, { wrapped: true });
  switch (d.action) {
    case "alloc":
      return `New ${map(d.big_map!)} of type (big_map ${p(d.key_type!)} ${p(d.value_type!)})`;
    case "update":
      return d.value === undefined ? `Unset ${map(d.big_map!)}[${p(d.key!)}]` : `Set ${map(d.big_map!)}[${p(d.key!)}] to ${p(d.value)}`;
    case "remove":
      return `Clear ${map(d.big_map!)}`;
    default:
      return `Copy ${map(d.source_big_map!)} to ${map(d.destination_big_map!)}`;
  }
}

const ws = (s: string) => s.replace(/\s+/g, " ").trim();

/** Why a case fails (`undefined` when it passes), and whether its trace gas matched. */
async function runCase(node: BlockRpc, c: RunCase): Promise<{ failure?: string; gas?: boolean }> {
  let body: { [k: string]: Json };
  try {
    body = {
      script: scriptOf(c.file !== undefined ? contractText(c.file) : c.script!) as Json,
      storage: dataOf(c.storage) as Json,
      input: dataOf(c.input) as Json,
      amount: "50000",
      balance: c.balance ?? "4000000000000",
      chain_id: "NetXdQprcVkpaWU",
    };
    if (c.gas !== undefined) body.gas = String(c.gas);
  } catch (e) {
    return { failure: `client text does not parse: ${(e as Error).message}` };
  }
  const traced = c.trace_stack === true;
  const r = await node.post(`/helpers/scripts/${traced ? "trace_code" : "run_code"}`, body);
  if (c.expected_error !== undefined) {
    if (r.status === 200) return { failure: `succeeded, expected error /${c.expected_error}/` };
    return errorMatches(c.expected_error, r.json) ? {} : { failure: `error ${r.text.slice(0, 300)} does not give /${c.expected_error}/` };
  }
  if (r.status !== 200) return { failure: `HTTP ${r.status}: ${r.text.slice(0, 400)}` };
  if (c.expected_storage !== undefined && !sameMicheline(r.json.storage, clientValue(c.expected_storage))) {
    return { failure: `storage ${printMicheline(r.json.storage, { wrapped: true })}, expected ${c.expected_storage}` };
  }
  if (c.expected_big_map_diff !== undefined) {
    const got = ((r.json.big_map_diff ?? []) as Parameters<typeof diffLine>[0][]).map(diffLine);
    if (JSON.stringify(got.map(ws)) !== JSON.stringify(c.expected_big_map_diff.map(ws))) {
      return { failure: `big_map diff ${JSON.stringify(got)}, expected ${JSON.stringify(c.expected_big_map_diff)}` };
    }
  }
  if (traced && c.regtest_output_key !== undefined) {
    const recorded = recordedTrace(outputs.get(c.regtest_output_key) ?? "");
    if (recorded !== undefined) {
      const trace = r.json.trace as { location: number; gas: string; stack: { item: Micheline; annot?: string }[] }[];
      if (trace.length !== recorded.length) return { failure: `trace has ${trace.length} steps, recorded ${recorded.length}` };
      let gasOk = true;
      let gasFailure: string | undefined;
      for (let i = 0; i < trace.length; i++) {
        const a = trace[i]!;
        const b = recorded[i]!;
        if (a.location !== b.location) return { failure: `trace step ${i}: location ${a.location}, recorded ${b.location}` };
        if (a.stack.length !== b.stack.length) return { failure: `trace step ${i} (location ${a.location}): ${a.stack.length} items, recorded ${b.stack.length}` };
        for (let k = 0; k < a.stack.length; k++) {
          if (!sameMicheline(a.stack[k]!.item, clientValue(b.stack[k]!.value))) {
            return { failure: `trace step ${i} (location ${a.location}) item ${k}: ${printMicheline(a.stack[k]!.item, { wrapped: true })}, recorded ${b.stack[k]!.value}` };
          }
          if ((a.stack[k]!.annot ?? undefined) !== b.stack[k]!.annot) {
            return { failure: `trace step ${i} (location ${a.location}) item ${k}: annotation ${a.stack[k]!.annot}, recorded ${b.stack[k]!.annot}` };
          }
        }
        if (BigInt(a.gas) !== milligasOf(b.gas) && gasOk) {
          gasOk = false;
          gasFailure = `trace step ${i} (location ${a.location}): ${a.gas} milligas left, recorded ${b.gas} units`;
        }
      }
      return gasFailure === undefined ? { gas: gasOk } : { gas: gasOk, failure: gasFailure };
    }
  }
  return {};
}

/** The case with its placeholders replaced by the addresses of the contracts originated for them. */
function placed(c: RunCase, addresses: ReadonlyMap<string, string>): RunCase {
  if (c.placeholders === undefined) return c;
  const sub = (t: string) => substitute(t, c.placeholders, addresses);
  return {
    ...c,
    ...(c.script !== undefined ? { script: sub(c.script) } : {}),
    storage: sub(c.storage),
    input: sub(c.input),
    ...(c.expected_storage !== undefined ? { expected_storage: sub(c.expected_storage) } : {}),
  };
}

test("every run-script case of Octez's python tests gives the recorded storage, big map diff, error and trace", async () => {
  const node = await sandbox();
  // cases naming a contract on chain run on the head of a node where those contracts were originated
  const chain = await chainWithContracts(cases.flatMap((c) => Object.values(c.placeholders ?? {})));
  const counts = new Map<string, { pass: number; total: number }>();
  const failures: string[] = [];
  const pendingPassing: string[] = [];
  let pending = 0;
  let onChain = 0;
  let traced = 0;
  let gasMatched = 0;
  try {
    for (const c of cases) {
      const file = c.source_file.split("/").pop()!;
      const k = counts.get(file) ?? { pass: 0, total: 0 };
      counts.set(file, k);
      k.total++;
      if (c.placeholders !== undefined) onChain++;
      let r: { failure?: string; gas?: boolean };
      try {
        r = c.placeholders === undefined ? await runCase(node, c) : await runCase(chain, placed(c, chain.addresses));
      } catch (e) {
        r = { failure: `threw ${(e as Error).stack?.split("\n").slice(0, 3).join(" ") ?? e}` };
      }
      if (r.gas !== undefined) {
        traced++;
        if (r.gas) gasMatched++;
      }
      if (r.failure === undefined) {
        k.pass++;
        if (PENDING.has(c.id)) pendingPassing.push(c.id);
      } else if (PENDING.has(c.id)) pending++;
      else if (!REFERENCE_WRONG.has(c.id)) failures.push(`${c.id} ${c.file ?? "(inline)"}: ${r.failure}`.slice(0, 240));
    }
  } finally {
    await chain.close();
  }
  const pass = [...counts.values()].reduce((a, c) => a + c.pass, 0);
  report(
    "run-script conformance",
    counts,
    `  run on a chain with the originated contracts they name: ${onChain}\n  traces compared: ${traced}, remaining gas equal at every step: ${gasMatched}` +
      `\n  pending (${pending}): ${Object.entries(PENDING_REASONS).map(([k, why]) => `${[...PENDING.values()].filter((v) => v === k).length} ${why}`).join("; ")}` +
      (pendingPassing.length > 0 ? `\n  pending cases that pass now (take them out of PENDING): ${pendingPassing.join(", ")}` : "") +
      (failures.length > 0 ? `\n  first failures:\n    ${failures.slice(0, 60).join("\n    ")}` : ""),
  );
  assert.ok(pass >= PASS_FLOOR, `${pass} cases pass, fewer than the floor ${PASS_FLOOR}`);
  if (STRICT) assert.equal(failures, [], `${failures.length} cases fail`);
});

test.run();
