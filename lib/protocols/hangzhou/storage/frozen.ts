/**
 * Frozen balances and the delegates' end of cycle (Octez `Delegate_storage`, second half):
 * deposits, fees and rewards frozen per cycle under `contracts/index/<d>/frozen_balance/<cycle>/`,
 * the set `delegates_with_frozen_balance/<cycle>/…`, their release `preserved_cycles` later with
 * the balance updates of the block receipt, the burns of unrevealed nonces, deactivation of
 * delegates past their grace period, and the balances the delegate RPCs show.
 *
 * Deposits leave the balance without changing rolls (a frozen deposit stays in the staking
 * balance); frozen fees are added to the staking balance when frozen; frozen rewards only when
 * released (HANGZHOU-FACTS §1.3, §6).
 * @module
 */
import type { BalanceUpdate, FrozenBalance, FrozenBalanceByCycle } from "../../../encoding/hangzhou/mod.ts";
import { balanceTooLowForDeposit } from "./errors.ts";
import {
  contractPath,
  decodeTez,
  delegatesWithFrozenBalancePath,
  encodeTez,
  frozenPath,
  INITED,
  activeDelegatesPath,
  pkhOfSegments,
  type FrozenKind,
} from "./layout.ts";
import type { UnrevealedNonce } from "./nonce.ts";
import type { ProtoContext } from "./proto-context.ts";
import { addAmount, countRolls, getChange, gracePeriod, isInactive, removeAmount, setActive, setInactive } from "./roll.ts";
import { tezAdd, tezMul, tezSub } from "./tez.ts";

/** A frozen amount of one kind for one cycle, 0 when unset. */
export function getFrozen(pc: ProtoContext, delegate: string, cycle: number, kind: FrozenKind): bigint {
  const b = pc.find(frozenPath(delegate, cycle, kind));
  return b === undefined ? 0n : decodeTez(b);
}

function creditFrozen(pc: ProtoContext, delegate: string, cycle: number, kind: FrozenKind, amount: bigint): void {
  const next = tezAdd(getFrozen(pc, delegate, cycle, kind), amount);
  pc.add(frozenPath(delegate, cycle, kind), encodeTez(next));
  pc.add(delegatesWithFrozenBalancePath(cycle, delegate), INITED);
}

/** Adds to a delegate's frozen deposit of a cycle, without touching its balance (`credit_frozen_deposit`). */
export function creditFrozenDeposit(pc: ProtoContext, delegate: string, cycle: number, amount: bigint): void {
  pc.atomically(() => creditFrozen(pc, delegate, cycle, "deposits", amount));
}

/** Adds to a delegate's frozen rewards of a cycle (`credit_frozen_rewards`). */
export function creditFrozenRewards(pc: ProtoContext, delegate: string, cycle: number, amount: bigint): void {
  pc.atomically(() => creditFrozen(pc, delegate, cycle, "rewards", amount));
}

/** Adds to a delegate's frozen fees of a cycle (`credit_frozen_fees`), without touching rolls. */
export function creditFrozenFees(pc: ProtoContext, delegate: string, cycle: number, amount: bigint): void {
  pc.atomically(() => creditFrozen(pc, delegate, cycle, "fees", amount));
}

/**
 * Freezes a security deposit from the delegate's balance for the current cycle (`freeze_deposit`):
 * refreshes the grace period (`set_active`) first; `delegate.balance_too_low_for_deposit` when
 * the balance is short. Rolls do not move.
 */
export function freezeDeposit(pc: ProtoContext, delegate: string, amount: bigint): void {
  pc.atomically(() => {
    const cycle = pc.level.cycle;
    setActive(pc, delegate);
    const path = contractPath(delegate, "balance");
    const balance = decodeTez(pc.get(path));
    if (balance < amount) throw balanceTooLowForDeposit.error({ delegate, deposit: amount, balance });
    pc.update(path, encodeTez(balance - amount));
    creditFrozen(pc, delegate, cycle, "deposits", amount);
  });
}

/** Freezes fees for the current cycle (`freeze_fees`): they join the staking balance now. */
export function freezeFees(pc: ProtoContext, delegate: string, amount: bigint): void {
  pc.atomically(() => {
    addAmount(pc, delegate, amount);
    creditFrozen(pc, delegate, pc.level.cycle, "fees", amount);
  });
}

/** Freezes rewards for the current cycle (`freeze_rewards`): not in the staking balance until released. */
export function freezeRewards(pc: ProtoContext, delegate: string, amount: bigint): void {
  creditFrozenRewards(pc, delegate, pc.level.cycle, amount);
}

