/**
 * The distributed DB messages (Octez v12 `src/lib_shell/distributed_db_message.ml`): what peers
 * ask of each other and answer about a chain, as cases of the P2P message union (uint16 tags).
 *
 * | tag | message | payload |
 * |---|---|---|
 * | 0x10 | Get_current_branch | chain id (4) |
 * | 0x11 | Current_branch | chain id ‖ locator |
 * | 0x12 | Deactivate | chain id |
 * | 0x13 | Get_current_head | chain id |
 * | 0x14 | Current_head | chain id ‖ header (4-byte length ‖ header) ‖ mempool |
 * | 0x20 | Get_block_headers | list (4-byte length) of ≤ 10 block hashes |
 * | 0x21 | Block_header | header (to the end, ≤ 8 MiB) |
 * | 0x30 | Get_operations | list of ≤ 10 operation hashes |
 * | 0x31 | Operation | operation (to the end, ≤ 128 KiB) |
 * | 0x40 | Get_protocols | list of ≤ 10 protocol hashes |
 * | 0x41 | Protocol | protocol (≤ 2 MiB) |
 * | 0x60 | Get_operations_for_blocks | list of ≤ 10 (block hash ‖ validation pass int8) |
 * | 0x61 | Operations_for_blocks | block hash ‖ validation pass (int8) ‖ Merkle path (≤ 100 bytes) ‖ operations (each 4-byte length ‖ operation ≤ 128 KiB; ≤ 1 MiB in all) |
 * | 0x70 | Get_checkpoint | chain id |
 * | 0x71 | Checkpoint | chain id ‖ header (to the end) |
 * | 0x80 | Get_protocol_branch | chain id ‖ proto level (uint8) |
 * | 0x81 | Protocol_branch | chain id ‖ proto level ‖ locator |
 * | 0x90 | Get_predecessor_header | block hash ‖ offset (int32) |
 * | 0x91 | Predecessor_header | block hash ‖ offset ‖ header (to the end) |
 *
 * Octez v12 has no 0x50/0x51. The JSON forms are Octez's (`{"get_current_branch": "Net…"}`, …).
 * @module
 */
import type { RawBlockHeader } from "../../encoding/block-header.ts";
import type { Codec } from "../../encoding/core.ts";
import { checkSize, dynamicSize } from "../../encoding/dynamic.ts";
import { blockHash, chainId, operationHash, protocolHash } from "../../encoding/hashes.ts";
import { int32, int8, uint8 } from "../../encoding/integers.ts";
import { list, variableList } from "../../encoding/list.ts";
import { obj, req } from "../../encoding/object.ts";
import { rawOperation, type RawOperation } from "../../encoding/operation.ts";
import { protocolRecord, type ProtocolRecord } from "../../encoding/protocol.ts";
import { tagged, type Case } from "../../encoding/union.ts";
import {
  MAX_HASHES_PER_REQUEST,
  OPERATION_LIST_MAX_SIZE,
  OPERATION_MAX_SIZE,
  PROTOCOL_MAX_SIZE,
} from "./bounds.ts";
import { blockLocator, boundedBlockHeader, type BlockLocator } from "./locator.ts";
import { mempool, type Mempool } from "./mempool.ts";
import { operationListPath, type OperationListPath } from "./operation-path.ts";

/** A block hash and one of its validation passes. */
export interface OperationsKey {
  /** Block hash `B…`. */
  hash: string;
  /** Validation pass (int8 on the wire). */
  validation_pass: number;
}

