/**
 * Hangzhou's Michelson-facing encodings: expressions, scripts (code and storage), entrypoints
 * and transaction parameters (`script_repr.ml`, `operation_repr.ml`).
 * @module
 */
import type { Codec } from "../core.ts";
import { constant, def, conv } from "../conv.ts";
import { boundedString } from "../bytes.ts";
import { hangzhouMicheline, lazyExpr, type Micheline } from "../micheline.ts";
import { obj, req } from "../object.ts";
import { tagged, union } from "../union.ts";

/** Hangzhou Micheline expression (`micheline.011-PtHangz2.michelson_v1.expression`). */
export const expression: Codec<Micheline> = hangzhouMicheline;

/** An expression behind a 4-byte length prefix (Octez `lazy_expr`): script code, storage, parameters. */
export const lazyExpression: Codec<Micheline> = lazyExpr(hangzhouMicheline);

/** A contract's script. */
export interface Script {
  code: Micheline;
  storage: Micheline;
}

/** Script codec (`011-PtHangz2.scripted.contracts`): code then storage, each length-prefixed. */
export const script: Codec<Script> = def("011-PtHangz2.scripted.contracts", obj(req("code", lazyExpression), req("storage", lazyExpression)));

const BUILTIN_ENTRYPOINTS = ["default", "root", "do", "set_delegate", "remove_delegate"] as const;

/**
 * Entrypoint name (`011-PtHangz2.entrypoint`): one byte for `default`, `root`, `do`,
 * `set_delegate`, `remove_delegate`, else 0xff, a length byte and the name (at most 31 bytes).
 */
export const entrypoint: Codec<string> = def(
  "011-PtHangz2.entrypoint",
  union<string>([
    ...BUILTIN_ENTRYPOINTS.map((name, i) =>
      tagged<string, string>(i, name, constant(name), (v) => (v === name ? v : undefined), () => name)
    ),
    tagged<string, string>(255, "named", boundedString(31), (v) => v, (v) => v),
  ]),
  { title: "entrypoint", description: "Named entrypoint to a Michelson smart contract" },
);

/** Transaction parameters: the entrypoint called and the argument. */
export interface Parameters {
  entrypoint: string;
  value: Micheline;
}

/** Transaction parameters codec (object of `entrypoint` and `value`). */
export const parameters: Codec<Parameters> = obj(req("entrypoint", entrypoint), req("value", lazyExpression));

/** Whether parameters are the implicit ones (`default` entrypoint, `Unit`), which Octez leaves out. */
export function isDefaultParameters(p: Parameters | undefined): boolean {
  if (p === undefined) return true;
  const v = p.value as { prim?: string; args?: unknown[]; annots?: unknown[] };
  return p.entrypoint === "default" && !Array.isArray(v) && v.prim === "Unit" &&
    (v.args === undefined || v.args.length === 0) && (v.annots === undefined || v.annots.length === 0);
}

/** Drops parameters equal to the implicit ones, as Octez does before encoding a transaction. */
export function normalizeTransaction<T extends { parameters?: Parameters }>(codec: Codec<T>): Codec<T> {
  return conv<T, T>(
    (v) => {
      if (v.parameters !== undefined && isDefaultParameters(v.parameters)) {
        const { parameters: _drop, ...rest } = v;
        return rest as T;
      }
      return v;
    },
    (v) => v,
    codec,
  );
}
