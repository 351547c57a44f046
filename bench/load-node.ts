/**
 * The load bench's node: a separate process started as a user starts it
 * (`node --import tsx platform/node/main.ts --memory --rpc-addr 127.0.0.1:0 --bake <mode>`, or
 * `--data-dir <temporary dir>` for LMDB; Bun and Deno through their entry points in `.tools/`),
 * its URL read from the one line it prints once listening, its CPU time and memory read from
 * `/proc` (Linux), stopped with SIGTERM. Every node started here is killed when this process
 * exits, whatever the path out (error, Ctrl-C, SIGTERM).
 * @module
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The runtimes the node can be started under. */
export type NodeRuntime = "node" | "bun" | "deno";

/** How to start the node. */
export interface NodeStart {
  /** `auto`, `manual`, `interval:<seconds>`. */
  readonly bake: string;
  /** `memory` (`--memory`) or `lmdb` (`--data-dir` on a fresh temporary directory). */
  readonly store: "memory" | "lmdb";
  /** The repository the node is started from (its `platform/…/main.ts`). */
  readonly dir: string;
  /** The runtime (default `node`). */
  readonly runtime?: NodeRuntime;
  /** Flags for the runtime itself, before the script (`--cpu-prof`, say). */
  readonly runtimeFlags?: readonly string[];
  /** Milliseconds to wait for the "listening" line (default 120 000). */
  readonly startTimeoutMs?: number;
}

/** How the node process ended. */
export interface NodeExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** What the node wrote besides its "listening" line. */
export interface NodeLog {
  /** The last lines of stdout and stderr (stderr ones prefixed `[stderr] `). */
  readonly lines: string[];
  /** How many lines it wrote to stderr in all. */
  stderrLines: number;
}

/** The nodes started and not yet stopped, with their data directories. */
const live = new Map<ChildProcess, string | undefined>();
let handlersInstalled = false;

/**
 * On SIGINT/SIGTERM, stops every node still running (SIGTERM, at most 5 s), removes their data
 * directories and exits; on exit by any path, kills those still running (SIGKILL).
 */
function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on("exit", () => {
    for (const [child, dataDir] of live) {
      child.kill("SIGKILL");
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
    }
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      const exits = [...live.keys()].map((child) => {
        child.kill("SIGTERM");
        return new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
      });
      void Promise.race([Promise.all(exits), new Promise((resolve) => setTimeout(resolve, 5000))]).then(() => process.exit(130));
    });
  }
}

/** Lines kept at most from the node's stdout and stderr. */
const TAIL_LINES = 200;

/** A node process started for the bench. */
export class NodeProcess {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** The node's process id. */
  readonly pid: number;
  /** The last lines of the node's stdout and stderr (after the "listening" line), at most 200, and the count of stderr lines. */
  readonly log: NodeLog;
  /** Resolves once the process has exited. */
  readonly exited: Promise<NodeExit>;
  private exit: NodeExit | undefined;
  private readonly child: ChildProcess;
  private readonly dataDir: string | undefined;

  private constructor(child: ChildProcess, url: string, log: NodeLog, exited: Promise<NodeExit>, dataDir: string | undefined) {
    this.child = child;
    this.url = url;
    this.pid = child.pid!;
    this.log = log;
    this.dataDir = dataDir;
    this.exited = exited.then((e) => (this.exit = e));
  }

  /** Whether the process has exited. */
  get hasExited(): NodeExit | undefined {
    return this.exit;
  }

