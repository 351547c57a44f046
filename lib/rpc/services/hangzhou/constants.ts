/**
 * `{B}/context/constants` (Octez `constants_services.ml`): every constant, the error schema of
 * the protocol, and the early layout's one-constant paths `/context/constants/<name>`, each
 * answering `{"<name>": value}` as the 2018 services did — for every constant Hangzhou has,
 * plus `hard_gas_limits` (`{per_block, per_operation}`), `hard_storage_limits`
 * (`{per_operation}`: Hangzhou has no per-block storage limit) and the early constants Hangzhou
 * names otherwise ({@link EARLY_LAYOUT_CONSTANTS}).
 * @module
 */
import type { Codec } from "../../../encoding/core.ts";
import { obj, objectFields, req } from "../../../encoding/object.ts";
import { z } from "../../../encoding/zarith.ts";
import { int31, int64 } from "../../../encoding/integers.ts";
import { mutez } from "../../../encoding/hangzhou/basic.ts";
import { bakingReward } from "../../../protocols/hangzhou/apply/baking.ts";
import { defaultRegistry } from "../../../errors/mod.ts";
import { allConstants, constants, type Constants } from "../../../protocols/hangzhou/constants.ts";
import { Directory } from "../../directory.ts";
import { anyJson } from "../../json_any.ts";
import { service } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import { protoContextOf } from "./context.ts";

const answers = new WeakMap<object, Constants>();

/** All constants at a block (one object per protocol context, so the JSON cache serves it). */
export function constantsAt(ctx: BlockCtx): Constants {
  const pc = protoContextOf(ctx);
  let c = answers.get(pc);
  if (c === undefined) answers.set(pc, (c = allConstants(pc.constants)));
  return c;
}

/** A constant of the early layout that Hangzhou has under no field of that name: the value that plays its role. */
interface EarlyConstant {
  readonly name: string;
  readonly description: string;
  readonly codec: Codec<unknown>;
  readonly value: (c: Constants) => unknown;
}

/**
 * The early layout's constants without a Hangzhou field of the same name, each answered with the
 * Hangzhou value that plays its role (see docs/protocol-differences.md).
 */
export const EARLY_LAYOUT_CONSTANTS: readonly EarlyConstant[] = [
  {
    name: "block_reward",
    description: "The reward of a block at priority 0 carrying every endorsement (early layout; Hangzhou: baking_reward_per_endorsement[0] × endorsers_per_block).",
    codec: mutez as Codec<unknown>,
    value: (c) => bakingReward(c, 0, c.endorsers_per_block),
  },
  {
    name: "first_free_baking_slot",
    description: "The first priority at which baking needs no security deposit (early layout). Every Hangzhou priority needs one: the first priority past the last (priorities are 16-bit), 65536.",
    codec: int31 as Codec<unknown>,
    value: () => 65536,
  },
  {
    name: "origination_burn",
    description: "What an origination burns (early layout; Hangzhou: origination_size × cost_per_byte).",
    codec: mutez as Codec<unknown>,
    value: (c) => BigInt(c.origination_size) * c.cost_per_byte,
  },
  {
    name: "time_between_slots",
    description: "The delay each further priority adds (early layout; Hangzhou: time_between_blocks[1]).",
    codec: int64 as Codec<unknown>,
    value: (c) => c.time_between_blocks[1] ?? c.time_between_blocks[0]!,
  },
];

/** The constants services of Hangzhou. */
export function constantsServices(): Directory<BlockCtx> {
  const dir = new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: ["context", "constants"],
      description: "All constants",
      output: constants,
      cache: true,
      handler: ({ ctx }) => constantsAt(ctx),
    }),
    service({
      method: "GET",
      path: ["context", "constants", "errors"],
      description: "Schema for all the RPC errors from this protocol version",
      output: anyJson({ $schema: "http://json-schema.org/draft-04/schema#", type: "object" }),
      handler: () => defaultRegistry.schema(),
    }),
    service({
      method: "GET",
      path: ["context", "constants", "hard_gas_limits"],
      description: "Hard maximum amounts of gas per operation and per block (early layout).",
      output: obj(req("per_block", z), req("per_operation", z)),
      handler: ({ ctx }) => {
        const c = constantsAt(ctx);
        return { per_block: c.hard_gas_limit_per_block, per_operation: c.hard_gas_limit_per_operation };
      },
    }),
    service({
      method: "GET",
      path: ["context", "constants", "hard_storage_limits"],
      description: "Hard maximum amount of storage per operation (early layout).",
      output: obj(req("per_operation", z)),
      handler: ({ ctx }) => ({ per_operation: constantsAt(ctx).hard_storage_limit_per_operation }),
    }),
  );
  for (const c of EARLY_LAYOUT_CONSTANTS) {
    dir.register(
      service({
        method: "GET",
        path: ["context", "constants", c.name],
        description: c.description,
        output: obj(req(c.name, c.codec)),
        handler: ({ ctx }) => ({ [c.name]: c.value(constantsAt(ctx)) }),
      }),
    );
  }
  for (const f of objectFields(constants) ?? []) {
    const name = f.name as keyof Constants;
    dir.register(
      service({
        method: "GET",
        path: ["context", "constants", f.name],
        description: `The constant \`${f.name}\` (early layout).`,
        output: obj(req(f.name, f.codec as Codec<unknown>)),
        handler: ({ ctx }) => ({ [f.name]: constantsAt(ctx)[name] }),
      }),
    );
  }
  return dir;
}
