/**
 * The type checker's errors of protocol 011 (`michelson_v1.*`, Octez `script_tc_errors`): ids,
 * kinds and fields as Hangzhou registers them, so RPC error JSON is the same. Locations are
 * canonical node numbers; expressions and types are Micheline (types as `unparseTy` prints them).
 * The instruction type checker (`script/`) raises the instruction errors defined here too.
 * @module
 */
import type { Codec } from "../../encoding/core.ts";
import { obj, opt, req, dft } from "../../encoding/object.ts";
import { int8, int16, int31, uint16 } from "../../encoding/integers.ts";
import { list } from "../../encoding/list.ts";
import { string } from "../../encoding/bytes.ts";
import { stringEnum } from "../../encoding/conv.ts";
import { z } from "../../encoding/zarith.ts";
import { tup } from "../../encoding/tuple.ts";
import { hangzhouMicheline, type Micheline } from "../../encoding/micheline.ts";
import { HANGZHOU_PRIMITIVES } from "../../encoding/michelson-primitives.ts";
import { contractId } from "../../encoding/hangzhou/basic.ts";
import type { ErrorDefinition } from "../../errors/mod.ts";
import { protoError } from "../../protocols/hangzhou/proto-error.ts";

/** A canonical node location (Octez `Script.location_encoding`). */
const location: Codec<number> = int31;
/** A Micheline expression (Octez `Script.expr_encoding`). */
const expr: Codec<Micheline> = hangzhouMicheline;
/** A primitive name (Octez `Script.prim_encoding`). */
const prim: Codec<string> = stringEnum(HANGZHOU_PRIMITIVES as readonly string[]);

/** Kind of a Micheline node, as errors name it. */
export type ExprKind = "integer" | "string" | "bytes" | "primitiveApplication" | "sequence";
const kindCodec: Codec<ExprKind> = stringEnum<ExprKind>(["integer", "string", "bytes", "primitiveApplication", "sequence"]);

/** Namespace of a primitive, as errors name it. */
export type PrimNamespace = "type" | "constant" | "instruction" | "keyword" | "constant_hash";
const namespaceCodec: Codec<PrimNamespace> = stringEnum<PrimNamespace>(["type", "constant", "instruction", "keyword", "constant_hash"]);

/** One stack item in errors: its type and annotations. */
export interface StackItemTy {
  readonly type: Micheline;
  readonly annots: readonly string[];
}
const stackTy: Codec<StackItemTy[]> = list(obj(req("type", expr), dft("annots", list(string), [] as string[]))) as unknown as Codec<StackItemTy[]>;

/** One entry of a type map: a location and the stacks before and after it. */
export interface TypeMapEntry {
  readonly location: number;
  readonly stack_before: readonly (readonly [Micheline, readonly string[]])[];
  readonly stack_after: readonly (readonly [Micheline, readonly string[]])[];
}
const stackEnc = list(tup(expr, list(string)));
const typeMap = list(obj(req("location", location), req("stack_before", stackEnc), req("stack_after", stackEnc))) as unknown as Codec<TypeMapEntry[]>;

function def<F>(id: string, title: string, description: string, fields?: Codec<F>, kind: "permanent" | "temporary" = "permanent"): ErrorDefinition<F> {
  return protoError<F>({ id: `michelson_v1.${id}`, kind, title, description, ...(fields === undefined ? {} : { fields }) });
}
const located = obj(req("location", location));

// -- Structure errors --

/** `invalid_arity`: a primitive applied to a wrong number of arguments. */
export const invalidArity: ErrorDefinition<{ location: number; primitive_name: string; expected_arity: number; wrong_arity: number }> = def(
  "invalid_arity", "Invalid arity", "In a script or data expression, a primitive was applied to an unsupported number of arguments.",
  obj(req("location", location), req("primitive_name", prim), req("expected_arity", int8), req("wrong_arity", int8)));

/** `invalid_seq_arity`: a sequence with too few elements. */
export const invalidSeqArity: ErrorDefinition<{ location: number; minimal_expected_arity: number; wrong_arity: number }> = def(
  "invalid_seq_arity", "Invalid sequence arity", "In a script or data expression, a sequence was used with a number of elements too small.",
  obj(req("location", location), req("minimal_expected_arity", int8), req("wrong_arity", int8)));

