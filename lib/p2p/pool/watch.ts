/**
 * Streams of records to whoever watches (Octez's `Lwt_watcher`): each watcher gets every value
 * notified after it started watching, in order, until its signal aborts or the source closes; and
 * bounded logs (Octez's `Ringo.Ring`) of the last values, which can be watched too.
 * @module
 */

/** Values a watcher may hold unread; past it the oldest are dropped (a client that never reads). */
export const WATCHER_BACKLOG = 10_000;

class Subscription<T> {
  readonly queue: T[] = [];
  wake: (() => void) | undefined;
  done = false;

  push(value: T): void {
    if (this.done) return;
    this.queue.push(value);
    if (this.queue.length > WATCHER_BACKLOG) this.queue.shift();
    this.poke();
  }

  end(): void {
    this.done = true;
    this.poke();
  }

  private poke(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}

/** A source of values for any number of watchers. */
export class Watchers<T> {
  private readonly subscriptions = new Set<Subscription<T>>();
  private closed = false;

  /** Gives `value` to every current watcher. */
  notify(value: T): void {
    for (const s of this.subscriptions) s.push(value);
  }

  /** How many watch now. */
  get size(): number {
    return this.subscriptions.size;
  }

  /**
   * The values notified from now on (the watch starts at this call, not at the first read), until
   * `signal` aborts or {@link close} is called; then the iteration ends.
   */
  watch(signal: AbortSignal): AsyncIterable<T> {
    const sub = new Subscription<T>();
    if (this.closed || signal.aborted) sub.done = true;
    else this.subscriptions.add(sub);
    const onAbort = () => {
      this.subscriptions.delete(sub);
      sub.end();
    };
    if (!sub.done) signal.addEventListener("abort", onAbort, { once: true });
    const subscriptions = this.subscriptions;
    const iterator: AsyncIterator<T> = {
      async next(): Promise<IteratorResult<T>> {
        for (;;) {
          if (sub.queue.length > 0) return { value: sub.queue.shift()!, done: false };
          if (sub.done) {
            signal.removeEventListener("abort", onAbort);
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => (sub.wake = resolve));
        }
      },
      async return(): Promise<IteratorResult<T>> {
        subscriptions.delete(sub);
        sub.end();
        sub.queue.length = 0;
        signal.removeEventListener("abort", onAbort);
        return { value: undefined, done: true };
      },
    };
    return { [Symbol.asyncIterator]: () => iterator };
  }

  /** Ends every watch, and any later one at once. */
  close(): void {
    this.closed = true;
    for (const s of this.subscriptions) s.end();
    this.subscriptions.clear();
  }
}

/** The last `capacity` values (oldest first), watchable (Octez's point and peer event rings). */
export class BoundedLog<T> {
  private readonly items: T[] = [];
  private readonly capacity: number;
  readonly watchers = new Watchers<T>();

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** Adds a value, dropping the oldest past the capacity, and tells the watchers. */
  add(value: T): void {
    this.items.push(value);
    if (this.items.length > this.capacity) this.items.shift();
    this.watchers.notify(value);
  }

  /** The values kept, oldest first. */
  elements(): T[] {
    return [...this.items];
  }
}
