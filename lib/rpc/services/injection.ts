/**
 * `POST /injection/block`: a block given as header bytes and operations, validated and stored.
 * `POST /injection/operation` and `POST /private/injection/operation`: an operation given as the
 * hex of its bytes, handed to the prevalidator (Octez `injection_directory.ml`).
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
import { operationHash } from "../../encoding/hashes.ts";
import { failWith, refusalIds } from "../../shell/mempool-errors.ts";
import { type Logger, SILENT_LOGGER } from "../../log.ts";
import { hashOperation } from "../../shell/operations.ts";
import type { Prevalidator } from "../../shell/prevalidator.ts";
import { B58, b58encode } from "../../encoding/base58.ts";
import { TezosError } from "../../errors/registry.ts";
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
        const started = performance.now();
        const done = shell.validator.inject(body.data, ops, { force: q.force });
        const log = shell.log ?? SILENT_LOGGER;
        done.then(
          (hash) => {
            const operations = ops.reduce((sum, pass) => sum + pass.length, 0);
            log.info("block_injected", { block_level: shell.chain.block(hash)?.header.level, hash, operations, ms: Math.round(performance.now() - started) });
          },
          (e: unknown) => log.info("block_refused", { hash: shell.validator.hashOf(body.data), error: refusalIds(e).join(",") }),
        );
        if (!q.async) return await done;
        done.catch(() => {}); // the outcome shows in invalid_blocks and the monitors
        return shell.validator.hashOf(body.data);
      },
    }),
  );
}

const OPERATION_DESCRIPTION =
  "Inject an operation in node and broadcast it. Returns the ID of the operation. The `signedOperationContents` should be constructed using a contextual RPCs from the latest block and signed by the client. By default, the RPC will wait for the operation to be (pre-)validated before answering. See RPCs under /blocks/prevalidation for more details on the prevalidation context. If ?async is true, the function returns immediately. Otherwise, the operation will be validated before the result is returned. An optional ?chain parameter can be used to specify whether to inject on the test chain or the main chain.";

/**
 * Registers `POST /injection/operation` and `POST /private/injection/operation` (the latter
 * forces: the operation is classified whatever the outcome, as Octez's private injection).
 * Answers the operation's hash once it is applied, or Octez's `failure` (500) when it cannot be
 * parsed, names an unknown or too old branch, or is not applied; with `?async`, the hash at once.
 */
export function operationInjectionServices(shell: ShellView, prevalidator: Prevalidator): Directory<void> {
  const log: Logger = shell.log ?? SILENT_LOGGER;
  const inject = (force: boolean) =>
    async ({ query: q, body }: { query: { async: boolean; chain: Parameters<typeof chainOf>[1] | undefined }; body: Uint8Array }) => {
      if (q.chain !== undefined) chainOf(shell, q.chain);
      const hash = hashOperation(body);
      const done = (async () => {
        if (body.length < 32) throw failWith("Can't parse the operation");
        if (q.chain === undefined && !force) {
          const branch = b58encode(B58.blockHash, body.subarray(0, 32));
          if (shell.chain.block(branch) === undefined) throw failWith(`Unknown branch (${branch.slice(0, 12)}), cannot inject the operation.`);
        }
        return prevalidator.inject(body, { force });
      })();
      done.then(
        () => log.info("operation_injected", { hash }),
        (e: unknown) => {
          const ids = refusalIds(e);
          const msg = ids.length === 1 && ids[0] === "failure" && e instanceof Error ? failureMessage(e) : undefined;
          log.info("operation_refused", { hash, error: ids.join(","), msg });
        },
      );
      if (!q.async) return await done;
      done.catch(() => {}); // the outcome shows in the mempool
      return hash;
    };
  const spec = { description: OPERATION_DESCRIPTION, query: query({ async: flag(), chain: optional(chainArg) }), input: bytes, output: operationHash };
  return new Directory().register(
    service({ method: "POST", path: ["injection", "operation"], ...spec, handler: inject(false) }),
    service({ method: "POST", path: ["private", "injection", "operation"], ...spec, handler: inject(true) }),
  );
}

/** The first line of a `failure`'s message (`Unknown branch (BLockGenesis…), cannot inject the operation.`). */
function failureMessage(error: Error): string | undefined {
  const item = error instanceof TezosError ? error.trace[0]?.toJson() : undefined;
  const msg = item !== null && typeof item === "object" && !Array.isArray(item) ? item["msg"] : undefined;
  return typeof msg === "string" ? msg.split("\n")[0] : undefined;
}
