/**
 * The sandbox clock: the wall clock plus an offset in whole seconds, which `POST
 * /sandbox/time/increase` and `/sandbox/time/set` move (docs/sandbox.md, Time and baking). Every
 * part of the node that decides a block's time reads it (the baker, the prevalidator's block
 * under construction, the simulations' and preapplications' default timestamps), so the next
 * block is timestamped at the moved time: the later of this clock and Emmy*'s minimal valid
 * time after its predecessor. Moving time never skips a level: cycles go by levels.
 *
 * The clock may be set back, but never before the head's timestamp: a block must be later than
 * its predecessor. The offset is a row of the store's `config` table (`sandbox_clock_offset`,
 * decimal seconds), written before a change is answered, so it is kept across restarts. Changes
 * run one at a time; a refused change (a bad value, a time before the head, a write the store
 * refused) leaves the clock as it was.
 *
 * @example
 * ```ts
 * const clock = sandboxClock({ store, wall: Date.now, headTimestamp: () => chain.head.header.timestamp });
 * await clock.increase(3600); // an hour later from now on
 * clock.now();                // milliseconds, as Date.now
 * ```
 * @module
 */
import { obj, req } from "../encoding/object.ts";
import { string } from "../encoding/bytes.ts";
import { timestamp } from "../encoding/time.ts";
import { defineError, TezosError } from "../errors/registry.ts";
import type { KeyValueStore } from "../store/kv.ts";
import { key, Table } from "../store/tables.ts";

/** The store row holding the offset: decimal seconds (`"3600"`, `"-20"`). */
export const CLOCK_OFFSET_KEY: Uint8Array = key(Table.config, "sandbox_clock_offset");

/** The latest time the clock may show, in seconds: 9999-12-31T23:59:59Z (the last RFC 3339 second). */
export const MAX_SANDBOX_TIME_S = 253402300799;

/** `sandbox.invalid_time_increase`: the seconds to move forward are not a positive whole number, or go past year 9999. */
export const invalidTimeIncrease = defineError<{ seconds: string }>({
  id: "sandbox.invalid_time_increase",
  kind: "permanent",
  title: "Invalid sandbox time increase",
  description: `The sandbox clock moves forward by a positive whole number of seconds, and not past ${MAX_SANDBOX_TIME_S} (9999-12-31T23:59:59Z).`,
  fields: obj(req("seconds", string)),
});

/** `sandbox.invalid_timestamp`: the time asked for is neither RFC 3339 text nor integer seconds, or is past year 9999. */
export const invalidTimestamp = defineError<{ timestamp: string }>({
  id: "sandbox.invalid_timestamp",
  kind: "permanent",
  title: "Invalid sandbox timestamp",
  description: `The sandbox clock is set to an RFC 3339 timestamp ("2022-01-01T00:00:00Z") or integer seconds since the epoch, as block headers show them, at most 9999-12-31T23:59:59Z.`,
  fields: obj(req("timestamp", string)),
});

/** `sandbox.timestamp_before_head`: the sandbox clock cannot be set before the head's timestamp. */
export const timestampBeforeHead = defineError<{ timestamp: number; head_timestamp: number }>({
  id: "sandbox.timestamp_before_head",
  kind: "temporary",
  title: "Sandbox time before the head",
  description: "The sandbox clock cannot be set before the head's timestamp: the next block must be later than its predecessor.",
  fields: obj(req("timestamp", timestamp), req("head_timestamp", timestamp)),
});

/** What the clock reads and where it keeps its offset. */
export interface SandboxClockOptions {
  /** The store whose `config` table keeps the offset. */
  readonly store: KeyValueStore;
  /** The wall clock in milliseconds since the epoch (`Date.now` when absent). */
  readonly wall?: () => number;
  /** The head's timestamp in seconds: the clock is never set before it. */
  readonly headTimestamp: () => number;
}

/** The sandbox clock of a node (see the module doc). */
export interface SandboxClock {
  /** Milliseconds since the epoch: the wall clock plus the offset (a drop-in for `Date.now`). */
  now(): number;
  /** The offset from the wall clock, in whole seconds (negative after a set back). */
  offset(): number;
  /**
   * Moves the clock `seconds` forward (a positive whole number); resolves once the new offset
   * is stored, to the clock's new time in seconds. `sandbox.invalid_time_increase` otherwise.
   */
  increase(seconds: number): Promise<number>;
  /**
   * Sets the clock to `seconds` since the epoch (the clock then runs on from there); resolves
   * once stored, to that time. `sandbox.timestamp_before_head` before the head's timestamp,
   * `sandbox.invalid_timestamp` for a value that is not a whole number of seconds up to year 9999.
   */
  set(seconds: number): Promise<number>;
}

/** The clock over `options.store`, starting from the offset stored there (0 when none). */
export function sandboxClock(options: SandboxClockOptions): SandboxClock {
  const wall = options.wall ?? Date.now;
  let offset = storedOffset(options.store);
  let queue: Promise<unknown> = Promise.resolve();
  const nowSeconds = () => Math.floor(wall() / 1000) + offset;
  /** Runs `change` after the changes before it; it answers the new offset, stored before it is used. */
  const serialized = (change: () => number): Promise<number> => {
    const run = queue.then(async () => {
      const next = change();
      await options.store.write([{ key: CLOCK_OFFSET_KEY, value: new TextEncoder().encode(String(next)) }]);
      offset = next;
      return nowSeconds();
    });
    queue = run.catch(() => undefined);
    return run;
  };
  return {
    now: () => wall() + offset * 1000,
    offset: () => offset,
    increase(seconds) {
      return serialized(() => {
        if (!Number.isSafeInteger(seconds) || seconds <= 0 || nowSeconds() + seconds > MAX_SANDBOX_TIME_S) {
          throw new TezosError(invalidTimeIncrease.create({ seconds: String(seconds) }));
        }
        return offset + seconds;
      });
    },
    set(seconds) {
      return serialized(() => {
        if (!Number.isSafeInteger(seconds) || seconds > MAX_SANDBOX_TIME_S) {
          throw new TezosError(invalidTimestamp.create({ timestamp: String(seconds) }));
        }
        const head = options.headTimestamp();
        if (seconds < head) throw new TezosError(timestampBeforeHead.create({ timestamp: seconds, head_timestamp: head }));
        return seconds - Math.floor(wall() / 1000);
      });
    },
  };
}

/** The offset kept in `store`, 0 when none; a row that is not decimal seconds is a corrupt store. */
function storedOffset(store: KeyValueStore): number {
  const bytes = store.get(CLOCK_OFFSET_KEY);
  if (bytes === undefined) return 0;
  const text = new TextDecoder().decode(bytes);
  if (!/^-?\d{1,15}$/.test(text)) throw new Error(`The store's sandbox clock offset is not decimal seconds: ${JSON.stringify(text.slice(0, 40))}`);
  return Number(text);
}
