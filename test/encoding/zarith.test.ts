/** Zarith numbers against the examples of OCTEZ-FACTS §C and the Hangzhou tez/gas vectors. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DecodeError, decodeBinary, encodeBinary, fromHex, n, nat, toHex, z } from "../../lib/encoding/mod.ts";
import { mutez } from "../../lib/encoding/hangzhou/mod.ts";

const nVectors: [bigint, string][] = [[0n, "00"], [33n, "21"], [407n, "9703"], [732n, "dc05"], [7322135n, "97f4be03"]];

test("N encodes Octez's examples", () => {
  for (const [v, hex] of nVectors) assert.is(toHex(encodeBinary(n, v)), hex, `${v}`);
});

test("N decodes Octez's examples", () => {
  for (const [v, hex] of nVectors) assert.is(decodeBinary(n, fromHex(hex)), v, hex);
});

test("N round-trips numbers beyond 2^53 and 2^64", () => {
  for (const v of [2n ** 53n + 1n, 2n ** 64n + 12345n, 10n ** 40n]) assert.is(decodeBinary(n, encodeBinary(n, v)), v);
});

test("Z encodes the sign in the first byte", () => {
  assert.is(toHex(encodeBinary(z, 0n)), "00");
  assert.is(toHex(encodeBinary(z, 1n)), "01");
  assert.is(toHex(encodeBinary(z, -1n)), "41");
  assert.is(toHex(encodeBinary(z, 1238n)), "9613");
  assert.is(toHex(encodeBinary(z, 8920392083423078n)), "a6fd9d9694c3d81f");
  for (const v of [-64n, 63n, 64n, -8920392083423078n, -(10n ** 30n)]) assert.is(decodeBinary(z, encodeBinary(z, v)), v);
});

test("JSON forms are decimal strings", () => {
  assert.is(n.toJson(7322135n), "7322135");
  assert.is(z.fromJson("-12"), -12n);
  assert.throws(() => n.fromJson("-1"), (e: unknown) => e instanceof DecodeError);
  assert.throws(() => n.fromJson("1e3"), (e: unknown) => e instanceof DecodeError);
});

test("a trailing zero byte is rejected as non-canonical", () => {
  assert.throws(() => decodeBinary(n, fromHex("8000")), (e: unknown) => e instanceof DecodeError && /canonical/.test(e.message));
  assert.throws(() => decodeBinary(z, fromHex("c000")), (e: unknown) => e instanceof DecodeError);
});

test("N limited to 10 bytes rejects an 11-byte number", () => {
  const limited = nat({ maxBytes: 10 });
  const big = 2n ** 70n; // 11 bytes
  assert.throws(() => decodeBinary(limited, encodeBinary(n, big)), (e: unknown) => e instanceof DecodeError && /10 bytes/.test(e.message));
  assert.throws(() => encodeBinary(limited, big), (e: unknown) => e instanceof RangeError);
  assert.is(decodeBinary(limited, encodeBinary(n, 2n ** 69n)), 2n ** 69n);
});

test("mutez rejects amounts above 2^63 - 1", () => {
  assert.throws(() => mutez.fromJson("9223372036854775808"), (e: unknown) => e instanceof DecodeError);
  assert.is(mutez.fromJson("9223372036854775807"), 2n ** 63n - 1n);
});

test.run();
