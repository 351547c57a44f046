/**
 * Results of Hangzhou manager operations (`apply_results.ml`): per kind, the `applied`,
 * `failed`, `skipped` and `backtracked` results with their gas, storage, balance updates and
 * diffs; results of internal operations; and the successful results of the implicit operations
 * of a block (`implicit_operations_results`).
 *
 * Gas: `consumed_gas` is in gas units (Octez prints the ceiling of the milligas, a deprecated
 * field), `consumed_milligas` in milligas. Octez checks on input that the first is the ceiling of
 * the second; these codecs keep both as given (so that older receipts without milligas decode),
 * and {@link consumedGas} builds a consistent pair.
 * @module
 */
import type { Codec, FieldSpec } from "../../core.ts";
import { caseFields, caseKind, unionCasesOf } from "./cases.ts";
import { constant, def } from "../../conv.ts";
import { scriptExprHash } from "../../hashes.ts";
import { bool, uint16 } from "../../integers.ts";
import { list } from "../../list.ts";
import type { Micheline } from "../../micheline.ts";
import { dft, objOf, opt, req } from "../../object.ts";
import { tagged, union, type Case } from "../../union.ts";
import { n, z } from "../../zarith.ts";
import { bigMapDiff, contractId, type BigMapDiffItem } from "../basic.ts";
import { internalOperation, type InternalOperation } from "../operation.ts";
import { expression, normalizeTransaction } from "../script.ts";
import { balanceUpdates, type BalanceUpdate } from "./balance-updates.ts";
import { errorTrace, type ErrorTrace } from "./errors.ts";
import { lazyStorageDiff, type LazyStorageDiff } from "./lazy-storage-diff.ts";

/** Gas consumed by an operation: in gas units (rounded up) and in milligas. */
export interface GasConsumption {
  consumed_gas: bigint;
  consumed_milligas: bigint;
}

/** The consistent gas fields of a result for `milligas` consumed (gas = ceiling of milligas / 1000). */
export function consumedGas(milligas: bigint): GasConsumption {
  if (typeof milligas !== "bigint" || milligas < 0n) throw new RangeError(`Consumed milligas must be a non-negative bigint, got ${String(milligas)}`);
  return { consumed_gas: (milligas + 999n) / 1000n, consumed_milligas: milligas };
}

/** Successful reveal. */
export type RevealSuccess = GasConsumption;

/** Successful delegation. */
export type DelegationSuccess = GasConsumption;

/** Successful transaction. */
export interface TransactionSuccess extends GasConsumption {
  storage?: Micheline;
  /** Deprecated since protocol 008; Octez derives it from `lazy_storage_diff` (see `toLegacyBigMapDiff`). */
  big_map_diff?: BigMapDiffItem[];
  balance_updates: BalanceUpdate[];
  originated_contracts: string[];
  storage_size: bigint;
  paid_storage_size_diff: bigint;
  allocated_destination_contract: boolean;
  lazy_storage_diff?: LazyStorageDiff;
}

/** Successful origination. */
export interface OriginationSuccess extends GasConsumption {
  /** Deprecated since protocol 008; Octez derives it from `lazy_storage_diff` (see `toLegacyBigMapDiff`). */
  big_map_diff?: BigMapDiffItem[];
  balance_updates: BalanceUpdate[];
  originated_contracts: string[];
  storage_size: bigint;
  paid_storage_size_diff: bigint;
  lazy_storage_diff?: LazyStorageDiff;
}

/** Successful registration of a global constant (gas in gas units only, as Octez prints it). */
export interface RegisterGlobalConstantSuccess {
  balance_updates: BalanceUpdate[];
  consumed_gas: bigint;
  storage_size: bigint;
  global_address: string;
}

/** Successful results by manager operation kind. */
export interface ManagerSuccessByKind {
  reveal: RevealSuccess;
  transaction: TransactionSuccess;
  origination: OriginationSuccess;
  delegation: DelegationSuccess;
  register_global_constant: RegisterGlobalConstantSuccess;
}

/** Kinds of manager operations. */
export type ManagerKind = keyof ManagerSuccessByKind;

/** Result of a manager operation whose successful result is `S`. */
export type ManagerOperationResult<S> =
  | ({ status: "applied" } & S)
  | { status: "failed"; errors: ErrorTrace }
  | { status: "skipped" }
  | ({ status: "backtracked"; errors?: ErrorTrace } & S);

/** Result of a manager operation of any kind. */
export type AnyManagerOperationResult = ManagerOperationResult<ManagerSuccessByKind[ManagerKind]>;

const gasFields: FieldSpec[] = [dft("consumed_gas", n, 0n), dft("consumed_milligas", n, 0n)];

const successFields: { [K in ManagerKind]: FieldSpec[] } = {
  reveal: gasFields,
  transaction: [
    opt("storage", expression),
    opt("big_map_diff", bigMapDiff),
    dft("balance_updates", balanceUpdates, []),
    dft("originated_contracts", list(contractId), []),
    ...gasFields,
    dft("storage_size", z, 0n),
    dft("paid_storage_size_diff", z, 0n),
    dft("allocated_destination_contract", bool, false),
    opt("lazy_storage_diff", lazyStorageDiff),
  ],
  origination: [
    opt("big_map_diff", bigMapDiff),
    dft("balance_updates", balanceUpdates, []),
    dft("originated_contracts", list(contractId), []),
    ...gasFields,
    dft("storage_size", z, 0n),
    dft("paid_storage_size_diff", z, 0n),
    opt("lazy_storage_diff", lazyStorageDiff),
  ],
  delegation: gasFields,
  register_global_constant: [
    req("balance_updates", balanceUpdates),
    req("consumed_gas", n),
    req("storage_size", z),
    req("global_address", scriptExprHash),
  ],
};

