/**
 * Rights, levels and block times at `{B}` (Octez 011 `lib_plugin/plugin.ml`, `delegate_services.ml`):
 * `helpers/baking_rights`, `helpers/endorsing_rights`, `helpers/current_level`,
 * `helpers/levels_in_current_cycle`, `minimal_valid_time` — with B's level as the current level
 * and B's timestamp as the predecessor timestamp, as Octez's `rpc_init` prepares them.
 *
 * Two services of the specification that Hangzhou dropped are served with the semantics of the
 * last Octez protocol that had them: `POST endorsing_power` (Granada: the number of slots of the
 * delegate that signed a wrapped endorsement, its signature checked) and
 * `required_endorsements?block_delay=` (Florence: initial_endorsers less one endorsement per
 * delay_per_missing_endorsement of delay, at least 0).
 * @module
 */
import { B58, b58decode } from "../../../encoding/base58.ts";
import { chainId } from "../../../encoding/hashes.ts";
import { int31 } from "../../../encoding/integers.ts";
import { obj, req } from "../../../encoding/object.ts";
import { timestamp } from "../../../encoding/time.ts";
import { level as levelCodec } from "../../../encoding/hangzhou/basic.ts";
import { operation, type Operation } from "../../../encoding/hangzhou/operation.ts";
import { formatPublicKeyHash, publicKeyHash } from "../../../crypto/keys.ts";
import { failure } from "../../../errors/mod.ts";
import { checkEndorsementRight } from "../../../protocols/hangzhou/apply/endorsement.ts";
import { cycleBounds, firstLevelInCycle, givenLevel, givenLevels, lastLevelInCycle, levelFromRaw, levelFromRawWithOffset, levelsInCurrentCycle } from "../../../protocols/hangzhou/level.ts";
import {
  type BakingRight,
  bakingRightsList,
  bakingRightsSteps,
  endorsementRights,
  type EndorsingRight,
  endorsingRightsList,
  endorsingRightsSteps,
  type RightsRpcContext,
} from "../../../protocols/hangzhou/rights.ts";
import { findManagerKey } from "../../../protocols/hangzhou/storage/contract.ts";
import type { ProtoContext } from "../../../protocols/hangzhou/storage/proto-context.ts";
import { contextRightsSource } from "../../../protocols/hangzhou/storage/rights-source.ts";
import { minimalValidTime } from "../../../protocols/hangzhou/timing.ts";
import { int32Arg, intArg, makeArg, type Arg } from "../../arg.ts";
import { Directory } from "../../directory.ts";
import { flag, multi, optional, query, single } from "../../query.ts";
import { service } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import { cycleArg, levelArg, pkhArg, protoContextOf, workBudget } from "./context.ts";

/** The rights view of block B: its level and timestamp, constants, seeds and snapshots. */
export function rightsContextOf(pc: ProtoContext, blockTimestamp: number): RightsRpcContext {
  return {
    eras: pc.eras,
    constants: pc.constants,
    current: pc.level,
    timestamp: blockTimestamp,
    source: contextRightsSource(pc),
    managerKey: (pkh) => findManagerKey(pc, pkh),
  };
}

/** `Period.rpc_arg`: a non-negative number of seconds. */
const periodArg: Arg<bigint> = makeArg({
  name: "block_delay",
  descr: "A period (in seconds)",
  parse(text) {
    if (!/^[+-]?\d+$/.test(text)) throw new Error("Cannot parse period value");
    const v = BigInt(text);
    if (v < 0n || v > (1n << 63n) - 1n) throw new Error("Cannot parse period value");
    return v;
  },
  print: (v) => v.toString(),
});

/**
 * Florence's `Baking.minimum_allowed_endorsements`: initial_endorsers − ⌊delay /
 * delay_per_missing_endorsement⌋ (the delay itself when that constant is 0), at least 0.
 */
export function requiredEndorsements(c: { initial_endorsers: number; delay_per_missing_endorsement: bigint }, blockDelay: bigint): number {
  const reduced = c.delay_per_missing_endorsement === 0n ? blockDelay : blockDelay / c.delay_per_missing_endorsement;
  return BigInt(c.initial_endorsers) < reduced ? 0 : c.initial_endorsers - Number(reduced);
}

/**
 * The `level` and `cycle` arguments of a rights query, checked before the rights are drawn: a
 * level before the protocol's first, or a cycle before the first or whose levels pass int32, is
 * where Octez's `Level_repr` fails an assertion, and the answer is a `failure` saying so.
 */
function checkRequestedLevels(pc: ProtoContext, q: { readonly level: readonly number[]; readonly cycle: readonly number[] }): void {
  givenLevels(() => {
    for (const l of q.level) levelFromRaw(pc.eras, l);
    for (const c of q.cycle) {
      firstLevelInCycle(pc.eras, c);
      lastLevelInCycle(pc.eras, c);
    }
  });
}

