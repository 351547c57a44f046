/**
 * `POST /sandbox/bake?count=<n>`: the sandbox baker bakes `n` blocks (default 1) on the current
 * head, one after the other, and answers their hashes, oldest first, once they are stored. Our
 * own service, outside Octez's namespace (Octez bakes through a separate baker daemon); listed
 * in `/describe` like every other.
 *
 * Instead of `count`, `until_level=<L>` bakes until the head is at level L (above the head, at
 * most {@link MAX_BAKE_COUNT} blocks away), and `until_cycle_end` until the head is the last level
 * of the cycle the next block belongs to (from the protocol's cycle eras, that is its
 * `blocks_per_cycle`): on a head that ends a cycle, the whole next cycle is baked. The three are
 * exclusive. Both stop at the target even if other blocks (the `auto` baker's) come in between.
 *
 * A long bake logs its progress about every second (`bake_progress`: blocks baked so far, count,
 * level) and its end (`bake_done`). It stops at the next block boundary when the node closes,
 * and then answers the blocks baked so far: 200 with a shorter list, since each of them is
 * stored and final (an error status would hide them). (It does not watch for the client going
 * away: Deno warns on stderr at the first read of `request.signal`, a legacy behaviour notice.)
 * @module
 */
import { B58, b58decode } from "../../encoding/base58.ts";
import { string } from "../../encoding/bytes.ts";
import { blockHash } from "../../encoding/hashes.ts";
import { int31 } from "../../encoding/integers.ts";
import { list } from "../../encoding/list.ts";
import { obj, req } from "../../encoding/object.ts";
import { MAX_BAKE_COUNT, type Baker } from "../../baker/baker.ts";
import { type Logger, SILENT_LOGGER } from "../../log.ts";
import { HANGZHOU, NotHangzhou } from "../../baker/block.ts";
import { failure } from "../../errors/mod.ts";
import { defineError } from "../../errors/registry.ts";
import { lastLevelInCycle, levelFromRaw } from "../../protocols/hangzhou/level.ts";
import { readCycleEras } from "../../protocols/hangzhou/storage/proto-context.ts";
import type { Chain } from "../../shell/chain.ts";
import { checkout } from "../../store/context/commit.ts";
import { makeArg } from "../arg.ts";
import { Directory } from "../directory.ts";
import { flag, optional, query } from "../query.ts";
import { service } from "../service.ts";

/** Number of blocks to bake: an integer in [1, MAX_BAKE_COUNT]. */
const countArg = makeArg<number>({
  name: "count",
  descr: `Number of blocks to bake, 1 to ${MAX_BAKE_COUNT}`,
  parse(text) {
    if (!/^\d{1,9}$/.test(text)) throw new Error("Cannot parse natural number (number expected)");
    const n = Number(text);
    if (n < 1 || n > MAX_BAKE_COUNT) throw new Error(`count must be between 1 and ${MAX_BAKE_COUNT}`);
    return n;
  },
  print: (n) => String(n),
});

/** A level to bake up to: a natural number that fits Hangzhou's int32 levels. */
const levelArg = makeArg<number>({
  name: "block_level",
  descr: "A block level",
  parse(text) {
    if (!/^\d{1,10}$/.test(text)) throw new Error("Cannot parse natural number (number expected)");
    const n = Number(text);
    if (n > 0x7fffffff) throw new Error("until_level must be at most 2147483647");
    return n;
  },
  print: (n) => String(n),
});

/** `sandbox.invalid_bake_target`: `until_level` is not above the head, or too far from it. */
export const invalidBakeTarget = defineError<{ until_level: number; head_level: number; max_count: number }>({
  id: "sandbox.invalid_bake_target",
  kind: "permanent",
  title: "Invalid level to bake until",
  description: `The level to bake until must be above the head's level and at most ${MAX_BAKE_COUNT} blocks away.`,
  fields: obj(req("until_level", int31), req("head_level", int31), req("max_count", int31)),
});

/** `sandbox.conflicting_bake_arguments`: more than one of `count`, `until_level`, `until_cycle_end`. */
export const conflictingBakeArguments = defineError<{ arguments: string[] }>({
  id: "sandbox.conflicting_bake_arguments",
  kind: "permanent",
  title: "Conflicting bake arguments",
  description: "POST /sandbox/bake takes one of count, until_level and until_cycle_end.",
  fields: obj(req("arguments", list(string))),
});

