/**
 * Chain-level services (`/chains/<chain_id>/…` outside the block subtree): chain id, block
 * listing, checkpoint and levels, invalid blocks, bootstrap status (the shell's synchronisation
 * heuristic, `lib/shell/sync-heuristic.ts`) and its forcing.
 * @module
 */
import { chainId as chainIdCodec } from "../../encoding/hashes.ts";
import { unit } from "../../encoding/conv.ts";
import { bool } from "../../encoding/integers.ts";
import { obj, req } from "../../encoding/object.ts";
import { list } from "../../encoding/list.ts";
import type { Block, Chain } from "../../shell/chain.ts";
import { blockNotInvalid } from "../../shell/errors.ts";
import { blockHashArg, chainArg, timestampArg, uintArg } from "../arg.ts";
import { Directory } from "../directory.ts";
import { multi, optional, query } from "../query.ts";
import { NotFound, service } from "../service.ts";
import { chainOf, type ShellView } from "./context.ts";
import {
  blockDescriptorCodec,
  blockListsCodec,
  bootstrapStatusCodec,
  checkpointCodec,
  invalidBlockCodec,
} from "./shell-encodings.ts";

const blocksQuery = query({
  length: optional(uintArg, "The requested number of predecessors to return (per request; see next argument)."),
  head: multi(
    blockHashArg,
    "An empty argument requests blocks starting with the current head. A non empty list allows to request one or more specific fragments of the chain.",
  ),
  min_date: optional(timestampArg, "When `min_date` is provided, blocks with a timestamp before `min_date` are filtered out"),
});

/**
 * Octez's `list_blocks`: for each start block, up to `length` hashes going down its predecessors,
 * stopping early at a block an earlier fragment already listed (and at genesis).
 */
function listBlocks(chain: Chain, starts: readonly Block[], length: number): string[][] {
  const seen = new Set<string>();
  return starts.map((b) => {
    const out = [b.hash];
    let cur = b;
    while (out.length < length && cur.hash !== chain.genesis.hash && !seen.has(cur.hash)) {
      const pred = chain.block(cur.header.predecessor);
      if (pred === undefined) break;
      out.push(pred.hash);
      cur = pred;
    }
    for (const h of out) seen.add(h);
    return out;
  });
}

/** The body of `PATCH /chains/<chain>` (Octez's `bootstrapped_flag_encoding`). */
const bootstrappedFlag = obj(req("bootstrapped", bool));

/** Registers the chain-level services in `root`. */
export function chainServices(shell: ShellView): Directory<void> {
  const C = ["chains", chainArg] as const;
  const levelService = (name: "checkpoint" | "savepoint" | "caboose", description: string) =>
    service({
      method: "GET",
      path: [...C, "levels", name],
      description,
      output: blockDescriptorCodec,
      handler: ({ params: [c] }) => {
        const { hash, level } = chainOf(shell, c).locator(name);
        return { block_hash: hash, level };
      },
    });
  return new Directory().register(
    service({
      method: "GET",
      path: [...C, "chain_id"],
      description: "The chain unique identifier.",
      output: chainIdCodec,
      handler: ({ params: [c] }) => chainOf(shell, c).chainId,
    }),
    service({
      method: "GET",
      path: [...C, "blocks"],
      description:
        "Lists block hashes from '<chain>', up to the last checkpoint, sorted with decreasing fitness. Without arguments it returns the head of the chain. Optional arguments allow to return the list of predecessors of a given block or of a set of blocks.",
      query: blocksQuery,
      output: blockListsCodec,
      handler: ({ params: [c], query: q }) => {
        const chain = chainOf(shell, c);
        let starts: Block[];
        if (q.head.length > 0) starts = q.head.flatMap((h) => chain.block(h) ?? []);
        else {
          starts = chain.knownHeads();
          if (q.min_date !== undefined) starts = starts.filter((b) => b.header.timestamp >= q.min_date!);
        }
        return listBlocks(chain, starts, q.length ?? 1);
      },
    }),
    service({
      method: "GET",
      path: [...C, "checkpoint"],
      description:
        "DEPRECATED: use `../levels/{checkpoint, savepoint, caboose, history_mode}` instead. The current checkpoint for this chain.",
      output: checkpointCodec,
      handler: ({ params: [c] }) => {
        const chain = chainOf(shell, c);
        const block = chain.block(chain.locator("checkpoint").hash)!;
        return {
          block: block.header,
          savepoint: chain.locator("savepoint").level,
          caboose: chain.locator("caboose").level,
          history_mode: chain.historyMode,
        };
      },
    }),
    levelService("checkpoint", "The current checkpoint for this chain."),
    levelService("savepoint", "The current savepoint for this chain."),
    levelService("caboose", "The current caboose for this chain."),
    service({
      method: "GET",
      path: [...C, "invalid_blocks"],
      description: "Lists blocks that have been declared invalid along with the errors that led to them being declared invalid.",
      output: list(invalidBlockCodec),
      handler: ({ params: [c] }) => chainOf(shell, c).invalidBlocks(),
    }),
    service({
      method: "GET",
      path: [...C, "invalid_blocks", blockHashArg],
      description: "The errors that appears during the block (in)validation.",
      output: invalidBlockCodec,
      handler: ({ params: [c, h] }) => chainOf(shell, c).store.invalidBlock(h) ?? notFound(),
    }),
    service({
      method: "DELETE",
      path: [...C, "invalid_blocks", blockHashArg],
      description: "Remove an invalid block for the tezos storage",
      output: unit,
      handler: async ({ params: [c, h] }) => {
        if (!(await chainOf(shell, c).unmarkInvalid(h))) throw blockNotInvalid.error({ block: h });
        return undefined;
      },
    }),
    service({
      method: "GET",
      path: [...C, "is_bootstrapped"],
      description: "The bootstrap status of a chain",
      output: bootstrapStatusCodec,
      handler: ({ params: [c] }) => {
        chainOf(shell, c);
        const sync = shell.sync;
        return sync === undefined ? { bootstrapped: true, sync_state: "synced" as const } : { bootstrapped: sync.isBootstrapped(), sync_state: sync.status() };
      },
    }),
    service({
      method: "PATCH",
      path: C,
      description: "Forcefully set the bootstrapped flag of the node",
      input: bootstrappedFlag,
      output: unit,
      handler: ({ params: [c], body }) => {
        chainOf(shell, c);
        // A node without a heuristic is bootstrapped for good: there is no flag to set.
        shell.sync?.forceBootstrapped(body.bootstrapped);
        return undefined;
      },
    }),
  );
}

function notFound(): never {
  throw new NotFound();
}
