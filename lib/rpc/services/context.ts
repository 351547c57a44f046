/**
 * What the shell's RPC services read: the node's chain, its protocols and its settings.
 * @module
 */
import type { Baker } from "../../baker/baker.ts";
import type { Chain } from "../../shell/chain.ts";
import type { GenesisConfig } from "../../shell/genesis.ts";
import type { ProtocolRegistry } from "../../shell/protocols.ts";
import type { BlockValidator } from "../../shell/validator.ts";
import type { WorkersView } from "../../shell/workers-view.ts";
import type { BlockProtocolRpc } from "./block-protocols.ts";
import { NotFound } from "../service.ts";
import type { ChainRef } from "../arg.ts";
import type { RuntimeStats } from "./stats.ts";
import type { NodeConfig } from "./config.ts";
import type { SyncHeuristic } from "../../shell/sync-heuristic.ts";
import type { Logger } from "../../log.ts";

/** The node as the RPC services see it. */
export interface ShellView {
  readonly chain: Chain;
  readonly protocols: ProtocolRegistry;
  readonly genesis: GenesisConfig;
  readonly validator: BlockValidator;
  /** The workers `/workers/*` shows (not served when absent). */
  readonly workers?: WorkersView;
  /** How blocks of a protocol are read and which services it offers below `{B}`. */
  readonly blockRpc: (protocol: string) => BlockProtocolRpc | undefined;
  /** The sandbox baker, when the node runs one (serves `POST /sandbox/bake`). */
  readonly baker?: Pick<Baker, "bakeMany">;
  /** The commit the node was built from, when known (`/version`, `/monitor/commit_hash`). */
  readonly commit?: { readonly hash: string; readonly date: string };
  /** The runtime's figures behind `/stats/*` (what a web page sees when absent). */
  readonly stats?: RuntimeStats;
  /** The work budget of one RPC call, in milliseconds (`DEFAULT_WORK_BUDGET_MS` when absent). */
  readonly workBudgetMs?: number;
  /** The runtime configuration `/config` answers (`defaultNodeConfig()` when absent). */
  readonly config?: NodeConfig;
  /**
   * The main chain's synchronisation heuristic and bootstrapped flag (`is_bootstrapped`,
   * `/monitor/bootstrapped`, `PATCH /chains/<chain>`); a node without one is bootstrapped and synced.
   */
  readonly sync?: SyncHeuristic;
  /** Where the services tell what an operator cares about (injections, long bakes); nowhere when absent. */
  readonly log?: Logger;
}

/** The chain a `chain_id` argument names; 404 for `test` (no test chain runs) and foreign ids. */
export function chainOf(shell: ShellView, ref: ChainRef): Chain {
  if (ref.kind === "main" || (ref.kind === "id" && ref.id === shell.chain.chainId)) return shell.chain;
  throw new NotFound();
}
