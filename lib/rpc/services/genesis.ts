/**
 * The services the genesis protocol offers below `{B}` when it validates the next block (that
 * is, at the genesis block): `helpers/preapply/block`, used to build the activation block.
 * @module
 */
import { encodeBinary } from "../../encoding/codec.ts";
import { rawOperation } from "../../encoding/operation.ts";
import { protocolData } from "../../protocols/genesis/command.ts";
import { GENESIS_PROTOCOL } from "../../protocols/genesis/command.ts";
import { Directory } from "../directory.ts";
import type { BlockCtx } from "./block-context.ts";
import { type BlockProtocolRpc, genesisProtocolRpc } from "./block-protocols.ts";
import { preapplyBlockService } from "./preapply.ts";

/** How blocks of the genesis protocol are read, and its services at the genesis block. */
export function genesisRpc(now: () => number): BlockProtocolRpc {
  const services = new Directory<BlockCtx>().register(
    preapplyBlockService(
      { hash: GENESIS_PROTOCOL, headerData: protocolData, operation: rawOperation, operationBytes: (op) => encodeBinary(rawOperation, op) },
      now,
    ),
  );
  return genesisProtocolRpc(services);
}
