/**
 * Rolls (Octez `Roll_storage`), mirrored move for move because roll *ids* decide rights
 * (HANGZHOU-FACTS §1).
 *
 * State: `rolls/next` (next fresh id), `rolls/limbo` (head of the free stack),
 * `rolls/index/<r>/successor` (next roll of whatever stack r is in), `rolls/owner/current/<r>`
 * (the owner's public key), per delegate `contracts/index/<d>/roll_list` (head of its stack) and
 * `contracts/index/<d>/change` (tez not forming a roll), the set `active_delegates_with_rolls`,
 * per delegate `inactive_delegate` and `delegate_desactivation` (grace period cycle).
 * Snapshots: `rolls/owner/snapshot/<cycle>/<index>/<r>` (a shared copy of `rolls/owner/current`),
 * `cycle/<c>/roll_snapshot` (count, then the selected index) and `cycle/<c>/last_roll/<i>`
 * (`rolls/next` when snapshot i was taken: the draw bound).
 * @module
 */
import type { PublicKey } from "../../../crypto/keys.ts";
import { utf8 } from "../../../encoding/bytes.ts";
import { initialize, sequence, takeInt32 } from "../random.ts";
import { consumeRollChange as consumeRollChangeError, noRollForDelegate, storageError, unregisteredDelegate } from "./errors.ts";
import {
  activeDelegatesPath,
  contractPath,
  cyclePath,
  decodeInt32,
  decodeManager,
  decodePkh,
  decodePublicKey,
  decodeTez,
  decodeUint16,
  encodeInt32,
  encodePublicKey,
  encodeTez,
  encodeUint16,
  INITED,
  ROLLS_LIMBO_PATH,
  ROLLS_NEXT_PATH,
  ROLLS_OWNER_CURRENT_PATH,
  rollOwnerPath,
  rollSnapshotPath,
  rollSuccessorPath,
} from "./layout.ts";
import type { ProtoContext } from "./proto-context.ts";
import { getSeed } from "./seed.ts";
import { tezAdd, tezSub } from "./tez.ts";

// ---------------------------------------------------------------------------------------------
// Small accessors

function optInt32(pc: ProtoContext, path: readonly string[]): number | undefined {
  const b = pc.find(path);
  return b === undefined ? undefined : decodeInt32(b);
}

function setOptInt32(pc: ProtoContext, path: readonly string[], v: number | undefined): void {
  pc.addOrRemove(path, v === undefined ? undefined : encodeInt32(v));
}

const rollListPath = (d: string) => contractPath(d, "roll_list");
const changePath = (d: string) => contractPath(d, "change");
/** `contracts/index/<d>/inactive_delegate`. */
export const inactiveDelegatePath = (d: string): string[] => contractPath(d, "inactive_delegate");
/** `contracts/index/<d>/delegate_desactivation`. */
export const desactivationPath = (d: string): string[] => contractPath(d, "delegate_desactivation");
const snapshotForCyclePath = (c: number) => cyclePath(c, "roll_snapshot");
const lastRollPath = (c: number, i: number) => cyclePath(c, "last_roll", String(i));

/** Initialises the roll counter to 0 (`Roll_storage.init`). */
export function initRolls(pc: ProtoContext): void {
  pc.init(ROLLS_NEXT_PATH, encodeInt32(0));
}

/** `rolls/next`: the next fresh roll id. */
export function nextRoll(pc: ProtoContext): number {
  return decodeInt32(pc.get(ROLLS_NEXT_PATH));
}

/** The head of the free-roll stack, if any. */
export function limboHead(pc: ProtoContext): number | undefined {
  return optInt32(pc, ROLLS_LIMBO_PATH);
}

/** The owner of a roll in the current roll map, if owned. */
export function rollOwner(pc: ProtoContext, roll: number): PublicKey | undefined {
  const b = pc.find(rollOwnerPath(roll));
  return b === undefined ? undefined : decodePublicKey(b);
}

/** The roll after `roll` in its stack, if any. */
export function rollSuccessor(pc: ProtoContext, roll: number): number | undefined {
  return optInt32(pc, rollSuccessorPath(roll));
}

