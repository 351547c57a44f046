/**
 * The block validator's errors, with Octez's ids and fields (`block_validator_errors.ml`):
 * `validator.invalid_block` carries one of the block errors below, tagged by its `error` field.
 * @module
 */
import { bsonJson } from "../encoding/bson.ts";
import type { Json } from "../encoding/codec.ts";
import { constant } from "../encoding/conv.ts";
import type { Codec } from "../encoding/core.ts";
import { fitness } from "../encoding/fitness.ts";
import { blockHash, contextHash, operationHash, operationListListHash, protocolHash } from "../encoding/hashes.ts";
import { int31, int32, uint16, uint8 } from "../encoding/integers.ts";
import { list } from "../encoding/list.ts";
import { mergeObjs, obj, req } from "../encoding/object.ts";
import { tagged, union } from "../encoding/union.ts";
import { defineError } from "../errors/registry.ts";

/** Why a block is invalid, as Octez's `block_error`. */
export type BlockError =
  | { error: "cannot_parse_operation"; operation: string }
  | { error: "invalid_fitness"; expected: Uint8Array[]; found: Uint8Array[] }
  | { error: "non_increasing_timestamp" }
  | { error: "non_increasing_fitness" }
  | { error: "invalid_level"; expected: number; found: number }
  | { error: "invalid_proto_level"; expected: number; found: number }
  | { error: "replayed_operation"; operation: string }
  | { error: "outdated_operation"; operation: string; originating_block: string }
  | { error: "unexpected_number_of_passes"; found: number }
  | { error: "too_many_operations"; validation_pass: number; found: number; max: number }
  | { error: "oversized_operation"; operation: string; found: number; max: number }
  | { error: "invalid_pass"; operation: string; pass: number; allowed_pass: number[] }
  | { error: "cannot_parse_bock_header" }
  | { error: "economic_protocol_error"; trace: Json[] };

type Kind = BlockError["error"];

function blockCase<K extends Kind>(tag: number, title: string, kind: K, fields: Codec<Omit<Extract<BlockError, { error: K }>, "error">>) {
  type E = Extract<BlockError, { error: K }>;
  const codec = mergeObjs(obj(req("error", constant(kind))), fields) as unknown as Codec<E>;
  return tagged<BlockError, E>(tag, title, codec, (e) => (e.error === kind ? (e as E) : undefined), (e) => e);
}

const noFields = obj() as unknown as Codec<Record<string, never>>;

/** Octez's `block_error` encoding. */
export const blockErrorCodec: Codec<BlockError> = union<BlockError>([
  blockCase(0, "Cannot_parse_operation", "cannot_parse_operation", obj(req("operation", operationHash))),
  blockCase(1, "Invalid_fitness", "invalid_fitness", obj(req("expected", fitness), req("found", fitness))),
  blockCase(2, "Non_increasing_timestamp", "non_increasing_timestamp", noFields),
  blockCase(3, "Non_increasing_fitness", "non_increasing_fitness", noFields),
  blockCase(4, "Invalid_level", "invalid_level", obj(req("expected", int32), req("found", int32))),
  blockCase(5, "Invalid_proto_level", "invalid_proto_level", obj(req("expected", uint8), req("found", uint8))),
  blockCase(6, "Replayed_operation", "replayed_operation", obj(req("operation", operationHash))),
  blockCase(7, "Outdated_operation", "outdated_operation", obj(req("operation", operationHash), req("originating_block", blockHash))),
  blockCase(9, "Unexpected_number_of_validation_passes", "unexpected_number_of_passes", obj(req("found", uint8))),
  blockCase(10, "Too_many_operations", "too_many_operations", obj(req("validation_pass", uint8), req("found", uint16), req("max", uint16))),
  blockCase(11, "Oversized_operation", "oversized_operation", obj(req("operation", operationHash), req("found", int31), req("max", int31))),
  blockCase(12, "Unallowed_pass", "invalid_pass", obj(req("operation", operationHash), req("pass", uint8), req("allowed_pass", list(uint8)))),
  blockCase(13, "Cannot_parse_block_header", "cannot_parse_bock_header", noFields),
  blockCase(14, "Economic_protocol_error", "economic_protocol_error", obj(req("trace", list(bsonJson())))),
]);

/** `validator.invalid_block`: the block breaks a rule; `invalid_block` is its hash. */
export const invalidBlock = defineError<{ invalid_block: string } & BlockError>({
  id: "validator.invalid_block",
  kind: "permanent",
  title: "Invalid block",
  description: "Invalid block.",
  fields: mergeObjs(obj(req("invalid_block", blockHash)), blockErrorCodec),
});

/** `validator.unavailable_protocol`: the node cannot run the protocol a block needs. */
export const unavailableProtocol = defineError<{ block: string; missing_protocol: string }>({
  id: "validator.unavailable_protocol",
  kind: "temporary",
  title: "Missing protocol",
  description: "The protocol required for validating a block is missing.",
  fields: obj(req("block", blockHash), req("missing_protocol", protocolHash)),
});

/** `validator.inconsistent_operations_hash`: the operations do not hash to the header's `operations_hash`. */
export const inconsistentOperationsHash = defineError<{ block: string; expected: string; found: string }>({
  id: "validator.inconsistent_operations_hash",
  kind: "temporary",
  title: "Invalid merkle tree",
  description: "The provided list of operations is inconsistent with the block header.",
  fields: obj(req("block", blockHash), req("expected", operationListListHash), req("found", operationListListHash)),
});

/** `node.state.block.inconsistent_context_hash`: the header's context is not the one computed. */
export const inconsistentContextHash = defineError<{ wrong_context_hash: string; expected_context_hash: string }>({
  id: "node.state.block.inconsistent_context_hash",
  kind: "permanent",
  title: "Inconsistent commit hash",
  description: "When committing the context of a block, the announced context hash was not the one computed at commit time.",
  fields: obj(req("wrong_context_hash", contextHash), req("expected_context_hash", contextHash)),
});

/** `node.state.block_not_invalid`: unmarking a block that is not recorded as invalid. */
export const blockNotInvalid = defineError<{ block: string }>({
  id: "node.state.block_not_invalid",
  kind: "permanent",
  title: "Block not invalid",
  description: "The invalid block to be unmarked was not actually invalid.",
  fields: obj(req("block", blockHash)),
});

/** `node.peer_validator.unknown_ancestor`: a block whose predecessor the node does not have. */
export const unknownAncestor = defineError({
  id: "node.peer_validator.unknown_ancestor",
  kind: "permanent",
  title: "Unknown ancestor",
  description: "Unknown ancestor block found in the peer's chain",
});

/** `node.peer_validator.known_invalid`: a block already known to be invalid. */
export const knownInvalid = defineError({
  id: "node.peer_validator.known_invalid",
  kind: "permanent",
  title: "Known invalid",
  description: "Known invalid block found in the peer's chain",
});
