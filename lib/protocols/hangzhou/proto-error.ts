/**
 * Registration of Hangzhou's errors under Octez's prefix `proto.011-PtHangz2.`, once: several
 * modules of the protocol raise the same Octez error (a period overflow, an unknown seed), so a
 * definition already in the node's registry is reused instead of failing as a duplicate.
 * @module
 */
import { defaultRegistry, type ErrorDefinition, type ErrorSpec } from "../../errors/mod.ts";

/** Octez's id prefix of the errors of protocol 011. */
export const PROTO_ERROR_PREFIX = "proto.011-PtHangz2.";

/**
 * The error `proto.011-PtHangz2.<spec.id>`: registered on first use, the existing definition
 * afterwards (which must then have the same kind).
 */
export function protoError<F = void>(spec: ErrorSpec<F>): ErrorDefinition<F> {
  const existing = defaultRegistry.get(PROTO_ERROR_PREFIX + spec.id);
  if (existing !== undefined) {
    if (existing.kind !== spec.kind) {
      throw new TypeError(`protoError: ${existing.id} is already registered as ${existing.kind}, not ${spec.kind}`);
    }
    return existing as unknown as ErrorDefinition<F>;
  }
  return defaultRegistry.define(spec, PROTO_ERROR_PREFIX);
}
