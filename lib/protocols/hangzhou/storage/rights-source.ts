/**
 * The rights draw's view of a context ({@link RightsSource} of `../rights.ts`): seeds through the
 * window rule of `Seed_storage.for_cycle`, and each cycle's selected roll snapshot
 * (`Roll_storage.Random.owner`): `cycle/<c>/roll_snapshot` is the selected index,
 * `cycle/<c>/last_roll/<index>` the bound, `rolls/owner/snapshot/<c>/<index>/<roll>` the owners.
 *
 * @example
 * ```ts
 * const src = contextRightsSource(pc);
 * bakingRightsOwner(src, levelFromRaw(pc.eras, 2), 0);
 * ```
 * @module
 */
import type { PublicKey } from "../../../crypto/keys.ts";
import type { RightsSource, RollSnapshot } from "../rights.ts";
import { noRollSnapshotForCycle } from "./errors.ts";
import type { ProtoContext } from "./proto-context.ts";
import { decodePublicKey, rollSnapshotPath } from "./layout.ts";
import { lastRollForSnapshot, snapshotExists, snapshotForCycle } from "./roll.ts";
import { seedForCycle } from "./seed.ts";
import { toHex as hexOf } from "../../../encoding/hex.ts";

/**
 * The selected snapshot of `cycle` as the draw reads it. Errors in Octez's order: a missing
 * counter or bound is `context.storage_error`, a missing snapshot
 * `contract.manager.no_roll_snapshot_for_cycle`. Owners are read lazily and remembered.
 */
export function cycleRollSnapshot(pc: ProtoContext, cycle: number): RollSnapshot {
  const index = snapshotForCycle(pc, cycle);
  const bound = lastRollForSnapshot(pc, cycle, index);
  if (!snapshotExists(pc, cycle, index)) throw noRollSnapshotForCycle.error({ cycle });
  const context = pc.context;
  const owners = new Map<number, PublicKey | undefined>();
  const dir = context.dirHash(rollSnapshotPath(cycle, index));
  return {
    bound,
    id: dir === undefined ? undefined : hexOf(dir),
    owner(roll: number): PublicKey | undefined {
      if (owners.has(roll)) return owners.get(roll);
      // Read from the context the snapshot was taken from, even if `pc` moves on.
      const b = context.get(rollSnapshotPath(cycle, index, roll));
      const o = b === undefined ? undefined : decodePublicKey(b);
      owners.set(roll, o);
      return o;
    },
  };
}

/**
 * The rights source of a protocol context: `seed(c)` checks the seed window of the context's
 * current level (`seed.unknown_seed`), `snapshot(c)` is {@link cycleRollSnapshot}. Snapshots are
 * cached per cycle for the source's lifetime: make a new source after changing the context.
 */
export function contextRightsSource(pc: ProtoContext): RightsSource {
  const snapshots = new Map<number, RollSnapshot>();
  return {
    seed: (cycle) => seedForCycle(pc, cycle),
    snapshot(cycle) {
      let s = snapshots.get(cycle);
      if (s === undefined) {
        s = cycleRollSnapshot(pc, cycle);
        snapshots.set(cycle, s);
      }
      return s;
    },
  };
}
