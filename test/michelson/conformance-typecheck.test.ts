/**
 * Octez's type-checking and hashing conformance cases (`test/vectors/michelson/typecheck-cases.json`,
 * python tests of v12.4 for protocol 011) through the node's own helpers at the sandbox's level 1:
 * `typecheck_code`, `typecheck_data`, `normalize_data`/`normalize_script`/`normalize_type`,
 * `hash_data` (via `pack_data` and the early layout's `hash_data`), and script hashes.
 *
 * An expected error passes when the call fails and, for the client messages of {@link MESSAGE_IDS},
 * when the error trace carries one of the protocol errors that make octez-client print it; the
 * report says how many error cases were checked only by their failure. Cases whose `placeholders`
 * name a contract on chain run on the head of an in-process sandbox node where those contracts were
 * originated (see `chainWithContracts`), with the originated addresses in place of the placeholders.
 * Counts are printed per source file; every case not named in {@link REFERENCE_WRONG} (wrong
 * reference value) or {@link PENDING} (work not done yet, with its owner) must pass
 * (`MICHELSON_CONFORMANCE=lenient` checks only that {@link PASS_FLOOR} cases pass).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import type { Json } from "../../lib/encoding/codec.ts";
import { encodeMicheline, type Micheline } from "../../lib/encoding/micheline.ts";
import { parseAndExpand } from "../../lib/michelson/text/mod.ts";
import {
  type BlockRpc,
  chainWithContracts,
  clientValue,
  contractText,
  dataOf,
  reference,
  report,
  sameMicheline,
  sandbox,
  scriptOf,
  substitute,
} from "./conformance-support.ts";

interface TcCase {
  id: string;
  source_file: string;
  file?: string;
  script?: string;
  data?: string;
  type?: string;
  legacy?: boolean;
  expected?: "ok" | "error";
  expected_error?: string;
  expected_output?: string;
  unparsing_mode?: string | null;
  expected_packed?: string;
  expected_script_expr_hash?: string;
  expected_hash?: string;
  placeholders?: { [k: string]: string };
}

/** Client messages of the tests and the protocol error ids (without prefix) behind them. */
const MESSAGE_IDS: readonly [RegExp, readonly string[]][] = [
  [/ill-typed data/, ["michelson_v1.ill_typed_data", "michelson_v1.invalid_constant"]],
  [/big_map or sapling_state type not expected here/, ["michelson_v1.unexpected_lazy_storage"]],
  [/Use of deprecated instruction/, ["michelson_v1.deprecated_instruction"]],
  [/ill-typed script/, ["michelson_v1.ill_typed_contract"]],
  [/wrong stack type for instruction/, ["michelson_v1.bad_stack"]],
  [/unexpected annotation/, ["michelson_v1.unexpected_annotation"]],
  [/Ticket in unauthorized position/, ["michelson_v1.unexpected_ticket"]],
  [/Contract has no entrypoint named/, ["michelson_v1.no_such_entrypoint"]],
  [/invalid contract/, ["michelson_v1.invalid_contract"]],
  [/Missing contract field/, ["michelson_v1.missing_script_field"]],
  [/duplicate contract field/, ["michelson_v1.duplicate_script_field"]],
  [/is not compatible with type/, ["michelson_v1.inconsistent_types"]],
  [/expects an argument of at least/, ["michelson_v1.bad_pair_argument", "michelson_v1.bad_unpair_argument", "michelson_v1.bad_dupn_argument"]],
  [/expects \d+ arguments/, ["michelson_v1.invalid_arity"]],
  [/exceeds the maximum length of 31 characters/, ["michelson_v1.entrypoint_name_too_long", "michelson_v1.view_name_too_long"]],
  [/the return of a view block did not match/, ["michelson_v1.ill_typed_view"]],
  [/operation type forbidden/, ["michelson_v1.unexpected_operation"]],
  [/type never has no inhabitant/, ["michelson_v1.invalid_never_expr"]],
  [/not duplicable/, ["michelson_v1.non_dupable_type"]],
  [/comparable type expected/, ["michelson_v1.comparable_type_expected"]],
  [/operator ADD is undefined/, ["michelson_v1.undefined_binop"]],
  [/two branches don't end with the same stack type/, ["michelson_v1.unmatched_branches"]],
  [/type exceeded maximum type size/, ["michelson_v1.type_too_large"]],
  [/duplicate key was found/, ["michelson_v1.duplicate_map_keys"]],
  [/must be in strictly ascending order, but they were unordered in literal/, ["michelson_v1.unordered_map_literal", "michelson_v1.unordered_set_literal"]],
  [/duplicate value was found/, ["michelson_v1.duplicate_set_values_in_literal"]],
  [/the name of view in toplevel should be unique/, ["michelson_v1.duplicated_view_name"]],
  // `value … is invalid, expected <what>`: DIP n / DROP n above 1023, view names
  [/expected a positive 10-bit integer|string \[a-zA-Z0-9_\.%@\]/, ["michelson_v1.invalid_syntactic_constant"]],
  [/The field access annotation does not match/, ["michelson_v1.inconsistent_field_annotations"]],
  [/only a string|can be used here/, ["michelson_v1.invalid_expression_kind", "michelson_v1.invalid_primitive", "michelson_v1.invalid_primitive_namespace"]],
];

/** Cases whose reference value is wrong, with the reason (none found so far). */
const REFERENCE_WRONG: ReadonlyMap<string, string> = new Map<string, string>([]);

/** Cases that fail for work not done yet (not failures of the runner or of the RPCs), with why. */
const PENDING: ReadonlyMap<string, string> = new Map<string, string>([]);

/** Fewer passing cases than this fails the test even with `MICHELSON_CONFORMANCE=lenient`. */
const PASS_FLOOR = 785;

/** Strict unless `MICHELSON_CONFORMANCE=lenient`: then only the floor is checked. */
const STRICT = (globalThis as { process?: { env?: { [k: string]: string | undefined } } }).process?.env?.MICHELSON_CONFORMANCE !== "lenient";

const all = reference<{ [section: string]: TcCase[] }>("typecheck-cases.json");
const SECTIONS = ["typecheck_code", "typecheck_data", "normalize_data", "normalize_script", "normalize_type", "hash_data", "script_hash"] as const;

type Node = BlockRpc;
let unmappedErrors = 0;

function idsOf(trace: Json): string[] {
  return Array.isArray(trace) ? trace.map((e) => String((e as { id?: string }).id ?? "").replace(/^proto\.011-PtHangz2\./, "")) : [];
}

/** Why an expected failure is not the one expected (`undefined` when it is). */
function checkError(c: TcCase, r: { status: number; json: any; text: string }): string | undefined {
  if (r.status === 200) return `succeeded, expected /${c.expected_error}/`;
  if (c.expected_error === undefined) return undefined;
  const row = MESSAGE_IDS.find(([re]) => re.test(c.expected_error!.replace(/\\/g, "")) || new RegExp(c.expected_error!).test(re.source));
  if (row === undefined) {
    unmappedErrors++;
    return undefined;
  }
  const ids = idsOf(r.json);
  return row[1].some((id) => ids.includes(id)) ? undefined : `error ${ids.join(", ")} does not give /${c.expected_error}/`;
}

/**
 * Why a text the client cannot read does not fail as expected (`undefined` when it does): the
 * parser's message, or the line the client command prints after it (`header`), must match.
 */
function clientError(c: TcCase, e: unknown, header?: string): string | undefined {
  if (c.expected_error === undefined) return undefined;
  const re = new RegExp(c.expected_error);
  const message = (e as Error).message;
  return re.test(message) || (header !== undefined && re.test(header)) ? undefined : `client error ${message} does not give /${c.expected_error}/`;
}

const mode = (m: string | null | undefined) => m ?? "Readable";

async function runCase(node: Node, section: (typeof SECTIONS)[number], c: TcCase): Promise<string | undefined> {
  const code = () => scriptOf(c.file !== undefined ? contractText(c.file) : c.script!);
  switch (section) {
    case "typecheck_code": {
      let program: Micheline;
      try {
        program = code();
      } catch (e) {
        // a script the client cannot read fails before any RPC ("syntax error in program", indentation)
        return c.expected === "error" ? clientError(c, e, "syntax error in program") : `does not parse: ${(e as Error).message}`;
      }
      const body: { [k: string]: Json } = { program: program as Json };
      if (c.legacy !== undefined) body.legacy = c.legacy;
      const r = await node.post("/helpers/scripts/typecheck_code", body);
      if (c.expected === "error") return checkError(c, r);
      return r.status === 200 ? undefined : `HTTP ${r.status}: ${r.text.slice(0, 200)}`;
    }
    case "typecheck_data": {
      let data: Micheline, type: Micheline;
      try {
        data = dataOf(c.data!);
        type = dataOf(c.type!);
      } catch (e) {
        return c.expected === "error" ? clientError(c, e) : `does not parse: ${(e as Error).message}`;
      }
      const body: { [k: string]: Json } = { data: data as Json, type: type as Json };
      if (c.legacy !== undefined) body.legacy = c.legacy;
      const r = await node.post("/helpers/scripts/typecheck_data", body);
      if (c.expected === "error") return checkError(c, r);
      return r.status === 200 ? undefined : `HTTP ${r.status}: ${r.text.slice(0, 200)}`;
    }
    case "normalize_data": {
      const body: { [k: string]: Json } = { data: dataOf(c.data!) as Json, type: dataOf(c.type!) as Json, unparsing_mode: mode(c.unparsing_mode) };
      if (c.legacy !== undefined) body.legacy = c.legacy;
      const r = await node.post("/helpers/scripts/normalize_data", body);
      if (c.expected_error !== undefined) return checkError(c, r);
      if (r.status !== 200) return `HTTP ${r.status}: ${r.text.slice(0, 200)}`;
      return sameMicheline(r.json.normalized, clientValue(c.expected_output!)) ? undefined : `normalized ${JSON.stringify(r.json.normalized).slice(0, 200)}`;
    }
    case "normalize_script": {
      const r = await node.post("/helpers/scripts/normalize_script", { script: code() as Json, unparsing_mode: mode(c.unparsing_mode) });
      if (r.status !== 200) return `HTTP ${r.status}: ${r.text.slice(0, 200)}`;
      return sameMicheline(r.json.normalized, scriptOf(c.expected_output!)) ? undefined : `normalized ${JSON.stringify(r.json.normalized).slice(0, 200)}`;
    }
    case "normalize_type": {
      const r = await node.post("/helpers/scripts/normalize_type", { type: dataOf(c.type!) as Json });
      if (r.status !== 200) return `HTTP ${r.status}: ${r.text.slice(0, 200)}`;
      return sameMicheline(r.json.normalized, clientValue(c.expected_output!)) ? undefined : `normalized ${JSON.stringify(r.json.normalized)}`;
    }
    case "hash_data": {
      const body = { data: dataOf(c.data!) as Json, type: dataOf(c.type!) as Json };
      const p = await node.post("/helpers/scripts/pack_data", body);
      if (p.status !== 200) return `pack_data HTTP ${p.status}: ${p.text.slice(0, 200)}`;
      if (`0x${p.json.packed}` !== c.expected_packed) return `packed 0x${p.json.packed}, expected ${c.expected_packed}`;
      const h = await node.post("/helpers/scripts/hash_data", body);
      if (h.status !== 200) return `hash_data HTTP ${h.status}: ${h.text.slice(0, 200)}`;
      return h.json.hash === c.expected_script_expr_hash ? undefined : `hash ${h.json.hash}, expected ${c.expected_script_expr_hash}`;
    }
    case "script_hash": {
      // `hash script`: BLAKE2b-256 of the binary script (macros expanded), as an expr… hash; the
      // client checks the indentation only when asked (`--enforce-indentation`, off by default)
      const script = parseAndExpand(c.file !== undefined ? contractText(c.file) : c.script!, { check: false });
      const hash = b58encode(B58.scriptExprHash, blake2b256(encodeMicheline(script)));
      return hash === c.expected_hash ? undefined : `hash ${hash}, expected ${c.expected_hash}`;
    }
  }
}

/** The case with its placeholders replaced by the addresses of the contracts originated for them. */
function placed(c: TcCase, addresses: ReadonlyMap<string, string>): TcCase {
  if (c.placeholders === undefined) return c;
  const sub = (t: string | undefined) => (t === undefined ? undefined : substitute(t, c.placeholders, addresses));
  const out: TcCase = { ...c };
  for (const k of ["script", "data", "type", "expected_output"] as const) if (c[k] !== undefined) out[k] = sub(c[k]);
  return out;
}

test("every typecheck, normalize and hash case of Octez's python tests answers as recorded", async () => {
  const node = await sandbox();
  const chain = await chainWithContracts(SECTIONS.flatMap((s) => (all[s] ?? []).flatMap((c) => Object.values(c.placeholders ?? {}))));
  const counts = new Map<string, { pass: number; total: number }>();
  const failures: string[] = [];
  const pendingPassing: string[] = [];
  let pending = 0;
  let onChain = 0;
  try {
    for (const section of SECTIONS) {
      for (const c of all[section] ?? []) {
        const key = `${section} (${c.source_file.split("/").pop()})`;
        const k = counts.get(key) ?? { pass: 0, total: 0 };
        counts.set(key, k);
        k.total++;
        if (c.placeholders !== undefined) onChain++;
        let failure: string | undefined;
        try {
          failure = c.placeholders === undefined ? await runCase(node, section, c) : await runCase(chain, section, placed(c, chain.addresses));
        } catch (e) {
          failure = `threw ${(e as Error).message}`;
        }
        if (failure === undefined) {
          k.pass++;
          if (PENDING.has(c.id)) pendingPassing.push(c.id);
        } else if (PENDING.has(c.id)) pending++;
        else if (!REFERENCE_WRONG.has(c.id)) failures.push(`${c.id} ${c.file ?? c.type ?? ""}: ${failure}`.slice(0, 240));
      }
    }
  } finally {
    await chain.close();
  }
  const pass = [...counts.values()].reduce((a, c) => a + c.pass, 0);
  report(
    "typecheck conformance",
    counts,
    `  run on a chain with the originated contracts they name: ${onChain}\n  expected errors checked only by failing (message not in the table): ${unmappedErrors}` +
      (PENDING.size > 0 ? `\n  pending (${pending}): ${[...new Set(PENDING.values())].join("; ")}` : "") +
      (pendingPassing.length > 0 ? `\n  pending cases that pass now (take them out of PENDING): ${pendingPassing.join(", ")}` : "") +
      (failures.length > 0 ? `\n  first failures:\n    ${failures.slice(0, 40).join("\n    ")}` : ""),
  );
  assert.ok(pass >= PASS_FLOOR, `${pass} cases pass, fewer than the floor ${PASS_FLOOR}`);
  if (STRICT) assert.equal(failures, [], `${failures.length} cases fail`);
});

test.run();