/** The head of a delegate's roll stack, if any. */
export function delegateRollHead(pc: ProtoContext, delegate: string): number | undefined {
  return optInt32(pc, rollListPath(delegate));
}

/** A delegate's rolls, head first (the order in which they would be popped). */
export function delegateRolls(pc: ProtoContext, delegate: string): number[] {
  const out: number[] = [];
  for (let r = delegateRollHead(pc, delegate); r !== undefined; r = rollSuccessor(pc, r)) out.push(r);
  return out;
}

/** The number of rolls of a delegate (`count_rolls`). */
export function countRolls(pc: ProtoContext, delegate: string): number {
  let n = 0;
  for (let r = delegateRollHead(pc, delegate); r !== undefined; r = rollSuccessor(pc, r)) n++;
  return n;
}

/** A delegate's change, 0 when unset (`get_change`). */
export function getChange(pc: ProtoContext, delegate: string): bigint {
  const b = pc.find(changePath(delegate));
  return b === undefined ? 0n : decodeTez(b);
}

function getChangeStrict(pc: ProtoContext, delegate: string): bigint {
  return decodeTez(pc.get(changePath(delegate)));
}

/** The revealed key of a delegate (`delegate_pubkey`); `contract.manager.unregistered_delegate` otherwise. */
export function delegatePublicKey(pc: ProtoContext, delegate: string): PublicKey {
  const b = pc.find(contractPath(delegate, "manager"));
  const m = b === undefined ? undefined : decodeManager(b);
  if (m === undefined || m.kind !== "public_key") throw unregisteredDelegate.error({ hash: delegate });
  return m.publicKey;
}

/** The delegate of a contract, if any (`Contract.Delegate.find`). */
export function contractDelegate(pc: ProtoContext, contract: string): string | undefined {
  const b = pc.find(contractPath(contract, "delegate"));
  if (b === undefined) return undefined;
  return decodePkh(b);
}

/** The grace period (last active cycle) of a delegate, if set. */
export function gracePeriod(pc: ProtoContext, delegate: string): number | undefined {
  return optInt32(pc, desactivationPath(delegate));
}

/**
 * Whether a delegate is inactive (`Delegate.is_inactive`): marked inactive, or its grace period
 * is before the current cycle (false when it has none yet).
 */
export function isInactive(pc: ProtoContext, delegate: string): boolean {
  if (pc.mem(inactiveDelegatePath(delegate))) return true;
  const g = gracePeriod(pc, delegate);
  return g !== undefined && g < pc.level.cycle;
}

// ---------------------------------------------------------------------------------------------
// Primitive moves

function freshRoll(pc: ProtoContext): number {
  const roll = nextRoll(pc);
  pc.update(ROLLS_NEXT_PATH, encodeInt32(roll + 1));
  return roll;
}

function limboRoll(pc: ProtoContext): number {
  const head = limboHead(pc);
  if (head !== undefined) return head;
  const roll = freshRoll(pc);
  pc.init(ROLLS_LIMBO_PATH, encodeInt32(roll));
  return roll;
}

function consumeRollChange(pc: ProtoContext, delegate: string): void {
  const change = getChangeStrict(pc, delegate);
  if (change < pc.constants.tokens_per_roll) throw consumeRollChangeError.error();
  pc.update(changePath(delegate), encodeTez(change - pc.constants.tokens_per_roll));
}

function recoverRollChange(pc: ProtoContext, delegate: string): void {
  const change = getChangeStrict(pc, delegate);
  pc.update(changePath(delegate), encodeTez(tezAdd(change, pc.constants.tokens_per_roll)));
}

/**
 * Pops the head roll of a delegate onto the limbo stack (`pop_roll_from_delegate`): change +=
 * tokens_per_roll, the roll loses its owner. Returns the roll;
 * `contract.manager.no_roll_for_delegate` when the delegate has none.
 */
