/**
 * Byte counters and flows (Octez `P2p_stat` from `P2p_io_scheduler`'s moving averages): totals
 * in bytes, and flows in bytes per second as Octez's `Moving_average` computes them: every
 * refresh, `average = α·bytes/elapsed + (1 − α)·average` with α = 0.2, in integer arithmetic.
 * @module
 */
import type { Stat } from "./api.ts";

/** Octez's α for the P2P flows. */
export const FLOW_ALPHA_PERMILLE = 200;

/** One direction's total and moving average. */
export class Meter {
  total = 0;
  private current = 0;
  average = 0;

  /** Counts `n` more bytes. */
  add(n: number): void {
    this.total += n;
    this.current += n;
  }

  /** Folds the bytes since the last refresh into the average (`elapsedMs` since then). */
  refresh(elapsedMs: number): void {
    const elapsed = Math.max(1, Math.trunc(elapsedMs));
    this.average = Math.trunc((FLOW_ALPHA_PERMILLE * this.current) / elapsed) +
      Math.trunc(((1000 - FLOW_ALPHA_PERMILLE) * this.average) / 1000);
    this.current = 0;
  }
}

/** Both directions of a connection, or of the whole node. */
export class Flows {
  readonly sent = new Meter();
  readonly received = new Meter();

  refresh(elapsedMs: number): void {
    this.sent.refresh(elapsedMs);
    this.received.refresh(elapsedMs);
  }

  /** As `/network/stat` shows it. */
  stat(): Stat {
    return { totalSent: this.sent.total, totalRecv: this.received.total, currentInflow: this.received.average, currentOutflow: this.sent.average };
  }
}

/** A stat with nothing counted (Octez `P2p_stat.empty`). */
export const EMPTY_STAT: Stat = Object.freeze({ totalSent: 0, totalRecv: 0, currentInflow: 0, currentOutflow: 0 });