/** The rights, levels and timing services of Hangzhou. */
export function rightsServices(): Directory<BlockCtx> {
  return new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: ["helpers", "baking_rights"],
      description:
        "Retrieves the list of delegates allowed to bake a block.\nBy default, it gives the best baking priorities for bakers that have at least one opportunity below the 64th priority for the next block.\nParameters `level` and `cycle` can be used to specify the (valid) level(s) in the past or future at which the baking rights have to be returned. When asked for (a) whole cycle(s), baking opportunities are given by default up to the priority 8.\nParameter `delegate` can be used to restrict the results to the given delegates. If parameter `all` is set, all the baking opportunities for each baker at each level are returned, instead of just the first one.\nReturns the list of baking slots. Also returns the minimal timestamps that correspond to these slots. The timestamps are omitted for levels in the past, and are only estimates for levels later that the next block, based on the hypothesis that all predecessor blocks were baked at the first priority.",
      query: query({
        level: multi(levelArg),
        cycle: multi(cycleArg),
        delegate: multi(pkhArg),
        max_priority: optional(intArg),
        all: flag(),
      }),
      output: bakingRightsList,
      handler: async ({ ctx, query: q }) => {
        const pc = protoContextOf(ctx);
        checkRequestedLevels(pc, q);
        const rc = rightsContextOf(pc, ctx.block.header.timestamp);
        const r: Parameters<typeof bakingRightsSteps>[1] = { level: q.level, cycle: q.cycle, delegate: q.delegate, all: q.all };
        if (q.max_priority !== undefined) r.max_priority = q.max_priority;
        const budget = workBudget(ctx);
        const out: BakingRight[] = [];
        for (const right of bakingRightsSteps(rc, r)) {
          await budget.step();
          if (right !== undefined) out.push(right);
        }
        return out;
      },
    }),
    service({
      method: "GET",
      path: ["helpers", "endorsing_rights"],
      description:
        "Retrieves the delegates allowed to endorse a block.\nBy default, it gives the endorsement slots for delegates that have at least one in the next block.\nParameters `level` and `cycle` can be used to specify the (valid) level(s) in the past or future at which the endorsement rights have to be returned. Parameter `delegate` can be used to restrict the results to the given delegates.\nReturns the list of endorsement slots. Also returns the minimal timestamps that correspond to these slots. The timestamps are omitted for levels in the past, and are only estimates for levels later that the next block, based on the hypothesis that all predecessor blocks were baked at the first priority.",
      query: query({ level: multi(levelArg), cycle: multi(cycleArg), delegate: multi(pkhArg) }),
      output: endorsingRightsList,
      handler: async ({ ctx, query: q }) => {
        const pc = protoContextOf(ctx);
        checkRequestedLevels(pc, q);
        const rc = rightsContextOf(pc, ctx.block.header.timestamp);
        const budget = workBudget(ctx);
        const out: EndorsingRight[] = [];
        for (const rights of endorsingRightsSteps(rc, { level: q.level, cycle: q.cycle, delegate: q.delegate })) {
          await budget.step();
          out.push(...rights);
        }
        return out;
      },
    }),
    service({
      method: "GET",
      path: ["helpers", "current_level"],
      description:
        "Returns the level of the interrogated block, or the one of a block located `offset` blocks after in the chain (or before when negative). For instance, the next block if `offset` is 1.",
      query: query({ offset: single(int32Arg, 0) }),
      output: levelCodec,
      handler: ({ ctx, query: q }) => {
        const pc = protoContextOf(ctx);
        return givenLevels(() => levelFromRawWithOffset(pc.eras, pc.level.level, q.offset));
      },
    }),
    service({
      method: "GET",
      path: ["helpers", "levels_in_current_cycle"],
      description: "Levels of a cycle",
      query: query({ offset: single(int32Arg, 0) }),
      output: cycleBounds,
      optional: true,
      handler: ({ ctx, query: q }) => {
        const pc = protoContextOf(ctx);
        return givenLevels(() => levelsInCurrentCycle(pc.eras, pc.level, q.offset));
      },
    }),
    service({
      method: "GET",
      path: ["minimal_valid_time"],
      description: "Minimal valid time for a block given a priority and an endorsing power.",
      query: query({ priority: single(intArg, 0), endorsing_power: single(intArg, 0) }),
      output: timestamp,
      handler: ({ ctx, query: q }) =>
        minimalValidTime(protoContextOf(ctx).constants, q.priority, q.endorsing_power, ctx.block.header.timestamp),
    }),
    service({
      method: "GET",
      path: ["required_endorsements"],
      description:
        "Minimum number of endorsements for a block to be valid, given a delay of the block's timestamp with respect to the minimum time to bake at the block's priority",
      query: query({ block_delay: single(periodArg, 0n) }),
      output: int31,
      handler: ({ ctx, query: q }) => requiredEndorsements(protoContextOf(ctx).constants, q.block_delay),
    }),
    service({
      method: "POST",
      path: ["endorsing_power"],
      description: "Get the endorsing power of an endorsement, that is, the number of slots that the endorser has",
      input: obj(req("endorsement_operation", operation), req("chain_id", chainId)),
      output: int31,
      handler: async ({ ctx, body }) => {
        const op: Operation = body.endorsement_operation;
        const c = op.contents;
        if (c.length !== 1 || c[0]!.kind !== "endorsement_with_slot") throw failure.error({ msg: "Operation is not a wrapped endorsement" });
        const { endorsement, slot } = c[0]!;
        const pc = protoContextOf(ctx);
        const owner = await checkEndorsementRight(pc, b58decode(B58.chainId, body.chain_id), endorsement, slot);
        const level = givenLevel(pc.eras, endorsement.operations.level);
        const rights = endorsementRights(contextRightsSource(pc), level, pc.constants.endorsers_per_block);
        return rights.get(formatPublicKeyHash(publicKeyHash(owner)))?.slots.length ?? 0;
      },
    }),
  );
}
