/**
 * Sizes of cached scripts in the script cache's accounting (Octez `Script_ir_translator.script_size`:
 * the typed code's size from `Script_typed_ir_size.lambda_size` plus the storage value's from
 * `value_size`, in bytes of the OCaml heap).
 *
 * Octez's model counts the nodes of the typed IR (instructions, the types they carry, Micheline
 * of views and lambdas, values) and adds a byte size per node, from 24 bytes for a small Micheline
 * node to 120 and more for an annotated pair type. This node counts the same nodes (the typed-IR
 * node model of `michelson/gas/ir-size.ts`, the count `parse_code` and `script_size` charge gas
 * for) and takes {@link BYTES_PER_NODE} per node: an estimate, not Octez's byte count. The cache
 * gas (`cache_update`) depends on the cache size only through log2(size / 688), and its limit is
 * 100 MB, so an estimate of the right magnitude gives Octez's gas except near a power of two; the
 * `context/cache/contracts/size` RPC shows these estimates.
 *
 * Calibration: with the liquidity baking contracts (CPMM 5 124 code nodes, TOK and LQT 2 155
 * each), Octez's gas puts the CPMM alone in [176 128, 352 256) bytes, CPMM + TOK at 352 256 or
 * more, and CPMM + TOK + LQT under 704 512: any value from 49 to 68 bytes per node fits; 64 (eight
 * words) is taken.
 * @module
 */
import type { Micheline } from "../../../encoding/micheline.ts";
import type { ScriptContext } from "../../../michelson/context.ts";
import type { Ty } from "../../../michelson/ty.ts";
import { scriptIrNodes, TypeLog } from "../../../michelson/gas/ir-size.ts";
import type { ParsedScript } from "../../../michelson/script/script.ts";
import { typecheckLambda } from "../../../michelson/script/lambda.ts";

/** Bytes per node of the size model (estimate, see the module documentation). */
export const BYTES_PER_NODE = 64;
/** Milligas per node of the size model (`Script_typed_ir_size_costs.nodes_cost`). */
const MILLIGAS_PER_NODE = 45;

/**
 * Estimated size of a script's typed code, bytes: its typed-IR nodes from `log`, the type map
 * the type checker logged while checking `script` (lambda constants are checked again, without gas).
 */
export function estimatedCodeSize(ctx: ScriptContext, script: ParsedScript, log: TypeLog): number {
  const free = Object.create(ctx, { gas: { value: { consume: () => {}, remaining: () => Number.MAX_SAFE_INTEGER } } }) as ScriptContext;
  const nodes = scriptIrNodes({ code: script.parts.code, paramTy: script.paramTy, storageTy: script.storageTy, views: script.viewNodes.values() }, log, {
    loc: (n: Micheline) => script.locs.get(n as object) ?? -1,
    lambdaLog: (argTy: Ty, retTy: Ty, body: Micheline) => {
      const l = new TypeLog();
      typecheckLambda(free, argTy, retTy, body, { legacy: true, locations: script.locs, typeLogger: l.logger });
      return l;
    },
  });
  return BYTES_PER_NODE * nodes;
}

/**
 * Estimated size of a storage value, bytes, from the gas its size model was charged
 * (`script_size`'s `nodes_cost`, 45 milligas per node).
 */
export function storageSizeOfCost(sizeModelMilligas: number): number {
  return BYTES_PER_NODE * Math.floor(sizeModelMilligas / MILLIGAS_PER_NODE);
}
