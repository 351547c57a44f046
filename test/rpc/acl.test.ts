/**
 * Octez's RPC ACL: matchers read as resto reads them (its own parsing cases), matched as resto
 * matches them, Octez v12's `secure` list, and the choice of a policy by listening address.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { aclAllows, aclForAddress, ALLOW_ALL, parseAclMatcher, parseAclPolicy, SECURE } from "../../lib/rpc/acl.ts";

const lit = (literal: string) => ({ literal });

test("matchers are read as resto's own parsing cases say", () => {
  const cases: [string, ReturnType<typeof parseAclMatcher>][] = [
    ["/", { method: undefined, path: [], anySuffix: false }],
    [" /", { method: undefined, path: [], anySuffix: false }],
    ["                                    /", { method: undefined, path: [], anySuffix: false }],
    ["GET /", { method: "GET", path: [], anySuffix: false }],
    ["GET/", { method: "GET", path: [], anySuffix: false }],
    ["GET      /", { method: "GET", path: [], anySuffix: false }],
    ["POST /", { method: "POST", path: [], anySuffix: false }],
    ["/**", { method: undefined, path: [], anySuffix: true }],
    ["DELETE /**", { method: "DELETE", path: [], anySuffix: true }],
    ["DELETE/**", { method: "DELETE", path: [], anySuffix: true }],
    ["/a/b/c/d/e", { method: undefined, path: ["a", "b", "c", "d", "e"].map(lit), anySuffix: false }],
    ["/*/a/*/b", { method: undefined, path: ["*", lit("a"), "*", lit("b")], anySuffix: false }],
    ["/*/a/*/b/**", { method: undefined, path: ["*", lit("a"), "*", lit("b")], anySuffix: true }],
    ["PATCH /*/a/*/b/**", { method: "PATCH", path: ["*", lit("a"), "*", lit("b")], anySuffix: true }],
    ["/a%2Ab", { method: undefined, path: [lit("a*b")], anySuffix: false }],
  ];
  for (const [text, expected] of cases) assert.equal(parseAclMatcher(text), expected, text);
  for (const bad of ["", "FOO /a", "GET", "/a/**/b", "/a*b", "/a?b", "/x=1", "GETx /a"]) {
    assert.throws(() => parseAclMatcher(bad), RangeError, bad);
  }
});

test("matching: * is one segment, /** any suffix (the empty one too), the method exact or any", () => {
  const allow = (m: string[], method: string, path: string) => aclAllows({ kind: "deny_all", except: m.map(parseAclMatcher) }, method, path.split("/").filter(Boolean));
  assert.ok(allow(["/users/*/display-name"], "GET", "/users/Alice/display-name"));
  assert.not.ok(allow(["/users/*/display-name"], "GET", "/users/foo/preferences"));
  assert.not.ok(allow(["/users/*/display-name"], "GET", "/users/Bar/display-name/normalised"));
  assert.ok(allow(["/admin/keys/**"], "POST", "/admin/keys"));
  assert.ok(allow(["/admin/keys/**"], "POST", "/admin/keys/gpg"));
  assert.not.ok(allow(["/admin/keys/**"], "POST", "/admin"));
  assert.ok(allow(["GET /foo/**", "DELETE /**"], "DELETE", "/anything/at/all"));
  assert.not.ok(allow(["GET /foo/**", "DELETE /**"], "PUT", "/foo"));
  // a blacklist denies what it lists
  assert.not.ok(aclAllows({ kind: "allow_all", except: [parseAclMatcher("/foo/*")] }, "GET", ["foo", "x"]));
  assert.ok(aclAllows({ kind: "allow_all", except: [parseAclMatcher("/foo/*")] }, "GET", ["foo"]));
});

