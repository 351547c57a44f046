/**
 * `tezos-node identity` (`npm start -- identity …`), as octez-node's
 * (`src/bin_node/node_identity_command.ml`): `show` prints the peer id of
 * `<data-dir>/identity.json`, `generate [DIFFICULTY]` creates that file (never over an existing
 * one), `check [DIFFICULTY]` checks its proof of work. The difficulty is the configuration file's
 * `p2p.expected-proof-of-work` when not given, else 26; the data directory is `--data-dir`, else
 * the configuration file's `data-dir`, else `./tezos-node-data`.
 *
 * @example
 * ```sh
 * npm start -- identity generate 0 --data-dir /tmp/node1   # Stored the new identity (id…) into '/tmp/node1/identity.json'.
 * npm start -- identity show --data-dir /tmp/node1          # Peer_id: id….
 * npm start -- identity check 24 --data-dir /tmp/node1      # exits 1: not enough proof of work
 * ```
 * @module
 */
import { checkProofOfWork, DEFAULT_EXPECTED_POW, powTarget } from "../lib/p2p/identity.ts";
import { DEFAULT_DATA_DIR, parseExpectedPow, UsageError } from "./cli.ts";
import { readSubcommandArgs } from "./subcommand-args.ts";
import { readConfigFile } from "./config.ts";
import { generateIdentityFile, identityPath, IdentityFileProblem, type ProgressSink, readIdentityFile } from "./identity-file.ts";

/** What `identity` does. */
export type IdentityOperation = "show" | "generate" | "check";

/** The `identity` command line. */
export interface IdentityCommand {
  readonly operation: IdentityOperation;
  /** `DIFFICULTY` as given (generate and check only). */
  readonly difficulty: number | undefined;
  readonly dataDir: string | undefined;
  readonly configFile: string | undefined;
}

/** The `identity --help` text. */
export const IDENTITY_HELP = `Usage: tezos-node identity [show | generate [DIFFICULTY] | check [DIFFICULTY]] [OPTIONS]

Manages the node's P2P identity, <data-dir>/identity.json: a key pair, its peer id, and a
proof-of-work stamp that peers check.

  show                   Print the identity's peer id (the default).
  generate [DIFFICULTY]  Create an identity whose proof of work meets DIFFICULTY (a number from
                         0 to 256; each unit doubles the work; 0: none). Never overwrites an
                         existing identity file.
  check [DIFFICULTY]     Check that the identity is valid and meets DIFFICULTY.

DIFFICULTY is the configuration file's p2p.expected-proof-of-work when left out, else 26.

Options:
  --data-dir DIR         The data directory (default the configuration file's, else ${DEFAULT_DATA_DIR}).
  --config-file FILE     An Octez-style configuration file (data-dir, p2p.expected-proof-of-work).
  --help                 Print this text and exit.
`;

/**
 * Reads the arguments that follow `identity`; `undefined` for `--help`.
 * @throws {UsageError} on an unknown operation or option, a missing or bad value.
 */
export function parseIdentityArgs(argv: readonly string[]): IdentityCommand | undefined {
  const args = readSubcommandArgs(argv, "identity");
  if (args === undefined) return undefined;
  const { positional, flags } = args;
  const [op = "show", difficultyText, ...extra] = positional;
  if (op !== "show" && op !== "generate" && op !== "check") {
    throw new UsageError(`Invalid identity operation "${op}": expected show, generate or check.`);
  }
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}".`);
  if (op === "show" && difficultyText !== undefined) throw new UsageError(`identity show takes no DIFFICULTY (got "${difficultyText}").`);
  return {
    operation: op,
    difficulty: difficultyText === undefined ? undefined : parseExpectedPow(difficultyText, "DIFFICULTY"),
    dataDir: flags.get("--data-dir"),
    configFile: flags.get("--config-file"),
  };
}

/** Where the command writes. */
export interface IdentityOutput {
  readonly stdout: (text: string) => unknown;
  readonly stderr: ProgressSink;
}

/**
 * Runs `identity` as octez-node: the exit code (0, or 1 with one line on stderr). Lines are
 * Octez's: `Peer_id: id….`, `Peer_id: id…. Proof of work is higher than 24.00.`, and its messages
 * for a missing identity, one whose proof of work is too low, or one that would be overwritten.
 */
export async function runIdentityCommand(argv: readonly string[], out: IdentityOutput): Promise<number> {
  const problem = (message: string) => {
    out.stderr.write(`${message}\n`);
    return 1;
  };
  let command: IdentityCommand | undefined;
  try {
    command = parseIdentityArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) return problem(`${error.message}\nRun with identity --help to list the options.`);
    throw error;
  }
  if (command === undefined) {
    out.stdout(IDENTITY_HELP);
    return 0;
  }
  try {
    const config = command.configFile === undefined ? undefined : await readConfigFile(command.configFile);
    const dataDir = command.dataDir ?? config?.dataDir ?? DEFAULT_DATA_DIR;
    const difficulty = command.difficulty ?? config?.p2p.expectedPow ?? DEFAULT_EXPECTED_POW;
    const path = identityPath(dataDir);
    switch (command.operation) {
      case "show": {
        const identity = await readIdentityFile(path);
        out.stdout(`Peer_id: ${identity.peerId}.\n`);
        return 0;
      }
      case "check": {
        const identity = await readIdentityFile(path);
        if (!checkProofOfWork(identity.publicKey, identity.proofOfWorkStamp, powTarget(difficulty))) {
          return problem(
            `The current identity does not embed a sufficient stamp of proof-of-work. (expected level: ${difficulty.toFixed(2)}). ` +
              "See `tezos-node identity --help` on how to generate a new identity.",
          );
        }
        out.stdout(`Peer_id: ${identity.peerId}. Proof of work is higher than ${difficulty.toFixed(2)}.\n`);
        return 0;
      }
      case "generate":
        await generateIdentityFile(path, difficulty, out.stderr);
        return 0;
    }
  } catch (error) {
    if (error instanceof IdentityFileProblem || error instanceof UsageError) return problem(error.message);
    throw error;
  }
}
