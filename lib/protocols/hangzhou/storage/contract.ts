/**
 * Contracts (Octez `Contract_storage`): balances, counters, managers and revealed keys, scripts
 * and their storage accounting, allocation and removal of implicit accounts, and the credit and
 * spend that move the delegate's rolls.
 *
 * Keys under `contracts/index/<contract>/`: `balance` (tez), `counter` (Z, implicit accounts),
 * `manager` (key hash or revealed key), `delegate`, `data/code` + `len/code`, `data/storage` +
 * `len/storage` (the script parts as length-prefixed Micheline, with their byte length as an
 * int31), `paid_bytes`, `used_bytes` (Z). `contracts/global_counter` (Z) is the counter new
 * implicit accounts start from.
 * @module
 */
import { B58, b58encode } from "../../../encoding/base58.ts";
import { encodeBinary } from "../../../encoding/codec.ts";
import { formatPublicKey, formatPublicKeyHash, publicKeyHash, type PublicKey } from "../../../crypto/keys.ts";
import { originatedContractHash } from "../../../crypto/hashes.ts";
import type { Micheline } from "../../../encoding/micheline.ts";
import { decodeBinary } from "../../../encoding/codec.ts";
import { lazyExpression } from "../../../encoding/hangzhou/script.ts";
import {
  balanceTooLow,
  contractFailure,
  counterInTheFuture,
  counterInThePast,
  emptyImplicitContract,
  emptyImplicitDelegatedContract,
  emptyTransaction,
  inconsistentHash,
  nonExistingContract,
  previouslyRevealedKey,
  unrevealedManagerKey,
} from "./errors.ts";
import {
  BIG_MAPS_NEXT_PATH,
  carbonatedPaths,
  CONTRACTS_INDEX_PATH,
  contractOfSegment,
  contractPath,
  decodeManager,
  decodeTez,
  decodeZ,
  encodeInt32,
  encodeManager,
  encodeTez,
  encodeZ,
  GLOBAL_COUNTER_PATH,
  isImplicit,
  SAPLING_NEXT_PATH,
  type Manager,
} from "./layout.ts";
import { initDelegate, unlink } from "./delegation.ts";
import type { ProtoContext } from "./proto-context.ts";
import { contractAddAmount, contractDelegate, contractRemoveAmount } from "./roll.ts";
import { tezAdd } from "./tez.ts";

const balancePath = (c: string) => contractPath(c, "balance");
const counterPath = (c: string) => contractPath(c, "counter");
const managerPath = (c: string) => contractPath(c, "manager");
const paidPath = (c: string) => contractPath(c, "paid_bytes");
const usedPath = (c: string) => contractPath(c, "used_bytes");

/** Initialises the contract tables (`Contract_storage.init`): global counter 0, big map and sapling ids from 0. */
export function initContracts(pc: ProtoContext): void {
  pc.init(GLOBAL_COUNTER_PATH, encodeZ(0n));
  pc.init(BIG_MAPS_NEXT_PATH, encodeZ(0n));
  pc.init(SAPLING_NEXT_PATH, encodeZ(0n));
}

/** The global counter (the counter of the next implicit account). */
export function globalCounter(pc: ProtoContext): bigint {
  return decodeZ(pc.get(GLOBAL_COUNTER_PATH));
}

// ---------------------------------------------------------------------------------------------
// Reads

/** The stored balance, or `undefined` when the contract is not allocated. */
export function findBalance(pc: ProtoContext, contract: string): bigint | undefined {
  const b = pc.find(balancePath(contract));
  return b === undefined ? undefined : decodeTez(b);
}

/** A contract's balance (`get_balance`): 0 for an unallocated implicit account; `contract.failure` for an unknown KT1. */
export function getBalance(pc: ProtoContext, contract: string): bigint {
  const b = findBalance(pc, contract);
  if (b !== undefined) return b;
  if (isImplicit(contract)) return 0n;
  throw contractFailure.error({ message: "get_balance" });
}

/** Whether the contract has a balance entry (`allocated`). */
export function allocated(pc: ProtoContext, contract: string): boolean {
  return pc.mem(balancePath(contract));
}

/** Implicit accounts always exist; originated ones when allocated (`exists`). */
export function contractExists(pc: ProtoContext, contract: string): boolean {
  return isImplicit(contract) || allocated(pc, contract);
}

