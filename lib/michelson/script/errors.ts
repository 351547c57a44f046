/**
 * Errors of the Michelson interpreter (the runtime errors of Octez `Script_interpreter`),
 * registered under `proto.011-PtHangz2.michelson_v1.*` with the same ids and fields as Octez.
 * The type checker's errors (`Script_tc_errors`) are defined once, in `../data/errors.ts`, and
 * re-exported here for the instruction type checker.
 * @module
 */
import type { Micheline } from "../../encoding/micheline.ts";
import { hangzhouMicheline } from "../../encoding/micheline.ts";
import { obj, req, opt } from "../../encoding/object.ts";
import { int31 } from "../../encoding/integers.ts";
import { string } from "../../encoding/bytes.ts";
import { list } from "../../encoding/list.ts";
import { contractId } from "../../encoding/hangzhou/basic.ts";
import type { ErrorDefinition } from "../../errors/mod.ts";
import { protoError } from "../../protocols/hangzhou/proto-error.ts";
import type { StackItemTy } from "../data/errors.ts";

export {
  badDupnArgument, badDupnStack, badPairArgument, badReturn, badStack, badStackItem, badUnpairArgument, badViewName,
  comparableTypeExpected, deprecatedInstruction, duplicateEntrypoint, duplicateScriptField, duplicatedViewName,
  entrypointNameTooLong, failNotInTailPosition, illFormedType, illTypedContract, illTypedView, inconsistentAnnotations,
  inconsistentFieldAnnotations, inconsistentStackLengths, inconsistentTypes, invalidArity, invalidContract,
  invalidIterBody, invalidMapBlockFail, invalidMapBody, invalidPrimitive, invalidSyntacticConstant, missingScriptField,
  noSuchEntrypoint, nonDupableType, selfInLambda, typecheckingTooManyRecursiveCalls, undefinedBinop, undefinedUnop,
  unexpectedAnnotation, unexpectedLazyStorage, unexpectedOperation, unexpectedTicket, ungroupedAnnotations,
  unmatchedBranches, unreachableEntrypoint, viewNameTooLong, saplingNotSupported,
} from "../data/errors.ts";

/** One stack slot of an error: its type and its annotations (`@var`), as `stack_ty_enc` encodes it. */
export type StackSlot = StackItemTy;

/** One entry of a type map as the type checker logs it: the instruction's location and its stacks. */
export interface TypeMapEntry {
  location: number;
  stack_before: StackSlot[];
  stack_after: StackSlot[];
}

const expr = hangzhouMicheline;

// -- runtime errors (Script_interpreter) --

/** One step of an execution trace carried by runtime errors. */
export interface TraceStep {
  location: number;
  gas: string;
  stack: { item: Micheline; annot?: string }[];
}
const traceEncoding = list(obj(req("location", int31), req("gas", string), req("stack", list(obj(req("item", expr), opt("annot", string))))));

/** `michelson_v1.script_rejected` {location, with, trace?}: a FAILWITH was reached. */
export const scriptRejected: ErrorDefinition<{ location: number; with: Micheline; trace?: TraceStep[] }> = protoError({
  id: "michelson_v1.script_rejected", kind: "temporary", title: "Script failed", description: "A FAILWITH instruction was reached",
  fields: obj(req("location", int31), req("with", expr), opt("trace", traceEncoding)),
});
/** `michelson_v1.script_overflow` {location, trace?}: an arithmetic overflow. */
export const scriptOverflow: ErrorDefinition<{ location: number; trace?: TraceStep[] }> = protoError({
  id: "michelson_v1.script_overflow", kind: "temporary", title: "Script failed (overflow error)",
  description: "A FAIL instruction was reached due to the detection of an overflow",
  fields: obj(req("location", int31), opt("trace", traceEncoding)),
});
/** `michelson_v1.runtime_error` {contract_handle, contract_code}: wraps every runtime failure. */
export const runtimeError: ErrorDefinition<{ contract_handle: string; contract_code: Micheline }> = protoError({
  id: "michelson_v1.runtime_error", kind: "temporary", title: "Script runtime error",
  description: "Toplevel error for all runtime script errors",
  fields: obj(req("contract_handle", contractId), req("contract_code", expr)),
});
/** `michelson_v1.bad_contract_parameter` {contract}. */
export const badContractParameter: ErrorDefinition<{ contract: string }> = protoError({
  id: "michelson_v1.bad_contract_parameter", kind: "permanent", title: "Contract supplied an invalid parameter",
  description: "Either no parameter was supplied to a contract with a non-unit parameter type, a non-unit parameter was passed to an account, or a parameter was supplied of the wrong type",
  fields: obj(req("contract", contractId)),
});
/** `michelson_v1.cannot_serialize_failure`. */
export const cannotSerializeFailure: ErrorDefinition = protoError({
  id: "michelson_v1.cannot_serialize_failure", kind: "temporary", title: "Not enough gas to serialize argument of FAILWITH",
  description: "Argument of FAILWITH was too big to be serialized with the provided gas",
});
/** `michelson_v1.cannot_serialize_storage`. */
export const cannotSerializeStorage: ErrorDefinition = protoError({
  id: "michelson_v1.cannot_serialize_storage", kind: "temporary", title: "Not enough gas to serialize execution storage",
  description: "The returned storage was too big to be serialized with the provided gas",
});
