import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  defaultRegistry,
  ErrorRegistry,
  errorScope,
  failure,
  TezosError,
  toTezosError,
  traceOf,
} from "../../lib/errors/mod.ts";
import { pkhFields } from "./fixtures.ts";

test("an error's JSON is Octez's {kind, id, ...fields}, with the protocol's prefix", () => {
  const reg = new ErrorRegistry();
  const proto = reg.scope("proto.011-PtHangz2.");
  const notRegistered = proto.define({
    id: "delegate.not_registered",
    kind: "temporary",
    title: "Not a registered delegate",
    description: "The provided public key hash is not the address of a registered delegate.",
    fields: pkhFields,
  });
  const e = notRegistered.error({ pkh: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx" });
  assert.instance(e, TezosError);
  assert.instance(e, Error);
  assert.equal(e.toJson(), [
    { kind: "temporary", id: "proto.011-PtHangz2.delegate.not_registered", pkh: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx" },
  ]);
  assert.ok(notRegistered.is(e.trace[0]!));
  assert.is(reg.get("proto.011-PtHangz2.delegate.not_registered"), notRegistered as unknown);
});

test("withContext puts the new error in front of the trace", () => {
  const reg = new ErrorRegistry();
  const outer = reg.define({ id: "outer", kind: "permanent", title: "Outer", description: "Outer error" });
  const inner = reg.define({ id: "inner", kind: "branch", title: "Inner", description: "Inner error" });
  const e = inner.error().withContext(outer.create());
  assert.equal(e.toJson(), [
    { kind: "permanent", id: "outer" },
    { kind: "branch", id: "inner" },
  ]);
});

test("a duplicate id or a bad kind is refused", () => {
  const reg = new ErrorRegistry();
  reg.define({ id: "x", kind: "temporary", title: "X", description: "X" });
  assert.throws(() => reg.define({ id: "x", kind: "permanent", title: "X", description: "X" }), /duplicate error id x/);
  assert.throws(() => reg.define({ id: "y", kind: "outdated" as "temporary", title: "Y", description: "Y" }), (e: unknown) => e instanceof TypeError);
  assert.throws(() => reg.define({ id: "", kind: "temporary", title: "Y", description: "Y" }), (e: unknown) => e instanceof TypeError);
});

test("any other exception becomes a temporary failure with its message", () => {
  assert.equal(traceOf(new Error("boom")).map((t) => t.toJson()), [{ kind: "temporary", id: "failure", msg: "boom" }]);
  assert.equal(traceOf(new RangeError("too far")).map((t) => t.toJson()), [
    { kind: "temporary", id: "failure", msg: "RangeError: too far" },
  ]);
  assert.equal(traceOf("plain").map((t) => t.toJson()), [{ kind: "temporary", id: "failure", msg: "plain" }]);
  const te = failure.error({ msg: "x" });
  assert.is(toTezosError(te), te);
  assert.equal(toTezosError(new Error("y")).toJson(), [{ kind: "temporary", id: "failure", msg: "y" }]);
});

test("the registry schema is a oneOf with one object case per error, latest first", () => {
  const reg = new ErrorRegistry();
  reg.define({ id: "first", kind: "temporary", title: "First", description: "The first" });
  reg.scope("proto.011-PtHangz2.").define({
    id: "delegate.not_registered",
    kind: "temporary",
    title: "Not a registered delegate",
    description: "Not registered.",
    fields: pkhFields,
  });
  const s = reg.schema();
  assert.is(s["$schema"], "http://json-schema.org/draft-04/schema#");
  const cases = s["oneOf"] as Record<string, unknown>[];
  assert.is(cases.length, 2);
  assert.equal(cases[0], {
    title: "Not a registered delegate",
    description: "Not registered.",
    type: "object",
    properties: {
      kind: { type: "string", enum: ["temporary"] },
      id: { type: "string", enum: ["proto.011-PtHangz2.delegate.not_registered"] },
      pkh: { $ref: "#/definitions/Signature.Public_key_hash" },
    },
    required: ["kind", "id", "pkh"],
    additionalProperties: false,
  });
  assert.equal((cases[1]!["properties"] as Record<string, unknown>)["id"], { type: "string", enum: ["first"] });
  assert.ok((s["definitions"] as Record<string, unknown>)["Signature.Public_key_hash"]);
});

test("the node's registry holds the shell's own errors, and errorScope registers into it", () => {
  for (const id of ["failure", "canceled", "utils.Timeout"]) assert.ok(defaultRegistry.get(id), id);
  const d = errorScope("test.scope.").define({ id: "errors_test", kind: "branch", title: "T", description: "T" });
  assert.is(defaultRegistry.get("test.scope.errors_test"), d as unknown);
});

test.run();
