/**
 * The octez-client pretty printer against Octez's recorded outputs: `normalize` outputs,
 * `convert script|data` (michelson / JSON / binary), the 920 storages printed by `run script`,
 * and the 380 contracts read back after printing.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeMicheline, encodeMicheline, hangzhouMicheline, type Micheline } from "../../lib/encoding/micheline.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import {
  parseAndExpand,
  parseMichelineText,
  parseScriptText,
  printMicheline,
  printStringLiteral,
} from "../../lib/michelson/text/mod.ts";

const REF = new URL("../vectors/michelson/", import.meta.url).pathname;
const tc = JSON.parse(readFileSync(REF + "typecheck-cases.json", "utf8")) as {
  [section: string]: { [k: string]: unknown }[];
};
const runCases = (JSON.parse(readFileSync(REF + "cases.json", "utf8")) as { cases: { expected_storage?: unknown }[] }).cases;

const walk = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : p.endsWith(".tz") ? [p] : [];
    });

test("normalize outputs read back and print identically (data, scripts, types)", () => {
  let n = 0;
  for (const section of ["normalize_data", "normalize_script", "normalize_type"]) {
    for (const c of tc[section]!) {
      const out = c["expected_output"] as string;
      if (out.includes("Fatal error")) continue; // a recorded failure, not a printed value
      const node = section === "normalize_script" ? parseScriptText(out) : parseMichelineText(out);
      assert.fixture(printMicheline(node) + "\n", out);
      n++;
    }
  }
  assert.is(n, 17);
});

test("convert cases: michelson, JSON and binary forms give each other exactly", () => {
  assert.is(tc["convert"]!.length, 2);
  for (const c of tc["convert"]!) {
    const michelson = c["michelson"] as string;
    const binary = (c["binary"] as string).slice(2);
    const json = JSON.parse(c["json"] as string);
    const fromText = parseAndExpand(michelson, { kind: c["kind"] === "script" ? "script" : "expression" });
    assert.is(toHex(encodeMicheline(fromText)), binary);
    assert.equal(hangzhouMicheline.toJson(fromText), json);
    assert.fixture(printMicheline(decodeMicheline(fromHex(binary))), michelson);
    assert.fixture(printMicheline(hangzhouMicheline.fromJson(json)), michelson);
    assert.fixture(printMicheline(fromText), michelson);
  }
});

test("the 920 storages printed by `run script` read back and print identically", () => {
  let n = 0;
  for (const c of runCases) {
    const s = c.expected_storage;
    if (typeof s !== "string") continue;
    // The client prints the storage in a box indented by 2 (`storage\n  <expr>`); its lines are
    // then indented by 2 more than Octez's parser accepts, so read it without the check.
    const node = parseMichelineText(s, { check: false });
    assert.is(printMicheline(node, { wrapped: true, indent: 2 }), s);
    n++;
  }
  assert.is(n, 920);
});

test("every contract prints in a form that passes the indentation check and reads back the same", () => {
  const files = walk(REF + "contracts");
  for (const f of files) {
    const script = parseAndExpand(readFileSync(f, "utf8"), { check: false });
    const printed = printMicheline(script);
    const again = parseScriptText(printed);
    assert.equal(again, script, f);
    assert.is(printMicheline(again), printed);
  }
});

test("long primitives break their arguments one per line, beside names of up to 4 characters", () => {
  const lambda: Micheline = {
    prim: "LAMBDA",
    args: [
      { prim: "pair", args: [{ prim: "string" }, { prim: "string" }] },
      { prim: "string" },
      [{ prim: "UNPAIR" }, { prim: "CONCAT" }, { prim: "PUSH", args: [{ prim: "string" }, { string: "x".repeat(10) }] }, { prim: "CONCAT" }],
    ],
  };
  assert.is(
    printMicheline([lambda]),
    [
      "{ LAMBDA",
      "    (pair string string)",
      "    string",
      '    { UNPAIR ; CONCAT ; PUSH string "xxxxxxxxxx" ; CONCAT } }',
    ].join("\n"),
  );
  const pair: Micheline = { prim: "Pair", args: [{ string: "y".repeat(50) }, { string: "z".repeat(30) }] };
  assert.is(printMicheline(pair), `Pair "${"y".repeat(50)}"\n     "${"z".repeat(30)}"`);
  assert.is(printMicheline(pair, { wrapped: true }), `(Pair "${"y".repeat(50)}"\n      "${"z".repeat(30)}")`);
});

test("annotations print after the primitive name; an annotated leaf is parenthesised as an argument", () => {
  const t: Micheline = { prim: "pair", args: [{ prim: "nat", annots: ["%a"] }, { prim: "int" }], annots: [":t"] };
  assert.is(printMicheline(t), "pair :t (nat %a) int");
  assert.is(printMicheline(t, { wrapped: true }), "(pair :t (nat %a) int)");
  assert.is(printMicheline({ prim: "Unit" }, { wrapped: true }), "Unit");
  assert.is(printMicheline([]), "{}");
  assert.is(printMicheline({ bytes: "" }), "0x");
  assert.is(printMicheline({ int: "-12" }), "-12");
});

test("strings print with Octez's escapes and read back", () => {
  const s = 'a"b\\c\nd\re\tf\bg';
  assert.is(printStringLiteral(s), '"a\\"b\\\\c\\nd\\re\\tf\\bg"');
  assert.equal(parseMichelineText(printMicheline({ string: s })), { string: s });
});

test("comments print beside their node", () => {
  const code: Micheline = [{ prim: "CAR" }, { prim: "DUP" }];
  const comment = (n: Micheline): string | undefined => ((n as { prim?: string }).prim === "CAR" ? "[ nat ]" : undefined);
  assert.is(printMicheline(code, { comment }), "{ CAR /* [ nat ] */ ; DUP }");
});

test("a value that is not Micheline is a TypeError", () => {
  assert.throws(() => printMicheline({ foo: 1 } as unknown as Micheline), TypeError);
});

test.run();
