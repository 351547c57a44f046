/**
 * The node's service tree: chain-level, block and node-level services in one directory.
 * @module
 */
import { Directory } from "../directory.ts";
import { createRpcHandler, type RpcHandler, type RpcHandlerOptions } from "../handler.ts";
import { earlyLayoutServices } from "./early-layout.ts";
import { bakerServices } from "./baker.ts";
import { blockServices } from "./blocks.ts";
import { chainServices } from "./chains.ts";
import { configServices, defaultNodeConfig } from "./config.ts";
import type { ShellView } from "./context.ts";
import { injectionServices } from "./injection.ts";
import { networkServices } from "./network.ts";
import { nodeServices } from "./node.ts";
import { protocolServices } from "./protocols.ts";
import { statsServices, webStats } from "./stats.ts";
import { workerServices } from "./workers.ts";
import type { P2pNetwork } from "../../p2p/pool/api.ts";
import { announcedVersion } from "../../p2p/version.ts";

export type { ShellView } from "./context.ts";

/** Every service of the node over `shell`; `/network/*` over `p2p`, or answering as a node without P2P layer. */
export function nodeDirectory(shell: ShellView, p2p?: P2pNetwork): Directory<void> {
  const dir = new Directory()
    .merge(chainServices(shell))
    .merge(blockServices(shell))
    .merge(nodeServices(shell))
    .merge(injectionServices(shell))
    .merge(protocolServices(shell))
    .merge(statsServices(shell.stats ?? webStats))
    .merge(configServices(shell.config ?? defaultNodeConfig()))
    .merge(networkServices(p2p, announcedVersion(shell.genesis.chainName)));
  if (shell.workers !== undefined) dir.merge(workerServices(shell.workers, shell.chain.chainId));
  return shell.baker === undefined ? dir : dir.merge(bakerServices(shell.baker, shell.chain, shell.log));
}

/**
 * The RPC handler of a node's directory, with the early layout's paths (answered by the handler
 * itself, see `early-layout.ts`) merged in.
 */
export function nodeRpcHandler(directory: Directory<void>, options: RpcHandlerOptions = {}): RpcHandler {
  let handler: RpcHandler | undefined;
  directory.merge(earlyLayoutServices(() => (request) => handler!(request)));
  handler = createRpcHandler(directory, options);
  return handler;
}
