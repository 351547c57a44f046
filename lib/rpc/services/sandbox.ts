/**
 * The sandbox controls under `/sandbox/…` (docs/sandbox.md): our own services, outside Octez's
 * namespace, listed in `/describe` like every other. Each concern has its file
 * (`sandbox-*.ts`); every service checks {@link SandboxView.guard} first: refused unless the
 * node runs a sandbox chain, and, for those that change the chain's state, while P2P peers are
 * connected. Octez's default ACL (`SECURE`, on any non-loopback listening address) denies them
 * all, as it denies everything it does not list.
 * @module
 */
import { Directory } from "../directory.ts";
import type { SandboxGuard } from "../../sandbox/guard.ts";
import type { ShellView } from "./context.ts";
import type { SandboxClock } from "../../sandbox/clock.ts";
import { sandboxTimeServices } from "./sandbox-time.ts";
import { impersonationServices, type ImpersonationView } from "./sandbox-impersonation.ts";
import type { SandboxSnapshots } from "../../sandbox/snapshots.ts";
import { sandboxSnapshotServices } from "./sandbox-snapshot.ts";
import { sandboxStateServices, type StateView } from "./sandbox-state.ts";

/** What the sandbox services act on. */
export interface SandboxView {
  readonly shell: ShellView;
  readonly guard: SandboxGuard;
  /** The sandbox clock (`lib/sandbox/clock.ts`): `/sandbox/time…` is served when it is given. */
  readonly clock?: SandboxClock;
  /** Called after each move of the clock (`SandboxTimeView.moved`). */
  readonly clockMoved?: () => Promise<unknown>;
  /** The impersonated accounts and their records (`lib/sandbox/impersonation.ts`): `/sandbox/impersonat…` is served when it is given. */
  readonly impersonation?: Omit<ImpersonationView, "guard">;
  /** The snapshots (`lib/sandbox/snapshots.ts`): `/sandbox/snapshot`, `/sandbox/revert` and `/sandbox/state` are served when they are given. */
  readonly snapshots?: SandboxSnapshots;
  /** The state changes (`lib/sandbox/changes.ts`): `/sandbox/set_…` and `/sandbox/changes` are served when they are given. */
  readonly state?: Omit<StateView, "guard">;
}

/** Every sandbox control of the node over `view`. */
export function sandboxServices(view: SandboxView): Directory<void> {
  const dir = new Directory();
  if (view.clock !== undefined) dir.merge(sandboxTimeServices({ clock: view.clock, guard: view.guard, ...(view.clockMoved === undefined ? {} : { moved: view.clockMoved }) }));
  if (view.impersonation !== undefined) dir.merge(impersonationServices({ ...view.impersonation, guard: view.guard }));
  if (view.snapshots !== undefined) dir.merge(sandboxSnapshotServices({ shell: view.shell, guard: view.guard, snapshots: view.snapshots }));
  if (view.state !== undefined) dir.merge(sandboxStateServices({ ...view.state, guard: view.guard }));
  return dir;
}
