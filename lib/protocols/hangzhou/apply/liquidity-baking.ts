/**
 * Liquidity baking at the start of every block (Octez `liquidity_baking_repr.ml`,
 * `apply_liquidity_baking_subsidy`): the escape EMA moves with the baker's vote, and while the
 * EMA is under its threshold and the sunset level is not reached, the CPMM contract receives the
 * subsidy.
 *
 * Until the node runs Michelson, the subsidy is credited to the CPMM without running its
 * `default` entrypoint: its storage (`xtzPool`) does not move and the result reports no gas.
 * @module
 */
import type { SuccessfulManagerOperationResult } from "../../../encoding/hangzhou/receipts/operation-results.ts";
import { credit, getScript, usedStorageSpace } from "../storage/contract.ts";
import { getCpmmAddress, getEscapeEma, setEscapeEma } from "../storage/liquidity-baking.ts";
import type { ProtoContext } from "../storage/proto-context.ts";
import { LB_CPMM_ADDRESS_PATH } from "../storage/layout.ts";

/** The escape EMA after a block's vote (Octez `compute_new_ema`). */
export function nextEscapeEma(old: number, escapeVote: boolean): number {
  return Math.floor((1999 * old) / 2000) + (escapeVote ? 1000 : 0);
}

/**
 * Updates the escape EMA and, when the subsidy is allowed, credits it to the CPMM. Returns the
 * implicit operation results and the new EMA (reported in the block metadata).
 */
export function applyLiquidityBakingSubsidy(
  pc: ProtoContext,
  escapeVote: boolean,
): { results: SuccessfulManagerOperationResult[]; ema: number } {
  const c = pc.constants;
  const old = getEscapeEma(pc);
  if (old >= c.liquidity_baking_escape_ema_threshold) return { results: [], ema: old };
  const ema = nextEscapeEma(old, escapeVote);
  setEscapeEma(pc, ema);
  if (pc.level.level >= c.liquidity_baking_sunset_level || pc.find(LB_CPMM_ADDRESS_PATH) === undefined) return { results: [], ema };
  const cpmm = getCpmmAddress(pc);
  const script = getScript(pc, cpmm);
  if (script === undefined) return { results: [], ema };
  credit(pc, cpmm, c.liquidity_baking_subsidy);
  const size = usedStorageSpace(pc, cpmm);
  return {
    ema,
    results: [
      {
        kind: "transaction",
        storage: script.storage,
        balance_updates: [{ kind: "contract", contract: cpmm, change: c.liquidity_baking_subsidy, origin: "subsidy" }],
        originated_contracts: [],
        consumed_gas: 0n,
        consumed_milligas: 0n,
        storage_size: size,
        paid_storage_size_diff: 0n,
        allocated_destination_contract: false,
      },
    ],
  };
}
