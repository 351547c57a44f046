/**
 * Errors of operation application in Hangzhou (Octez `apply.ml`), with their ids and fields.
 * @module
 */
import { blockHash } from "../../../encoding/hashes.ts";
import { publicKeyHash } from "../../../encoding/keys.ts";
import { obj, req } from "../../../encoding/object.ts";
import type { ErrorDefinition } from "../../../errors/mod.ts";
import { protoError } from "../proto-error.ts";

/** `operation.wrong_endorsement_predecessor`. */
export const wrongEndorsementPredecessor: ErrorDefinition<{ expected: string; provided: string }> = protoError({
  id: "operation.wrong_endorsement_predecessor",
  kind: "temporary",
  title: "Wrong endorsement predecessor",
  description: "Trying to include an endorsement in a block that is not the successor of the endorsed one",
  fields: obj(req("expected", blockHash), req("provided", blockHash)),
});

/** `operation.duplicate_endorsement`. */
export const duplicateEndorsement: ErrorDefinition<{ delegate: string }> = protoError({
  id: "operation.duplicate_endorsement",
  kind: "branch",
  title: "Duplicate endorsement",
  description: "Two endorsements received from same delegate",
  fields: obj(req("delegate", publicKeyHash)),
});

/** `operation.invalid_endorsement_level`. */
export const invalidEndorsementLevel: ErrorDefinition = protoError({
  id: "operation.invalid_endorsement_level",
  kind: "temporary",
  title: "Unexpected level in endorsement",
  description: "The level of an endorsement is inconsistent with the  provided block hash.",
});

/** `operation.invalid_endorsement_wrapper`. */
export const invalidEndorsementWrapper: ErrorDefinition = protoError({
  id: "operation.invalid_endorsement_wrapper",
  kind: "temporary",
  title: "Unexpected wrapper in endorsement",
  description: "A wrapped endorsement has been applied with an unwrapped one, or the wrapper has a signature, or its branch differs.",
});

/** `operation.unwrapped_endorsement`. */
export const unwrappedEndorsement: ErrorDefinition = protoError({
  id: "operation.unwrapped_endorsement",
  kind: "temporary",
  title: "Unwrapped endorsement",
  description: "A legacy endorsement has been applied without its required slot-bearing wrapper.",
});

/** `operation.failing_noop`. */
export const failingNoop: ErrorDefinition = protoError({
  id: "operation.failing_noop",
  kind: "permanent",
  title: "Failing_noop operation are not executed by the protocol",
  description: "The failing_noop operation is an operation that is not and never will be executed by the protocol.",
});

/** `operation.invalid_signature`. */
export const invalidSignature: ErrorDefinition = protoError({
  id: "operation.invalid_signature",
  kind: "permanent",
  title: "Invalid operation signature",
  description: "The operation signature is ill-formed or has been made with the wrong public key",
});

/** `operation.missing_signature`. */
export const missingSignature: ErrorDefinition = protoError({
  id: "operation.missing_signature",
  kind: "permanent",
  title: "Missing operation signature",
  description: "The operation is of a kind that must be signed, but the signature is missing",
});
