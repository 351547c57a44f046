/** Seeds and the random sequence give the values Octez's sandbox was verified to produce (HANGZHOU-FACTS §2). */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { utf8 } from "../../lib/encoding/bytes.ts";
import { TezosError } from "../../lib/errors/mod.ts";
import { drawFromInt32, initialize, int32Bytes, sequence, take, takeInt32 } from "../../lib/protocols/hangzhou/random.ts";
import { levelRandom } from "../../lib/protocols/hangzhou/rights.ts";
import {
  checkSeedAvailable,
  deterministicSeed,
  initialSeeds,
  mixNonce,
  seedFromRevelations,
  seedWindow,
} from "../../lib/protocols/hangzhou/seed.ts";

// HANGZHOU-FACTS §2.1 [verified against the Octez sandbox].
const S = [
  "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8",
  "c8db55740733852aa18aa82e108e4475b1abcf3f1f077ac966e9cecca86612ec",
  "270da140de63850f631d09a95eab26dc39cc92f8feae73875c7cf9aaa3bf4cac",
  "97d50852c159ada8e9f107e98f693b059ba28336c723e6cd0f6353eb3c0cb415",
];

function throwsLike(f: () => unknown, cls: new (...a: never[]) => Error, re?: RegExp): void {
  try {
    f();
  } catch (e) {
    assert.instance(e, cls);
    if (re !== undefined) assert.match((e as Error).message, re);
    return;
  }
  assert.unreachable("expected an exception");
}

test("the initial seeds of cycles 0..3 are the sandbox's", () => {
  assert.equal(initialSeeds(4).map(toHex), S);
});

test("the seed after a cycle without revelations is the deterministic successor", () => {
  assert.is(toHex(deterministicSeed(fromHex(S[2]!))), S[3]);
  assert.is(toHex(seedFromRevelations(fromHex(S[2]!), [])), S[3]);
  assert.is(toHex(seedFromRevelations(fromHex(S[2]!), [undefined, undefined])), S[3]);
});

test("revealed nonces are mixed in the order given, highest level first, skipping unrevealed ones", () => {
  const n8 = new Uint8Array(32).fill(8);
  const n4 = new Uint8Array(32).fill(4);
  const base = fromHex(S[3]!);
  const expected = blake2b256(blake2b256(blake2b256(base, new Uint8Array(32)), n8), n4);
  assert.equal(seedFromRevelations(base, [n8, undefined, n4]), expected);
  assert.equal(mixNonce(deterministicSeed(base), n8), blake2b256(blake2b256(base, new Uint8Array(32)), n8));
  assert.not.equal(seedFromRevelations(base, [n4, n8]), expected);
});

test("the state of level 1's endorsement draw and its sequence 0 match the sandbox's intermediates", () => {
  const t = initialize(fromHex(S[0]!), utf8("level endorsement:"), int32Bytes(0));
  assert.equal(t, levelRandom(fromHex(S[0]!), "endorsement", 0));
  const th = toHex(t);
  assert.ok(th.startsWith("26daf703") && th.endsWith("cf0d"), th);
  const s0 = toHex(sequence(t, 0));
  assert.ok(s0.startsWith("9a42b363") && s0.endsWith("7521"), s0);
});

test("the first draw of slot 0 is the int32 1329893925, i.e. roll 1425 of 2500", () => {
  const s0 = sequence(levelRandom(fromHex(S[0]!), "endorsement", 0), 0);
  const out = take(s0);
  assert.is(new DataView(out.buffer, out.byteOffset).getInt32(0), 1329893925);
  const draw = takeInt32(s0, 2500);
  assert.is(draw.value, 1425);
  assert.equal(draw.next, out);
});

test("sequence n XORs the state's first four bytes with n before hashing", () => {
  const state = fromHex(S[1]!);
  const x = state.slice();
  x[3]! ^= 5;
  assert.equal(sequence(state, 5), blake2b256(x));
  const y = state.slice();
  for (let i = 0; i < 4; i++) y[i]! ^= 0xff;
  assert.equal(sequence(state, -1), blake2b256(y));
});

test("draws follow OCaml's Int32.abs and rem, including the |-2^31| corner case", () => {
  assert.is(drawFromInt32(1329893925, 2500), 1425);
  assert.is(drawFromInt32(-1329893925, 2500), 1425);
  // drop threshold for 2500: 2147483647 - (2147483647 mod 2500) = 2147482500
  assert.is(drawFromInt32(2147482499, 2500), 2147482499 % 2500);
  assert.is(drawFromInt32(2147482500, 2500), undefined);
  assert.is(drawFromInt32(-2147483647, 2500), undefined);
  // Int32.abs min_int = min_int, below the threshold; Int32.rem keeps the dividend's sign.
  assert.is(drawFromInt32(-2147483648, 3), -2);
  assert.is(Object.is(drawFromInt32(-2147483648, 4), 0), true);
  assert.is(drawFromInt32(5, 1), 0);
});

test("bad inputs are refused with TypeError or RangeError", () => {
  throwsLike(() => takeInt32(new Uint8Array(32), 0), RangeError, /bound/);
  throwsLike(() => takeInt32(new Uint8Array(32), 2 ** 31), RangeError);
  throwsLike(() => takeInt32(new Uint8Array(31), 10), RangeError, /32 bytes/);
  throwsLike(() => sequence(new Uint8Array(32), 1.5), TypeError);
  throwsLike(() => initialize("seed" as unknown as Uint8Array), TypeError);
  throwsLike(() => int32Bytes(2 ** 31), RangeError);
  throwsLike(() => initialSeeds(0), RangeError);
  throwsLike(() => mixNonce(new Uint8Array(32), new Uint8Array(31)), RangeError, /nonce/);
});

test("seeds are kept from current - p to current + p (current + p + 1 in cycle 0)", () => {
  assert.equal(seedWindow(0, 2), { oldest: 0, latest: 3 });
  assert.equal(seedWindow(1, 2), { oldest: 0, latest: 3 });
  assert.equal(seedWindow(7, 5), { oldest: 2, latest: 12 });
  checkSeedAvailable(0, 2, 3);
  try {
    checkSeedAvailable(1, 2, 4);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, TezosError);
    assert.equal((e as TezosError).toJson(), [
      { kind: "permanent", id: "proto.011-PtHangz2.seed.unknown_seed", oldest: 0, requested: 4, latest: 3 },
    ]);
  }
});

test.run();