/** `missing_script_field`. */
export const missingScriptField: ErrorDefinition<{ prim: string }> = def(
  "missing_script_field", "Script is missing a field (parse error)", "When parsing script, a field was expected, but not provided", obj(req("prim", prim)));

/** `invalid_primitive`: an unknown or unexpected primitive. */
export const invalidPrimitive: ErrorDefinition<{ location: number; expected_primitive_names: string[]; wrong_primitive_name: string }> = def(
  "invalid_primitive", "Invalid primitive", "In a script or data expression, a primitive was unknown.",
  obj(req("location", location), dft("expected_primitive_names", list(prim), [] as string[]), req("wrong_primitive_name", prim)));

/** `invalid_expression_kind`: a node of the wrong kind. */
export const invalidKind: ErrorDefinition<{ location: number; expected_kinds: ExprKind[]; wrong_kind: ExprKind }> = def(
  "invalid_expression_kind", "Invalid expression kind",
  "In a script or data expression, an expression was of the wrong kind (for instance a string where only a primitive applications can appear).",
  obj(req("location", location), req("expected_kinds", list(kindCodec)), req("wrong_kind", kindCodec)));

/** `invalid_primitive_namespace`. */
export const invalidNamespace: ErrorDefinition<{ location: number; primitive_name: string; expected_namespace: PrimNamespace; wrong_namespace: PrimNamespace }> = def(
  "invalid_primitive_namespace", "Invalid primitive namespace", "In a script or data expression, a primitive was of the wrong namespace.",
  obj(req("location", location), req("primitive_name", prim), req("expected_namespace", namespaceCodec), req("wrong_namespace", namespaceCodec)));

/** `invalid_never_expr`. */
export const invalidNeverExpr: ErrorDefinition<{ location: number }> = def(
  "invalid_never_expr", "Invalid expression for type never",
  "In a script or data expression, an expression was provided but a value of type never was expected. No expression can have type never.", located);

/** `duplicate_script_field`. */
export const duplicateScriptField: ErrorDefinition<{ loc: number; prim: string }> = def(
  "duplicate_script_field", "Script has a duplicated field (parse error)", "When parsing script, a field was found more than once",
  obj(req("loc", location), req("prim", prim)));

/** `unexpected_lazy_storage`: a big_map or sapling_state type where it is not allowed. */
export const unexpectedLazyStorage: ErrorDefinition<{ loc: number }> = def(
  "unexpected_lazy_storage", "Lazy storage in unauthorized position (type error)",
  "When parsing script, a big_map or sapling_state type was found in a position where it could end up stored inside a big_map, which is forbidden for now.",
  obj(req("loc", location)));

/** `unexpected_operation`. */
export const unexpectedOperation: ErrorDefinition<{ loc: number }> = def(
  "unexpected_operation", "Operation in unauthorized position (type error)",
  "When parsing script, an operation type was found in the storage or parameter field.", obj(req("loc", location)));

/** `no_such_entrypoint`. */
export const noSuchEntrypoint: ErrorDefinition<{ entrypoint: string }> = def(
  "no_such_entrypoint", "No such entrypoint (type error)", "An entrypoint was not found when calling a contract.", obj(req("entrypoint", string)));

/** `unreachable_entrypoint`. */
export const unreachableEntrypoint: ErrorDefinition<{ path: string[] }> = def(
  "unreachable_entrypoint", "Unreachable entrypoint (type error)", "An entrypoint in the contract is not reachable.", obj(req("path", list(prim))));

/** `duplicate_entrypoint`. */
export const duplicateEntrypoint: ErrorDefinition<{ path: string }> = def(
  "duplicate_entrypoint", "Duplicate entrypoint (type error)", "Two entrypoints have the same name.", obj(req("path", string)));

/** `entrypoint_name_too_long`. */
export const entrypointNameTooLong: ErrorDefinition<{ name: string }> = def(
  "entrypoint_name_too_long", "Entrypoint name too long (type error)", "An entrypoint name exceeds the maximum length of 31 characters.",
  obj(req("name", string)));

/** `unexpected_contract`. */
export const unexpectedContract: ErrorDefinition<{ loc: number }> = def(
  "unexpected_contract", "Contract in unauthorized position (type error)",
  "When parsing script, a contract type was found in the storage or parameter field.", obj(req("loc", location)));

