/**
 * `octez-client hash script` against its 298 recorded hashes (typecheck-cases.json
 * `script_hash`): the expr-prefixed base58 of the BLAKE2b-256 of the binary-encoded expanded
 * toplevel sequence, the file read without the indentation check.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { encodeMicheline } from "../../lib/encoding/micheline.ts";
import { MichelsonTextError, parseAndExpand } from "../../lib/michelson/text/mod.ts";

const REF = new URL("../vectors/michelson/", import.meta.url).pathname;
const cases = (JSON.parse(readFileSync(REF + "typecheck-cases.json", "utf8")) as {
  script_hash: { file?: string; script?: string; expected_hash: string }[];
}).script_hash;

const scriptHash = (src: string): string => b58encode(B58.scriptExprHash, blake2b256(encodeMicheline(parseAndExpand(src, { check: false }))));

test("all 298 recorded script hashes are reproduced", () => {
  assert.is(cases.length, 298);
  for (const c of cases) {
    const src = c.file !== undefined ? readFileSync(REF + "contracts/" + c.file, "utf8") : c.script!;
    assert.is(scriptHash(src), c.expected_hash, c.file ?? c.script);
  }
});

test("badly_indented.tz hashes without the check but is refused with it", () => {
  const src = readFileSync(REF + "contracts/ill_typed/badly_indented.tz", "utf8");
  assert.is(scriptHash(src), "exprv8K6ceBpFH5SFjQm4BRYSLJCHQBFeQU6BFTdvQSRPaPkzdLyAL");
  assert.throws(() => parseAndExpand(src), (e: unknown) => e instanceof MichelsonTextError);
});

test.run();
