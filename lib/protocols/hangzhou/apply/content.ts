/**
 * One manager operation applied, top-level or internal (Octez `apply.ml`:
 * `apply_manager_operation_content`, `apply_internal_manager_operations`; `fees_storage.ml`):
 * transactions (to implicit accounts, and to originated contracts whose script runs), originations,
 * delegations, global constant registrations, and the internal operations scripts emit, applied
 * depth first (the operations a call emits go before the rest of the worklist). A called contract's
 * typed script comes from the script cache (`../michelson/script-cache.ts`: `Script_cache.find`
 * before the run, `Script_cache.update` after it).
 *
 * A content's storage is counted in a {@link StorageAccount} (bytes newly paid and contracts
 * allocated); the caller burns it once the content and its internal operations are applied.
 * @module
 */
import { B58, b58decode, b58encode } from "../../../encoding/base58.ts";
import { encodeBinary } from "../../../encoding/codec.ts";
import { type InternalManagerOperation, type InternalOperation, internalOperation } from "../../../encoding/hangzhou/operation.ts";
import { expression } from "../../../encoding/hangzhou/script.ts";
import { type BalanceUpdate, cleanupBalanceUpdates } from "../../../encoding/hangzhou/receipts/balance-updates.ts";
import { type LazyStorageDiffItem, toLegacyBigMapDiff } from "../../../encoding/hangzhou/receipts/lazy-storage-diff.ts";
import {
  type AnyManagerOperationResult,
  consumedGas,
  type InternalOperationResult,
  type ManagerKind,
} from "../../../encoding/hangzhou/receipts/operation-results.ts";
import type { Micheline } from "../../../encoding/micheline.ts";
import { obj, req } from "../../../encoding/object.ts";
import { scriptExprHash } from "../../../crypto/hashes.ts";
import { type ErrorDefinition, TezosError } from "../../../errors/mod.ts";
import { badContractParameter, cannotSerializeStorage } from "../../../michelson/script/errors.ts";
import { noSuchEntrypoint } from "../../../michelson/data/errors.ts";
import { storageSizeCost } from "../../../michelson/script/script.ts";
import { type CachedContract, findScript, updateScript } from "../michelson/script-cache.ts";
import { storageSizeOfCost } from "../michelson/script-size.ts";
import { illTypedData } from "../../../michelson/data/errors.ts";
import { unparseTy } from "../../../michelson/data/parse-type.ts";
import type { Operation, Value } from "../../../michelson/value.ts";
import { forceBytesCost, stripLocationsCost } from "../../../michelson/gas/script.ts";
import { michelineNodes } from "../../../michelson/gas/size.ts";
import { protoError } from "../proto-error.ts";
import { parseScript } from "../../../michelson/script/script.ts";
import { execute } from "../../../michelson/script/execute.ts";
import { parseData } from "../../../michelson/data/parse-data.ts";
import { unparseData } from "../../../michelson/data/unparse-data.ts";
import * as lazyStorage from "../../../michelson/lazy-storage.ts";
import { makeScriptContext, scriptLevel, scriptNow, type HangzhouScriptContext } from "../michelson/script-context.ts";
import {
  allocated,
  contractExists,
  credit,
  mustExist,
  rawOriginate,
  setPaidStorageSpace,
  spend,
  updateScriptStorage,
  usedStorageSpace,
} from "../storage/contract.ts";
import { setDelegate } from "../storage/delegation.ts";
import { findGlobalConstant, initGlobalConstant } from "../storage/global-constants.ts";
import { applyLazyStorageDiff } from "../storage/lazy-storage-diff.ts";
import { freshBigMapId } from "../storage/big-map.ts";
import { isImplicit, originatedContract } from "../storage/layout.ts";
import type { ProtoContext } from "../storage/proto-context.ts";
import { tezMul } from "../storage/tez.ts";
import { originatedContractHash } from "../../../crypto/hashes.ts";
import { MANAGER_OPERATION_COST, REVEAL_COST } from "./gas.ts";

// ---------------------------------------------------------------------------------------------
// Errors