/** What the bake targets read: the head, and the store holding its context (the cycle eras). */
export type BakeHeadView = Pick<Chain, "head" | "store">;

/** How often a long bake logs its progress, in milliseconds. */
export const BAKE_PROGRESS_INTERVAL_MS = 1000;

/** The baker's services over `baker` and the head of `chain`; a long bake's progress goes to `log`. */
export function bakerServices(baker: Pick<Baker, "bakeMany">, chain: BakeHeadView, log: Logger = SILENT_LOGGER): Directory<void> {
  return new Directory().register(
    service({
      method: "POST",
      path: ["sandbox", "bake"],
      description:
        "Sandbox only (not an Octez service): bake `count` blocks (default 1) on the current head with the node's baker keys, each at the best priority of a held key, with the endorsements of the held delegates and the due nonce revelations; or, instead of `count`, until the head is at `until_level`, or (`until_cycle_end`) the last level of the next block's cycle; answers their hashes, oldest first, once stored.",
      query: query({
        count: optional(countArg, "Number of blocks to bake (default 1)"),
        until_level: optional(levelArg, `Bake until the head is at this level (above the head, at most ${MAX_BAKE_COUNT} blocks away)`),
        until_cycle_end: flag("Bake until the head is the last level of the next block's cycle"),
      }),
      output: list(blockHash),
      handler: async ({ query: q }) => {
        const given = [q.count !== undefined ? "count" : "", q.until_level !== undefined ? "until_level" : "", q.until_cycle_end ? "until_cycle_end" : ""].filter((a) => a !== "");
        if (given.length > 1) throw conflictingBakeArguments.error({ arguments: given });
        const headLevel = chain.head.header.level;
        const target = q.until_level ?? (q.until_cycle_end ? cycleEndLevel(chain) : undefined);
        if (target !== undefined && (target <= headLevel || target - headLevel > MAX_BAKE_COUNT)) {
          throw invalidBakeTarget.error({ until_level: target, head_level: headLevel, max_count: MAX_BAKE_COUNT });
        }
        const count = target === undefined ? (q.count ?? 1) : target - headLevel;
        // a target stops the bake once reached, even if other blocks came in meanwhile
        const reached = new AbortController();
        const started = performance.now();
        let told = started;
        let last = 0;
        const onBlock = (block: { level: number }, baked: number) => {
          last = block.level;
          if (target !== undefined && block.level >= target) reached.abort();
          const now = performance.now();
          if (now - told < BAKE_PROGRESS_INTERVAL_MS || baked === count) return;
          told = now;
          log.info("bake_progress", { baked, count, block_level: block.level });
        };
        try {
          const hashes = await baker.bakeMany(count, { onBlock, signal: reached.signal });
          if (count > 1) {
            const ms = Math.round(performance.now() - started);
            const done = target === undefined ? hashes.length === count : last >= target;
            log.info(done ? "bake_done" : "bake_interrupted", { baked: hashes.length, count, block_level: last, ms });
          }
          return hashes;
        } catch (e) {
          // nothing to bake on yet: the operator's mistake, told as Octez tells a failure
          if (e instanceof NotHangzhou) throw failure.error({ msg: e.message });
          throw e;
        }
      },
    }),
  );
}

/**
 * The last level of the cycle the block after the head belongs to, from the cycle eras of the
 * head's context (Hangzhou's level arithmetic over `blocks_per_cycle`). A `failure` before the
 * protocol is activated, as baking then.
 */
function cycleEndLevel(chain: BakeHeadView): number {
  const head = chain.head;
  if (head.info.next_protocol !== HANGZHOU) {
    throw failure.error({ msg: `Cannot bake on block ${head.hash} (level ${head.header.level}): its next protocol is ${head.info.next_protocol}, not Hangzhou; activate the protocol first` });
  }
  const context = checkout(chain.store.kv, b58decode(B58.contextHash, head.header.context));
  if (context === undefined) throw new Error(`The context of block ${head.hash} is missing from the store`);
  const eras = readCycleEras(context);
  return lastLevelInCycle(eras, levelFromRaw(eras, head.header.level + 1).cycle).level;
}
