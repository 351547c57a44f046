/**
 * The OpenAPI validator of test/support/openapi.ts: small good and bad cases for each keyword,
 * then Octez's own captured Hangzhou answers (tezt regression transcripts) against Octez's own
 * schemas, which must pass, and the same answers spoiled, which must fail at the right place.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { OpenApi, type Schema, withLeadingFields } from "../support/openapi.ts";
import { OCTEZ_FORMATS } from "./octez-formats.ts";
import { pendingOperations } from "./octez-schemas.ts";

const REF = new URL("../vectors/octez/", import.meta.url);
const hangzhou = OpenApi.load(new URL("hangzhou-openapi.json", REF));
const mempool = OpenApi.load(new URL("hangzhou-mempool-openapi.json", REF));
const shell = OpenApi.load(new URL("rpc-openapi.json", REF));

const toy = new OpenApi({
  paths: { "/a/{id}": { get: { responses: { "200": { content: { "application/json": { schema: { $ref: "#/components/schemas/thing" } } } } } } }, "/a/b": { get: {} } },
  components: {
    schemas: {
      thing: {
        title: "Thing",
        type: "object",
        properties: {
          kind: { type: "string", enum: ["thing"] },
          n: { type: "integer", minimum: 0, maximum: 255 },
          hex: { type: "string", pattern: "^([a-zA-Z0-9][a-zA-Z0-9])*$" },
          tags: { type: "array", items: { type: "string", minLength: 1 } },
          opt: { nullable: true, oneOf: [{ title: "Some", type: "string" }] },
        },
        required: ["kind", "n"],
      },
      tree: { nullable: true, oneOf: [{ title: "Leaf", type: "string" }, { title: "Dir", type: "object", properties: {}, additionalProperties: { $ref: "#/components/schemas/tree" } }] },
      twins: { oneOf: [{ title: "A", type: "integer" }, { title: "B", type: "integer", minimum: 0 }] },
      either: { anyOf: [{ type: "integer" }, { type: "integer", minimum: 0 }] },
    },
  },
});
const thing = toy.component("thing");

function paths(api: OpenApi, value: unknown, schema: Schema): string[] {
  return api.validate(value, schema).map((e) => `${e.path}: ${e.message}`);
}

test("a value that follows the schema has no errors", () => {
  assert.equal(toy.validate({ kind: "thing", n: 255, hex: "00ff", tags: ["x"], opt: null }, thing), []);
  assert.equal(toy.validate({ kind: "thing", n: 0, opt: "yes" }, thing), []);
});

test("type, enum, range, pattern, length and required failures name the place and the reason", () => {
  assert.equal(paths(toy, { kind: "other", n: 256, hex: "0", tags: [""] }, thing), [
    '$.kind: "other" is not one of "thing"',
    "$.n: 256 is above the maximum 255",
    '$.hex: "0" does not match /^([a-zA-Z0-9][a-zA-Z0-9])*$/',
    "$.tags[0]: string shorter than 1",
  ]);
  assert.equal(paths(toy, { n: -1.5 }, thing), ['$: missing required property "kind"', "$.n: expected integer, got number -1.5"]);
  assert.equal(paths(toy, "thing", thing), ["$: expected object, got string \"thing\""]);
  assert.equal(paths(toy, null, thing), ["$: expected object, got null"]);
  assert.equal(paths(toy, [], thing), ["$: expected object, got array"]);
});

test("objects are closed unless additionalProperties opens them, or openObjects is asked", () => {
  const v = { kind: "thing", n: 1, "odd key": true };
  assert.equal(paths(toy, v, thing), ['$: unexpected property "odd key"']);
  assert.equal(toy.validate(v, thing, { openObjects: true }), []);
  const tree = toy.component("tree");
  assert.equal(toy.validate({ a: "00", b: { c: null, "d e": {} } }, tree), []);
  const deep = paths(toy, { a: { b: 7 } }, tree);
  assert.is(deep[0], "$: matches no branch of oneOf (Leaf | Dir); closest is Dir:");
  assert.ok(deep.some((e) => e.startsWith("$.a.b: ") && e.includes("expected string, got integer 7")));
});

test("oneOf wants exactly one branch, anyOf at least one", () => {
  assert.equal(toy.validate(-1, toy.component("twins")), []);
  assert.equal(paths(toy, 1, toy.component("twins")), ["$: matches 2 branches of oneOf (A, B), one expected"]);
  assert.equal(toy.validate(1, toy.component("either")), []);
  assert.equal(paths(toy, "1", toy.component("either")), [
    "$: matches no branch of anyOf (#0 | #1); closest is #0:",
    '$:   [#0] expected integer, got string "1"',
  ]);
});

test("schema lookups: response of a path template, components, template of a concrete path", () => {
  assert.equal(toy.response("/a/{id}"), thing);
  assert.throws(() => toy.response("/a/b"), (e: unknown) => e instanceof RangeError && /no application\/json schema/.test(e.message));
  assert.throws(() => toy.response("/nope"), (e: unknown) => e instanceof RangeError && /no path \/nope/.test(e.message));
  assert.throws(() => toy.component("nope"), (e: unknown) => e instanceof RangeError);
  assert.is(toy.template("/a/b"), "/a/b");
  assert.is(toy.template("/a/c?x=1"), "/a/{id}");
  assert.is(toy.template("/a"), undefined);
  assert.is(hangzhou.template("/context/delegates/tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx/balance"), "/context/delegates/{pkh}/balance");
  assert.is(hangzhou.template("/"), "/");
  assert.is(shell.template("/chains/main/levels/checkpoint"), "/chains/{chain_id}/levels/checkpoint");
});

test("a keyword outside the subset, or a dangling $ref, is a schema error, not a pass", () => {
  assert.throws(() => toy.validate(1, { type: "integer", multipleOf: 2 }), (e: unknown) => e instanceof RangeError && /multipleOf/.test(e.message));
  assert.throws(() => toy.validate(1, { $ref: "#/components/schemas/none" }), (e: unknown) => e instanceof RangeError && /dangling/.test(e.message));
  assert.throws(() => toy.validate(1, { $ref: "other.json#/x" }), (e: unknown) => e instanceof RangeError && /unsupported \$ref/.test(e.message));
});

test("assertValid throws one readable message listing every error", () => {
  assert.throws(
    () => toy.assertValid({ kind: "thing", n: "1", x: 0 }, thing, "GET /a/1"),
    (e: unknown) => e instanceof Error && e.message.includes("GET /a/1 does not conform") && e.message.includes("$.n: expected integer") && e.message.includes('unexpected property "x"'),
  );
  toy.assertValid({ kind: "thing", n: 1 }, thing, "GET /a/1");
});

test("withLeadingFields adds required fields in front of an object and of each oneOf branch", () => {
  const s = withLeadingFields(hangzhou, hangzhou.component("011-PtHangz2.operation.alpha.operation_with_metadata"), {
    hash: hangzhou.component("Operation_hash"),
  });
  const branches = s.oneOf as Schema[];
  assert.is(branches.length, 2);
  for (const b of branches) {
    assert.equal(Object.keys(b.properties as object)[0], "hash");
    assert.equal(b.required, ["hash", "contents"]);
  }
  assert.throws(() => withLeadingFields(hangzhou, { type: "string" }, {}), RangeError);
});

test("opt-in formats check what the files say in prose: Base58Check kinds and decimals", () => {
  const f = { formats: OCTEZ_FORMATS };
  const head = hangzhou.response("/hash");
  assert.equal(hangzhou.validate("BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2", head, f), []);
  assert.equal(hangzhou.validate("BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW3", head), []);
  assert.equal(hangzhou.validate("BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW3", head, f), [
    { path: "$", message: '"BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW3" is not a block hash (Base58Check)' },
  ]);
  assert.equal(hangzhou.validate("ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im", head, f).length, 1);
  const balance = hangzhou.response("/context/contracts/{contract_id}/balance");
  assert.equal(hangzhou.validate("4000000000000", balance, f), []);
  assert.equal(hangzhou.validate("-1", balance, f), [{ path: "$", message: '"-1" is not a positive decimal big number' }]);
  assert.equal(hangzhou.validate("01", balance, f).length, 1);
  const delegates = hangzhou.response("/context/delegates");
  assert.equal(hangzhou.validate(["tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5"], delegates, f).map((e) => e.path), ["$[1]"]);
});

// Octez's own answers (tezt regressions of v12.4, Hangzhou sandbox) against Octez's own schemas.
type Exchange = { method: string; path: string; response?: unknown };
function exchanges(file: string): Exchange[] {
  return (JSON.parse(readFileSync(new URL(`examples/${file}`, REF), "utf8")) as { exchanges: Exchange[] }).exchanges;
}
const BLOCK = "/chains/main/blocks/head";
const captured = ["hangzhou-sandbox-constants-rights-levels.json", "hangzhou-sandbox-delegates.json", "hangzhou-sandbox-contracts.json", "hangzhou-sandbox-votes.json"]
  .flatMap(exchanges)
  .filter((e) => e.method === "GET" && "response" in e && e.path.startsWith(BLOCK));

test("every captured Octez answer below a block conforms to hangzhou-openapi.json", () => {
  assert.ok(captured.length >= 40, `${captured.length} captured answers`);
  for (const e of captured) {
    const t = hangzhou.template(e.path.slice(BLOCK.length));
    assert.ok(t !== undefined, e.path);
    hangzhou.assertValid(e.response, hangzhou.response(t!), `${e.path} (Octez)`);
  }
});

test("captured Octez mempool answers conform to hangzhou-mempool-openapi.json", () => {
  const ex = exchanges("hangzhou-sandbox-mempool.json").filter((e) => e.method === "GET" && "response" in e);
  assert.ok(ex.length >= 5);
  for (const e of ex) {
    const t = mempool.template(e.path.slice("/chains/main/mempool".length))!;
    if (t === "/pending_operations") {
      // The snapshot lags the v12.4 code: Octez answers a required `outdated` the file does not list.
      assert.equal(paths(mempool, e.response, mempool.response(t)), ['$: unexpected property "outdated"']);
      mempool.assertValid(e.response, pendingOperations(mempool), `${e.path} (Octez)`);
    } else {
      mempool.assertValid(e.response, mempool.response(t), `${e.path} (Octez)`);
    }
  }
});

test("captured chunks of Octez's monitor_operations stream conform to hangzhou-mempool-openapi.json", () => {
  const streams = exchanges("hangzhou-sandbox-mempool.json").flatMap((e) => (e as { response_stream_chunks?: unknown[] }).response_stream_chunks ?? []);
  assert.ok(streams.length >= 3);
  for (const chunk of streams) mempool.assertValid(chunk, mempool.response("/monitor_operations"), "monitor_operations chunk (Octez)");
});

test("spoiled Octez answers fail where they were spoiled", () => {
  const constants = captured.find((e) => e.path.endsWith("/context/constants"))!.response as Record<string, unknown>;
  const schema = hangzhou.response("/context/constants");
  assert.equal(paths(hangzhou, { ...constants, preserved_cycles: "2" }, schema), ['$.preserved_cycles: expected integer, got string "2"']);
  assert.equal(paths(hangzhou, { ...constants, extra: 1 }, schema), ['$: unexpected property "extra"']);
  const { blocks_per_cycle: _, ...missing } = constants;
  assert.equal(paths(hangzhou, missing, schema), ['$: missing required property "blocks_per_cycle"']);
  const period = captured.find((e) => e.path.endsWith("/votes/current_period"))!.response as { voting_period: object };
  const bad = paths(hangzhou, { ...period, voting_period: { ...period.voting_period, kind: "voting" } }, hangzhou.response("/votes/current_period"));
  assert.is(bad[0], "$.voting_period.kind: matches no branch of oneOf (Proposal | exploration | Cooldown | Promotion | Adoption); closest is Proposal:");
  assert.is(bad.length, 2);
  const rights = captured.find((e) => e.path.endsWith("/helpers/endorsing_rights"))!.response as { slots: number[] }[];
  const spoiled = [{ ...rights[0]!, slots: [...rights[0]!.slots, 65536] }];
  assert.equal(paths(hangzhou, spoiled, hangzhou.response("/helpers/endorsing_rights")), ["$[0].slots[" + rights[0]!.slots.length + "]: 65536 is above the maximum 65535"]);
});

test.run();
