/**
 * How the block services read a block with its protocol: the codec of the protocol's part of
 * the header, of its block metadata and of its operations, and the services that protocol
 * offers below `{B}` when it is a block's `next_protocol` (context, helpers), with the limits
 * it sets for the next block. Octez asks the block's `protocol` for the header, metadata and
 * operations, and its `next_protocol` for everything else.
 * @module
 */
import type { Codec } from "../../encoding/core.ts";
import { obj } from "../../encoding/object.ts";
import { MAX_BLOCK_LENGTH } from "../../protocols/genesis/activation.ts";
import { protocolData as genesisProtocolData } from "../../protocols/genesis/command.ts";
import { GENESIS_PROTOCOL } from "../../protocols/genesis/command.ts";
import { Directory } from "../directory.ts";
import type { BlockCtx } from "./block-context.ts";
import type { PrefixResolver } from "./complete.ts";

/** Size limits of one validation pass (Octez's `operation_list_quota`). */
export interface OperationListQuota {
  readonly max_size: number;
  readonly max_op?: number;
}

/** The limits a protocol sets for the blocks it validates (shown in the metadata of their predecessor). */
export interface ProtocolLimits {
  readonly maxOperationDataLength: number;
  readonly maxBlockHeaderLength: number;
  /** One quota per validation pass. */
  readonly operationListQuota: readonly OperationListQuota[];
}

/** One stored operation of a block, as the shell hands it to the protocol's operation codec. */
export interface BlockOperationParts {
  readonly chainId: string;
  readonly hash: string;
  readonly branch: string;
  /** The operation's protocol bytes (after the branch). */
  readonly proto: Uint8Array;
  /** Its receipt in the protocol's binary encoding; `undefined` when none is kept. */
  readonly receipt: Uint8Array | undefined;
}

/** How a protocol shows the operations of its blocks (`GET {B}/operations`). */
export interface BlockOperationRpc<T = any> {
  /** The JSON and binary of one operation, `protocol`, `chain_id`, `hash` and `branch` included. */
  readonly codec: Codec<T>;
  /** The value `codec` prints for one stored operation. */
  build(op: BlockOperationParts): T;
}

/** What the block services need from one protocol. */
export interface BlockProtocolRpc {
  /** The hash shown as `protocol` in header answers. */
  readonly hash: string;
  /** JSON and binary of the protocol data, an object whose fields join the header's. */
  readonly headerData: Codec<any>;
  /** Services below `{B}` of blocks whose `next_protocol` is this protocol. */
  readonly services: Directory<BlockCtx>;
  /** What `helpers/complete/<prefix>` completes besides the shell's hashes (e.g. contracts). */
  readonly completeResolvers?: readonly PrefixResolver[];
  /**
   * The protocol's part of block metadata, an object whose fields join the shell's part (its
   * binary is what a block stores as `info.metadata`). Absent: no fields (Octez's `unit`/`empty`).
   */
  readonly metadata?: Codec<any>;
  /** How operations of this protocol's blocks are shown; absent: the protocol has none. */
  readonly operation?: BlockOperationRpc;
  /** The limits this protocol sets when it is the next protocol; absent: all zero, no pass. */
  readonly limits?: ProtocolLimits;
  /** Protocol environment version: from 1 on, blocks carry metadata hashes (Octez `Block_validation`). */
  readonly environmentVersion?: number;
}

/** Octez's `Protocol_hash.zero`, the protocol the genesis block is read with. */
export const FAKE_PROTOCOL_HASH = "PrihK96nBAFSxVL1GLJTVhu9YnzkMFiBeuJRPA8NwuZVZCE1L6i";

/** Octez's "fake protocol" for the genesis block: no protocol data, no services. */
export const FAKE_PROTOCOL_RPC: BlockProtocolRpc = {
  hash: FAKE_PROTOCOL_HASH,
  headerData: obj(),
  services: new Directory<BlockCtx>(),
};

/** The limits of the genesis protocol: no operations, a header as long as the longest command. */
export const GENESIS_LIMITS: ProtocolLimits = Object.freeze({
  maxOperationDataLength: 0,
  maxBlockHeaderLength: MAX_BLOCK_LENGTH,
  operationListQuota: Object.freeze([]) as readonly OperationListQuota[],
});

/** The genesis protocol: its block carries the signed activation command; its metadata is unit. */
export function genesisProtocolRpc(services: Directory<BlockCtx>): BlockProtocolRpc {
  return { hash: GENESIS_PROTOCOL, headerData: genesisProtocolData, services, limits: GENESIS_LIMITS, environmentVersion: 0 };
}