/** `internal_operation_replay` (branch): an internal operation nonce applied twice. */
export const internalOperationReplay: ErrorDefinition<{ operation: InternalOperation }> = protoError({
  id: "internal_operation_replay",
  kind: "branch",
  title: "Internal operation replay",
  description: "An internal operation was emitted twice by a script",
  fields: obj(req("operation", internalOperation)),
});

/** `Expression_too_deep` (branch). */
export const expressionTooDeep: ErrorDefinition = protoError({
  id: "Expression_too_deep",
  kind: "branch",
  title: "Expression too deep",
  description: "Attempted to register an expression that, after fully expanding all referenced global constants, would result in too many levels of nesting.",
});

/** `Expression_already_registered` (branch). */
export const expressionAlreadyRegistered: ErrorDefinition = protoError({
  id: "Expression_already_registered",
  kind: "branch",
  title: "Expression already registered",
  description: "Attempted to register an expression as global constant that has already been registered.",
});

/** `Badly_formed_constant_expression` (branch). */
export const badlyFormedConstantExpression: ErrorDefinition = protoError({
  id: "Badly_formed_constant_expression",
  kind: "branch",
  title: "Badly formed constant expression",
  description: "Found a badly formed constant expression. The 'constant' primitive must always be followed by a string of the hash of the expression it points to.",
});

/** `Nonexistent_global` (branch). */
export const nonexistentGlobal: ErrorDefinition = protoError({
  id: "Nonexistent_global",
  kind: "branch",
  title: "Tried to look up nonexistent global",
  description: "No registered global was found at the given hash in storage.",
});

/** `Expression_too_large` (branch). */
export const expressionTooLarge: ErrorDefinition = protoError({
  id: "Expression_too_large",
  kind: "branch",
  title: "Expression too large",
  description: "Encountered an expression that, after expanding all constants, is larger than the expression size limit.",
});

// ---------------------------------------------------------------------------------------------
// Environment

/** Storage paid by the content being applied (Octez's `storage_space_to_pay` and allocated contracts count). */
export interface StorageAccount {
  spaceToPay: bigint;
  allocatedContracts: bigint;
}

/** What every operation of one content shares. */
export interface ContentEnv {
  /** The implicit account that signed (Octez `payer`, Michelson `SOURCE`). */
  readonly payer: string;
  /** `CHAIN_ID` of scripts (Base58Check `Net…`). */
  readonly chainId: string;
  readonly storage: StorageAccount;
}

/** An operation to apply: its source, and for internal ones the nonce and the contract a `CREATE_CONTRACT` already chose. */
export interface PendingOperation {
  readonly source: string;
  readonly operation: InternalManagerOperation;
  readonly nonce?: number;
  readonly preorigination?: string;
}

/** The success fields of one applied operation (gas included) and the operations it emitted. */
export interface AppliedOperation {
  readonly fields: Record<string, unknown>;
  readonly emitted: PendingOperation[];
}

function debit(contract: string, amount: bigint): BalanceUpdate {
  return { kind: "contract", contract, change: -amount, origin: "block" };
}

function creditUpdate(contract: string, amount: bigint): BalanceUpdate {
  return { kind: "contract", contract, change: amount, origin: "block" };
}

function isUnit(v: Micheline): boolean {
  if (Array.isArray(v)) return false;
  const p = v as { prim?: string; args?: readonly unknown[] };
  return p.prim === "Unit" && (p.args === undefined || p.args.length === 0);
}

const UNIT: Micheline = { prim: "Unit" };

/** `Fees.origination_burn`: counts one allocation; the burn it implies. */
function originationBurn(pc: ProtoContext, storage: StorageAccount): bigint {
  storage.allocatedContracts += 1n;
  return tezMul(pc.constants.cost_per_byte, BigInt(pc.constants.origination_size));
}

/** `Fees.record_paid_storage_space`: the contract's size, the bytes newly paid, their cost. */
export function recordPaidStorageSpace(pc: ProtoContext, contract: string, storage: StorageAccount | undefined): { size: bigint; paid: bigint; fees: bigint } {
  const size = usedStorageSpace(pc, contract);
  const paid = setPaidStorageSpace(pc, contract, size);
  if (storage !== undefined) storage.spaceToPay += paid;
  return { size, paid, fees: tezMul(pc.constants.cost_per_byte, paid) };
}