/** `contract.non_existing_contract` unless the contract exists (`must_exist`). */
export function mustExist(pc: ProtoContext, contract: string): void {
  if (!contractExists(pc, contract)) throw nonExistingContract.error({ contract });
}

/** `implicit.empty_implicit_contract` / `contract.non_existing_contract` unless allocated (`must_be_allocated`). */
export function mustBeAllocated(pc: ProtoContext, contract: string): void {
  if (allocated(pc, contract)) return;
  if (isImplicit(contract)) throw emptyImplicitContract.error({ implicit: contract });
  throw nonExistingContract.error({ contract });
}

/** Every allocated contract, in context order (tz1, tz2, tz3, then KT1, each by bytes). */
export function listContracts(pc: ProtoContext): string[] {
  return pc.listKeys(CONTRACTS_INDEX_PATH).map(contractOfSegment);
}

/** The manager entry, if any. */
export function getManager(pc: ProtoContext, contract: string): Manager | undefined {
  const b = pc.find(managerPath(contract));
  return b === undefined ? undefined : decodeManager(b);
}

/**
 * The revealed key of an implicit account (`get_manager_key`): `contract.unrevealed_key` when only
 * the hash is known, `contract.failure` when the account does not exist.
 */
export function getManagerKey(pc: ProtoContext, pkh: string): PublicKey {
  const m = getManager(pc, pkh);
  if (m === undefined) throw contractFailure.error({ message: "get_manager_key" });
  if (m.kind === "hash") throw unrevealedManagerKey.error({ contract: pkh });
  return m.publicKey;
}

/** The revealed key, or `undefined` (not revealed or no account): what `manager_key` answers. */
export function findManagerKey(pc: ProtoContext, pkh: string): PublicKey | undefined {
  const m = getManager(pc, pkh);
  return m?.kind === "public_key" ? m.publicKey : undefined;
}

/** Whether the account's key is revealed (`is_manager_key_revealed`). */
export function isManagerKeyRevealed(pc: ProtoContext, pkh: string): boolean {
  return findManagerKey(pc, pkh) !== undefined;
}

/**
 * Reveals an account's key (`reveal_manager_key`): `contract.previously_revealed_key` if already
 * revealed, `contract.manager.inconsistent_hash` if the key does not hash to the account,
 * `context.storage_error` if the account does not exist.
 */
export function revealManagerKey(pc: ProtoContext, pkh: string, publicKey: PublicKey): void {
  const b = pc.get(managerPath(pkh));
  const m = decodeManager(b);
  if (m.kind === "public_key") throw previouslyRevealedKey.error({ contract: pkh });
  const actual = formatPublicKeyHash(publicKeyHash(publicKey));
  if (actual !== m.pkh) {
    throw inconsistentHash.error({ public_key: formatPublicKey(publicKey), expected_hash: m.pkh, provided_hash: actual });
  }
  pc.update(managerPath(pkh), encodeManager({ kind: "public_key", publicKey }));
}

/** The counter of an implicit account; the global counter for an unallocated one (`get_counter`). */
export function getCounter(pc: ProtoContext, pkh: string): bigint {
  const b = pc.find(counterPath(pkh));
  if (b !== undefined) return decodeZ(b);
  if (isImplicit(pkh)) return globalCounter(pc);
  throw contractFailure.error({ message: "get_counter" });
}

/** `contract.counter_in_the_past` / `_in_the_future` unless `counter` = stored + 1 (`check_counter_increment`). */
export function checkCounterIncrement(pc: ProtoContext, pkh: string, counter: bigint): void {
  const expected = decodeZ(pc.get(counterPath(pkh))) + 1n;
  if (expected === counter) return;
  if (expected > counter) throw counterInThePast.error({ contract: pkh, expected, found: counter });
  throw counterInTheFuture.error({ contract: pkh, expected, found: counter });
}

/** Increments the global counter and the account's (`increment_counter`). */
export function incrementCounter(pc: ProtoContext, pkh: string): void {
  pc.atomically(() => {
    pc.update(GLOBAL_COUNTER_PATH, encodeZ(globalCounter(pc) + 1n));
    pc.update(counterPath(pkh), encodeZ(decodeZ(pc.get(counterPath(pkh))) + 1n));
  });
}

// ---------------------------------------------------------------------------------------------
// Scripts

/** A script as stored: code and storage as Micheline expressions. */
export interface StoredScript {
  code: Micheline;
  storage: Micheline;
}