// -- Value typing errors --

/** `unordered_map_literal`. */
export const unorderedMapKeys: ErrorDefinition<{ location: number; item: Micheline }> = def(
  "unordered_map_literal", "Invalid map key order", "Map keys must be in strictly increasing order", obj(req("location", location), req("item", expr)));

/** `duplicate_map_keys`. */
export const duplicateMapKeys: ErrorDefinition<{ location: number; item: Micheline }> = def(
  "duplicate_map_keys", "Duplicate map keys", "Map literals cannot contain duplicated keys", obj(req("location", location), req("item", expr)));

/** `unordered_set_literal`. */
export const unorderedSetValues: ErrorDefinition<{ location: number; value: Micheline }> = def(
  "unordered_set_literal", "Invalid set value order", "Set values must be in strictly increasing order", obj(req("location", location), req("value", expr)));

/** `duplicate_set_values_in_literal`. */
export const duplicateSetValues: ErrorDefinition<{ location: number; value: Micheline }> = def(
  "duplicate_set_values_in_literal", "Sets literals cannot contain duplicate elements",
  "Set literals cannot contain duplicate elements, but a duplicate was found while parsing.", obj(req("location", location), req("value", expr)));

// -- Instruction typing errors --

/** `fail_not_in_tail_position`. */
export const failNotInTailPosition: ErrorDefinition<{ location: number }> = def(
  "fail_not_in_tail_position", "FAIL not in tail position", "There is non trivial garbage code after a FAIL instruction.", located);

/** `undefined_binop`. */
export const undefinedBinop: ErrorDefinition<{ location: number; operator_name: string; wrong_left_operand_type: Micheline; wrong_right_operand_type: Micheline }> = def(
  "undefined_binop", "Undefined binop", "A binary operation is called on operands of types over which it is not defined.",
  obj(req("location", location), req("operator_name", prim), req("wrong_left_operand_type", expr), req("wrong_right_operand_type", expr)));

/** `undefined_unop`. */
export const undefinedUnop: ErrorDefinition<{ location: number; operator_name: string; wrong_operand_type: Micheline }> = def(
  "undefined_unop", "Undefined unop", "A unary operation is called on an operand of type over which it is not defined.",
  obj(req("location", location), req("operator_name", prim), req("wrong_operand_type", expr)));

/** `bad_return`. */
export const badReturn: ErrorDefinition<{ location: number; expected_return_type: Micheline; wrong_stack_type: StackItemTy[] }> = def(
  "bad_return", "Bad return", "Unexpected stack at the end of a lambda or script.",
  obj(req("location", location), req("expected_return_type", expr), req("wrong_stack_type", stackTy)));

/** `bad_stack`. */
export const badStack: ErrorDefinition<{ location: number; primitive_name: string; relevant_stack_portion: number; wrong_stack_type: StackItemTy[] }> = def(
  "bad_stack", "Bad stack", "The stack has an unexpected length or contents.",
  obj(req("location", location), req("primitive_name", prim), req("relevant_stack_portion", int16), req("wrong_stack_type", stackTy)));

/** `inconsistent_annotations`: two annotations that cannot be merged. */
export const inconsistentAnnotations: ErrorDefinition<{ annot1: string; annot2: string }> = def(
  "inconsistent_annotations", "Annotations inconsistent between branches", "The annotations on two types could not be merged",
  obj(req("annot1", string), req("annot2", string)));

/** `inconsistent_field_annotations`. */
export const inconsistentFieldAnnotations: ErrorDefinition<{ annot1: string; annot2: string }> = def(
  "inconsistent_field_annotations", "Annotations for field accesses is inconsistent", "The specified field does not match the field annotation in the type",
  obj(req("annot1", string), req("annot2", string)));

/** `inconsistent_type_annotations`. */
export const inconsistentTypeAnnotations: ErrorDefinition<{ location: number; type1: Micheline; type2: Micheline }> = def(
  "inconsistent_type_annotations", "Types contain inconsistent annotations", "The two types contain annotations that do not match",
  obj(req("location", location), req("type1", expr), req("type2", expr)));