export function popRollFromDelegate(pc: ProtoContext, delegate: string): number {
  recoverRollChange(pc, delegate);
  const limbo = limboHead(pc);
  const roll = delegateRollHead(pc, delegate);
  if (roll === undefined) throw noRollForDelegate.error();
  pc.removeExisting(rollOwnerPath(roll));
  const successor = rollSuccessor(pc, roll);
  setOptInt32(pc, rollListPath(delegate), successor);
  setOptInt32(pc, rollSuccessorPath(roll), limbo);
  pc.add(ROLLS_LIMBO_PATH, encodeInt32(roll));
  return roll;
}

/**
 * Pushes a roll onto a delegate's stack (`create_roll_in_delegate`): change −= tokens_per_roll
 * (`contract.manager.consume_roll_change` if short), the roll is the limbo head or a fresh id.
 * Returns the roll.
 */
export function createRollInDelegate(pc: ProtoContext, delegate: string, delegatePk: PublicKey): number {
  consumeRollChange(pc, delegate);
  const head = delegateRollHead(pc, delegate);
  const roll = limboRoll(pc);
  pc.init(rollOwnerPath(roll), encodePublicKey(delegatePk));
  const limboSuccessor = rollSuccessor(pc, roll);
  setOptInt32(pc, ROLLS_LIMBO_PATH, limboSuccessor);
  setOptInt32(pc, rollSuccessorPath(roll), head);
  pc.add(rollListPath(delegate), encodeInt32(roll));
  return roll;
}

function ensureInited(pc: ProtoContext, delegate: string): void {
  if (!pc.mem(changePath(delegate))) pc.init(changePath(delegate), encodeTez(0n));
}

function createRollsWhileChange(pc: ProtoContext, delegate: string, change: bigint): void {
  const tpr = pc.constants.tokens_per_roll;
  let pk: PublicKey | undefined;
  while (change >= tpr) {
    change -= tpr;
    pk ??= delegatePublicKey(pc, delegate);
    createRollInDelegate(pc, delegate, pk);
  }
}

/**
 * Adds tez to a delegate's staking balance (`Delegate.add_amount`): change += amount; unless the
 * delegate is inactive, rolls are created while change ≥ tokens_per_roll, and a delegate with
 * rolls joins `active_delegates_with_rolls`. The delegate must have a revealed key.
 */
export function addAmount(pc: ProtoContext, delegate: string, amount: bigint): void {
  pc.atomically(() => {
    ensureInited(pc, delegate);
    const change = tezAdd(amount, getChangeStrict(pc, delegate));
    pc.update(changePath(delegate), encodeTez(change));
    delegatePublicKey(pc, delegate);
    if (isInactive(pc, delegate)) return;
    createRollsWhileChange(pc, delegate, change);
    if (delegateRollHead(pc, delegate) !== undefined) pc.add(activeDelegatesPath(delegate), INITED);
  });
}

/**
 * Removes tez from a delegate's staking balance (`Delegate.remove_amount`): unless inactive, rolls
 * are popped while change < amount and a delegate left without rolls leaves
 * `active_delegates_with_rolls`; then change −= amount.
 */
export function removeAmount(pc: ProtoContext, delegate: string, amount: bigint): void {
  pc.atomically(() => {
    const tpr = pc.constants.tokens_per_roll;
    let change = getChangeStrict(pc, delegate);
    if (!isInactive(pc, delegate)) {
      while (!(amount <= change)) {
        popRollFromDelegate(pc, delegate);
        change = tezAdd(change, tpr);
      }
      if (delegateRollHead(pc, delegate) === undefined) pc.remove(activeDelegatesPath(delegate));
    }
    pc.update(changePath(delegate), encodeTez(tezSub(change, amount)));
  });
}

/** Deactivates a delegate (`Delegate.set_inactive`): marked inactive, out of the active set, every roll popped. */
export function setInactive(pc: ProtoContext, delegate: string): void {
  pc.atomically(() => {
    ensureInited(pc, delegate);
    let change = getChangeStrict(pc, delegate);
    pc.add(inactiveDelegatePath(delegate), INITED);
    pc.remove(activeDelegatesPath(delegate));
    while (delegateRollHead(pc, delegate) !== undefined) {
      popRollFromDelegate(pc, delegate);
      change = tezAdd(change, pc.constants.tokens_per_roll);
    }
    pc.update(changePath(delegate), encodeTez(change));
  });
}

