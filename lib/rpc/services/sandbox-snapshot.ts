/**
 * `POST /sandbox/snapshot`, `POST /sandbox/revert` and `GET /sandbox/state` (docs/sandbox.md):
 * Anvil's `evm_snapshot`, `evm_revert` and `anvil_dumpState` for a Tezos sandbox. The snapshot
 * and the revert change what the chain is, so both are refused while P2P peers are connected;
 * the state is only read, and served to any sandbox.
 * @module
 */
import { string } from "../../encoding/bytes.ts";
import { blockHash } from "../../encoding/hashes.ts";
import { int32 } from "../../encoding/integers.ts";
import { obj, req } from "../../encoding/object.ts";
import { failure } from "../../errors/mod.ts";
import type { SandboxGuard } from "../../sandbox/guard.ts";
import type { SandboxSnapshots } from "../../sandbox/snapshots.ts";
import { byteStream, chainState } from "../../sandbox/state.ts";
import { SnapshotError } from "../../store/snapshot/mod.ts";
import { Directory } from "../directory.ts";
import { rawService, service } from "../service.ts";
import type { ShellView } from "./context.ts";

/** What the snapshot services act on. */
export interface SnapshotServicesView {
  readonly shell: Pick<ShellView, "chain" | "genesis">;
  readonly guard: SandboxGuard;
  readonly snapshots: SandboxSnapshots;
}

const snapshotCodec = obj(req("id", string), req("block", blockHash), req("level", int32));

/** The snapshot, revert and state services over `view`. */
export function sandboxSnapshotServices(view: SnapshotServicesView): Directory<void> {
  const { guard, snapshots } = view;
  return new Directory()
    .register(
      service({
        method: "POST",
        path: ["sandbox", "snapshot"],
        description:
          "Sandbox only (not an Octez service): takes a snapshot of the chain at its head, as Anvil's evm_snapshot; answers its id (to give to /sandbox/revert) with the head's hash and level. The snapshot's block keeps its metadata and context whatever the history mode, and the snapshot is kept across restarts. Refused while P2P peers are connected.",
        output: snapshotCodec,
        handler: () => {
          guard.requireNoPeers();
          return snapshots.take();
        },
      }),
    )
    .register(
      service({
        method: "POST",
        path: ["sandbox", "revert"],
        description:
          "Sandbox only (not an Octez service): puts the chain back to a snapshot's head, as Anvil's evm_revert: the later blocks are forgotten, the mempool is emptied, and the snapshot and those taken after it are consumed. Answers the snapshot reverted to. An unknown id is refused (sandbox.unknown_snapshot) and changes nothing. Refused while P2P peers are connected.",
        input: obj(req("id", string)),
        output: snapshotCodec,
        handler: ({ body }) => {
          guard.requireNoPeers();
          return snapshots.revert(body.id);
        },
      }),
    )
    .register(
      rawService({
        method: "GET",
        path: ["sandbox", "state"],
        description:
          "Sandbox only (not an Octez service): the whole chain state at the head as one file, as Anvil's anvil_dumpState: a snapshot in this node's format (docs/snapshot.md; full, or rolling on a rolling node) holding the head's block, metadata and context, to start a node from with --load-state or `snapshot import`. The sandbox's own records (snapshots, impersonations, pending changes) are not in it.",
        output: string,
        handler: () => {
          guard.requireSandbox();
          let state;
          try {
            state = chainState(view.shell.chain, view.shell.genesis, snapshots);
          } catch (error) {
            if (error instanceof SnapshotError) throw failure.error({ msg: error.message });
            throw error;
          }
          const h = state.header;
          return new Response(byteStream(state.chunks), {
            status: 200,
            headers: {
              "content-type": "application/octet-stream",
              "content-disposition": `attachment; filename="${h.chain_name}-${h.block_hash}-${h.level}.${h.history_mode}"`,
            },
          });
        },
      }),
    );
}
