/**
 * `POST /injection/block`: a block given as header bytes and operations, validated and stored.
 * @module
 */
import { bytes } from "../../encoding/bytes.ts";
import { dynamicSize } from "../../encoding/dynamic.ts";
import { blockHash } from "../../encoding/hashes.ts";
import { list } from "../../encoding/list.ts";
import { obj, req } from "../../encoding/object.ts";
import { rawOperation } from "../../encoding/operation.ts";
import { encodeBinary } from "../../encoding/codec.ts";
import { chainArg } from "../arg.ts";
import { Directory } from "../directory.ts";
import { flag, optional, query } from "../query.ts";
import { service } from "../service.ts";
import { chainOf, type ShellView } from "./context.ts";

/** Registers the injection services. */
export function injectionServices(shell: ShellView): Directory<void> {
  return new Directory().register(
    service({
      method: "POST",
      path: ["injection", "block"],
      description:
        "Inject a block in the node and broadcast it. The `operations` embedded in `blockHeader` might be pre-validated using a contextual RPCs from the latest block (e.g. '/blocks/head/context/preapply'). Returns the ID of the block. By default, the RPC will wait for the block to be validated before answering. If ?async is true, the function returns immediately. Otherwise, the block will be validated before the result is returned. If ?force is true, it will be injected even on non strictly increasing fitness. An optional ?chain parameter can be used to specify whether to inject on the test chain or the main chain.",
      query: query({ async: flag(), force: flag(), chain: optional(chainArg) }),
      input: obj(req("data", bytes), req("operations", list(dynamicSize(list(dynamicSize(rawOperation)))))),
      output: blockHash,
      handler: async ({ query: q, body }) => {
        if (q.chain !== undefined) chainOf(shell, q.chain);
        const ops = body.operations.map((pass) => pass.map((op) => encodeBinary(rawOperation, op)));
        const done = shell.validator.inject(body.data, ops, { force: q.force });
        if (!q.async) return await done;
        done.catch(() => {}); // the outcome shows in invalid_blocks and the monitors
        return shell.validator.hashOf(body.data);
      },
    }),
  );
}
