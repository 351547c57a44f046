/**
 * The errors of manager operations that `apply.ml`, `fees_storage.ml` and the interpreter raise
 * while applying them (Octez ids and fields).
 * @module
 */
import type { ErrorDefinition } from "../../../errors/mod.ts";
import { protoError } from "../proto-error.ts";

/** `storage_limit_too_high` (permanent): a storage limit outside [0, hard_storage_limit_per_operation]. */
export const storageLimitTooHigh: ErrorDefinition = protoError({
  id: "storage_limit_too_high",
  kind: "permanent",
  title: "Storage limit out of protocol hard bounds",
  description: "A transaction tried to exceed the hard limit on storage",
});

/** `storage_exhausted.operation` (temporary): a content used more storage than its limit. */
export const storageExhausted: ErrorDefinition = protoError({
  id: "storage_exhausted.operation",
  kind: "temporary",
  title: "Storage quota exceeded for the operation",
  description: "A script or one of its callee wrote more bytes than the operation said it would",
});

/** `contract.cannot_pay_storage_fee` (temporary): the payer cannot pay the storage burn. */
export const cannotPayStorageFee: ErrorDefinition = protoError({
  id: "contract.cannot_pay_storage_fee",
  kind: "temporary",
  title: "Cannot pay storage fee",
  description: "The storage fee is higher than the contract balance",
});

/** `operation.inconsistent_sources` (permanent): a batch whose contents have different sources. */
export const inconsistentSources: ErrorDefinition = protoError({
  id: "operation.inconsistent_sources",
  kind: "permanent",
  title: "Inconsistent sources in operation pack",
  description: "The operation pack includes operations from different sources.",
});

/** `gas_exhausted.init_deserialize` (permanent): the gas limit does not cover deserialising the content's scripts. */
export const gasQuotaExceededInitDeserialize: ErrorDefinition = protoError({
  id: "gas_exhausted.init_deserialize",
  kind: "permanent",
  title: "Not enough gas for initial deserialization of script expressions",
  description:
    "Gas limit was not high enough to deserialize the transaction parameters or origination script code or initial storage, making the operation impossible to parse within the provided gas bounds.",
});

// `michelson_v1.no_such_entrypoint` and `michelson_v1.bad_contract_parameter` are the Michelson
// engine's definitions (one definition per error id).
export { noSuchEntrypoint } from "../../../michelson/data/errors.ts";
export { badContractParameter } from "../../../michelson/script/errors.ts";
