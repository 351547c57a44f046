/**
 * The sandbox clock's services (docs/sandbox.md, Time and baking): `GET /sandbox/time`,
 * `POST /sandbox/time/increase {"seconds": n}`, `POST /sandbox/time/set {"timestamp": t}`. Each
 * answers the clock's time and offset after the call. The next block the node bakes is
 * timestamped at the moved time (at least its minimal valid time). Hangzhou's `NOW` is the
 * predecessor's timestamp plus the minimal delay, so a contract sees the move from the block after
 * that one: in `auto` bake mode, where nobody asks for blocks, a move bakes that block at once
 * (the answer waits for it), and the next operation sees `NOW` at the moved time, as the next
 * transaction does on Anvil after `evm_increaseTime`. Refused unless the node runs a sandbox
 * chain; they work while P2P peers are connected, as baking does.
 *
 * The bodies are read as any JSON and checked here, so that a value out of place answers a
 * `sandbox.…` error naming it; a body that is not JSON at all answers 400, as for any service.
 * @module
 */
import type { Json } from "../../encoding/codec.ts";
import { jsonPreview } from "../../encoding/json-text.ts";
import { float } from "../../encoding/integers.ts";
import { obj, req } from "../../encoding/object.ts";
import { parseTimestamp, timestamp } from "../../encoding/time.ts";
import { TezosError } from "../../errors/registry.ts";
import { invalidTimeIncrease, invalidTimestamp, type SandboxClock } from "../../sandbox/clock.ts";
import type { SandboxGuard } from "../../sandbox/guard.ts";
import { Directory } from "../directory.ts";
import { anyJson } from "../json_any.ts";
import { service } from "../service.ts";

/** What the time services act on. */
export interface SandboxTimeView {
  readonly clock: SandboxClock;
  readonly guard: SandboxGuard;
  /** Called after each move: bakes a block at the moved time in `auto` mode (nothing in the others). */
  readonly moved?: () => Promise<unknown>;
}

/** The clock's time (seconds, RFC 3339 in JSON) and its offset from the wall clock (seconds). */
const clockState = obj(req("timestamp", timestamp), req("offset", float));

const increaseBody = anyJson({
  type: "object",
  properties: { seconds: { type: "integer", minimum: 1, description: "How many seconds to move the sandbox clock forward" } },
  required: ["seconds"],
});

const setBody = anyJson({
  type: "object",
  properties: {
    timestamp: {
      oneOf: [{ type: "string", description: "RFC 3339, or decimal seconds since the epoch" }, { type: "integer" }],
      description: "The time the sandbox clock shows from now on; not before the head's timestamp",
    },
  },
  required: ["timestamp"],
});

/** The time services over `view`. */
export function sandboxTimeServices(view: SandboxTimeView): Directory<void> {
  const { clock, guard } = view;
  const moved = view.moved ?? (() => Promise.resolve());
  const state = () => ({ timestamp: Math.floor(clock.now() / 1000), offset: clock.offset() });
  return new Directory()
    .register(
      service({
        method: "GET",
        path: ["sandbox", "time"],
        description:
          "Sandbox only (not an Octez service): the sandbox clock, the time the next block is timestamped at (unless its minimal delay after the head is later), and its offset from the wall clock in seconds.",
        output: clockState,
        handler: () => {
          guard.requireSandbox();
          return state();
        },
      }),
    )
    .register(
      service({
        method: "POST",
        path: ["sandbox", "time", "increase"],
        description:
          'Sandbox only (not an Octez service): move the sandbox clock forward by `seconds` (a positive whole number), as Anvil\'s evm_increaseTime; the next block is timestamped accordingly (in auto bake mode it is baked at once, so that the next operation sees NOW moved). Body {"seconds": n}; answers the new time and offset.',
        input: increaseBody,
        output: clockState,
        handler: async ({ body }) => {
          guard.requireSandbox();
          const seconds = field(body, "seconds");
          const n = typeof seconds === "number" ? seconds : typeof seconds === "string" && /^\d{1,16}$/.test(seconds) ? Number(seconds) : NaN;
          if (!Number.isSafeInteger(n)) throw new TezosError(invalidTimeIncrease.create({ seconds: jsonPreview(seconds) }));
          await clock.increase(n);
          const answer = state(); // the clock as moved, not as it reads after a bake that took a while
          await moved();
          return answer;
        },
      }),
    )
    .register(
      service({
        method: "POST",
        path: ["sandbox", "time", "set"],
        description:
          'Sandbox only (not an Octez service): set the sandbox clock to `timestamp` (RFC 3339 or integer seconds, as block headers show it), not before the head\'s timestamp, as Anvil\'s anvil_setTime; the clock runs on from there (in auto bake mode a block is baked at once at that time, as for time/increase). Body {"timestamp": t}; answers the new time and offset.',
        input: setBody,
        output: clockState,
        handler: async ({ body }) => {
          guard.requireSandbox();
          const given = field(body, "timestamp");
          const seconds = typeof given === "number" ? given : typeof given === "string" ? parseTimestamp(given) : undefined;
          if (seconds === undefined || !Number.isSafeInteger(seconds)) throw new TezosError(invalidTimestamp.create({ timestamp: jsonPreview(given) }));
          await clock.set(seconds);
          const answer = state(); // the clock as moved, not as it reads after a bake that took a while
          await moved();
          return answer;
        },
      }),
    );
}

/** The member `name` of a JSON object body (undefined when absent or not an object). */
function field(body: Json, name: string): Json | undefined {
  return body !== null && typeof body === "object" && !Array.isArray(body) ? body[name] : undefined;
}
