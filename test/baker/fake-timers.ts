/**
 * Test helpers of the baker's timed modes: timers that fire only when the test says so, and the
 * next block of the baker's `baked` watcher.
 * @module
 */
import type { Timers } from "../../lib/baker/baker.ts";
import type { BakedBlock } from "../../lib/baker/block.ts";

/** Timers that only fire when the test says so. */
export class FakeTimers implements Timers {
  readonly pending = new Map<number, { fn: () => void; ms: number }>();
  private nextId = 1;
  private waiters: (() => void)[] = [];
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.set(id, { fn, ms });
    for (const w of this.waiters.splice(0)) w();
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** Resolves once a timer is pending. */
  async armed(): Promise<{ fn: () => void; ms: number }> {
    while (this.pending.size === 0) await new Promise<void>((r) => this.waiters.push(r));
    return [...this.pending.values()][0]!;
  }
  /** Fires the pending timer. */
  fire(): void {
    const [id, t] = [...this.pending.entries()][0]!;
    this.pending.delete(id);
    t.fn();
  }
}

/** The next block of the baker's `baked` watcher. */
export async function next(sub: AsyncIterator<BakedBlock>): Promise<BakedBlock> {
  const r = await sub.next();
  if (r.done) throw new Error("the baked watcher ended");
  return r.value;
}