/** A distributed DB message. */
export type ChainMessage =
  | { kind: "Get_current_branch"; chain_id: string }
  | { kind: "Current_branch"; chain_id: string; locator: BlockLocator }
  | { kind: "Deactivate"; chain_id: string }
  | { kind: "Get_current_head"; chain_id: string }
  | { kind: "Current_head"; chain_id: string; header: RawBlockHeader; mempool: Mempool }
  | { kind: "Get_block_headers"; hashes: string[] }
  | { kind: "Block_header"; header: RawBlockHeader }
  | { kind: "Get_operations"; hashes: string[] }
  | { kind: "Operation"; operation: RawOperation }
  | { kind: "Get_protocols"; hashes: string[] }
  | { kind: "Protocol"; protocol: ProtocolRecord }
  | { kind: "Get_operations_for_blocks"; blocks: OperationsKey[] }
  | {
    kind: "Operations_for_blocks";
    hash: string;
    validation_pass: number;
    /** Where this pass's list sits in the header's `operations_hash`. */
    path: OperationListPath;
    operations: RawOperation[];
  }
  | { kind: "Get_checkpoint"; chain_id: string }
  | { kind: "Checkpoint"; chain_id: string; header: RawBlockHeader }
  | { kind: "Get_protocol_branch"; chain_id: string; proto_level: number }
  | { kind: "Protocol_branch"; chain_id: string; proto_level: number; locator: BlockLocator }
  | { kind: "Get_predecessor_header"; hash: string; offset: number }
  | { kind: "Predecessor_header"; hash: string; offset: number; header: RawBlockHeader };

/** The `kind` of a distributed DB message. */
export type ChainMessageKind = ChainMessage["kind"];

type Of<K extends ChainMessageKind> = Extract<ChainMessage, { kind: K }>;

/** A case whose payload is an object codec, mapped to and from the message of kind `K`. */
function message<K extends ChainMessageKind, P>(
  tag: number,
  kind: K,
  codec: Codec<P>,
  to: (m: Of<K>) => P,
  from: (p: P) => Omit<Of<K>, "kind">,
): Case<ChainMessage> {
  return tagged<ChainMessage, P>(
    tag,
    kind,
    codec,
    (m) => (m.kind === kind ? to(m as Of<K>) : undefined),
    (p) => ({ kind, ...from(p) }) as unknown as ChainMessage,
  );
}

const hashes = (codec: Codec<string>) => list(codec, { maxLength: MAX_HASHES_PER_REQUEST });
const operationsKey = obj(req("hash", blockHash), req("validation_pass", int8));

/** An operation within Octez's bound (128 KiB). */
export const boundedOperation: Codec<RawOperation> = checkSize(OPERATION_MAX_SIZE, rawOperation);

/** A protocol within Octez's bound (2 MiB). */
export const boundedProtocol: Codec<ProtocolRecord> = checkSize(PROTOCOL_MAX_SIZE, protocolRecord);

/**
 * The operations of `Operations_for_blocks` (`Operation.bounded_list_encoding`): each behind a
 * 4-byte length, up to the end, 1 MiB at most in all.
 */
const operationList: Codec<RawOperation[]> = checkSize(OPERATION_LIST_MAX_SIZE, variableList(dynamicSize(boundedOperation)));

