/**
 * Pending big map changes keep `Some v` apart from a removal, so values that are `Unit` or `None`
 * stay bound (a `big_map nat unit` used as a set, a `big_map nat (option nat)` holding `None`).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parseAndExpand } from "../../lib/michelson/text/macros.ts";
import { parseScript } from "../../lib/michelson/script/script.ts";
import { execute } from "../../lib/michelson/script/execute.ts";
import { unparseData } from "../../lib/michelson/data/unparse-data.ts";
import { printMicheline } from "../../lib/michelson/text/print.ts";
import { dataText, runContext } from "./script-context.ts";

function run(src: string, storage: string, input: string): string {
  const ctx = runContext();
  const script = parseScript(ctx, parseAndExpand(src));
  const r = execute(ctx, script, { entrypoint: "default", parameter: dataText(input), storage: dataText(storage) });
  return printMicheline(unparseData(script.storageTy, r.storage, "Readable"));
}

test("a big map of unit values binds a key updated to Some Unit, and MEM finds it", () => {
  const src = `parameter nat; storage (pair (big_map nat unit) bool); code { UNPAIR; DIP { CAR }; DUP; DIP { DIP { PUSH (option unit) (Some Unit) }; UPDATE }; DIP { DUP }; MEM; SWAP; PAIR; NIL operation; PAIR }`;
  assert.is(run(src, "Pair {} False", "7"), "Pair { Elt 7 Unit } True");
});

test("a big map of option values keeps a key bound to None, and GET answers Some None", () => {
  const src = `parameter nat; storage (pair (big_map nat (option nat)) (option (option nat))); code { UNPAIR; DIP { CAR }; DUP; DIP { DIP { PUSH (option (option nat)) (Some None) }; UPDATE }; DIP { DUP }; GET; SWAP; PAIR; NIL operation; PAIR }`;
  assert.is(run(src, "Pair {} None", "3"), "Pair { Elt 3 None } (Some None)");
});

test("UPDATE with None removes a key the big map literal bound", () => {
  const src = `parameter nat; storage (big_map nat unit); code { UNPAIR; DIP { NONE unit }; UPDATE; NIL operation; PAIR }`;
  assert.is(run(src, "{ Elt 1 Unit ; Elt 2 Unit }", "1"), "{ Elt 2 Unit }");
});

test.run();
