/**
 * P2P identities: peer ids, proof-of-work targets against Octez's formula, stamps found and
 * checked, identity.json read and written as octez-node does (test/vectors/p2p/SOURCES.md).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { blake2b, blake2bWasmReady } from "../../lib/crypto/blake2b.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import {
  checkProofOfWork,
  generateIdentity,
  generateKeyPair,
  generateProofOfWork,
  IdentityFileError,
  identityToJson,
  parseIdentityJson,
  peerIdOf,
  pow2Double,
  powTarget,
  publicKeyOf,
} from "../../lib/p2p/identity.ts";

interface IdVectors {
  identity: { peer_id: string; public_key: string; secret_key: string; proof_of_work_stamp: string };
  proof_of_work: { public_key: string; stamp: string; difficulty: number };
}
const v = JSON.parse(readFileSync(new URL("../vectors/p2p/tezedge-identity.json", import.meta.url), "utf8")) as IdVectors;

test("the peer id is the Base58Check (id…) of BLAKE2b-128 of the public key", async () => {
  await blake2bWasmReady;
  assert.is(peerIdOf(fromHex(v.identity.public_key)), v.identity.peer_id);
  assert.is(toHex(publicKeyOf(fromHex(v.identity.secret_key))), v.identity.public_key);
});

// Octez's `Crypto_box.make_pow_target`, evaluated by Python 3 (`math.modf`, `math.pow`: the C
// library's pow, which OCaml's `**` calls; glibc 2.3x) for these difficulties. 0.5, 24.5 and
// 24.60135260531742 are where V8's Math.pow is one unit in the last place away from the C pow.
const TARGETS: [number, string][] = [
  [0, "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"],
  [0.5, "b504f333f9de6bffffffffffffffffffffffffffffffffffffffffffffffffff"],
  [1.1, "776da0045eac29ffffffffffffffffffffffffffffffffffffffffffffffffff"],
  [8, "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"],
  [24, "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"],
  [24.5, "b504f333f9de6bffffffffffffffffffffffffffffffffffffffffffff"],
  [24.60135260531742, "a8bd1dd7dfea0bffffffffffffffffffffffffffffffffffffffffffff"],
  [25.75, "4c1bf828c6dc55ffffffffffffffffffffffffffffffffffffffffffff"],
  [26, "3fffffffffffffffffffffffffffffffffffffffffffffffffffffffff"],
  [26.3, "33fbf1799ca698ffffffffffffffffffffffffffffffffffffffffffff"],
  [202, "3fffffffffffff"],
  [202.75, "260dfc14636e2a"],
  [255.5, "1"],
  [256, "0"],
];

test("powTarget follows Octez's make_pow_target", () => {
  for (const [d, hex] of TARGETS) assert.is(powTarget(d).toString(16), hex, `difficulty ${d}`);
  assert.is(powTarget(24), (1n << 232n) - 1n);
});

test("powTarget refuses difficulties outside 0..256", () => {
  for (const d of [-0.5, 256.5, NaN, Infinity]) assert.throws(() => powTarget(d), (e: unknown) => e instanceof RangeError);
});

test("pow2Double rounds 2^y to the nearest double", () => {
  assert.is(pow2Double(54), 1n << 54n);
  assert.is(pow2Double(53.5), 12738103345051546n);
  // 2^(54 - 0.6013526053174179) = 11873932990216834.9…: the nearest double (an even integer) is …834
  assert.is(pow2Double(54 - 0.6013526053174179), 11873932990216834n);
});

test("checkProofOfWork compares BLAKE2b(pk ‖ stamp) as a little-endian integer with the target", () => {
  const pk = fromHex(v.proof_of_work.public_key);
  const stamp = fromHex(v.proof_of_work.stamp);
  assert.ok(checkProofOfWork(pk, stamp, 24));
  assert.ok(checkProofOfWork(pk, stamp, powTarget(24)));
  assert.not.ok(checkProofOfWork(pk, stamp, 27));
  // The hash's last byte is its most significant: the target is met exactly when the number is small enough.
  const h = blake2b(32, pk, stamp);
  let n = 0n;
  for (let i = 31; i >= 0; i--) n = (n << 8n) | BigInt(h[i]!);
  assert.ok(checkProofOfWork(pk, stamp, n));
  assert.not.ok(checkProofOfWork(pk, stamp, n - 1n));
});

test("difficulty 0 accepts any stamp", () => {
  const { publicKey } = generateKeyPair();
  for (const stamp of [new Uint8Array(24), new Uint8Array(24).fill(0xff), crypto.getRandomValues(new Uint8Array(24))]) {
    assert.ok(checkProofOfWork(publicKey, stamp, 0));
  }
});

test("a stamp found at difficulty 8 checks at 8 and fails at a higher target", async () => {
  const { publicKey } = generateKeyPair();
  const stamp = await generateProofOfWork(publicKey, 8, { start: new Uint8Array(24) });
  assert.ok(stamp);
  assert.ok(checkProofOfWork(publicKey, stamp!, 8));
  // The search counts up from the start: every stamp before it fails.
  const before = stamp!.slice();
  let tried = 0;
  for (let n = new Uint8Array(24); toHex(n) !== toHex(before) && tried < 100_000; tried++) {
    assert.not.ok(checkProofOfWork(publicKey, n, 8));
    for (let i = 23; i >= 0; i--) if ((n[i] = (n[i]! + 1) & 0xff) !== 0) break;
  }
  // Some difficulty above 8 refuses it (the chance that it meets 40 is 2^-32).
  assert.not.ok(checkProofOfWork(publicKey, stamp!, 40));
});

test("generateProofOfWork yields with progress, stops on a signal, gives up after maxAttempts", async () => {
  const { publicKey } = generateKeyPair();
  const progress: number[] = [];
  const none = await generateProofOfWork(publicKey, 256, { yieldEvery: 100, maxAttempts: 350, onProgress: (n) => progress.push(n) });
  assert.is(none, undefined);
  assert.equal(progress, [100, 200, 300]);
  const ctl = new AbortController();
  let seen = 0;
  const search = generateProofOfWork(publicKey, 256, {
    yieldEvery: 50,
    onProgress: (n) => {
      seen = n;
      if (n >= 200) ctl.abort(new Error("stop"));
    },
    signal: ctl.signal,
  });
  const failure = await search.then(() => undefined, (e: unknown) => e);
  assert.ok(failure instanceof Error && failure.message === "stop");
  assert.is(seen, 200);
});

test("generateIdentity: consistent keys, peer id and stamp", async () => {
  const id = await generateIdentity(4);
  assert.is(toHex(publicKeyOf(id.secretKey)), toHex(id.publicKey));
  assert.is(id.peerId, peerIdOf(id.publicKey));
  assert.ok(checkProofOfWork(id.publicKey, id.proofOfWorkStamp, 4));
});

const OCTEZ_TEXT = `{ "peer_id": "idtqxHUjbjbCfaDn4jczoPGsnhacKX",
  "public_key":
    "a072c7b3e477142689cadee638078b377df5e5793e3cea529d0b718cde59f212",
  "secret_key":
    "d37c77a8643c7f7fce9219e9769ed4dd23bc542265da47a64a2613bd199ad74e",
  "proof_of_work_stamp": "0cfe810d9b4591f0f50721b6811f2981a4274e9d0593bbd0" }`;

test("identity.json: reads Octez's file and writes it back in octez-node's layout", () => {
  const id = parseIdentityJson(JSON.stringify(v.identity));
  assert.is(id.peerId, v.identity.peer_id);
  assert.is(toHex(id.publicKey), v.identity.public_key);
  assert.is(toHex(id.secretKey), v.identity.secret_key);
  assert.is(toHex(id.proofOfWorkStamp), v.identity.proof_of_work_stamp);
  assert.is(identityToJson(id), OCTEZ_TEXT);
  assert.equal(parseIdentityJson(OCTEZ_TEXT), id);
});

test("identity.json round trip of a generated identity", async () => {
  const id = await generateIdentity(2);
  const back = parseIdentityJson(identityToJson(id), { expectedPow: 2 });
  assert.equal(back, id);
});

test("identity.json without peer_id: computed from the public key (Octez's opt field)", () => {
  const { peer_id: _, ...rest } = v.identity;
  assert.is(parseIdentityJson(JSON.stringify(rest)).peerId, v.identity.peer_id);
});

function refusal(text: string, options = {}): IdentityFileError {
  try {
    parseIdentityJson(text, options);
  } catch (e) {
    if (e instanceof IdentityFileError) return e;
    throw e;
  }
  throw new Error("accepted");
}

test("bad identity files: a clear error naming the field", () => {
  const good = v.identity as Record<string, string>;
  const variant = (patch: Record<string, unknown>) => JSON.stringify({ ...good, ...patch });
  assert.match(refusal("{ not json").message, /not JSON/);
  assert.is(refusal("[1]").field, undefined);
  assert.is(refusal(variant({ public_key: undefined })).field, "public_key");
  assert.match(refusal(variant({ public_key: undefined })).message, /missing field "public_key"/);
  assert.is(refusal(variant({ public_key: "zz" })).field, "public_key");
  assert.is(refusal(variant({ secret_key: good["secret_key"]!.slice(2) })).field, "secret_key");
  assert.is(refusal(variant({ secret_key: 12 })).field, "secret_key");
  assert.is(refusal(variant({ proof_of_work_stamp: "00" })).field, "proof_of_work_stamp");
  assert.is(refusal(variant({ peer_id: "tz1abc" })).field, "peer_id");
  const other = peerIdOf(generateKeyPair().publicKey);
  const e = refusal(variant({ peer_id: other }));
  assert.is(e.field, "peer_id");
  assert.match(e.message, new RegExp(`does not match the public key \\(whose peer id is ${v.identity.peer_id}\\)`));
  assert.is(refusal(variant({ secret_key: toHex(generateKeyPair().secretKey) })).field, "secret_key");
  assert.is(refusal(variant({ extra: 1 })).field, "extra");
  const pow = refusal(JSON.stringify(v.identity), { expectedPow: 26 });
  assert.is(pow.field, "proof_of_work_stamp");
  assert.match(pow.message, /expected level: 26\.00/);
});

test.run();