/** The manager kinds in Octez's order, with their internal-operation tags. */
export const MANAGER_KINDS: readonly ManagerKind[] = ["reveal", "transaction", "origination", "delegation", "register_global_constant"];

type R = AnyManagerOperationResult;

function resultCodec(kind: ManagerKind): Codec<R> {
  const fields = successFields[kind];
  const status = (s: string) => req("status", constant(s));
  return def(
    `011-PtHangz2.operation.alpha.operation_result.${kind}`,
    union<R>([
      tagged<R, R>(0, "Applied", objOf<R>([status("applied"), ...fields]), (v) => (v.status === "applied" ? v : undefined), (v) => v),
      tagged<R, R>(1, "Failed", objOf<R>([status("failed"), req("errors", errorTrace)]), (v) => (v.status === "failed" ? v : undefined), (v) => v),
      tagged<R, R>(2, "Skipped", objOf<R>([status("skipped")]), (v) => (v.status === "skipped" ? v : undefined), (v) => v),
      tagged<R, R>(
        3,
        "Backtracked",
        objOf<R>([status("backtracked"), opt("errors", errorTrace), ...fields]),
        (v) => (v.status === "backtracked" ? v : undefined),
        (v) => v,
      ),
    ]),
  );
}

/** Result codecs by kind (`011-PtHangz2.operation.alpha.operation_result.<kind>`). */
export const operationResults: { readonly [K in ManagerKind]: Codec<ManagerOperationResult<ManagerSuccessByKind[K]>> } = {
  reveal: resultCodec("reveal") as Codec<ManagerOperationResult<RevealSuccess>>,
  transaction: resultCodec("transaction") as Codec<ManagerOperationResult<TransactionSuccess>>,
  origination: resultCodec("origination") as Codec<ManagerOperationResult<OriginationSuccess>>,
  delegation: resultCodec("delegation") as Codec<ManagerOperationResult<DelegationSuccess>>,
  register_global_constant: resultCodec("register_global_constant") as Codec<ManagerOperationResult<RegisterGlobalConstantSuccess>>,
};

/** Reveal result codec (`011-PtHangz2.operation.alpha.operation_result.reveal`). */
export const revealResult: Codec<ManagerOperationResult<RevealSuccess>> = operationResults.reveal;
/** Transaction result codec (`011-PtHangz2.operation.alpha.operation_result.transaction`). */
export const transactionResult: Codec<ManagerOperationResult<TransactionSuccess>> = operationResults.transaction;
/** Origination result codec (`011-PtHangz2.operation.alpha.operation_result.origination`). */
export const originationResult: Codec<ManagerOperationResult<OriginationSuccess>> = operationResults.origination;
/** Delegation result codec (`011-PtHangz2.operation.alpha.operation_result.delegation`). */
export const delegationResult: Codec<ManagerOperationResult<DelegationSuccess>> = operationResults.delegation;
/** Global constant registration result codec (`011-PtHangz2.operation.alpha.operation_result.register_global_constant`). */
export const registerGlobalConstantResult: Codec<ManagerOperationResult<RegisterGlobalConstantSuccess>> = operationResults.register_global_constant;

/** An internal operation (emitted by a contract) with its result. */
export type InternalOperationResult = InternalOperation & { result: AnyManagerOperationResult };

type IR = InternalOperationResult;

const internalCases: Case<IR>[] = unionCasesOf(internalOperation as Codec<unknown>).map((c) => {
  const kind = caseKind(c) as ManagerKind;
  const [kindField, ...opFields] = caseFields(c);
  let codec: Codec<IR> = objOf<IR>([kindField!, req("source", contractId), req("nonce", uint16), ...opFields, req("result", operationResults[kind] as Codec<unknown>)]);
  if (kind === "transaction") codec = normalizeTransaction(codec as Codec<any>) as Codec<IR>;
  return tagged<IR, IR>(c.tag, kind, codec, (v) => (v.kind === kind ? v : undefined), (v) => v);
});

/** Internal operation result codec (`011-PtHangz2.operation.alpha.internal_operation_result`). */
export const internalOperationResult: Codec<InternalOperationResult> = def(
  "011-PtHangz2.operation.alpha.internal_operation_result",
  union<IR>(internalCases),
);

/** A successful manager result with its kind, as in a block's `implicit_operations_results`. */
export type SuccessfulManagerOperationResult =
  | ({ kind: "reveal" } & RevealSuccess)
  | ({ kind: "transaction" } & TransactionSuccess)
  | ({ kind: "origination" } & OriginationSuccess)
  | ({ kind: "delegation" } & DelegationSuccess);

type SR = SuccessfulManagerOperationResult;

/** Successful manager result codec (`011-PtHangz2.operation.alpha.successful_manager_operation_result`). */
export const successfulManagerOperationResult: Codec<SuccessfulManagerOperationResult> = def(
  "011-PtHangz2.operation.alpha.successful_manager_operation_result",
  union<SR>(
    (["reveal", "transaction", "origination", "delegation"] as const).map((kind, tag) =>
      tagged<SR, SR>(tag, kind, objOf<SR>([req("kind", constant(kind)), ...successFields[kind]]), (v) => (v.kind === kind ? v : undefined), (v) => v)
    ),
  ),
);
