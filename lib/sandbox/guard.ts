/**
 * Who may use the sandbox controls (`/sandbox/…`): only a node running a sandbox chain, and,
 * for the controls that change the chain's state (balances, storage, revert, impersonation…),
 * only while it has no P2P peer: followers would refuse such blocks, or pull the node away from
 * them. Time and baking controls work on a network too. Both refusals are errors in Octez's
 * conventions (500 with an error list), with ids of their own.
 *
 * @example
 * ```ts
 * const guard = sandboxGuard({ sandbox: true, peers: () => 0 });
 * guard.requireSandbox();  // fine
 * guard.requireNoPeers();  // fine: no peer connected
 * ```
 * @module
 */
import { obj, req } from "../encoding/object.ts";
import { string } from "../encoding/bytes.ts";
import { int31 } from "../encoding/integers.ts";
import { defineError, TezosError } from "../errors/registry.ts";

/** `sandbox.not_a_sandbox`: a sandbox control asked of a node whose chain is not a sandbox. */
export const notASandbox = defineError<{ chain_name: string }>({
  id: "sandbox.not_a_sandbox",
  kind: "permanent",
  title: "Not a sandbox chain",
  description: "The sandbox controls (/sandbox/…) only work on a node running a sandbox chain.",
  fields: obj(req("chain_name", string)),
});

/** `sandbox.peers_connected`: a state-changing control asked while P2P peers are connected. */
export const peersConnected = defineError<{ peers: number }>({
  id: "sandbox.peers_connected",
  kind: "temporary",
  title: "Sandbox state change refused while peers are connected",
  description:
    "The sandbox controls that change the chain's state are refused while the node has P2P peers: they would reject its blocks or pull it away from them. Disconnect them first.",
  fields: obj(req("peers", int31)),
});

/** What the guard checks: whether the chain is a sandbox, and how many peers are connected now. */
export interface SandboxGuardOptions {
  /** Whether the node runs a sandbox chain (its genesis is Octez's sandbox genesis). */
  readonly sandbox: boolean;
  /** The chain's name, told in the refusal. */
  readonly chainName?: string;
  /** The number of P2P peers connected now (0 for a node without P2P). */
  readonly peers: () => number;
}

/** The checks every sandbox service runs before it acts. */
export interface SandboxGuard {
  /** Throws `sandbox.not_a_sandbox` unless the node runs a sandbox chain. */
  requireSandbox(): void;
  /** {@link requireSandbox}, then throws `sandbox.peers_connected` while peers are connected. */
  requireNoPeers(): void;
}

/** The guard of a node (see {@link SandboxGuardOptions}). */
export function sandboxGuard(options: SandboxGuardOptions): SandboxGuard {
  const requireSandbox = () => {
    if (!options.sandbox) throw new TezosError(notASandbox.create({ chain_name: options.chainName ?? "unknown" }));
  };
  return {
    requireSandbox,
    requireNoPeers() {
      requireSandbox();
      const peers = options.peers();
      if (peers > 0) throw new TezosError(peersConnected.create({ peers }));
    },
  };
}
