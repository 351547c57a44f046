/**
 * The shell's view of an operation (Octez `lib_base/operation.ml`): the branch it is anchored to,
 * then bytes only the protocol understands.
 * @module
 */
import type { Codec } from "./core.ts";
import { def } from "./conv.ts";
import { blockHash } from "./hashes.ts";
import { mergeObjs, obj, req, type ObjCodec } from "./object.ts";
import { variableBytes } from "./bytes.ts";

/** The shell header of an operation. */
export interface OperationShellHeader {
  /** Block hash the operation is anchored to (`B…`). */
  branch: string;
}

/** Operation shell header codec (`operation.shell_header`): the 32-byte branch. */
export const operationShellHeader: Codec<OperationShellHeader> = def("operation.shell_header", obj(req("branch", blockHash)), {
  description: "An operation's shell header.",
});

/** An operation as the shell sees it. */
export interface RawOperation extends OperationShellHeader {
  /** Protocol bytes: contents and signature. */
  data: Uint8Array;
}

/** Raw operation codec (`operation`): branch then the protocol bytes running to the end. */
export const rawOperation: Codec<RawOperation> = def(
  "operation",
  mergeObjs(operationShellHeader, obj(req("data", variableBytes)) as ObjCodec<{ data: Uint8Array }>),
);
