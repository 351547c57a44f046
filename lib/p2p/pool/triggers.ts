/**
 * Wake-ups between the pool's parts (Octez `P2p_trigger`): a new point, a new peer, a new
 * connection, too few or too many connections. Each wait resolves at the next broadcast of its
 * kind, or when the signal aborts.
 * @module
 */

/** One kind of wake-up. */
export class Trigger {
  private waiters: (() => void)[] = [];

  /** Wakes every current waiter. */
  broadcast(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves at the next broadcast, or when `signal` aborts. */
  wait(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        signal?.removeEventListener("abort", done);
        this.waiters = this.waiters.filter((f) => f !== done);
        resolve();
      };
      this.waiters.push(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}

/** The pool's wake-ups. */
export class Triggers {
  readonly newPoint = new Trigger();
  readonly newPeer = new Trigger();
  readonly newConnection = new Trigger();
  readonly tooFewConnections = new Trigger();
  readonly tooManyConnections = new Trigger();
}

/** Resolves after `ms`, or when `signal` aborts (a timer that never outlives its use). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
