/**
 * Errors of the Michelson type checker and interpreter (Octez `Script_tc_errors` and the runtime
 * errors of `Script_interpreter`), registered under `proto.011-PtHangz2.michelson_v1.*` with the
 * same ids and fields as Octez. Stack types are given as lists of `{type, annots}`.
 * @module
 */
import type { Micheline } from "../../encoding/micheline.ts";
import { hangzhouMicheline } from "../../encoding/micheline.ts";
import { obj, req, opt, dft } from "../../encoding/object.ts";
import { int16, int31, uint16 } from "../../encoding/integers.ts";
import { string } from "../../encoding/bytes.ts";
import { list } from "../../encoding/list.ts";
import type { ErrorDefinition } from "../../errors/mod.ts";
import { protoError } from "../../protocols/hangzhou/proto-error.ts";

const expr = hangzhouMicheline;
const prim = string;

/** One stack slot of an error or a type map: its type and its annotations (`@var`). */
export interface StackSlot {
  type: Micheline;
  annots: string[];
}

/** Encoding of a stack type (`stack_ty_enc`). */
export const stackTyEncoding = list(obj(req("type", expr), dft("annots", list(string), [] as string[])));

/** One entry of a type map: the instruction's location and the stacks before and after it. */
export interface TypeMapEntry {
  location: number;
  stack_before: StackSlot[];
  stack_after: StackSlot[];
}

/** Encoding of a type map (`type_map_enc`). */
export const typeMapEncoding = list(
  obj(req("location", int31), req("stack_before", stackTyEncoding), req("stack_after", stackTyEncoding)),
);

const loc = int31;

