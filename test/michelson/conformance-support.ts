/**
 * What the conformance runners share: the reference data of `test/vectors/michelson/`
 * (cases, regression outputs, contracts), a Hangzhou sandbox answering the node's own RPC handler
 * at level 1 (Octez's python tests run their scripts right after activation), Micheline read from
 * octez-client text, structural comparison of Micheline, the reader of the client's trace text,
 * and the table from protocol error ids to the client messages the tests search for.
 */
import { readFileSync } from "node:fs";
import type { Json } from "../../lib/encoding/codec.ts";
import type { Origination } from "../../lib/encoding/hangzhou/operation.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import type { Micheline } from "../../lib/encoding/micheline.ts";
import { parseAndExpand, parseAndExpandExpression, parseExpressionWithIssues, parseMichelineText } from "../../lib/michelson/text/mod.ts";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { BOOTSTRAP, forge, manager } from "../hangzhou/manager-fixture.ts";
import { call, hangzhouFixture } from "../rpc/hangzhou-fixture.ts";

const ROOT = new URL("../vectors/michelson/", import.meta.url);

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

/** An RPC answer: status, body read as JSON (when it is), and the raw text. */
export interface Answer {
  status: number;
  json: any;
  text: string;
}

/** POST and GET on one block of a sandbox's main chain (paths relative to the block). */
export interface BlockRpc {
  post(path: string, body: unknown): Promise<Answer>;
  get(path: string): Promise<Answer>;
}

/** A sandbox node and a POST helper on block 1 (activation) of its main chain. */
export async function sandbox(): Promise<BlockRpc> {
  const fx = await hangzhouFixture();
  const B = "/chains/main/blocks/1";
  return {
    post: (path, body) => call(fx, B + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    get: (path) => call(fx, B + path),
  };
}

/**
 * The cases' `placeholders` descriptions (their only two shapes): a KT1 originated from a reference
 * contract with a storage, e.g. `KT1 address of a contract originated from entrypoints/simple_entrypoints.tz
 * (storage Unit, balance 0)` or `… originated (by bootstrap1, storage Unit, balance 0) from …`.
 */
export function describedOrigination(description: string): { file: string; storage: string; balance: bigint } {
  const file = /from (\S+\.tz)/.exec(description)?.[1];
  const storage = /storage (.*?), balance/.exec(description)?.[1];
  const balance = /balance (\d+)/.exec(description)?.[1];
  if (!/^KT1 address of a contract originated/.test(description) || file === undefined || storage === undefined || balance === undefined) {
    throw new Error(`placeholder not understood: ${description}`);
  }
  return { file, storage, balance: BigInt(balance) };
}

/** One RPC on an in-process node (JSON body when given). */
export async function nodeCall(node: TezosNode, method: string, path: string, body?: unknown): Promise<Answer> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** A sandbox node whose chain holds the contracts the cases' placeholders describe. */
export interface ChainWithContracts extends BlockRpc {
  /** The KT1 of each placeholder description (one origination per distinct description). */
  readonly addresses: ReadonlyMap<string, string>;
  /** The node itself (its RPCs on any block), closed by {@link ChainWithContracts.close}. */
  readonly node: TezosNode;
  close(): Promise<void>;
}

/** A contract to originate: a reference contract file, its initial storage (client text), its balance. */
export interface OriginationSpec {
  file: string;
  storage: string;
  balance: bigint;
}

/**
 * Originates `specs` on `node`'s head in one operation signed by bootstrap1 (fee, gas and storage
 * limits generous), injected through `/injection/operation` and baked with `POST /sandbox/bake`;
 * answers the originated KT1 addresses in order, read from the baked block's receipts.
 */
export async function originate(node: TezosNode, specs: readonly OriginationSpec[]): Promise<string[]> {
  if (specs.length === 0) return [];
  const source = BOOTSTRAP[0]!;
  const counter = BigInt((await nodeCall(node, "GET", `/chains/main/blocks/head/context/contracts/${source.pkh}/counter`)).json as string);
  const branch = (await nodeCall(node, "GET", "/chains/main/blocks/head/hash")).json as string;
  const contents = specs.map((o, i) =>
    manager<Origination>({
      kind: "origination",
      source: source.pkh,
      counter: counter + 1n + BigInt(i),
      balance: o.balance,
      script: { code: scriptOf(contractText(o.file)), storage: dataOf(o.storage) },
      fee: 100_000n,
      gas_limit: 20_000n,
      storage_limit: 5_000n,
    }),
  );
  const injected = await nodeCall(node, "POST", "/injection/operation", toHex(await forge(source.sk, branch, contents)));
  if (injected.status !== 200) throw new Error(`origination refused: ${injected.text}`);
  const baked = await nodeCall(node, "POST", "/sandbox/bake");
  if (baked.status !== 200) throw new Error(`bake failed: ${baked.text}`);
  const ops = (await nodeCall(node, "GET", "/chains/main/blocks/head/operations/3")).json as any[];
  const op = ops.find((o) => o.hash === injected.json);
  if (op === undefined) throw new Error("the origination was not baked");
  return op.contents.map((c: any, i: number) => {
    const r = c.metadata.operation_result;
    if (r.status !== "applied") throw new Error(`origination of ${specs[i]!.file} ${r.status}: ${JSON.stringify(r.errors ?? [])}`);
    return r.originated_contracts[0] as string;
  });
}

/**
 * Starts an in-process sandbox node (manual baker), originates one contract per placeholder
 * description ({@link originate}), and answers RPCs on the head (where those contracts exist), as
 * the python tests run their scripts after originating.
 */
export async function chainWithContracts(descriptions: Iterable<string>): Promise<ChainWithContracts> {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const wanted = [...new Set(descriptions)];
    const kt1s = await originate(node, wanted.map(describedOrigination));
    const addresses = new Map(wanted.map((d, i) => [d, kt1s[i]!]));
    const B = "/chains/main/blocks/head";
    return {
      node,
      addresses,
      post: (path, body) => nodeCall(node, "POST", B + path, body),
      get: (path) => nodeCall(node, "GET", B + path),
      close: () => node.close(),
    };
  } catch (e) {
    await node.close();
    throw e;
  }
}

/** `text` with each `{name}` of `placeholders` replaced by the address originated for its description. */
export function substitute(text: string, placeholders: { [name: string]: string } | undefined, addresses: ReadonlyMap<string, string>): string {
  if (placeholders === undefined) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const d = placeholders[name];
    if (d === undefined) return whole;
    const a = addresses.get(d);
    if (a === undefined) throw new Error(`no contract for {${name}}`);
    return a;
  });
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
