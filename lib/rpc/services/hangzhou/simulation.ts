/**
 * Running operations without including them (Octez's `helpers/scripts/run_operation` and
 * `helpers/preapply/operations`, and `simulate_operation` as later protocols name it): the
 * operations are applied in sequence on a block being built on `{B}`, and their receipts
 * returned. `run_operation` and `simulate_operation` skip the signature check; preapply checks it,
 * but for the sources the sandbox impersonates (`BlockValidator.signatures`), as the mempool does.
 * @module
 */
import { B58, b58decode } from "../../../encoding/base58.ts";
import { constant } from "../../../encoding/conv.ts";
import { decodeBinary, encodeBinary } from "../../../encoding/codec.ts";
import { dynamicSize } from "../../../encoding/dynamic.ts";
import { chainId as chainIdCodec } from "../../../encoding/hashes.ts";
import { int31 } from "../../../encoding/integers.ts";
import { list } from "../../../encoding/list.ts";
import { mergeObjs, obj, opt, req } from "../../../encoding/object.ts";
import { operation, type Operation } from "../../../encoding/hangzhou/operation.ts";
import {
  type ContentsResult,
  operationMetadata,
  operationWithMetadata,
  type OperationWithMetadata,
} from "../../../encoding/hangzhou/receipts/contents-results.ts";
import { failure } from "../../../errors/mod.ts";
import { HangzhouBlock, type Mode } from "../../../protocols/hangzhou/apply/block.ts";
import { HANGZHOU } from "../../../protocols/hangzhou/protocol.ts";
import { shellOperation } from "../../../shell/operations.ts";
import { Directory } from "../../directory.ts";
import { service } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import { workBudget } from "./context.ts";
import { guarded } from "./helpers.ts";
import type { Codec } from "../../../encoding/core.ts";
import { blockContext } from "../shell-blocks.ts";

/** Merges each content with its receipt, as Octez prints operations with metadata. */
function withReceipts(op: Operation, results: readonly ContentsResult[]): OperationWithMetadata {
  const contents = op.contents.map((c, i) => {
    const { kind: _, ...metadata } = results[i]!;
    return { ...c, metadata };
  });
  return (op.signature === undefined ? { contents } : { contents, signature: op.signature }) as OperationWithMetadata;
}

/** Applies `ops` in sequence on a block built on `{B}`; their receipts. */
async function applyInSequence(ctx: BlockCtx, ops: readonly Operation[], mode: Mode, now: () => number): Promise<OperationWithMetadata[]> {
  const { block, chain } = ctx;
  const timestamp = Math.max(Math.floor(now() / 1000), block.header.timestamp + 1);
  const signatureWaived = mode.kind === "partial_construction" ? ctx.shell.validator.signatures?.building : undefined;
  const state = await HangzhouBlock.begin(
    b58decode(B58.chainId, chain.chainId),
    { hash: block.hash, header: block.header, context: blockContext(ctx) },
    timestamp,
    mode,
    { budget: workBudget(ctx), ...(signatureWaived === undefined ? {} : { signatureWaived }) },
  );
  const out: OperationWithMetadata[] = [];
  for (const op of ops) {
    const receipt = await state.applyOperation(shellOperation(encodeBinary(operation, op)));
    out.push(withReceipts(op, decodeBinary(operationMetadata, receipt) ?? []));
  }
  return out;
}

function checkChain(ctx: BlockCtx, chainId: string): void {
  if (chainId !== ctx.chain.chainId) throw failure.error({ msg: `Invalid chain id ${chainId}: this node runs ${ctx.chain.chainId}` });
}

/** The simulation services of Hangzhou. */
export function simulationServices(now: () => number): Directory<BlockCtx> {
  // Octez's operation encoding refuses an empty contents list (and a batch of non-manager contents)
  const checked = guarded(operation);
  const runInput = obj(req("operation", checked), req("chain_id", chainIdCodec));
  const simulateInput = obj(req("operation", checked), req("chain_id", chainIdCodec), opt("latency", int31));
  const preapplyInput = list(guarded(mergeObjs(obj(req("protocol", constant(HANGZHOU))), operation) as Codec<Operation & { protocol: string }>));
  const simulate = async (ctx: BlockCtx, body: { operation: Operation; chain_id: string }) => {
    checkChain(ctx, body.chain_id);
    return (await applyInSequence(ctx, [body.operation], { kind: "simulation" }, now))[0]!;
  };
  return new Directory<BlockCtx>().register(
    service({
      method: "POST",
      path: ["helpers", "scripts", "run_operation"],
      description: "Run an operation without signature checks",
      input: runInput,
      output: operationWithMetadata,
      handler: ({ ctx, body }) => simulate(ctx, body),
    }),
    service({
      method: "POST",
      path: ["helpers", "scripts", "simulate_operation"],
      description: "Simulate an operation without signature checks (the later protocols' name of run_operation)",
      input: simulateInput,
      output: operationWithMetadata,
      handler: ({ ctx, body }) => simulate(ctx, body),
    }),
    service({
      method: "POST",
      path: ["helpers", "preapply", "operations"],
      description: "Simulate the validation of an operation.",
      input: preapplyInput,
      output: list(dynamicSize(operationWithMetadata)),
      handler: ({ ctx, body }) =>
        applyInSequence(
          ctx,
          body.map(({ protocol: _, ...op }) => op as Operation),
          { kind: "partial_construction" },
          now,
        ),
    }),
  );
}