test("Octez's secure policy: block and context reads, the mempool's reads, injection of operations, and nothing else", () => {
  const s = (method: string, path: string) => aclAllows(SECURE, method, path.split("/").filter(Boolean));
  for (const ok of [
    "GET /chains/main/blocks",
    "GET /chains/main/blocks/head",
    "GET /chains/main/blocks/head/hash",
    "GET /chains/main/blocks/head/header/shell",
    "GET /chains/main/blocks/head/context/contracts/tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx/balance",
    "GET /chains/main/blocks/head~2/operations/3/0",
    "GET /chains/main/blocks/head/votes/listings",
    "GET /chains/main/mempool/pending_operations",
    "GET /monitor/heads/main",
    "GET /describe",
    "GET /describe/chains/main",
    "GET /version",
    "GET /protocols/PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx",
    "POST /injection/operation",
    "POST /chains/main/blocks/head/endorsing_power",
  ]) {
    const [m, p] = ok.split(" ") as [string, string];
    assert.ok(s(m, p), ok);
  }
  for (const no of [
    "POST /injection/block",
    "POST /injection/protocol",
    "POST /private/injection/operation",
    "POST /sandbox/bake",
    "POST /chains/main/mempool/filter",
    "POST /chains/main/mempool/ban_operation",
    "GET /chains/main/blocks/head/helpers/baking_rights",
    "POST /chains/main/blocks/head/helpers/scripts/run_code",
    "POST /chains/main/blocks/head/helpers/preapply/operations",
    "GET /network/connections",
    "GET /stats/memory",
    "GET /workers/prevalidators",
    "DELETE /chains/main/invalid_blocks/BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2",
    "GET /blocks/head/hash",
    "POST /chains/main/blocks/head/context/contracts/KT1/big_map_get/x",
  ]) {
    const [m, p] = no.split(" ") as [string, string];
    assert.not.ok(s(m, p), no);
  }
});

test("the policy is chosen by the listening address: configured entries first, then loopback or secure", () => {
  assert.is(aclForAddress([], "127.0.0.1", 8732), ALLOW_ALL);
  assert.is(aclForAddress([], "127.0.0.5", 8732), ALLOW_ALL);
  assert.is(aclForAddress([], "::1", 8732), ALLOW_ALL);
  assert.is(aclForAddress([], "localhost", 8732), ALLOW_ALL);
  assert.is(aclForAddress([], "0.0.0.0", 8732), SECURE);
  assert.is(aclForAddress([], "::", 8732), SECURE);
  assert.is(aclForAddress([], "192.168.1.2", 8732), SECURE);
  const policy = parseAclPolicy([
    { address: "0.0.0.0:8733", blacklist: ["POST /injection/**"] },
    { address: "0.0.0.0", whitelist: ["GET /version"] },
    { address: "0.0.0.0", blacklist: [] },
    { address: "127.0.0.1", whitelist: [] },
  ]);
  const on8733 = aclForAddress(policy, "0.0.0.0", 8733);
  assert.is(on8733.kind, "allow_all");
  assert.not.ok(aclAllows(on8733, "POST", ["injection", "operation"]));
  const elsewhere = aclForAddress(policy, "0.0.0.0", 9000);
  assert.ok(aclAllows(elsewhere, "GET", ["version"]));
  assert.not.ok(aclAllows(elsewhere, "GET", ["chains", "main", "chain_id"]), "the first entry for the address wins");
  assert.not.ok(aclAllows(aclForAddress(policy, "127.0.0.1", 8732), "GET", ["version"]), "a configured loopback entry replaces allow-all");
});

test("bad rpc.acl entries name what is wrong", () => {
  assert.throws(() => parseAclPolicy({}), /must be a list/);
  assert.throws(() => parseAclPolicy([{ address: "x", whitelist: ["GET /a"], blacklist: [] }]), /rpc\.acl\[0\] needs either/);
  assert.throws(() => parseAclPolicy([{ address: "x", whitelist: ["BOGUS /a"] }]), /rpc\.acl\[0\]\.whitelist\[0\]: invalid method/);
  assert.throws(() => parseAclPolicy([{ address: "x:99999", whitelist: [] }]), /invalid address/);
  assert.throws(() => parseAclPolicy([{ address: "x", whitelist: [], other: 1 }]), /unexpected field other/);
});

test.run();
