/**
 * How the block services read a block with its protocol: the codec of the protocol's part of
 * the header, and the services that protocol offers below `{B}` when it is a block's
 * `next_protocol` (context, helpers). Octez asks the block's `protocol` for the header,
 * metadata and operations, and its `next_protocol` for everything else.
 * @module
 */
import type { Codec } from "../../encoding/core.ts";
import { obj } from "../../encoding/object.ts";
import { protocolData as genesisProtocolData } from "../../protocols/genesis/command.ts";
import { GENESIS_PROTOCOL } from "../../protocols/genesis/command.ts";
import { Directory } from "../directory.ts";
import type { BlockCtx } from "./block-context.ts";

/** What the block services need from one protocol. */
export interface BlockProtocolRpc {
  /** The hash shown as `protocol` in header answers. */
  readonly hash: string;
  /** JSON and binary of the protocol data, an object whose fields join the header's. */
  readonly headerData: Codec<any>;
  /** Services below `{B}` of blocks whose `next_protocol` is this protocol. */
  readonly services: Directory<BlockCtx>;
}

/** Octez's `Protocol_hash.zero`, the protocol the genesis block is read with. */
export const FAKE_PROTOCOL_HASH = "PrihK96nBAFSxVL1GLJTVhu9YnzkMFiBeuJRPA8NwuZVZCE1L6i";

/** Octez's "fake protocol" for the genesis block: no protocol data, no services. */
export const FAKE_PROTOCOL_RPC: BlockProtocolRpc = {
  hash: FAKE_PROTOCOL_HASH,
  headerData: obj(),
  services: new Directory<BlockCtx>(),
};

/** The genesis protocol: its block carries the signed activation command. */
export function genesisProtocolRpc(services: Directory<BlockCtx>): BlockProtocolRpc {
  return { hash: GENESIS_PROTOCOL, headerData: genesisProtocolData, services };
}
