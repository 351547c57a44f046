/**
 * What the conformance runners share: the reference data of `shared/reference/michelson/`
 * (cases, regression outputs, contracts), a Hangzhou sandbox answering the node's own RPC handler
 * at level 1 (Octez's python tests run their scripts right after activation), Micheline read from
 * octez-client text, structural comparison of Micheline, the reader of the client's trace text,
 * and the table from protocol error ids to the client messages the tests search for.
 */
import { readFileSync } from "node:fs";
import type { Json } from "../../lib/encoding/codec.ts";
import type { Micheline } from "../../lib/encoding/micheline.ts";
import { parseAndExpand, parseAndExpandExpression, parseExpressionWithIssues, parseMichelineText } from "../../lib/michelson/text/mod.ts";
import { call, hangzhouFixture } from "../rpc/hangzhou-fixture.ts";

const ROOT = new URL("../../../shared/reference/michelson/", import.meta.url);

/** A JSON file of the Michelson reference folder. */
export function reference<T = Json>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, ROOT), "utf8")) as T;
}

/** The text of a reference contract (`contracts/<path>`). */
export function contractText(path: string): string {
  return readFileSync(new URL(`contracts/${path}`, ROOT), "utf8");
}

/** A script in client text, parsed and with its macros expanded, as octez-client sends it. */
export function scriptOf(text: string): Micheline {
  return parseAndExpand(text);
}

/** Data in client text (macros expanded). */
export function dataOf(text: string): Micheline {
  return parseAndExpandExpression(text);
}

/** The recorded regression outputs, by pytest node id. */
export function regtestOutputs(): Map<string, string> {
  const d = reference<{ outputs: { [k: string]: { output: string } } }>("regtest-outputs.json");
  return new Map(Object.entries(d.outputs).map(([k, v]) => [k, v.output]));
}

/** A sandbox node and a POST helper on block 1 (activation) of its main chain. */
export async function sandbox(): Promise<{ post(path: string, body: unknown): Promise<{ status: number; json: any; text: string }>; get(path: string): Promise<{ status: number; json: any; text: string }> }> {
  const fx = await hangzhouFixture();
  const B = "/chains/main/blocks/1";
  return {
    post: (path, body) => call(fx, B + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    get: (path) => call(fx, B + path),
  };
}

function normalizeNode(n: Micheline): Json {
  if (Array.isArray(n)) return (n as readonly Micheline[]).map(normalizeNode);
  const o = n as { int?: string; string?: string; bytes?: string; prim?: string; args?: readonly Micheline[]; annots?: readonly string[] };
  if (o.int !== undefined) return { int: BigInt(o.int).toString() };
  if (o.string !== undefined) return { string: o.string };
  if (o.bytes !== undefined) return { bytes: o.bytes.toLowerCase() };
  const out: { [k: string]: Json } = { prim: o.prim! };
  if (o.args !== undefined && o.args.length > 0) out.args = o.args.map(normalizeNode);
  if (o.annots !== undefined && o.annots.length > 0) out.annots = [...o.annots];
  return out;
}

/** Whether two expressions are the same Micheline (absent and empty `args`/`annots` alike). */
export function sameMicheline(a: Micheline, b: Micheline): boolean {
  return JSON.stringify(normalizeNode(a)) === JSON.stringify(normalizeNode(b));
}

/** An expression printed by the client (a storage, a stack item), read back; multi-line values included. */
export function clientValue(text: string): Micheline {
  try {
    return parseMichelineText(text);
  } catch {
    // pretty-printed values keep the indentation of their box: read them despite alignment issues
    const r = parseExpressionWithIssues(text);
    return r.result as Micheline;
  }
}

/** One step of a recorded trace: location, remaining gas as printed, stack items (value text, annotation). */
export interface RecordedStep {
  location: number;
  gas: string;
  stack: { value: string; annot?: string }[];
}

/** The `trace` section of a recorded client output, or `undefined` when it has none. */
export function recordedTrace(output: string): RecordedStep[] | undefined {
  const at = output.indexOf("\ntrace\n");
  if (at < 0) return undefined;
  // several runs may share one recorded output: the trace ends at the first blank line
  let body = output.slice(at + "\ntrace\n".length);
  const blank = body.indexOf("\n\n");
  if (blank >= 0) body = body.slice(0, blank + 1);
  const header = /^  - location: (\d+) \(remaining gas: ([0-9.]+) units remaining\)$/gm;
  const heads = [...body.matchAll(header)];
  return heads.map((h, i) => {
    const start = h.index! + h[0].length;
    const end = i + 1 < heads.length ? heads[i + 1]!.index! : body.length;
    let block = body.slice(start, end).trim();
    if (block.startsWith("[")) block = block.slice(1);
    if (block.endsWith("]")) block = block.slice(0, -1);
    const pieces = block.split("\t");
    const stack: { value: string; annot?: string }[] = [];
    let cur = pieces[0]!;
    for (let k = 1; k < pieces.length; k++) {
      const m = /^(@\S*)?([\s\S]*)$/.exec(pieces[k]!)!;
      stack.push(m[1] === undefined ? { value: cur.trim() } : { value: cur.trim(), annot: m[1] });
      cur = m[2]!;
    }
    return { location: Number(h[1]), gas: h[2]!, stack };
  });
}

/** The milligas of a gas amount printed by the client (`1039994.145` → 1039994145). */
export function milligasOf(printed: string): bigint {
  const [units, frac = ""] = printed.split(".");
  return BigInt(units!) * 1000n + BigInt((frac + "000").slice(0, 3));
}

/**
 * The client messages the python tests search for (`expected_error`), and the protocol error ids
 * whose presence in the RPC's error trace makes octez-client print them.
 */
export const CLIENT_MESSAGES: readonly { pattern: RegExp; ids: readonly string[] }[] = [
  { pattern: /script reached FAILWITH instruction/, ids: ["michelson_v1.script_rejected"] },
  { pattern: /unexpected arithmetic overflow/, ids: ["michelson_v1.script_overflow"] },
  { pattern: /Cannot serialize the resulting storage value within the provided gas bounds/, ids: ["michelson_v1.cannot_serialize_storage"] },
  { pattern: /ill-typed data/, ids: ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant"] },
  { pattern: /unexpected annotation/, ids: ["michelson_v1.unexpected_annotation"] },
];

/** Whether an RPC error trace (Octez's JSON list) gives the client message `expected` (a python regexp). */
export function errorMatches(expected: string, trace: Json): boolean {
  if (!Array.isArray(trace)) return false;
  const ids = trace.map((e) => String((e as { id?: string }).id ?? "").replace(/^proto\.011-PtHangz2\./, ""));
  // the client prints "error running script" before any failure of run script
  if (/error running script/.test(expected)) return ids.length > 0;
  const row = CLIENT_MESSAGES.find((r) => r.pattern.test(expected) || r.pattern.source === expected);
  if (row === undefined) return false;
  return row.ids.some((id) => ids.includes(id));
}

/** Prints a `source file → passed/total` table. */
export function report(title: string, counts: Map<string, { pass: number; total: number }>, extra = ""): void {
  const lines = [...counts.entries()].map(([f, c]) => `  ${f}: ${c.pass}/${c.total}`);
  const pass = [...counts.values()].reduce((a, c) => a + c.pass, 0);
  const total = [...counts.values()].reduce((a, c) => a + c.total, 0);
  console.log(`${title}: ${pass}/${total} passed\n${lines.join("\n")}${extra === "" ? "" : "\n" + extra}`);
}