/** The cases of the distributed DB messages, in Octez's order. */
export const chainMessageCases: readonly Case<ChainMessage>[] = [
  message(0x10, "Get_current_branch", obj(req("get_current_branch", chainId)), (m) => ({ get_current_branch: m.chain_id }), (p) => ({
    chain_id: p.get_current_branch,
  })),
  message(
    0x11,
    "Current_branch",
    obj(req("chain_id", chainId), req("current_branch", blockLocator)),
    (m) => ({ chain_id: m.chain_id, current_branch: m.locator }),
    (p) => ({ chain_id: p.chain_id, locator: p.current_branch }),
  ),
  message(0x12, "Deactivate", obj(req("deactivate", chainId)), (m) => ({ deactivate: m.chain_id }), (p) => ({ chain_id: p.deactivate })),
  message(0x13, "Get_current_head", obj(req("get_current_head", chainId)), (m) => ({ get_current_head: m.chain_id }), (p) => ({
    chain_id: p.get_current_head,
  })),
  message(
    0x14,
    "Current_head",
    obj(req("chain_id", chainId), req("current_block_header", dynamicSize(boundedBlockHeader)), req("current_mempool", mempool)),
    (m) => ({ chain_id: m.chain_id, current_block_header: m.header, current_mempool: m.mempool }),
    (p) => ({ chain_id: p.chain_id, header: p.current_block_header, mempool: p.current_mempool }),
  ),
  message(0x20, "Get_block_headers", obj(req("get_block_headers", hashes(blockHash))), (m) => ({ get_block_headers: m.hashes }), (p) => ({
    hashes: p.get_block_headers,
  })),
  message(0x21, "Block_header", obj(req("block_header", boundedBlockHeader)), (m) => ({ block_header: m.header }), (p) => ({
    header: p.block_header,
  })),
  message(0x30, "Get_operations", obj(req("get_operations", hashes(operationHash))), (m) => ({ get_operations: m.hashes }), (p) => ({
    hashes: p.get_operations,
  })),
  message(0x31, "Operation", obj(req("operation", boundedOperation)), (m) => ({ operation: m.operation }), (p) => ({
    operation: p.operation,
  })),
  message(0x40, "Get_protocols", obj(req("get_protocols", hashes(protocolHash))), (m) => ({ get_protocols: m.hashes }), (p) => ({
    hashes: p.get_protocols,
  })),
  message(0x41, "Protocol", obj(req("protocol", boundedProtocol)), (m) => ({ protocol: m.protocol }), (p) => ({ protocol: p.protocol })),
  message(
    0x60,
    "Get_operations_for_blocks",
    obj(req("get_operations_for_blocks", list(operationsKey, { maxLength: MAX_HASHES_PER_REQUEST }))),
    (m) => ({ get_operations_for_blocks: m.blocks }),
    (p) => ({ blocks: p.get_operations_for_blocks }),
  ),
  message(
    0x61,
    "Operations_for_blocks",
    obj(
      req("operations_for_block", operationsKey),
      req("operation_hashes_path", operationListPath),
      req("operations", operationList),
    ),
    (m) => ({
      operations_for_block: { hash: m.hash, validation_pass: m.validation_pass },
      operation_hashes_path: m.path,
      operations: m.operations,
    }),
    (p) => ({
      hash: p.operations_for_block.hash,
      validation_pass: p.operations_for_block.validation_pass,
      path: p.operation_hashes_path,
      operations: p.operations,
    }),
  ),
  message(0x70, "Get_checkpoint", obj(req("get_checkpoint", chainId)), (m) => ({ get_checkpoint: m.chain_id }), (p) => ({
    chain_id: p.get_checkpoint,
  })),
  message(
    0x71,
    "Checkpoint",
    obj(req("checkpoint", obj(req("chain_id", chainId), req("header", boundedBlockHeader)))),
    (m) => ({ checkpoint: { chain_id: m.chain_id, header: m.header } }),
    (p) => ({ chain_id: p.checkpoint.chain_id, header: p.checkpoint.header }),
  ),
  message(
    0x80,
    "Get_protocol_branch",
    obj(req("get_protocol_branch", obj(req("chain", chainId), req("proto_level", uint8)))),
    (m) => ({ get_protocol_branch: { chain: m.chain_id, proto_level: m.proto_level } }),
    (p) => ({ chain_id: p.get_protocol_branch.chain, proto_level: p.get_protocol_branch.proto_level }),
  ),
  message(
    0x81,
    "Protocol_branch",
    obj(req("protocol_branch", obj(req("chain", chainId), req("proto_level", uint8), req("locator", blockLocator)))),
    (m) => ({ protocol_branch: { chain: m.chain_id, proto_level: m.proto_level, locator: m.locator } }),
    (p) => ({ chain_id: p.protocol_branch.chain, proto_level: p.protocol_branch.proto_level, locator: p.protocol_branch.locator }),
  ),
  message(
    0x90,
    "Get_predecessor_header",
    obj(req("get_predecessor_header", obj(req("block", blockHash), req("offset", int32)))),
    (m) => ({ get_predecessor_header: { block: m.hash, offset: m.offset } }),
    (p) => ({ hash: p.get_predecessor_header.block, offset: p.get_predecessor_header.offset }),
  ),
  message(
    0x91,
    "Predecessor_header",
    obj(req("predecessor_header", obj(req("block", blockHash), req("offset", int32), req("header", boundedBlockHeader)))),
    (m) => ({ predecessor_header: { block: m.hash, offset: m.offset, header: m.header } }),
    (p) => ({ hash: p.predecessor_header.block, offset: p.predecessor_header.offset, header: p.predecessor_header.header }),
  ),
];

/** The distributed DB versions Octez v12 speaks (`Distributed_db_version.[zero; one; two]`). */
export const DISTRIBUTED_DB_VERSIONS: readonly number[] = Object.freeze([0, 1, 2]);
