/**
 * The protocol errors raised by Hangzhou's storage layer, with Octez's ids, kinds and fields
 * (`raw_context.ml` storage errors, `tez_repr.ml`, `contract_storage.ml`, `roll_storage.ml`,
 * `delegate_storage.ml`, `nonce_storage.ml`). All are registered under `proto.011-PtHangz2.`.
 * @module
 */
import type { Codec } from "../../../encoding/core.ts";
import { stringEnum } from "../../../encoding/conv.ts";
import { bytes, string } from "../../../encoding/bytes.ts";
import { int32, int64 } from "../../../encoding/integers.ts";
import { publicKey, publicKeyHash } from "../../../encoding/keys.ts";
import { list } from "../../../encoding/list.ts";
import { obj, req } from "../../../encoding/object.ts";
import { tup } from "../../../encoding/tuple.ts";
import { tagged, union } from "../../../encoding/union.ts";
import { z } from "../../../encoding/zarith.ts";
import { contractId, mutez } from "../../../encoding/hangzhou/basic.ts";
import type { ErrorDefinition } from "../../../errors/mod.ts";
import { protoError } from "../proto-error.ts";

// ---------------------------------------------------------------------------------------------
// context.storage_error

/** Which access found a key missing (`Raw_context.missing_key_kind`). */
export type MissingKeyKind = "get" | "set" | "del" | "copy";

/** The cases of `context.storage_error` (`Raw_context.storage_error`). */
export type StorageError =
  | { incompatible_protocol_version: string }
  | { missing_key: string[]; function: MissingKeyKind }
  | { existing_key: string[] }
  | { corrupted_data: string[] };

const storageErrorFields: Codec<StorageError> = union<StorageError>([
  tagged<StorageError, { incompatible_protocol_version: string }>(
    0,
    "Incompatible_protocol_version",
    obj(req("incompatible_protocol_version", string)),
    (v) => ("incompatible_protocol_version" in v ? v : undefined),
    (v) => v,
  ),
  tagged<StorageError, { missing_key: string[]; function: MissingKeyKind }>(
    1,
    "Missing_key",
    obj(req("missing_key", list(string)), req("function", stringEnum(["get", "set", "del", "copy"] as const))),
    (v) => ("missing_key" in v ? v : undefined),
    (v) => v,
  ),
  tagged<StorageError, { existing_key: string[] }>(
    2,
    "Existing_key",
    obj(req("existing_key", list(string))),
    (v) => ("existing_key" in v ? v : undefined),
    (v) => v,
  ),
  tagged<StorageError, { corrupted_data: string[] }>(
    3,
    "Corrupted_data",
    obj(req("corrupted_data", list(string))),
    (v) => ("corrupted_data" in v ? v : undefined),
    (v) => v,
  ),
]);

/** `context.storage_error`: a key missing, already present, or undecodable (a fatal internal error). */
export const storageError: ErrorDefinition<StorageError> = protoError({
  id: "context.storage_error",
  kind: "permanent",
  title: "Storage error (fatal internal error)",
  description: "An error that should never happen unless something has been deleted or corrupted in the database.",
  fields: storageErrorFields,
});

/** `context.failed_to_parse_parameter` {contents}: the protocol parameters are not binary JSON. */
export const failedToParseParameter: ErrorDefinition<{ contents: Uint8Array }> = protoError({
  id: "context.failed_to_parse_parameter",
  kind: "temporary",
  title: "Failed to parse parameter",
  description: "The protocol parameters are not valid JSON.",
  fields: obj(req("contents", bytes)),
});

// ---------------------------------------------------------------------------------------------
// Tez arithmetic

const amounts = obj(req("amounts", tup(mutez, mutez)));

/** `tez.addition_overflow` {amounts}. */
export const tezAdditionOverflow: ErrorDefinition<{ amounts: [bigint, bigint] }> = protoError({
  id: "tez.addition_overflow",
  kind: "temporary",
  title: "Overflowing tez addition",
  description: "An addition of two tez amounts overflowed",
  fields: amounts,
});

/** `tez.subtraction_underflow` {amounts}. */
export const tezSubtractionUnderflow: ErrorDefinition<{ amounts: [bigint, bigint] }> = protoError({
  id: "tez.subtraction_underflow",
  kind: "temporary",
  title: "Underflowing tez subtraction",
  description: "A subtraction of two tez amounts underflowed",
  fields: amounts,
});

/** `tez.multiplication_overflow` {amount, multiplicator}. */
export const tezMultiplicationOverflow: ErrorDefinition<{ amount: bigint; multiplicator: bigint }> = protoError({
  id: "tez.multiplication_overflow",
  kind: "temporary",
  title: "Overflowing tez multiplication",
  description: "A multiplication of a tez amount by an integer overflowed",
  fields: obj(req("amount", mutez), req("multiplicator", int64)),
});

