/**
 * PACK / UNPACK and expression hashes against Octez's recorded outputs: `hash data` (typecheck-cases
 * `hash_data`), the bytes PACK leaves on the stack in the traced runs of `packunpack_rev.tz` and
 * `packunpack_rev_cty.tz` (regtest-outputs.json), and the inputs of `packunpack.tz` (cases.json).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { parseMichelineText } from "../../lib/michelson/text/parse.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { parseData } from "../../lib/michelson/data/parse-data.ts";
import { packData, scriptExprHashOf, unpackData } from "../../lib/michelson/data/pack.ts";
import { parseTy } from "../../lib/michelson/data/parse-type.ts";
import type { Ty } from "../../lib/michelson/ty.ts";
import type { Lambda, Value } from "../../lib/michelson/value.ts";
import { refJson, testContext } from "./data-context.ts";

const Pack = suite("PACK, UNPACK and expression hashes (Octez regression outputs)");

const ty = (s: string): Ty => parseTy(parseMichelineText(s));
function read(t: Ty, data: string): Value {
  if (t.prim === "lambda") {
    // Packing prints the code as written: a lambda value needs no type checker for that.
    const l: Lambda = { lambda: true, argTy: t.args[0]!, retTy: t.args[1]!, code: parseMichelineText(data), compiled: undefined };
    return l;
  }
  return parseData(testContext(), t, parseMichelineText(data));
}

const hashCase = refJson<{ hash_data: { type: string; data: string; expected_packed: string; expected_script_expr_hash: string; expected_raw_blake2b: string }[] }>(
  "typecheck-cases.json",
).hash_data[0]!;

Pack(`hash data ${hashCase.data} of type ${hashCase.type} packs and hashes as the client printed`, () => {
  const packed = packData(ty(hashCase.type), read(ty(hashCase.type), hashCase.data));
  assert.is("0x" + toHex(packed), hashCase.expected_packed);
  assert.is(scriptExprHashOf(packed), hashCase.expected_script_expr_hash);
});

const outputs = refJson<{ outputs: Record<string, { output: string }> }>("regtest-outputs.json").outputs;
function packedIn(fragment: string): Set<string> {
  const found = new Set<string>();
  for (const [k, v] of Object.entries(outputs)) {
    if (!k.includes(fragment)) continue;
    for (const m of v.output.matchAll(/0x(05[0-9a-f]*)\s+@packed\b/g)) found.add(m[1]!);
  }
  return found;
}

const KH = '"tz1cxcwwnzENRdhe2Kb8ZdTrdNy4bFNyScx5"';
const PK = '"edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav"';
const SIG = '"edsigthTzJ8X7MPmNeEwybRAvdxS1pupqcM5Mk4uCuyZAe7uEk68YpuGDeViW8wSXMrCi5CwoNgqs8V2w8ayB5dMJzrYCHhD8C7"';

// The parameters of packunpack_rev.tz and packunpack_rev_cty.tz, field by field, as the tests pass them.
const VECTORS: [file: string, type: string, data: string][] = [
  ["packunpack_rev.tz", "int", "-1"],
  ["packunpack_rev.tz", "nat", "1"],
  ["packunpack_rev.tz", "string", '"foobar"'],
  ["packunpack_rev.tz", "bytes", "0x00AABBCC"],
  ["packunpack_rev.tz", "mutez", "1000"],
  ["packunpack_rev.tz", "bool", "False"],
  ["packunpack_rev.tz", "key_hash", KH],
  ["packunpack_rev.tz", "timestamp", '"2019-09-09T08:35:33Z"'],
  ["packunpack_rev.tz", "address", KH],
  ["packunpack_rev.tz", "int", "0"],
  ["packunpack_rev_cty.tz", "key", PK],
  ["packunpack_rev_cty.tz", "unit", "Unit"],
  ["packunpack_rev_cty.tz", "signature", SIG],
  ["packunpack_rev_cty.tz", "option signature", `Some ${SIG}`],
  ["packunpack_rev_cty.tz", "option signature", "None"],
  ["packunpack_rev_cty.tz", "list unit", "{ Unit }"],
  ["packunpack_rev_cty.tz", "list unit", "{}"],
  ["packunpack_rev_cty.tz", "set bool", "{ True }"],
  ["packunpack_rev_cty.tz", "pair int int", "Pair 19 10"],
  ["packunpack_rev_cty.tz", "pair int int", "Pair 40 -10"],
  ["packunpack_rev_cty.tz", "or key_hash timestamp", `Left ${KH}`],
  ["packunpack_rev_cty.tz", "or key_hash timestamp", 'Right "2019-09-09T08:35:33Z"'],
  ["packunpack_rev_cty.tz", "map int string", '{ Elt 0 "foo" ; Elt 1 "bar" }'],
  ["packunpack_rev_cty.tz", "lambda string bytes", "{ PACK }"],
  ["packunpack_rev_cty.tz", "lambda string bytes", "{ DUP ; DROP ; PACK }"],
];

for (const [file, type, data] of VECTORS) {
  Pack(`PACK of ${data} : ${type} is among the bytes ${file} packed`, () => {
    const t = ty(type);
    const packed = toHex(packData(t, read(t, data)));
    assert.ok(packedIn(file).has(packed), `0x${packed} was not packed by ${file}`);
  });
}

for (const [, type, data] of VECTORS.filter(([, t]) => !t.startsWith("lambda"))) {
  Pack(`UNPACK ${type} of PACK ${data} gives the value back`, () => {
    const t = ty(type);
    const packed = packData(t, read(t, data));
    const back = unpackData(testContext(), t, packed);
    assert.ok(back !== null);
    assert.is(toHex(packData(t, back!.some)), toHex(packed));
  });
}

Pack("UNPACK refuses what packunpack_rev.tz asserts it refuses", () => {
  const ctx = testContext();
  const nat = ty("nat");
  assert.is(unpackData(ctx, nat, packData(ty("int"), -1n)), null); // PUSH int -1; PACK; UNPACK nat
  assert.ok(unpackData(ctx, nat, packData(ty("int"), 0n)) !== null); // PUSH int 0; PACK; UNPACK nat
  assert.is(unpackData(ctx, nat, new Uint8Array(0)), null); // 0x
  assert.is(unpackData(ctx, nat, Uint8Array.of(4)), null); // 0x04
  assert.is(unpackData(ctx, nat, Uint8Array.of(5)), null); // 0x05
});

interface RunCase { id: string; file?: string; input: string; expected_success?: boolean; expected_error?: string }
const runs = refJson<{ cases: RunCase[] }>("cases.json").cases.filter((c) => c.file === "opcodes/packunpack.tz");

for (const c of runs) {
  Pack(`${c.id} packunpack.tz: PACK of the first component ${c.expected_error === undefined ? "equals" : "differs from"} the given bytes`, () => {
    const t = ty("pair (pair (pair string (list int)) (set nat)) bytes");
    const v = read(t, c.input) as readonly [Value, Uint8Array];
    const packed = packData(t.args[0]!, v[0]);
    assert.is(toHex(packed) === toHex(v[1]), c.expected_error === undefined);
    if (c.expected_error === undefined) assert.ok(unpackData(testContext(), t.args[0]!, v[1]) !== null);
  });
}

Pack("UNPACK of a lambda with an annotation that is not valid text gives None (test_bad_annotation)", () => {
  const t = ty("lambda unit unit");
  assert.is(unpackData(testContext(), t, fromHex("05020000000e034f03420416000000042566ffff")), null);
});

Pack.run();
