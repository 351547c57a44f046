/**
 * Global constants in a stored script, as `parse_code` meets them (Octez
 * `Global_constants_storage.expand`): the engine's own expansion for the scripts it loads itself
 * (the VIEW instruction's target), reading constants through `ScriptContext.globalConstant` (which
 * charges the storage reads) and charging Octez's traversal costs.
 * @module
 */
import type { Micheline, MichelinePrim } from "../../encoding/micheline.ts";
import type { ScriptContext } from "../context.ts";
import { michelineNodes } from "../gas/size.ts";

/** `Global_constants_costs.expand_constants_branch_cost` (one `constant` node met), milligas. */
export const EXPAND_CONSTANTS_BRANCH_COST = 4095;

/** `Global_constants_costs.log2`: 1 + the bit length of `x`. */
function log2(x: number): number {
  return 1 + (x === 0 ? 0 : x.toString(2).length);
}

/**
 * `Global_constants_costs.expand_no_constants_branch_cost node` (traversing `node`), milligas:
 * with v = n × log2 n for the n nodes of `node`, 100 + 4v + v/2 + v/8 (shifts).
 */
export function expandNoConstantsBranchCost(node: Micheline): number {
  const n = michelineNodes(node);
  const v = n * log2(n);
  return 100 + 4 * v + Math.floor(v / 2) + Math.floor(v / 8);
}

/**
 * Expands the `constant "expr…"` nodes of a stored script bottom-up, charging `ctx.gas` as Octez
 * does: the whole script's traversal first, then per `constant` node the branch cost, the read
 * (first time a hash is met) and the traversal of the constant's value. A script stored on chain
 * only refers to registered constants (its origination expanded them); a node naming no
 * registered constant is left as written (the type checker then rejects it).
 */
export function expandStoredConstants(ctx: ScriptContext, node: Micheline): Micheline {
  ctx.gas.consume(expandNoConstantsBranchCost(node));
  const cache = new Map<string, Micheline>();
  const visit = (n: Micheline): Micheline => {
    if (Array.isArray(n)) return (n as readonly Micheline[]).map(visit);
    const p = n as MichelinePrim;
    if (typeof p !== "object" || p === null || p.prim === undefined) return n;
    const args = p.args?.map(visit);
    const rebuilt: Micheline = args === undefined ? n : { ...p, args };
    if (p.prim !== "constant") return rebuilt;
    ctx.gas.consume(EXPAND_CONSTANTS_BRANCH_COST);
    const hash = args?.length === 1 && (p.annots ?? []).length === 0 ? (args[0] as { string?: string }).string : undefined;
    if (hash === undefined) return rebuilt;
    let value = cache.get(hash);
    if (value === undefined) {
      value = ctx.globalConstant(hash);
      if (value === undefined) return rebuilt;
      cache.set(hash, value);
    }
    ctx.gas.consume(expandNoConstantsBranchCost(value));
    return value;
  };
  return visit(node);
}
