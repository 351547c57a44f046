/**
 * `typecheck_code` (RPC `helpers/scripts/typecheck_code`): checks a script and returns its type
 * map, the stacks before and after every instruction.
 * @module
 */
import type { Micheline } from "../../encoding/micheline.ts";
import type { ScriptContext } from "../context.ts";
import { TezosError } from "../../errors/mod.ts";
import { illTypedContract, type StackSlot, type TypeMapEntry } from "./errors.ts";
import { parseScriptNode } from "./script.ts";
import { unparseStack } from "./types.ts";

/** A stack slot as `type_map_enc` encodes it: `[type, annots]`. */
function slotPair(s: StackSlot): readonly [Micheline, readonly string[]] {
  return [s.type, s.annots];
}

/** A type map: one entry per checked instruction, as the RPC returns it (last checked first). */
export type TypeMap = TypeMapEntry[];

/**
 * Checks `code` (a whole script) and returns its type map; on error, throws the Octez trace
 * whose `ill_typed_contract` carries the type map so far.
 */
export function typecheckCode(ctx: ScriptContext, code: Micheline, opts: { legacy?: boolean } = {}): TypeMap {
  const map: TypeMap = [];
  const logger = (location: number, before: import("./types.ts").Stack, after: import("./types.ts").Stack): void => {
    map.unshift({ location, stack_before: unparseStack(before), stack_after: unparseStack(after) });
  };
  try {
    parseScriptNode(ctx, code, { legacy: opts.legacy ?? false, typeLogger: logger });
  } catch (e) {
    if (e instanceof TezosError) {
      const typeMap = map.map((m) => ({ location: m.location, stack_before: m.stack_before.map(slotPair), stack_after: m.stack_after.map(slotPair) }));
      const trace = e.trace.map((i) => (illTypedContract.is(i) ? illTypedContract.create({ ill_typed_code: i.fields.ill_typed_code, type_map: typeMap }) : i));
      throw new TezosError(trace, { cause: e });
    }
    throw e;
  }
  return map;
}
