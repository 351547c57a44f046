/**
 * The pool's settings beyond {@link ConnectionLimits}, with octez-node v12's defaults
 * (`node_config_file.ml`'s `default_p2p_limits`, `p2p_point_state.ml`'s reconnection policy,
 * `p2p.ml`'s maintenance pace), and the maintenance's thresholds (`P2p_maintenance.bounds`).
 * @module
 */
import type { ConnectionLimits } from "./api.ts";

/** How long a point waits before it is tried again (Octez `P2p_point_state.Info.reconnection_config`). */
export interface ReconnectionConfig {
  /** Growth of the delay after each failed attempt (1.2). */
  readonly factor: number;
  /** The first delay after a failed attempt (1 s). */
  readonly initialDelayMs: number;
  /** The delay after a connection ends (60 s). */
  readonly disconnectionDelayMs: number;
  /** The largest delay (2 days). */
  readonly increaseCapMs: number;
}

/** Octez's settings of the pool that `--connections` does not set (its configuration file does). */
export interface PoolTuning {
  /** Known points kept: past the first number, the GC brings them down to the second ((400, 300)). */
  readonly maxKnownPoints: readonly [max: number, target: number];
  /** Known peers kept, likewise ((400, 300)). */
  readonly maxKnownPeerIds: readonly [max: number, target: number];
  /** Greylisted peer ids remembered (1023). */
  readonly peerGreylistSize: number;
  /** Greylisted addresses listed (`ip_greylist_size_in_kilobytes`, 2048: Octez uses the number as the list's capacity). */
  readonly ipGreylistSize: number;
  /** How long an address stays greylisted (`ip_greylist_cleanup_delay`, 1 day). */
  readonly ipGreylistCleanupDelayMs: number;
  /** The least time between two swaps (`swap_linger`, 30 s). */
  readonly swapLingerMs: number;
  /** The maintenance's pause when the connections are within bounds (`maintenance_idle_time`, 120 s). */
  readonly maintenanceIdleTimeMs: number;
  /** The longest wait for new points after asking peers for some (`time_between_looking_for_peers`, 5 s). */
  readonly timeBetweenLookingForPeersMs: number;
  /** The reconnection delays of points. */
  readonly reconnection: ReconnectionConfig;
  /** Period of the flow averages (Octez's moving averages are refreshed every second). */
  readonly statRefreshMs: number;
  /** Random numbers in [0, 1) (Octez's `Random`: the extra incoming slot, swap and sampling choices). */
  readonly random: () => number;
}

/** Octez v12's defaults. */
export const DEFAULT_TUNING: PoolTuning = Object.freeze({
  maxKnownPoints: [400, 300] as const,
  maxKnownPeerIds: [400, 300] as const,
  peerGreylistSize: 1023,
  ipGreylistSize: 2 * 1024,
  ipGreylistCleanupDelayMs: 86_400_000,
  swapLingerMs: 30_000,
  maintenanceIdleTimeMs: 120_000,
  timeBetweenLookingForPeersMs: 5_000,
  reconnection: Object.freeze({ factor: 1.2, initialDelayMs: 1_000, disconnectionDelayMs: 60_000, increaseCapMs: 172_800_000 }),
  statRefreshMs: 1_000,
  random: Math.random,
});

/** octez-node's limits for `--connections N` (its default N is 50): min N/2 (1 when N is 1), expected N, max 3N/2. */
export function limitsForConnections(n: number): ConnectionLimits {
  return {
    minConnections: n === 1 ? 1 : Math.floor(n / 2),
    expectedConnections: n,
    maxConnections: Math.floor((3 * n) / 2),
    maxIncomingConnections: 20,
    connectionTimeoutMs: 10_000,
    authenticationTimeoutMs: 5_000,
  };
}

/** Checks the limits as Octez's `P2p.check_limits` and `P2p_maintenance.bounds` do; throws a RangeError. */
export function checkLimits(l: ConnectionLimits): void {
  const counts = ["minConnections", "expectedConnections", "maxConnections", "maxIncomingConnections"] as const;
  for (const k of counts) {
    if (!Number.isInteger(l[k]) || l[k] < 0) throw new RangeError(`value of option ${k} cannot be negative (got ${String(l[k])})`);
  }
  if (!(l.authenticationTimeoutMs > 0)) throw new RangeError("value of option authenticationTimeoutMs cannot be negative or null");
  if (!(l.connectionTimeoutMs > 0)) throw new RangeError("value of option connectionTimeoutMs cannot be negative or null");
  if (l.minConnections > l.expectedConnections || l.expectedConnections > l.maxConnections) {
    throw new RangeError("connection limits must satisfy minConnections <= expectedConnections <= maxConnections");
  }
}

/** The maintenance's thresholds (Octez `P2p_maintenance.bounds`). */
export interface Bounds {
  /** Below it, connect more. */
  readonly minThreshold: number;
  /** How many to reach at least when connecting more. */
  readonly minTarget: number;
  /** How many to keep at most when disconnecting. */
  readonly maxTarget: number;
  /** Above it, disconnect. */
  readonly maxThreshold: number;
}

/** Thresholds a third of the way between min and expected, and between expected and max. */
export function bounds(l: ConnectionLimits): Bounds {
  const stepMin = Math.floor((l.expectedConnections - l.minConnections) / 3);
  const stepMax = Math.floor((l.maxConnections - l.expectedConnections) / 3);
  return {
    minThreshold: l.minConnections + stepMin,
    minTarget: l.minConnections + 2 * stepMin,
    maxTarget: l.maxConnections - 2 * stepMax,
    maxThreshold: l.maxConnections - stepMax,
  };
}
