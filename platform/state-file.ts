/**
 * `--load-state FILE` and `--dump-state FILE`, as Anvil's: the node starts from a state file and
 * writes one when it stops. The file is a snapshot of the node's format (docs/snapshot.md), as
 * `GET /sandbox/state` answers and `snapshot export` writes.
 *
 * - Load, before the node starts: the file is imported into the store (the data directory, or
 *   memory with `--memory`), checked as `snapshot import` checks it. A data directory that
 *   already holds the file's block starts as it is (a restart with the same command line); one
 *   that holds another chain is refused. A failed import removes what it wrote.
 * - Dump, at exit (SIGINT, SIGTERM), once the baker has stopped: the chain at its head, written
 *   to `FILE.tmp-<pid>` and renamed to FILE once complete, so FILE is always a whole state.
 * @module
 */
import { createReadStream } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import process from "node:process";
import { chainIdOf, SANDBOX_GENESIS } from "../lib/shell/genesis.ts";
import { BlockStore, decodeBlockLocator } from "../lib/store/block-store.ts";
import type { KeyValueStore, WriteOp } from "../lib/store/kv.ts";
import { importSnapshot, readSnapshotHeader, SnapshotError, type SnapshotExport, type SnapshotHeader } from "../lib/store/snapshot/mod.ts";
import { prefixRange, key, Table } from "../lib/store/tables.ts";

/** A state file that cannot be loaded or written; its message is one line for the user. */
export class StateFileError extends Error {
  override name = "StateFileError";
}

async function* fileChunks(file: string): AsyncGenerator<Uint8Array> {
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) yield chunk as Uint8Array;
}

/** What `loadState` did: imported the file, or found its block already in the store. */
export type LoadOutcome = { readonly imported: true; readonly header: SnapshotHeader } | { readonly imported: false; readonly header: SnapshotHeader; readonly head: { hash: string; level: number } };

/**
 * Loads the state file `file` into `kv` (see the module documentation).
 * @throws {StateFileError} for an unreadable or corrupt file, or a store holding another chain.
 */
export async function loadState(file: string, kv: KeyValueStore): Promise<LoadOutcome> {
  const chainId = chainIdOf(SANDBOX_GENESIS);
  let header: SnapshotHeader;
  try {
    header = await readSnapshotHeader(fileChunks(file));
  } catch (error) {
    throw new StateFileError(`Cannot load state ${file}: ${reason(error)}`);
  }
  const store = new BlockStore(kv, chainId);
  const head = store.chainData("head");
  if (head !== undefined) {
    const at = decodeBlockLocator(head);
    if (store.header(header.block_hash) !== undefined) return { imported: false, header, head: at };
    throw new StateFileError(
      `Cannot load state ${file}: the data directory already holds another chain (head ${at.hash} at level ${at.level}, without the state's block ${header.block_hash}); use an empty data directory or --memory.`,
    );
  }
  try {
    await importSnapshot(fileChunks(file), kv, { chainId, chainName: SANDBOX_GENESIS.chainName });
  } catch (error) {
    await removeImported(kv).catch(() => {});
    throw new StateFileError(`Cannot load state ${file}: ${reason(error)}; nothing was loaded.`);
  }
  return { imported: true, header };
}

/** Deletes the rows a failed import wrote (the store held no chain before it). */
async function removeImported(kv: KeyValueStore): Promise<void> {
  const tables = [Table.contextNode, Table.contextCommit, Table.blockHeader, Table.blockOperations, Table.blockMetadata, Table.blockSummary, Table.levelIndex, Table.protocols];
  for (const table of tables) {
    for (;;) {
      const ops: WriteOp[] = [];
      for (const [k] of kv.range(prefixRange(key(table)))) {
        ops.push({ key: k });
        if (ops.length >= 4096) break;
      }
      if (ops.length === 0) break;
      await kv.write(ops);
    }
  }
}

/**
 * Writes `state` to `file` atomically: a temporary file beside it, synced, then renamed.
 * @throws {StateFileError} when the state cannot be read or the file written (the temporary file is removed).
 */
export async function dumpState(file: string, state: () => SnapshotExport): Promise<SnapshotHeader> {
  const temp = `${file}.tmp-${process.pid}`;
  let written = false;
  try {
    const snapshot = state();
    const handle = await open(temp, "w");
    try {
      for await (const chunk of snapshot.chunks) await handle.write(chunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
    written = true;
    return snapshot.header;
  } catch (error) {
    throw new StateFileError(`Cannot dump state to ${file}: ${reason(error)}`);
  } finally {
    if (!written) await rm(temp, { force: true });
  }
}

function reason(error: unknown): string {
  if (error instanceof SnapshotError) return error.message.replace(/\.$/, "");
  const code = (error as { code?: string }).code;
  if (code === "ENOENT") return "no such file";
  return error instanceof Error ? error.message : String(error);
}
