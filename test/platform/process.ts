/**
 * Test helpers: deadlines, deferred promises, and the node's command line as a subprocess,
 * waited for through its "Node listening on ..." line (never a sleep).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The repository's root directory. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A promise with its resolve and reject outside. */
export function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** `promise`, or a rejection naming `what` once `ms` have passed. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** How a subprocess ended. */
export interface Exit {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running node subprocess. */
export interface NodeProcess {
  readonly child: ChildProcess;
  /** Resolves when the process ends. */
  readonly exited: Promise<Exit>;
  /** Output so far. */
  output(): { stdout: string; stderr: string };
}

/** Starts `command args` in the repository's root, collecting its output. */
export function start(command: string, args: readonly string[]): NodeProcess {
  // Its own process group, so that `kill` also reaches what npm and tsx start below it.
  const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = new Promise<Exit>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, exited, output: () => ({ stdout, stderr }) };
}

/** Kills the process and everything it started (its process group) with SIGKILL, if still running. */
export function kill(node: NodeProcess): void {
  const { child } = node;
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/** Waits for the "Node listening on URL" line and returns the URL, or throws with the output. */
export async function listening(node: NodeProcess, ms = 60_000): Promise<string> {
  const line = /Node listening on (http:\/\/\S+)/;
  const seen = new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = line.exec(node.output().stdout);
      if (match) resolve(match[1]!);
    };
    node.child.stdout!.on("data", check);
    check();
    node.exited.then((exit) => reject(new Error(`The node exited (${exit.code ?? exit.signal}) before listening:\n${exit.stderr}`)));
  });
  try {
    return await within(seen, ms, "the node to listen");
  } catch (error) {
    kill(node);
    throw error;
  }
}

/** Sends `signal` and waits (bounded) for the process to end. */
export async function stop(node: NodeProcess, signal: NodeJS.Signals = "SIGTERM", ms = 30_000): Promise<Exit> {
  // process.kill rather than child.kill: Deno's child.kill records the signal as the cause of the
  // exit even when the process then exits normally with code 0.
  process.kill(node.child.pid!, signal);
  try {
    return await within(node.exited, ms, `the node to exit on ${signal}`);
  } catch (error) {
    kill(node);
    throw error;
  }
}

/**
 * The command that runs `npm run dev -- ...args`: the node from its sources through tsx (`npm start`
 * runs the compiled `dist/`, which may be older than the sources under test).
 */
export function npmStart(args: readonly string[]): NodeProcess {
  return start("npm", ["run", "--silent", "dev", "--", ...args]);
}

/** Path of a runtime installed by `.ci/run` in `.tools/`, or undefined when absent. */
export function tool(name: "bun" | "deno"): string | undefined {
  const path = `${ROOT}.tools/node_modules/.bin/${name}`;
  return existsSync(path) ? path : undefined;
}