function setScriptPart(pc: ProtoContext, contract: string, name: "code" | "storage", value: Micheline, mode: "init" | "update"): number {
  const bytes = encodeBinary(lazyExpression, value);
  const { data, len } = carbonatedPaths(contract, name);
  pc[mode](len, encodeInt32(bytes.length));
  pc[mode](data, bytes);
  return bytes.length;
}

function findScriptPart(pc: ProtoContext, contract: string, name: "code" | "storage"): Micheline | undefined {
  const b = pc.find(carbonatedPaths(contract, name).data);
  return b === undefined ? undefined : decodeBinary(lazyExpression, b);
}

/** The script of a contract, or `undefined` for an implicit account (`get_script`). */
export function getScript(pc: ProtoContext, contract: string): StoredScript | undefined {
  const code = findScriptPart(pc, contract, "code");
  const storage = findScriptPart(pc, contract, "storage");
  if (code === undefined && storage === undefined) return undefined;
  if (code === undefined || storage === undefined) throw contractFailure.error({ message: "get_script" });
  return { code, storage };
}

/** The stored code bytes as Octez keeps them (length-prefixed Micheline), or `undefined`. */
export function getScriptCodeBytes(pc: ProtoContext, contract: string): Uint8Array | undefined {
  return pc.find(carbonatedPaths(contract, "code").data);
}

/** Bytes used by a contract's script and lazy storage (`used_storage_space`), 0 when unset. */
export function usedStorageSpace(pc: ProtoContext, contract: string): bigint {
  const b = pc.find(usedPath(contract));
  return b === undefined ? 0n : decodeZ(b);
}

/** Bytes already paid for (`paid_storage_space`), 0 when unset. */
export function paidStorageSpace(pc: ProtoContext, contract: string): bigint {
  const b = pc.find(paidPath(contract));
  return b === undefined ? 0n : decodeZ(b);
}

/**
 * Raises the paid space to `newSpace` if it is more, returning the bytes to pay
 * (`set_paid_storage_space_and_return_fees_to_pay`).
 */
export function setPaidStorageSpace(pc: ProtoContext, contract: string, newSpace: bigint): bigint {
  const already = decodeZ(pc.get(paidPath(contract)));
  if (already >= newSpace) return 0n;
  pc.update(paidPath(contract), encodeZ(newSpace));
  return newSpace - already;
}

/**
 * Replaces a contract's storage and updates its used space by the size difference plus
 * `lazyStorageSizeDiff` (`update_script_storage`, the lazy storage diff applied by the caller).
 */
export function updateScriptStorage(pc: ProtoContext, contract: string, storage: Micheline, lazyStorageSizeDiff = 0n): void {
  pc.atomically(() => {
    const before = decodeInt32(pc.get(carbonatedPaths(contract, "storage").len));
    const after = setScriptPart(pc, contract, "storage", storage, "update");
    const used = decodeZ(pc.get(usedPath(contract)));
    pc.update(usedPath(contract), encodeZ(used + lazyStorageSizeDiff + BigInt(after - before)));
  });
}

function decodeInt32(b: Uint8Array): number {
  return new DataView(b.buffer, b.byteOffset, 4).getInt32(0);
}

// ---------------------------------------------------------------------------------------------
// Creation and removal

/** What an origination stores (`raw_originate`). */
export interface OriginationArgs {
  balance: bigint;
  /** The script, its storage already normalised by the caller (typechecked, optimized). */
  script: StoredScript;
  /** Bytes of lazy storage (big maps) the script's storage allocated, already written by the caller. */
  lazyStorageSize?: bigint;
  delegate?: string;
  /** Bootstrap contracts have their storage prepaid. */
  prepaidBootstrapStorage?: boolean;
}

/**
 * Creates an originated contract (`raw_originate` / `create_base`): balance, optional delegate
 * (linked, moving rolls), code, storage, `paid_bytes` (the total size when prepaid, else 0) and
 * `used_bytes` (code + storage + lazy storage).
 */
export function rawOriginate(pc: ProtoContext, contract: string, args: OriginationArgs): void {
  if (isImplicit(contract)) throw new TypeError(`rawOriginate: ${contract} is not an originated contract`);
  pc.atomically(() => {
    pc.init(balancePath(contract), encodeTez(args.balance));
    if (args.delegate !== undefined) initDelegate(pc, contract, args.delegate);
    const codeSize = setScriptPart(pc, contract, "code", args.script.code, "init");
    const storageSize = setScriptPart(pc, contract, "storage", args.script.storage, "init");
    const total = BigInt(codeSize + storageSize) + (args.lazyStorageSize ?? 0n);
    pc.init(paidPath(contract), encodeZ(args.prepaidBootstrapStorage === true ? total : 0n));
    pc.init(usedPath(contract), encodeZ(total));
  });
}

