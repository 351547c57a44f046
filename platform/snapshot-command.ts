/**
 * `tezos-node snapshot` (`npm start -- snapshot …`), as octez-node's
 * (`src/bin_node/node_snapshot_command.ml`): `export [FILE] [--block B] [--rolling]` writes a
 * snapshot of the data directory's chain (by default at its checkpoint), `import FILE
 * [--block HASH]` makes a new data directory from one, `info FILE [--json]` prints a snapshot's
 * header. The format and its checks are `lib/store/snapshot/` (docs/snapshot.md); this file does
 * the files: export writes `FILE.part` and renames it once complete, import fills a temporary
 * directory beside the target and renames it into place only once every check passed, so a
 * failure leaves neither a partial file nor a data directory behind. Progress goes to stderr
 * every second.
 *
 * @example
 * ```sh
 * npm start -- snapshot export chain.full --block head --data-dir /tmp/node1
 * npm start -- snapshot info chain.full
 * npm start -- snapshot import chain.full --data-dir /tmp/node2
 * ```
 * @module
 */
import { createReadStream } from "node:fs";
import { mkdir, open, readdir, rename, rm, rmdir, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import process from "node:process";
import { blake2bWasmReady } from "../lib/crypto/blake2b.ts";
import { chainIdOf, SANDBOX_GENESIS } from "../lib/shell/genesis.ts";
import { exportSnapshot, importSnapshot, newProgress, readSnapshotHeader, SnapshotError, type SnapshotHeader, type SnapshotProgress } from "../lib/store/snapshot/mod.ts";
import { DEFAULT_DATA_DIR, UsageError } from "./cli.ts";

/** The `snapshot` command line. */
export type SnapshotCommand =
  | { readonly operation: "export"; readonly file: string | undefined; readonly block: string | undefined; readonly rolling: boolean; readonly dataDir: string }
  | { readonly operation: "import"; readonly file: string; readonly block: string | undefined; readonly dataDir: string }
  | { readonly operation: "info"; readonly file: string; readonly json: boolean };

/** The `snapshot --help` text. */
export const SNAPSHOT_HELP = `Usage: tezos-node snapshot (export [FILE] | import FILE | info FILE) [OPTIONS]

Exports the chain of a data directory to one file, and makes a new data directory from one.

  export [FILE]   Write a snapshot of the chain at --block (default: the checkpoint). A full
                  snapshot holds every block header and its operations back to genesis, a rolling
                  one the target's last max_operations_ttl predecessors; both hold the target
                  block's metadata and context. FILE defaults to
                  <CHAIN_NAME>-<BLOCK_HASH>-<LEVEL>.<full|rolling>; it must not exist.
  import FILE     Make the data directory from FILE: its head is the snapshot's block, its
                  history mode the snapshot's (start a rolling one with --history-mode rolling).
                  The data directory must be absent or empty. Nothing is written unless the whole
                  file checks.
  info FILE       Print the snapshot's header.

Options:
  --data-dir DIR  The data directory (default ${DEFAULT_DATA_DIR}); export and import.
  --block BLOCK   export: a block hash, a level, or head, checkpoint, savepoint, caboose with
                  ~N (N blocks before), -N or +N (e.g. head~10). import: the block hash the
                  snapshot must hold.
  --rolling       export: a rolling snapshot instead of a full one.
  --json          info: print the header as JSON.
  --help          Print this text and exit.
`;

const VALUE_OPTIONS = new Set(["--data-dir", "--block"]);
const FLAG_OPTIONS = new Set(["--rolling", "--json"]);
const ALLOWED: Record<string, readonly string[]> = {
  export: ["--data-dir", "--block", "--rolling"],
  import: ["--data-dir", "--block"],
  info: ["--json"],
};

/**
 * Reads the arguments that follow `snapshot`; `undefined` for `--help`.
 * @throws {UsageError} on an unknown operation or option, a missing or extra argument.
 */
export function parseSnapshotArgs(argv: readonly string[]): SnapshotCommand | undefined {
  const positional: string[] = [];
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") return undefined;
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (FLAG_OPTIONS.has(name)) {
      if (eq >= 0) throw new UsageError(`Option ${name} takes no value.`);
      flags.add(name);
      continue;
    }
    if (!VALUE_OPTIONS.has(name)) throw new UsageError(`Unknown option "${name}" for snapshot.`);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || (eq < 0 && value.startsWith("--"))) throw new UsageError(`Option ${name} needs a value.`);
    if (value === "") throw new UsageError(`Invalid ${name} "".`);
    if (values.has(name)) throw new UsageError(`Option ${name} is given more than once.`);
    values.set(name, value);
  }
  const [op, file, ...extra] = positional;
  if (op === undefined) throw new UsageError("Missing snapshot operation: expected export, import or info.");
  if (op !== "export" && op !== "import" && op !== "info") throw new UsageError(`Invalid snapshot operation "${op}": expected export, import or info.`);
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}".`);
  for (const name of [...values.keys(), ...flags]) {
    if (!ALLOWED[op]!.includes(name)) throw new UsageError(`Option ${name} does not apply to snapshot ${op}.`);
  }
  const dataDir = values.get("--data-dir") ?? DEFAULT_DATA_DIR;
  const block = values.get("--block");
  if (op === "export") return { operation: "export", file, block, rolling: flags.has("--rolling"), dataDir };
  if (file === undefined) throw new UsageError(`snapshot ${op} needs a FILE.`);
  if (op === "import") return { operation: "import", file, block, dataDir };
  return { operation: "info", file, json: flags.has("--json") };
}

