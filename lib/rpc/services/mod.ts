/**
 * The node's service tree: chain-level, block and node-level services in one directory.
 * @module
 */
import { Directory } from "../directory.ts";
import { bakerServices } from "./baker.ts";
import { blockServices } from "./blocks.ts";
import { chainServices } from "./chains.ts";
import type { ShellView } from "./context.ts";
import { injectionServices } from "./injection.ts";
import { nodeServices } from "./node.ts";
import { protocolServices } from "./protocols.ts";
import { statsServices, webStats } from "./stats.ts";

export type { ShellView } from "./context.ts";

/** Every service of the node over `shell`. */
export function nodeDirectory(shell: ShellView): Directory<void> {
  const dir = new Directory()
    .merge(chainServices(shell))
    .merge(blockServices(shell))
    .merge(nodeServices(shell))
    .merge(injectionServices(shell))
    .merge(protocolServices(shell))
    .merge(statsServices(shell.stats ?? webStats));
  return shell.baker === undefined ? dir : dir.merge(bakerServices(shell.baker));
}