// ---------------------------------------------------------------------------------------------
// Contracts

const contractField = obj(req("contract", contractId));
const implicitField = obj(req("implicit", publicKeyHash));
const counterFields = obj(req("contract", contractId), req("expected", z), req("found", z));

/** `contract.balance_too_low` {contract, balance, amount}. */
export const balanceTooLow: ErrorDefinition<{ contract: string; balance: bigint; amount: bigint }> = protoError({
  id: "contract.balance_too_low",
  kind: "temporary",
  title: "Balance too low",
  description: "An operation tried to spend more tokens than the contract has",
  fields: obj(req("contract", contractId), req("balance", mutez), req("amount", mutez)),
});

/** `contract.non_existing_contract` {contract}. */
export const nonExistingContract: ErrorDefinition<{ contract: string }> = protoError({
  id: "contract.non_existing_contract",
  kind: "temporary",
  title: "Non existing contract",
  description: "A contract handle is not present in the context (either it never was or it has been destroyed)",
  fields: contractField,
});

/** `contract.empty_transaction` {contract}: a 0 tez credit to an implicit account. */
export const emptyTransaction: ErrorDefinition<{ contract: string }> = protoError({
  id: "contract.empty_transaction",
  kind: "branch",
  title: "Empty transaction",
  description: "Forbidden to credit 0ꜩ to a contract without code.",
  fields: contractField,
});

/** `contract.counter_in_the_past` {contract, expected, found}. */
export const counterInThePast: ErrorDefinition<{ contract: string; expected: bigint; found: bigint }> = protoError({
  id: "contract.counter_in_the_past",
  kind: "branch",
  title: "Invalid counter (already used) in a manager operation",
  description: "An operation assumed a contract counter in the past",
  fields: counterFields,
});

/** `contract.counter_in_the_future` {contract, expected, found}. */
export const counterInTheFuture: ErrorDefinition<{ contract: string; expected: bigint; found: bigint }> = protoError({
  id: "contract.counter_in_the_future",
  kind: "temporary",
  title: "Invalid counter (not yet reached) in a manager operation",
  description: "An operation assumed a contract counter in the future",
  fields: counterFields,
});

/** `contract.manager.inconsistent_hash` {public_key, expected_hash, provided_hash}. */
export const inconsistentHash: ErrorDefinition<{ public_key: string; expected_hash: string; provided_hash: string }> = protoError({
  id: "contract.manager.inconsistent_hash",
  kind: "permanent",
  title: "Inconsistent public key hash",
  description: "A revealed manager public key is inconsistent with the announced hash",
  fields: obj(req("public_key", publicKey), req("expected_hash", publicKeyHash), req("provided_hash", publicKeyHash)),
});

/** `contract.previously_revealed_key` {contract}. */
export const previouslyRevealedKey: ErrorDefinition<{ contract: string }> = protoError({
  id: "contract.previously_revealed_key",
  kind: "branch",
  title: "Manager operation already revealed",
  description: "One tried to revealed twice a manager public key",
  fields: contractField,
});

/** `contract.unrevealed_key` {contract}. */
export const unrevealedManagerKey: ErrorDefinition<{ contract: string }> = protoError({
  id: "contract.unrevealed_key",
  kind: "branch",
  title: "Manager operation precedes key revelation",
  description: "One tried to apply a manager operation without revealing the manager public key",
  fields: contractField,
});

/** `implicit.empty_implicit_contract` {implicit}. */
export const emptyImplicitContract: ErrorDefinition<{ implicit: string }> = protoError({
  id: "implicit.empty_implicit_contract",
  kind: "branch",
  title: "Empty implicit contract",
  description: "No manager operations are allowed on an empty implicit contract.",
  fields: implicitField,
});

/** `implicit.empty_implicit_delegated_contract` {implicit}. */
export const emptyImplicitDelegatedContract: ErrorDefinition<{ implicit: string }> = protoError({
  id: "implicit.empty_implicit_delegated_contract",
  kind: "branch",
  title: "Empty implicit delegated contract",
  description: "Emptying an implicit delegated account is not allowed.",
  fields: implicitField,
});

/** `contract.failure` {message}: an unexpected contract storage state. */
export const contractFailure: ErrorDefinition<{ message: string }> = protoError({
  id: "contract.failure",
  kind: "permanent",
  title: "Contract storage failure",
  description: "Unexpected contract storage error",
  fields: obj(req("message", string)),
});

/** `undefined_operation_nonce`: an origination outside of a manager operation. */
export const undefinedOperationNonce: ErrorDefinition = protoError({
  id: "undefined_operation_nonce",
  kind: "permanent",
  title: "Ill timed access to the origination nonce",
  description: "An origination was attempted out of the scope of a manager operation",
});

