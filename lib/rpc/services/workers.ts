/**
 * The `/workers/*` services (Octez v12 `src/lib_shell_services/worker_services.ml`, served as
 * `src/lib_shell/worker_directory.ml` serves them) over a {@link WorkersView}: the block
 * validator's state, the chain validators, their distributed DB and peer validators, the
 * prevalidators. Each state carries, besides Octez v12's fields, v11's `backlog` (the events kept
 * per level), which `rpc-openapi.json` and the specification list.
 *
 * A chain argument is resolved as Octez's `get_chain_id`: `main` is the node's chain, `test`
 * answers 404 (no test chain runs), a chain id stands for itself. A chain or peer without a
 * running worker answers 404 (Octez's `Not_found`); the peer validators of a chain id without
 * any answer `[]`, as Octez's list filters them.
 * @module
 */
import { list } from "../../encoding/list.ts";
import type { Worker } from "../../shell/worker.ts";
import type { WorkersView } from "../../shell/workers-view.ts";
import { type ChainRef, chainArg, peerIdArg } from "../arg.ts";
import { Directory } from "../directory.ts";
import { NotFound, service } from "../service.ts";
import {
  blockValidatorEvent,
  blockValidatorRequest,
  chainValidatorEvent,
  chainValidatorRequest,
  chainWorkerEntry,
  ddbState,
  type FullStatus,
  fullStatus,
  peerValidatorEvent,
  peerValidatorRequest,
  peerWorkerEntry,
  prevalidatorEvent,
  prevalidatorRequest,
} from "./worker-codecs.ts";

/** What `state` services answer of a worker: its status, waiting and current requests, backlog. */
function stateOf<R, E>(w: Worker<R, E>, options: { listPending?: boolean } = {}): FullStatus<R, E> {
  const current = w.currentRequest();
  return {
    status: w.status,
    pending_requests: options.listPending === false ? [] : w.pendingRequests(),
    backlog: w.backlog(),
    ...(current === undefined ? {} : { current_request: current }),
  };
}

/** The `/workers/*` services over `view`; `mainChainId` is the chain `main` names. */
export function workerServices(view: WorkersView, mainChainId: string): Directory<void> {
  /** Octez's `get_chain_id`: the chain id a chain argument names; 404 for `test`. */
  const chainIdOf = (ref: ChainRef): string => {
    if (ref.kind === "main") return mainChainId;
    if (ref.kind === "test") throw new NotFound();
    return ref.id;
  };
  const chainValidator = (ref: ChainRef) => {
    const id = chainIdOf(ref);
    const found = view.chainValidators().find((c) => c.chainId === id);
    if (found === undefined) throw new NotFound();
    return found;
  };
  const C = ["workers", "chain_validators", chainArg] as const;

  return new Directory().register(
    service({
      method: "GET",
      path: ["workers", "block_validator"],
      description: "Introspect the state of the block_validator worker.",
      output: fullStatus(blockValidatorRequest, blockValidatorEvent),
      handler: () => stateOf(view.blockValidator),
    }),
    service({
      method: "GET",
      path: ["workers", "chain_validators"],
      description: "Lists the chain validator workers and their status.",
      output: list(chainWorkerEntry),
      handler: () => {
        const all = view.chainValidators();
        return all.map((c) => ({
          chain_id: c.chainId,
          status: c.worker.status,
          information: c.worker.information(all.length),
          pipelines: Math.min(c.worker.pendingRequests().length, 32767), // an int16
        }));
      },
    }),
    service({
      method: "GET",
      path: C,
      description: "Introspect the state of a chain validator worker.",
      output: fullStatus(chainValidatorRequest, chainValidatorEvent),
      handler: ({ params: [c] }) => stateOf(chainValidator(c).worker),
    }),
    service({
      method: "GET",
      path: [...C, "ddb"],
      description: "Introspect the state of the DDB attached to a chain validator worker.",
      output: ddbState,
      handler: ({ params: [c] }) => chainValidator(c).ddb(),
    }),
    service({
      method: "GET",
      path: [...C, "peers_validators"],
      description: "Lists the peer validator workers and their status.",
      output: list(peerWorkerEntry),
      handler: ({ params: [c] }) => {
        const id = chainIdOf(c);
        const all = view.peerValidators();
        return all
          .filter((p) => p.chainId === id)
          .map((p) => ({ peer_id: p.peerId, status: p.worker.status, information: p.worker.information(all.length), pipelines: p.pipeline() }));
      },
    }),
    service({
      method: "GET",
      path: [...C, "peers_validators", peerIdArg],
      description: "Introspect the state of a peer validator worker.",
      output: fullStatus(peerValidatorRequest, peerValidatorEvent),
      handler: ({ params: [c, peer] }) => {
        const id = chainIdOf(c);
        const found = view.peerValidators().find((p) => p.chainId === id && p.peerId === peer);
        if (found === undefined) throw new NotFound();
        // Octez lists no pending request of a peer validator (its buffer holds the next one only)
        return stateOf(found.worker, { listPending: false });
      },
    }),
    service({
      method: "GET",
      path: ["workers", "prevalidators"],
      description: "Lists the Prevalidator workers and their status.",
      output: list(chainWorkerEntry),
      handler: () => {
        const all = view.prevalidators();
        return all.map((p) => ({
          chain_id: p.chainId,
          status: p.worker.status,
          information: p.worker.information(all.length),
          pipelines: Math.min(p.worker.pendingRequests().length, 32767), // an int16
        }));
      },
    }),
    service({
      method: "GET",
      path: ["workers", "prevalidators", chainArg],
      description: "Introspect the state of prevalidator workers.",
      output: fullStatus(prevalidatorRequest, prevalidatorEvent),
      handler: ({ params: [c] }) => {
        const id = chainIdOf(c);
        const found = view.prevalidators().find((p) => p.chainId === id);
        if (found === undefined) throw new NotFound();
        return stateOf(found.worker);
      },
    }),
  );
}