/**
 * Refreshes a delegate's grace period and reactivates it if needed (`Delegate.set_active`): the
 * new grace period is current + 1 + 2p with none before, else max(old, current + 1 + 2p) if
 * inactive, max(old, current + 1 + p) if active. An inactive delegate is unmarked and gets rolls
 * back while change ≥ tokens_per_roll.
 */
export function setActive(pc: ProtoContext, delegate: string): void {
  pc.atomically(() => {
    const inactive = isInactive(pc, delegate);
    const current = pc.level.cycle;
    const p = pc.constants.preserved_cycles;
    const old = gracePeriod(pc, delegate);
    const expiration = old === undefined ? current + 1 + 2 * p : Math.max(old, current + (inactive ? 1 + 2 * p : 1 + p));
    pc.add(desactivationPath(delegate), encodeInt32(expiration));
    if (!inactive) return;
    ensureInited(pc, delegate);
    const change = getChangeStrict(pc, delegate);
    pc.remove(inactiveDelegatePath(delegate));
    delegatePublicKey(pc, delegate);
    createRollsWhileChange(pc, delegate, change);
    if (delegateRollHead(pc, delegate) !== undefined) pc.add(activeDelegatesPath(delegate), INITED);
  });
}

/** `Roll_storage.Contract.add_amount`: adds to the contract's delegate, if it has one. */
export function contractAddAmount(pc: ProtoContext, contract: string, amount: bigint): void {
  const d = contractDelegate(pc, contract);
  if (d !== undefined) addAmount(pc, d, amount);
}

/** `Roll_storage.Contract.remove_amount`: removes from the contract's delegate, if it has one. */
export function contractRemoveAmount(pc: ProtoContext, contract: string, amount: bigint): void {
  const d = contractDelegate(pc, contract);
  if (d !== undefined) removeAmount(pc, d, amount);
}

/** Calls `f` for every owned roll in increasing id order, below `rolls/next` (`Roll_storage.fold`). */
export function forEachRoll(pc: ProtoContext, f: (roll: number, owner: PublicKey) => void): void {
  const last = nextRoll(pc);
  for (let roll = 0; roll < last; roll++) {
    const owner = rollOwner(pc, roll);
    if (owner !== undefined) f(roll, owner);
  }
}

// ---------------------------------------------------------------------------------------------
// Snapshots

/** `cycle/<c>/roll_snapshot`: snapshots taken so far, or the selected index once frozen. */
export function snapshotForCycle(pc: ProtoContext, cycle: number): number {
  return decodeUint16(pc.get(snapshotForCyclePath(cycle)));
}

/** Opens the snapshot counter of a cycle at 0 (`Snapshot_for_cycle.init`). */
export function initSnapshotCounter(pc: ProtoContext, cycle: number): void {
  pc.init(snapshotForCyclePath(cycle), encodeUint16(0));
}

/** `cycle/<c>/last_roll/<index>`: the draw bound of a snapshot. */
export function lastRollForSnapshot(pc: ProtoContext, cycle: number, index: number): number {
  return decodeInt32(pc.get(lastRollPath(cycle, index)));
}

/** Whether snapshot `index` of `cycle` exists (`Owner.snapshot_exists`). */
export function snapshotExists(pc: ProtoContext, cycle: number, index: number): boolean {
  return pc.memTree(rollSnapshotPath(cycle, index));
}

/** The owner of a roll in snapshot `index` of `cycle` (`Owner.Snapshot.find`). */
export function snapshotOwner(pc: ProtoContext, cycle: number, index: number, roll: number): PublicKey | undefined {
  const b = pc.find(rollSnapshotPath(cycle, index, roll));
  return b === undefined ? undefined : decodePublicKey(b);
}

