/**
 * The arguments of the node's data-directory subcommands (`identity …`, `storage …`): positional
 * words, and `--data-dir DIR` / `--config-file FILE` (also `--flag=value`), each at most once.
 * @module
 */
import { UsageError } from "./cli.ts";

/** What follows a subcommand's name: its words in order, and the two path options given. */
export interface SubcommandArgs {
  readonly positional: string[];
  readonly flags: Map<"--data-dir" | "--config-file", string>;
}

/**
 * Reads `argv` (what follows `command`); `undefined` when `--help` is among them.
 * @throws {UsageError} on an unknown option, a missing or empty value, an option given twice.
 */
export function readSubcommandArgs(argv: readonly string[], command: string): SubcommandArgs | undefined {
  const positional: string[] = [];
  const flags = new Map<"--data-dir" | "--config-file", string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help") return undefined;
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (name !== "--data-dir" && name !== "--config-file") throw new UsageError(`Unknown option "${name}" for ${command}.`);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || (eq < 0 && value.startsWith("--"))) {
      throw new UsageError(`Option ${name} needs a value (${name === "--data-dir" ? "DIR" : "FILE"}).`);
    }
    if (value === "") throw new UsageError(`Invalid ${name} "": expected a ${name === "--data-dir" ? "directory" : "file"} path.`);
    if (flags.has(name)) throw new UsageError(`Option ${name} is given more than once.`);
    flags.set(name, value);
  }
  return { positional, flags };
}
