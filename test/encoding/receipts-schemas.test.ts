/**
 * JSON schemas of the Hangzhou receipt codecs compared with the `011-PtHangz2.*` components of
 * hangzhou-openapi.json (Octez v12.4), normalised as in schemas.test.ts.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Json } from "../../lib/encoding/mod.ts";
import {
  balanceUpdates,
  bigMapId,
  internalOperationResult,
  lazyStorageDiff,
  operationContentsAndResult,
  operationResults,
  operationWithMetadata,
  protocolError,
  saplingCiphertext,
  saplingStateId,
  testChainStatus,
} from "../../lib/encoding/hangzhou/mod.ts";

const openapi = JSON.parse(readFileSync(new URL("../vectors/octez/hangzhou-openapi.json", import.meta.url), "utf8"));

/**
 * OpenAPI spells `$ref: #/definitions/x` as `#/components/schemas/x`, wraps refs in oneOf and drops
 * additionalProperties; where a Micheline expression is inlined, it titles the generic case
 * "Generic prim (…)" where `/describe` (and our codec) print `Prim__generic` with a description;
 * it has no tuples, so a tuple's `items: [a, b]` becomes `items: {oneOf: [a, b]}`; and it prints a
 * one-case union as that case (the `/describe` capture keeps the one-element `oneOf`).
 */
function normalize(x: Json): Json {
  if (Array.isArray(x)) return x.map(normalize);
  if (x === null || typeof x !== "object") return x;
  const o: { [k: string]: Json } = {};
  const one = x["oneOf"];
  if (Array.isArray(one) && one.length === 1 && typeof one[0] === "object" && one[0] !== null && !("$ref" in (one[0] as object))) {
    const { title: _t, ...rest } = one[0] as { [k: string]: Json };
    const { oneOf: _o, ...outer } = x;
    x = { ...outer, ...rest };
  }
  if (x["title"] === "Prim__generic") {
    x = { ...x, title: "Generic prim (any number of args with or without annot)" };
    delete x["description"];
  }
  for (const [k, v] of Object.entries(x)) {
    if (k === "additionalProperties" || k === "definitions" || k === "$schema") continue;
    if (k === "$ref" && typeof v === "string") o[k] = v.replace("#/components/schemas/", "#/definitions/");
    else if (k === "required" && Array.isArray(v)) o[k] = [...(v as string[])].sort();
    else if (k === "items" && Array.isArray(v)) o[k] = { oneOf: normalize(v) }; // OpenAPI 3 has no tuples
    else if (k === "additionalItems") continue;
    else if (k === "oneOf" && Array.isArray(v) && v.length === 1 && typeof v[0] === "object" && v[0] !== null && "$ref" in (v[0] as object)) {
      o["$ref"] = ((v[0] as { [k: string]: Json })["$ref"] as string).replace("#/components/schemas/", "#/definitions/");
    } else o[k] = normalize(v);
  }
  return o;
}

const components: [string, { jsonSchema(): { [k: string]: Json } }][] = [
  ["011-PtHangz2.operation_metadata.alpha.balance_updates", balanceUpdates],
  ["011-PtHangz2.error", protocolError],
  ["011-PtHangz2.big_map_id", bigMapId],
  ["011-PtHangz2.sapling_state_id", saplingStateId],
  ["011-PtHangz2.lazy_storage_diff", lazyStorageDiff],
  ["sapling.transaction.ciphertext", saplingCiphertext],
  ["test_chain_status", testChainStatus],
  ["011-PtHangz2.operation.alpha.operation_result.reveal", operationResults.reveal],
  ["011-PtHangz2.operation.alpha.operation_result.transaction", operationResults.transaction],
  ["011-PtHangz2.operation.alpha.operation_result.origination", operationResults.origination],
  ["011-PtHangz2.operation.alpha.operation_result.delegation", operationResults.delegation],
  ["011-PtHangz2.operation.alpha.operation_result.register_global_constant", operationResults.register_global_constant],
  ["011-PtHangz2.operation.alpha.internal_operation_result", internalOperationResult],
  ["011-PtHangz2.operation.alpha.operation_contents_and_result", operationContentsAndResult],
  ["011-PtHangz2.operation.alpha.operation_with_metadata", operationWithMetadata],
];

for (const [name, codec] of components) {
  test(`the JSON schema of ${name} matches hangzhou-openapi.json`, () => {
    assert.ok(openapi.components.schemas[name], `${name} is in the OpenAPI file`);
    assert.equal(normalize(codec.jsonSchema()), normalize(openapi.components.schemas[name]));
  });
}

test("every definition our receipt schemas reference that OpenAPI also lists is the same", () => {
  const seen = new Set<string>();
  for (const [, codec] of components) {
    const defs = (codec.jsonSchema()["definitions"] ?? {}) as { [k: string]: Json };
    for (const [k, v] of Object.entries(defs)) {
      const theirs = openapi.components.schemas[k];
      if (theirs === undefined || seen.has(k)) continue;
      seen.add(k);
      assert.equal(normalize(v), normalize(theirs), k);
    }
  }
  assert.ok(seen.size >= 20, `compared ${seen.size} definitions`);
});

test.run();
