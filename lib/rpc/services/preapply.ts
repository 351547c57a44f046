/**
 * `POST {B}/helpers/preapply/block`: builds a block on `{B}` with the given protocol data and
 * operations and answers the shell header it must carry (fitness, context hash included) with
 * the operations' classification, as Octez's `Block_services.Preapply.block`.
 * @module
 */
import { shellHeader } from "../../encoding/block-header.ts";
import { bsonJson } from "../../encoding/bson.ts";
import { rawOperation } from "../../encoding/operation.ts";
import { type Codec } from "../../encoding/core.ts";
import { encodeBinary } from "../../encoding/codec.ts";
import { constant } from "../../encoding/conv.ts";
import { blockHash, operationHash } from "../../encoding/hashes.ts";
import { bytes } from "../../encoding/bytes.ts";
import { list } from "../../encoding/list.ts";
import { dynamicSize } from "../../encoding/dynamic.ts";
import { mergeObjs, obj, req } from "../../encoding/object.ts";
import { flag, optional, query } from "../query.ts";
import { timestampArg } from "../arg.ts";
import { service, type Service } from "../service.ts";
import { shellOperation } from "../../shell/operations.ts";
import type { BlockCtx } from "./block-context.ts";

/** An operation as the shell shows it: hash, branch and the protocol bytes in hex. */
const appliedOperation = mergeObjs(obj(req("hash", operationHash)), dynamicSize(rawOperation));
// JSON as Octez; in binary the data carries its own length where Octez prefixes branch ‖ data.
const refusedOperation = obj(req("hash", operationHash), req("branch", blockHash), req("data", bytes), req("error", bsonJson()));

/** Octez's `Preapply_result` of one validation pass. */
export const preapplyResult = obj(
  req("applied", list(appliedOperation)),
  req("refused", list(refusedOperation)),
  req("outdated", list(refusedOperation)),
  req("branch_refused", list(refusedOperation)),
  req("branch_delayed", list(refusedOperation)),
);

/** What the preapply service needs from the next protocol. */
export interface PreapplyProtocol<Op> {
  readonly hash: string;
  /** The protocol data codec (an object). */
  readonly headerData: Codec<any>;
  /** The protocol's JSON operation (`branch` and its protocol part). */
  readonly operation: Codec<Op>;
  /** The shell bytes of an operation: branch ‖ protocol part. */
  operationBytes(op: Op): Uint8Array;
}

/** The `helpers/preapply/block` service of a protocol; `now` gives the default timestamp. */
export function preapplyBlockService<Op>(p: PreapplyProtocol<Op>, now: () => number): Service<BlockCtx> {
  const protocolData = mergeObjs(obj(req("protocol", constant(p.hash))), dynamicSize(p.headerData));
  return service({
    method: "POST",
    path: ["helpers", "preapply", "block"],
    description: "Simulate the validation of a block that would contain the given operations and return the resulting fitness and context hash.",
    query: query({ sort: flag(), timestamp: optional(timestampArg) }),
    input: obj(req("protocol_data", protocolData), req("operations", list(dynamicSize(list(p.operation))))),
    output: obj(req("shell_header", shellHeader), req("operations", list(preapplyResult))),
    handler: async ({ ctx, query: q, body }) => {
      const { protocol: _, ...data } = body.protocol_data as { protocol: string };
      const bytes = encodeBinary(p.headerData, data);
      const ops = body.operations.map((pass) => pass.map((op) => p.operationBytes(op)));
      const timestamp = q.timestamp ?? Math.floor(now() / 1000);
      const built = await ctx.shell.validator.preapply(ctx.block, timestamp, bytes, ops);
      return {
        shell_header: built.shell,
        operations: ops.map((pass) => ({
          applied: pass.map((b) => {
            const o = shellOperation(b);
            return { hash: o.hash, branch: o.branch, data: o.proto };
          }),
          refused: [],
          outdated: [],
          branch_refused: [],
          branch_delayed: [],
        })),
      };
    },
  });
}
