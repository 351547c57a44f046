/**
 * `{B}/context/constants` (Octez `constants_services.ml`): every constant, the error schema of
 * the protocol, and the early layout's one-constant paths `/context/constants/<name>`, each
 * answering `{"<name>": value}` as the 2018 services did — for every constant Hangzhou has,
 * plus `hard_gas_limits` (`{per_block, per_operation}`) and `hard_storage_limits`
 * (`{per_operation}`: Hangzhou has no per-block storage limit).
 * @module
 */
import type { Codec } from "../../../encoding/core.ts";
import { obj, objectFields, req } from "../../../encoding/object.ts";
import { z } from "../../../encoding/zarith.ts";
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
