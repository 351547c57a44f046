/**
 * Runs a TypeScript fixture in a child process of the current runtime (Node through tsx, Bun,
 * Deno with `-A`), from the repository root so that `node_modules` resolves.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import process from "node:process";

/** The repository root. */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** Command and arguments that run `script` with `args` on the current runtime. */
export function runtimeCommand(script: string, args: string[]): [string, string[]] {
  const g = globalThis as { Deno?: unknown; Bun?: unknown };
  if (g.Deno !== undefined) return [process.execPath, ["run", "-A", "--quiet", script, ...args]];
  if (g.Bun !== undefined) return [process.execPath, [script, ...args]];
  return [process.execPath, ["--import", "tsx", script, ...args]];
}

/** Starts the fixture `name` (in `test/store/fixtures/`) with `args`. */
export function startFixture(name: string, args: string[]): ChildProcess {
  const script = fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
  const [cmd, argv] = runtimeCommand(script, args);
  return spawn(cmd, argv, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
}

/** Runs the fixture to its end; resolves with its exit code and output. */
export function runFixture(name: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = startFixture(name, args);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
