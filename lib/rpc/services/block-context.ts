/**
 * What block services receive: the node's view, the chain and the resolved block.
 * @module
 */
import type { Block, Chain } from "../../shell/chain.ts";
import type { ShellView } from "./context.ts";

/** Context of the services below `{B}`. */
export interface BlockCtx {
  readonly shell: ShellView;
  readonly chain: Chain;
  readonly block: Block;
}
