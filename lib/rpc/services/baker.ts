/**
 * `POST /sandbox/bake?count=<n>`: the sandbox baker bakes `n` blocks (default 1) on the current
 * head, one after the other, and answers their hashes, oldest first, once they are stored. Our
 * own service, outside Octez's namespace (Octez bakes through a separate baker daemon); listed
 * in `/describe` like every other.
 *
 * A long bake logs its progress about every second (`bake_progress`: blocks baked so far, count,
 * level) and its end (`bake_done`). It stops at the next block boundary when the node closes,
 * and then answers the blocks baked so far: 200 with a shorter list, since each of them is
 * stored and final (an error status would hide them). (It does not watch for the client going
 * away: Deno warns on stderr at the first read of `request.signal`, a legacy behaviour notice.)
 * @module
 */
import { blockHash } from "../../encoding/hashes.ts";
import { list } from "../../encoding/list.ts";
import { MAX_BAKE_COUNT, type Baker } from "../../baker/baker.ts";
import { type Logger, SILENT_LOGGER } from "../../log.ts";
import { NotHangzhou } from "../../baker/block.ts";
import { failure } from "../../errors/mod.ts";
import { makeArg } from "../arg.ts";
import { Directory } from "../directory.ts";
import { query, single } from "../query.ts";
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

/** How often a long bake logs its progress, in milliseconds. */
export const BAKE_PROGRESS_INTERVAL_MS = 1000;

/** The baker's services over `baker`; a long bake's progress goes to `log`. */
export function bakerServices(baker: Pick<Baker, "bakeMany">, log: Logger = SILENT_LOGGER): Directory<void> {
  return new Directory().register(
    service({
      method: "POST",
      path: ["sandbox", "bake"],
      description:
        "Sandbox only (not an Octez service): bake `count` blocks (default 1) on the current head with the node's baker keys, each at the best priority of a held key, with the endorsements of the held delegates and the due nonce revelations; answers their hashes, oldest first, once stored.",
      query: query({ count: single(countArg, 1, "Number of blocks to bake (default 1)") }),
      output: list(blockHash),
      handler: async ({ query: q }) => {
        const count = q.count;
        const started = performance.now();
        let told = started;
        let last = 0;
        const onBlock = (block: { level: number }, baked: number) => {
          last = block.level;
          const now = performance.now();
          if (now - told < BAKE_PROGRESS_INTERVAL_MS || baked === count) return;
          told = now;
          log.info("bake_progress", { baked, count, block_level: block.level });
        };
        try {
          const hashes = await baker.bakeMany(count, { onBlock });
          if (count > 1) {
            const ms = Math.round(performance.now() - started);
            log.info(hashes.length < count ? "bake_interrupted" : "bake_done", { baked: hashes.length, count, block_level: last, ms });
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
