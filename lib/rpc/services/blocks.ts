/**
 * The block subtree `/chains/<chain_id>/blocks/<block_id>/…`, resolved per request to the named
 * block. As in Octez, a block's directory joins the shell's own services, the header services
 * of the block's `protocol`, and the services its `next_protocol` offers (context, helpers).
 * The genesis block is read with Octez's "fake protocol" (Protocol_hash.zero, no protocol data).
 * Metadata and operations are read with the block's protocol, with the limits of its next one
 * (`./shell-blocks.ts`).
 * @module
 */
import { variableBytes } from "../../encoding/bytes.ts";
import { type RawBlockHeader, shellHeader } from "../../encoding/block-header.ts";
import type { Codec } from "../../encoding/core.ts";
import { blockHash, chainId, protocolHash } from "../../encoding/hashes.ts";
import { decodeBinary } from "../../encoding/codec.ts";
import { mergeObjs, obj, req } from "../../encoding/object.ts";
import type { Block } from "../../shell/chain.ts";
import { blockArg, chainArg } from "../arg.ts";
import { Directory, type Mounted, mount } from "../directory.ts";
import { service } from "../service.ts";
import type { BlockCtx } from "./block-context.ts";
import { type BlockProtocolRpc, FAKE_PROTOCOL_RPC } from "./block-protocols.ts";
import { completeServices } from "./complete.ts";
import { chainOf, type ShellView } from "./context.ts";
import { forgeBlockHeaderServices } from "./forge-block-header.ts";
import { blockReceiptServices, shellBlockExtras } from "./shell-blocks.ts";

export type { BlockCtx } from "./block-context.ts";

/** Services every block has, whatever its protocol. */
const shellBlockServices: Directory<BlockCtx> = new Directory<BlockCtx>().register(
  service({
    method: "GET",
    path: ["hash"],
    description: "The block's hash, its unique identifier.",
    output: blockHash,
    handler: ({ ctx }) => ctx.block.hash,
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
).merge(shellBlockExtras());

type HeaderAnswer = Omit<RawBlockHeader, "protocol_data"> & { protocol: string; chain_id: string; hash: string };

/** The services that read a block with its own protocol: the parsed header and protocol data. */
function protocolBlockServices(rpc: BlockProtocolRpc): Directory<BlockCtx> {
  const header: Codec<HeaderAnswer> = mergeObjs(
    obj(req("protocol", protocolHash), req("chain_id", chainId), req("hash", blockHash)),
    mergeObjs(shellHeader, rpc.headerData),
  );
  const protocolData: Codec<{ protocol: string }> = mergeObjs(obj(req("protocol", protocolHash)), rpc.headerData);
  // One answer object per block, so that the handler's JSON cache (keyed by identity) serves it.
  const headers = new WeakMap<Block, HeaderAnswer>();
  const headerOf = ({ chain, block }: BlockCtx): HeaderAnswer => {
    let h = headers.get(block);
    if (h === undefined) {
      const { protocol_data, ...shell } = block.header;
      const data = decodeBinary(rpc.headerData, protocol_data) as object;
      headers.set(block, (h = { protocol: rpc.hash, chain_id: chain.chainId, hash: block.hash, ...shell, ...data }));
    }
    return h;
  };
  return new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: ["header"],
      description: "The whole block header.",
      output: header,
      cache: true,
      handler: ({ ctx }) => headerOf(ctx),
    }),
    service({
      method: "GET",
      path: ["header", "protocol_data"],
      description: "The version-specific fragment of the block header.",
      output: protocolData,
      handler: ({ ctx }) => ({ protocol: rpc.hash, ...(decodeBinary(rpc.headerData, ctx.block.header.protocol_data) as object) }),
    }),
  );
}

/** Builds (and caches) the directory of blocks read with `protocol` and continued by `next`. */
function directories(): (protocol: BlockProtocolRpc, next: BlockProtocolRpc) => Directory<BlockCtx> {
  const cache = new Map<BlockProtocolRpc, Map<BlockProtocolRpc, Directory<BlockCtx>>>();
  return (protocol, next) => {
    let byNext = cache.get(protocol);
    if (byNext === undefined) cache.set(protocol, (byNext = new Map()));
    let dir = byNext.get(next);
    if (dir === undefined) {
      dir = new Directory<BlockCtx>()
        .merge(shellBlockServices)
        .merge(protocolBlockServices(protocol))
        .merge(blockReceiptServices(protocol, next))
        .merge(forgeBlockHeaderServices())
        .merge(completeServices(next.completeResolvers ?? []))
        .merge(next.services);
      byNext.set(next, dir);
    }
    return dir;
  };
}

/** Registers the block subtree, resolving `<block_id>` on each request (404 if unknown). */
export function blockServices(shell: ShellView): Directory<void> {
  const dirOf = directories();
  // A block's subtree and context never change: one per block object, shared by its requests
  // (`head` is resolved on each request; only what it resolves to is looked up here).
  const mounted = new WeakMap<Block, Mounted<BlockCtx>>();
  return new Directory().dynamic(
    ["chains", chainArg, "blocks", blockArg],
    ([c, id]) => {
      const chain = chainOf(shell, c);
      const block = chain.resolve(id);
      if (block === undefined) return undefined;
      let m = mounted.get(block);
      if (m === undefined || m.ctx.chain !== chain) {
        const isGenesis = block.hash === chain.genesis.hash;
        const protocol = isGenesis ? FAKE_PROTOCOL_RPC : shell.blockRpc(block.info.protocol);
        const next = shell.blockRpc(block.info.next_protocol);
        if (protocol === undefined || next === undefined) return undefined;
        m = mount(dirOf(protocol, next), { shell, chain, block });
        mounted.set(block, m);
      }
      return m;
    },
    "All the RPCs which are specific to a block.",
  );
}
