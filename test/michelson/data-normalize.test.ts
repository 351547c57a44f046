/**
 * `normalize data` / `normalize type` of Octez's Hangzhou test-suite (typecheck-cases.json): data
 * read against its type and printed back in each unparsing mode, and types printed back, must
 * give the recorded client output.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { parseMichelineText } from "../../lib/michelson/text/parse.ts";
import { printMicheline } from "../../lib/michelson/text/print.ts";
import { parseData } from "../../lib/michelson/data/parse-data.ts";
import { unparseData } from "../../lib/michelson/data/unparse-data.ts";
import { normalizeTy, parseTy, unparseTy, type UnparsingMode } from "../../lib/michelson/data/parse-type.ts";
import { refJson, testContext } from "./data-context.ts";

interface NormalizeData {
  id: string;
  data: string;
  type: string;
  unparsing_mode?: UnparsingMode | null;
  legacy?: boolean;
  expected_output: string;
  expected_error?: string;
}
interface NormalizeType {
  id: string;
  type: string;
  expected_output: string;
}

const ref = refJson<{ normalize_data: NormalizeData[]; normalize_type: NormalizeType[] }>("typecheck-cases.json");
const Normalize = suite("normalize_data / normalize_type (Octez test_contract.py)");

for (const c of ref.normalize_data) {
  Normalize(`${c.id}: ${c.data} : ${c.type} in ${c.unparsing_mode ?? "the default mode"}${c.legacy === undefined ? "" : c.legacy ? " (legacy)" : " (not legacy)"}`, () => {
    const ctx = testContext();
    const t = parseTy(parseMichelineText(c.type));
    const node = parseMichelineText(c.data);
    if (c.expected_error !== undefined) {
      try {
        parseData(ctx, t, node, { legacy: c.legacy ?? false });
        assert.unreachable("the data should be rejected");
      } catch (e) {
        // "At (unshown) location 0, value … is invalid for type …. At (unshown) location 1, unexpected annotation."
        const json = (e as { toJson(): { id: string; location?: number }[] }).toJson();
        assert.equal(json.map((j) => [j.id.replace(/^proto\.011-PtHangz2\./, ""), j.location]), [
          ["michelson_v1.invalid_constant", 0],
          ["michelson_v1.unexpected_annotation", 1],
        ]);
      }
      return;
    }
    const v = parseData(ctx, t, node, { legacy: c.legacy ?? false });
    const out = unparseData(t, v, c.unparsing_mode ?? "Readable");
    assert.is(printMicheline(out) + "\n", c.expected_output);
  });
}

for (const c of ref.normalize_type) {
  Normalize(`${c.id}: type ${c.type} normalizes to ${c.expected_output.trim()} (binary pairs)`, () => {
    assert.is(printMicheline(normalizeTy(parseTy(parseMichelineText(c.type)))) + "\n", c.expected_output);
  });
  Normalize(`${c.id}: type ${c.type} unparses with its right comb folded`, () => {
    // The protocol's unparse_ty folds right combs: the recorded form, read back, prints flat.
    const folded = printMicheline(unparseTy(parseTy(parseMichelineText(c.expected_output))));
    assert.is(folded, c.type);
  });
}

Normalize.run();
