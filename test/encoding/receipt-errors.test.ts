/**
 * Errors in receipts travel as BSON, which gives back an empty array as `{}`; reading them goes
 * through their registered definitions, as Octez does, so clients see the JSON they would see
 * from Octez (an empty Micheline sequence stays `[]`).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeBinary, encodeBinary } from "../../lib/encoding/codec.ts";
import { errorTrace } from "../../lib/encoding/hangzhou/receipts/errors.ts";
import { list } from "../../lib/encoding/list.ts";
import { int31 } from "../../lib/encoding/integers.ts";
import { hangzhouMicheline } from "../../lib/encoding/micheline.ts";
import { runtimeError } from "../../lib/michelson/script/errors.ts";

test("a list and a Micheline sequence read {} as empty, as ocplib-json-typed reads BSON's empty array", () => {
  assert.equal(list(int31).fromJson({}), []);
  assert.equal(hangzhouMicheline.fromJson({}), []);
  assert.throws(() => list(int31).fromJson({ a: 1 }));
});

test("a runtime_error whose code holds an empty sequence reads back from binary with [] in its JSON", () => {
  const code = [{ prim: "parameter", args: [{ prim: "unit" }] }, { prim: "code", args: [[{ prim: "IF", args: [[], [{ prim: "DROP" }]] }]] }];
  const err = runtimeError.create({ contract_handle: "KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi", contract_code: code }).toJson();
  const back = decodeBinary(errorTrace, encodeBinary(errorTrace, [err]));
  assert.equal(back, [err]);
  assert.equal(JSON.stringify(back).includes('"args":[[],'), true);
});

test("an error with an unknown id reads back as its BSON form", () => {
  const err = { kind: "temporary", id: "proto.011-PtHangz2.not_a_registered_error", list: [] };
  assert.equal(decodeBinary(errorTrace, encodeBinary(errorTrace, [err])), [{ kind: "temporary", id: "proto.011-PtHangz2.not_a_registered_error", list: {} }]);
});

test.run();