/** `unexpected_annotation`: an annotation where none (or not this kind) is allowed. */
export const unexpectedAnnotation: ErrorDefinition<{ location: number }> = def(
  "unexpected_annotation", "An annotation was encountered where no annotation is expected", "A node in the syntax tree was improperly annotated", located);

/** `ungrouped_annotations`: annotations of one kind spread apart. */
export const ungroupedAnnotations: ErrorDefinition<{ location: number }> = def(
  "ungrouped_annotations", "Annotations of the same kind were found spread apart", "Annotations of the same kind must be grouped", located);

/** `unmatched_branches`. */
export const unmatchedBranches: ErrorDefinition<{ location: number; first_stack_type: StackItemTy[]; other_stack_type: StackItemTy[] }> = def(
  "unmatched_branches", "Unmatched branches",
  "At the join point at the end of two code branches the stacks have inconsistent lengths or contents.",
  obj(req("location", location), req("first_stack_type", stackTy), req("other_stack_type", stackTy)));

/** `bad_stack_item`. */
export const badStackItem: ErrorDefinition<{ item_level: number }> = def(
  "bad_stack_item", "Bad stack item", "The type of a stack item is unexpected (this error is always accompanied by a more precise one).",
  obj(req("item_level", int16)));

/** `self_in_lambda`. */
export const selfInLambda: ErrorDefinition<{ location: number }> = def(
  "self_in_lambda", "SELF instruction in lambda", "A SELF instruction was encountered in a lambda expression.", located);

/** `inconsistent_stack_lengths`. */
export const inconsistentStackLengths: ErrorDefinition = def(
  "inconsistent_stack_lengths", "Inconsistent stack lengths", "A stack was of an unexpected length (this error is always in the context of a located error).");

/** `invalid_constant`: a data expression invalid for its type (wraps the precise error). */
export const invalidConstant: ErrorDefinition<{ location: number; expected_type: Micheline; wrong_expression: Micheline }> = def(
  "invalid_constant", "Invalid constant", "A data expression was invalid for its expected type.",
  obj(req("location", location), req("expected_type", expr), req("wrong_expression", expr)));

/** `view_name_too_long`. */
export const viewNameTooLong: ErrorDefinition<{ name: string }> = def(
  "view_name_too_long", "View name too long (type error)", "A view name exceeds the maximum length of 31 characters.", obj(req("name", string)));

/** `duplicated_view_name`. */
export const duplicatedViewName: ErrorDefinition<{ location: number }> = def(
  "duplicated_view_name", "Duplicated view name", "The name of view in toplevel should be unique.", obj(req("location", location)));

/** `invalid_syntactic_constant`: a literal of the right kind but an invalid form. */
export const invalidSyntacticConstant: ErrorDefinition<{ location: number; expected_form: string; wrong_expression: Micheline }> = def(
  "invalid_syntactic_constant", "Invalid constant (parse error)", "A compile-time constant was invalid for its expected form.",
  obj(req("location", location), req("expected_form", string), req("wrong_expression", expr)));

/** `invalid_contract`: a contract that does not exist or has another type. */
export const invalidContract: ErrorDefinition<{ location: number; contract: string }> = def(
  "invalid_contract", "Invalid contract",
  "A script or data expression references a contract that does not exist or assumes a wrong type for an existing contract.",
  obj(req("location", location), req("contract", contractId)));

/** `invalid_big_map`: a big map id that does not exist or has another type. */
export const invalidBigMap: ErrorDefinition<{ location: number; big_map: bigint }> = def(
  "invalid_big_map", "Invalid big_map",
  "A script or data expression references a big_map that does not exist or assumes a wrong type for an existing big_map.",
  obj(req("location", location), req("big_map", z)));

/** `comparable_type_expected`. */
export const comparableTypeExpected: ErrorDefinition<{ location: number; wrong_type: Micheline }> = def(
  "comparable_type_expected", "Comparable type expected", "A non comparable type was used in a place where only comparable types are accepted.",
  obj(req("location", location), req("wrong_type", expr)));

/** `inconsistent_type_sizes`. */
export const inconsistentTypeSizes: ErrorDefinition<{ first_type_size: number; other_type_size: number }> = def(
  "inconsistent_type_sizes", "Inconsistent type sizes", "Two types were expected to be equal but they have different sizes.",
  obj(req("first_type_size", int31), req("other_type_size", int31)));

