/**
 * `tezos-node storage` (`npm start -- storage …`), after octez-node's `storage` command
 * (`src/bin_node/node_storage_command.ml`, tools for the storage layer). Octez v12's operations
 * are about Irmin's files; ours is `compact`: it rewrites the data directory's `store.mdb`
 * without its free pages (`LmdbStore.compact`). LMDB reuses the pages that history-mode pruning
 * and the context collection free, but never shrinks its file; this gives the space back. It
 * takes the data directory's lock, so it runs on a stopped node. The data directory is
 * `--data-dir`, else the configuration file's `data-dir`, else `./tezos-node-data`.
 *
 * @example
 * ```sh
 * npm start -- storage compact --data-dir /tmp/node1   # Compacted /tmp/node1/store.mdb: 69.1 MB -> 21.5 MB.
 * ```
 * @module
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_DATA_DIR, UsageError } from "./cli.ts";
import { readSubcommandArgs } from "./subcommand-args.ts";
import { readConfigFile } from "./config.ts";
import { LMDB_FILE_NAME, openLmdbStore } from "./store/lmdb.ts";

/** The `storage` command line. */
export interface StorageCommand {
  readonly operation: "compact";
  readonly dataDir: string | undefined;
  readonly configFile: string | undefined;
}

/** The `storage --help` text. */
export const STORAGE_HELP = `Usage: tezos-node storage compact [OPTIONS]

Tools for the node's storage.

  compact                Rewrite <data-dir>/store.mdb without its free pages: the space freed
                         by pruning (history modes) and the context collection goes back to the
                         file system. The node must be stopped (the data directory's lock).

Options:
  --data-dir DIR         The data directory (default the configuration file's, else ${DEFAULT_DATA_DIR}).
  --config-file FILE     An Octez-style configuration file (data-dir).
  --help                 Print this text and exit.
`;

/**
 * Reads the arguments that follow `storage`; `undefined` for `--help`.
 * @throws {UsageError} on a missing or unknown operation, an unknown option, a missing value.
 */
export function parseStorageArgs(argv: readonly string[]): StorageCommand | undefined {
  const args = readSubcommandArgs(argv, "storage");
  if (args === undefined) return undefined;
  const { positional, flags } = args;
  const [op, ...extra] = positional;
  if (op === undefined) throw new UsageError("Missing storage operation: expected compact.");
  if (op !== "compact") throw new UsageError(`Invalid storage operation "${op}": expected compact.`);
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}".`);
  return { operation: op, dataDir: flags.get("--data-dir"), configFile: flags.get("--config-file") };
}

/** Runs `storage`: the exit code (0, or 1 with one line on stderr). */
export async function runStorageCommand(
  argv: readonly string[],
  out: { stdout: (text: string) => unknown; stderr: (text: string) => unknown },
): Promise<number> {
  const problem = (message: string) => {
    out.stderr(`${message}\n`);
    return 1;
  };
  let command: StorageCommand | undefined;
  try {
    command = parseStorageArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) return problem(`${error.message}\nRun with storage --help to list the options.`);
    throw error;
  }
  if (command === undefined) {
    out.stdout(STORAGE_HELP);
    return 0;
  }
  try {
    const config = command.configFile === undefined ? undefined : await readConfigFile(command.configFile);
    const dataDir = command.dataDir ?? config?.dataDir ?? DEFAULT_DATA_DIR;
    const file = join(dataDir, LMDB_FILE_NAME);
    if (!existsSync(file)) return problem(`No store in the data directory ${dataDir} (no ${LMDB_FILE_NAME}).`);
    const store = await openLmdbStore(dataDir);
    try {
      const { before, after } = await store.compact();
      out.stdout(`Compacted ${file}: ${megabytes(before)} -> ${megabytes(after)}.\n`);
    } finally {
      await store.close();
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return problem(error.message);
    return problem(error instanceof Error ? error.message : String(error));
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
