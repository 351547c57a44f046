/**
 * The node count of Hangzhou's typed-IR size model (`Script_typed_ir_size`, charged by
 * `parse_code` as `nodes_cost`) for reference contracts, against counts worked out by hand from
 * Octez v12.4's `script_typed_ir_size.ml` (and confirmed by the recorded traces of the python
 * tests: the gas before their first instruction matches only with these counts), and the
 * `value_size` nodes `script_size` charges for a storage value.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parseScriptNode } from "../../lib/michelson/script/script.ts";
import { typecheckLambda } from "../../lib/michelson/script/lambda.ts";
import { type LambdaLogger, scriptIrNodes, stackNodes, TypeLog, tyNodes, tyNodesOfMicheline, valueSizeNodes } from "../../lib/michelson/gas/ir-size.ts";
import { parseData } from "../../lib/michelson/data/parse-data.ts";
import { parseTy } from "../../lib/michelson/data/parse-type.ts";
import { dataText, runContext, scriptOfFile } from "./script-context.ts";

function irNodes(file: string): number {
  const ctx = runContext();
  const log = new TypeLog();
  const parsed = parseScriptNode(ctx, scriptOfFile(file), { legacy: true, typeLogger: log.logger });
  const n = scriptIrNodes({ code: parsed.parts.code, paramTy: parsed.paramTy, storageTy: parsed.storageTy, views: parsed.viewNodes.values() }, log, {
    loc: (x) => parsed.locs.get(x as object) ?? -1,
    lambdaLog: (a, r, code) => {
      const l = new TypeLog();
      typecheckLambda(ctx, a, r, code, { legacy: true, locations: parsed.locs, typeLogger: l.logger });
      return l;
    },
  });
  assert.is(log.misses, 0, "every instruction found in the type map");
  return n;
}

test("cons.tz: 6 code nodes, stacks of 6 and 7, 5 instructions with CONS's list type: 31 nodes", () => {
  assert.is(irNodes("opcodes/cons.tz"), 31);
});

test("self_with_default_entrypoint.tz counts SELF's entrypoint types and an IF's join stack: 95 nodes", () => {
  assert.is(irNodes("opcodes/self_with_default_entrypoint.tz"), 95);
});

test("create_contract.tz counts the literal script's types, stacks and code: 86 nodes", () => {
  assert.is(irNodes("opcodes/create_contract.tz"), 86);
});

test("type and stack node counts: comb pairs in Micheline are nested pairs, the bottom of a stack is a node", () => {
  assert.is(tyNodesOfMicheline({ prim: "pair", args: [{ prim: "nat" }, { prim: "nat" }, { prim: "nat" }] }), 5);
  assert.is(tyNodesOfMicheline({ prim: "sapling_state", args: [{ int: "8" }] }), 1);
  const t = parseTy(dataText("map string (pair nat (option int))"));
  assert.is(tyNodes(t), 6);
  assert.is(stackNodes({ ty: t, rest: { ty: t, rest: null } }), 15);
  assert.is(stackNodes(null), 1);
});

test("value_size nodes: one per value node, a lambda adds its code, stacks and instructions", () => {
  const ctx = runContext();
  const log = () => new TypeLog();
  const t = parseTy(dataText("map string (pair nat (option int))"));
  const v = parseData(ctx, t, dataText('{ Elt "a" (Pair 1 (Some 2)) ; Elt "b" (Pair 3 None) }'));
  // map 1 + 2 keys + 2 × (pair 1 + nat 1) + (Some 2) + (None 1)
  assert.is(valueSizeNodes(t, v, log), 10);
  const lt = parseTy(dataText("lambda int int"));
  const lam = parseData(ctx, lt, dataText("{ PUSH int 1 ; ADD }"));
  const checker: LambdaLogger = (a, r, code, locations) => {
    const l = new TypeLog();
    typecheckLambda(ctx, a, r, code, { legacy: true, locations, typeLogger: l.logger });
    return l;
  };
  // 1 + Micheline 5 (seq, PUSH, int, 1, ADD) + stacks 3 + 3 + PUSH (1 + int 1) + ADD 1 + IHalt 1
  assert.is(valueSizeNodes(lt, lam, checker), 16);
});

test.run();