/** Where the command writes. */
export interface SnapshotOutput {
  readonly stdout: (text: string) => unknown;
  readonly stderr: (text: string) => unknown;
  /**
   * Aborted to stop an export or an import (the entry point aborts it on SIGINT and SIGTERM): the
   * command stops at its next chunk, removes what it wrote and answers 1.
   */
  readonly signal?: AbortSignal;
}

/** Runs `snapshot`: the exit code (0, or 1 with one message on stderr). */
export async function runSnapshotCommand(argv: readonly string[], out: SnapshotOutput): Promise<number> {
  let command: SnapshotCommand | undefined;
  try {
    command = parseSnapshotArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    out.stderr(`${error.message}\nRun with snapshot --help to list the options.\n`);
    return 1;
  }
  if (command === undefined) {
    out.stdout(SNAPSHOT_HELP);
    return 0;
  }
  await blake2bWasmReady;
  try {
    switch (command.operation) {
      case "export":
        await exportCommand(command, out);
        return 0;
      case "import":
        await importCommand(command, out);
        return 0;
      case "info": {
        const header = await readHeaderOf(command.file);
        out.stdout(command.json ? `${JSON.stringify(header, null, 2)}\n` : infoText(header));
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof SnapshotError || error instanceof CommandError) {
      out.stderr(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

class CommandError extends Error {
  override name = "CommandError";
}

/** Octez's `Snapshot information` text, then the fields Octez does not print. */
export function infoText(h: SnapshotHeader): string {
  return (
    `Snapshot information:\n` +
    `  chain ${h.chain_name}, block hash ${h.block_hash} at level ${h.level}, timestamp ${h.timestamp} in ${h.history_mode} (snapshot version ${h.version})\n` +
    `  chain id ${h.chain_id}, context ${h.context_hash}, ${h.blocks} blocks (genesis and levels ${h.first_level} to ${h.level}), ${h.context_nodes} context nodes, ${h.protocols} protocols\n`
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Prints progress every second until stopped. */
function progressPrinter(verb: string, progress: SnapshotProgress, totals: () => SnapshotHeader | undefined, out: SnapshotOutput): () => void {
  const line = () => {
    const t = totals();
    const of = (n: number, total: number | undefined) => (total === undefined ? `${n}` : `${n}/${total}`);
    out.stderr(`${verb}: ${progress.section}, blocks ${of(progress.blocks, t?.blocks)}, context nodes ${of(progress.nodes, t?.context_nodes)}, ${(progress.bytes / 1e6).toFixed(1)} MB\n`);
  };
  const timer = setInterval(line, 1000);
  return () => {
    clearInterval(timer);
    line();
  };
}

async function exportCommand(c: Extract<SnapshotCommand, { operation: "export" }>, out: SnapshotOutput): Promise<void> {
  const dataDir = resolve(c.dataDir);
  if (!(await exists(join(dataDir, "store.mdb")))) throw new CommandError(`Cannot export: ${dataDir} holds no node data (no store.mdb).`);
  if (c.file !== undefined && (await exists(c.file))) throw new CommandError(`Failed to export snapshot: the file or directory ${c.file} already exists.`);
  const { openLmdbStore } = await import("./store/lmdb.ts");
  let kv;
  try {
    kv = await openLmdbStore(dataDir);
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
  const progress = newProgress();
  let part: string | undefined;
  try {
    if (c.block === undefined) out.stderr("There is no block hash specified with the `--block` option. Using the last checkpoint as the default value\n");
    const snapshot = exportSnapshot(kv, {
      chainId: chainIdOf(SANDBOX_GENESIS),
      chainName: SANDBOX_GENESIS.chainName,
      genesis: SANDBOX_GENESIS.block,
      ...(c.block === undefined ? {} : { block: c.block }),
      rolling: c.rolling,
      progress,
    });
    const h = snapshot.header;
    const file = c.file ?? defaultFileName(h);
    if (await exists(file)) throw new CommandError(`Failed to export snapshot: the file or directory ${file} already exists.`);
    out.stderr(`Exporting a ${h.history_mode} snapshot of block ${h.block_hash} at level ${h.level} to ${file}\n`);
    part = `${file}.part`;
    const stop = progressPrinter("Exporting", progress, () => h, out);
    const handle = await open(part, "wx");
    try {
      for await (const chunk of snapshot.chunks) {
        if (out.signal?.aborted) throw interrupted("export", "no file was written");
        await handle.write(chunk);
      }
      await handle.sync();
    } finally {
      await handle.close();
      stop();
    }
    if (out.signal?.aborted) throw interrupted("export", "no file was written");
    await rename(part, file);
    part = undefined;
    out.stderr(`Successful export: ${file} (${(progress.bytes / 1e6).toFixed(1)} MB)\n`);
  } finally {
    await kv.close();
    if (part !== undefined) await rm(part, { force: true });
  }
}

/** Octez's default name: `<NETWORK>-<BLOCK_HASH>-<BLOCK_LEVEL>.<SNAPSHOT_KIND>`. */
function defaultFileName(h: SnapshotHeader): string {
  return `${h.chain_name}-${h.block_hash}-${h.level}.${h.history_mode}`;
}

async function* fileChunks(file: string, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    if (signal?.aborted) throw interrupted("import", "nothing was imported");
    yield chunk as Uint8Array;
  }
}

/** The error of a command stopped by a signal. */
function interrupted(operation: string, consequence: string): CommandError {
  return new CommandError(`Snapshot ${operation} interrupted: ${consequence}.`);
}

async function readHeaderOf(file: string): Promise<SnapshotHeader> {
  if (!(await exists(file))) throw new CommandError(`The snapshot file ${file} does not exists.`);
  try {
    return await readSnapshotHeader(fileChunks(file));
  } catch (error) {
    if (error instanceof SnapshotError) throw new SnapshotError(`Failed to read snapshot file ${file}: ${error.message}`);
    throw error;
  }
}

async function importCommand(c: Extract<SnapshotCommand, { operation: "import" }>, out: SnapshotOutput): Promise<void> {
  const target = resolve(c.dataDir);
  if (!(await exists(c.file))) throw new CommandError(`The snapshot file ${c.file} does not exists.`);
  if (await exists(target)) {
    const s = await stat(target);
    if (!s.isDirectory() || (await readdir(target)).length > 0) {
      throw new CommandError(`Failed to import snapshot as the given directory ${target} already exists and is not empty: import into an absent or empty directory.`);
    }
  }
  await mkdir(dirname(target), { recursive: true });
  const temp = join(dirname(target), `.${basename(target)}.import-${process.pid}`);
  await rm(temp, { recursive: true, force: true });
  const { openLmdbStore } = await import("./store/lmdb.ts");
  const kv = await openLmdbStore(temp);
  const progress = newProgress();
  let header: SnapshotHeader | undefined;
  const stop = progressPrinter("Importing", progress, () => header, out);
  let done = false;
  try {
    try {
      await importSnapshot(fileChunks(c.file, out.signal), kv, {
        chainId: chainIdOf(SANDBOX_GENESIS),
        chainName: SANDBOX_GENESIS.chainName,
        ...(c.block === undefined ? {} : { block: c.block }),
        progress,
        onHeader: (h) => {
          header = h;
          out.stderr(`Importing a ${h.history_mode} snapshot of block ${h.block_hash} at level ${h.level} into ${target}\n`);
        },
      });
    } catch (error) {
      if (error instanceof SnapshotError) throw new SnapshotError(`Failed to read snapshot file ${c.file}: ${error.message}. Nothing was imported.`);
      throw error;
    } finally {
      stop();
    }
    if (out.signal?.aborted) throw interrupted("import", "nothing was imported");
    await kv.close();
    if (await exists(target)) await rmdir(target);
    await rename(temp, target);
    done = true;
    out.stderr(`Successful import: ${target} (head ${header!.block_hash} at level ${header!.level}, ${header!.history_mode} mode)\n`);
  } finally {
    if (!done) {
      await kv.close().catch(() => {});
      await rm(temp, { recursive: true, force: true });
    }
  }
}
