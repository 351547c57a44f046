/**
 * The impersonation controls (docs/sandbox.md, Impersonation): `POST /sandbox/impersonate` and
 * `POST /sandbox/stop_impersonating` with `{"address": "tz1…"}`, `GET /sandbox/impersonating`,
 * and `GET /sandbox/impersonated_operations`, the operations the sandbox included with their
 * signature waived (receipts cannot tell them: Hangzhou's encodings stay as they are).
 *
 * Impersonating changes what the chain accepts, so it is refused while P2P peers are connected;
 * stopping is always allowed, and classifies the mempool again at once: the operations applied
 * there under the waiver and not signed by the account's key are then refused.
 * @module
 */
import { string } from "../../encoding/bytes.ts";
import { blockHash, operationHash } from "../../encoding/hashes.ts";
import { int31 } from "../../encoding/integers.ts";
import { list } from "../../encoding/list.ts";
import { obj, req } from "../../encoding/object.ts";
import type { SandboxGuard } from "../../sandbox/guard.ts";
import type { Impersonation } from "../../sandbox/impersonation.ts";
import { Directory } from "../directory.ts";
import { service } from "../service.ts";

/** What the impersonation services act on. */
export interface ImpersonationView {
  readonly guard: SandboxGuard;
  readonly impersonation: Impersonation;
  /** Classifies the mempool again (after a stop: the operations no longer waived are refused). */
  readonly reclassifyMempool: () => Promise<void>;
}

const addressInput = obj(req("address", string));
const impersonatedOperation = obj(req("hash", operationHash), req("block", blockHash), req("level", int31), req("source", string));

/** The impersonation services over `view`. */
export function impersonationServices(view: ImpersonationView): Directory<void> {
  const { guard, impersonation } = view;
  return new Directory().register(
    service({
      method: "POST",
      path: ["sandbox", "impersonate"],
      description:
        "Sandbox only (not an Octez service): from now on, the manager operations of the implicit account `address` are accepted with any signature (and without a revealed key) by the injection, the mempool, preapply/operations and the blocks the node bakes, which record them (GET /sandbox/impersonated_operations). Refused while P2P peers are connected. Answers the impersonated accounts.",
      input: addressInput,
      output: list(string),
      handler: ({ body }) => {
        guard.requireNoPeers();
        impersonation.impersonate(body.address);
        return impersonation.impersonated();
      },
    }),
    service({
      method: "POST",
      path: ["sandbox", "stop_impersonating"],
      description:
        "Sandbox only (not an Octez service): the operations of `address` need a valid signature again; those the mempool applied without one are refused. Answers the accounts still impersonated.",
      input: addressInput,
      output: list(string),
      handler: async ({ body }) => {
        guard.requireSandbox();
        if (impersonation.stop(body.address)) await view.reclassifyMempool();
        return impersonation.impersonated();
      },
    }),
    service({
      method: "GET",
      path: ["sandbox", "impersonating"],
      description: "Sandbox only (not an Octez service): the implicit accounts impersonated now, in the order they were added.",
      output: list(string),
      handler: () => {
        guard.requireSandbox();
        return impersonation.impersonated();
      },
    }),
    service({
      method: "GET",
      path: ["sandbox", "impersonated_operations"],
      description:
        "Sandbox only (not an Octez service): the operations the node's blocks include with their signature waived by impersonation (their receipts cannot tell it), by level: operation hash, block hash, level and source.",
      output: list(impersonatedOperation),
      handler: () => {
        guard.requireSandbox();
        return impersonation.operations().map((o) => ({ hash: o.operation, block: o.block, level: o.level, source: o.source }));
      },
    }),
  );
}