/**
 * Takes the next snapshot of the roll map for `cycle` (`snapshot_rolls_for_cycle`): the counter
 * is incremented, `rolls/owner/current` is copied (shared) under the snapshot, and `rolls/next`
 * recorded as its bound.
 */
export function snapshotRollsForCycle(pc: ProtoContext, cycle: number): void {
  pc.atomically(() => {
    const index = snapshotForCycle(pc, cycle);
    pc.update(snapshotForCyclePath(cycle), encodeUint16(index + 1));
    const copied = pc.context.copy(ROLLS_OWNER_CURRENT_PATH, rollSnapshotPath(cycle, index));
    if (copied === undefined) throw storageError.error({ missing_key: [...ROLLS_OWNER_CURRENT_PATH], function: "copy" });
    pc.context = copied;
    pc.init(lastRollPath(cycle, index), encodeInt32(nextRoll(pc)));
  });
}

/** The index a cycle's snapshots are frozen at: take_int32(sequence(initialize(seed, "roll_snapshot"), 0), count). */
export function selectedSnapshotIndex(seed: Uint8Array, count: number): number {
  return takeInt32(sequence(initialize(seed, utf8("roll_snapshot")), 0), count).value;
}

/**
 * Freezes the snapshots of `cycle` (`freeze_rolls_for_cycle`): draws the selected index with the
 * cycle's seed, records it in `roll_snapshot`, and deletes every other snapshot with its bound.
 */
export function freezeRollsForCycle(pc: ProtoContext, cycle: number): void {
  pc.atomically(() => {
    const maxIndex = snapshotForCycle(pc, cycle);
    const selected = selectedSnapshotIndex(getSeed(pc, cycle), maxIndex);
    pc.update(snapshotForCyclePath(cycle), encodeUint16(selected));
    for (let i = 0; i < maxIndex; i++) {
      if (i === selected) continue;
      pc.remove(rollSnapshotPath(cycle, i));
      pc.removeExisting(lastRollPath(cycle, i));
    }
  });
}

/** Deletes the frozen snapshot of a cycle, its counter and bound (`clear_cycle`). */
export function clearRollCycle(pc: ProtoContext, cycle: number): void {
  pc.atomically(() => {
    const index = snapshotForCycle(pc, cycle);
    pc.removeExisting(snapshotForCyclePath(cycle));
    pc.removeExisting(lastRollPath(cycle, index));
    pc.remove(rollSnapshotPath(cycle, index));
  });
}

/**
 * The snapshots made at activation (`init_first_cycles`): cycles 0 … p get one snapshot each,
 * frozen at once; cycle p + 1 one snapshot (frozen at the end of cycle 0); cycle p + 2's counter
 * is opened.
 */
export function initFirstCycles(pc: ProtoContext): void {
  const p = pc.constants.preserved_cycles;
  for (let c = 0; c <= p; c++) {
    initSnapshotCounter(pc, c);
    snapshotRollsForCycle(pc, c);
    freezeRollsForCycle(pc, c);
  }
  initSnapshotCounter(pc, p + 1);
  snapshotRollsForCycle(pc, p + 1);
  initSnapshotCounter(pc, p + 2);
}

/** The snapshot of a roll-snapshot block (`snapshot_rolls`): for cycle current + p + 2. */
export function snapshotRolls(pc: ProtoContext): void {
  snapshotRollsForCycle(pc, pc.level.cycle + pc.constants.preserved_cycles + 2);
}

/**
 * The rolls' part of the end of cycle `lastCycle` (`Roll_storage.cycle_end`): clears cycle
 * lastCycle − p, freezes cycle lastCycle + p + 1, opens the counter of lastCycle + p + 3.
 */
export function rollCycleEnd(pc: ProtoContext, lastCycle: number): void {
  pc.atomically(() => {
    const p = pc.constants.preserved_cycles;
    if (lastCycle - p >= 0) clearRollCycle(pc, lastCycle - p);
    const frozen = lastCycle + p + 1;
    freezeRollsForCycle(pc, frozen);
    initSnapshotCounter(pc, frozen + 2);
  });
}
