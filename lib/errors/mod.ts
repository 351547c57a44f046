/**
 * Errors in Octez's error-monad style: registered definitions, traces, `TezosError`, and the
 * registry that `GET /errors` lists.
 *
 * @example
 * ```ts
 * import { errorScope } from "./lib/errors/mod.ts";
 * const proto = errorScope("proto.011-PtHangz2.");
 * const counterInThePast = proto.define({ id: "contract.counter_in_the_past", kind: "branch",
 *   title: "Invalid counter (already used) in a manager operation",
 *   description: "An operation assumed a contract counter in the past", fields: counterFields });
 * throw counterInThePast.error({ contract, expected, found });
 * ```
 * @module
 */
export {
  defaultRegistry,
  defineError,
  ErrorDefinition,
  ErrorItem,
  ErrorRegistry,
  errorScope,
  TezosError,
} from "./registry.ts";
export type { ErrorKind, ErrorSpec, TraceItem } from "./registry.ts";
export { canceled, exceptionMessage, failure, failureItem, timeout, toTezosError, traceOf } from "./core.ts";
