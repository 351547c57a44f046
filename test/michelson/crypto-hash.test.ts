import { readFileSync } from "node:fs";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { blake2b, keccak256, sha256, sha3_256, sha512 } from "../../lib/michelson/crypto/hash.ts";

interface Case { id: string; file?: string; storage?: string; input?: string; expected_storage?: string }
const { cases }: { cases: Case[] } = JSON.parse(
  readFileSync(new URL("../vectors/michelson/cases.json", import.meta.url), "utf8"),
);
const hexOf = (b: Uint8Array) => "0x" + bytesToHex(b);
const bytesOf = (lit: string) => hexToBytes(lit.slice(2));

const HASHES: Record<string, (b: Uint8Array) => Uint8Array> = {
  "opcodes/keccak.tz": keccak256,
  "opcodes/sha3.tz": sha3_256,
};
const hashCases = cases.filter((c) => c.file !== undefined && c.file in HASHES);

test("the Octez suite has keccak.tz and sha3.tz cases", () => {
  assert.is(hashCases.length, 6);
});

for (const c of hashCases) {
  test(`${c.file} stores ${c.expected_storage} for ${c.input} (${c.id})`, () => {
    assert.is(`(Some ${hexOf(HASHES[c.file!]!(bytesOf(c.input!)))})`, c.expected_storage);
  });
}

/** PACK of a Michelson string: 0x05, the string tag 0x01, a 4-byte length, the UTF-8 bytes. */
function packString(s: string): Uint8Array {
  const utf8 = new TextEncoder().encode(s);
  const out = new Uint8Array(6 + utf8.length);
  out.set([0x05, 0x01]);
  new DataView(out.buffer).setUint32(2, utf8.length);
  out.set(utf8, 6);
  return out;
}

for (const c of cases.filter((c) => c.file === "opcodes/hash_string.tz")) {
  test(`hash_string.tz (PACK; BLAKE2B) stores ${c.expected_storage} for ${c.input}`, () => {
    assert.is(hexOf(blake2b(packString(JSON.parse(c.input!) as string))), c.expected_storage);
  });
}

test("SHA256 and SHA512 give the FIPS 180-2 digests of \"abc\"", () => {
  const abc = new TextEncoder().encode("abc");
  assert.is(bytesToHex(sha256(abc)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.is(
    bytesToHex(sha512(abc)),
    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
  );
});

test("BLAKE2B is the 32-byte BLAKE2b (RFC 7693 parameters) of the empty input", () => {
  assert.is(bytesToHex(blake2b(new Uint8Array(0))), "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
});

test("hash functions refuse what is not a Uint8Array", () => {
  for (const f of [blake2b, sha256, sha512, keccak256, sha3_256]) assert.throws(() => f("00" as unknown as Uint8Array), TypeError);
});

test.run();
