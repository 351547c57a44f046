/**
 * Liquidity baking at the start of every block (Octez `liquidity_baking_repr.ml`,
 * `apply_liquidity_baking_subsidy`): the escape EMA moves with the baker's vote, and while the
 * EMA is under its threshold and the sunset level is not reached, the CPMM contract receives the
 * subsidy and its `default` entrypoint runs with `Unit` (so that its `xtzPool` grows), under a
 * gas limit of 1/20 of the block's, not counted in the block's gas. The call is a transaction
 * result in the block's `implicit_operations_results`; there is no fee and no storage burn (new
 * bytes are marked paid). If the call fails or emits operations, everything it did (the credit
 * included) is undone and there is no result.
 * @module
 */
import { B58, b58encode } from "../../../encoding/base58.ts";
import type { SuccessfulManagerOperationResult } from "../../../encoding/hangzhou/receipts/operation-results.ts";
import { consumedGas } from "../../../encoding/hangzhou/receipts/operation-results.ts";
import { TezosError } from "../../../errors/mod.ts";
import { makeScriptContext, scriptLevel, scriptNow } from "../michelson/script-context.ts";
import { credit, updateScriptStorage } from "../storage/contract.ts";
import { applyLazyStorageDiff } from "../storage/lazy-storage-diff.ts";
import { getCpmmAddress, getEscapeEma, setEscapeEma } from "../storage/liquidity-baking.ts";
import type { ProtoContext } from "../storage/proto-context.ts";
import { LB_CPMM_ADDRESS_PATH } from "../storage/layout.ts";
import { chargeStorageUpdate, diffFields, executeScript, recordPaidStorageSpace } from "./content.ts";
import { findScript, updateScript } from "../michelson/script-cache.ts";

/** `Chain_id.zero` (the chain id the CPMM call runs with). */
export const ZERO_CHAIN_ID: string = b58encode(B58.chainId, new Uint8Array(4));

/** The escape EMA after a block's vote (Octez `compute_new_ema`). */
export function nextEscapeEma(old: number, escapeVote: boolean): number {
  return Math.floor((1999 * old) / 2000) + (escapeVote ? 1000 : 0);
}

const UNDO: unique symbol = Symbol("undo liquidity baking call");

/**
 * Updates the escape EMA and, when the subsidy is allowed, credits it to the CPMM and runs the
 * CPMM. Returns the implicit operation results and the new EMA (reported in the block metadata).
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
  pc.setGasLimit(c.hard_gas_limit_per_block / 20n);
  const start = pc.remainingOperationGas;
  let result: SuccessfulManagerOperationResult | undefined;
  try {
    pc.atomically(() => {
      const subsidy = c.liquidity_baking_subsidy;
      credit(pc, cpmm, subsidy);
      const ctx = makeScriptContext(pc, {
        self: cpmm,
        sender: cpmm,
        source: cpmm,
        amount: subsidy,
        now: scriptNow(pc),
        level: scriptLevel(pc),
        chainId: ZERO_CHAIN_ID,
        legacy: true,
      });
      const cached = findScript(pc, ctx, cpmm);
      if (cached === undefined) throw UNDO;
      const r = executeScript(pc, ctx, cached, { entrypoint: "default", parameter: { prim: "Unit" } });
      if (r.operations.length > 0) throw UNDO;
      const lazySize = applyLazyStorageDiff(pc, r.lazyStorageDiff);
      chargeStorageUpdate(pc, r.storage);
      updateScriptStorage(pc, cpmm, r.storage, lazySize);
      const { size, paid } = recordPaidStorageSpace(pc, cpmm, undefined);
      result = {
        kind: "transaction",
        storage: r.storage,
        ...diffFields(r.lazyStorageDiff),
        balance_updates: [{ kind: "contract", contract: cpmm, change: subsidy, origin: "subsidy" }],
        originated_contracts: [],
        ...consumedGas(start - pc.remainingOperationGas),
        storage_size: size,
        paid_storage_size_diff: paid,
        allocated_destination_contract: false,
      } as SuccessfulManagerOperationResult;
      // the gas of the receipt is taken before the cache update (Octez)
      updateScript(pc, cpmm, r.cached.value, r.cached.size);
    });
  } catch (e) {
    if (e !== UNDO && !(e instanceof TezosError)) throw e;
    return { results: [], ema };
  }
  pc.setGasUnlimited();
  return { ema, results: result === undefined ? [] : [result] };
}