/** Allocates an implicit account (`create_implicit`): counter = global counter, balance, manager = its hash. */
export function createImplicit(pc: ProtoContext, pkh: string, balance: bigint): void {
  if (!isImplicit(pkh)) throw new TypeError(`createImplicit: ${pkh} is not an implicit account`);
  pc.atomically(() => {
    pc.init(counterPath(pkh), encodeZ(globalCounter(pc)));
    pc.init(balancePath(pkh), encodeTez(balance));
    pc.init(managerPath(pkh), encodeManager({ kind: "hash", pkh }));
  });
}

/** Removes an emptied implicit account (`delete`): unlinks it, then drops balance, manager, counter, script and space entries. */
export function deleteImplicit(pc: ProtoContext, contract: string): void {
  if (!isImplicit(contract)) throw contractFailure.error({ message: "Non implicit contracts cannot be removed" });
  pc.atomically(() => {
    unlink(pc, contract);
    pc.removeExisting(balancePath(contract));
    pc.removeExisting(managerPath(contract));
    pc.removeExisting(counterPath(contract));
    for (const name of ["code", "storage"] as const) {
      const { data, len } = carbonatedPaths(contract, name);
      pc.remove(len);
      pc.remove(data);
    }
    pc.remove(paidPath(contract));
    pc.remove(usedPath(contract));
  });
}

/**
 * The next originated contract of the current origination nonce (`fresh_contract_from_current_nonce`):
 * KT1 of BLAKE2b-160(operation hash ‖ int32 index); `undefined_operation_nonce` when unset.
 */
export function freshContractFromCurrentNonce(pc: ProtoContext): string {
  const n = pc.incrementOriginationNonce();
  return b58encode(B58.contractHash, originatedContractHash(n.operationHash, n.index));
}

// ---------------------------------------------------------------------------------------------
// Credit and spend

/**
 * Credits a contract (`credit`). A 0 credit is `contract.empty_transaction` for an implicit
 * account and needs an existing KT1. An unallocated implicit account is created with the amount
 * (no delegate, so no roll change); otherwise the balance grows and so does the delegate's
 * staking balance.
 */
export function credit(pc: ProtoContext, contract: string, amount: bigint): void {
  if (typeof amount !== "bigint" || amount < 0n) throw new RangeError(`credit: amount must be a non-negative bigint, got ${String(amount)}`);
  pc.atomically(() => {
    if (amount === 0n) {
      if (isImplicit(contract)) throw emptyTransaction.error({ contract });
      mustExist(pc, contract);
    }
    const balance = findBalance(pc, contract);
    if (balance === undefined) {
      if (!isImplicit(contract)) throw nonExistingContract.error({ contract });
      createImplicit(pc, contract, amount);
      return;
    }
    pc.update(balancePath(contract), encodeTez(tezAdd(amount, balance)));
    contractAddAmount(pc, contract, amount);
  });
}

/**
 * Debits a contract (`spend`): `contract.balance_too_low` if short; the delegate's staking balance
 * shrinks. An implicit account left at 0 is removed, unless it is its own delegate; one that
 * delegates elsewhere cannot be emptied (`implicit.empty_implicit_delegated_contract`).
 */
export function spend(pc: ProtoContext, contract: string, amount: bigint): void {
  if (typeof amount !== "bigint" || amount < 0n) throw new RangeError(`spend: amount must be a non-negative bigint, got ${String(amount)}`);
  pc.atomically(() => {
    const balance = decodeTez(pc.get(balancePath(contract)));
    if (balance < amount) throw balanceTooLow.error({ contract, balance, amount });
    const newBalance = balance - amount;
    pc.update(balancePath(contract), encodeTez(newBalance));
    contractRemoveAmount(pc, contract, amount);
    if (newBalance > 0n || !isImplicit(contract)) return;
    const d = contractDelegate(pc, contract);
    if (d === contract) return;
    if (d !== undefined) throw emptyImplicitDelegatedContract.error({ implicit: contract });
    deleteImplicit(pc, contract);
  });
}
