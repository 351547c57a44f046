/**
 * Reading an operation the shell hands over: Hangzhou's encoding, also accepting the extra
 * byte Taquito 24+ forges after a reveal (see `decodeInjectedOperation`). An operation is read
 * by the mempool's plugin, applied in the mempool, sorted into its validation pass and applied in
 * its block: the reading is kept by operation hash, frozen, and shared.
 * @module
 */
import { B58, b58decode } from "../../../encoding/base58.ts";
import { Lru } from "../../../encoding/lru.ts";
import { decodeInjectedOperation, type OperationContents } from "../../../encoding/hangzhou/operation.ts";
import type { ShellOperation } from "../../../shell/protocol.ts";

/** A shell operation's protocol data, read. */
export interface ParsedOperation {
  /** The contents (frozen: never change them). */
  readonly contents: readonly OperationContents[];
  readonly signature?: string;
  /** Extra 0x00 bytes the client forged after reveals (see `decodeInjectedOperation`). */
  readonly extraRevealBytes: number;
}

/** Operations read lately, by hash (a shell operation's hash is that of its bytes). */
const parsed = new Lru<string, ParsedOperation>(16_384);

/** The contents and signature of a shell operation; throws a `DecodeError` when they do not decode. */
export function parseOperation(op: ShellOperation): ParsedOperation {
  const known = parsed.get(op.hash);
  if (known !== undefined) return known;
  const branch = b58decode(B58.blockHash, op.branch);
  const bytes = new Uint8Array(branch.length + op.proto.length);
  bytes.set(branch);
  bytes.set(op.proto, branch.length);
  const { operation, extraRevealBytes } = decodeInjectedOperation(bytes);
  const out: ParsedOperation = deepFreeze(
    operation.signature === undefined
      ? { contents: operation.contents, extraRevealBytes }
      : { contents: operation.contents, signature: operation.signature, extraRevealBytes },
  );
  parsed.set(op.hash, out);
  return out;
}

/** `value`, with every object and array inside it frozen (bytes are left as they are). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || ArrayBuffer.isView(value) || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
