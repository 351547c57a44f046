/**
 * A protocol wrapper that counts operation applications (tests only): every `applyOperation` of
 * its validation states and of their forks, successful or not.
 */
import type { Protocol, ValidationState } from "../../lib/shell/protocol.ts";

/** `protocol`, calling `count` before each `applyOperation` of its validation states. */
export function countingProtocol(protocol: Protocol, count: () => void): Protocol {
  const wrap = (vs: ValidationState): ValidationState => ({
    applyOperation(op) {
      count();
      return vs.applyOperation(op);
    },
    finalize: (shell) => vs.finalize(shell),
    ...(vs.prepare === undefined ? {} : { prepare: (op: Parameters<NonNullable<ValidationState["prepare"]>>[0]) => vs.prepare!(op) }),
    fork: () => wrap(vs.fork()),
  });
  return {
    ...protocol,
    beginApplication: async (env) => wrap(await protocol.beginApplication(env)),
    beginConstruction: async (env) => wrap(await protocol.beginConstruction(env)),
  };
}