// ---------------------------------------------------------------------------------------------
// Rolls

/** `contract.manager.consume_roll_change`: not enough change to make a roll. */
export const consumeRollChange: ErrorDefinition = protoError({
  id: "contract.manager.consume_roll_change",
  kind: "permanent",
  title: "Consume roll change",
  description: "Change is not enough to consume a roll.",
});

/** `contract.manager.no_roll_for_delegate`. */
export const noRollForDelegate: ErrorDefinition = protoError({
  id: "contract.manager.no_roll_for_delegate",
  kind: "permanent",
  title: "No roll for delegate",
  description: "Delegate has no roll.",
});

/** `contract.manager.no_roll_snapshot_for_cycle` {cycle}. */
export const noRollSnapshotForCycle: ErrorDefinition<{ cycle: number }> = protoError({
  id: "contract.manager.no_roll_snapshot_for_cycle",
  kind: "permanent",
  title: "No roll snapshot for cycle",
  description: "A snapshot of the rolls distribution does not exist for this cycle.",
  fields: obj(req("cycle", int32)),
});

/** `contract.manager.unregistered_delegate` {hash}. */
export const unregisteredDelegate: ErrorDefinition<{ hash: string }> = protoError({
  id: "contract.manager.unregistered_delegate",
  kind: "permanent",
  title: "Unregistered delegate",
  description: "A contract cannot be delegated to an unregistered delegate",
  fields: obj(req("hash", publicKeyHash)),
});

// ---------------------------------------------------------------------------------------------
// Delegates

/** `delegate.no_deletion` {delegate}: a registered delegate cannot stop being one. */
export const noDeletion: ErrorDefinition<{ delegate: string }> = protoError({
  id: "delegate.no_deletion",
  kind: "permanent",
  title: "Forbidden delegate deletion",
  description: "Tried to unregister a delegate",
  fields: obj(req("delegate", publicKeyHash)),
});

/** `delegate.already_active`: self-delegation of an active delegate. */
export const activeDelegate: ErrorDefinition = protoError({
  id: "delegate.already_active",
  kind: "temporary",
  title: "Delegate already active",
  description: "Useless delegate reactivation",
});

/** `delegate.unchanged`: delegation to the current delegate. */
export const currentDelegate: ErrorDefinition = protoError({
  id: "delegate.unchanged",
  kind: "temporary",
  title: "Unchanged delegated",
  description: "Contract already delegated to the given delegate",
});

/** `delegate.empty_delegate_account` {delegate}. */
export const emptyDelegateAccount: ErrorDefinition<{ delegate: string }> = protoError({
  id: "delegate.empty_delegate_account",
  kind: "permanent",
  title: "Empty delegate account",
  description: "Cannot register a delegate when its implicit account is empty",
  fields: obj(req("delegate", publicKeyHash)),
});

/** `delegate.balance_too_low_for_deposit` {delegate, balance, deposit}. */
export const balanceTooLowForDeposit: ErrorDefinition<{ delegate: string; balance: bigint; deposit: bigint }> = protoError({
  id: "delegate.balance_too_low_for_deposit",
  kind: "temporary",
  title: "Balance too low for deposit",
  description: "Cannot freeze deposit when the balance is too low",
  fields: obj(req("delegate", publicKeyHash), req("balance", mutez), req("deposit", mutez)),
});

/** `delegate.not_registered` {pkh}. */
export const notRegistered: ErrorDefinition<{ pkh: string }> = protoError({
  id: "delegate.not_registered",
  kind: "temporary",
  title: "Not a registered delegate",
  description: "The provided public key hash is not the address of a registered delegate.",
  fields: obj(req("pkh", publicKeyHash)),
});

// ---------------------------------------------------------------------------------------------
// Nonces

/** `nonce.too_late_revelation`. */
export const tooLateRevelation: ErrorDefinition = protoError({
  id: "nonce.too_late_revelation",
  kind: "branch",
  title: "Too late nonce revelation",
  description: "Nonce revelation happens too late",
});

/** `nonce.too_early_revelation`. */
export const tooEarlyRevelation: ErrorDefinition = protoError({
  id: "nonce.too_early_revelation",
  kind: "temporary",
  title: "Too early nonce revelation",
  description: "Nonce revelation happens before cycle end",
});

/** `nonce.previously_revealed`. */
export const previouslyRevealedNonce: ErrorDefinition = protoError({
  id: "nonce.previously_revealed",
  kind: "branch",
  title: "Previously revealed nonce",
  description: "Duplicated revelation for a nonce.",
});

/** `nonce.inconsistent`. */
export const inconsistentNonce: ErrorDefinition = protoError({
  id: "nonce.inconsistent",
  kind: "branch",
  title: "Inconsistent nonce",
  description: "The provided nonce is inconsistent with the committed nonce hash.",
});