/** `michelson_v1.invalid_arity`. */
export const invalidArity: ErrorDefinition<{ location: number; primitive_name: string; expected_arity: number; wrong_arity: number }> = protoError({
  id: "michelson_v1.invalid_arity", kind: "permanent", title: "Invalid arity",
  description: "In a script or data expression, a primitive was applied to an unsupported number of arguments.",
  fields: obj(req("location", loc), req("primitive_name", prim), req("expected_arity", uint16), req("wrong_arity", uint16)),
});
/** `michelson_v1.missing_script_field`. */
export const missingScriptField: ErrorDefinition<{ prim: string }> = protoError({
  id: "michelson_v1.missing_script_field", kind: "permanent", title: "Script is missing a field (parse error)",
  description: "When parsing script, a field was expected, but not provided", fields: obj(req("prim", prim)),
});
/** `michelson_v1.invalid_primitive`. */
export const invalidPrimitive: ErrorDefinition<{ location: number; expected_primitive_names: string[]; wrong_primitive_name: string }> = protoError({
  id: "michelson_v1.invalid_primitive", kind: "permanent", title: "Invalid primitive",
  description: "In a script or data expression, a primitive was unknown.",
  fields: obj(req("location", loc), dft("expected_primitive_names", list(prim), [] as string[]), req("wrong_primitive_name", prim)),
});
/** `michelson_v1.invalid_expression_kind`. */
export const invalidExpressionKind: ErrorDefinition<{ location: number; expected_kinds: string[]; wrong_kind: string }> = protoError({
  id: "michelson_v1.invalid_expression_kind", kind: "permanent", title: "Invalid expression kind",
  description: "In a script or data expression, an expression was of the wrong kind (for instance a string where only a primitive applications can appear).",
  fields: obj(req("location", loc), req("expected_kinds", list(string)), req("wrong_kind", string)),
});
/** `michelson_v1.invalid_primitive_namespace`. */
export const invalidPrimitiveNamespace: ErrorDefinition<{ location: number; primitive_name: string; expected_namespace: string; wrong_namespace: string }> = protoError({
  id: "michelson_v1.invalid_primitive_namespace", kind: "permanent", title: "Invalid primitive namespace",
  description: "In a script or data expression, a primitive was of the wrong namespace.",
  fields: obj(req("location", loc), req("primitive_name", prim), req("expected_namespace", string), req("wrong_namespace", string)),
});
/** `michelson_v1.duplicate_script_field`. */
export const duplicateScriptField: ErrorDefinition<{ loc: number; prim: string }> = protoError({
  id: "michelson_v1.duplicate_script_field", kind: "permanent", title: "Script has a duplicated field (parse error)",
  description: "When parsing script, a field was found more than once", fields: obj(req("loc", loc), req("prim", prim)),
});
/** `michelson_v1.no_such_entrypoint`. */
export const noSuchEntrypoint: ErrorDefinition<{ entrypoint: string }> = protoError({
  id: "michelson_v1.no_such_entrypoint", kind: "permanent", title: "No such entrypoint (type error)",
  description: "An entrypoint was not found when calling a contract.", fields: obj(req("entrypoint", string)),
});
/** `michelson_v1.unreachable_entrypoint`. */
export const unreachableEntrypoint: ErrorDefinition<{ path: string[] }> = protoError({
  id: "michelson_v1.unreachable_entrypoint", kind: "permanent", title: "Unreachable entrypoint (type error)",
  description: "An entrypoint in the contract is not reachable.", fields: obj(req("path", list(prim))),
});
/** `michelson_v1.duplicate_entrypoint`. */
export const duplicateEntrypoint: ErrorDefinition<{ path: string }> = protoError({
  id: "michelson_v1.duplicate_entrypoint", kind: "permanent", title: "Duplicate entrypoint (type error)",
  description: "Two entrypoints have the same name.", fields: obj(req("path", string)),
});
/** `michelson_v1.entrypoint_name_too_long`. */
export const entrypointNameTooLong: ErrorDefinition<{ name: string }> = protoError({
  id: "michelson_v1.entrypoint_name_too_long", kind: "permanent", title: "Entrypoint name too long (type error)",
  description: "An entrypoint name exceeds the maximum length of 31 characters.", fields: obj(req("name", string)),
});
/** `michelson_v1.fail_not_in_tail_position`. */
export const failNotInTailPosition: ErrorDefinition<{ location: number }> = protoError({
  id: "michelson_v1.fail_not_in_tail_position", kind: "permanent", title: "FAIL not in tail position",
  description: "There is non trivial garbage code after a FAIL instruction.", fields: obj(req("location", loc)),
});
/** `michelson_v1.undefined_binop`. */
export const undefinedBinop: ErrorDefinition<{ location: number; operator_name: string; wrong_left_operand_type: Micheline; wrong_right_operand_type: Micheline }> = protoError({
  id: "michelson_v1.undefined_binop", kind: "permanent", title: "Undefined binop",
  description: "A binary operation is called on operands of types over which it is not defined.",
  fields: obj(req("location", loc), req("operator_name", prim), req("wrong_left_operand_type", expr), req("wrong_right_operand_type", expr)),
});
/** `michelson_v1.undefined_unop`. */
export const undefinedUnop: ErrorDefinition<{ location: number; operator_name: string; wrong_operand_type: Micheline }> = protoError({
  id: "michelson_v1.undefined_unop", kind: "permanent", title: "Undefined unop",
  description: "A unary operation is called on an operand of type over which it is not defined.",
  fields: obj(req("location", loc), req("operator_name", prim), req("wrong_operand_type", expr)),
});
/** `michelson_v1.bad_return`. */
export const badReturn: ErrorDefinition<{ location: number; expected_return_type: Micheline; wrong_stack_type: StackSlot[] }> = protoError({
  id: "michelson_v1.bad_return", kind: "permanent", title: "Bad return",
  description: "Unexpected stack at the end of a lambda or script.",
  fields: obj(req("location", loc), req("expected_return_type", expr), req("wrong_stack_type", stackTyEncoding)),
});
/** `michelson_v1.bad_stack`. */
export const badStack: ErrorDefinition<{ location: number; primitive_name: string; relevant_stack_portion: number; wrong_stack_type: StackSlot[] }> = protoError({
  id: "michelson_v1.bad_stack", kind: "permanent", title: "Bad stack",
  description: "The stack has an unexpected length or contents.",
  fields: obj(req("location", loc), req("primitive_name", prim), req("relevant_stack_portion", int16), req("wrong_stack_type", stackTyEncoding)),
});
/** `michelson_v1.inconsistent_annotations`. */
export const inconsistentAnnotations: ErrorDefinition<{ annot1: string; annot2: string }> = protoError({
  id: "michelson_v1.inconsistent_annotations", kind: "permanent", title: "Annotations inconsistent between branches",
  description: "The annotations on two types could not be merged", fields: obj(req("annot1", string), req("annot2", string)),
});
/** `michelson_v1.inconsistent_field_annotations`. */
export const inconsistentFieldAnnotations: ErrorDefinition<{ annot1: string; annot2: string }> = protoError({
  id: "michelson_v1.inconsistent_field_annotations", kind: "permanent", title: "Annotations for field accesses is inconsistent",
  description: "The specified field does not match the field annotation in the type", fields: obj(req("annot1", string), req("annot2", string)),
});
/** `michelson_v1.unexpected_annotation`. */
export const unexpectedAnnotation: ErrorDefinition<{ location: number }> = protoError({
  id: "michelson_v1.unexpected_annotation", kind: "permanent", title: "An annotation was encountered where no annotation is expected",
  description: "A node in the syntax tree was improperly annotated", fields: obj(req("location", loc)),
});
/** `michelson_v1.ungrouped_annotations`. */
export const ungroupedAnnotations: ErrorDefinition<{ location: number }> = protoError({
  id: "michelson_v1.ungrouped_annotations", kind: "permanent", title: "Annotations of the same kind must be grouped",
  description: "Annotations of the same kind must be grouped", fields: obj(req("location", loc)),
});
/** `michelson_v1.unmatched_branches`. */
export const unmatchedBranches: ErrorDefinition<{ location: number; first_stack_type: StackSlot[]; other_stack_type: StackSlot[] }> = protoError({
  id: "michelson_v1.unmatched_branches", kind: "permanent", title: "Unmatched branches",
  description: "At the join point at the end of two code branches the stacks have inconsistent lengths or contents.",
  fields: obj(req("location", loc), req("first_stack_type", stackTyEncoding), req("other_stack_type", stackTyEncoding)),
});
/** `michelson_v1.bad_stack_item`. */
export const badStackItem: ErrorDefinition<{ item_level: number }> = protoError({
  id: "michelson_v1.bad_stack_item", kind: "permanent", title: "Bad stack item",
  description: "The type of a stack item is unexpected (this error is always accompanied by a more precise one).",
  fields: obj(req("item_level", int16)),
});
/** `michelson_v1.self_in_lambda`. */
export const selfInLambda: ErrorDefinition<{ location: number }> = protoError({
  id: "michelson_v1.self_in_lambda", kind: "permanent", title: "SELF instruction in lambda",
  description: "A SELF instruction was encountered in a lambda expression.", fields: obj(req("location", loc)),
});
/** `michelson_v1.inconsistent_stack_lengths`. */
export const inconsistentStackLengths: ErrorDefinition = protoError({
  id: "michelson_v1.inconsistent_stack_lengths", kind: "permanent", title: "Inconsistent stack lengths",
  description: "A stack was of an unexpected length (this error is always in the context of a located error).",
});
/** `michelson_v1.inconsistent_types`. */
export const inconsistentTypes: ErrorDefinition<{ loc?: number; first_type: Micheline; other_type: Micheline }> = protoError({
  id: "michelson_v1.inconsistent_types", kind: "permanent", title: "Inconsistent types (typechecking error)",
  description: "This is the basic type clash error, that appears in several places where the equality of two types have to be proven, it is always accompanied with another error that provides more context.",
  fields: obj(opt("loc", loc), req("first_type", expr), req("other_type", expr)),
});
/** `michelson_v1.view_name_too_long`. */
export const viewNameTooLong: ErrorDefinition<{ name: string }> = protoError({
  id: "michelson_v1.view_name_too_long", kind: "permanent", title: "View name too long (type error)",
  description: "A view name exceeds the maximum length of 31 characters.", fields: obj(req("name", string)),
});
/** `michelson_v1.duplicated_view_name`. */
export const duplicatedViewName: ErrorDefinition<{ location: number }> = protoError({
  id: "michelson_v1.duplicated_view_name", kind: "permanent", title: "Duplicated view name",
  description: "The name of view in toplevel should be unique.", fields: obj(req("location", loc)),
});
/** `michelson_v1.invalid_syntactic_constant`. */
export const invalidSyntacticConstant: ErrorDefinition<{ location: number; expected_form: string; wrong_expression: Micheline }> = protoError({
  id: "michelson_v1.invalid_syntactic_constant", kind: "permanent", title: "Invalid constant (parse error)",
  description: "A compile-time constant was invalid for its expected form.",
  fields: obj(req("location", loc), req("expected_form", string), req("wrong_expression", expr)),
});
/** `michelson_v1.bad_view_name`. */
export const badViewName: ErrorDefinition<{ loc: number }> = protoError({
  id: "michelson_v1.bad_view_name", kind: "permanent", title: "Bad view name",
  description: "In a view declaration, the view name must be a string", fields: obj(req("loc", loc)),
});
/** `michelson_v1.ill_typed_view`. */
export const illTypedView: ErrorDefinition<{ loc: number; resulted_view_stack: StackSlot[]; expected_view_stack: StackSlot[] }> = protoError({
  id: "michelson_v1.ill_typed_view", kind: "permanent", title: "Ill typed view",
  description: "The return of a view block did not match the expected type",
  fields: obj(req("loc", loc), req("resulted_view_stack", stackTyEncoding), req("expected_view_stack", stackTyEncoding)),
});
/** `michelson_v1.invalid_map_body`. */
export const invalidMapBody: ErrorDefinition<{ loc: number; body_type: StackSlot[] }> = protoError({
  id: "michelson_v1.invalid_map_body", kind: "permanent", title: "Invalid map body",
  description: "The body of a map block did not match the expected type", fields: obj(req("loc", loc), req("body_type", stackTyEncoding)),
});
/** `michelson_v1.invalid_map_block_fail`. */
export const invalidMapBlockFail: ErrorDefinition<{ loc: number }> = protoError({
  id: "michelson_v1.invalid_map_block_fail", kind: "permanent", title: "Invalid map block FAIL",
  description: "FAIL instruction occurred as body of map block", fields: obj(req("loc", loc)),
});
/** `michelson_v1.invalid_iter_body`. */
export const invalidIterBody: ErrorDefinition<{ loc: number; bef_stack: StackSlot[]; aft_stack: StackSlot[] }> = protoError({
  id: "michelson_v1.invalid_iter_body", kind: "permanent", title: "ITER body returned wrong stack type",
  description: "The body of an ITER instruction must result in the same stack type as before the ITER.",
  fields: obj(req("loc", loc), req("bef_stack", stackTyEncoding), req("aft_stack", stackTyEncoding)),
});
/** `michelson_v1.bad_pair_argument`. */
export const badPairArgument: ErrorDefinition<{ loc: number }> = protoError({
  id: "michelson_v1.bad_pair_argument", kind: "permanent", title: "0 or 1 passed to PAIR",
  description: "PAIR expects an argument of at least 2", fields: obj(req("loc", loc)),
});
/** `michelson_v1.bad_unpair_argument`. */
export const badUnpairArgument: ErrorDefinition<{ loc: number }> = protoError({
  id: "michelson_v1.bad_unpair_argument", kind: "permanent", title: "0 or 1 passed to UNPAIR",
  description: "UNPAIR expects an argument of at least 2", fields: obj(req("loc", loc)),
});
/** `michelson_v1.bad_dupn_argument`. */
export const badDupnArgument: ErrorDefinition<{ loc: number }> = protoError({
  id: "michelson_v1.bad_dupn_argument", kind: "permanent", title: "0 passed to DUP n",
  description: "DUP n expects an argument of at least 1 (passed 0)", fields: obj(req("loc", loc)),
});
/** `michelson_v1.bad_dupn_stack`. */
export const badDupnStack: ErrorDefinition<{ loc: number }> = protoError({
  id: "michelson_v1.bad_dupn_stack", kind: "permanent", title: "Stack too short when typing DUP n",
  description: "Stack present when typing DUP n was too short", fields: obj(req("loc", loc)),
});
/** `michelson_v1.ill_formed_type`. */
export const illFormedType: ErrorDefinition<{ identifier?: string; ill_formed_expression: Micheline; location: number }> = protoError({
  id: "michelson_v1.ill_formed_type", kind: "permanent", title: "Ill formed type",
  description: "The toplevel error thrown when trying to parse a type expression (always followed by more precise errors).",
  fields: obj(opt("identifier", string), req("ill_formed_expression", expr), req("location", loc)),
});
/** `michelson_v1.ill_typed_contract`. */
export const illTypedContract: ErrorDefinition<{ ill_typed_code: Micheline; type_map: TypeMapEntry[] }> = protoError({
  id: "michelson_v1.ill_typed_contract", kind: "permanent", title: "Ill typed contract",
  description: "The toplevel error thrown when trying to typecheck a contract code against given input, output and storage types (always followed by more precise errors).",
  fields: obj(req("ill_typed_code", expr), req("type_map", typeMapEncoding)),
});
/** `michelson_v1.deprecated_instruction`. */
export const deprecatedInstruction: ErrorDefinition<{ prim: string }> = protoError({
  id: "michelson_v1.deprecated_instruction", kind: "permanent", title: "Script is using a deprecated instruction",
  description: "A deprecated instruction usage is disallowed in newly created contracts", fields: obj(req("prim", prim)),
});
/** `michelson_v1.typechecking_too_many_recursive_calls`. */
export const typecheckingTooManyRecursiveCalls: ErrorDefinition = protoError({
  id: "michelson_v1.typechecking_too_many_recursive_calls", kind: "temporary", title: "Too many recursive calls during typechecking",
  description: "Too many recursive calls were needed for typechecking",
});
/** `michelson_v1.non_dupable_type`. */
export const nonDupableType: ErrorDefinition<{ loc: number; type: Micheline }> = protoError({
  id: "michelson_v1.non_dupable_type", kind: "permanent", title: "Non-dupable type duplication attempt",
  description: "DUP was used on a non-dupable type (e.g. tickets).", fields: obj(req("loc", loc), req("type", expr)),
});
/** `michelson_v1.unexpected_ticket`. */
export const unexpectedTicket: ErrorDefinition<{ loc: number }> = protoError({
  id: "michelson_v1.unexpected_ticket", kind: "permanent", title: "Ticket in unauthorized position (type error)",
  description: "A ticket type has been found", fields: obj(req("loc", loc)),
});
/** `michelson_v1.unexpected_operation`. */
export const unexpectedOperation: ErrorDefinition<{ loc: number }> = protoError({
  id: "michelson_v1.unexpected_operation", kind: "permanent", title: "Operation in unauthorized position (type error)",
  description: "When parsing script, an operation type occurred in the storage or parameter field.", fields: obj(req("loc", loc)),
});
/** `michelson_v1.unexpected_lazy_storage`. */
export const unexpectedLazyStorage: ErrorDefinition<{ loc: number }> = protoError({
  id: "michelson_v1.unexpected_lazy_storage", kind: "permanent", title: "Lazy storage in unauthorized position (type error)",
  description: "When parsing script, a big_map or sapling_state type was found in a position where it could end up stored inside a big_map, which is forbidden for now.",
  fields: obj(req("loc", loc)),
});
/** `michelson_v1.comparable_type_expected`. */
export const comparableTypeExpected: ErrorDefinition<{ location: number; wrong_type: Micheline }> = protoError({
  id: "michelson_v1.comparable_type_expected", kind: "permanent", title: "Comparable type expected (typechecking error)",
  description: "A non comparable type was used in a place where only comparable types are accepted.",
  fields: obj(req("location", loc), req("wrong_type", expr)),
});
/** `michelson_v1.invalid_contract`. */
export const invalidContract: ErrorDefinition<{ location: number; contract: string }> = protoError({
  id: "michelson_v1.invalid_contract", kind: "permanent", title: "Invalid contract",
  description: "A script or data expression references a contract that does not exist or assumes a wrong type for an existing contract.",
  fields: obj(req("location", loc), req("contract", string)),
});

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
  fields: obj(req("contract_handle", string), req("contract_code", expr)),
});
/** `michelson_v1.bad_contract_parameter` {contract}. */
export const badContractParameter: ErrorDefinition<{ contract: string }> = protoError({
  id: "michelson_v1.bad_contract_parameter", kind: "permanent", title: "Contract supplied an invalid parameter",
  description: "Either no parameter was supplied to a contract with a non-unit parameter type, a non-unit parameter was passed to an account, or a parameter was supplied of the wrong type",
  fields: obj(req("contract", string)),
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
/** `michelson_v1.cannot_serialize_log`. */
export const cannotSerializeLog: ErrorDefinition = protoError({
  id: "michelson_v1.cannot_serialize_log", kind: "temporary", title: "Not enough gas to serialize execution trace",
  description: "Execution trace with stacks was to big to be serialized with the provided gas",
});
/** `michelson_v1.unsupported_instruction` (this node): an instruction this implementation does not run (Sapling). */
export const unsupportedInstruction: ErrorDefinition<{ location: number; prim: string }> = protoError({
  id: "michelson_v1.unsupported_instruction", kind: "permanent", title: "Instruction not supported by this node",
  description: "This node does not implement the instruction (Sapling).",
  fields: obj(req("location", loc), req("prim", prim)),
});