/** Burns up to `amount` of a cycle's frozen fees (`burn_fees`); returns what was burnt. */
export function burnFees(pc: ProtoContext, delegate: string, cycle: number, amount: bigint): bigint {
  return pc.atomically(() => {
    const old = getFrozen(pc, delegate, cycle, "fees");
    const burnt = old >= amount ? amount : old;
    removeAmount(pc, delegate, burnt);
    pc.add(frozenPath(delegate, cycle, "fees"), encodeTez(old - burnt));
    return burnt;
  });
}

/** Burns up to `amount` of a cycle's frozen rewards (`burn_rewards`); returns what was burnt. */
export function burnRewards(pc: ProtoContext, delegate: string, cycle: number, amount: bigint): bigint {
  return pc.atomically(() => {
    const old = getFrozen(pc, delegate, cycle, "rewards");
    const burnt = old >= amount ? amount : old;
    pc.add(frozenPath(delegate, cycle, "rewards"), encodeTez(old - burnt));
    return burnt;
  });
}

/** Balance updates without the zero changes (`Receipt_repr.cleanup_balance_updates`). */
export function cleanupBalanceUpdates(updates: BalanceUpdate[]): BalanceUpdate[] {
  return updates.filter((u) => u.change !== 0n);
}

function freezer(category: FrozenKind, delegate: string, cycle: number, change: bigint): BalanceUpdate {
  return { kind: "freezer", category, delegate, cycle, change, origin: "block" };
}

/**
 * Releases a delegate's frozen balances of `cycle` (`unfreeze`): deposit + fees + rewards go back
 * to its balance, the rewards join its staking balance, the entries are removed. Returns
 * `[deposits −, fees −, rewards −, contract +total]` without zero entries.
 */
export function unfreeze(pc: ProtoContext, delegate: string, cycle: number): BalanceUpdate[] {
  return pc.atomically(() => {
    const deposit = getFrozen(pc, delegate, cycle, "deposits");
    const fees = getFrozen(pc, delegate, cycle, "fees");
    const rewards = getFrozen(pc, delegate, cycle, "rewards");
    const path = contractPath(delegate, "balance");
    const balance = decodeTez(pc.get(path));
    const total = tezAdd(tezAdd(deposit, fees), rewards);
    pc.update(path, encodeTez(tezAdd(balance, total)));
    addAmount(pc, delegate, rewards);
    for (const k of ["deposits", "fees", "rewards"] as const) pc.remove(frozenPath(delegate, cycle, k));
    return cleanupBalanceUpdates([
      freezer("deposits", delegate, cycle, -deposit),
      freezer("fees", delegate, cycle, -fees),
      freezer("rewards", delegate, cycle, -rewards),
      { kind: "contract", contract: delegate, change: total, origin: "block" },
    ]);
  });
}

/** The delegates with frozen balances for a cycle, in context order. */
export function delegatesWithFrozenBalance(pc: ProtoContext, cycle: number): string[] {
  const base = delegatesWithFrozenBalancePath(cycle);
  const out: string[] = [];
  for (const curve of pc.listKeys(base)) for (const hex of pc.listKeys([...base, curve])) out.push(pkhOfSegments(curve, hex));
  return out;
}

/** The active delegates with rolls, in context order (ed25519 < p256 < secp256k1, then hash bytes). */
export function activeDelegatesWithRolls(pc: ProtoContext): string[] {
  const base = activeDelegatesPath();
  const out: string[] = [];
  for (const curve of pc.listKeys(base)) for (const hex of pc.listKeys([...base, curve])) out.push(pkhOfSegments(curve, hex));
  return out;
}

/** What the delegates' end of cycle gives the block receipt. */
export interface DelegatesCycleEnd {
  /** Balance updates in Octez's order (unfreezes, later delegates first, then the nonce burns). */
  balanceUpdates: BalanceUpdate[];
  /** Deactivated delegates, in Octez's order (the reverse of the context order). */
  deactivated: string[];
}

/**
 * The delegates' part of the end of cycle `lastCycle` (`Delegate_storage.cycle_end`): burns the
 * fees and rewards of every unrevealed commitment of lastCycle − 1 (ascending level as given,
 * each burn prepended); when lastCycle ≥ p, releases cycle lastCycle − p for every delegate with
 * frozen balances (each release prepended), clears that set, and deactivates every active
 * delegate whose grace period is ≤ lastCycle.
 */
