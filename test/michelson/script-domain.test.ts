/**
 * Instructions the reference run-script cases do not reach: OPEN_CHEST on real chests (opened,
 * bogus cipher, bogus opening) and CHECK_SIGNATURE with secp256k1 and P-256 keys (the reference
 * cases sign with Ed25519 only).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { execute } from "../../lib/michelson/script/execute.ts";
import { parseScript } from "../../lib/michelson/script/script.ts";
import { unparseData } from "../../lib/michelson/data/unparse-data.ts";
import { parseAndExpand } from "../../lib/michelson/text/macros.ts";
import { printMicheline } from "../../lib/michelson/text/print.ts";
import { createChestAndKey, createChestKey } from "../../lib/michelson/crypto/timelock.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { formatPublicKey, formatSignature, parseSecretKey, publicKeyOf } from "../../lib/crypto/keys.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { dataText, runContext } from "./script-context.ts";

function run(src: string, storage: string, input: string): string {
  const ctx = runContext();
  const script = parseScript(ctx, parseAndExpand(src));
  const r = execute(ctx, script, { entrypoint: "default", parameter: dataText(input), storage: dataText(storage) });
  return printMicheline(unparseData(script.storageTy, r.storage, "Readable"));
}

const OPEN = "parameter (pair chest_key chest nat); storage (or bytes bool); code { CAR; UNPAIR 3; OPEN_CHEST; NIL operation; PAIR }";
const payload = new TextEncoder().encode("sealed bid: 42 tez");
const { chest, chestKey } = createChestAndKey(payload, 20);
const param = (key: Uint8Array, c: Uint8Array, time: number) => `Pair 0x${toHex(key)} 0x${toHex(c)} ${time}`;

test("OPEN_CHEST with the key for the chest's time gives Left and the sealed bytes", () => {
  assert.is(run(OPEN, "Right False", param(chestKey, chest, 20)), `Left 0x${toHex(payload)}`);
});

test("OPEN_CHEST with a time the key's proof was not made for is a bogus opening: Right True", () => {
  assert.is(run(OPEN, "Left 0x", param(chestKey, chest, 21)), "Right True");
});

test("OPEN_CHEST with a valid key for a longer time unlocks another value, a bogus cipher: Right False", () => {
  assert.is(run(OPEN, "Left 0x", param(createChestKey(chest, 21), chest, 21)), "Right False");
});

test("OPEN_CHEST on a chest whose ciphertext was altered is a bogus cipher: Right False", () => {
  const altered = chest.slice();
  altered[altered.length - 1]! ^= 1;
  assert.is(run(OPEN, "Left 0x", param(chestKey, altered, 20)), "Right False");
});

const CHECK = "parameter (pair key signature bytes); storage bool; code { CAR; UNPAIR 3; CHECK_SIGNATURE; NIL operation; PAIR }";

for (const sk of ["spsk2rBDDeUqakQ42nBHDGQTtP3GErb6AahHPwF9bhca3Q5KA5HESE", "p2sk2obfVMEuPUnadAConLWk7Tf4Dt3n4svSgJwrgpamRqJXvaYcg1"]) {
  const secret = parseSecretKey(sk);
  const pk = formatPublicKey(publicKeyOf(secret));
  test(`CHECK_SIGNATURE accepts a ${secret.curve} signature of the bytes under ${pk.slice(0, 4)}… and refuses it over other bytes`, async () => {
    const message = new TextEncoder().encode("transfer 10 to tz1");
    const sig = formatSignature(await sign(secret, message, new Uint8Array()), secret.curve);
    assert.is(run(CHECK, "False", `Pair "${pk}" "${sig}" 0x${toHex(message)}`), "True");
    assert.is(run(CHECK, "True", `Pair "${pk}" "${sig}" 0x${toHex(message)}00`), "False");
  });
}

test.run();
