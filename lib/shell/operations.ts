/**
 * Shell-level views of operations: their hashes, the Merkle root of a block's operation lists,
 * and the split of an operation into branch and protocol bytes.
 * @module
 */
import { B58, b58decode, b58encode } from "../encoding/base58.ts";
import { DecodeError } from "../encoding/codec.ts";
import { operationHash, operationListHash, operationListListHash } from "../crypto/hashes.ts";
import type { ShellOperation } from "./protocol.ts";

/** Base58 hash of an operation's bytes. */
export function hashOperation(bytes: Uint8Array): string {
  return b58encode(B58.operationHash, operationHash(bytes));
}

/** Base58 `LLo…` Merkle root of operation hashes, one list per validation pass. */
export function operationsHashOf(hashes: readonly (readonly string[])[]): string {
  const lists = hashes.map((pass) => operationListHash(pass.map((h) => b58decode(B58.operationHash, h))));
  return b58encode(B58.operationListListHash, operationListListHash(lists));
}

/** The shell's view of an operation's bytes: hash, branch (first 32 bytes) and the rest. */
export function shellOperation(bytes: Uint8Array): ShellOperation {
  if (bytes.length < 32) throw new DecodeError(`Operation too short: ${bytes.length} bytes, a branch takes 32`);
  return { hash: hashOperation(bytes), branch: b58encode(B58.blockHash, bytes.subarray(0, 32)), proto: bytes.subarray(32) };
}