  /** Starts the node and resolves once it listens; rejects (and kills it) if it does not. */
  static async start(options: NodeStart): Promise<NodeProcess> {
    installExitHandlers();
    const runtime = options.runtime ?? "node";
    const [command, script] = commandOf(runtime, options.dir);
    const args = [...(runtime === "deno" ? script.slice(0, 2) : []), ...(options.runtimeFlags ?? []), ...(runtime === "deno" ? script.slice(2) : script)];
    const dataDir = options.store === "lmdb" ? mkdtempSync(join(tmpdir(), "tezos-load-bench-")) : undefined;
    const nodeArgs = [
      ...(dataDir === undefined ? ["--memory"] : ["--data-dir", dataDir]),
      "--rpc-addr",
      "127.0.0.1:0",
      "--bake",
      options.bake,
    ];
    const child = spawn(command, [...args, ...nodeArgs], { cwd: options.dir, stdio: ["ignore", "pipe", "pipe"] });
    live.set(child, dataDir);
    const exited = new Promise<NodeExit>((resolve) => {
      child.once("exit", (code, signal) => {
        if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
        live.delete(child);
        resolve({ code, signal });
      });
    });
    const log: NodeLog = { lines: [], stderrLines: 0 };
    const keep = (line: string) => {
      log.lines.push(line);
      if (log.lines.length > TAIL_LINES) log.lines.shift();
    };
    let url: string | undefined;
    const listening = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the node did not print its "listening" line within ${(options.startTimeoutMs ?? 120_000) / 1000} s`)),
        options.startTimeoutMs ?? 120_000,
      );
      lines(child.stdout!, (line) => {
        const m = url === undefined ? /^Node listening on (http:\/\/\S+)/.exec(line) : null;
        if (m !== null) {
          url = m[1]!;
          clearTimeout(timer);
          resolve(url);
        } else keep(line);
      });
      lines(child.stderr!, (line) => {
        log.stderrLines++;
        keep(`[stderr] ${line}`);
      });
      child.once("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`the node exited before listening (code ${code}, signal ${signal}):\n${log.lines.join("\n")}`));
      });
    });
    try {
      return new NodeProcess(child, await listening, log, exited, dataDir);
    } catch (e) {
      child.kill("SIGKILL");
      await exited;
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
      throw e;
    }
  }

  /** CPU seconds (user + system) the node has used so far; undefined where `/proc` is missing. */
  cpuSeconds(): number | undefined {
    try {
      const stat = readFileSync(`/proc/${this.pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return (Number(fields[11]) + Number(fields[12])) / clockTicks();
    } catch {
      return undefined;
    }
  }

  /** The node's resident memory in MiB; undefined where `/proc` is missing. */
  rssMiB(): number | undefined {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.pid}/status`, "utf8"));
      return m === null ? undefined : Number(m[1]) / 1024;
    } catch {
      return undefined;
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`; removes the temporary data directory. */
  async stop(graceMs = 15_000): Promise<NodeExit & { killed: boolean }> {
    let killed = false;
    if (this.exit === undefined) {
      this.child.kill("SIGTERM");
      const timer = setTimeout(() => {
        killed = true;
        this.child.kill("SIGKILL");
      }, graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    if (this.dataDir !== undefined) rmSync(this.dataDir, { recursive: true, force: true });
    return { ...this.exit!, killed };
  }
}

function commandOf(runtime: NodeRuntime, dir: string): [string, string[]] {
  switch (runtime) {
    case "node": {
      // Under Bun or Deno, process.execPath is not Node: take `node` from the PATH.
      const versions = process.versions as Record<string, string | undefined>;
      const node = versions["bun"] !== undefined || versions["deno"] !== undefined ? "node" : process.execPath;
      return [node, ["--import", "tsx", "platform/node/main.ts"]];
    }
    case "bun":
      return [tool(dir, "bun"), ["platform/bun/main.ts"]];
    case "deno":
      return [tool(dir, "deno"), ["run", "-A", "platform/deno/main.ts"]];
  }
}

/** `.tools/node_modules/.bin/<name>` of the node's checkout, else of this repository. */
function tool(dir: string, name: string): string {
  const paths = [dir, fileURLToPath(new URL("..", import.meta.url))].map((d) => join(d, ".tools", "node_modules", ".bin", name));
  const path = paths.find((p) => existsSync(p));
  if (path === undefined) throw new Error(`${paths[0]} is missing: run \`bash .ci/run\` once, or install ${name} into .tools/`);
  return path;
}

/**
 * CPU seconds of the whole machine so far, all cores: busy (user, nice, system, irq, softirq,
 * steal) and idle (idle, iowait), from `/proc/stat`; undefined where it is missing.
 */
export function machineCpuSeconds(): { busy: number; idle: number } | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map(Number) as number[];
    return { busy: (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / clockTicks(), idle: (idle! + iowait!) / clockTicks() };
  } catch {
    return undefined;
  }
}

let ticks: number | undefined;
function clockTicks(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

function lines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    rest += chunk;
    let i: number;
    while ((i = rest.indexOf("\n")) >= 0) {
      onLine(rest.slice(0, i));
      rest = rest.slice(i + 1);
    }
  });
  stream.on("end", () => {
    if (rest !== "") onLine(rest);
  });
}
