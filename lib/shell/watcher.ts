/**
 * A broadcast point for events (new heads, valid blocks, protocols, mempool changes) that any
 * number of monitor streams follow. Each subscriber has its own queue and is dropped as soon as
 * its iterator is returned (the RPC layer does that when the client goes away).
 * @module
 */

/** Fan-out of values to subscribers, each an async iterator with its own queue. */
export class Watcher<T> {
  private readonly subscribers = new Set<Subscriber<T>>();

  /** Number of live subscribers (for tests and worker stats). */
  get size(): number {
    return this.subscribers.size;
  }

  /** Delivers `value` to every live subscriber. */
  notify(value: T): void {
    for (const s of this.subscribers) s.push(value);
  }

  /**
   * A new subscription starting with `initial` values, then every later notification. It ends
   * when `return()` is called on it, when `signal` aborts, or when the watcher is closed.
   */
  subscribe(initial: readonly T[] = [], signal?: AbortSignal): AsyncIterableIterator<T> {
    const sub = new Subscriber<T>(initial, () => this.subscribers.delete(sub));
    this.subscribers.add(sub);
    if (signal) {
      if (signal.aborted) sub.end();
      else signal.addEventListener("abort", () => sub.end(), { once: true });
    }
    return sub;
  }

  /** Ends every subscription. */
  close(): void {
    for (const s of [...this.subscribers]) s.end();
  }
}

class Subscriber<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[];
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private done = false;
  private readonly onEnd: () => void;

  constructor(initial: readonly T[], onEnd: () => void) {
    this.queue = [...initial];
    this.onEnd = onEnd;
  }

  push(value: T): void {
    if (this.done) return;
    const w = this.waiting;
    if (w) {
      this.waiting = undefined;
      w({ value, done: false });
    } else {
      this.queue.push(value);
    }
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    this.queue.length = 0;
    this.onEnd();
    const w = this.waiting;
    this.waiting = undefined;
    w?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    if (this.queue.length > 0) return Promise.resolve({ value: this.queue.shift() as T, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