/** The lazy storage environment of the current operation: gas, temporary ids, and `big_maps/next`. */
function lazyEnv(pc: ProtoContext, ctx: HangzhouScriptContext): lazyStorage.LazyStorageEnv {
  return { gas: ctx.gas, freshBigMapId: (temporary) => (temporary ? ctx.freshTemporaryBigMapId() : freshBigMapId(pc)) };
}

export function diffFields(diff: LazyStorageDiffItem[] | undefined): Record<string, unknown> {
  return diff === undefined ? {} : { big_map_diff: toLegacyBigMapDiff(diff), lazy_storage_diff: diff };
}

/** Contracts originated by the current operation since origination index `since` that exist now (`originated_from_current_nonce`). */
function originatedSince(pc: ProtoContext, since: number): string[] {
  const n = pc.originationNonce;
  if (n === undefined) return [];
  const out: string[] = [];
  for (let i = since; i < n.index; i++) {
    const c = originatedContract(originatedContractHash(n.operationHash, i));
    if (contractExists(pc, c)) out.push(c);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Scripts

/**
 * Gas of writing a contract's new storage (`Storage.Contract.Storage.update`): serialising the
 * expression (`force_bytes_cost`) and writing it as a lazy expression (`write_access`).
 */
export function chargeStorageUpdate(pc: ProtoContext, storage: Micheline): void {
  pc.consumeGas(BigInt(forceBytesCost(storage)));
  pc.consumeGas(200_000n + 4n * BigInt(encodeBinary(expression, storage).length + 4));
}

/** The result of running a contract: its new storage, diff, the operations it emitted, and its cache entry. */
export interface ExecutionResult {
  readonly storage: Micheline;
  readonly lazyStorageDiff: LazyStorageDiffItem[] | undefined;
  readonly operations: PendingOperation[];
  /** The contract as the script cache keeps it after the run, and its size there. */
  readonly cached: { readonly value: CachedContract; readonly size: number };
}


/**
 * Runs the cached script of `self` (`Script_interpreter.execute ~cached_script`): the parameter
 * typed against the entrypoint (forged tickets and big map ids allowed in internal calls only,
 * Octez `~allow_forged_in_parameter:internal`), the code run on the cached storage value, the
 * storage's big maps extracted (non temporary), the storage unparsed (Optimized), and the
 * storage's size model charged (`script_size`). The emitted operations' big maps become
 * temporary (their gas was charged by the instructions that emitted them). The diff is the
 * operations' diffs, in order, then the storage's.
 */
export function executeScript(
  pc: ProtoContext,
  ctx: HangzhouScriptContext,
  cached: CachedContract,
  args: { entrypoint: string; parameter: Micheline; internal?: boolean },
): ExecutionResult {
  const { extractLazyStorageDiff } = lazyStorage;
  const parsed = cached.script;
  const result = execute(ctx, parsed, {
    entrypoint: args.entrypoint,
    parameter: args.parameter,
    storage: cached.storage,
    storageValue: cached.storageValue,
    internal: args.internal ?? false,
  });
  const env = lazyEnv(pc, ctx);
  const operations: PendingOperation[] = [];
  const opDiffs: LazyStorageDiffItem[] = [];
  for (const op of result.operations) {
    const { pending, diff } = internalOperationOf(ctx.self, op);
    operations.push(pending);
    if (diff !== undefined) opDiffs.push(...diff);
  }
  const ex = extractLazyStorageDiff(env, parsed.storageTy, result.storage, {
    mode: "Optimized",
    temporary: false,
    toDuplicate: result.lazyIds.toDuplicate,
    toUpdate: result.lazyIds.toUpdate,
  });
  let storage: Micheline;
  try {
    storage = unparseData(parsed.storageTy, ex.value, "Optimized", { gas: ctx.gas });
    ctx.gas.consume(stripLocationsCost(storage));
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(cannotSerializeStorage.create(undefined));
    throw e;
  }
  const sizeCost = storageSizeCost(ctx, parsed.storageTy, ex.value);
  ctx.gas.consume(sizeCost);
  const all = [...opDiffs, ...(ex.diff ?? [])];
  const value: CachedContract = { ...cached, storage, storageValue: ex.value };
  return {
    storage,
    lazyStorageDiff: all.length === 0 ? undefined : all,
    operations,
    cached: { value, size: cached.codeSize + storageSizeOfCost(sizeCost) },
  };
}

/** An emitted operation as the internal operation to apply, with the lazy storage diff its values brought (made by the instruction). */
function internalOperationOf(self: string, op: Operation): { pending: PendingOperation; diff: LazyStorageDiffItem[] | undefined } {
  switch (op.op) {
    case "transaction": {
      const operation: InternalManagerOperation = { kind: "transaction", amount: op.amount, destination: op.destination };
      if (op.entrypoint !== "default" && op.entrypoint !== "" || !isUnit(op.parameters)) {
        operation.parameters = { entrypoint: op.entrypoint === "" ? "default" : op.entrypoint, value: op.parameters };
      }
      return { pending: { source: self, nonce: op.nonce, operation }, diff: op.lazyStorageDiff?.slice() };
    }
    case "origination": {
      const operation: InternalManagerOperation = { kind: "origination", balance: op.credit, script: { code: op.code, storage: op.storage } };
      if (op.delegate !== null) operation.delegate = op.delegate;
      return { pending: { source: self, nonce: op.nonce, operation, preorigination: op.address }, diff: op.lazyStorageDiff?.slice() };
    }
    case "delegation": {
      const operation: InternalManagerOperation = op.delegate === null ? { kind: "delegation" } : { kind: "delegation", delegate: op.delegate };
      return { pending: { source: self, nonce: op.nonce, operation }, diff: undefined };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Operations

function applyTransaction(
  pc: ProtoContext,
  env: ContentEnv,
  source: string,
  op: { amount: bigint; destination: string; parameters?: { entrypoint: string; value: Micheline } },
  internal: boolean,
): AppliedOperation {
  const { destination, amount } = op;
  const entrypoint = op.parameters?.entrypoint ?? "default";
  const parameter = op.parameters?.value ?? UNIT;
  const nonceBefore = pc.originationNonce?.index ?? 0;
  spend(pc, source, amount);
  const burns: BalanceUpdate[] = [];
  let allocatedDestination = false;
  if (isImplicit(destination) && !allocated(pc, destination)) {
    burns.push(debit(env.payer, originationBurn(pc, env.storage)));
    allocatedDestination = true;
  }
  credit(pc, destination, amount);
  const ctx = makeScriptContext(pc, {
    self: destination,
    sender: source,
    source: env.payer,
    amount,
    now: scriptNow(pc),
    level: scriptLevel(pc),
    chainId: env.chainId,
    legacy: true,
  });
  const cached = findScript(pc, ctx, destination);
  if (cached === undefined) {
    // an account without script (implicit): only Unit to the default entrypoint
    if (entrypoint !== "default") throw noSuchEntrypointError(entrypoint);
    if (!isUnit(parameter)) throw badContractParameterError(destination);
    return {
      fields: {
        balance_updates: [...cleanupBalanceUpdates([debit(source, amount), creditUpdate(destination, amount)]), ...burns],
        originated_contracts: [],
        storage_size: 0n,
        paid_storage_size_diff: 0n,
        allocated_destination_contract: allocatedDestination,
      },
      emitted: [],
    };
  }
  const r = executeScript(pc, ctx, cached, { entrypoint, parameter, internal });
  const lazySize = applyLazyStorageDiff(pc, r.lazyStorageDiff);
  chargeStorageUpdate(pc, r.storage);
  updateScriptStorage(pc, destination, r.storage, lazySize);
  const { size, paid, fees } = recordPaidStorageSpace(pc, destination, env.storage);
  const originated = originatedSince(pc, nonceBefore);
  updateScript(pc, destination, r.cached.value, r.cached.size);
  return {
    fields: {
      storage: r.storage,
      ...diffFields(r.lazyStorageDiff),
      balance_updates: cleanupBalanceUpdates([debit(env.payer, fees), debit(source, amount), creditUpdate(destination, amount)]),
      originated_contracts: originated,
      storage_size: size,
      paid_storage_size_diff: paid,
      allocated_destination_contract: allocatedDestination,
    },
    emitted: r.operations,
  };
}

function applyOrigination(
  pc: ProtoContext,
  env: ContentEnv,
  source: string,
  op: { balance: bigint; delegate?: string; script: { code: Micheline; storage: Micheline } },
  internal: boolean,
  preorigination: string | undefined,
): AppliedOperation {
  const ctx = makeScriptContext(pc, {
    self: source,
    sender: source,
    source: env.payer,
    amount: 0n,
    now: scriptNow(pc),
    level: scriptLevel(pc),
    chainId: env.chainId,
    legacy: false,
  });
  const { collectLazyStorage, extractLazyStorageDiff } = lazyStorage;
  // parse_script: global constants expanded (with gas), then checked with its views, as an origination is
  const parsed = parseScript(ctx, expandGlobalConstants(pc, op.script.code), { legacy: false, typecheckViews: true });
  let value: Value;
  try {
    value = parseData(ctx, parsed.storageTy, op.script.storage, { legacy: false, allowForgedTickets: internal, allowForgedLazyStorageId: internal });
  } catch (e) {
    // Octez `parse_storage`: trace_eval (Ill_typed_data (None, storage, storage_type)) (parse_data …)
    if (e instanceof TezosError) throw e.withContext(illTypedData.create({ expected_type: unparseTy(parsed.storageTy), ill_typed_expression: op.script.storage }));
    throw e;
  }
  const toDuplicate = collectLazyStorage(parsed.storageTy, value, ctx.gas);
  const ex = extractLazyStorageDiff(lazyEnv(pc, ctx), parsed.storageTy, value, {
    mode: "Optimized",
    temporary: false,
    toDuplicate,
    toUpdate: new Set(),
  });
  const storage = unparseData(parsed.storageTy, ex.value, "Optimized");
  ctx.gas.consume(stripLocationsCost(storage));
  spend(pc, source, op.balance);
  const contract = preorigination ?? ctx.freshContractAddress();
  const lazySize = applyLazyStorageDiff(pc, ex.diff);
  const codeBytes = encodeBinary(expression, op.script.code).length + 4;
  const storageBytes = encodeBinary(expression, storage).length + 4;
  pc.consumeGas(200_000n + 4n * BigInt(codeBytes) + 200_000n + 4n * BigInt(storageBytes));
  const originationArgs: Parameters<typeof rawOriginate>[2] = { balance: op.balance, script: { code: op.script.code, storage }, lazyStorageSize: lazySize };
  if (op.delegate !== undefined) originationArgs.delegate = op.delegate;
  rawOriginate(pc, contract, originationArgs);
  const burn = originationBurn(pc, env.storage);
  const { size, paid, fees } = recordPaidStorageSpace(pc, contract, env.storage);
  return {
    fields: {
      ...diffFields(ex.diff),
      balance_updates: cleanupBalanceUpdates([debit(env.payer, fees), debit(env.payer, burn), debit(source, op.balance), creditUpdate(contract, op.balance)]),
      originated_contracts: [contract],
      storage_size: size,
      paid_storage_size_diff: paid,
    },
    emitted: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Global constants

const MAX_MICHELINE_NODE_COUNT = 50_000;
const MAX_MICHELINE_BYTES_LIMIT = 50_000;
const MAX_GLOBAL_CONSTANT_DEPTH = 10_000;

function log2(x: number): number {
  return 1 + (x === 0 ? 0 : Math.floor(Math.log2(x)) + 1);
}

/** `Global_constants_costs.expand_no_constants_branch_cost`, milligas. */
function expandNoConstantsBranchCost(node: Micheline): bigint {
  const n = michelineNodes(node);
  const v = n * log2(n);
  return BigInt(100 + 4 * v + (v >> 1) + (v >> 3));
}

/** Expands `constant "expr…"` nodes bottom-up (`Global_constants_storage.expand`), charging Octez's gas. */
export function expandGlobalConstants(pc: ProtoContext, node: Micheline): Micheline {
  pc.consumeGas(expandNoConstantsBranchCost(node));
  const cache = new Map<string, Micheline>();
  let expanded = false;
  const visit = (n: Micheline): Micheline => {
    if (Array.isArray(n)) return (n as readonly Micheline[]).map(visit);
    const p = n as { prim?: string; args?: readonly Micheline[]; annots?: readonly string[] };
    if (p.prim === undefined) return n;
    const args = p.args?.map(visit);
    const rebuilt = (args === undefined ? n : { ...p, args }) as Micheline;
    if (p.prim !== "constant") return rebuilt;
    pc.consumeGas(4095n);
    const a = args ?? [];
    const s = (a[0] as { string?: string } | undefined)?.string;
    if (a.length !== 1 || s === undefined || (p.annots !== undefined && p.annots.length > 0)) throw badlyFormedConstantExpression.error();
    let value = cache.get(s);
    if (value === undefined) {
      let hash: Uint8Array;
      try {
        hash = b58decodeExpr(s);
      } catch {
        throw badlyFormedConstantExpression.error();
      }
      value = findGlobalConstant(pc, hash);
      if (value === undefined) throw nonexistentGlobal.error();
      cache.set(s, value);
    }
    pc.consumeGas(expandNoConstantsBranchCost(value));
    expanded = true;
    return value;
  };
  const out = visit(node);
  if (expanded) {
    const size = micheline(out);
    if (size.nodes > MAX_MICHELINE_NODE_COUNT || size.bytes > MAX_MICHELINE_BYTES_LIMIT) throw expressionTooLarge.error();
  }
  return out;
}

function micheline(n: Micheline): { nodes: number; bytes: number } {
  let nodes = 0;
  let bytes = 0;
  const stack: Micheline[] = [n];
  while (stack.length > 0) {
    const x = stack.pop()!;
    nodes++;
    if (Array.isArray(x)) stack.push(...(x as readonly Micheline[]));
    else {
      const p = x as { prim?: string; args?: readonly Micheline[]; string?: string; int?: string; bytes?: string };
      if (p.string !== undefined) bytes += new TextEncoder().encode(p.string).length;
      else if (p.bytes !== undefined) bytes += p.bytes.length / 2;
      else if (p.int !== undefined) bytes += zBytes(BigInt(p.int));
      else if (p.args !== undefined) stack.push(...p.args);
    }
  }
  return { nodes, bytes };
}

function zBytes(z: bigint): number {
  // Script_repr.Micheline_size: z_bytes = (numbits + 7) / 8
  let a = z < 0n ? -z : z;
  let bits = 0;
  while (a > 0n) {
    bits++;
    a >>= 1n;
  }
  return Math.floor((bits + 7) / 8);
}

function b58decodeExpr(s: string): Uint8Array {
  return b58decode(B58.scriptExprHash, s);
}

/** `Global_constants_storage.check_depth`: `Expression_too_deep` beyond 10 000 levels. */
function checkDepth(node: Micheline): void {
  const depth = (n: Micheline, d: number): number => {
    if (d > MAX_GLOBAL_CONSTANT_DEPTH) throw expressionTooDeep.error();
    const kids = Array.isArray(n) ? (n as readonly Micheline[]) : ((n as { args?: readonly Micheline[] }).args ?? []);
    let m = d + 1;
    for (const k of kids) m = Math.max(m, depth(k, d + 1));
    return m;
  };
  depth(node, 0);
}

function applyRegisterGlobalConstant(pc: ProtoContext, env: ContentEnv, value: Micheline): AppliedOperation {
  const expandedValue = expandGlobalConstants(pc, value);
  checkDepth(expandedValue);
  pc.consumeGas(BigInt(forceBytesCost(value)));
  const bytes = encodeBinary(expression, value);
  const v0 = bytes.length;
  pc.consumeGas(BigInt(200 + v0 + (v0 >> 2)));
  const hash = scriptExprHash(bytes);
  let size: bigint;
  try {
    size = BigInt(initGlobalConstant(pc, hash, value));
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(expressionAlreadyRegistered.create());
    throw e;
  }
  const paidSize = size + 65n;
  env.storage.spaceToPay += paidSize;
  const fees = tezMul(pc.constants.cost_per_byte, paidSize);
  return {
    fields: {
      balance_updates: cleanupBalanceUpdates([debit(env.payer, fees)]),
      storage_size: paidSize,
      global_address: b58encode(B58.scriptExprHash, hash),
    },
    emitted: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Entry points

/**
 * `apply_manager_operation_content`: one operation of `source` (checked to exist), its base gas,
 * then its effect. The fields include the gas it consumed.
 */
export function applyOperationContent(pc: ProtoContext, env: ContentEnv, op: PendingOperation, internal: boolean): AppliedOperation {
  const before = pc.remainingOperationGas;
  mustExist(pc, op.source);
  pc.consumeGas(op.operation.kind === "reveal" ? REVEAL_COST : MANAGER_OPERATION_COST);
  let applied: AppliedOperation;
  const o = op.operation;
  switch (o.kind) {
    case "reveal":
      applied = { fields: {}, emitted: [] };
      break;
    case "transaction":
      applied = applyTransaction(pc, env, op.source, o, internal);
      break;
    case "origination":
      applied = applyOrigination(pc, env, op.source, o, internal, op.preorigination);
      break;
    case "delegation":
      setDelegate(pc, op.source, o.delegate);
      applied = { fields: {}, emitted: [] };
      break;
    case "register_global_constant":
      applied = applyRegisterGlobalConstant(pc, env, o.value);
      break;
  }
  const gas = consumedGas(before - pc.remainingOperationGas);
  const fields = o.kind === "register_global_constant" ? { ...applied.fields, consumed_gas: gas.consumed_gas } : { ...applied.fields, ...gas };
  return { fields, emitted: applied.emitted };
}

/**
 * `apply_internal_manager_operations`: the worklist applied depth first; on the first failure
 * that one is `failed`, the rest `skipped`, and `ok` is false (the caller backtracks).
 */
export function applyInternalOperations(pc: ProtoContext, env: ContentEnv, ops: readonly PendingOperation[]): { ok: boolean; results: InternalOperationResult[] } {
  const results: InternalOperationResult[] = [];
  const worklist = [...ops];
  while (worklist.length > 0) {
    const op = worklist.shift()!;
    const nonce = op.nonce ?? 0;
    const described = { source: op.source, nonce, ...op.operation } as InternalOperation;
    try {
      const applied = pc.atomically(() => {
        if (pc.internalNoncesUsed.has(nonce)) throw internalOperationReplay.error({ operation: described });
        const used = new Set(pc.internalNoncesUsed);
        used.add(nonce);
        pc.internalNoncesUsed = used;
        return applyOperationContent(pc, env, op, true);
      });
      results.push({ ...described, result: { status: "applied", ...applied.fields } as AnyManagerOperationResult });
      worklist.unshift(...applied.emitted);
    } catch (e) {
      if (!(e instanceof TezosError)) throw e;
      results.push({ ...described, result: { status: "failed", errors: e.toJson() } as AnyManagerOperationResult });
      for (const rest of worklist) {
        results.push({ source: rest.source, nonce: rest.nonce ?? 0, ...rest.operation, result: { status: "skipped" } } as InternalOperationResult);
      }
      return { ok: false, results };
    }
  }
  return { ok: true, results };
}

/** The kind of an operation, as results name it. */
export function kindOf(op: InternalManagerOperation): ManagerKind {
  return op.kind;
}

function noSuchEntrypointError(entrypoint: string): TezosError {
  return noSuchEntrypoint.error({ entrypoint });
}

function badContractParameterError(contract: string): TezosError {
  return badContractParameter.error({ contract });
}

