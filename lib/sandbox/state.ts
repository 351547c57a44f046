/**
 * The whole chain state as one file (`GET /sandbox/state`, `--dump-state`), as Anvil's
 * `anvil_dumpState`: a snapshot of `lib/store/snapshot/` (docs/snapshot.md) at the head, full
 * (every block back to genesis) or, on a rolling node, rolling (the head's last
 * `max_operations_ttl` blocks); either holds the head's block, metadata and whole context.
 * Loading it (`--load-state`, `importSnapshot`) makes a node whose head is that block.
 *
 * The sandbox's own records are not in it: its snapshots, impersonated accounts and pending
 * state changes stay with the node that made them (the changes already baked are in the
 * context, hence in the file).
 * @module
 */
import { B58, b58decode } from "../encoding/base58.ts";
import type { Chain } from "../shell/chain.ts";
import type { GenesisConfig } from "../shell/genesis.ts";
import { exportSnapshot, type SnapshotExport } from "../store/snapshot/mod.ts";

/** What pins the exported block while the file is read (`SandboxSnapshots.hold`). */
export interface StateHold {
  hold<T>(level: number, read: () => Promise<T>): Promise<T>;
}

/**
 * The chain's state at its head as a snapshot: its header and its bytes, read from the store
 * as they are pulled (the head's level is pinned meanwhile when `pins` is given).
 * @throws {SnapshotError} when the head cannot be exported (the genesis block, before activation).
 */
export function chainState(chain: Chain, genesis: GenesisConfig, pins?: StateHold): SnapshotExport {
  const head = chain.head;
  const snapshot = exportSnapshot(chain.store.kv, {
    chainId: b58decode(B58.chainId, chain.chainId),
    chainName: genesis.chainName,
    genesis: genesis.block,
    block: head.hash,
    rolling: chain.historyMode.mode === "rolling",
  });
  if (pins === undefined) return snapshot;
  return { header: snapshot.header, chunks: held(snapshot.chunks, head.header.level, pins) };
}

/** `chunks`, with `level` pinned from the first pull until the last (or until the reader stops). */
async function* held(chunks: AsyncIterable<Uint8Array>, level: number, pins: StateHold): AsyncGenerator<Uint8Array> {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  let holding!: Promise<void>;
  const started = new Promise<void>((resolve) => {
    holding = pins.hold(level, () => {
      resolve();
      return done;
    });
  });
  await started;
  try {
    yield* chunks;
  } finally {
    release();
    await holding;
  }
}

/** A byte stream of `chunks` for a `Response` body; cancelling it stops the reading. */
export function byteStream(chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const it = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const r = await it.next();
        if (r.done) controller.close();
        else controller.enqueue(r.value);
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await it.return?.();
    },
  });
}