/** `inconsistent_types`: the basic type clash error. */
export const inconsistentTypes: ErrorDefinition<{ loc?: number; first_type: Micheline; other_type: Micheline }> = def(
  "inconsistent_types", "Inconsistent types",
  "This is the basic type clash error, that appears in several places where the equality of two types have to be proven, it is always accompanied with another error that provides more context.",
  obj(opt("loc", location), req("first_type", expr), req("other_type", expr)));

/** `inconsistent_memo_sizes`. */
export const inconsistentMemoSizes: ErrorDefinition<{ first_memo_size: number; other_memo_size: number }> = def(
  "inconsistent_memo_sizes", "Inconsistent memo sizes", "Memo sizes of two sapling states or transactions do not match",
  obj(req("first_memo_size", uint16), req("other_memo_size", uint16)));

/** `bad_view_name`. */
export const badViewName: ErrorDefinition<{ loc: number }> = def(
  "bad_view_name", "Bad view name", "In a view declaration, the view name must be a string", obj(req("loc", location)));

/** `ill_typed_view`. */
export const illTypedView: ErrorDefinition<{ loc: number; resulted_view_stack: StackItemTy[]; expected_view_stack: StackItemTy[] }> = def(
  "ill_typed_view", "Ill typed view", "The return of a view block did not match the expected type",
  obj(req("loc", location), req("resulted_view_stack", stackTy), req("expected_view_stack", stackTy)));

/** `invalid_map_body`. */
export const invalidMapBody: ErrorDefinition<{ loc: number; body_type: StackItemTy[] }> = def(
  "invalid_map_body", "Invalid map body", "The body of a map block did not match the expected type", obj(req("loc", location), req("body_type", stackTy)));

/** `invalid_map_block_fail`. */
export const invalidMapBlockFail: ErrorDefinition<{ loc: number }> = def(
  "invalid_map_block_fail", "FAIL instruction occurred as body of map block",
  "FAIL cannot be the only instruction in the body. The proper type of the return list cannot be inferred.", obj(req("loc", location)));

/** `invalid_iter_body`. */
export const invalidIterBody: ErrorDefinition<{ loc: number; bef_stack: StackItemTy[]; aft_stack: StackItemTy[] }> = def(
  "invalid_iter_body", "ITER body returned wrong stack type", "The body of an ITER instruction must result in the same stack type as before the ITER.",
  obj(req("loc", location), req("bef_stack", stackTy), req("aft_stack", stackTy)));

/** `type_too_large`: a type bigger than `michelson_maximum_type_size`. */
export const typeTooLarge: ErrorDefinition<{ loc: number; maximum_type_size: number }> = def(
  "type_too_large", "Stack item type too large", "An instruction generated a type larger than the limit.",
  obj(req("loc", location), req("maximum_type_size", uint16)));

/** `bad_pair_argument`. */
export const badPairArgument: ErrorDefinition<{ loc: number }> = def(
  "bad_pair_argument", "0 or 1 passed to PAIR", "PAIR expects an argument of at least 2", obj(req("loc", location)));

/** `bad_unpair_argument`. */
export const badUnpairArgument: ErrorDefinition<{ loc: number }> = def(
  "bad_unpair_argument", "0 or 1 passed to UNPAIR", "UNPAIR expects an argument of at least 2", obj(req("loc", location)));

/** `bad_dupn_argument`. */
export const badDupnArgument: ErrorDefinition<{ loc: number }> = def(
  "bad_dupn_argument", "0 passed to DUP n", "DUP expects an argument of at least 1 (passed 0)", obj(req("loc", location)));

/** `bad_dupn_stack`. */
export const badDupnStack: ErrorDefinition<{ loc: number }> = def(
  "bad_dupn_stack", "Stack too short when typing DUP n", "Stack present when typing DUP n was too short", obj(req("loc", location)));

// -- Toplevel errors --

/** `ill_typed_data`: the toplevel error of a data expression that does not typecheck. */
export const illTypedData: ErrorDefinition<{ identifier?: string; expected_type: Micheline; ill_typed_expression: Micheline }> = def(
  "ill_typed_data", "Ill typed data",
  "The toplevel error thrown when trying to typecheck a data expression against a given type (always followed by more precise errors).",
  obj(opt("identifier", string), req("expected_type", expr), req("ill_typed_expression", expr)));

