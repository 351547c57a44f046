/**
 * What every entry point (`platform/{node,deno,bun}/main.ts`) does first: reads the command line
 * with `cli.ts` alone, answers `--help` (`-h`) and a bad option at once, and only then loads the
 * node (`run.ts`, and the runtime's HTTP adapter through `loadServe`), so that the help and the
 * errors come in a fraction of the node's start-up time. `identity …` and `snapshot …` load their
 * commands instead.
 * @module
 */
import process from "node:process";
import { type CommandLine, HELP, parseArgs, UsageError } from "./cli.ts";
import type { Serve } from "./serve.ts";

/** Runs the command `argv` (the arguments after the program's name) names. */
export async function main(argv: readonly string[], loadServe: () => Promise<Serve>): Promise<void> {
  if (argv[0] === "identity") {
    const { runIdentityCommand } = await import("./identity-command.ts");
    const code = await runIdentityCommand(argv.slice(1), { stdout: (text) => process.stdout.write(text), stderr: process.stderr });
    return process.exit(code);
  }
  if (argv[0] === "snapshot") {
    const { runSnapshotCommand } = await import("./snapshot-command.ts");
    // Ctrl-C stops an export or import at its next chunk; it then removes what it wrote.
    const stop = new AbortController();
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => stop.abort());
    const code = await runSnapshotCommand(argv.slice(1), {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      signal: stop.signal,
    });
    return process.exit(code);
  }
  if (argv[0] === "storage") return process.exit(await (await import("./storage-command.ts")).runStorageCommand(argv.slice(1), { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) }));
  let options: CommandLine;
  try {
    const parsed = parseArgs(argv);
    if (parsed.help) {
      process.stdout.write(HELP);
      return process.exit(0);
    }
    options = parsed.options;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\nRun with --help to list the options.\n`);
    return process.exit(1);
  }
  const [{ run }, serve] = await Promise.all([import("./run.ts"), loadServe()]);
  await run(options, { serve });
}
