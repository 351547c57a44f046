/**
 * JSON schemas and binary layout descriptions compared with what Octez v12 prints: the
 * `/describe/chains/main/mempool?recurse=yes` capture (Hangzhou sandbox) and the
 * `011-PtHangz2.*` components of hangzhou-openapi.json.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { operationHash, type Json } from "../../lib/encoding/mod.ts";
import { blockHeader, operation, protocolData, unsignedOperation, entrypoint, contractId, inlinedEndorsement } from "../../lib/encoding/hangzhou/mod.ts";

const ref = (p: string) => new URL(`../vectors/octez/${p}`, import.meta.url);
const describe = JSON.parse(readFileSync(ref("examples/hangzhou-describe-chains-main-mempool-recurse.json"), "utf8"));
const monitor = describe.static.subdirs.suffixes.find((s: { name: string }) => s.name === "monitor_operations").tree.static.get_service.output;
const unban = describe.static.subdirs.suffixes.find((s: { name: string }) => s.name === "unban_operation").tree.static.post_service.input;
const openapi = JSON.parse(readFileSync(ref("hangzhou-openapi.json"), "utf8"));

test("every JSON-schema definition of an operation matches the /describe capture", () => {
  const ours = operation.jsonSchema()["definitions"] as { [k: string]: Json };
  const names = Object.keys(ours);
  assert.ok(names.length >= 20);
  for (const name of names) assert.equal(ours[name], monitor.json_schema.definitions[name], name);
});

test("named binary layouts of an operation match the /describe capture", () => {
  const ours = operation.binarySchema().fields as { description: { title: string } }[];
  const theirs = new Map<string, Json>(monitor.binary_schema.fields.map((f: { description: { title: string } }) => [f.description.title, f]));
  const named = ours.filter((f) => !f.description.title.startsWith("X_"));
  assert.ok(named.length >= 10);
  // Anonymous references are numbered from the top-level value, which differs (X_0 here, X_1 there).
  const anonymous = (x: Json) => JSON.parse(JSON.stringify(x).replace(/"X_[0-9]+"/g, '"X"'));
  for (const f of named) assert.equal(anonymous(f as unknown as Json), anonymous(theirs.get(f.description.title)!), f.description.title);
  // The order of the shared references is Octez's too.
  const order = (l: { description: { title: string } }[]) => l.map((f) => f.description.title).filter((t) => !t.startsWith("X_"));
  assert.equal(order(ours), order(monitor.binary_schema.fields));
});

test("an operation hash input is described as Octez does at the top level", () => {
  assert.equal(operationHash.jsonSchema(), unban.json_schema);
  assert.equal(operationHash.binarySchema(), unban.binary_schema);
});

/** OpenAPI spells `$ref: #/definitions/x` as `#/components/schemas/x`, wraps refs in oneOf and drops additionalProperties. */
function normalize(x: Json): Json {
  if (Array.isArray(x)) return x.map(normalize);
  if (x === null || typeof x !== "object") return x;
  const o: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(x)) {
    if (k === "additionalProperties" || k === "definitions" || k === "$schema") continue;
    if (k === "$ref" && typeof v === "string") o[k] = v.replace("#/components/schemas/", "#/definitions/");
    else if (k === "required" && Array.isArray(v)) o[k] = [...(v as string[])].sort();
    else if (k === "oneOf" && Array.isArray(v) && v.length === 1 && typeof v[0] === "object" && v[0] !== null && "$ref" in (v[0] as object)) {
      o["$ref"] = ((v[0] as { [k: string]: Json })["$ref"] as string).replace("#/components/schemas/", "#/definitions/");
    } else o[k] = normalize(v);
  }
  return o;
}

const components: [string, { jsonSchema(): { [k: string]: Json } }][] = [
  ["011-PtHangz2.block_header.alpha.full_header", blockHeader],
  ["011-PtHangz2.block_header.alpha.signed_contents", protocolData],
  ["011-PtHangz2.operation.alpha.unsigned_operation", unsignedOperation],
  ["011-PtHangz2.entrypoint", entrypoint],
  ["011-PtHangz2.contract_id", contractId],
  ["011-PtHangz2.inlined.endorsement", inlinedEndorsement],
];

for (const [name, codec] of components) {
  test(`the JSON schema of ${name} matches hangzhou-openapi.json`, () => {
    assert.equal(normalize(codec.jsonSchema()), normalize(openapi.components.schemas[name]));
  });
}

test.run();