/** `ill_formed_type`: the toplevel error of a type expression that does not parse. */
export const illFormedType: ErrorDefinition<{ identifier?: string; ill_formed_expression: Micheline; location: number }> = def(
  "ill_formed_type", "Ill formed type",
  "The toplevel error thrown when trying to parse a type expression (always followed by more precise errors).",
  obj(opt("identifier", string), req("ill_formed_expression", expr), req("location", location)));

/** `ill_typed_contract`: the toplevel error of a script that does not typecheck. */
export const illTypedContract: ErrorDefinition<{ ill_typed_code: Micheline; type_map: TypeMapEntry[] }> = def(
  "ill_typed_contract", "Ill typed contract",
  "The toplevel error thrown when trying to typecheck a contract code against given input, output and storage types (always followed by more precise errors).",
  obj(req("ill_typed_code", expr), req("type_map", typeMap)));

/** `cannot_serialize_error`. */
export const cannotSerializeError: ErrorDefinition = def(
  "cannot_serialize_error", "Not enough gas to serialize error", "The error was too big to be serialized with the provided gas", undefined, "temporary");

/** `deprecated_instruction`. */
export const deprecatedInstruction: ErrorDefinition<{ prim: string }> = def(
  "deprecated_instruction", "Script is using a deprecated instruction", "A deprecated instruction usage is disallowed in newly created contracts",
  obj(req("prim", prim)));

/** `typechecking_too_many_recursive_calls`. */
export const typecheckingTooManyRecursiveCalls: ErrorDefinition = def(
  "typechecking_too_many_recursive_calls", "Too many recursive calls during typechecking", "Too many recursive calls were needed for typechecking",
  undefined, "temporary");

/** `unparsing_stack_overflow`. */
export const unparsingTooManyRecursiveCalls: ErrorDefinition = def(
  "unparsing_stack_overflow", "Too many recursive calls during unparsing", "Too many recursive calls were needed for unparsing", undefined, "temporary");

/** `unexpected_forged_value`: a ticket or lazy storage id where forged values are not allowed. */
export const unexpectedForgedValue: ErrorDefinition<{ location: number }> = def(
  "unexpected_forged_value", "Unexpected forged value", "A forged value was encountered but disallowed for that position.", obj(req("location", location)));

/** `unexpected_ticket`. */
export const unexpectedTicket: ErrorDefinition<{ loc: number }> = def(
  "unexpected_ticket", "Ticket in unauthorized position (type error)", "A ticket type has been found", obj(req("loc", location)));

/** `non_dupable_type`. */
export const nonDupableType: ErrorDefinition<{ loc: number; type: Micheline }> = def(
  "non_dupable_type", "Non-dupable type duplication attempt", "DUP was used on a non-dupable type (e.g. tickets).",
  obj(req("loc", location), req("type", expr)));

/**
 * `sapling_not_supported` (this node's own error, not Octez's): Sapling states and transactions
 * type-check, but this node neither builds their values nor runs the Sapling instructions.
 */
export const saplingNotSupported: ErrorDefinition<{ location: number; prim: string }> = def(
  "sapling_not_supported", "Sapling not supported by this node",
  "This node type-checks Sapling types but does not implement Sapling values nor the Sapling instructions.",
  obj(req("location", location), req("prim", prim)));

// -- errors of the data representations --

/** `non_printable_character` (Script_string): a string with a character outside newline and ASCII 32–126. */
export const nonPrintableCharacter: ErrorDefinition<{ position: number; string: string }> = def(
  "non_printable_character", "Non printable character in a Michelson string",
  "Michelson strings are only allowed to contain printable characters (either the newline character or characters in the [32, 126] ASCII range).",
  obj(req("position", int31), req("string", string)));

/** `contract.invalid_contract_notation`: a malformed contract notation. */
export const invalidContractNotation: ErrorDefinition<{ notation: string }> = protoError({
  id: "contract.invalid_contract_notation", kind: "permanent", title: "Invalid contract notation",
  description: "A malformed contract notation was given to an RPC or in a script.", fields: obj(req("notation", string)),
});