export function delegatesCycleEnd(pc: ProtoContext, lastCycle: number, unrevealed: readonly UnrevealedNonce[]): DelegatesCycleEnd {
  return pc.atomically(() => {
    const p = pc.constants.preserved_cycles;
    let updates: BalanceUpdate[] = [];
    if (lastCycle >= 1) {
      const revealedCycle = lastCycle - 1;
      for (const u of unrevealed) {
        const fees = burnFees(pc, u.delegate, revealedCycle, u.fees);
        const rewards = burnRewards(pc, u.delegate, revealedCycle, u.rewards);
        updates = [freezer("fees", u.delegate, revealedCycle, -fees), freezer("rewards", u.delegate, revealedCycle, -rewards), ...updates];
      }
    }
    const unfrozenCycle = lastCycle - p;
    if (unfrozenCycle < 0) return { balanceUpdates: updates, deactivated: [] };
    for (const d of delegatesWithFrozenBalance(pc, unfrozenCycle)) updates = [...unfreeze(pc, d, unfrozenCycle), ...updates];
    pc.remove(delegatesWithFrozenBalancePath(unfrozenCycle));
    const deactivated: string[] = [];
    for (const d of activeDelegatesWithRolls(pc)) {
      const g = gracePeriod(pc, d);
      if (g === undefined) throw new RangeError(`active delegate ${d} has no grace period`);
      if (g <= lastCycle) {
        setInactive(pc, d);
        deactivated.unshift(d);
      }
    }
    return { balanceUpdates: updates, deactivated };
  });
}

/**
 * Takes away a delegate's frozen balances of a cycle (`punish`, double baking or endorsing):
 * deposits and fees leave the staking balance; all three entries are removed. Returns them.
 */
export function punish(pc: ProtoContext, delegate: string, cycle: number): FrozenBalance {
  return pc.atomically(() => {
    const deposits = getFrozen(pc, delegate, cycle, "deposits");
    const fees = getFrozen(pc, delegate, cycle, "fees");
    const rewards = getFrozen(pc, delegate, cycle, "rewards");
    removeAmount(pc, delegate, deposits);
    removeAmount(pc, delegate, fees);
    for (const k of ["deposits", "fees", "rewards"] as const) pc.remove(frozenPath(delegate, cycle, k));
    return { deposits, fees, rewards };
  });
}

/** Whether a delegate has a non-zero frozen amount in a cycle (`has_frozen_balance`). */
export function hasFrozenBalance(pc: ProtoContext, delegate: string, cycle: number): boolean {
  return (["deposits", "fees", "rewards"] as const).some((k) => getFrozen(pc, delegate, cycle, k) !== 0n);
}

/** A delegate's frozen balances by cycle, ascending (`frozen_balance_by_cycle`). */
export function frozenBalanceByCycle(pc: ProtoContext, delegate: string): FrozenBalanceByCycle[] {
  const base = contractPath(delegate, "frozen_balance");
  const cycles = pc.listKeys(base).map(Number).sort((a, b) => a - b);
  const out: FrozenBalanceByCycle[] = [];
  for (const cycle of cycles) {
    const kinds = pc.listKeys([...base, String(cycle)]);
    if (kinds.length === 0) continue;
    out.push({
      cycle,
      deposits: getFrozen(pc, delegate, cycle, "deposits"),
      fees: getFrozen(pc, delegate, cycle, "fees"),
      rewards: getFrozen(pc, delegate, cycle, "rewards"),
    });
  }
  return out;
}

/** The sum of a delegate's frozen balances (`frozen_balance`). */
export function frozenBalance(pc: ProtoContext, delegate: string): bigint {
  let total = 0n;
  for (const f of frozenBalanceByCycle(pc, delegate)) total = tezAdd(tezAdd(tezAdd(total, f.deposits), f.fees), f.rewards);
  return total;
}

/** Balance plus frozen balances (`full_balance`, the delegate RPC's `balance`). */
export function fullBalance(pc: ProtoContext, delegate: string): bigint {
  const frozen = frozenBalance(pc, delegate);
  return tezAdd(frozen, decodeTez(pc.get(contractPath(delegate, "balance"))));
}

/** rolls × tokens_per_roll + change (`staking_balance`). */
export function stakingBalance(pc: ProtoContext, delegate: string): bigint {
  return tezAdd(tezMul(pc.constants.tokens_per_roll, BigInt(countRolls(pc, delegate))), getChange(pc, delegate));
}

/** Staking balance minus the delegate's own balance, frozen deposits and frozen fees (`delegated_balance`). */
export function delegatedBalance(pc: ProtoContext, delegate: string): bigint {
  const staking = stakingBalance(pc, delegate);
  let own = decodeTez(pc.get(contractPath(delegate, "balance")));
  for (const f of frozenBalanceByCycle(pc, delegate)) own = tezAdd(tezAdd(own, f.deposits), f.fees);
  return tezSub(staking, own);
}

/** Whether a delegate is deactivated (`deactivated` = `is_inactive`). */
export function deactivated(pc: ProtoContext, delegate: string): boolean {
  return isInactive(pc, delegate);
}
