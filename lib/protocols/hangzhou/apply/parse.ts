/**
 * Reading an operation the shell hands over: Hangzhou's encoding, also accepting the extra
 * byte Taquito 24+ forges after a reveal (see `decodeInjectedOperation`).
 * @module
 */
import { B58, b58decode } from "../../../encoding/base58.ts";
import { decodeInjectedOperation, type OperationContents } from "../../../encoding/hangzhou/operation.ts";
import type { ShellOperation } from "../../../shell/protocol.ts";

/** The contents and signature of a shell operation. */
export function parseOperation(op: ShellOperation): { contents: OperationContents[]; signature?: string } {
  const branch = b58decode(B58.blockHash, op.branch);
  const bytes = new Uint8Array(branch.length + op.proto.length);
  bytes.set(branch);
  bytes.set(op.proto, branch.length);
  const { operation } = decodeInjectedOperation(bytes);
  return { contents: operation.contents, signature: operation.signature };
}
