/**
 * How Hangzhou blocks are read (Octez `block_services.ml` over protocol 011's encodings): the
 * protocol part of their metadata (`hangzhouBlockMetadata`, what the block application stores as
 * `info.metadata`) and their operations with receipts (`blockOperationFor`, built from the
 * stored operation bytes and `operationMetadata` receipts).
 * @module
 */
import { decodeBinary } from "../../../encoding/codec.ts";
import { parseOperation } from "../../../protocols/hangzhou/apply/parse.ts";
import { blockOperationFor, operationMetadata, type BlockOperation, type ContentsResult } from "../../../encoding/hangzhou/receipts/contents-results.ts";
import type { BlockOperationParts, BlockOperationRpc } from "../block-protocols.ts";

/**
 * The operation of a Hangzhou block as `GET {B}/operations` shows it: its contents each with its
 * receipt's `metadata` when a receipt is kept and has one result per content (Octez's
 * `operation_data_and_receipt_encoding`), else the contents alone.
 */
export function hangzhouBlockOperation(protocol: string, op: BlockOperationParts): BlockOperation {
  const data = parseOperation({ hash: op.hash, branch: op.branch, proto: op.proto });
  const head = { protocol, chain_id: op.chainId, hash: op.hash, branch: op.branch };
  const results: ContentsResult[] | null = op.receipt === undefined ? null : decodeBinary(operationMetadata, op.receipt);
  if (results === null || results.length !== data.contents.length) {
    const plain = { ...head, contents: [...data.contents] };
    return (data.signature === undefined ? plain : { ...plain, signature: data.signature }) as BlockOperation;
  }
  const contents = data.contents.map((c, i) => {
    const { kind: _, ...metadata } = results[i]!;
    return { ...c, metadata };
  });
  const out = { ...head, contents } as { [k: string]: unknown };
  if (data.signature !== undefined) out["signature"] = data.signature;
  return out as unknown as BlockOperation;
}

/** The operations of blocks of protocol `protocol` (Hangzhou's shapes, that hash as `protocol`). */
export function hangzhouOperationRpc(protocol: string): BlockOperationRpc<BlockOperation> {
  return { codec: blockOperationFor(protocol), build: (op) => hangzhouBlockOperation(protocol, op) };
}
