/**
 * The block subtree `/chains/<chain_id>/blocks/<block_id>/…`, resolved per request to the
 * named block. The header's protocol part is read with the block's protocol; the genesis
 * block is read with Octez's "fake protocol" (Protocol_hash.zero, empty protocol data).
 * @module
 */
import { variableBytes } from "../../encoding/bytes.ts";
import { shellHeader, type RawBlockHeader } from "../../encoding/block-header.ts";
import type { Codec } from "../../encoding/core.ts";
import { blockHash, chainId, protocolHash } from "../../encoding/hashes.ts";
import { mergeObjs, obj, req } from "../../encoding/object.ts";
import type { Block, Chain } from "../../shell/chain.ts";
import { blockArg, chainArg } from "../arg.ts";
import { Directory, mount } from "../directory.ts";
import { service } from "../service.ts";
import { chainOf, type ShellView } from "./context.ts";

/** What block services receive: the chain and the resolved block. */
export interface BlockCtx {
  readonly chain: Chain;
  readonly block: Block;
}

/** Octez's `Protocol_hash.zero`, shown as the protocol of the genesis block's header. */
export const FAKE_PROTOCOL_HASH = "PrihK96nBAFSxVL1GLJTVhu9YnzkMFiBeuJRPA8NwuZVZCE1L6i";

/** The full header answer: protocol, chain id, hash, then the shell fields and the protocol's fields. */
interface HeaderAnswer extends Omit<RawBlockHeader, "protocol_data"> {
  protocol: string;
  chain_id: string;
  hash: string;
}

/** Header of a block read with a protocol whose protocol data is empty (the genesis block). */
const emptyProtocolHeader: Codec<HeaderAnswer> = mergeObjs(
  obj(req("protocol", protocolHash), req("chain_id", chainId), req("hash", blockHash)),
  shellHeader,
);

// One answer object per block, so that the handler's JSON cache (keyed by identity) serves it.
const headers = new WeakMap<Block, HeaderAnswer>();

function headerOf({ chain, block }: BlockCtx): HeaderAnswer {
  let h = headers.get(block);
  if (h === undefined) {
    const { protocol_data: _, ...shell } = block.header;
    headers.set(block, (h = { protocol: FAKE_PROTOCOL_HASH, chain_id: chain.chainId, hash: block.hash, ...shell }));
  }
  return h;
}

/** Services every block has, whatever its protocol. */
export const blockDirectory: Directory<BlockCtx> = new Directory<BlockCtx>().register(
  service({
    method: "GET",
    path: ["hash"],
    description: "The block's hash, its unique identifier.",
    output: blockHash,
    cache: false,
    handler: ({ ctx }) => ctx.block.hash,
  }),
  service({
    method: "GET",
    path: ["header"],
    description: "The whole block header.",
    output: emptyProtocolHeader,
    cache: true,
    handler: ({ ctx }) => headerOf(ctx),
  }),
  service({
    method: "GET",
    path: ["header", "raw"],
    description: "The whole block header (unparsed).",
    output: variableBytes,
    handler: ({ ctx }) => ctx.block.bytes,
  }),
  service({
    method: "GET",
    path: ["header", "shell"],
    description: "The shell-specific fragment of the block header.",
    output: shellHeader,
    handler: ({ ctx }) => ctx.block.header,
  }),
  service({
    method: "GET",
    path: ["header", "protocol_data", "raw"],
    description: "The raw version of the protocol-specific part of the block header.",
    output: variableBytes,
    handler: ({ ctx }) => ctx.block.header.protocol_data,
  }),
);

/** Registers the block subtree, resolving `<block_id>` on each request (404 if unknown). */
export function blockServices(shell: ShellView): Directory<void> {
  return new Directory().dynamic(
    ["chains", chainArg, "blocks", blockArg],
    ([c, id]) => {
      const chain = chainOf(shell, c);
      const block = chain.resolve(id);
      return block && mount(blockDirectory, { chain, block });
    },
    "All the RPCs which are specific to a block.",
  );
}
